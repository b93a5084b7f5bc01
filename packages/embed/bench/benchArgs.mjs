// What the embedding bench scripts share: the repository root, the model folder, `--name value` options.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** CA_EMBEDDING_MODEL_DIR, else ../shared/models beside the repository (the CI layout). */
export const modelDir = process.env.CA_EMBEDDING_MODEL_DIR ?? resolve(repoRoot, '../shared/models');

const args = process.argv.slice(2);

/** The value after `--name`, or `fallback`. */
export function arg(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
}

/** True when `--name` is given. */
export const flag = (name) => args.includes(`--${name}`);
