import { endianness } from 'node:os';
import type { Statement } from 'better-sqlite3';
import { CaError, DOC_LANGUAGES } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedPluck, cachedRaw, cachedStatement, changeStamp } from './statements.js';
import { inLabelJoin, labelEntriesCondition } from './labelScope.js';
import { VectorIndex, type CoarseMode, type KnnHit, type NodeCheck } from './vectorIndex.js';

/**
 * Nodes of documentation files (Markdown, JSON, YAML: the documentation partition, decision
 * 039) get no vectors: the vector channel and the embedding run stay the code's. The languages
 * are @ca/schema constants.
 */
const NOT_DOC = `AND IFNULL(n.language, '') NOT IN (${DOC_LANGUAGES.map((l) => `'${l}'`).join(', ')})`;

/** The embedding model whose vectors the index holds; any change re-embeds from scratch. */
export interface EmbeddingModel {
  readonly modelId: string;
  readonly revision: string;
  readonly dims: number;
}

/**
 * The shape of @ca/embed's `EmbeddingCache` (matched structurally: the store sits below
 * @ca/embed and must not import it).
 */
export interface VectorCache {
  get(hashes: string[]): Map<string, Float32Array>;
  put(entries: { hash: string; vector: Float32Array }[]): void;
}

/** One vector of a node: window 0 is the symbol's main text, 1… its body windows. */
export interface WindowAssignment {
  readonly window: number;
  /** Content hash of the embedded text, as passed to `put`. */
  readonly hash: string;
}

/** A node of a label with no vector for the current model, with what its embedding text needs. */
export interface NodeNeedingEmbedding {
  readonly nodeId: number;
  readonly chunkHash: string;
  readonly kind: string;
  readonly language: string;
  readonly name: string;
  readonly qualifiedName: string;
  readonly signature: string;
  readonly doc: string | null;
  readonly chunkText: string;
  readonly path: string;
  readonly parentId: number | null;
}

export interface KnnOptions {
  /** Only these nodes (a set of ids, or a predicate) are eligible. */
  readonly allow?: ReadonlySet<number> | ((nodeId: number) => boolean);
  /** Only nodes of files in this label are eligible. */
  readonly label?: string;
  /** Quantised modes: candidate nodes re-scored with float32 (default from the store options). */
  readonly rescore?: number;
}

export interface VectorStoreOptions {
  /**
   * `memory` (default): the in-memory index (see `coarse`). `vec0`: sqlite-vec KNN, widened
   * until the filter leaves k nodes and, past vec0's k cap of 4096, an exact SQL scan.
   */
  readonly search?: 'memory' | 'vec0';
  /** First pass of the in-memory index (default `binary-lut-int8`, docs/decisions/004-vector-search.md). */
  readonly coarse?: CoarseMode;
  /** Quantised modes: at least this many candidate nodes are re-scored with float32 (default 400). */
  readonly rescoreMin?: number;
  /** Quantised modes: at least k × this many candidate nodes are re-scored (default 10). */
  readonly rescoreFactor?: number;
  /** `binary-lut-int8`: candidates kept after the int8 stage for float32 re-scoring (default 30, at least k × 3). */
  readonly floatCandidates?: number;
}

export type { CoarseMode, KnnHit, NodeCheck };

const META_MODEL = 'embedding_model';
const META_REVISION = 'embedding_revision';
const META_DIMS = 'embedding_dims';
const META_GENERATION = 'vectors_generation';
const META_EPOCH = 'vectors_epoch';

/**
 * `knnChecked`: nodes checked per first-pass candidate, at most, before it gives up. A checked
 * node costs several times what one node of a whole accepted set's scan does, so the limit keeps
 * a failed attempt well under the cost of the set that follows it at 100K symbols, while a
 * filter a quarter of the nodes pass needs about 4 per candidate (docs/benchmarks.md, "Filters").
 */
const CHECKED_PER_CANDIDATE = 16;

/** sqlite-vec's hard limit on `k` in a KNN query. */
export const VEC0_MAX_K = 4096;

const LITTLE_ENDIAN = endianness() === 'LE';

/** A vector as the stored BLOB: little-endian float32. */
export function vectorToBlob(v: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i]!, i * 4);
  return out;
}

/** A stored BLOB as a fresh (aligned, owned) Float32Array. */
export function blobToVector(blob: Uint8Array): Float32Array {
  const out = new Float32Array(blob.byteLength >> 2);
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(blob.subarray(0, out.length * 4));
    return out;
  }
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Key of the current model in `embeddings.model_id`: a revision change is a different model. */
/** Rows per persisted snapshot part (keeps each BLOB far below SQLite's 1 GB limit). */
const SNAPSHOT_PART_ROWS = 65_536;
/** A refresh that read at least this many rows (and 10% of the index) from SQLite rewrites the snapshot. */
export const SNAPSHOT_MIN_NEW_ROWS = 2048;
const META_SNAPSHOT = 'vectors_snapshot';

interface SnapshotHeader {
  readonly model: string;
  readonly epoch: string;
  readonly dims: number;
  readonly mode: string;
  readonly count: number;
}

interface SnapshotRow {
  readonly part: number;
  readonly ids: Buffer;
  readonly inv_norm: Buffer;
  readonly f32: Buffer | null;
  readonly i8: Buffer | null;
  readonly bits: Buffer | null;
}

function modelKeyOf(m: EmbeddingModel): string {
  return `${m.modelId}@${m.revision}`;
}

function sameModel(a: EmbeddingModel, b: EmbeddingModel): boolean {
  return a.modelId === b.modelId && a.revision === b.revision && a.dims === b.dims;
}

function now(): string {
  return new Date().toISOString();
}

/** Splits a list for `IN (…)` lists under SQLite's variable limit. */
function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

/**
 * Vector storage and nearest-neighbour search over one index database.
 *
 * Storage of record: `embeddings` (content-addressed by (model, content hash), float32 BLOB)
 * mirrored row for row into the sqlite-vec `vec_embeddings` table (rowid = embeddings.id);
 * `node_embeddings` assigns vectors to node windows. Search runs over an in-memory index
 * loaded once per instance and refreshed when `_metadata.vectors_generation` moves (any
 * connection's write bumps it; node deletions through a trigger), so queries see other
 * processes' writes without reloading on every call.
 */
export class VectorStore {
  private readonly opts: Required<VectorStoreOptions>;
  private readonly stmts: ReturnType<VectorStore['prepare']>;
  private index: VectorIndex | null = null;
  private indexModelKey = '';
  private loadedGeneration = '';
  private loadedEpoch = '';
  private labelCache: { label: string; stamp: string; allowed: Uint8Array } | null = null;
  /** Where the vectors of the last full load came from (the persisted snapshot, or embedding rows). */
  private lastLoad = { snapshot: 0, rows: 0 };
  /** The model this instance's caller embeds with (set by `ensureModel`); writes check it is still current. */
  private declared: EmbeddingModel | null = null;

  constructor(
    private readonly db: SqliteDatabase,
    options: VectorStoreOptions = {},
  ) {
    this.opts = {
      search: options.search ?? 'memory',
      coarse: options.coarse ?? 'binary-lut-int8',
      rescoreMin: options.rescoreMin ?? 400,
      rescoreFactor: options.rescoreFactor ?? 10,
      floatCandidates: options.floatCandidates ?? 30,
    };
    this.stmts = this.prepare();
  }

  private prepare() {
    // `R`: the row a reading statement returns (its `get`/`all`/`iterate` are typed by it, no cast per call).
    const s = <R = unknown>(sql: string): Statement<unknown[], R> => this.db.prepare<unknown[], R>(sql);
    return {
      meta: s<{ value: string }>(`SELECT value FROM _metadata WHERE key = ?`),
      setMeta: s(`INSERT INTO _metadata(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      bump: s(`UPDATE _metadata SET value = CAST(value AS INTEGER) + 1 WHERE key = ?`),
      insertEmbedding: s<{ id: number }>(`INSERT INTO embeddings(model_id, content_hash, vector, created_at) VALUES (?, ?, ?, ?)
                          ON CONFLICT(model_id, content_hash) DO NOTHING RETURNING id`),
      embeddingByHash: s<{ id: number; vector: Buffer }>(`SELECT id, vector FROM embeddings WHERE model_id = ? AND content_hash = ?`),
      rewriteEmbedding: s(`UPDATE embeddings SET vector = ?, created_at = ? WHERE id = ?`),
      insertVec: s(`INSERT INTO vec_embeddings(rowid, embedding) VALUES (?, ?)`),
      deleteVec: s(`DELETE FROM vec_embeddings WHERE rowid = ?`),
      deleteAssignments: s(`DELETE FROM node_embeddings WHERE node_id = ?`),
      insertAssignment: s(`INSERT INTO node_embeddings(node_id, window, embedding_id) VALUES (?, ?, ?)`),
      count: s<{ n: number }>(`SELECT COUNT(*) AS n FROM embeddings WHERE model_id = ?`),
      countAndMax: s<{ n: number; maxId: number | null }>(`SELECT COUNT(*) AS n, MAX(id) AS maxId FROM embeddings WHERE model_id = ?`),
      vectorsAfter: s<{ id: number; vector: Buffer }>(`SELECT id, vector FROM embeddings WHERE model_id = ? AND id > ? ORDER BY id`),
      // No join to embeddings: assignments to vectors the index does not hold (another model's)
      // are dropped by VectorIndex.setAssignments, and the primary key order is the node order.
      assignmentCount: s<number>(`SELECT COUNT(*) FROM node_embeddings`).pluck(),
      assignments: s(`SELECT node_id, window, embedding_id FROM node_embeddings ORDER BY node_id, window`),
      labelNodes: s<number>(`SELECT n.id FROM nodes n JOIN label_files lf ON lf.file_id = n.file_id WHERE ${labelEntriesCondition()}`),
      vecDims: s<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'vec_embeddings'`),
      vectorById: s<Buffer>(`SELECT vector FROM embeddings WHERE id = ?`).pluck(),
      snapshotParts: s<SnapshotRow>(`SELECT part, ids, inv_norm, f32, i8, bits FROM vector_snapshot_parts ORDER BY part`),
      deleteSnapshot: s(`DELETE FROM vector_snapshot_parts`),
      insertSnapshotPart: s(`INSERT INTO vector_snapshot_parts(part, ids, inv_norm, f32, i8, bits) VALUES (?, ?, ?, ?, ?, ?)`),
    };
  }

  // ── model ────────────────────────────────────────────────────────────────────────────────

  /** The model recorded in `_metadata`, or null before the first `ensureModel`. */
  model(): EmbeddingModel | null {
    const modelId = this.meta(META_MODEL);
    const revision = this.meta(META_REVISION);
    const dims = this.meta(META_DIMS);
    if (modelId === null || revision === null || dims === null) return null;
    return { modelId, revision, dims: Number(dims) };
  }

  /**
   * Records the model the vectors come from. A different model id, revision or dimension
   * discards every embedding and assignment and recreates the vec0 table with the new
   * dimension, in one transaction, so two models' vectors never mix; re-embedding then
   * resumes through `nodesNeedingEmbedding`. Returns whether existing vectors were discarded.
   */
  ensureModel(m: EmbeddingModel): { reset: boolean } {
    if (!m.modelId || !m.revision || !Number.isInteger(m.dims) || m.dims <= 0) {
      throw new CaError('usage', `invalid embedding model ${JSON.stringify(m)}`);
    }
    return this.db
      .transaction((): { reset: boolean } => {
        const current = this.model();
        this.declared = { modelId: m.modelId, revision: m.revision, dims: m.dims };
        if (current && sameModel(current, m)) return { reset: false };
        const stored = (cachedStatement(this.db, `SELECT COUNT(*) AS n FROM embeddings`).get() as { n: number }).n;
        const reset = current !== null || stored > 0;
        this.db.exec(`DELETE FROM node_embeddings; DELETE FROM embeddings;`);
        if (reset || this.vec0Dims() !== m.dims) {
          this.db.exec(`DROP TABLE IF EXISTS vec_embeddings;
                        CREATE VIRTUAL TABLE vec_embeddings USING vec0(embedding float[${m.dims}]);`);
        }
        this.stmts.setMeta.run(META_MODEL, m.modelId);
        this.stmts.setMeta.run(META_REVISION, m.revision);
        this.stmts.setMeta.run(META_DIMS, String(m.dims));
        this.bump(true);
        return { reset };
      })
      .immediate();
  }

  // ── writes ───────────────────────────────────────────────────────────────────────────────

  /** An object with @ca/embed's `EmbeddingCache` shape, for `embedWithCache`. */
  cache(): VectorCache {
    return {
      get: (hashes) => this.getByHashes(hashes),
      put: (entries) => {
        this.put(entries);
      },
    };
  }

  /**
   * Stores vectors by content hash in one transaction (embeddings + vec0). A hash already
   * stored keeps its row; if the vector differs it is rewritten (vec0 has no `OR REPLACE`:
   * delete + insert). Returns the embedding id of every hash.
   */
  put(entries: readonly { hash: string; vector: Float32Array }[]): Map<string, number> {
    const out = new Map<string, number>();
    if (entries.length === 0) return out;
    return this.db
      .transaction(() => {
        const model = this.requireModel();
        const key = modelKeyOf(model);
        const at = now();
        let rewrote = false;
        for (const { hash, vector } of entries) {
          if (vector.length !== model.dims) {
            throw new CaError('invalid_query', `vector of ${vector.length} dims for model ${key} (${model.dims} dims)`, {
              context: { hash },
            });
          }
          const blob = vectorToBlob(vector);
          const inserted = this.stmts.insertEmbedding.get(key, hash, blob, at);
          if (inserted) {
            this.stmts.insertVec.run(BigInt(inserted.id), blob);
            out.set(hash, inserted.id);
            continue;
          }
          const existing = this.stmts.embeddingByHash.get(key, hash)!;
          if (!existing.vector.equals(blob)) {
            this.stmts.rewriteEmbedding.run(blob, at, existing.id);
            this.stmts.deleteVec.run(BigInt(existing.id));
            this.stmts.insertVec.run(BigInt(existing.id), blob);
            rewrote = true;
          }
          out.set(hash, existing.id);
        }
        this.bump(rewrote);
        return out;
      })
      .immediate();
  }

  /** Replaces the vectors of one node (its windows); every hash must have been `put`. */
  assign(nodeId: number, windows: readonly WindowAssignment[]): void {
    this.assignMany([{ nodeId, windows }]);
  }

  /** `assign` for many nodes in one transaction. */
  assignMany(assignments: readonly { nodeId: number; windows: readonly WindowAssignment[] }[]): void {
    if (assignments.length === 0) return;
    this.db
      .transaction(() => {
        const key = modelKeyOf(this.requireModel());
        for (const { nodeId, windows } of assignments) {
          this.stmts.deleteAssignments.run(nodeId);
          for (const w of windows) {
            const row = this.stmts.embeddingByHash.get(key, w.hash);
            if (!row) {
              throw new CaError('not_found', `no embedding ${w.hash} for model ${key}: put it before assigning`, {
                context: { nodeId, hash: w.hash },
              });
            }
            this.stmts.insertAssignment.run(nodeId, w.window, row.id);
          }
        }
        this.bump(false);
      })
      .immediate();
  }

  /** Embeddings no node references (or of another model): what `gc` would delete. */
  orphanCount(): number {
    const model = this.model();
    return cachedPluck(this.db, `SELECT COUNT(*) FROM embeddings WHERE model_id IS NOT ? OR NOT EXISTS (SELECT 1 FROM node_embeddings ne WHERE ne.embedding_id = embeddings.id)`)
      .get(model ? modelKeyOf(model) : null) as number;
  }

  /** Deletes embeddings no node references (and any other model's); returns how many. */
  gc(): number {
    return this.db
      .transaction(() => {
        const model = this.model();
        const ids = cachedPluck(this.db, `DELETE FROM embeddings WHERE model_id IS NOT ?
               OR NOT EXISTS (SELECT 1 FROM node_embeddings ne WHERE ne.embedding_id = embeddings.id)
             RETURNING id`)
          .all(model ? modelKeyOf(model) : null) as number[];
        for (const id of ids) this.stmts.deleteVec.run(BigInt(id));
        if (ids.length > 0) this.bump(true);
        return ids.length;
      })
      .immediate();
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────

  /** Stored vectors of the current model for these hashes (absent hashes are left out). */
  getByHashes(hashes: readonly string[]): Map<string, Float32Array> {
    const out = new Map<string, Float32Array>();
    const model = this.model();
    if (!model || hashes.length === 0) return out;
    const key = modelKeyOf(model);
    for (const part of chunks([...new Set(hashes)], 500)) {
      const rows = cachedStatement(this.db, `SELECT content_hash, vector FROM embeddings WHERE model_id = ? AND content_hash IN (${part.map(() => '?').join(',')})`)
        .all(key, ...part) as { content_hash: string; vector: Buffer }[];
      for (const r of rows) out.set(r.content_hash, blobToVector(r.vector));
    }
    return out;
  }

  /** The vector of a node's first window (its main text), or null when it has none of the current model. */
  nodeVector(nodeId: number): Float32Array | null {
    const model = this.model();
    if (!model) return null;
    const row = cachedStatement(this.db, `SELECT e.vector FROM node_embeddings ne JOIN embeddings e ON e.id = ne.embedding_id WHERE ne.node_id = ? AND ne.window = 0 AND e.model_id = ?`)
      .get(nodeId, modelKeyOf(model)) as { vector: Buffer } | undefined;
    return row ? blobToVector(row.vector) : null;
  }

  /** Number of stored embeddings of the current model. */
  count(): number {
    const model = this.model();
    if (!model) return 0;
    return this.stmts.count.get(modelKeyOf(model))!.n;
  }

  /**
   * Nodes of the label without a vector of the current model (never embedded, embedded by
   * another model, or whose chunk changed since), in node id order: re-embedding resumes by
   * calling this until it returns nothing. `afterId` pages on past nodes still being embedded.
   */
  nodesNeedingEmbedding(
    label: string,
    limit: number,
    options: { kinds?: readonly string[]; afterId?: number } = {},
  ): NodeNeedingEmbedding[] {
    const model = this.model();
    const kinds = options.kinds ?? [];
    const rows = cachedStatement(this.db, `SELECT n.id AS nodeId, n.chunk_hash AS chunkHash, n.kind, n.language, n.name, n.qualified_name AS qualifiedName,
                n.signature, n.doc, n.chunk_text AS chunkText, lf.path, n.parent_id AS parentId
         FROM nodes n
         ${inLabelJoin('n.file_id')}
         WHERE NOT EXISTS (SELECT 1 FROM node_embeddings ne JOIN embeddings e ON e.id = ne.embedding_id
                           WHERE ne.node_id = n.id AND e.model_id = ?)
         ${kinds.length > 0 ? `AND n.kind IN (${kinds.map(() => '?').join(',')})` : ''}
         ${NOT_DOC}
         AND n.id > ?
         ORDER BY n.id LIMIT ?`)
      .all(label, model ? modelKeyOf(model) : null, ...kinds, options.afterId ?? 0, Math.max(0, Math.floor(limit))) as NodeNeedingEmbedding[];
    return rows;
  }

  /**
   * File and module nodes of the label that have a vector of the current model and import a
   * node without one (a node whose chunk changed, so its name or signature may have), with
   * the text hash their window 0 was built from. A file's embedding text lists the names its
   * import edges resolve to, which live in other files: the semantic pass rewrites those edges
   * without the importing file changing, so such a vector can be stale.
   */
  vectoredImportersOfPending(label: string): (NodeNeedingEmbedding & { readonly embeddedHash: string })[] {
    const model = this.model();
    if (!model) return [];
    return cachedStatement(this.db, `SELECT n.id AS nodeId, n.chunk_hash AS chunkHash, n.kind, n.language, n.name, n.qualified_name AS qualifiedName,
                n.signature, n.doc, n.chunk_text AS chunkText, lf.path, n.parent_id AS parentId, e.content_hash AS embeddedHash
         FROM nodes n
         ${inLabelJoin('n.file_id')}
         JOIN node_embeddings ne ON ne.node_id = n.id AND ne.window = 0
         JOIN embeddings e ON e.id = ne.embedding_id AND e.model_id = ?
         WHERE n.kind IN ('file', 'module')
           AND EXISTS (SELECT 1 FROM edges ed WHERE ed.source_id = n.id AND ed.type = 'imports' AND ed.target_id IS NOT NULL
                       AND NOT EXISTS (SELECT 1 FROM node_embeddings te JOIN embeddings tv ON tv.id = te.embedding_id
                                       WHERE te.node_id = ed.target_id AND tv.model_id = e.model_id))
         ORDER BY n.id`)
      .all(label, modelKeyOf(model)) as (NodeNeedingEmbedding & { readonly embeddedHash: string })[];
  }

  /** Drops the vectors of these nodes: `nodesNeedingEmbedding` returns them again. */
  unassign(nodeIds: readonly number[]): void {
    if (nodeIds.length === 0) return;
    this.db
      .transaction(() => {
        for (const id of nodeIds) this.stmts.deleteAssignments.run(id);
        this.bump(false);
      })
      .immediate();
  }

  /** How many nodes of the label `nodesNeedingEmbedding` would return (for progress totals). */
  countNodesNeedingEmbedding(label: string): number {
    const model = this.model();
    const row = cachedStatement(this.db, `SELECT COUNT(*) AS c FROM nodes n
         ${inLabelJoin('n.file_id')}
         WHERE NOT EXISTS (SELECT 1 FROM node_embeddings ne JOIN embeddings e ON e.id = ne.embedding_id
                           WHERE ne.node_id = n.id AND e.model_id = ?)
         ${NOT_DOC}`)
      .get(label, model ? modelKeyOf(model) : null) as { c: number };
    return row.c;
  }

  /**
   * The `k` nodes most similar (cosine) to `query`, one per node (its best window), among the
   * current model's vectors and the nodes the options allow. Returns exactly `k` hits when at
   * least `k` eligible nodes have vectors, however restrictive the filter.
   */
  knn(query: Float32Array, k: number, options: KnnOptions = {}): KnnHit[] {
    const model = this.model();
    if (!model) return [];
    if (query.length !== model.dims) {
      throw new CaError('invalid_query', `query vector has ${query.length} dims, the index holds ${model.dims}`);
    }
    if (!Number.isInteger(k) || k <= 0) return [];
    const allow = this.allowPredicate(options);
    if (this.opts.search === 'vec0') return this.knnVec0(model, query, k, allow);
    const index = this.refresh(model);
    return index.search(query, k, allow, options.rescore);
  }

  /**
   * `knn` among the nodes `check` accepts, asking it about the nearest nodes a batch at a time
   * instead of taking the set of every accepted node (a filter never seen before: computing its
   * whole set reads every node of the label). The answer is `knn` with `allow` = the accepted
   * nodes, exactly. `passRate`: the fraction of nodes expected to pass (sizes the batches);
   * `maxChecked`: how many nodes may be checked (default 16 × the candidates `knn` keeps) before
   * giving up with null — nodes near the query fail far more often than the rate said, and the
   * caller is better off computing the accepted set. Also null in `vec0` search mode.
   */
  knnChecked(
    query: Float32Array,
    k: number,
    check: NodeCheck,
    options: Omit<KnnOptions, 'allow'> & { readonly passRate: number; readonly maxChecked?: number },
  ): KnnHit[] | null {
    const model = this.model();
    if (!model) return [];
    if (query.length !== model.dims) {
      throw new CaError('invalid_query', `query vector has ${query.length} dims, the index holds ${model.dims}`);
    }
    if (!Number.isInteger(k) || k <= 0) return [];
    if (this.opts.search === 'vec0') return null;
    const index = this.refresh(model);
    const candidates = this.opts.coarse === 'float' ? k : Math.max(k * this.opts.rescoreFactor, options.rescore ?? this.opts.rescoreMin);
    return index.searchChecked(query, k, this.allowPredicate(options), check, {
      passRate: options.passRate,
      maxChecked: options.maxChecked ?? candidates * CHECKED_PER_CANDIDATE,
      ...(options.rescore !== undefined ? { rescore: options.rescore } : {}),
    });
  }

  /**
   * Builds or refreshes the in-memory index now (after a large embedding fill), so that its
   * persisted snapshot is written here rather than by the first search.
   */
  warm(): void {
    const model = this.model();
    if (model && this.opts.search !== 'vec0') this.refresh(model);
  }

  /**
   * The in-memory index's size, for status and the benchmark (null in `vec0` search mode);
   * `loaded`: vectors taken from the persisted snapshot and read from embedding rows since this
   * instance built its index.
   */
  indexStats(): { vectors: number; assignments: number; memoryBytes: number; loaded: { snapshot: number; rows: number } } | null {
    const model = this.model();
    if (!model || this.opts.search === 'vec0') return null;
    const index = this.refresh(model);
    return { vectors: index.vectorCount, assignments: index.assignmentCount, memoryBytes: index.memoryBytes(), loaded: { ...this.lastLoad } };
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────

  private meta(key: string): string | null {
    const row = this.stmts.meta.get(key);
    return row ? row.value : null;
  }

  /**
   * The model writes are for: the one declared through `ensureModel`, checked inside the write
   * transaction against `_metadata`, so a process still embedding with an old model cannot
   * write its vectors after another process switched the index to a new one.
   */
  private requireModel(): EmbeddingModel {
    const declared = this.declared;
    if (!declared) throw new CaError('model_unavailable', 'no embedding model declared: call ensureModel(model) on this VectorStore first');
    const current = this.model();
    if (!current || !sameModel(current, declared)) {
      throw new CaError(
        'model_unavailable',
        `the index's embedding model is now ${current ? modelKeyOf(current) : 'unset'}, not ${modelKeyOf(declared)}: vectors of two models never mix; re-run ensureModel and re-embed`,
      );
    }
    return current;
  }

  /** Every write bumps the generation; deletions and rewrites also the epoch (no incremental refresh). */
  private bump(epoch: boolean): void {
    this.stmts.bump.run(META_GENERATION);
    if (epoch) this.stmts.bump.run(META_EPOCH);
  }

  private vec0Dims(): number | null {
    const row = this.stmts.vecDims.get();
    const m = row ? /float\[(\d+)\]/.exec(row.sql) : null;
    return m ? Number(m[1]) : null;
  }

  /**
   * Brings the in-memory index up to date when the generation moved (one read snapshot). A new
   * index starts from the persisted snapshot when it matches (model, dims, mode, epoch) and
   * appends the vectors added since; when many rows had to be read and quantised, the snapshot
   * is rewritten afterwards (best effort).
   */
  private refresh(model: EmbeddingModel): VectorIndex {
    const key = modelKeyOf(model);
    const generation = this.meta(META_GENERATION) ?? '0';
    if (this.index && this.indexModelKey === key && generation === this.loadedGeneration) return this.index;
    let fromRows = 0;
    const index = this.db.transaction(() => {
      const gen = this.meta(META_GENERATION) ?? '0';
      const epoch = this.meta(META_EPOCH) ?? '0';
      let index = this.index;
      if (!index || this.indexModelKey !== key || epoch !== this.loadedEpoch || index.dims !== model.dims) {
        index = this.loadSnapshot(model, key, epoch) ?? this.newIndex(model);
        this.lastLoad = { snapshot: index.vectorCount, rows: 0 };
      }
      const { n, maxId } = this.stmts.countAndMax.get(key)!;
      const before = index.vectorCount;
      const after = before === 0 ? 0 : index.maxId;
      index.reserve(n);
      fromRows = this.appendVectorsAfter(index, key, after);
      // Ids normally only grow; if a new row reused a lower id (or rows vanished), start over.
      if (before + fromRows !== n || (maxId ?? 0) < after) {
        index = this.newIndex(model);
        index.reserve(n);
        fromRows = this.appendVectorsAfter(index, key, 0);
        this.lastLoad = { snapshot: 0, rows: 0 };
      }
      this.lastLoad = { snapshot: this.lastLoad.snapshot, rows: this.lastLoad.rows + fromRows };
      const total = this.stmts.assignmentCount.get()!;
      const nodes = new Int32Array(total);
      const windows = new Int32Array(total);
      const embeddingIds = new Float64Array(total);
      let i = 0;
      for (const r of this.stmts.assignments.raw().iterate() as IterableIterator<[number, number, number]>) {
        if (i === total) break;
        nodes[i] = r[0];
        windows[i] = r[1];
        embeddingIds[i] = r[2];
        i++;
      }
      index.setAssignments(nodes.subarray(0, i), windows.subarray(0, i), embeddingIds.subarray(0, i));
      this.index = index;
      this.indexModelKey = key;
      this.loadedGeneration = gen;
      this.loadedEpoch = epoch;
      return index;
    })();
    if (fromRows >= SNAPSHOT_MIN_NEW_ROWS && fromRows >= index.vectorCount * 0.1) this.saveSnapshot(index, key);
    return index;
  }

  /** A new index holding the persisted snapshot, when it belongs to this model, mode and epoch. */
  private loadSnapshot(model: EmbeddingModel, key: string, epoch: string): VectorIndex | null {
    const header = this.meta(META_SNAPSHOT);
    if (!header) return null;
    let h: SnapshotHeader;
    try {
      h = JSON.parse(header) as SnapshotHeader;
    } catch {
      // An unreadable header (a write cut short, an older format): no snapshot, the index is read from the embeddings.
      return null;
    }
    if (h.model !== key || h.epoch !== epoch || h.dims !== model.dims || h.mode !== this.opts.coarse) return null;
    // Copies, not views: better-sqlite3 buffers may be unaligned for the element size.
    const copy = <T>(b: Buffer | null, make: (ab: ArrayBuffer) => T): T | null => (b ? make(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer) : null);
    const index = this.newIndex(model);
    try {
      for (const r of this.stmts.snapshotParts.iterate()) {
        index.importRows({
          ids: copy(r.ids, (ab) => new Float64Array(ab))!,
          invNorm: copy(r.inv_norm, (ab) => new Float32Array(ab))!,
          f32: copy(r.f32, (ab) => new Float32Array(ab)),
          i8: copy(r.i8, (ab) => new Int8Array(ab)),
          bits: copy(r.bits, (ab) => new Uint8Array(ab)),
        });
      }
    } catch {
      // A damaged snapshot is ignored: the index is read from the embeddings instead.
      return null;
    }
    return index.vectorCount === h.count ? index : null;
  }

  /** Persists the index's rows as the snapshot (replacing the previous one); skipped when the database is busy. */
  private saveSnapshot(index: VectorIndex, key: string): void {
    // Never wait for another writer (the indexer): a search must not stall on the snapshot.
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.db
        .transaction(() => {
          // The snapshot must describe the epoch it was built in: give up if it moved meanwhile.
          if ((this.meta(META_EPOCH) ?? '0') !== this.loadedEpoch) return;
          this.stmts.deleteSnapshot.run();
          let part = 0;
          for (let from = 0; from < index.vectorCount; from += SNAPSHOT_PART_ROWS) {
            const rows = index.exportRows(from, Math.min(index.vectorCount, from + SNAPSHOT_PART_ROWS));
            const buf = (a: ArrayBufferView | null) => (a ? Buffer.from(a.buffer, a.byteOffset, a.byteLength) : null);
            this.stmts.insertSnapshotPart.run(part++, buf(rows.ids), buf(rows.invNorm), buf(rows.f32), buf(rows.i8), buf(rows.bits));
          }
          const header: SnapshotHeader = { model: key, epoch: this.loadedEpoch, dims: index.dims, mode: index.mode, count: index.vectorCount };
          this.stmts.setMeta.run(META_SNAPSHOT, JSON.stringify(header));
        })
        .immediate();
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY') || (e as { code?: string }).code === 'SQLITE_READONLY') return;
      throw e;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  /** Streams the model's vectors with id > `afterId` into the index in slices (peak memory stays one slice). */
  private appendVectorsAfter(index: VectorIndex, key: string, afterId: number): number {
    let batch: { id: number; vector: Float32Array }[] = [];
    let count = 0;
    for (const r of this.stmts.vectorsAfter.iterate(key, afterId)) {
      batch.push({ id: r.id, vector: blobToVector(r.vector) });
      if (batch.length === 4096) {
        index.appendVectors(batch);
        count += batch.length;
        batch = [];
      }
    }
    index.appendVectors(batch);
    return count + batch.length;
  }

  private newIndex(model: EmbeddingModel): VectorIndex {
    return new VectorIndex({
      dims: model.dims,
      mode: this.opts.coarse,
      rescoreMin: this.opts.rescoreMin,
      rescoreFactor: this.opts.rescoreFactor,
      floatCandidates: this.opts.floatCandidates,
      fetchFloat: (ids) => this.vectorsById(ids),
    });
  }

  private vectorsById(ids: readonly number[]): Map<number, Float32Array> {
    // One prepared point lookup per id: cheaper than preparing a fresh `IN (…)` per query.
    const out = new Map<number, Float32Array>();
    const stmt = this.stmts.vectorById;
    for (const id of ids) {
      const blob = stmt.get(id) as Buffer | undefined;
      if (blob) out.set(id, blobToVector(blob));
    }
    return out;
  }

  /** Combines `allow` and `label` into one predicate (null = every node). */
  private allowPredicate(options: KnnOptions): ((nodeId: number) => boolean) | null {
    const preds: ((nodeId: number) => boolean)[] = [];
    if (options.allow) {
      const allow = options.allow;
      preds.push(typeof allow === 'function' ? allow : (id) => allow.has(id));
    }
    if (options.label !== undefined) {
      const bitmap = this.labelNodes(options.label);
      preds.push((id) => id < bitmap.length && bitmap[id] === 1);
    }
    if (preds.length === 0) return null;
    if (preds.length === 1) return preds[0]!;
    return (id) => preds.every((p) => p(id));
  }

  /** Node ids of a label as a bitmap, cached until any connection writes to the database. */
  private labelNodes(label: string): Uint8Array {
    const stamp = changeStamp(this.db);
    if (this.labelCache && this.labelCache.label === label && this.labelCache.stamp === stamp) return this.labelCache.allowed;
    const ids = this.stmts.labelNodes.pluck().all(label);
    let max = 0;
    for (const id of ids) if (id > max) max = id;
    const allowed = new Uint8Array(ids.length === 0 ? 0 : max + 1);
    for (const id of ids) allowed[id] = 1;
    this.labelCache = { label, stamp, allowed };
    return allowed;
  }

  /**
   * sqlite-vec KNN: asks for more neighbours until the filter leaves `k` nodes; vec0 refuses
   * k > 4096, so past that an exact scan over the stored vectors takes over (never too few).
   */
  private knnVec0(model: EmbeddingModel, query: Float32Array, k: number, allow: ((nodeId: number) => boolean) | null): KnnHit[] {
    const key = modelKeyOf(model);
    const blob = vectorToBlob(query);
    const total = (this.stmts.count.get(key) as { n: number }).n;
    let fetch = Math.min(VEC0_MAX_K, Math.max(k * 2, 32));
    for (;;) {
      const rows = cachedRaw(this.db, `SELECT ne.node_id, ne.window, v.distance FROM
             (SELECT rowid, distance FROM vec_embeddings WHERE embedding MATCH ? AND k = ?) v
           JOIN embeddings e ON e.id = v.rowid AND e.model_id = ?
           JOIN node_embeddings ne ON ne.embedding_id = e.id
           ORDER BY v.distance, ne.node_id, ne.window`)
        .all(blob, fetch, key) as [number, number, number][];
      const hits = bestPerNode(rows, allow, (d) => 1 - (d * d) / 2);
      if (hits.length >= k || fetch >= total) return hits.slice(0, k);
      if (fetch >= VEC0_MAX_K) break;
      fetch = Math.min(VEC0_MAX_K, fetch * 4);
    }
    const rows = cachedRaw(this.db, `SELECT ne.node_id, ne.window, vec_distance_cosine(e.vector, ?) AS d FROM node_embeddings ne
         JOIN embeddings e ON e.id = ne.embedding_id AND e.model_id = ?
         ORDER BY d, ne.node_id, ne.window`)
      .all(blob, key) as [number, number, number][];
    return bestPerNode(rows, allow, (d) => 1 - d).slice(0, k);
  }
}

/** Rows sorted by ascending distance → first (best) row per eligible node. */
function bestPerNode(
  rows: readonly [number, number, number][],
  allow: ((nodeId: number) => boolean) | null,
  toScore: (distance: number) => number,
): KnnHit[] {
  const seen = new Set<number>();
  const hits: KnnHit[] = [];
  for (const [nodeId, window, distance] of rows) {
    if (seen.has(nodeId)) continue;
    seen.add(nodeId);
    if (allow !== null && !allow(nodeId)) continue;
    hits.push({ nodeId, score: toScore(distance), window });
  }
  return hits;
}
