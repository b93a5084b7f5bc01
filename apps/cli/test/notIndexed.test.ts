import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ca } from './helpers.js';

/** Every read command with its arguments (issue 22: `ca search` in a never-indexed directory answered "No results"). */
const READ_COMMANDS: string[][] = [
  ['search', 'anything'],
  ['symbol', 'A'],
  ['outline', 'a.ts'],
  ['source', 'A'],
  ['callers', 'A'],
  ['callees', 'A'],
  ['refs', 'A'],
  ['impls', 'A'],
  ['deps', 'a.ts'],
  ['dependents', 'a.ts'],
  ['impact', 'A'],
  ['graph'],
  ['routes'],
  ['affected', 'base..head'],
  ['similar', 'A'],
  ['status'],
  ['health'],
];

function plainRepo(): string {
  const repo = join(mkdtempSync(join(tmpdir(), 'ca-noindex-')), 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'a.ts'), 'export class A {}\n');
  return repo;
}

describe('read commands in a directory that was never indexed', () => {
  it('each says so with exit 2 (not_indexed) and creates nothing', { timeout: 300_000 }, () => {
    const repo = plainRepo();
    for (const command of READ_COMMANDS) {
      const r = ca([...command, '--repo', repo, '--json'], { timeoutMs: 60_000 });
      expect({ command: command[0], code: r.code }).toEqual({ command: command[0], code: 2 });
      expect(JSON.parse(r.stdout)).toEqual({
        error: { code: 'not_indexed', message: `${repo} has not been indexed (no index at ${join(repo, '.codeagent', 'index.db')}): run \`ca index ${repo}\` first` },
      });
      expect(r.stderr).toBe(`ca: ${repo} has not been indexed (no index at ${join(repo, '.codeagent', 'index.db')}): run \`ca index ${repo}\` first\n`);
    }
    // Nothing was written into the repository.
    expect(readdirSync(repo)).toEqual(['a.ts']);
  });

  it('an empty index left behind by an older ca (never completed by an index run) is not an index either', () => {
    const repo = plainRepo();
    // `ca index` creates it; an index run that never completed has no last_indexed_at: simulate with --db at a fresh SQLite file.
    const db = join(repo, 'empty.db');
    writeFileSync(db, '');
    const r = ca(['search', 'A', '--repo', repo, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`ca: ${repo} has not been indexed (no index at ${db}): run \`ca index ${repo}\` first\n`);
  });

  it('a mistyped --repo is invalid_path (exit 2); after `ca index` the same search answers', () => {
    const repo = plainRepo();
    const typo = ca(['search', 'A', '--repo', `${repo}-typo`]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(`ca: --repo ${repo}-typo: no such repository folder\n`);
    expect(existsSync(`${repo}-typo`)).toBe(false);
    expect(ca(['index', repo]).code).toBe(0);
    const found = ca(['search', 'A', '--repo', repo, '--json']);
    expect(found.code).toBe(0);
    expect((JSON.parse(found.stdout) as { results: { qualifiedName: string }[] }).results[0]!.qualifiedName).toBe('A');
  });

  it('--db at a directory is invalid_path (exit 2) for read and index commands alike', () => {
    const repo = plainRepo();
    const dir = mkdtempSync(join(tmpdir(), 'ca-dbdir-'));
    for (const args of [['status', '--repo', repo], ['index', repo]]) {
      const r = ca([...args, '--db', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`ca: index path ${dir} is a directory, not an index file\n`);
    }
  });
});
