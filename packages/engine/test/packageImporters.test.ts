import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { REPO_ROOT } from './helpers.js';
import { compare, snapshot, workspaceOf } from './differential/lib.mjs';

// Differential differences #14 and #15 (docs/reliability.md, "Differential testing"), found on
// pmndrs/zustand and reproduced on fixtures/ts-package-alias: a package `mini-store` whose
// tests/usage.ts imports it by name through tsconfig `paths` (`mini-store` → src/index.ts,
// `mini-store/*` → src/*.ts), and two middleware files augmenting one interface. After each
// change the incremental index must equal a clean index of the same tree, everything compared.

const FIXTURE = join(REPO_ROOT, 'fixtures', 'ts-package-alias');
// Deadlines far above need, as in tools/bench/differential.mjs: a pass cut short by a loaded
// machine (seen: the clean side's pass `failed` at load 60) differs from one that was not.
const OPTIONS = {
  env: {},
  configOverrides: { embedding: { enabled: false }, indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 } },
};

/** `symbol_key` of the node named `qualifiedName` in `path` (from the canonical dump's line keys `path|key|disambiguator`). */
function keyOf(engine: Engine, path: string, qualifiedName: string): string | undefined {
  for (const [k, line] of snapshot(engine, [], { fts: false }).dump.nodes) {
    const [p, key] = k.split('|');
    if (p === path && line.split(' ¦ ')[2] === qualifiedName) return key;
  }
  return undefined;
}

/** Exact (semantic) edges whose source file is `path`, as `type -> target path|key`. */
function exactEdgesFrom(engine: Engine, path: string): string[] {
  const out: string[] = [];
  for (const k of snapshot(engine, [], { fts: false }).dump.edges.keys()) {
    const m = /^([^|]+)\|[^ ]* -(\w+)\/exact\/semantic-> node (\S+)/.exec(k);
    if (m !== null && m[1] === path) out.push(`${m[2]} -> ${m[3]}`);
  }
  return out.sort();
}

/**
 * Indexes the fixture, applies `change`, indexes again; returns the differences from a clean
 * index and the engine. Each of `warmups` is applied and indexed before `change` (partial passes
 * that leave the TS worker holding the files they bound).
 */
async function afterChange(change: (repo: string) => void, inspect: (engine: Engine) => void, warmups: readonly ((repo: string) => void)[] = []): Promise<string[]> {
  const repo = workspaceOf(FIXTURE);
  const engine = Engine.open(repo, OPTIONS);
  try {
    await engine.index();
    for (const warmup of warmups) {
      warmup(repo);
      await engine.index();
    }
    change(repo);
    await engine.index();
    inspect(engine);
    const clean = Engine.open(workspaceOf(repo), OPTIONS);
    try {
      await clean.index();
      return compare(snapshot(clean, []), snapshot(engine, []));
    } finally {
      clean.close();
    }
  } finally {
    engine.close();
  }
}

describe('importers by package name and path alias (differences #14, #15)', () => {
  it('the package entry renamed: importers by name lose their exact edges and the entry\'s exports their package keys (#14)', async () => {
    const differences = await afterChange(
      (repo) => renameSync(join(repo, 'src/index.ts'), join(repo, 'src/index_r.ts')),
      (engine) => {
        // `mini-store` no longer resolves (the `paths` target and the package's src/index.ts are
        // gone): tests/usage.ts keeps only what `mini-store/middleware` gives, the `persist`
        // import and call (src/middleware.ts re-exports src/middleware/persist.ts). Before the
        // fix it also kept `imports`/`calls` edges to `create` through the vanished entry.
        expect(exactEdgesFrom(engine, 'tests/usage.ts')).toEqual([
          'calls -> src/middleware/persist.ts|ts:file:src/middleware/persist.ts#persist(string)|0',
          'imports -> src/middleware/persist.ts|ts:file:src/middleware/persist.ts#persist(string)|0',
        ]);
        // No entry exports `create` any more: its key is file-scoped again (it was
        // `ts:pkg:mini-store#create(number)` while src/index.ts re-exported src/react.ts).
        expect(keyOf(engine, 'src/react.ts', 'create')).toBe('ts:file:src/react.ts#create(number)');
      },
    );
    expect(differences).toEqual([]);
  }, 900_000);

  it('a re-export removed from the barrel an alias names: its importers by alias lose the edge (#15, zustand step 7)', async () => {
    const differences = await afterChange(
      (repo) => {
        const file = join(repo, 'src/middleware.ts');
        writeFileSync(file, readFileSync(file, 'utf8').replace("export { persist } from './middleware/persist';\n", ''));
      },
      (engine) => {
        // `persist` is no longer exported by `mini-store/middleware`; `create` still comes through
        // the entry, with its package key. Before the fix the `persist` edges stayed.
        expect(exactEdgesFrom(engine, 'tests/usage.ts')).toEqual([
          'calls -> src/react.ts|ts:pkg:mini-store#create(number)|0',
          'imports -> src/react.ts|ts:pkg:mini-store#create(number)|0',
        ]);
      },
    );
    expect(differences).toEqual([]);
  }, 900_000);

  it('an edit of one augmenting file keeps the colliding augmentation keys file-scoped (#15, zustand step 15)', async () => {
    const differences = await afterChange(
      (repo) => {
        const file = join(repo, 'src/middleware/persist.ts');
        writeFileSync(file, readFileSync(file, 'utf8').replace('return `persist:${name}`;', '// an edit\n  return `persist:${name}`;'));
      },
      (engine) => {
        // Both middleware files declare `../vanilla.StoreMutators` (augmenting the exported
        // interface): the package key would collide, so both stay file-scoped; their members'
        // names differ, so those are package-scoped. Before the fix the pass over the edited
        // file alone saw no collision and keyed its interface `ts:pkg:mini-store#../vanilla.StoreMutators`.
        expect(keyOf(engine, 'src/middleware/persist.ts', '../vanilla.StoreMutators')).toBe('ts:file:src/middleware/persist.ts#../vanilla.StoreMutators');
        expect(keyOf(engine, 'src/middleware/persist.ts', '../vanilla.StoreMutators.mini-store/persist')).toBe(
          'ts:pkg:mini-store#../vanilla.StoreMutators.mini-store/persist',
        );
      },
    );
    expect(differences).toEqual([]);
  }, 900_000);

  it('an augmenting file moved up a folder: the augmented file loses its exact edges into it (#15, zustand step 33)', async () => {
    const differences = await afterChange(
      (repo) => {
        mkdirSync(join(repo, 'src'), { recursive: true });
        renameSync(join(repo, 'src/middleware/persist.ts'), join(repo, 'src/persist.ts'));
      },
      (engine) => {
        // From src/, `declare module '../vanilla'` names a module outside src that does not exist:
        // it augments nothing, so src/vanilla.ts's `MutatorName = keyof StoreMutators<…>` reaches
        // only its own interface and devtools' augmentation. That augmentation is now the only
        // `../vanilla.StoreMutators` the package exports: no collision, so it is package-scoped
        // (as in a clean index). Before the fix the moved nodes kept their ids and
        // src/vanilla.ts (unchanged) kept a third reference, into src/persist.ts.
        expect(exactEdgesFrom(engine, 'src/vanilla.ts').filter((e) => e.includes('StoreMutators'))).toEqual([
          'references -> src/middleware/devtools.ts|ts:pkg:mini-store#../vanilla.StoreMutators|0',
          'references -> src/vanilla.ts|ts:pkg:mini-store#StoreMutators|0',
        ]);
      },
    );
    expect(differences).toEqual([]);
  }, 900_000);

  it('the same move after partial passes bound the augmented and augmenting files in the warm worker (#18, zustand step 33)', async () => {
    // The first suspect of #18: the worker keeps the files a partial pass bound (src/vanilla.ts
    // with persist's augmentation merged into its StoreMutators) and reuses them while their size
    // and mtime hold. Two partial passes first, each editing a comment: one in the augmented file,
    // one in the augmenting file and the file using both (tests/usage.ts), so that every file of
    // the move's pass is cached bound. The move must then give the clean index's edges: the same
    // two references from src/vanilla.ts as in the cold case above.
    const comment = (path: string) => (repo: string) => writeFileSync(join(repo, path), `${readFileSync(join(repo, path), 'utf8')}// warm\n`);
    const differences = await afterChange(
      (repo) => renameSync(join(repo, 'src/middleware/persist.ts'), join(repo, 'src/persist.ts')),
      (engine) => {
        expect(exactEdgesFrom(engine, 'src/vanilla.ts').filter((e) => e.includes('StoreMutators'))).toEqual([
          'references -> src/middleware/devtools.ts|ts:pkg:mini-store#../vanilla.StoreMutators|0',
          'references -> src/vanilla.ts|ts:pkg:mini-store#StoreMutators|0',
        ]);
      },
      [comment('src/vanilla.ts'), (repo) => [comment('src/middleware/persist.ts'), comment('tests/usage.ts')].forEach((c) => c(repo))],
    );
    expect(differences).toEqual([]);
  }, 900_000);
});
