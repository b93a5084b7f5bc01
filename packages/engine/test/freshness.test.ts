import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_EXCLUDED_DIRS, Engine } from '../src/index.js';
import { mayBeIndexedPath } from '../src/freshness.js';
import { copyFixture, TS_APP } from './helpers.js';

const OFF = { embedding: { enabled: false } };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

describe('freshness rules', () => {
  it('one rule for "may be indexed": every directory discovery excludes, and keep patterns reach inside', () => {
    const config = { keep: [] } as unknown as Parameters<typeof mayBeIndexedPath>[0];
    const indexable = mayBeIndexedPath(config);
    // Generated from the set itself: each excluded name, at the top and nested, hides its files.
    for (const dir of BUILTIN_EXCLUDED_DIRS) {
      expect([dir, indexable(`${dir}/x.ts`), indexable(`src/${dir}/x.ts`)]).toEqual([dir, false, false]);
      // A file named like the directory is not inside it.
      expect([dir, indexable(`src/${dir}`)]).toEqual([dir, true]);
    }
    expect(indexable('src/a.ts')).toBe(true);
    const kept = mayBeIndexedPath({ keep: ['coverage/keep/**'] } as unknown as Parameters<typeof mayBeIndexedPath>[0]);
    // The rule is the walk's, per directory: coverage/ may hold kept files, so paths under it may be
    // indexed (whether a file itself matches the keep pattern is discovery's business); dist/ may not.
    expect([kept('coverage/keep/a.ts'), kept('coverage/other/a.ts'), kept('dist/keep/a.ts')]).toEqual([true, true, false]);
  });

  it('uncommittedChanges: a committed file under coverage/ (never indexed) deleted from the tree is not an uncommitted change of the index', async () => {
    // On the old rule (a regex of 6 directory names) coverage/ was not excluded, so the deleted
    // file counted as an uncommitted change although discovery never indexes it.
    const repo = copyFixture(TS_APP);
    mkdirSync(join(repo, 'coverage'));
    writeFileSync(join(repo, 'coverage/report.ts'), 'export const covered = 1;\n');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixture');
    unlinkSync(join(repo, 'coverage/report.ts'));
    const engine = Engine.open(repo, { configOverrides: OFF });
    try {
      await engine.index();
      expect(engine.freshness()).toMatchObject({ uncommittedChanges: false, stale: false, checkedFiles: 0 });
      // A deleted source file the index holds: uncommitted at index time, and stale once deleted after.
      unlinkSync(join(repo, 'src/utils/format.ts'));
      await engine.index();
      expect(engine.freshness()).toMatchObject({ uncommittedChanges: true });
      git(repo, 'checkout', '-q', '--', 'src/utils/format.ts');
      await engine.index();
      unlinkSync(join(repo, 'src/utils/format.ts'));
      expect(engine.freshness(undefined, ['src/utils/format.ts', 'src/auth/authService.ts', 'not/indexed.ts'])).toMatchObject({
        uncommittedChanges: false,
        stale: true,
        staleFiles: ['src/utils/format.ts'],
        staleCount: 1,
        // The path the label does not index is not compared.
        checkedFiles: 2,
      });
    } finally {
      await engine.dispose();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);

  it('staleFiles is capped; staleCount has them all; touched but identical files are not stale', async () => {
    const repo = copyFixture(TS_APP);
    const engine = Engine.open(repo, { configOverrides: OFF });
    try {
      await engine.index();
      const all = engine.freshness(undefined, 'all');
      // Rewriting a file with the same bytes moves its mtime only: the blob id says unchanged.
      writeFileSync(join(repo, 'src/utils/format.ts'), execFileSync('cat', [join(repo, 'src/utils/format.ts')]));
      expect(engine.freshness(undefined, 'all')).toMatchObject({ stale: false, staleCount: 0, checkedFiles: all.checkedFiles });
      // 25 new indexed files, then all deleted: 25 stale, 20 listed (STALE_FILES_SHOWN), sorted.
      const names = Array.from({ length: 25 }, (_, i) => `src/gen/f${String(i).padStart(2, '0')}.ts`);
      mkdirSync(join(repo, 'src/gen'));
      for (const n of names) writeFileSync(join(repo, n), `export const v${n.slice(-6, -3)} = 1;\n`);
      await engine.index();
      rmSync(join(repo, 'src/gen'), { recursive: true });
      expect(engine.freshness(undefined, 'all')).toMatchObject({ stale: true, staleCount: 25, staleFiles: names.slice(0, 20), checkedFiles: all.checkedFiles + 25 });
    } finally {
      await engine.dispose();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});
