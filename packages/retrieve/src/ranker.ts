import { FEATURE_NAMES } from './features.js';
import { RANKER_WEIGHTS } from './ranker-weights.js';

/** The weights file format this build reads; a file of another format is not used (hand ranking then). */
export const RANKER_FORMAT = 1;

/**
 * A linear ranking model over standardized features: score = Σ wᵢ · (xᵢ − meanᵢ) / stdᵢ.
 * Trained pairwise (RankNet-style logistic loss) by `tools/train-ranker.mjs`.
 */
export interface RankerModel {
  readonly format: number;
  /** Feature names, in the order of `mean`, `std` and `weights`: must equal `FEATURE_NAMES`. */
  readonly features: readonly string[];
  readonly mean: readonly number[];
  readonly std: readonly number[];
  readonly weights: readonly number[];
  /**
   * Who orders a short query (a name or a topic of at most three content words, `short_query`):
   * `hand` keeps the hand ranking for it (the model is trained mostly on sentence-long questions);
   * absent or `learned`: the model orders every query.
   */
  readonly shortQueries?: 'hand' | 'learned';
  /** Free-form provenance (training sets, seed, dev figures). */
  readonly trainedOn?: unknown;
}

/** A model ready to score, or why the shipped file cannot be used. */
export type LoadedRanker = { readonly ok: true; readonly model: RankerModel } | { readonly ok: false; readonly reason: string };

const isNumbers = (x: unknown, n: number): x is number[] => Array.isArray(x) && x.length === n && x.every((v) => typeof v === 'number' && Number.isFinite(v));

/**
 * Checks a weights object against this build: its format version and its feature list (a
 * model trained on other features would weigh the wrong numbers). Never throws: a bad file
 * means the hand ranking, with `reason` for the notice.
 */
export function loadRanker(raw: unknown): LoadedRanker {
  if (typeof raw !== 'object' || raw === null) return { ok: false, reason: 'the weights file is not an object' };
  const m = raw as Partial<RankerModel>;
  if (m.format !== RANKER_FORMAT) return { ok: false, reason: `weights format ${String(m.format)}, this build reads format ${RANKER_FORMAT}` };
  const names = m.features;
  if (!Array.isArray(names) || names.length !== FEATURE_NAMES.length || names.some((f, i) => f !== FEATURE_NAMES[i])) {
    return { ok: false, reason: 'the weights were trained on another feature list' };
  }
  const n = FEATURE_NAMES.length;
  if (!isNumbers(m.mean, n) || !isNumbers(m.std, n) || !isNumbers(m.weights, n)) return { ok: false, reason: 'mean, std and weights must be finite numbers, one per feature' };
  if (m.std.some((s) => s <= 0)) return { ok: false, reason: 'std must be positive' };
  if (m.shortQueries !== undefined && m.shortQueries !== 'hand' && m.shortQueries !== 'learned') return { ok: false, reason: 'shortQueries must be "hand" or "learned"' };
  return { ok: true, model: m as RankerModel };
}

let shipped: LoadedRanker | undefined;

/** The shipped model (`ranker-weights.ts`), checked once. */
export function shippedRanker(): LoadedRanker {
  return (shipped ??= loadRanker(RANKER_WEIGHTS));
}

/** Each feature's contribution to the score (the score is their sum). */
export function contributions(model: RankerModel, x: readonly number[]): number[] {
  return model.weights.map((w, i) => (w * (x[i]! - model.mean[i]!)) / model.std[i]!);
}

/** The model's score of one feature vector. */
export function rankerScore(model: RankerModel, x: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < model.weights.length; i++) s += (model.weights[i]! * (x[i]! - model.mean[i]!)) / model.std[i]!;
  return s;
}
