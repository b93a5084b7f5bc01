import { createHash } from 'node:crypto';
import { CaError } from '@ca/schema';
import type { Embedder } from './embedder.js';

/**
 * Key of an embedding in the content-hash cache: sha256 hex of the model id and the exact text.
 * Identical code in many files or branches is embedded once. Pass `modelId@revision` as
 * `modelId` if the cache can outlive a weights change without being cleared.
 */
export function contentHash(text: string, modelId: string): string {
  return createHash('sha256').update(modelId).update('\0').update(text).digest('hex');
}

/** Vectors by content hash (the store implements it over its `embeddings` table). */
export interface EmbeddingCache {
  /** The vectors known for these hashes; unknown hashes are simply absent. */
  get(hashes: string[]): Map<string, Float32Array>;
  put(entries: { hash: string; vector: Float32Array }[]): void;
}

/** An in-memory EmbeddingCache (tests, benchmarks, a single indexing run). */
export function createMemoryEmbeddingCache(): EmbeddingCache & { readonly size: number } {
  const map = new Map<string, Float32Array>();
  return {
    get(hashes) {
      const out = new Map<string, Float32Array>();
      for (const h of hashes) {
        const v = map.get(h);
        if (v) out.set(h, v);
      }
      return out;
    },
    put(entries) {
      for (const e of entries) map.set(e.hash, e.vector);
    },
    get size() {
      return map.size;
    },
  };
}

/** Progress of `embedWithCache`: texts resolved so far (cache hits and duplicates count), model tokens spent. */
export interface EmbedProgress {
  readonly done: number;
  readonly total: number;
  readonly tokens: number;
}

export interface EmbedWithCacheOptions {
  /** Texts per `embedder.embed` call, i.e. per progress report and cache write (default 128). */
  readonly chunkSize?: number;
}

export interface EmbedWithCacheResult {
  /** One vector per input text, in input order. */
  readonly vectors: Float32Array[];
  /** `contentHash(text, embedder.modelId)` per input text, the keys the vectors were cached under. */
  readonly hashes: string[];
  /** Distinct texts that went through the model in this call. */
  readonly embedded: number;
  /** Model tokens spent (each text's count capped at the model window). */
  readonly tokens: number;
}

/**
 * Embeds texts through a content-hash cache: each distinct text is looked up once, and only
 * texts that are neither cached nor repeated earlier in `texts` reach the model. Misses are
 * sorted by token length before chunking (similar lengths batch well), written to the cache
 * after every chunk (an interrupted run keeps its work) and reported through `onProgress`.
 * Two chunks are in the embedder at a time.
 */
export async function embedWithCache(
  embedder: Embedder,
  texts: readonly string[],
  cache: EmbeddingCache,
  onProgress?: (progress: EmbedProgress) => void,
  options: EmbedWithCacheOptions = {},
): Promise<EmbedWithCacheResult> {
  const hashes = texts.map((t) => contentHash(t, embedder.modelId));
  const firstIndex = new Map<string, number>();
  hashes.forEach((h, i) => {
    if (!firstIndex.has(h)) firstIndex.set(h, i);
  });
  const unique = [...firstIndex.keys()];
  const found = unique.length > 0 ? cache.get(unique) : new Map<string, Float32Array>();
  const vectorsByHash = new Map<string, Float32Array>(found);

  // How many input positions each distinct hash resolves: progress counts input texts.
  const multiplicity = new Map<string, number>();
  for (const h of hashes) multiplicity.set(h, (multiplicity.get(h) ?? 0) + 1);

  const missing = unique.filter((h) => !vectorsByHash.has(h));
  const total = texts.length;
  let done = total - missing.reduce((n, h) => n + multiplicity.get(h)!, 0);
  let tokens = 0;
  onProgress?.({ done, total, tokens });

  const lengthOf = new Map<string, number>();
  for (const h of missing) lengthOf.set(h, Math.min(embedder.countTokens(texts[firstIndex.get(h)!]!), embedder.maxTokens));
  missing.sort((a, b) => lengthOf.get(a)! - lengthOf.get(b)!);

  const chunkSize = Math.max(1, options.chunkSize ?? 128);
  const chunks: string[][] = [];
  for (let i = 0; i < missing.length; i += chunkSize) chunks.push(missing.slice(i, i + chunkSize));
  const start = (chunk: string[]): Promise<Float32Array[]> =>
    embedder.embed(
      chunk.map((h) => texts[firstIndex.get(h)!]!),
      chunk.map((h) => lengthOf.get(h)!),
    );
  // The next chunk is queued before this one is awaited, so the model never waits for the
  // cache write and progress report between chunks (nor, with several workers, for the
  // slowest batch of a chunk).
  let inFlight = chunks.length > 0 ? start(chunks[0]!) : null;
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c]!;
    const next = c + 1 < chunks.length ? start(chunks[c + 1]!) : null;
    next?.catch(() => {}); // awaited in the next turn; if this chunk fails first, nobody will
    const vectors = await inFlight!;
    inFlight = next;
    if (vectors.length !== chunk.length) {
      throw new CaError('internal', `embedder returned ${vectors.length} vectors for ${chunk.length} texts`);
    }
    const entries = chunk.map((hash, k) => ({ hash, vector: vectors[k]! }));
    cache.put(entries);
    for (const e of entries) {
      vectorsByHash.set(e.hash, e.vector);
      done += multiplicity.get(e.hash)!;
      tokens += lengthOf.get(e.hash)!;
    }
    onProgress?.({ done, total, tokens });
  }

  return { vectors: hashes.map((h) => vectorsByHash.get(h)!), hashes, embedded: missing.length, tokens };
}
