import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_NAMES, RANKER_FORMAT } from '@ca/retrieve';
import { Engine } from '../src/index.js';
import { copyFixture, TS_APP } from './helpers.js';

/** The ranking.model switch and the learned ranker's fallback, on fixtures/ts-app (lexical channels only). */
describe('learned ranker in the search pipeline (fixtures/ts-app)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(TS_APP), { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    await engine.index();
  });
  afterAll(async () => engine.dispose());

  const ids = (r: { results: readonly { id: string }[] }) => r.results.map((x) => x.id);

  it('weights of another format: the hand ranking, with a notice saying why', async () => {
    const hand = await engine.search('refresh the session token', { ranker: 'hand' });
    const bad = await engine.search('refresh the session token', { ranker: 'learned', rankerWeights: { format: RANKER_FORMAT + 1 } });
    expect(ids(bad)).toEqual(ids(hand));
    expect(bad.notices).toContain(`learned ranker unavailable (weights format ${RANKER_FORMAT + 1}, this build reads format ${RANKER_FORMAT}); hand ranking used`);
    expect(hand.notices.some((n) => n.startsWith('learned ranker'))).toBe(false);
  });

  it('a model ranks by its features: all weight on bm25_rr puts BM25 order first; an exact name stays first', async () => {
    const n = FEATURE_NAMES.length;
    const weights = new Array(n).fill(0);
    weights[FEATURE_NAMES.indexOf('bm25_rr')] = 1;
    const model = { format: RANKER_FORMAT, features: [...FEATURE_NAMES], mean: new Array(n).fill(0), std: new Array(n).fill(1), weights };
    const learned = await engine.search('token', { channels: ['bm25'], ranker: 'learned', rankerWeights: model, limit: 3, explain: true });
    // The hand ranking moves BM25's order (definition boost, test penalty); this model does not.
    expect(learned.results.map((r) => r.ranks['bm25'])).toEqual([1, 2, 3]);
    // --explain: the one non-zero contribution is bm25_rr = 1 / rank (1, ½, ⅓).
    expect(learned.results.map((r) => r.contributions)).toEqual([{ bm25_rr: 1 }, { bm25_rr: 0.5 }, { bm25_rr: 0.333 }]);
    const named = await engine.search('AuthService.login', { ranker: 'learned', rankerWeights: model });
    expect(named.results[0]!.qualifiedName).toBe('AuthService.login');
  });

  it('ranking.model in the configuration selects the ranker; the shipped model loads', async () => {
    const learned = Engine.open(engine.repoRoot, { dbPath: engine.dbPath, env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false }, ranking: { model: 'learned' } } });
    try {
      const r = await learned.search('refresh the session token', { explain: true, candidates: true });
      expect(r.notices.some((x) => x.startsWith('learned ranker'))).toBe(false);
      expect(r.results[0]!.contributions).toBeDefined();
      expect(r.candidates!.every((c) => c.features.length === FEATURE_NAMES.length)).toBe(true);
    } finally {
      learned.close();
    }
  });
});
