import type { ModelInfo } from './modelInfo.js';
import type { TokenCounter } from './tokenCounter.js';

/**
 * A loaded embedding model. Retrieval and the engine depend on this interface only, never on
 * transformers.js. Vectors are L2-normalised, `dims` long, in the order of the input texts.
 */
export interface Embedder extends TokenCounter {
  readonly modelId: string;
  /** Changes whenever the weights or tokenizer change (see `ModelInfo.revision`). */
  readonly revision: string;
  readonly dims: number;
  /** Model window, special tokens included; longer texts are truncated by the model. */
  readonly maxTokens: number;
  /**
   * `tokenCounts[i]`, when given, is `countTokens(texts[i])` (batches are planned by it; a caller
   * that has counted already saves the embedder a second tokenization of every text).
   */
  embed(texts: readonly string[], tokenCounts?: readonly number[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

/** What an Embedder takes from its model's info and token counter (every embedder the same). */
export function embedderIdentity(
  info: ModelInfo,
  counter: TokenCounter,
): Pick<Embedder, 'modelId' | 'revision' | 'dims' | 'maxTokens' | 'countTokens' | 'truncateToTokens'> {
  return {
    modelId: info.modelId,
    revision: info.revision,
    dims: info.dims,
    maxTokens: info.maxTokens,
    countTokens: counter.countTokens,
    truncateToTokens: counter.truncateToTokens,
  };
}

/** Texts per model call unless the caller says otherwise (config `embedding.batch_size`). */
export const DEFAULT_BATCH_SIZE = 16;

/**
 * Padded tokens per model call when the caller does not say (config `embedding.batch_tokens`).
 * onnxruntime's int8 kernels on this model run faster per token on small calls than on full
 * batches of 16 (figures: docs/benchmarks.md, problem 9, and the package README).
 */
export const DEFAULT_BATCH_TOKENS = 512;

/**
 * Groups text indices into batches of similar token length: a batch is padded to its longest
 * text, so mixing a 10-token and a 256-token text wastes ~96% of the short one's compute.
 * A batch holds at most `batchSize` texts and, when `maxBatchTokens` > 0, at most that many
 * padded tokens (longest × count; a single text over it still gets its own batch).
 * Stable: equal lengths keep input order.
 */
export function planBatches(tokenLengths: readonly number[], batchSize: number, maxBatchTokens = 0): number[][] {
  const size = Math.max(1, Math.floor(batchSize));
  const order = tokenLengths.map((_, i) => i).sort((a, b) => tokenLengths[a]! - tokenLengths[b]! || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const i of order) {
    const full = current.length >= size || (maxBatchTokens > 0 && current.length > 0 && tokenLengths[i]! * (current.length + 1) > maxBatchTokens);
    if (full) {
      batches.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Each text's token count capped at the model window: `known` when given (same length), else counted. */
export function windowLengths(texts: readonly string[], known: readonly number[] | undefined, counter: TokenCounter, maxTokens: number): number[] {
  if (known !== undefined && known.length !== texts.length) throw new Error(`expected ${texts.length} token counts, got ${known.length}`);
  return texts.map((t, i) => Math.min(known?.[i] ?? counter.countTokens(t), maxTokens));
}

/** Splits a row-major `n x dims` buffer into one vector per row (copies, so rows own their memory). */
export function splitRows(data: Float32Array, dims: number, n: number): Float32Array[] {
  if (data.length !== n * dims) throw new Error(`expected ${n}x${dims} values, got ${data.length}`);
  const rows: Float32Array[] = [];
  for (let i = 0; i < n; i++) rows.push(data.slice(i * dims, (i + 1) * dims));
  return rows;
}

/** Serialises async work: one model call at a time per embedder, in call order. */
export function createSerialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
