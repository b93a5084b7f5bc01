import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, createWorkerEmbedder, modelInfo } from '../src/index.js';
import type { Embedder } from '../src/index.js';
import { cosine, MODEL_ID, MODEL_MISSING, MODELS_DIR, RESOLVED } from './helpers.js';

interface ReferenceItem {
  readonly text: string;
  readonly tokens: number;
  readonly vector: number[];
}
const reference = (MODEL_MISSING === null ? JSON.parse(readFileSync(join(MODELS_DIR, MODEL_ID, 'reference.json'), 'utf8')) : { items: [] }) as { items: ReferenceItem[] };

describe.skipIf(MODEL_MISSING !== null)('reference vectors (upstream fp32 sentence-transformers)', () => {
  it('has the ten reference texts', () => {
    expect(reference.items.length).toBe(10);
  });

  it('modelInfo reads dims, window and a weights-derived revision', async () => {
    const info = await modelInfo(RESOLVED);
    expect(info.modelId).toBe('all-MiniLM-L6-v2');
    expect(info.dims).toBe(384);
    expect(info.maxTokens).toBe(256);
    // First 16 hex digits of the onnx file's sha256 as published in the model README.
    expect(info.revision.slice(0, 17)).toBe('29279cb259aee5eb-');
    expect(info.revision).toMatch(/^[0-9a-f]{16}-[0-9a-f]{8}$/);
  });

  for (const [label, create] of [
    ['in-process embedder', () => createEmbedder(RESOLVED, { batchSize: 4 })],
    ['worker embedder', () => createWorkerEmbedder(RESOLVED, { batchSize: 4 })],
  ] as const) {
    describe(label, () => {
      let embedder: Embedder;
      beforeAll(async () => {
        embedder = await create();
      }, 60_000);
      afterAll(async () => {
        await embedder?.dispose();
      });

      it('exposes the model metadata', () => {
        expect([embedder.modelId, embedder.dims, embedder.maxTokens]).toEqual(['all-MiniLM-L6-v2', 384, 256]);
      });

      it('counts tokens like the upstream tokenizer', () => {
        expect(reference.items.map((i) => embedder.countTokens(i.text))).toEqual(reference.items.map((i) => i.tokens));
      });

      it('reproduces every upstream vector (cosine >= 0.97), in input order, unit length', async () => {
        // Batch size 4 over texts of 3..1,070 tokens: batching by length reorders them internally.
        const vectors = await embedder.embed(reference.items.map((i) => i.text));
        expect(vectors.length).toBe(reference.items.length);
        vectors.forEach((v, k) => {
          expect(v.length).toBe(384);
          const c = cosine(v, reference.items[k]!.vector);
          expect(c, reference.items[k]!.text.slice(0, 40)).toBeGreaterThanOrEqual(0.97);
          expect(Math.abs(cosine(v, v) - 1)).toBeLessThan(1e-5);
          expect(Math.abs(Math.hypot(...v) - 1)).toBeLessThan(1e-4);
        });
      }, 60_000);

      it('embeds an empty list to an empty list', async () => {
        expect(await embedder.embed([])).toEqual([]);
      });
    });
  }

  it('a pool of workers gives every text the vector one in-process session gives it (same batches, any worker, any thread count)', async () => {
    const texts = reference.items.map((i) => i.text);
    const single = await createEmbedder(RESOLVED, { batchSize: 4 });
    const pool = await createWorkerEmbedder(RESOLVED, { batchSize: 4, workers: 2, threadsPerWorker: 1 });
    const wide = await createWorkerEmbedder(RESOLVED, { batchSize: 4, workers: 1, threadsPerWorker: 2 });
    try {
      // 10 texts, batch 4 (≤ 512 tokens): one worker and two workers plan the same batches.
      const expected = (await single.embed(texts)).map((v) => Array.from(v));
      expect((await pool.embed(texts)).map((v) => Array.from(v))).toEqual(expected);
      expect((await wide.embed(texts)).map((v) => Array.from(v))).toEqual(expected);
      // Two requests at once share the pool and each gets its own vectors back.
      const [a, b] = await Promise.all([pool.embed(texts.slice(0, 5)), pool.embed(texts.slice(5))]);
      expect(a.length + b.length).toBe(10);
      expect([...a, ...b].every((v) => v.length === 384)).toBe(true);
    } finally {
      await Promise.all([single.dispose(), pool.dispose(), wide.dispose()]);
    }
  }, 120_000);

  it('a short request is spread over the workers: 6 texts, batch 16, 2 workers → two batches of 3', async () => {
    const texts = reference.items.slice(0, 6).map((i) => i.text);
    // int8 activations are quantised per batch, so a vector shows which batch it was computed in.
    const inBatchesOf3 = await createEmbedder(RESOLVED, { batchSize: 3, batchTokens: 0 });
    const pool = await createWorkerEmbedder(RESOLVED, { batchSize: 16, batchTokens: 0, workers: 2 });
    try {
      const expected = (await inBatchesOf3.embed(texts)).map((v) => Array.from(v));
      expect((await pool.embed(texts)).map((v) => Array.from(v))).toEqual(expected);
    } finally {
      await Promise.all([inBatchesOf3.dispose(), pool.dispose()]);
    }
  }, 120_000);

  it('a disposed embedder refuses to embed', async () => {
    const worker = await createWorkerEmbedder(RESOLVED);
    await worker.dispose();
    await expect(worker.embed(['x'])).rejects.toMatchObject({ code: 'model_unavailable' });
    await worker.dispose(); // idempotent
  }, 60_000);

  it('an unresolved model is refused with its reason', async () => {
    await expect(createEmbedder({ ok: false, reason: 'no model here' })).rejects.toMatchObject({
      code: 'model_unavailable',
      message: 'no model here',
    });
  });
});
