import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { GITIGNORE_TEXT } from '../src/gitignore.js';
import { copyFixture, TS_APP } from './helpers.js';

/** What an older version wrote (before the directory ignored itself). */
const OLD_TEXT = '# Code Agent index (rebuildable). config.json is meant to be committed.\n*.db\n*.db-*\n*.lock\n';

function git(repo: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A committed copy of ts-app: `git status --porcelain` is empty before Code Agent touches it. */
function gitFixture(): string {
  const repo = copyFixture(TS_APP);
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'fixture');
  expect(git(repo, 'status', '--porcelain')).toBe('');
  return repo;
}

async function index(repo: string): Promise<void> {
  const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } }, rebuildIfCorrupt: true });
  try {
    await engine.index();
  } finally {
    engine.close();
  }
}

describe('.codeagent/ ignores itself', () => {
  it('after ca index, git status shows nothing new (the index, WAL, lock and the .gitignore itself)', async () => {
    const repo = gitFixture();
    await index(repo);
    expect(readFileSync(join(repo, '.codeagent/.gitignore'), 'utf8')).toBe(GITIGNORE_TEXT);
    // Before: "?? .codeagent/" (the .gitignore was not ignored by itself).
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('a corrupt index moved aside (index.db.corrupt-*) is ignored too', async () => {
    const repo = gitFixture();
    await index(repo);
    writeFileSync(join(repo, '.codeagent/index.db'), 'not a database, long enough to be read as a header page.'.repeat(100));
    await index(repo);
    expect(readdirSync(join(repo, '.codeagent')).filter((f) => f.startsWith('index.db.corrupt-')).length).toBe(1);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('an older generated .gitignore is upgraded; config.json stays visible to git (it is meant to be committed)', async () => {
    const repo = gitFixture();
    await index(repo);
    writeFileSync(join(repo, '.codeagent/.gitignore'), OLD_TEXT);
    writeFileSync(join(repo, '.codeagent/config.json'), '{}\n');
    await index(repo);
    expect(readFileSync(join(repo, '.codeagent/.gitignore'), 'utf8')).toBe(GITIGNORE_TEXT);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('?? .codeagent/config.json\n');
  });

  it('a .gitignore someone else wrote is left alone', async () => {
    const repo = gitFixture();
    await index(repo);
    writeFileSync(join(repo, '.codeagent/.gitignore'), '# mine\n*.db\n');
    await index(repo);
    expect(readFileSync(join(repo, '.codeagent/.gitignore'), 'utf8')).toBe('# mine\n*.db\n');
  });
});
