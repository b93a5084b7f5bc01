import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { againstClean, indexedTsStore, refsIn } from './cleanIndex.js';

// A file importing a module by a tsconfig `paths` alias (`'store/vanilla'` → `src/vanilla.ts`)
// while the module is missing binds nothing; when the module comes back (a rename undone, a
// branch switch), nothing named it: no edge of the importer carries the module (its syntactic
// edge names only the specifier; the compiler resolved none). A clean index has its exact edges
// (decision 022, difference 25: pmndrs/zustand, seed 2, step 18, `git checkout` of a tree where
// `src/vanilla.ts` was back after step 14 renamed it; tests importing `zustand/vanilla` kept
// 588 syntactic edges instead of exact ones).

const VANILLA = 'export interface StoreApi<T> { getState: () => T }\nexport const createStore = <T>(t: T): StoreApi<T> => ({ getState: () => t });\n';
const USER = "import { createStore } from 'store/vanilla';\nimport type { StoreApi } from 'store/vanilla';\nexport const api: StoreApi<number> = createStore(1);\nexport const read = () => api.getState();\n";

describe('a module imported by a paths alias disappears and comes back', () => {
  const options = { env: {}, configOverrides: { embedding: { enabled: false } } };
  const s = indexedTsStore('ca-alias-lookups-', { 'src/vanilla.ts': VANILLA, 'tests/user.test.ts': USER }, options, { include: ['src', 'tests'], paths: { 'store/*': ['./src/*.ts'] } });

  const userEdges = () => refsIn(s.engine, 'createStore', 'tests/user.test.ts');

  it('binds through the alias at first: the import and the call (lines 1 and 3), exact', () => {
    expect(userEdges()).toEqual(['1 exact', '3 exact']);
  });

  it('renamed away: the importer binds nothing, as in a clean index', async () => {
    execFileSync('git', ['-C', s.repo, 'mv', 'src/vanilla.ts', 'src/vanilla_r.ts']);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    expect(userEdges()).toEqual([]);
  }, 300_000);

  it('renamed back: the importer binds to it again, as in a clean index', async () => {
    execFileSync('git', ['-C', s.repo, 'mv', 'src/vanilla_r.ts', 'src/vanilla.ts']);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    expect(userEdges()).toEqual(['1 exact', '3 exact']);
  }, 300_000);
});

// An import by a package alias of a name the module does not export (any more) binds nothing and
// leaves no edge naming the module; when the module exports it again (its re-export restored by a
// branch switch), a clean index binds the import (difference 26: pmndrs/zustand, seed 2, step 128,
// `import { create } from 'zustand'` in `tests/immer.test.tsx` after step 107 had removed
// `export * from './react.ts'` from `src/index.ts`).
describe('a name imported by a paths alias stops being exported and comes back', () => {
  const options = { env: {}, configOverrides: { embedding: { enabled: false } } };
  const INDEX = "export * from './react.ts';\nexport const version = 1;\n";
  const s = indexedTsStore('ca-alias-exports-', {
        'src/react.ts': 'export const create = <T>(t: T): T => t;\n',
        'src/index.ts': INDEX,
        'tests/user.test.ts': "import { create } from 'store';\nexport const made = create(1);\n",
      }, options, { include: ['src', 'tests'], paths: { store: ['./src/index.ts'] } });

  const userEdges = () => refsIn(s.engine, 'create', 'tests/user.test.ts');

  it('binds through the alias and the re-export at first: the import and the call, exact', () => {
    expect(userEdges()).toEqual(['1 exact', '2 exact']);
  });

  it('re-export removed: the import binds nothing, as in a clean index', async () => {
    writeFileSync(join(s.repo, 'src/index.ts'), 'export const version = 1;\n');
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    expect(userEdges()).toEqual([]);
  }, 300_000);

  it('re-export restored: the import binds again, as in a clean index', async () => {
    writeFileSync(join(s.repo, 'src/index.ts'), INDEX);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    expect(userEdges()).toEqual(['1 exact', '2 exact']);
  }, 300_000);
});
