import { join } from 'node:path';
import { CaError, toCaError } from '@ca/schema';
import { requireResolved } from './modelInfo.js';
import type { ModelResolution } from './resolveModel.js';
import { createTokenCounter } from './tokenCounter.js';
import type { TokenCounter } from './tokenCounter.js';
import { loadWordPieceCounter } from './wordPiece.js';

/**
 * The model's tokenizer alone (no ONNX session, so it loads quickly): for building embedding texts on a
 * thread that does not run the model, e.g. next to a worker embedder.
 */
export async function loadTokenCounter(resolution: ModelResolution): Promise<TokenCounter> {
  const model = requireResolved(resolution);
  try {
    // Imported lazily: importing @ca/embed must not load onnxruntime (the text builders don't need it).
    const { loadTokenizer } = await import('../runtime/modelRunner.mjs');
    return createTokenCounter(await loadTokenizer(model.dir, model.modelId), loadWordPieceCounter(join(model.dir, model.modelId)));
  } catch (e) {
    throw new CaError('model_unavailable', `cannot load the tokenizer of ${model.modelId}: ${toCaError(e).message}`, {
      cause: e,
      context: { path: model.dir },
    });
  }
}
