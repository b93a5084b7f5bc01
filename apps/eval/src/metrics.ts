import type { Judgement } from './querySet.js';

/** The fields of a search result that relevance matching looks at. */
export interface RankedSymbol {
  readonly qualifiedName: string;
  readonly name: string;
  readonly path: string;
  /**
   * Symbols whose full code the result also carries: a parent returned with selected children
   * expanded (search's parent/child merge) satisfies judgements naming those children.
   */
  readonly contains?: readonly RankedSymbol[];
}

/**
 * True when `result` satisfies the judgement `symbol`. Matching is case-sensitive:
 * - `path#name`: the result's repo-relative path equals `path` and its simple name or its
 *   qualified name equals `name` (`src/a.ts#login`, `src/a.ts#AuthService.login`);
 * - otherwise: the result's qualified name equals `symbol` exactly.
 */
export function matchesJudgement(result: RankedSymbol, symbol: string): boolean {
  const hash = symbol.indexOf('#');
  if (hash > 0) {
    const path = symbol.slice(0, hash);
    const name = symbol.slice(hash + 1);
    return result.path === path && (result.name === name || result.qualifiedName === name);
  }
  return result.qualifiedName === symbol;
}

/** Per-rank outcome of judging a result list. */
export interface JudgedRanking {
  /** Grade per result, in rank order (0 when the result matches no unclaimed judgement). */
  readonly grades: readonly number[];
  /** For each judgement (same order as given), the 1-based rank that claimed it, or null. */
  readonly foundAt: readonly (number | null)[];
}

/**
 * Grades a ranking against judgements. Each judgement is credited at most once, to the
 * highest-ranked result that matches it (so overloads sharing a qualified name cannot push
 * NDCG above 1); a result matching several unclaimed judgements takes the highest grade. A
 * result matches through itself or through the children it carries expanded (`contains`); a
 * merged result claims every judgement it satisfies (recall) but scores one grade (its best).
 */
export function judgeRanking(results: readonly RankedSymbol[], judgements: readonly Judgement[]): JudgedRanking {
  const foundAt: (number | null)[] = judgements.map(() => null);
  const grades = results.map((r, i) => {
    let best = -1;
    const claimed: number[] = [];
    for (let j = 0; j < judgements.length; j++) {
      if (foundAt[j] !== null) continue;
      const symbol = judgements[j]!.symbol;
      if (matchesJudgement(r, symbol)) {
        if (best < 0 || judgements[j]!.grade > judgements[best]!.grade) best = j;
      } else if (r.contains?.some((c) => matchesJudgement(c, symbol))) {
        claimed.push(j);
        if (best < 0 || judgements[j]!.grade > judgements[best]!.grade) best = j;
      }
    }
    if (best < 0) return 0;
    foundAt[best] = i + 1;
    for (const j of claimed) foundAt[j] = i + 1;
    return judgements[best]!.grade;
  });
  return { grades, foundAt };
}

const gain = (grade: number): number => 2 ** grade - 1;
const discount = (rank1: number): number => Math.log2(rank1 + 1);

/**
 * NDCG@k with graded gains `2^grade − 1` and discount `log2(rank + 1)`; the ideal ranking is
 * built from all judgements (not only the retrieved ones). 0 when no judgement has grade > 0.
 */
export function ndcgAtK(grades: readonly number[], judgedGrades: readonly number[], k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, grades.length); i++) dcg += gain(grades[i]!) / discount(i + 1);
  const ideal = [...judgedGrades].sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  for (let i = 0; i < ideal.length; i++) idcg += gain(ideal[i]!) / discount(i + 1);
  return idcg === 0 ? 0 : dcg / idcg;
}

/** Relevant results (grade > 0) in the top k, divided by k (missing results count as misses). */
export function precisionAtK(grades: readonly number[], k: number): number {
  let hits = 0;
  for (let i = 0; i < Math.min(k, grades.length); i++) if (grades[i]! > 0) hits++;
  return hits / k;
}

/** Relevant judgements (grade > 0) found in the top k, divided by all relevant judgements. */
export function recallAtK(judged: JudgedRanking, judgements: readonly Judgement[], k: number): number {
  let relevant = 0;
  let found = 0;
  judgements.forEach((j, i) => {
    if (j.grade <= 0) return;
    relevant++;
    const at = judged.foundAt[i];
    if (at !== null && at !== undefined && at <= k) found++;
  });
  return relevant === 0 ? 0 : found / relevant;
}

/** 1 / rank of the first relevant result, 0 when none is relevant. */
export function reciprocalRank(grades: readonly number[]): number {
  const i = grades.findIndex((g) => g > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}

/** 1 when a relevant result is in the top k, else 0. */
export function successAtK(grades: readonly number[], k: number): number {
  for (let i = 0; i < Math.min(k, grades.length); i++) if (grades[i]! > 0) return 1;
  return 0;
}

/** 1 when every relevant judgement (grade > 0) was found in the top k, else 0. */
export function allRelevantInTopK(judged: JudgedRanking, judgements: readonly Judgement[], k: number): number {
  let any = false;
  for (let i = 0; i < judgements.length; i++) {
    if (judgements[i]!.grade <= 0) continue;
    any = true;
    const at = judged.foundAt[i];
    if (at === null || at === undefined || at > k) return 0;
  }
  return any ? 1 : 0;
}

/**
 * The p-th percentile (0–100) by linear interpolation between closest ranks (the
 * "R-7"/numpy default): position `(n − 1) · p / 100` in the sorted sample. NaN for no samples.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const pos = ((sorted.length - 1) * p) / 100;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The metrics of one query under one configuration. */
export interface QueryMetrics {
  readonly ndcg10: number;
  readonly p5: number;
  readonly r20: number;
  readonly mrr: number;
  readonly s1: number;
  readonly s5: number;
  /** Only for symbol-set queries (more than one relevant judgement); null otherwise. */
  readonly allInTop10: number | null;
}

/** All per-query metrics of a ranking. */
export function scoreRanking(results: readonly RankedSymbol[], judgements: readonly Judgement[]): QueryMetrics & { grades: readonly number[] } {
  const judged = judgeRanking(results, judgements);
  const g = judged.grades;
  const relevantCount = judgements.filter((j) => j.grade > 0).length;
  return {
    grades: g,
    ndcg10: ndcgAtK(g, judgements.map((j) => j.grade), 10),
    p5: precisionAtK(g, 5),
    r20: recallAtK(judged, judgements, 20),
    mrr: reciprocalRank(g),
    s1: successAtK(g, 1),
    s5: successAtK(g, 5),
    allInTop10: relevantCount > 1 ? allRelevantInTopK(judged, judgements, 10) : null,
  };
}

/** Mean metrics over a group of queries. */
export interface AggregateMetrics {
  readonly n: number;
  readonly ndcg10: number;
  readonly p5: number;
  readonly r20: number;
  readonly mrr: number;
  readonly s1: number;
  readonly s5: number;
  /** Mean over symbol-set queries only (null when the group has none). */
  readonly allInTop10: number | null;
  /** Number of symbol-set queries behind `allInTop10`. */
  readonly setQueries: number;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function aggregate(items: readonly QueryMetrics[]): AggregateMetrics {
  const sets = items.map((m) => m.allInTop10).filter((x): x is number => x !== null);
  return {
    n: items.length,
    ndcg10: mean(items.map((m) => m.ndcg10)),
    p5: mean(items.map((m) => m.p5)),
    r20: mean(items.map((m) => m.r20)),
    mrr: mean(items.map((m) => m.mrr)),
    s1: mean(items.map((m) => m.s1)),
    s5: mean(items.map((m) => m.s5)),
    allInTop10: sets.length === 0 ? null : mean(sets),
    setQueries: sets.length,
  };
}
