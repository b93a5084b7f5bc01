import type { NodeRecord } from '@ca/store';
import { extractFeatures, featureQuery, FEATURE_NAMES } from './features.js';
import { isTestPath } from './testCode.js';
import { contributions, loadRanker, rankerScore, shippedRanker, type LoadedRanker } from './ranker.js';

/** Candidates the rerank stage looks at (the best of the hand ranking). */
export const RERANK_N = 100;
/**
 * Learned scores are placed above every hand score of the candidates left out (fused scores
 * stay well under 1), and exact-name hits above those: the model orders the top, it never lets
 * a candidate outside it in, and a symbol the user named exactly still comes first.
 */
const LEARNED_BASE = 2;
const LEARNED_EXACT_BASE = 3;
/**
 * Test code on a question that is not about tests is placed under every other learned candidate
 * (still above the candidates left out): decision 043 measured it costs no NDCG on the dev sets
 * and takes the test share of the top 10 from 1–4 % to under 0.5 %.
 */
const LEARNED_TEST_BASE = 1;

/** A candidate as the search pipeline holds it (the fields the rerank stage reads or sets). */
export interface RerankItem {
  readonly key: number;
  readonly node: NodeRecord;
  score: number;
  base: number;
  readonly ranks: Record<string, number>;
  readonly hub: boolean;
  /** Test code (path or test project); absent: judged by path. */
  readonly test?: boolean;
  readonly fused: number;
  readonly callerFiles: number;
  contributions?: Record<string, number>;
}

export interface RerankOptions {
  readonly text: string;
  readonly hasIdentifiers: boolean;
  readonly aboutTests: boolean;
  readonly exact: ReadonlySet<number>;
  readonly named: ReadonlySet<number>;
  readonly bm25: ReadonlyMap<number, number>;
  readonly cosine: ReadonlyMap<number, number>;
  /** Score with the model (else features only). */
  readonly learned: boolean;
  /** Weights to use instead of the shipped ones. */
  readonly weights?: unknown;
  readonly explain: boolean;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Non-zero contributions, rounded, largest magnitude first. */
function explained(names: readonly string[], parts: readonly number[]): Record<string, number> {
  const out: Record<string, number> = {};
  const order = parts.map((v, i) => ({ v, i })).filter((p) => Math.abs(p.v) >= 0.0005).sort((a, b) => Math.abs(b.v) - Math.abs(a.v));
  for (const { v, i } of order) out[names[i]!] = Math.round(v * 1000) / 1000;
  return out;
}

/**
 * Features of the top `RERANK_N` candidates of `items` (sorted best first) and every exact-name
 * hit; with `learned`, their scores replaced by the model's and `items` re-sorted. Returns the
 * candidates best first, and a notice when the learned model could not be used.
 */
export function rerank<T extends RerankItem>(items: T[], options: RerankOptions): { candidates: { item: T; features: number[] }[]; notice: string | null } {
  const top = items.filter((s, i) => i < RERANK_N || options.exact.has(s.key));
  const q = featureQuery(options.text, options.hasIdentifiers, options.aboutTests);
  const X = extractFeatures(
    top.map((s) => ({ key: s.key, node: s.node, fused: s.fused, ranks: s.ranks, exact: options.exact.has(s.key), named: options.named.has(s.key), hub: s.hub, ...(s.test !== undefined ? { test: s.test } : {}), callerFiles: s.callerFiles })),
    q,
    { bm25: options.bm25, cosine: options.cosine },
  );
  const candidates = top.map((item, i) => ({ item, features: X[i]! }));
  if (!options.learned) return { candidates, notice: null };
  const loaded: LoadedRanker = options.weights === undefined ? shippedRanker() : loadRanker(options.weights);
  if (!loaded.ok) return { candidates, notice: `learned ranker unavailable (${loaded.reason}); hand ranking used` };
  const { model } = loaded;
  // A short query keeps the hand order when the model says so: its features are still returned.
  if (model.shortQueries === 'hand' && q.short) return { candidates, notice: null };
  for (const c of candidates) {
    const p = sigmoid(rankerScore(model, c.features));
    const test = c.item.test ?? isTestPath(c.item.node.path);
    c.item.score = (options.exact.has(c.item.key) ? LEARNED_EXACT_BASE : test && !options.aboutTests ? LEARNED_TEST_BASE : LEARNED_BASE) + p;
    c.item.base = p;
    if (options.explain) c.item.contributions = explained(FEATURE_NAMES, contributions(model, c.features));
  }
  // The candidates left out keep their hand order below the learned ones; their base is put
  // under every learned one so the relative gate (`minScore`) sees one scale.
  const inTop = new Set<RerankItem>(top);
  for (const s of items) if (!inTop.has(s)) s.base = 0;
  items.sort((a, b) => b.score - a.score);
  candidates.sort((a, b) => b.item.score - a.item.score);
  return { candidates, notice: null };
}
