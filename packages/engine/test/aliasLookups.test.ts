import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { againstClean, tsStoreWorkspace } from './cleanIndex.js';

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
  let repo: string;
  let remove: () => void;
  let engine: Engine;
  beforeAll(async () => {
    ({ repo, remove } = tsStoreWorkspace('ca-alias-lookups-', { 'src/vanilla.ts': VANILLA, 'tests/user.test.ts': USER }, { include: ['src', 'tests'], paths: { 'store/*': ['./src/*.ts'] } }));
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    remove();
  });

  const userEdges = () =>
    engine
      .navigate('refs', 'createStore')
      .edges.filter((e) => e.path === 'tests/user.test.ts')
      .map((e) => `${e.line} ${e.confidence}`);

  it('binds through the alias at first: the import and the call (lines 1 and 3), exact', () => {
    expect(userEdges()).toEqual(['1 exact', '3 exact']);
  });

  it('renamed away: the importer binds nothing, as in a clean index', async () => {
    execFileSync('git', ['-C', repo, 'mv', 'src/vanilla.ts', 'src/vanilla_r.ts']);
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
    expect(userEdges()).toEqual([]);
  }, 300_000);

  it('renamed back: the importer binds to it again, as in a clean index', async () => {
    execFileSync('git', ['-C', repo, 'mv', 'src/vanilla_r.ts', 'src/vanilla.ts']);
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
    expect(userEdges()).toEqual(['1 exact', '3 exact']);
  }, 300_000);
});
