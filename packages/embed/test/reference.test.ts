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
