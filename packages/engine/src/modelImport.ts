import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { checkModelFolder, defaultModelCacheDir } from '@ca/embed';
import { CaError } from '@ca/schema';

/**
 * `ca model import DIR`: copies a model folder (transformers.js layout: config.json,
 * tokenizer.json, onnx/model_quantized.onnx) into the user cache, so an air-gapped machine can
 * use it without `embedding.model_dir`. DIR may be the model folder or a folder holding it.
 * Returns the destination folder.
 */
export async function importModel(dir: string, cacheDir = defaultModelCacheDir()): Promise<string> {
  const src = resolve(dir);
  let folder = src;
  let problem = checkModelFolder(dirname(src), basename(src));
  if (problem !== null) {
    const inner = join(src, 'all-MiniLM-L6-v2');
    if (existsSync(inner) && checkModelFolder(src, 'all-MiniLM-L6-v2') === null) {
      folder = inner;
      problem = null;
    }
  }
  if (problem !== null) throw new CaError('invalid_path', `not a model folder: ${problem}`, { context: { path: dir } });
  const target = join(cacheDir, basename(folder));
  const staging = `${target}.importing-${process.pid}`;
  mkdirSync(cacheDir, { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  cpSync(folder, staging, { recursive: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(staging, target);
  return target;
}
