import { describe, expect, it } from 'vitest';
import {
  aggregate,
  allRelevantInTopK,
  judgeRanking,
  matchesJudgement,
  ndcgAtK,
  percentile,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  scoreRanking,
  successAtK,
  type Judgement,
  type RankedSymbol,
} from '../src/index.js';

const sym = (qualifiedName: string, path = 'src/x.ts'): RankedSymbol => ({
  qualifiedName,
  name: qualifiedName.split('.').pop()!,
  path,
});

describe('matchesJudgement', () => {
  it('matches an exact qualified name, case-sensitively', () => {
    expect(matchesJudgement(sym('AuthService.login'), 'AuthService.login')).toBe(true);
    expect(matchesJudgement(sym('AuthService.login'), 'authservice.login')).toBe(false);
    expect(matchesJudgement(sym('AuthService.login'), 'login')).toBe(false);
  });

  it('matches path#name on the path plus the simple or qualified name', () => {
    const r = sym('AuthService.login', 'src/auth/authService.ts');
    expect(matchesJudgement(r, 'src/auth/authService.ts#login')).toBe(true);
    expect(matchesJudgement(r, 'src/auth/authService.ts#AuthService.login')).toBe(true);
    expect(matchesJudgement(r, 'src/auth/other.ts#login')).toBe(false);
    expect(matchesJudgement(r, 'src/auth/authService.ts#Login')).toBe(false);
  });
});

describe('NDCG@10 with graded relevance', () => {
  it('uses gain 2^g−1, log2(rank+1) discount and the ideal ranking of all judgements', () => {
    // Judgements: A=3, B=2, C=1, D=2 (D is never retrieved). Ranking: X, B, A, Y, C.
    // grades by rank: [0, 2, 3, 0, 1]
    // DCG  = 0/log2(2) + (2^2−1)/log2(3) + (2^3−1)/log2(4) + 0/log2(5) + (2^1−1)/log2(6)
    //      = 0 + 3/1.5849625 + 7/2 + 0 + 1/2.5849625 = 1.8927893 + 3.5 + 0.3868528 = 5.7796421
    // IDCG = ideal grades [3, 2, 2, 1]: 7/1 + 3/log2(3) + 3/log2(4) + 1/log2(5)
    //      = 7 + 1.8927893 + 1.5 + 0.4306766 = 10.8234659
    // NDCG = 5.7796421 / 10.8234659 = 0.5339918
    const judgements: Judgement[] = [
      { symbol: 'A', grade: 3 },
      { symbol: 'B', grade: 2 },
      { symbol: 'C', grade: 1 },
      { symbol: 'D', grade: 2 },
    ];
    const judged = judgeRanking(['X', 'B', 'A', 'Y', 'C'].map((s) => sym(s)), judgements);
    expect(judged.grades).toEqual([0, 2, 3, 0, 1]);
    expect(judged.foundAt).toEqual([3, 2, 5, null]);
    expect(ndcgAtK(judged.grades, [3, 2, 1, 2], 10)).toBeCloseTo(0.5339918, 6);
  });

  it('is 1 for the ideal order and cuts at k', () => {
    expect(ndcgAtK([3, 2, 1], [1, 2, 3], 10)).toBeCloseTo(1, 12);
    // k = 1: DCG = 0 (rank 1 has grade 0), IDCG = 7 → 0.
    expect(ndcgAtK([0, 3], [3], 1)).toBe(0);
    // k = 2: DCG = 7/log2(3) = 4.4165751; IDCG = 7 → 0.6309298
    expect(ndcgAtK([0, 3], [3], 2)).toBeCloseTo(0.6309298, 6);
  });

  it('credits each judgement once (overloads sharing a qualified name)', () => {
    const judged = judgeRanking([sym('S.refresh'), sym('S.refresh'), sym('S.refresh')], [{ symbol: 'S.refresh', grade: 3 }]);
    expect(judged.grades).toEqual([3, 0, 0]);
    expect(ndcgAtK(judged.grades, [3], 10)).toBe(1);
  });

  it('credits the children a merged result carries expanded', () => {
    // Cart returned with add() and clear() expanded: it satisfies both judgements, scores its best
    // grade once; the later add() on its own gets nothing (already credited).
    const merged: RankedSymbol = { ...sym('Cart'), contains: [sym('Cart.add'), sym('Cart.clear')] };
    const judgements: Judgement[] = [
      { symbol: 'Cart.add', grade: 2 },
      { symbol: 'Cart.clear', grade: 3 },
      { symbol: 'total', grade: 1 },
    ];
    const judged = judgeRanking([merged, sym('Cart.add'), sym('total')], judgements);
    expect(judged.grades).toEqual([3, 0, 1]);
    expect(judged.foundAt).toEqual([1, 1, 3]);
    expect(recallAtK(judged, judgements, 1)).toBeCloseTo(2 / 3, 12);
  });
});

describe('rank metrics', () => {
  const judgements: Judgement[] = [
    { symbol: 'A', grade: 3 },
    { symbol: 'B', grade: 1 },
    { symbol: 'Z', grade: 0 },
  ];

  it('MRR is 1/rank of the first relevant result', () => {
    expect(reciprocalRank([0, 0, 2, 3])).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank([0, 0])).toBe(0);
    expect(reciprocalRank([1])).toBe(1);
  });

  it('precision@5 divides by k even when fewer results came back', () => {
    // 3 results, 2 relevant: 2/5 = 0.4
    expect(precisionAtK([3, 0, 1], 5)).toBe(0.4);
    expect(precisionAtK([], 5)).toBe(0);
    expect(precisionAtK([1, 1, 1, 1, 1, 1], 5)).toBe(1);
  });

  it('recall@20 counts relevant judgements found, ignoring grade-0 ones', () => {
    // Only two results; A found at rank 2, B missing, Z (grade 0) retrieved but not counted: 1/2.
    const judged = judgeRanking([sym('Z'), sym('A')], judgements);
    expect(recallAtK(judged, judgements, 20)).toBe(0.5);
    expect(recallAtK(judged, judgements, 1)).toBe(0);
    const none = judgeRanking([], judgements);
    expect(recallAtK(none, judgements, 20)).toBe(0);
  });

  it('success@k', () => {
    expect(successAtK([0, 2], 1)).toBe(0);
    expect(successAtK([0, 2], 5)).toBe(1);
    expect(successAtK([], 5)).toBe(0);
  });

  it('all relevant in top k', () => {
    const both = judgeRanking([sym('B'), sym('X'), sym('A')], judgements);
    expect(allRelevantInTopK(both, judgements, 3)).toBe(1);
    expect(allRelevantInTopK(both, judgements, 2)).toBe(0);
    const one = judgeRanking([sym('A')], judgements);
    expect(allRelevantInTopK(one, judgements, 10)).toBe(0);
  });

  it('scoreRanking reports all-in-top-10 only for symbol-set queries', () => {
    const single = scoreRanking([sym('A')], [{ symbol: 'A', grade: 3 }]);
    expect(single).toMatchObject({ ndcg10: 1, p5: 0.2, r20: 1, mrr: 1, s1: 1, s5: 1, allInTop10: null });
    const set = scoreRanking([sym('X'), sym('A')], judgements);
    expect(set.allInTop10).toBe(0);
    expect(set.s1).toBe(0);
    expect(set.mrr).toBe(0.5);
  });

  it('aggregate averages, and all-in-top-10 over set queries only', () => {
    const a = aggregate([
      { ndcg10: 1, p5: 0.2, r20: 1, mrr: 1, s1: 1, s5: 1, allInTop10: null },
      { ndcg10: 0.5, p5: 0.6, r20: 0.5, mrr: 0.5, s1: 0, s5: 1, allInTop10: 0 },
      { ndcg10: 0, p5: 0, r20: 0, mrr: 0, s1: 0, s5: 0, allInTop10: 1 },
    ]);
    expect(a).toEqual({ n: 3, ndcg10: 0.5, p5: 0.8 / 3, r20: 0.5, mrr: 0.5, s1: 1 / 3, s5: 2 / 3, allInTop10: 0.5, setQueries: 2 });
  });
});

describe('percentile (linear interpolation, numpy default)', () => {
  it('computes p50 and p95 by hand', () => {
    // sorted: 1 2 3 4 10; p50 → position 4·0.5 = 2 → 3
    expect(percentile([10, 1, 3, 2, 4], 50)).toBe(3);
    // p95 → position 4·0.95 = 3.8 → 4 + 0.8·(10 − 4) = 8.8
    expect(percentile([10, 1, 3, 2, 4], 95)).toBeCloseTo(8.8, 12);
    // even count: 1 2 3 4, p50 → position 1.5 → 2.5
    expect(percentile([4, 3, 2, 1], 50)).toBe(2.5);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});
