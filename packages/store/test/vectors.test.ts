import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { Store, VectorStore, type CoarseMode, type KnnHit, type VectorStoreOptions } from '../src/index.js';
import { fileWithSymbols, dbOf, keyPlanner } from './helpers.js';

const MODEL = { modelId: 'test-model', revision: 'r1', dims: 4 };

const opened: Store[] = [];
afterEach(() => {
  while (opened.length > 0) opened.pop()!.close();
});

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'ca-vectors-')), 'index.db');
}

function open(path = tempDb()): Store {
  const store = Store.open(path, { skipQuickCheck: true });
  opened.push(store);
  return store;
}

function v(...xs: number[]): Float32Array {
  return new Float32Array(xs);
}

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
}

/** Writes one file of functions through the writer and returns their node ids by name. */
function seed(store: Store, path: string, names: string[], label = 'working'): Map<string, number> {
  store.writer.writeBatch(label, [fileWithSymbols(path, `h-${path}`, names.map((name) => ({ name })))], keyPlanner);
  const rows = dbOf(store)
    .prepare(`SELECT n.id, n.name FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ? AND n.kind = 'function'`)
    .all(path) as { id: number; name: string }[];
  return new Map(rows.map((r) => [r.name, r.id]));
}

/** Bulk nodes straight into SQL (thousands, fast): one file in `label`, nodes n0…n{count-1}. Returns ids in order. */
function seedMany(store: Store, label: string, path: string, count: number): number[] {
  const db = dbOf(store);
  return db.transaction(() => {
    const fileId = Number(
      db
        .prepare(`INSERT INTO files(path, content_hash, language, size, parse_status, indexed_at) VALUES (?, ?, 'ts', 1, 'ok', 'x')`)
        .run(path, `bulk-${path}`).lastInsertRowid,
    );
    db.prepare(`INSERT OR IGNORE INTO labels(name, updated_at) VALUES (?, 'x')`).run(label);
    db.prepare(`INSERT INTO label_files(label_id, path, file_id) VALUES ((SELECT id FROM labels WHERE name = ?), ?, ?)`).run(label, path, fileId);
    const ins = db.prepare(`INSERT INTO nodes(file_id, kind, language, name, qualified_name, symbol_key, start_line, end_line, start_byte, end_byte, chunk_hash)
                            VALUES (?, 'function', 'ts', ?, ?, ?, 1, 1, 0, 1, ?)`);
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push(Number(ins.run(fileId, `n${i}`, `n${i}`, `ts:${path}#n${i}`, `c${i}`).lastInsertRowid));
    return ids;
  })();
}

/** Puts one vector per node (hash = `${prefix}${i}`) and assigns it as window 0. */
function putAndAssign(vs: VectorStore, ids: number[], vectors: Float32Array[], prefix = 'h'): void {
  vs.put(vectors.map((vector, i) => ({ hash: `${prefix}${i}`, vector })));
  vs.assignMany(ids.map((nodeId, i) => ({ nodeId, windows: [{ window: 0, hash: `${prefix}${i}` }] })));
}

function names(hits: KnnHit[], byId: Map<string, number>): string[] {
  const rev = new Map([...byId].map(([n, id]) => [id, n]));
  return hits.map((h) => rev.get(h.nodeId) ?? `#${h.nodeId}`);
}

const MODES: { name: string; options: VectorStoreOptions }[] = [
  { name: 'memory/float', options: { coarse: 'float' } },
  { name: 'memory/int8', options: { coarse: 'int8' } },
  { name: 'memory/binary', options: { coarse: 'binary' } },
  { name: 'memory/binary-lut', options: { coarse: 'binary-lut' } },
  { name: 'memory/binary-lut-int8 (default)', options: {} },
  { name: 'vec0', options: { search: 'vec0' } },
];

describe('put / get', () => {
  it('round-trips float32 vectors bit for bit, stored as little-endian BLOBs', () => {
    const store = open();
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const a = v(0.1, -1 / 3, 1e-8, Math.PI);
    const b = v(-0, 3.4028234663852886e38, -1.1754943508222875e-38, 0.5);
    const ids = vs.put([
      { hash: 'a', vector: a },
      { hash: 'b', vector: b },
    ]);
    expect([...ids.keys()]).toEqual(['a', 'b']);
    const got = vs.getByHashes(['b', 'a', 'missing']);
    expect([...got.keys()].sort()).toEqual(['a', 'b']);
    expect(Buffer.from(got.get('a')!.buffer).equals(Buffer.from(a.buffer))).toBe(true);
    expect(Buffer.from(got.get('b')!.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    expect(Object.is(got.get('b')![0], -0)).toBe(true);

    vs.put([{ hash: 'one', vector: v(1, -2, 0, 0) }]);
    const blob = dbOf(store).prepare(`SELECT vector FROM embeddings WHERE content_hash = 'one'`).pluck().get() as Buffer;
    expect(blob.toString('hex')).toBe('0000803f000000c00000000000000000');
    const row = dbOf(store).prepare(`SELECT model_id FROM embeddings WHERE content_hash = 'one'`).pluck().get();
    expect(row).toBe('test-model@r1');
    // vec0 mirrors embeddings row for row (rowid = embeddings.id).
    const vecRow = dbOf(store).prepare(`SELECT embedding FROM vec_embeddings WHERE rowid = ?`).pluck().get(BigInt(ids.get('a')!)) as Buffer;
    expect(vecRow.equals(Buffer.from(a.buffer))).toBe(true);
  });

  it('dedupes by (model, content hash) and rewrites a changed vector as delete + insert in vec0', () => {
    const store = open();
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const first = vs.put([
      { hash: 'x', vector: v(1, 0, 0, 0) },
      { hash: 'x', vector: v(1, 0, 0, 0) },
    ]);
    const again = vs.put([{ hash: 'x', vector: v(1, 0, 0, 0) }]);
    expect(again.get('x')).toBe(first.get('x'));
    expect(vs.count()).toBe(1);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM vec_embeddings`).pluck().get()).toBe(1);

    const rewritten = vs.put([{ hash: 'x', vector: v(0, 1, 0, 0) }]);
    expect(rewritten.get('x')).toBe(first.get('x'));
    expect([...vs.getByHashes(['x']).get('x')!]).toEqual([0, 1, 0, 0]);
    const vecRow = dbOf(store).prepare(`SELECT embedding FROM vec_embeddings WHERE rowid = ?`).pluck().get(BigInt(first.get('x')!)) as Buffer;
    expect([...new Float32Array(new Uint8Array(vecRow).buffer)]).toEqual([0, 1, 0, 0]);
    expect(vs.count()).toBe(1);
  });

  it('refuses vectors of the wrong dimension and writes before ensureModel', () => {
    const store = open();
    const vs = new VectorStore(dbOf(store));
    expect(() => vs.put([{ hash: 'a', vector: v(1, 0, 0, 0) }])).toThrowError(
      expect.objectContaining({ code: 'model_unavailable' }) as unknown as Error,
    );
    vs.ensureModel(MODEL);
    const err = (() => {
      try {
        vs.put([{ hash: 'a', vector: v(1, 0, 0) }]);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(CaError);
    expect((err as CaError).code).toBe('invalid_query');
    expect(vs.count()).toBe(0);
  });

  it('serves as the EmbeddingCache of @ca/embed (get / put shape)', () => {
    const store = open();
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const cache = vs.cache();
    cache.put([{ hash: 'h1', vector: v(0, 0, 1, 0) }]);
    const got = cache.get(['h1', 'h2']);
    expect([...got.keys()]).toEqual(['h1']);
    expect([...got.get('h1')!]).toEqual([0, 0, 1, 0]);
  });
});

describe('assign', () => {
  it('replaces all windows of a node and rejects unknown hashes', () => {
    const store = open();
    const ids = seed(store, 'src/a.ts', ['alpha', 'beta']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const e = vs.put([
      { hash: 'w0', vector: v(1, 0, 0, 0) },
      { hash: 'w1', vector: v(0, 1, 0, 0) },
      { hash: 'w2', vector: v(0, 0, 1, 0) },
    ]);
    const alpha = ids.get('alpha')!;
    const rows = () =>
      dbOf(store).prepare(`SELECT window, embedding_id AS e FROM node_embeddings WHERE node_id = ? ORDER BY window`).all(alpha) as {
        window: number;
        e: number;
      }[];
    vs.assign(alpha, [
      { window: 0, hash: 'w0' },
      { window: 1, hash: 'w1' },
      { window: 2, hash: 'w2' },
    ]);
    expect(rows()).toEqual([
      { window: 0, e: e.get('w0') },
      { window: 1, e: e.get('w1') },
      { window: 2, e: e.get('w2') },
    ]);
    vs.assign(alpha, [{ window: 0, hash: 'w2' }]);
    expect(rows()).toEqual([{ window: 0, e: e.get('w2') }]);

    let err: unknown = null;
    try {
      vs.assign(alpha, [
        { window: 0, hash: 'w0' },
        { window: 1, hash: 'nope' },
      ]);
    } catch (x) {
      err = x;
    }
    expect((err as CaError).code).toBe('not_found');
    // The failed assign rolled back: the previous windows are intact.
    expect(rows()).toEqual([{ window: 0, e: e.get('w2') }]);
  });
});

describe.each(MODES)('knn ($name)', ({ options }) => {
  it('ranks a hand-made 4-D set exactly like brute force, one hit per node (its best window)', () => {
    const store = open();
    const ids = seed(store, 'src/a.ts', ['north', 'northEast', 'east', 'south', 'west', 'twoWindows']);
    const vs = new VectorStore(dbOf(store), options);
    vs.ensureModel(MODEL);
    vs.put([
      { hash: 'n', vector: unit(1, 0, 0, 0) },
      { hash: 'ne', vector: unit(1, 1, 0, 0) },
      { hash: 'e', vector: unit(0, 1, 0, 0) },
      { hash: 's', vector: unit(-1, 0, 0, 0) },
      { hash: 'w', vector: unit(0, -1, 0, 0) },
      { hash: 'tw0', vector: unit(0, 0, 1, 0) },
      { hash: 'tw1', vector: unit(3, 1, 0, 0) },
    ]);
    vs.assign(ids.get('north')!, [{ window: 0, hash: 'n' }]);
    vs.assign(ids.get('northEast')!, [{ window: 0, hash: 'ne' }]);
    vs.assign(ids.get('east')!, [{ window: 0, hash: 'e' }]);
    vs.assign(ids.get('south')!, [{ window: 0, hash: 's' }]);
    vs.assign(ids.get('west')!, [{ window: 0, hash: 'w' }]);
    vs.assign(ids.get('twoWindows')!, [
      { window: 0, hash: 'tw0' },
      { window: 1, hash: 'tw1' },
    ]);
    // Query (2, 1, 0, 0)/√5. Cosines: tw1 (3,1)/√10 → 7/√50 = 0.98995; ne → 3/√10 = 0.94868;
    // n → 2/√5 = 0.89443; e → 1/√5 = 0.44721; tw0 → 0; w → −0.44721; s → −0.89443.
    const hits = vs.knn(unit(2, 1, 0, 0), 10);
    expect(names(hits, ids)).toEqual(['twoWindows', 'northEast', 'north', 'east', 'west', 'south']);
    expect(hits.map((h) => h.window)).toEqual([1, 0, 0, 0, 0, 0]);
    const expected = [7 / Math.sqrt(50), 3 / Math.sqrt(10), 2 / Math.sqrt(5), 1 / Math.sqrt(5), -1 / Math.sqrt(5), -2 / Math.sqrt(5)];
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!, 5));
    expect(names(vs.knn(unit(2, 1, 0, 0), 2), ids)).toEqual(['twoWindows', 'northEast']);
    // The other window wins when the query points its way.
    const up = vs.knn(unit(0, 0, 1, 0), 1);
    expect(names(up, ids)).toEqual(['twoWindows']);
    expect(up[0]!.window).toBe(0);
    expect(up[0]!.score).toBeCloseTo(1, 6);
  });

  it('returns exactly k hits when the filter excludes most of > 4096 vectors', () => {
    const store = open();
    const count = 6000;
    const ids = seedMany(store, 'working', 'src/bulk.ts', count);
    const vs = new VectorStore(dbOf(store), options);
    vs.ensureModel(MODEL);
    // Node i sits at angle θ_i = i·(π/2)/count in the first two dimensions.
    const vectors = ids.map((_, i) => {
      const t = (i * Math.PI) / 2 / count;
      return v(Math.cos(t), Math.sin(t), 0, 0);
    });
    putAndAssign(vs, ids, vectors);
    expect(vs.count()).toBe(count);
    // Every 400th node is allowed (15 nodes); the query points at node 0, so they rank by index.
    const allowedIdx = Array.from({ length: 15 }, (_, j) => j * 400);
    const allow = new Set(allowedIdx.map((i) => ids[i]!));
    const hits = vs.knn(v(1, 0, 0, 0), 10, { allow });
    expect(hits.map((h) => h.nodeId)).toEqual(allowedIdx.slice(0, 10).map((i) => ids[i]!));
    hits.forEach((h, j) => expect(h.score).toBeCloseTo(Math.cos((j * 400 * Math.PI) / 2 / count), 5));
    // Pointing the other way, the far end of the allowed set ranks first.
    const far = vs.knn(v(0, 1, 0, 0), 12, { allow: (id) => allow.has(id) });
    expect(far.map((h) => h.nodeId)).toEqual(allowedIdx.slice().reverse().slice(0, 12).map((i) => ids[i]!));
    // Fewer eligible nodes than k: all of them, no padding.
    expect(vs.knn(v(1, 0, 0, 0), 10, { allow: new Set([ids[5999]!, ids[3000]!]) }).map((h) => h.nodeId)).toEqual([ids[3000], ids[5999]]);
  });

  it('filters by label membership (label_files → nodes.file_id)', () => {
    const store = open();
    const work = seedMany(store, 'working', 'src/bulk.ts', 5000);
    const feature = seedMany(store, 'feature/x', 'src/feature.ts', 3);
    const vs = new VectorStore(dbOf(store), options);
    vs.ensureModel(MODEL);
    putAndAssign(
      vs,
      work,
      work.map(() => unit(1, 0.01, 0, 0)),
      'w',
    );
    putAndAssign(vs, feature, [unit(0, 1, 0, 0), unit(0, 1, 1, 0), unit(0, 0, 1, 0)], 'f');
    const hits = vs.knn(unit(1, 0, 0, 0), 5, { label: 'feature/x' });
    // cos to (1,0,0,0) is 0 for all three: ties break by node id.
    expect(hits.map((h) => h.nodeId)).toEqual(feature);
    const hits2 = vs.knn(unit(0, 1, 0, 0), 2, { label: 'feature/x' });
    expect(hits2.map((h) => h.nodeId)).toEqual([feature[0], feature[1]]);
    expect(hits2.map((h) => Number(h.score.toFixed(5)))).toEqual([1, 0.70711]);
    expect(vs.knn(unit(0, 1, 0, 0), 5, { label: 'no-such-label' })).toEqual([]);
    // Label and allow combine.
    expect(vs.knn(unit(0, 1, 0, 0), 5, { label: 'feature/x', allow: new Set([feature[2]!, work[0]!]) }).map((h) => h.nodeId)).toEqual([
      feature[2],
    ]);
  });
});

/** Deterministic pseudo-random unit vectors (a fixed LCG): quantised modes then see varied codes and ties. */
function scattered(count: number, seed = 7): Float32Array[] {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  return Array.from({ length: count }, () => unit(next(), next(), next(), next()));
}

describe.each(MODES)('knnChecked ($name)', ({ name, options }) => {
  it('answers what knn does with the accepted set, asking about the nearest nodes a batch at a time', () => {
    const store = open();
    const ids = seedMany(store, 'working', 'src/bulk.ts', 3000);
    const vs = new VectorStore(dbOf(store), options);
    vs.ensureModel(MODEL);
    putAndAssign(vs, ids, scattered(ids.length));
    // A third of the nodes pass, spread over the index.
    const accepted = new Set(ids.filter((_, i) => i % 3 === 1));
    const asked: number[][] = [];
    const check = (batch: readonly number[]) => (asked.push([...batch]), new Set(batch.filter((id) => accepted.has(id))));
    for (const [query, k] of [[unit(1, 0.2, -0.3, 0.5), 10], [unit(-0.4, 1, 0.1, 0), 40], [unit(0, 0, 0, 1), 1]] as const) {
      asked.length = 0;
      const hits = vs.knnChecked(query, k, check, { passRate: 1 / 3 });
      if (name === 'vec0') {
        // sqlite-vec has no nearest-first walk here: the caller passes the accepted set instead.
        expect(hits).toBeNull();
        continue;
      }
      expect(hits).toEqual(vs.knn(query, k, { allow: accepted }));
      expect(hits!.length).toBe(k);
      // Each node asked about once, and not every node: the first pass keeps k (float) or 400
      // candidates (the quantised modes' rescoreMin, over k × 10 here), a third pass, so one
      // batch of 1.2 × 3 × 400 = 1,440 nodes is enough; float: 64 (the smallest batch) for
      // k = 10, 1.2 × 3 × 40 = 144 for k = 40, and for k = 1 the 16 per candidate it may check.
      const seen = asked.flat();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBe(name === 'memory/float' ? { 10: 64, 40: 144, 1: 16 }[k] : 1440);
    }
  });
});

describe('knnChecked (exact float mode, nodes on a quarter circle)', () => {
  /** 6,000 nodes, node i at angle i·(π/2)/6000: a query along the first axis ranks them by index. */
  function quarterCircle(): { vs: VectorStore; ids: number[] } {
    const store = open();
    const ids = seedMany(store, 'working', 'src/bulk.ts', 6000);
    const vs = new VectorStore(dbOf(store), { coarse: 'float' });
    vs.ensureModel(MODEL);
    putAndAssign(
      vs,
      ids,
      ids.map((_, i) => {
        const t = (i * Math.PI) / 2 / ids.length;
        return v(Math.cos(t), Math.sin(t), 0, 0);
      }),
    );
    return { vs, ids };
  }

  it('asks about the nearest nodes in order, no more than the rate says it needs', () => {
    const { vs, ids } = quarterCircle();
    const asked: number[][] = [];
    // Every third node passes (indexes 0, 3, 6 …).
    const check = (batch: readonly number[]) => (asked.push([...batch]), new Set(batch.filter((id) => ids.indexOf(id) % 3 === 0)));
    const hits = vs.knnChecked(v(1, 0, 0, 0), 10, check, { passRate: 1 / 3 });
    // 10 wanted at a rate of 1/3: one batch of 64 (the smallest), nodes 0–63, of which 22 pass.
    expect(asked).toEqual([ids.slice(0, 64)]);
    expect(hits!.map((h) => ids.indexOf(h.nodeId))).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    hits!.forEach((h, j) => expect(h.score).toBeCloseTo(Math.cos((j * 3 * Math.PI) / 2 / ids.length), 5));
  });

  it('gives up (null) when the nearest maxChecked nodes hold too few, and is exact when it reads them all', () => {
    const { vs, ids } = quarterCircle();
    // Every 400th node passes (15 nodes), while the caller expected half.
    const allowedIdx = Array.from({ length: 15 }, (_, j) => j * 400);
    const accepted = new Set(allowedIdx.map((i) => ids[i]!));
    let asked = 0;
    const check = (batch: readonly number[]) => ((asked += batch.length), new Set(batch.filter((id) => accepted.has(id))));
    // The 500 nearest are nodes 0–499: two pass (0 and 400), ten were asked for.
    expect(vs.knnChecked(v(1, 0, 0, 0), 10, check, { passRate: 0.5, maxChecked: 500 })).toBeNull();
    expect(asked).toBe(500);
    // Allowed to check every node: the ten nearest that pass, as knn with the set answers.
    const all = vs.knnChecked(v(1, 0, 0, 0), 10, check, { passRate: 0.5, maxChecked: ids.length });
    expect(all!.map((h) => h.nodeId)).toEqual(allowedIdx.slice(0, 10).map((i) => ids[i]!));
    expect(all).toEqual(vs.knn(v(1, 0, 0, 0), 10, { allow: accepted }));
    // Fewer pass than asked for, within the limit: all of them, no padding, no null.
    const two = new Set([ids[5999]!, ids[3000]!]);
    expect(vs.knnChecked(v(1, 0, 0, 0), 10, (batch) => new Set(batch.filter((id) => two.has(id))), { passRate: 0.5, maxChecked: ids.length })!.map((h) => h.nodeId)).toEqual([ids[3000], ids[5999]]);
  });

  it('keeps to the label, like knn', () => {
    const store = open();
    const work = seedMany(store, 'working', 'src/bulk.ts', 50);
    const feature = seedMany(store, 'feature/x', 'src/feature.ts', 3);
    const vs = new VectorStore(dbOf(store), { coarse: 'float' });
    vs.ensureModel(MODEL);
    putAndAssign(vs, work, work.map(() => unit(1, 0.01, 0, 0)), 'w');
    putAndAssign(vs, feature, [unit(0, 1, 0, 0), unit(0, 1, 1, 0), unit(0, 0, 1, 0)], 'f');
    const asked: number[] = [];
    const hits = vs.knnChecked(unit(1, 0, 0, 0), 2, (batch) => (asked.push(...batch), new Set(batch)), { passRate: 1, label: 'feature/x' });
    // Only the label's three nodes are candidates; cos is 0 for all three, so ties break by node id.
    expect(asked).toEqual(feature);
    expect(hits!.map((h) => h.nodeId)).toEqual([feature[0], feature[1]]);
  });
});

describe('model changes', () => {
  it('resets on a new model, revision or dimension, recreating vec0, and never serves old vectors', () => {
    const path = tempDb();
    const store = open(path);
    const ids = seed(store, 'src/a.ts', ['alpha', 'beta', 'gamma']);
    const vs = new VectorStore(dbOf(store));
    expect(vs.ensureModel(MODEL)).toEqual({ reset: false });
    expect(vs.model()).toEqual(MODEL);
    expect(store.reader().metadata('embedding_model')).toBe('test-model');
    expect(store.reader().metadata('embedding_revision')).toBe('r1');
    expect(store.reader().metadata('embedding_dims')).toBe('4');
    putAndAssign(vs, [ids.get('alpha')!, ids.get('beta')!], [unit(1, 0, 0, 0), unit(0, 1, 0, 0)]);
    expect(vs.ensureModel(MODEL)).toEqual({ reset: false });
    expect(vs.count()).toBe(2);

    // Another connection has the old vectors loaded in memory.
    const other = open(path);
    const otherVs = new VectorStore(dbOf(other));
    expect(otherVs.knn(unit(1, 0, 0, 0), 5).map((h) => h.nodeId)).toEqual([ids.get('alpha'), ids.get('beta')]);

    expect(vs.ensureModel({ ...MODEL, revision: 'r2' })).toEqual({ reset: true });
    expect(vs.count()).toBe(0);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM embeddings`).pluck().get()).toBe(0);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM node_embeddings`).pluck().get()).toBe(0);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM vec_embeddings`).pluck().get()).toBe(0);
    expect(vs.knn(unit(1, 0, 0, 0), 5)).toEqual([]);
    expect(otherVs.knn(unit(1, 0, 0, 0), 5)).toEqual([]);
    expect(vs.getByHashes(['h0'])).toEqual(new Map());

    // Re-embedding resumes from the nodes without vectors.
    expect(vs.nodesNeedingEmbedding('working', 10, { kinds: ['function'] }).map((n) => n.name)).toEqual(['alpha', 'beta', 'gamma']);
    vs.put([{ hash: 'a2', vector: unit(0, 0, 1, 0) }]);
    vs.assign(ids.get('alpha')!, [{ window: 0, hash: 'a2' }]);
    expect(vs.nodesNeedingEmbedding('working', 10, { kinds: ['function'] }).map((n) => n.name)).toEqual(['beta', 'gamma']);
    expect(otherVs.knn(unit(1, 0, 0, 0), 5).map((h) => [h.nodeId, Number(h.score.toFixed(6))])).toEqual([[ids.get('alpha'), 0]]);

    // A new dimension recreates the vec0 table.
    expect(vs.ensureModel({ modelId: 'other-model', revision: 'r1', dims: 3 })).toEqual({ reset: true });
    const sql = dbOf(store).prepare(`SELECT sql FROM sqlite_master WHERE name = 'vec_embeddings'`).pluck().get() as string;
    expect(sql).toContain('float[3]');
    vs.put([{ hash: 'b3', vector: unit(1, 2, 2) }]);
    vs.assign(ids.get('beta')!, [{ window: 0, hash: 'b3' }]);
    const hits = otherVs.knn(unit(1, 2, 2), 5);
    expect(hits.map((h) => h.nodeId)).toEqual([ids.get('beta')]);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    let err: unknown = null;
    try {
      otherVs.knn(unit(1, 0, 0, 0), 5);
    } catch (e) {
      err = e;
    }
    expect((err as CaError).code).toBe('invalid_query');
    expect(dbOf(store).prepare(`SELECT embedding FROM vec_embeddings`).pluck().all().length).toBe(1);
  });

  it('refuses writes from a process still embedding with the previous model', () => {
    const path = tempDb();
    const a = new VectorStore(dbOf(open(path)));
    const b = new VectorStore(dbOf(open(path)));
    a.ensureModel(MODEL);
    expect(b.ensureModel({ ...MODEL, modelId: 'newer-model' })).toEqual({ reset: true });
    let err: unknown = null;
    try {
      a.put([{ hash: 'x', vector: unit(1, 0, 0, 0) }]);
    } catch (e) {
      err = e;
    }
    expect((err as CaError).code).toBe('model_unavailable');
    expect((err as CaError).message).toContain('now newer-model@r1, not test-model@r1');
    expect(b.count()).toBe(0);
    // A store that never declared a model cannot write either.
    expect(() => new VectorStore(dbOf(open(path))).put([{ hash: 'y', vector: unit(1, 0, 0, 0) }])).toThrow('call ensureModel');
  });

  it('nodesNeedingEmbedding pages in node id order and returns what the embedding text needs', () => {
    const store = open();
    const ids = seed(store, 'src/util.ts', ['parseDate', 'formatDate', 'slugify']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const page = vs.nodesNeedingEmbedding('working', 2, { kinds: ['function'] });
    expect(page.map((n) => ({ nodeId: n.nodeId, name: n.name, path: n.path, chunkText: n.chunkText, kind: n.kind }))).toEqual([
      { nodeId: ids.get('parseDate'), name: 'parseDate', path: 'src/util.ts', chunkText: 'function parseDate() {}', kind: 'function' },
      { nodeId: ids.get('formatDate'), name: 'formatDate', path: 'src/util.ts', chunkText: 'function formatDate() {}', kind: 'function' },
    ]);
    expect(vs.nodesNeedingEmbedding('working', 10).map((n) => n.kind)).toEqual(['file', 'function', 'function', 'function']);
    // The next page starts after the last node of this one, embedded or not.
    expect(vs.nodesNeedingEmbedding('working', 10, { kinds: ['function'], afterId: page[1]!.nodeId }).map((n) => n.name)).toEqual(['slugify']);
    expect(vs.nodesNeedingEmbedding('other-label', 10)).toEqual([]);
  });
});

describe('gc and deletions', () => {
  it('gc deletes embeddings no node references, from embeddings and vec0', () => {
    const store = open();
    const ids = seed(store, 'src/a.ts', ['alpha']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    vs.put([
      { hash: 'used', vector: unit(1, 0, 0, 0) },
      { hash: 'spare1', vector: unit(0, 1, 0, 0) },
      { hash: 'spare2', vector: unit(0, 0, 1, 0) },
    ]);
    vs.assign(ids.get('alpha')!, [{ window: 0, hash: 'used' }]);
    expect(vs.gc()).toBe(2);
    expect(vs.count()).toBe(1);
    expect([...vs.getByHashes(['used', 'spare1', 'spare2']).keys()]).toEqual(['used']);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM vec_embeddings`).pluck().get()).toBe(1);
    expect(vs.gc()).toBe(0);
    expect(vs.knn(unit(1, 0, 0, 0), 3).map((h) => h.nodeId)).toEqual([ids.get('alpha')]);
  });

  it('deleting nodes (file removed from its last label) removes their vectors from results', () => {
    const store = open();
    const a = seed(store, 'src/a.ts', ['alpha', 'beta']);
    const b = seed(store, 'src/b.ts', ['gamma']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    putAndAssign(vs, [a.get('alpha')!, a.get('beta')!, b.get('gamma')!], [unit(1, 0, 0, 0), unit(1, 1, 0, 0), unit(0, 1, 0, 0)]);
    expect(vs.knn(unit(1, 0, 0, 0), 3).map((h) => h.nodeId)).toEqual([a.get('alpha'), a.get('beta'), b.get('gamma')]);
    store.writer.removePaths('working', ['src/a.ts']);
    expect(dbOf(store).prepare(`SELECT COUNT(*) FROM nodes WHERE id = ?`).pluck().get(a.get('alpha'))).toBe(0);
    expect(vs.knn(unit(1, 0, 0, 0), 3).map((h) => h.nodeId)).toEqual([b.get('gamma')]);
    // The vectors are now unreferenced: gc collects them.
    expect(vs.gc()).toBe(2);
  });

  it('deleting a node row directly cascades too', () => {
    const store = open();
    const a = seed(store, 'src/a.ts', ['alpha', 'beta']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    putAndAssign(vs, [a.get('alpha')!, a.get('beta')!], [unit(1, 0, 0, 0), unit(0, 1, 0, 0)]);
    expect(vs.knn(unit(1, 0, 0, 0), 2).map((h) => h.nodeId)).toEqual([a.get('alpha'), a.get('beta')]);
    dbOf(store).prepare(`DELETE FROM nodes WHERE id = ?`).run(a.get('alpha'));
    expect(vs.knn(unit(1, 0, 0, 0), 2).map((h) => h.nodeId)).toEqual([a.get('beta')]);
  });

  it('a node whose chunk changed loses its (stale) vector and needs embedding again', () => {
    const store = open();
    const a = seed(store, 'src/a.ts', ['alpha', 'beta']);
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    putAndAssign(vs, [a.get('alpha')!, a.get('beta')!], [unit(1, 0, 0, 0), unit(0, 1, 0, 0)]);
    expect(vs.nodesNeedingEmbedding('working', 10, { kinds: ['function'] })).toEqual([]);
    store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h2', [{ name: 'alpha', body: 'function alpha() { return 1; }' }, { name: 'beta' }])], keyPlanner);
    const alphaId = dbOf(store).prepare(`SELECT id FROM nodes WHERE name = 'alpha' AND kind = 'function'`).pluck().get() as number;
    expect(vs.nodesNeedingEmbedding('working', 10, { kinds: ['function'] }).map((n) => [n.nodeId, n.name, n.chunkText])).toEqual([
      [alphaId, 'alpha', 'function alpha() { return 1; }'],
    ]);
    expect(vs.knn(unit(1, 0, 0, 0), 2).map((h) => h.nodeId)).toEqual([a.get('beta')]);
  });
});

describe('freshness across connections', () => {
  it.each(['float', 'binary-lut', 'binary-lut-int8'] as CoarseMode[])('a long-lived reader (%s) sees another connection’s writes and deletions', (coarse) => {
    const path = tempDb();
    const writer = open(path);
    const ids = seed(writer, 'src/a.ts', ['alpha', 'beta', 'gamma']);
    const w = new VectorStore(dbOf(writer));
    w.ensureModel(MODEL);
    w.put([{ hash: 'a', vector: unit(1, 0, 0, 0) }]);
    w.assign(ids.get('alpha')!, [{ window: 0, hash: 'a' }]);

    const reader = open(path);
    const r = new VectorStore(dbOf(reader), { coarse });
    expect(r.knn(unit(0, 1, 0, 0), 3).map((h) => h.nodeId)).toEqual([ids.get('alpha')]);

    // New vectors (incremental append) and a new assignment.
    w.put([{ hash: 'b', vector: unit(0, 1, 0, 0) }]);
    w.assign(ids.get('beta')!, [{ window: 0, hash: 'b' }]);
    expect(r.knn(unit(0, 1, 0, 0), 3).map((h) => h.nodeId)).toEqual([ids.get('beta'), ids.get('alpha')]);

    // Re-pointing a node at a shared vector.
    w.assign(ids.get('gamma')!, [{ window: 0, hash: 'b' }]);
    expect(r.knn(unit(0, 1, 0, 0), 3).map((h) => h.nodeId)).toEqual([ids.get('beta'), ids.get('gamma'), ids.get('alpha')]);

    // A rewritten vector (epoch change → full reload).
    w.put([{ hash: 'a', vector: unit(0, 1, 0, 0) }]);
    const hits = r.knn(unit(0, 1, 0, 0), 3);
    expect(hits.map((h) => Number(h.score.toFixed(6)))).toEqual([1, 1, 1]);

    // Deleting a node in the writer's connection.
    dbOf(writer).prepare(`DELETE FROM nodes WHERE id = ?`).run(ids.get('beta'));
    expect(r.knn(unit(0, 1, 0, 0), 3).map((h) => h.nodeId)).toEqual([ids.get('alpha'), ids.get('gamma')]);
  });
});

describe('persisted snapshot of the vector index', () => {
  /** 3,000 deterministic 4-d vectors (enough rows for a refresh to write the snapshot). */
  function bulk(store: Store): { ids: number[]; vectors: Float32Array[] } {
    const ids = seedMany(store, 'working', 'src/bulk.ts', 3000);
    const vectors = ids.map((_, i) => unit(Math.sin(i + 1), Math.cos(i * 0.7 + 0.3), Math.sin(i * 0.13 + 2), 0.5 + (i % 7) / 10));
    return { ids, vectors };
  }
  const query = unit(0.3, -0.2, 0.9, 0.1);

  for (const mode of ['binary-lut-int8', 'float'] as CoarseMode[]) {
    it(`a new instance copies the snapshot instead of reading every vector (${mode})`, () => {
      const store = open();
      const writer = new VectorStore(dbOf(store), { coarse: mode });
      writer.ensureModel(MODEL);
      const { ids, vectors } = bulk(store);
      putAndAssign(writer, ids, vectors);
      const first = writer.knn(query, 10);
      expect(writer.indexStats()!.loaded).toEqual({ snapshot: 0, rows: 3000 });
      // ensureModel on a new index moved the epoch once (0 → 1).
      expect(JSON.parse(store.reader().metadata('vectors_snapshot')!)).toEqual({ model: 'test-model@r1', epoch: '1', dims: 4, mode, count: 3000 });

      const reader = new VectorStore(dbOf(store), { coarse: mode });
      expect(reader.knn(query, 10)).toEqual(first);
      expect(reader.indexStats()!.loaded).toEqual({ snapshot: 3000, rows: 0 });
    });
  }

  it('appends vectors added after the snapshot, and ignores it once the epoch moved or it is damaged', () => {
    const store = open();
    const vs = new VectorStore(dbOf(store));
    vs.ensureModel(MODEL);
    const { ids, vectors } = bulk(store);
    putAndAssign(vs, ids, vectors);
    vs.knn(query, 5);
    // Ten more nodes, one of them exactly the query: found, and read from rows on top of the snapshot.
    const more = seedMany(store, 'working', 'src/more.ts', 10);
    putAndAssign(vs, more, more.map((_, i) => (i === 3 ? query : unit(-1, 0, 0, i + 1))), 'm');
    const next = new VectorStore(dbOf(store));
    expect(next.knn(query, 1)[0]!.nodeId).toBe(more[3]);
    expect(next.indexStats()!.loaded).toEqual({ snapshot: 3000, rows: 10 });
    // A mode other than the snapshot's is rebuilt from rows.
    expect(new VectorStore(dbOf(store), { coarse: 'int8' }).indexStats()!.loaded).toEqual({ snapshot: 0, rows: 3010 });

    // A damaged header (count) is ignored.
    const header = JSON.parse(store.reader().metadata('vectors_snapshot')!);
    dbOf(store).prepare(`UPDATE _metadata SET value = ? WHERE key = 'vectors_snapshot'`).run(JSON.stringify({ ...header, count: 12 }));
    expect(new VectorStore(dbOf(store)).indexStats()!.loaded).toEqual({ snapshot: 0, rows: 3010 });
    dbOf(store).prepare(`UPDATE _metadata SET value = ? WHERE key = 'vectors_snapshot'`).run(JSON.stringify(header));

    // Deleting embeddings (gc) moves the epoch: the snapshot no longer describes the vectors.
    vs.assignMany([{ nodeId: more[0]!, windows: [] }]);
    expect(vs.gc()).toBe(1);
    const after = new VectorStore(dbOf(store));
    expect(after.indexStats()!.loaded).toEqual({ snapshot: 0, rows: 3009 });
    expect(after.knn(query, 1)[0]!.nodeId).toBe(more[3]);
  });
});
