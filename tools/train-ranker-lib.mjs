// The learned ranker's trainer (decision 043): a linear model over standardized features,
// trained pairwise with the logistic (RankNet) loss by full-batch Adam. Deterministic: pairs are
// subsampled with a seeded generator, and nothing else is random.
import { rng } from './bench/lib.mjs';

export { rng };

/** Relevance of a candidate for training: a relevant symbol above one in a relevant file above none. */
export function relevanceOf(candidate, fileGain) {
  if (candidate.label === 'symbol') return 2;
  if (candidate.label === 'file') return fileGain;
  return 0;
}


/** Mean and standard deviation of each feature over every candidate (std 1 where a feature is constant). */
export function standardization(rows, width) {
  const mean = new Array(width).fill(0);
  const sq = new Array(width).fill(0);
  let n = 0;
  for (const r of rows) {
    for (const c of r.candidates) {
      n++;
      for (let i = 0; i < width; i++) {
        mean[i] += c.features[i];
        sq[i] += c.features[i] * c.features[i];
      }
    }
  }
  const std = mean.map((s, i) => {
    if (n === 0) return 1;
    const m = s / n;
    const v = sq[i] / n - m * m;
    return v > 1e-12 ? Math.sqrt(v) : 1;
  });
  return { mean: mean.map((s) => (n === 0 ? 0 : s / n)), std };
}

/**
 * Pairs (better, worse) of each query, at most `maxPairs` per query (seeded subsample), each query
 * weighing the same in total, times `weightOf(row)` (1 when absent).
 */
export function pairsOf(rows, { fileGain, maxPairs, seed, weightOf }) {
  const next = rng(seed);
  const out = [];
  for (const r of rows) {
    const rel = r.candidates.map((c) => relevanceOf(c, fileGain));
    const pairs = [];
    for (let i = 0; i < rel.length; i++) for (let j = 0; j < rel.length; j++) if (rel[i] > rel[j]) pairs.push([i, j, rel[i] - rel[j]]);
    if (pairs.length === 0) continue;
    // Fisher–Yates with the seeded generator, then the first maxPairs.
    for (let k = pairs.length - 1; k > 0; k--) {
      const m = Math.floor(next() * (k + 1));
      [pairs[k], pairs[m]] = [pairs[m], pairs[k]];
    }
    const kept = pairs.slice(0, maxPairs);
    const weight = (weightOf ? weightOf(r) : 1) / kept.length;
    for (const [i, j, d] of kept) out.push({ better: r.candidates[i].features, worse: r.candidates[j].features, weight: weight * d });
  }
  return out;
}

/** Trains weights on standardized features: minimizes Σ weight · log(1 + exp(−(s_better − s_worse))) + l2 · |w|². */
export function trainLinear(rows, options) {
  const width = options.width;
  const { mean, std } = standardization(rows, width);
  // Excluded features (indexes in `options.exclude`) read as 0: their weights stay 0.
  const excluded = new Set(options.exclude ?? []);
  const z = (x) => x.map((v, i) => (excluded.has(i) ? 0 : (v - mean[i]) / std[i]));
  const pairs = pairsOf(rows, options).map((p) => {
    const worse = z(p.worse);
    return { diff: z(p.better).map((v, i) => v - worse[i]), weight: p.weight };
  });
  const w = new Array(width).fill(0);
  const m = new Array(width).fill(0);
  const v = new Array(width).fill(0);
  const { epochs = 300, lr = 0.05, l2 = 0.01 } = options;
  const total = pairs.reduce((s, p) => s + p.weight, 0) || 1;
  for (let t = 1; t <= epochs; t++) {
    const g = w.map((wi) => 2 * l2 * wi);
    for (const p of pairs) {
      let s = 0;
      for (let i = 0; i < width; i++) s += w[i] * p.diff[i];
      // d/ds log(1 + e^{-s}) = −1 / (1 + e^{s})
      const k = (-p.weight / total) / (1 + Math.exp(s));
      for (let i = 0; i < width; i++) g[i] += k * p.diff[i];
    }
    for (let i = 0; i < width; i++) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
      const mh = m[i] / (1 - 0.9 ** t);
      const vh = v[i] / (1 - 0.999 ** t);
      w[i] -= (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return { mean, std, weights: w };
}

/** The linear score of a feature vector under a model. */
export function scoreOf(model, x) {
  let s = 0;
  for (let i = 0; i < model.weights.length; i++) s += (model.weights[i] * (x[i] - model.mean[i])) / model.std[i];
  return s;
}

const gain = (grade) => 2 ** grade - 1;

/**
 * Symbol NDCG@10 of each row's candidates ordered by `order` (a function of a row returning the
 * candidates best first). The ideal counts every resolved relevant judgement (`row.relevant`,
 * those not among the candidates at the best grade seen), so a list missing the gold scores low.
 */
export function ndcgAt10(rows, order) {
  if (rows.length === 0) return 0;
  let sum = 0;
  for (const r of rows) {
    const ranked = order(r);
    let dcg = 0;
    ranked.slice(0, 10).forEach((c, i) => {
      if (c.label === 'symbol') dcg += gain(c.grade) / Math.log2(i + 2);
    });
    const found = r.candidates.filter((c) => c.label === 'symbol').map((c) => c.grade);
    const top = found.length > 0 ? Math.max(...found) : 3;
    const ideal = [...found, ...new Array(Math.max(0, (r.relevant ?? found.length) - found.length)).fill(top)].sort((a, b) => b - a).slice(0, 10);
    const idcg = ideal.reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
    sum += idcg === 0 ? 0 : dcg / idcg;
  }
  return sum / rows.length;
}

/**
 * The order the search would give: exact qualified-name hits first (the search keeps them
 * above the rest), then by model score; ties keep the hand order.
 */
export function modelOrder(model, exactIndex) {
  return (r) =>
    r.candidates
      .map((c, i) => ({ c, i, exact: exactIndex >= 0 && c.features[exactIndex] > 0 ? 1 : 0, s: scoreOf(model, c.features) }))
      .sort((a, b) => b.exact - a.exact || b.s - a.s || a.i - b.i)
      .map((x) => x.c);
}

/** The hand order: the candidates as the dump lists them. */
export const handOrder = (r) => r.candidates;

/** Rows grouped by their set (`row.set`), in first-seen order. */
export function rowsBySet(rows) {
  const bySet = new Map();
  for (const r of rows) {
    const list = bySet.get(r.set) ?? [];
    list.push(r);
    bySet.set(r.set, list);
  }
  return bySet;
}

/** The mean over sets (`row.set`) of each set's NDCG@10: every set weighs the same, whatever its size. */
export function macroNdcgAt10(rows, order) {
  const bySet = rowsBySet(rows);
  if (bySet.size === 0) return 0;
  let sum = 0;
  for (const list of bySet.values()) sum += ndcgAt10(list, order);
  return sum / bySet.size;
}

/** Whether a row comes from a hand-judged set (not mined from commits: its set name lacks `.mined`). */
export const isHandJudged = (row) => !String(row.set).includes('.mined');

/**
 * Trains one model per setting of the grid and keeps the one with the best dev NDCG@10 (the mean
 * over dev sets, so a small hand-judged set counts as much as a large mined one; train NDCG
 * breaks ties, then the grid order). A setting's `handWeight` multiplies the weight of the
 * hand-judged training queries. Returns every setting's figures too.
 */
export function selectModel(train, dev, { featureNames, grid, seed = 1, maxPairs = 400, epochs = 300, exclude = [] }) {
  const excludeIndexes = exclude.map((name) => {
    const i = featureNames.indexOf(name);
    if (i < 0) throw new Error(`exclude: no feature ${name}`);
    return i;
  });
  const exactIndex = featureNames.indexOf('exact_qname');
  const tried = [];
  let best = null;
  for (const setting of grid) {
    const handWeight = setting.handWeight ?? 1;
    const weightOf = (r) => (isHandJudged(r) ? handWeight : 1);
    const model = trainLinear(train, { width: featureNames.length, fileGain: setting.fileGain, l2: setting.l2, lr: setting.lr ?? 0.05, epochs, maxPairs, seed, weightOf, exclude: excludeIndexes });
    const order = modelOrder(model, exactIndex);
    const entry = { ...setting, train: macroNdcgAt10(train, order), dev: macroNdcgAt10(dev, order), model };
    tried.push(entry);
    if (!best || entry.dev > best.dev + 1e-12 || (Math.abs(entry.dev - best.dev) <= 1e-12 && entry.train > best.train)) best = entry;
  }
  return { best, tried, hand: { train: macroNdcgAt10(train, handOrder), dev: macroNdcgAt10(dev, handOrder) } };
}
