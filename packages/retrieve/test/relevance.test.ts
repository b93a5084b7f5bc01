import { seededRandom } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_SIMILARITY, SEMANTIC_ONLY_NOTICE, underFloorNotice } from '../src/index.js';
import { crowded, minSimilarityOf, perFileDiversity, perFileOf, similarityFloor } from '../src/relevance.js';

interface C {
  key: number;
  source: number;
  node: { path: string };
  ranks: Record<string, number>;
  hub: boolean;
}

/** `n` candidates over `files` files, one file much more likely (a huge generated file). */
function candidates(next: () => number, n: number, files: number): C[] {
  return Array.from({ length: n }, (_, key) => {
    const f = next() < 0.6 ? 0 : Math.floor(next() * files);
    return { key, source: next() < 0.1 ? 1 : 0, node: { path: `src/f${f}.ts` }, ranks: { bm25: key + 1 }, hub: next() < 0.05 };
  });
}

const fileOf = (c: C) => `${c.source}\0${c.node.path}`;

describe('per-file diversity (generated lists)', () => {
  it('is a permutation; the first slots hold at most K per file in score order; a file past K comes only after every other file', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = seededRandom(seed);
      const input = candidates(next, 1 + Math.floor(next() * 80), 1 + Math.floor(next() * 12));
      const k = 1 + Math.floor(next() * 4);
      const out = perFileDiversity(input, 'some query', k, false);
      expect([seed, [...out].map((c) => c.key).sort((a, b) => a - b)]).toEqual([seed, input.map((c) => c.key)]);
      // The expected order, derived independently: the first K of each file in input order, then the rest in input order.
      const counts = new Map<string, number>();
      const first: number[] = [];
      const rest: number[] = [];
      for (const c of input) {
        const n = counts.get(fileOf(c)) ?? 0;
        counts.set(fileOf(c), n + 1);
        (n < k ? first : rest).push(c.key);
      }
      expect([seed, out.map((c) => c.key)]).toEqual([seed, [...first, ...rest]]);
      const head = out.slice(0, first.length);
      const perFile = new Map<string, number>();
      for (const c of head) perFile.set(fileOf(c), (perFile.get(fileOf(c)) ?? 0) + 1);
      expect([seed, Math.max(...perFile.values()) <= k]).toEqual([seed, true]);
    }
  });

  it('keeps the order when the search is narrowed by path or the query names the file', () => {
    const input = candidates(seededRandom(7), 40, 3);
    expect(perFileDiversity(input, 'q', 1, true).map((c) => c.key)).toEqual(input.map((c) => c.key));
    // "f0.ts" names src/f0.ts: its candidates keep their places; the other files are capped at 1.
    const out = perFileDiversity(input, 'handlers in f0.ts', 1, false);
    const expected = input.filter((c, i) => c.node.path === 'src/f0.ts' || input.findIndex((d) => fileOf(d) === fileOf(c)) === i);
    expect(out.slice(0, expected.length).map((c) => c.key)).toEqual(expected.map((c) => c.key));
  });
});

describe('crowded results', () => {
  it('true exactly when a file the query does not name holds more than the cap (generated)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = seededRandom(seed);
      const results = Array.from({ length: 1 + Math.floor(next() * 20) }, () => ({ path: `src/f${Math.floor(next() * 4)}.ts`, ...(next() < 0.2 ? { repo: 'b' } : {}) }));
      const cap = 1 + Math.floor(next() * 5);
      const query = next() < 0.3 ? 'in f1.ts' : 'q';
      const counts = new Map<string, number>();
      for (const r of results) if (!(query === 'in f1.ts' && r.path === 'src/f1.ts')) counts.set(`${r.repo ?? ''} ${r.path}`, (counts.get(`${r.repo ?? ''} ${r.path}`) ?? 0) + 1);
      expect([seed, crowded(results, cap, query)]).toEqual([seed, Math.max(0, ...counts.values()) > cap]);
    }
  });

  it('the cap is half the slots, at least 3', () => {
    expect([1, 5, 6, 7, 10, 20, 21].map(perFileOf)).toEqual([3, 3, 3, 4, 5, 10, 11]);
  });
});

describe('similarity floor', () => {
  it('with a lexical match nothing is dropped; without, exactly the candidates under the floor (hubs stay)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = seededRandom(seed);
      const input = candidates(next, 1 + Math.floor(next() * 50), 5);
      const cosine = new Map(input.filter(() => next() < 0.9).map((c) => [c.key, next() * 2 - 1] as const));
      const floor = next() * 2 - 1;
      expect(similarityFloor(input, true, cosine, floor)).toEqual({ kept: input, dropped: 0 });
      const kept = input.filter((c) => c.hub || (cosine.has(c.key) && cosine.get(c.key)! >= floor));
      expect([seed, similarityFloor(input, false, cosine, floor)]).toEqual([seed, { kept, dropped: input.length - kept.length }]);
    }
  });

  it('validates --min-similarity and names the floor in its notices', () => {
    expect([minSimilarityOf(undefined), minSimilarityOf(-1), minSimilarityOf(1)]).toEqual([DEFAULT_MIN_SIMILARITY, -1, 1]);
    for (const bad of [1.5, -2, Number.NaN]) expect(() => minSimilarityOf(bad)).toThrow(/--min-similarity must be a number from -1 to 1/);
    expect(SEMANTIC_ONLY_NOTICE).toBe('no lexical match: results are only semantically similar');
    expect(underFloorNotice(0.2)).toBe('no lexical match, and no symbol is similar enough in meaning (cosine < 0.2; see --min-similarity)');
  });
});
