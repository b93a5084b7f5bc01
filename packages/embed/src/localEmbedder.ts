import { join } from 'node:path';
import { CaError, toCaError } from '@ca/schema';
import type { FeatureExtractor } from '../runtime/modelRunner.mjs';
import { DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, createSerialQueue, embedderIdentity, planBatches, splitRows, windowLengths } from './embedder.js';
import type { Embedder } from './embedder.js';
import { modelInfo, requireResolved } from './modelInfo.js';
import type { ModelResolution } from './resolveModel.js';
import { createTokenCounter } from './tokenCounter.js';
import { loadWordPieceCounter } from './wordPiece.js';

export interface EmbedderOptions {
  /** Texts per model call at most (config `embedding.batch_size`). */
  readonly batchSize?: number;
  /** Padded tokens per model call at most, 0 = no limit (config `embedding.batch_tokens`). */
  readonly batchTokens?: number;
}

/**
 * Loads the model in this thread. Prefer `createWorkerEmbedder` in the indexer: a batch takes
 * a large fraction of a CPU-second or more, which would stall the SQLite writer and the watcher
 * if run here (docs/benchmarks.md, "Figures behind choices in the code").
 */
export async function createEmbedder(resolution: ModelResolution, options: EmbedderOptions = {}): Promise<Embedder> {
  const model = requireResolved(resolution);
  const info = await modelInfo(model);
  let extractor: FeatureExtractor | null;
  // Imported lazily: importing @ca/embed must not load onnxruntime (the text builders don't need it).
  const { embedBatch, loadFeatureExtractor } = await import('../runtime/modelRunner.mjs');
  try {
    extractor = await loadFeatureExtractor(model.dir, model.modelId);
  } catch (e) {
    throw new CaError('model_unavailable', `cannot load embedding model ${model.modelId} from ${model.dir}: ${toCaError(e).message}`, {
      cause: e,
      context: { path: model.dir },
    });
  }
  const counter = createTokenCounter(extractor.tokenizer, loadWordPieceCounter(join(model.dir, model.modelId)));
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const batchTokens = options.batchTokens ?? DEFAULT_BATCH_TOKENS;
  const serial = createSerialQueue();

  return {
    ...embedderIdentity(info, counter),
    embed: (texts, tokenCounts) =>
      serial(async () => {
        const current = extractor;
        if (!current) throw new CaError('model_unavailable', 'embedder has been disposed');
        const out: Float32Array[] = new Array<Float32Array>(texts.length);
        const lengths = windowLengths(texts, tokenCounts, counter, info.maxTokens);
        for (const batch of planBatches(lengths, batchSize, batchTokens)) {
          const { data, dims } = await embedBatch(current, batch.map((i) => texts[i]!));
          const rows = splitRows(data, dims, batch.length);
          batch.forEach((textIndex, row) => (out[textIndex] = rows[row]!));
        }
        return out;
      }),
    dispose: () =>
      serial(async () => {
        const current = extractor;
        extractor = null;
        if (current) await current.dispose();
      }),
  };
}
