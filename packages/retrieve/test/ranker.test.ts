import { describe, expect, it } from 'vitest';
import { contributions, FEATURE_NAMES, loadRanker, RANKER_FORMAT, rankerScore, shippedRanker } from '../src/index.js';

const n = FEATURE_NAMES.length;
const valid = () => ({ format: RANKER_FORMAT, features: [...FEATURE_NAMES], mean: new Array(n).fill(0), std: new Array(n).fill(1), weights: new Array(n).fill(0) });

describe('learned-ranker weights: loading and versioning', () => {
  it('the shipped weights load (format and feature list of this build)', () => {
    const shipped = shippedRanker();
    expect(shipped.ok ? 'ok' : shipped.reason).toBe('ok');
  });

  it('a weights file of another format, another feature list or bad numbers is refused with the reason', () => {
    expect(loadRanker({ ...valid(), format: RANKER_FORMAT + 1 })).toEqual({ ok: false, reason: `weights format ${RANKER_FORMAT + 1}, this build reads format ${RANKER_FORMAT}` });
    expect(loadRanker({ ...valid(), features: [...FEATURE_NAMES].reverse() })).toEqual({ ok: false, reason: 'the weights were trained on another feature list' });
    expect(loadRanker({ ...valid(), features: FEATURE_NAMES.slice(1) })).toEqual({ ok: false, reason: 'the weights were trained on another feature list' });
    expect(loadRanker({ ...valid(), weights: [...valid().weights.slice(1), Number.NaN] })).toEqual({ ok: false, reason: 'mean, std and weights must be finite numbers, one per feature' });
    expect(loadRanker({ ...valid(), std: new Array(n).fill(0) })).toEqual({ ok: false, reason: 'std must be positive' });
    expect(loadRanker(null)).toEqual({ ok: false, reason: 'the weights file is not an object' });
    expect(loadRanker({ ...valid(), shortQueries: 'model' })).toEqual({ ok: false, reason: 'shortQueries must be "hand" or "learned"' });
    expect(loadRanker({ ...valid(), shortQueries: 'hand' }).ok).toBe(true);
    expect(loadRanker(valid()).ok).toBe(true);
  });

  it('score and contributions: Σ w·(x − mean)/std, one term per feature', () => {
    const m = valid();
    m.weights[0] = 2; // rrf
    m.mean[0] = 1;
    m.std[0] = 0.5;
    m.weights[1] = -1; // name_rr
    const x = new Array(n).fill(0);
    x[0] = 2; // (2 − 1) / 0.5 × 2 = 4
    x[1] = 0.5; // 0.5 × −1 = −0.5
    const loaded = loadRanker(m);
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(rankerScore(loaded.model, x)).toBe(3.5);
    expect(contributions(loaded.model, x).slice(0, 3)).toEqual([4, -0.5, 0]);
  });
});
