/** Placeholder until trained (replaced by tools/train-ranker.mjs). */
export const RANKER_WEIGHTS: unknown = { format: 0 };
