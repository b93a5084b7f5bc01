import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { handOrder, isHandJudged, macroNdcgAt10, modelOrder, ndcgAt10, pairsOf, rng, selectModel, trainLinear } from '../train-ranker-lib.mjs';

type Candidate = { label: 'symbol' | 'file' | 'none'; grade: number; features: number[] };
type Row = { set?: string; relevant: number; candidates: Candidate[] };
type Model = { mean: number[]; std: number[]; weights: number[] };

const NAMES = ['noise', 'signal', 'file_signal'];

/**
 * Queries of 8 candidates in a random (hand) order: the relevant symbol has the highest
 * `signal` (1 + u against u), a candidate of its file the highest `file_signal`, and `noise` is
 * noise. The optimal order puts the symbol first in every query.
 */
function synthetic(seed: number, queries: number): Row[] {
  const next = rng(seed) as () => number;
  const rows: Row[] = [];
  for (let q = 0; q < queries; q++) {
    const candidates: Candidate[] = [];
    for (let c = 0; c < 8; c++) {
      const label = c === 0 ? 'symbol' : c === 1 ? 'file' : 'none';
      const signal = (label === 'symbol' ? 1 : 0) + next();
      const fileSignal = (label === 'none' ? 0 : 1) + next();
      candidates.push({ label, grade: label === 'symbol' ? 3 : 0, features: [next() * 10, signal, fileSignal] });
    }
    // The hand order: shuffled with the seeded generator.
    for (let k = candidates.length - 1; k > 0; k--) {
      const m = Math.floor(next() * (k + 1));
      [candidates[k], candidates[m]] = [candidates[m]!, candidates[k]!];
    }
    rows.push({ relevant: 1, candidates });
  }
  return rows;
}

describe('train-ranker (pairwise logistic, linear)', () => {
  const train = synthetic(7, 40);
  const dev = synthetic(8, 30);

  it('learns the known optimal ordering: the relevant symbol first on every held-out query', () => {
    const model = trainLinear(train, { width: 3, fileGain: 0, l2: 0.001, epochs: 200, maxPairs: 100, seed: 1 }) as Model;
    // `signal` separates the symbol from the rest by construction; `file_signal` only the symbol
    // and its file from the rest: signal weighs most, then file_signal, noise least.
    expect(model.weights[1]).toBeGreaterThan(model.weights[2]!);
    expect(model.weights[2]).toBeGreaterThan(Math.abs(model.weights[0]!));
    const order = modelOrder(model, -1);
    for (const r of dev) expect(order(r)[0].label).toBe('symbol');
    expect(ndcgAt10(dev, order)).toBe(1);
    // The shuffled hand order is worse (a check that the metric can fail).
    expect(ndcgAt10(dev, handOrder)).toBeLessThan(0.7);
  });

  it('is deterministic: the same seed gives the same weights', () => {
    const a = trainLinear(train, { width: 3, fileGain: 1, l2: 0.01, epochs: 50, maxPairs: 5, seed: 3 }) as Model;
    const b = trainLinear(train, { width: 3, fileGain: 1, l2: 0.01, epochs: 50, maxPairs: 5, seed: 3 }) as Model;
    const c = trainLinear(train, { width: 3, fileGain: 1, l2: 0.01, epochs: 50, maxPairs: 5, seed: 4 }) as Model;
    expect(a.weights).toEqual(b.weights);
    expect(a.weights).not.toEqual(c.weights); // another subsample of pairs
  });

  it('pairs: better over worse only, each query weighing 1 in total', () => {
    // Relevances 2 (symbol), 1 (file, fileGain 1), 0, 0: pairs 2>1, 2>0 ×2, 1>0 ×2 = 5.
    const row: Row = {
      relevant: 1,
      candidates: [
        { label: 'none', grade: 0, features: [0] },
        { label: 'symbol', grade: 3, features: [1] },
        { label: 'file', grade: 0, features: [2] },
        { label: 'none', grade: 0, features: [3] },
      ],
    };
    const pairs = pairsOf([row], { fileGain: 1, maxPairs: 100, seed: 1 }) as { better: number[]; worse: number[]; weight: number }[];
    expect(pairs.map((p) => `${p.better[0]}>${p.worse[0]}`).sort()).toEqual(['1>0', '1>2', '1>3', '2>0', '2>3']);
    // Weight 1/5 times the relevance difference: 2 for symbol over none, 1 otherwise.
    expect(pairs.find((p) => p.better[0] === 1 && p.worse[0] === 0)!.weight).toBeCloseTo(0.4, 12);
    expect(pairs.find((p) => p.better[0] === 2 && p.worse[0] === 0)!.weight).toBeCloseTo(0.2, 12);
    expect(pairsOf([row], { fileGain: 0, maxPairs: 100, seed: 1 })).toHaveLength(3); // file counts as none
  });

  it('NDCG@10 of a candidate list counts the relevant judgements it misses in the ideal', () => {
    // One relevant symbol (grade 3) at rank 2, two judgements resolved: DCG 7/log2(3), ideal 7 + 7/log2(3).
    const row: Row = { relevant: 2, candidates: [{ label: 'none', grade: 0, features: [] }, { label: 'symbol', grade: 3, features: [] }] };
    expect(ndcgAt10([row], handOrder)).toBeCloseTo(7 / Math.log2(3) / (7 + 7 / Math.log2(3)), 12);
  });

  it('selects the grid setting by dev NDCG and reports the hand order', () => {
    const { best, tried, hand } = selectModel(train, dev, { featureNames: NAMES, grid: [{ fileGain: 0, l2: 0.001, lr: 0 }, { fileGain: 0, l2: 0.001 }], epochs: 100 });
    expect(tried).toHaveLength(2);
    // Learning rate 0 leaves every weight 0: ties keep the hand order, far from 1.
    expect(tried[0].dev).toBe(hand.dev);
    expect(tried[0].dev).toBeLessThan(0.7);
    expect(best.l2).toBe(0.001);
    expect(best.dev).toBe(1);
    expect(hand.dev).toBe(ndcgAt10(dev, handOrder));
  });

  it('macro NDCG@10: every set weighs the same, whatever its size', () => {
    const hit: Candidate[] = [{ label: 'symbol', grade: 3, features: [] }];
    const miss: Candidate[] = [{ label: 'none', grade: 0, features: [] }];
    const rows: Row[] = [
      { set: 'ts-app.holdout', relevant: 1, candidates: hit },
      { set: 'zod.mined', relevant: 1, candidates: miss },
      { set: 'zod.mined', relevant: 1, candidates: miss },
      { set: 'zod.mined', relevant: 1, candidates: miss },
    ];
    // Pooled: 1 of 4 queries perfect = 0.25; per set: (1 + 0) / 2 = 0.5.
    expect(ndcgAt10(rows, handOrder)).toBe(0.25);
    expect(macroNdcgAt10(rows, handOrder)).toBe(0.5);
    expect(rows.map(isHandJudged)).toEqual([true, false, false, false]);
  });

  it('pairs of a row weigh weightOf(row) in total (hand-judged queries counted more)', () => {
    const row: Row = { set: 'excalidraw', relevant: 1, candidates: [{ label: 'symbol', grade: 3, features: [1] }, { label: 'none', grade: 0, features: [0] }, { label: 'none', grade: 0, features: [2] }] };
    const pairs = pairsOf([row], { fileGain: 0, maxPairs: 100, seed: 1, weightOf: () => 3 }) as { weight: number }[];
    // Two pairs (symbol over each none), relevance difference 2, total weight 3: 3 / 2 × 2 each.
    expect(pairs.map((p) => p.weight)).toEqual([3, 3]);
  });
});
