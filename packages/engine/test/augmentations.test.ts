import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { againstClean, indexedTsStore } from './cleanIndex.js';

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
  const s = indexedTsStore('ca-augmentations-', {
      'src/vanilla.ts': VANILLA,
      'src/middleware/redux.ts': REDUX_PLAIN,
      'src/index.ts': "export * from './vanilla.ts';\nexport { redux } from './middleware/redux.ts';\n",
    }, options);

  it('appears: the augmented module and its importers bind to it, as in a clean index', async () => {
    writeFileSync(join(s.repo, 'src/middleware/redux.ts'), augmented("'store/redux'"));
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
  }, 300_000);

  it('changes: as in a clean index', async () => {
    writeFileSync(join(s.repo, 'src/middleware/redux.ts'), augmented("'store/redux2'"));
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
  }, 300_000);

  it('moves to another folder, where it augments nothing, and back: as in a clean index each time', async () => {
    // The same text resolves '../vanilla' from another folder (the zustand case: `git mv` into
    // src/, then a branch switch moving it back).
    renameSync(join(s.repo, 'src/middleware/redux.ts'), join(s.repo, 'src/redux.ts'));
    writeFileSync(join(s.repo, 'src/index.ts'), "export * from './vanilla.ts';\nexport { redux } from './redux.ts';\n");
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
    renameSync(join(s.repo, 'src/redux.ts'), join(s.repo, 'src/middleware/redux.ts'));
    writeFileSync(join(s.repo, 'src/index.ts'), "export * from './vanilla.ts';\nexport { redux } from './middleware/redux.ts';\n");
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
  }, 300_000);

  it('disappears: nothing keeps an edge into it, as in a clean index', async () => {
    writeFileSync(join(s.repo, 'src/middleware/redux.ts'), REDUX_PLAIN);
    await s.engine.index();
    expect(await againstClean(s.engine, s.repo, options)).toEqual([]);
  }, 300_000);
});
