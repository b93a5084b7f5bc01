import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResolvedModel } from '../src/index.js';

/** Repository root (packages/embed/test → ../../..). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

export const MODEL_ID = 'all-MiniLM-L6-v2';

/**
 * Where the tests look for the model (a folder holding `all-MiniLM-L6-v2/`): CA_EMBEDDING_MODEL_DIR,
 * `../shared/models` beside the repository (CI layout), the user cache `ca model import` fills.
 */
const CANDIDATES = [process.env.CA_EMBEDDING_MODEL_DIR, resolve(REPO_ROOT, '../shared/models'), join(homedir(), '.cache', 'codeagent', 'models')]
  .filter((d): d is string => typeof d === 'string' && d !== '')
  .map((d) => resolve(d));
const FOUND = CANDIDATES.find((d) => existsSync(join(d, MODEL_ID, 'onnx', 'model_quantized.onnx')));

/** The model folder the tests use. */
export const MODELS_DIR = FOUND ?? CANDIDATES[0]!;

/**
 * Why the tests that run the model cannot run on this machine (null when it was found). They are
 * skipped with this reason printed; with CA_REQUIRE_MODEL=1 (set by .ci/run) it is an error
 * instead, so CI never skips them.
 */
export const MODEL_MISSING: string | null = FOUND
  ? null
  : `embedding model ${MODEL_ID} not found in ${CANDIDATES.join(', ')} (set CA_EMBEDDING_MODEL_DIR or run \`pnpm ca model import DIR\`)`;
if (MODEL_MISSING !== null) {
  if (process.env['CA_REQUIRE_MODEL'] === '1') throw new Error(MODEL_MISSING);
  console.warn(`skipping the tests that run the model: ${MODEL_MISSING}`);
}

export const RESOLVED: ResolvedModel = { ok: true, dir: MODELS_DIR, modelId: MODEL_ID, source: 'env' };

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}
