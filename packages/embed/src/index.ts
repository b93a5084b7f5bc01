/**
 * @ca/embed — local embeddings: model resolution, the Embedder (in-process or in a worker
 * thread), embedding texts for symbols and files, the content-hash cache, vector quantization.
 */
export type { Embedder } from './embedder.js';
export { DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, planBatches } from './embedder.js';

export type { ModelResolution, ModelSource, ResolvedModel, UnresolvedModel, ResolveModelOptions } from './resolveModel.js';
export {
  resolveModel,
  checkModelFolder,
  defaultModelCacheDir,
  hubRepoOf,
  REQUIRED_MODEL_FILES,
  DEFAULT_DOWNLOAD_TIMEOUT_MS,
} from './resolveModel.js';

export type { ModelInfo } from './modelInfo.js';
export { modelInfo } from './modelInfo.js';

export type { TokenCounter, EncodingTokenizer } from './tokenCounter.js';
export { createTokenCounter } from './tokenCounter.js';
export type { FastTokenCount } from './wordPiece.js';
export { loadWordPieceCounter, wordPieceCounter } from './wordPiece.js';
export { loadTokenCounter } from './loadTokenCounter.js';

export type { EmbedderOptions } from './localEmbedder.js';
export { createEmbedder } from './localEmbedder.js';

export type { WorkerEmbedderOptions } from './workerEmbedder.js';
export { createWorkerEmbedder, defaultEmbeddingWorkers } from './workerEmbedder.js';

export type { EmbeddingTextInput, FileEmbeddingTextInput, EmbeddingTextsOptions } from './embeddingText.js';
export {
  buildEmbeddingText,
  buildEmbeddingTexts,
  buildFileEmbeddingText,
  bodyWindows,
  headerLine,
  docSummary,
  collapseLines,
  DEFAULT_TEXT_TOKENS,
  DEFAULT_WINDOW_TOKENS,
  DEFAULT_MAX_WINDOWS,
} from './embeddingText.js';

export type { EmbeddingCache, EmbedProgress, EmbedWithCacheOptions, EmbedWithCacheResult } from './cache.js';
export { contentHash, embedWithCache, createMemoryEmbeddingCache } from './cache.js';

export { quantizeInt8, toBinary } from './quantize.js';
