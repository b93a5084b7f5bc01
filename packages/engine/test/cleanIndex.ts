import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
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
