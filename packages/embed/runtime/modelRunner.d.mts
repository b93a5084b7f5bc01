/** Types for modelRunner.mjs (plain JS so that the worker runs without a build step). */

/** The subset of a transformers.js tokenizer this package uses. */
export interface RunnerTokenizer {
  encode(text: string): number[];
  readonly model_max_length?: number;
}

/** The subset of a transformers.js feature-extraction pipeline this package uses. */
export interface FeatureExtractor {
  readonly tokenizer: RunnerTokenizer;
  dispose(): Promise<void>;
}

export function loadFeatureExtractor(dir: string, modelId: string, threads?: number): Promise<FeatureExtractor>;
export function loadTokenizer(dir: string, modelId: string): Promise<RunnerTokenizer>;
export function embedBatch(extractor: FeatureExtractor, texts: string[]): Promise<{ data: Float32Array; dims: number }>;
export function meanPoolNormalize(hidden: Float32Array, mask: ArrayLike<bigint | number>, batch: number, seq: number, dims: number): Float32Array;
