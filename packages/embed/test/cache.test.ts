import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentHash, createMemoryEmbeddingCache, embedWithCache, planBatches } from '../src/index.js';
import { windowLengths } from '../src/embedder.js';
import type { EmbedProgress, Embedder } from '../src/index.js';

/** A fake embedder: one token per word (+2 specials), vector = [text length, word count], records every call and the token counts it was given. */
function countingEmbedder(): Embedder & { calls: string[][]; givenCounts: (readonly number[] | undefined)[] } {
  const calls: string[][] = [];
  const givenCounts: (readonly number[] | undefined)[] = [];
  const countTokens = (t: string): number => t.split(/\s+/).filter(Boolean).length + 2;
  return {
    calls,
    givenCounts,
    modelId: 'fake-model',
    revision: 'r1',
    dims: 2,
    maxTokens: 6,
    countTokens,
    truncateToTokens: (t) => t,
    async embed(texts, tokenCounts) {
      calls.push([...texts]);
      givenCounts.push(tokenCounts);
      return texts.map((t) => Float32Array.of(t.length, countTokens(t) - 2));
    },
    async dispose() {},
  };
}

describe('contentHash', () => {
  it('is sha256 hex over model id, NUL, text', () => {
    expect(contentHash('abc', 'm')).toBe(createHash('sha256').update('m\0abc').digest('hex'));
    expect(contentHash('abc', 'm')).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash('abc', 'm')).not.toBe(contentHash('abc', 'n'));
    // The separator keeps (model, text) pairs from colliding by concatenation.
    expect(contentHash('bc', 'ma')).not.toBe(contentHash('abc', 'm'));
  });
});

describe('embedWithCache', () => {
  it('embeds each distinct text once, shortest first, and reports progress', async () => {
    const embedder = countingEmbedder();
    const cache = createMemoryEmbeddingCache();
    cache.put([{ hash: contentHash('cached one', 'fake-model'), vector: Float32Array.of(-1, -1) }]);
    const texts = ['a b c', 'x', 'a b c', 'cached one', 'p q', 'x', 'one two three four five six seven'];
    const progress: EmbedProgress[] = [];
    const result = await embedWithCache(embedder, texts, cache, (p) => progress.push(p), { chunkSize: 2 });

    // 4 distinct misses, sorted by token count (x:3, p q:4, a b c:5, seven words: 9 capped at 6), chunks of 2.
    expect(embedder.calls).toEqual([['x', 'p q'], ['a b c', 'one two three four five six seven']]);
    // The counts embedWithCache made are handed on (capped at the window), not recounted.
    expect(embedder.givenCounts).toEqual([[3, 4], [5, 6]]);
    expect(result.embedded).toBe(4);
    expect(result.tokens).toBe(3 + 4 + 5 + 6);
    expect(result.vectors.map((v) => [...v])).toEqual([[5, 3], [1, 1], [5, 3], [-1, -1], [3, 2], [1, 1], [33, 7]]);
    expect(result.hashes).toEqual(texts.map((t) => contentHash(t, 'fake-model')));
    // done counts input positions: the cache hit first, then 'x' twice + 'p q', then 'a b c' twice + the long one.
    expect(progress).toEqual([
      { done: 1, total: 7, tokens: 0 },
      { done: 4, total: 7, tokens: 7 },
      { done: 7, total: 7, tokens: 18 },
    ]);
    expect(cache.size).toBe(5);

    // A second run over the same texts never reaches the model.
    const again = await embedWithCache(embedder, texts, cache);
    expect(embedder.calls).toHaveLength(2);
    expect(again.embedded).toBe(0);
    expect(again.vectors.map((v) => [...v])).toEqual(result.vectors.map((v) => [...v]));
  });

  it('keeps two chunks in the embedder: the next is queued before the previous is written', async () => {
    const events: string[] = [];
    const base = countingEmbedder();
    const embedder: Embedder = {
      ...base,
      async embed(texts) {
        events.push(`start ${texts[0]}`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`end ${texts[0]}`);
        return base.embed(texts);
      },
    };
    const memory = createMemoryEmbeddingCache();
    const cache = { get: memory.get, put: (entries: { hash: string; vector: Float32Array }[]) => (events.push(`put ${entries.length}`), memory.put(entries)) };
    const result = await embedWithCache(embedder, ['d e f', 'a', 'b c'], cache, undefined, { chunkSize: 1 });
    expect(events).toEqual(['start a', 'start b c', 'end a', 'put 1', 'start d e f', 'end b c', 'put 1', 'end d e f', 'put 1']);
    expect(result.vectors.map((v) => [...v])).toEqual([[5, 3], [1, 1], [3, 2]]);
  });

  it('a failing chunk rejects the call; chunks before it stay cached, none after it is written', async () => {
    const base = countingEmbedder();
    const embedder: Embedder = {
      ...base,
      async embed(texts) {
        if (texts[0] !== 'a') throw new Error(`model failed on ${texts[0]}`);
        return base.embed(texts);
      },
    };
    const cache = createMemoryEmbeddingCache();
    // 'b c' fails while 'd e f' is already queued (and fails too): one rejection, nothing unhandled.
    await expect(embedWithCache(embedder, ['a', 'b c', 'd e f'], cache, undefined, { chunkSize: 1 })).rejects.toThrow('model failed on b c');
    expect(cache.size).toBe(1);
    expect([...cache.get([contentHash('a', 'fake-model')]).keys()]).toEqual([contentHash('a', 'fake-model')]);
  });

  it('handles an empty input', async () => {
    const embedder = countingEmbedder();
    const progress: EmbedProgress[] = [];
    const result = await embedWithCache(embedder, [], createMemoryEmbeddingCache(), (p) => progress.push(p));
    expect(result).toEqual({ vectors: [], hashes: [], embedded: 0, tokens: 0 });
    expect(progress).toEqual([{ done: 0, total: 0, tokens: 0 }]);
    expect(embedder.calls).toEqual([]);
  });
});

describe('windowLengths', () => {
  const counter = { countTokens: (t: string) => t.split(' ').length + 2, truncateToTokens: (t: string) => t };
  it('uses the given counts, counts the texts without them, caps both at the window', () => {
    expect(windowLengths(['a b', 'a b c d e'], [9, 3], counter, 6)).toEqual([6, 3]);
    expect(windowLengths(['a b', 'a b c d e'], undefined, counter, 6)).toEqual([4, 6]);
    expect(() => windowLengths(['a b', 'c'], [4], counter, 6)).toThrow('expected 2 token counts, got 1');
  });
});

describe('planBatches', () => {
  it('groups indices by token length, stable, in batches of the given size', () => {
    expect(planBatches([30, 5, 12, 5, 256, 12, 7], 3)).toEqual([[1, 3, 6], [2, 5, 0], [4]]);
    expect(planBatches([], 4)).toEqual([]);
  });

  it('caps a batch at maxBatchTokens padded tokens (longest × count); a longer text goes alone', () => {
    // Sorted: 5, 5, 7 (7 × 3 = 21; a 12 would make 48) | 12, 12 (24; the 30 would make 90) | 30 | 256.
    expect(planBatches([30, 5, 12, 5, 256, 12, 7], 16, 40)).toEqual([[1, 3, 6], [2, 5], [0], [4]]);
    expect(planBatches([30, 5, 12, 5, 256, 12, 7], 2, 40)).toEqual([[1, 3], [6, 2], [5], [0], [4]]);
    // 0 = no token cap.
    expect(planBatches([30, 5, 12, 5, 256, 12, 7], 16, 0)).toEqual([[1, 3, 6, 2, 5, 0, 4]]);
  });
});
