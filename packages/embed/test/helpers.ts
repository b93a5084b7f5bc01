import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResolvedModel } from '../src/index.js';

/** Repository root (packages/embed/test → ../../..). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The shared model folder: CA_EMBEDDING_MODEL_DIR, else `../shared/models` beside the repo (CI layout). */
export const MODELS_DIR = resolve(process.env.CA_EMBEDDING_MODEL_DIR ?? resolve(REPO_ROOT, '../shared/models'));

export const MODEL_ID = 'all-MiniLM-L6-v2';

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
