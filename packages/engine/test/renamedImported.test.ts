import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { againstClean, indexedTsStore, refsIn } from './cleanIndex.js';

// A TS module renamed in its folder (same content: its version is renamed in place, node ids
// kept) leaves its importers' specifiers (`'../vanilla.ts'`) naming a module that no longer
// exists: a clean index has their syntactic import edges unresolved. The importers' own semantic
// pass had set those syntactic edges aside (`superseded_edges`) with their targets, and the pass
// that runs again for the importers restores the ones the compiler does not bind — they came back
// still resolved into the renamed file (decision 022, difference 22: pmndrs/zustand, seed 1,
// step 37, `git mv src/vanilla.ts src/vanilla_r37.ts`).

// With the semantic pass off, the renamed file's state must stay what a clean index gives it
// (`none`), not `pending` (a pass that never runs).
describe.each([true, false])('a TS module renamed in its folder, its importers unchanged (semantic pass on: %s)', (semantic) => {
  const options = { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: semantic } } };
  const s = indexedTsStore('ca-renamed-imported-', {
      'src/vanilla.ts': 'export type StateCreator<T> = (set: (t: T) => void) => T;\nexport const createStore = <T>(f: StateCreator<T>) => f(() => {});\n',
      'src/middleware/combine.ts': "import type { StateCreator } from '../vanilla.ts';\nexport function combine<T>(f: StateCreator<T>): StateCreator<T> { return f; }\n",
      'src/index.ts': "export * from './vanilla.ts';\n",
    }, options);

  it('the importers keep no edge into the renamed file, as in a clean index', async () => {
    execFileSync('git', ['-C', s.repo, 'mv', 'src/vanilla.ts', 'src/vanilla_r.ts']);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    // What a user asks: nothing refers to the renamed file's StateCreator any more.
    expect(s.engine.navigate('refs', 'StateCreator').edges.filter((e) => e.path !== 'src/vanilla_r.ts').map((e) => `${e.path}:${e.line}`)).toEqual([]);
  }, 300_000);
});

// A re-exporting module renamed in place: its importers' edges lead through it into the module it
// re-exports (`import { f } from './barrel.ts'` binds `f` in `impl.ts`), so none of them points
// into the renamed file's nodes, and a move marked only the files with edges into those; a clean
// index leaves the broken specifier unresolved (decision 022, difference 27: pmndrs/zustand, seed
// 2, step 216, `git mv src/useStoreWithEqualityFn_m62.ts …_r216.ts` after step 212 had made it a
// re-export of the moved function).
describe('a re-exporting module renamed in its folder, its importers unchanged', () => {
  const options = { env: {}, configOverrides: { embedding: { enabled: false } } };
  const s = indexedTsStore('ca-renamed-barrel-', {
      'src/impl.ts': 'export function f(): number { return 1; }\n',
      'src/barrel.ts': "export { f } from './impl.ts';\n",
      'src/user.ts': "import { f } from './barrel.ts';\nexport const g = () => f();\n",
    }, options);

  const userRefs = () => refsIn(s.engine, 'f', 'src/user.ts');

  it('binds through the barrel at first: the import and the call, exact', () => {
    expect(userRefs()).toEqual(['1 exact', '2 exact']);
  });

  it('the barrel renamed: the importer binds nothing, as in a clean index', async () => {
    execFileSync('git', ['-C', s.repo, 'mv', 'src/barrel.ts', 'src/barrel_r.ts']);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    expect(userRefs()).toEqual([]);
  }, 300_000);
});
