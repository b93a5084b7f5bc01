import { describe, expect, it } from 'vitest';
import { fingerprint, fnv1a, jaccard, kgramHashes, normalizedTokens, pairBySimilarity, pathAffinity, winnow } from '../src/index.js';

describe('winnowing fingerprints (decision 023)', () => {
  it('FNV-1a 32-bit matches the published test vectors', () => {
    // From the FNV reference test suite: "" is the offset basis itself.
    expect([fnv1a(''), fnv1a('a'), fnv1a('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
  });

  it('winnow selects the rightmost minimum of each window once (the example of Schleimer et al. 2003)', () => {
    // Windows of 4 over the paper's 17 hashes: minima 17@3 (three windows), 17@6 (rightmost of
    // the two 17s in window 3..6), 8@8, 39@11, 17@15 — the paper's "17 17 8 39 17".
    const hashes = [77, 74, 42, 17, 98, 50, 17, 98, 8, 88, 67, 39, 77, 74, 42, 17, 98];
    expect(winnow(hashes, 4)).toEqual([
      { position: 3, hash: 17 },
      { position: 6, hash: 17 },
      { position: 8, hash: 8 },
      { position: 11, hash: 39 },
      { position: 15, hash: 17 },
    ]);
  });

  it('fewer hashes than a window form one window; none give no fingerprint', () => {
    expect(winnow([5, 3, 9], 4)).toEqual([{ position: 1, hash: 3 }]);
    expect(winnow([], 4)).toEqual([]);
  });

  it('tokens: comments and whitespace dropped, identifiers normalised, keywords, literals and punctuation kept', () => {
    expect(normalizedTokens('const total = price * 2; // tax\nreturn total;')).toEqual(['const', '$', '=', '$', '*', '2', ';', 'return', '$', ';']);
    expect(normalizedTokens('/* a b */ log("a b", `x`)')).toEqual(['$', '(', '"a b"', ',', '`x`', ')']);
  });

  it('k-gram hashes: one per run of k tokens, one of all tokens when there are fewer', () => {
    expect(kgramHashes(['a', 'b', 'c'], 2)).toEqual([fnv1a('a\u0000b'), fnv1a('b\u0000c')]);
    expect(kgramHashes(['a', 'b'], 5)).toEqual([fnv1a('a\u0000b')]);
    expect(kgramHashes([], 5)).toEqual([]);
  });

  it('a renamed local leaves the fingerprint as it was; a changed literal does not', () => {
    const a = 'function f(items) { let sum = 0; for (const x of items) sum += x * 2; return sum; }';
    const renamed = a.replaceAll('sum', 'total').replaceAll('items', 'values');
    expect([...fingerprint(renamed)]).toEqual([...fingerprint(a)]);
    expect(jaccard(fingerprint(a), fingerprint(a.replace('x * 2', 'x * 3')))).toBeLessThan(1);
  });

  it('jaccard: shared over union; two empty sets are no evidence (0)', () => {
    // {3,4} shared, {1,2,3,4,5} in all: 2/5.
    expect(jaccard(new Set([1, 2, 3, 4]), new Set([3, 4, 5]))).toBe(0.4);
    expect(jaccard(new Set(), new Set())).toBe(0);
  });
});

describe('pairBySimilarity: best pair first, each item once, deterministic', () => {
  const A = new Set([1, 2, 3, 4, 5]);
  it('pairs only at or above the threshold', () => {
    // left 0: 5/5 = 1; left 1: {1,2,3,4} of {1..6} = 4/6 < 0.8.
    expect(pairBySimilarity([A, new Set([1, 2, 3, 4, 6])], [A])).toEqual([{ left: 0, right: 0, similarity: 1 }]);
    // Exactly 0.8: {1,2,3,4} of {1..5} (4/5) is a pair.
    expect(pairBySimilarity([new Set([1, 2, 3, 4])], [A])).toEqual([{ left: 0, right: 0, similarity: 0.8 }]);
  });

  it('two equally similar candidates: the earlier one wins, the later stays unpaired', () => {
    expect(pairBySimilarity([A, A], [A])).toEqual([{ left: 0, right: 0, similarity: 1 }]);
    expect(pairBySimilarity([A], [A, A])).toEqual([{ left: 0, right: 0, similarity: 1 }]);
  });

  it('the better pair wins even when listed later, and the loser pairs with what is left', () => {
    // right 0 is 4/5 like left 0; right 1 is identical to left 0; right 0 then pairs with left 1 (4/5).
    const B = new Set([1, 2, 3, 4]);
    expect(pairBySimilarity([A, new Set([1, 2, 3, 4, 9])], [B, A])).toEqual([
      { left: 0, right: 1, similarity: 1 },
      { left: 1, right: 0, similarity: 0.8 },
    ]);
  });

  it('incompatible pairs are ruled out', () => {
    expect(pairBySimilarity([A], [A], { compatible: () => false })).toEqual([]);
  });
});

describe('pathAffinity: ties between identical copies go to the closer paths', () => {
  it('counts shared leading directories and shared trailing segments', () => {
    // src, helper shared from the root; index.ts from the end.
    expect(pathAffinity('src/helper/accept/index.ts', 'src/helper/accepts/index.ts')).toBe(3);
    expect(pathAffinity('deno_dist/helper/accept/index.ts', 'src/helper/accepts/index.ts')).toBe(1);
    expect(pathAffinity('a.ts', 'b.ts')).toBe(0);
  });

  it('two identical deleted copies (a mirror): each created file pairs with the copy at the closer path', () => {
    const A = new Set([1, 2, 3]);
    const left = ['deno_dist/utils/x.ts', 'src/utils/x.ts'];
    const right = ['src/x.ts', 'deno_dist/x.ts'];
    // Without a preference the lower indexes win: deno_dist → src. With it: src → src, deno_dist → deno_dist.
    expect(pairBySimilarity([A, A], [A, A]).map((p) => [p.left, p.right])).toEqual([[0, 0], [1, 1]]);
    expect(pairBySimilarity([A, A], [A, A], { preference: (l, r) => pathAffinity(left[l]!, right[r]!) }).map((p) => [left[p.left], right[p.right]])).toEqual([
      ['deno_dist/utils/x.ts', 'deno_dist/x.ts'],
      ['src/utils/x.ts', 'src/x.ts'],
    ]);
  });
});
