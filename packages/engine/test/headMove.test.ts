import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { QUERY_EMBEDDING_MAX_CHARS, queryEmbeddingText } from '../src/engine.js';
import { copyFixture, TS_APP } from './helpers.js';

const OFF = { embedding: { enabled: false } };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

describe('HEAD moves between refreshes', () => {
  it('git names the changes: only they are parsed, and no notice', async () => {
    const repo = copyFixture(TS_APP);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixture');
    const engine = Engine.open(repo, { configOverrides: OFF });
    try {
      await engine.index();
      writeFileSync(join(repo, 'src/utils/format.ts'), 'export const changed = 1;\n');
      git(repo, 'commit', '-q', '-am', 'change format.ts');
      // The watcher reported nothing (paths: []); the HEAD move alone names format.ts.
      const r = await engine.index({ paths: [] });
      expect([r.changed, r.notices]).toEqual([1, undefined]);
    } finally {
      await engine.dispose();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);

  it('git cannot name them (the indexed commit was amended away and pruned): a full walk, said in a notice', async () => {
    const repo = copyFixture(TS_APP);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixture');
    const old = git(repo, 'rev-parse', 'HEAD');
    const engine = Engine.open(repo, { configOverrides: OFF });
    try {
      await engine.index();
      writeFileSync(join(repo, 'src/utils/format.ts'), 'export const changed = 1;\n');
      git(repo, 'commit', '-q', '--amend', '-am', 'fixture, amended');
      git(repo, 'reflog', 'expire', '--expire=now', '--all');
      git(repo, 'gc', '-q', '--prune=now');
      const head = git(repo, 'rev-parse', 'HEAD');
      expect(() => git(repo, 'cat-file', '-e', old)).toThrow();
      const r = await engine.index({ paths: [] });
      // The full walk still finds the one changed file (format.ts); before, the fallback was silent.
      expect(r.changed).toBe(1);
      expect(r.notices).toHaveLength(1);
      const notice = r.notices![0]!;
      expect(notice.startsWith(`HEAD moved from ${old.slice(0, 12)} to ${head.slice(0, 12)} but git could not list the changed files (`)).toBe(true);
      expect(notice.endsWith('): walked the whole tree instead')).toBe(true);
      // The reason is git's own first line, which names the missing commit.
      expect(notice).toContain(old);
    } finally {
      await engine.dispose();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});

describe('query text for the embedding model', () => {
  it('one cut for every embedding of a query: trimmed, at most 2,000 characters', () => {
    expect(QUERY_EMBEDDING_MAX_CHARS).toBe(2000);
    // 2 spaces + 2,500 letters + a newline: trimmed to 2,500, cut to the first 2,000 letters.
    const long = `  ${'ab'.repeat(1250)}\n`;
    expect(queryEmbeddingText(long)).toBe('ab'.repeat(1000));
    expect(queryEmbeddingText('  where is the token refreshed?  ')).toBe('where is the token refreshed?');
    // Cut after trimming: leading spaces do not eat into the budget.
    expect(queryEmbeddingText(`${' '.repeat(10)}${'x'.repeat(2000)}y`)).toBe('x'.repeat(2000));
  });
});
