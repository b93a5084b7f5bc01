import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CaError } from '@ca/schema';
import type { ModelResolution, ResolvedModel } from './resolveModel.js';

/** What the store records beside the vectors (`_metadata`): any change means re-embedding. */
export interface ModelInfo {
  readonly modelId: string;
  /**
   * `<sha256(onnx weights)[0..16]>-<sha256(tokenizer.json + config.json)[0..8]>`. Hashes the
   * whole weights file (once per process; cost in docs/benchmarks.md, "Figures behind choices in
   * the code") rather than a prefix: int8 weights can
   * change past the first MiB with the size unchanged, and mtime does not survive copies.
   */
  readonly revision: string;
  /** Vector dimension (`hidden_size` of config.json). */
  readonly dims: number;
  /** Model window in tokens, special tokens included (tokenizer `model_max_length`, capped by the position table). */
  readonly maxTokens: number;
}

const cache = new Map<string, Promise<ModelInfo>>();

/** Reads the model's metadata; cached per (folder, weights size, weights mtime). */
export async function modelInfo(resolution: ModelResolution): Promise<ModelInfo> {
  const model = requireResolved(resolution);
  const folder = join(model.dir, model.modelId);
  const onnxPath = join(folder, 'onnx', 'model_quantized.onnx');
  const st = await stat(onnxPath).catch((e: unknown) => {
    throw new CaError('model_unavailable', `cannot read ${onnxPath}`, { cause: e, context: { path: onnxPath } });
  });
  const key = `${folder}\0${st.size}\0${st.mtimeMs}`;
  let info = cache.get(key);
  if (!info) {
    info = computeInfo(model.modelId, folder, onnxPath);
    cache.set(key, info);
    info.catch(() => cache.delete(key));
  }
  return info;
}

async function computeInfo(modelId: string, folder: string, onnxPath: string): Promise<ModelInfo> {
  try {
    const [weights, tokenizer, configText, tokConfigText] = await Promise.all([
      readFile(onnxPath),
      readFile(join(folder, 'tokenizer.json')),
      readFile(join(folder, 'config.json'), 'utf8'),
      readFile(join(folder, 'tokenizer_config.json'), 'utf8').catch(() => null),
    ]);
    const config = JSON.parse(configText) as { hidden_size?: number; dim?: number; max_position_embeddings?: number };
    const dims = config.hidden_size ?? config.dim;
    if (typeof dims !== 'number' || dims <= 0) throw new Error('config.json has no hidden_size');
    const positions = config.max_position_embeddings ?? 512;
    const tokConfig = tokConfigText ? (JSON.parse(tokConfigText) as { model_max_length?: number }) : {};
    // Some exports carry a placeholder model_max_length of 1e30: fall back to the position table.
    const declared = tokConfig.model_max_length;
    const maxTokens = typeof declared === 'number' && declared > 0 && declared <= positions ? declared : positions;
    const weightsSha = createHash('sha256').update(weights).digest('hex');
    const textSha = createHash('sha256').update(tokenizer).update('\0').update(configText).digest('hex');
    return { modelId, revision: `${weightsSha.slice(0, 16)}-${textSha.slice(0, 8)}`, dims, maxTokens };
  } catch (e) {
    throw new CaError('model_unavailable', `cannot read model metadata in ${folder}: ${(e as Error).message}`, {
      cause: e,
      context: { path: folder },
    });
  }
}

/** Narrows a resolution to the ok case or throws `model_unavailable` with its reason. */
export function requireResolved(resolution: ModelResolution): ResolvedModel {
  if (!resolution.ok) throw new CaError('model_unavailable', resolution.reason);
  return resolution;
}
