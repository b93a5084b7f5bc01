import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { againstClean, tsStoreWorkspace } from './cleanIndex.js';

// A module augmentation (`declare module '../vanilla' { interface StoreMutators … }`) that
// appears, changes or disappears in one file changes what the augmented module's own uses and
// its importers bind to, though neither file changed: a clean index has their exact edges into
// the augmenting declaration (decision 022, difference 24: pmndrs/zustand, seed 2, step 3, a
// branch switch adding the augmentation to `src/middleware/redux.ts`; the unchanged
// `src/vanilla.ts` and `src/index.ts` kept no edge to it).

const VANILLA = `export interface StoreMutators<S, A> {}
export type StoreMutatorIdentifier = keyof StoreMutators<unknown, unknown>;
export type Mutate<S, Ms> = Ms extends [] ? S : Ms extends [[infer Mi, infer Ma], ...infer Mrs] ? Mi extends StoreMutatorIdentifier ? Mutate<StoreMutators<S, Ma>[Mi], Mrs> : never : never;
export const createStore = <T>(t: T) => t;
`;
const REDUX_PLAIN = `import type { StoreMutators } from '../vanilla.ts';
export const redux = <A>(a: A): A => a;
export type Known = keyof StoreMutators<unknown, unknown>;
`;
const augmented = (member: string) => `${REDUX_PLAIN}declare module '../vanilla' {
  interface StoreMutators<S, A> {
    ${member}: A;
  }
}
`;

describe('a module augmentation that appears, changes and disappears in another file', () => {
  const options = { env: {}, configOverrides: { embedding: { enabled: false } } };
  let repo: string;
  let remove: () => void;
  let engine: Engine;
  beforeAll(async () => {
    ({ repo, remove } = tsStoreWorkspace('ca-augmentations-', {
      'src/vanilla.ts': VANILLA,
      'src/middleware/redux.ts': REDUX_PLAIN,
      'src/index.ts': "export * from './vanilla.ts';\nexport { redux } from './middleware/redux.ts';\n",
    }));
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    remove();
  });

  it('appears: the augmented module and its importers bind to it, as in a clean index', async () => {
    writeFileSync(join(repo, 'src/middleware/redux.ts'), augmented("'store/redux'"));
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
  }, 300_000);

  it('changes: as in a clean index', async () => {
    writeFileSync(join(repo, 'src/middleware/redux.ts'), augmented("'store/redux2'"));
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
  }, 300_000);

  it('moves to another folder, where it augments nothing, and back: as in a clean index each time', async () => {
    // The same text resolves '../vanilla' from another folder (the zustand case: `git mv` into
    // src/, then a branch switch moving it back).
    renameSync(join(repo, 'src/middleware/redux.ts'), join(repo, 'src/redux.ts'));
    writeFileSync(join(repo, 'src/index.ts'), "export * from './vanilla.ts';\nexport { redux } from './redux.ts';\n");
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
    renameSync(join(repo, 'src/redux.ts'), join(repo, 'src/middleware/redux.ts'));
    writeFileSync(join(repo, 'src/index.ts'), "export * from './vanilla.ts';\nexport { redux } from './middleware/redux.ts';\n");
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
  }, 300_000);

  it('disappears: nothing keeps an edge into it, as in a clean index', async () => {
    writeFileSync(join(repo, 'src/middleware/redux.ts'), REDUX_PLAIN);
    await engine.index();
    expect(await againstClean(engine, repo, options)).toEqual([]);
  }, 300_000);
});
