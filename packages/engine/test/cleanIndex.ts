import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { compare, snapshot, workspaceOf, type DifferentialEngine } from './differential/lib.mjs';
import { Engine, type EngineOptions } from '../src/index.js';

/** The differences between `engine`'s (incremental) index and a clean index of a copy of the same tree. */
export async function againstClean(engine: Engine, repo: string, options: EngineOptions): Promise<string[]> {
  const copy = join(mkdtempSync(join(tmpdir(), 'ca-clean-index-')), 'repo');
  cpSync(repo, copy, { recursive: true, filter: (p) => !['.git', '.codeagent'].includes(basename(p)) });
  const clean = Engine.open(copy, options);
  try {
    await clean.index();
    return compare(snapshot(clean as unknown as DifferentialEngine, []), snapshot(engine as unknown as DifferentialEngine, []));
  } finally {
    clean.close();
    rmSync(dirname(copy), { recursive: true, force: true });
  }
}

/**
 * A git workspace (`workspaceOf`) holding a small strict TS package `store` with `files` (path →
 * text), its tsconfig including `include` (default `src`) with `paths` when given; `remove`
 * deletes it and its source.
 */
export function tsStoreWorkspace(
  prefix: string,
  files: Readonly<Record<string, string>>,
  tsconfig: { readonly include?: readonly string[]; readonly paths?: Readonly<Record<string, readonly string[]>> } = {},
): { repo: string; remove: () => void } {
  const source = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(source, 'package.json'), '{ "name": "store", "type": "module" }\n');
  const compilerOptions = {
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    ...(tsconfig.paths ? { paths: tsconfig.paths } : {}),
  };
  writeFileSync(join(source, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, include: tsconfig.include ?? ['src'] })}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(source, path)), { recursive: true });
    writeFileSync(join(source, path), text);
  }
  const repo = workspaceOf(source);
  return {
    repo,
    remove: () => {
      rmSync(dirname(repo), { recursive: true, force: true });
      rmSync(source, { recursive: true, force: true });
    },
  };
}

/**
 * A `tsStoreWorkspace` indexed by an engine for one `describe`: created in `beforeAll`, closed and
 * removed in `afterAll`. Read `repo` and `engine` inside the tests.
 */
export function indexedTsStore(
  prefix: string,
  files: Readonly<Record<string, string>>,
  options: EngineOptions,
  tsconfig?: Parameters<typeof tsStoreWorkspace>[2],
): { readonly repo: string; readonly engine: Engine } {
  let state: { repo: string; remove: () => void; engine: Engine } | null = null;
  beforeAll(async () => {
    const { repo, remove } = tsStoreWorkspace(prefix, files, tsconfig);
    state = { repo, remove, engine: Engine.open(repo, options) };
    await state.engine.index();
  }, 300_000);
  afterAll(() => {
    state?.engine.close();
    state?.remove();
  });
  return {
    get repo() {
      return state!.repo;
    },
    get engine() {
      return state!.engine;
    },
  };
}

/** `line confidence` of the `refs` answer's edges for `name` that lie in `path`. */
export function refsIn(engine: Engine, name: string, path: string): string[] {
  return engine
    .navigate('refs', name)
    .edges.filter((e) => e.path === path)
    .map((e) => `${e.line} ${e.confidence}`);
}
