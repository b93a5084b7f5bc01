import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { compare, snapshot, type DifferentialEngine } from './differential/lib.mjs';
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
