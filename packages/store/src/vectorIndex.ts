/**
 * The in-memory nearest-neighbour scan behind `VectorStore.knn`: a contiguous matrix of the
 * current model's vectors plus the (node, window) → vector assignments, scanned exactly or
 * through a quantised coarse pass whose best candidates are re-scored with float32.
 * docs/decisions/004-vector-search.md has the measurements behind the modes and the default.
 */

/**
 * How the first pass scores vectors.
 * - `float`: exact float32 dot products over the whole matrix (no second pass).
 * - `int8`: per-vector int8 (largest component ±127), cosine on the int8 vectors.
 * - `binary`: sign bits, Hamming distance.
 * - `binary-lut`: sign bits scored against the float query (asymmetric: Σ q_i·bit_i through a
 *   per-query 256-entry table per byte), which ranks far better than Hamming at the same cost.
 * - `binary-lut-int8`: `binary-lut`, then the candidates re-ranked with in-memory int8 vectors,
 *   and only the best few of those re-scored with float32 read from SQLite (point reads, not
 *   the scan, are what the float stage costs).
 */
export type CoarseMode = 'float' | 'int8' | 'binary' | 'binary-lut' | 'binary-lut-int8';

/** One row of the result: the node, its cosine similarity, the window that matched best. */
export interface KnnHit {
  readonly nodeId: number;
  readonly score: number;
  readonly window: number;
}

/** Fetches float vectors by embedding id (quantised modes keep no float copy in memory). */
export type FloatFetcher = (embeddingIds: readonly number[]) => Map<number, Float32Array>;

export interface VectorIndexOptions {
  readonly dims: number;
  readonly mode: CoarseMode;
  /** Quantised modes: how many candidate nodes get float re-scoring, at least (`max(k × factor, this)`). */
  readonly rescoreMin: number;
  readonly rescoreFactor: number;
  /** `binary-lut-int8`: nodes re-scored with float32 after the int8 stage, at least (`max(k × 3, this)`). */
  readonly floatCandidates: number;
  readonly fetchFloat: FloatFetcher;
}

/** Raw rows of a `VectorIndex` (arrays a mode does not keep are null). */
export interface IndexRows {
  readonly ids: Float64Array;
  readonly invNorm: Float32Array;
  readonly f32: Float32Array | null;
  readonly i8: Int8Array | null;
  readonly bits: Uint8Array | null;
}

/** A growable typed array: appending a refresh's new vectors never copies the whole matrix twice. */
function grow<T extends Float32Array | Int8Array | Uint8Array | Float64Array>(arr: T, needed: number, make: (n: number) => T): T {
  if (needed <= arr.length) return arr;
  const next = make(Math.max(needed, Math.ceil(arr.length * 1.5), 1024));
  next.set(arr);
  return next;
}

/** Which of a batch of node ids a filter accepts (one question for the whole batch). */
export type NodeCheck = (nodeIds: readonly number[]) => { has(nodeId: number): boolean };

/**
 * Min-heap of (score, item, payload) keeping the `capacity` best entries: the highest scores,
 * the lowest item on equal scores — so which of several equal scores are kept does not depend
 * on the order they came in, or on the capacity.
 */
class TopHeap {
  readonly scores: Float64Array;
  readonly items: Int32Array;
  readonly extra: Int32Array;
  size = 0;
  /** Entries offered (`scan`: the nodes eligible), kept or not. */
  eligible = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.items = new Int32Array(capacity);
    this.extra = new Int32Array(capacity);
  }

  /** The score a new entry must reach once the heap is full (equal to it, a lower item wins). */
  get floor(): number {
    return this.size < this.capacity ? -Infinity : this.scores[0]!;
  }

  /** Whether entry `i` ranks below (score, item). */
  private below(i: number, score: number, item: number): boolean {
    const s = this.scores[i]!;
    return s < score || (s === score && this.items[i]! > item);
  }

  push(score: number, item: number, extra: number): void {
    const { scores, items } = this;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.below(p, score, item)) break;
        scores[i] = scores[p]!;
        items[i] = items[p]!;
        this.extra[i] = this.extra[p]!;
        i = p;
      }
      scores[i] = score;
      items[i] = item;
      this.extra[i] = extra;
      return;
    }
    if (!this.below(0, score, item)) return;
    // Replace the root and sift down.
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.below(r, scores[l]!, items[l]!) ? r : l;
      if (!this.below(c, score, item)) break;
      scores[i] = scores[c]!;
      items[i] = items[c]!;
      this.extra[i] = this.extra[c]!;
      i = c;
    }
    scores[i] = score;
    items[i] = item;
    this.extra[i] = extra;
  }
}

/**
 * Vectors (one matrix row per embedding) and assignments (one row per node window, sorted by
 * node) of one model. Mutated only by `appendVectors` / `setAssignments`; searches are pure.
 */
export class VectorIndex {
  readonly dims: number;
  readonly mode: CoarseMode;
  private readonly bytesPerBits: number;
  /** Which quantised forms the mode scans (and so keeps in memory). */
  private readonly keepsInt8: boolean;
  private readonly keepsBits: boolean;
  private readonly options: VectorIndexOptions;

  /** Embedding ids by matrix row, and the reverse. */
  private ids = new Float64Array(0);
  private rowOfId = new Map<number, number>();
  vectorCount = 0;
  private f32 = new Float32Array(0);
  private invNorm = new Float32Array(0);
  private i8 = new Int8Array(0);
  private bits = new Uint8Array(0);

  /** Assignment rows, sorted by node id then window. */
  private rowNode = new Int32Array(0);
  private rowWindow = new Int32Array(0);
  private rowVec = new Int32Array(0);
  assignmentCount = 0;
  /** Per-vector scores of the current query (reused: one search at a time per index). */
  private scratch = new Float32Array(0);

  constructor(options: VectorIndexOptions) {
    this.options = options;
    this.dims = options.dims;
    this.mode = options.mode;
    this.bytesPerBits = Math.ceil(options.dims / 8);
    this.keepsInt8 = options.mode === 'int8' || options.mode === 'binary-lut-int8';
    this.keepsBits = options.mode === 'binary' || options.mode === 'binary-lut' || options.mode === 'binary-lut-int8';
  }

  /** Sizes the arrays for `total` vectors up front (a full load then allocates once). */
  reserve(total: number): void {
    const d = this.dims;
    const exact = <T extends Float32Array | Int8Array | Uint8Array | Float64Array>(arr: T, n: number, make: (n: number) => T): T => {
      if (n <= arr.length) return arr;
      const next = make(n);
      next.set(arr);
      return next;
    };
    this.ids = exact(this.ids, total, (m) => new Float64Array(m));
    this.invNorm = exact(this.invNorm, total, (m) => new Float32Array(m));
    if (this.mode === 'float') this.f32 = exact(this.f32, total * d, (m) => new Float32Array(m));
    if (this.keepsInt8) this.i8 = exact(this.i8, total * d, (m) => new Int8Array(m));
    if (this.keepsBits) this.bits = exact(this.bits, total * this.bytesPerBits, (m) => new Uint8Array(m));
  }

  /** Adds vectors (ids must be new). Keeps only what the mode scans. */
  appendVectors(batch: readonly { id: number; vector: Float32Array }[]): void {
    const d = this.dims;
    const n = this.vectorCount + batch.length;
    this.ids = grow(this.ids, n, (m) => new Float64Array(m));
    this.invNorm = grow(this.invNorm, n, (m) => new Float32Array(m));
    if (this.mode === 'float') this.f32 = grow(this.f32, n * d, (m) => new Float32Array(m));
    const { keepsInt8, keepsBits } = this;
    if (keepsInt8) this.i8 = grow(this.i8, n * d, (m) => new Int8Array(m));
    if (keepsBits) this.bits = grow(this.bits, n * this.bytesPerBits, (m) => new Uint8Array(m));
    const bpb = this.bytesPerBits;
    for (const { id, vector } of batch) {
      const row = this.vectorCount++;
      this.ids[row] = id;
      this.rowOfId.set(id, row);
      if (this.mode === 'float') {
        let norm = 0;
        for (let i = 0; i < d; i++) norm += vector[i]! * vector[i]!;
        this.f32.set(vector, row * d);
        this.invNorm[row] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      }
      if (keepsInt8) {
        let maxAbs = 0;
        for (let i = 0; i < d; i++) {
          const a = vector[i]! < 0 ? -vector[i]! : vector[i]!;
          if (a > maxAbs) maxAbs = a;
        }
        const scale = maxAbs > 0 ? 127 / maxAbs : 0;
        const base = row * d;
        let qn = 0;
        for (let i = 0; i < d; i++) {
          // Round half away from zero (|x| ≤ 127, so the int32 truncation is exact).
          const x = vector[i]! * scale;
          const q = x < 0 ? (x - 0.5) | 0 : (x + 0.5) | 0;
          this.i8[base + i] = q;
          qn += q * q;
        }
        this.invNorm[row] = qn > 0 ? 1 / Math.sqrt(qn) : 0;
      }
      if (keepsBits) {
        const o = row * bpb;
        for (let b = 0; b < bpb; b++) {
          let byte = 0;
          const i0 = b << 3;
          for (let j = 0; j < 8 && i0 + j < d; j++) if (vector[i0 + j]! > 0) byte |= 1 << j;
          this.bits[o + b] = byte;
        }
      }
    }
  }

  /**
   * Rows `[from, to)` as raw arrays (copies): what `importRows` needs to rebuild them without
   * re-quantising (the persisted snapshot of `VectorStore`).
   */
  exportRows(from: number, to: number): IndexRows {
    const d = this.dims;
    const b = this.bytesPerBits;
    return {
      ids: this.ids.slice(from, to),
      invNorm: this.invNorm.slice(from, to),
      f32: this.mode === 'float' ? this.f32.slice(from * d, to * d) : null,
      i8: this.keepsInt8 ? this.i8.slice(from * d, to * d) : null,
      bits: this.keepsBits ? this.bits.slice(from * b, to * b) : null,
    };
  }

  /** Appends rows exported by an index of the same dims and mode (ids must be new and ascending). */
  importRows(rows: IndexRows): void {
    const n = rows.ids.length;
    const d = this.dims;
    const b = this.bytesPerBits;
    const need = (arr: Float32Array | Int8Array | Uint8Array | null, per: number, what: string) => {
      if (!arr || arr.length !== n * per) throw new Error(`snapshot rows: ${what} has ${arr ? arr.length : 'no'} values for ${n} rows`);
    };
    const { keepsInt8, keepsBits } = this;
    if (rows.invNorm.length !== n) throw new Error('snapshot rows: invNorm length');
    if (this.mode === 'float') need(rows.f32, d, 'f32');
    if (keepsInt8) need(rows.i8, d, 'i8');
    if (keepsBits) need(rows.bits, b, 'bits');
    const start = this.vectorCount;
    const total = start + n;
    this.ids = grow(this.ids, total, (m) => new Float64Array(m));
    this.invNorm = grow(this.invNorm, total, (m) => new Float32Array(m));
    this.ids.set(rows.ids, start);
    this.invNorm.set(rows.invNorm, start);
    if (this.mode === 'float') (this.f32 = grow(this.f32, total * d, (m) => new Float32Array(m))).set(rows.f32!, start * d);
    if (keepsInt8) (this.i8 = grow(this.i8, total * d, (m) => new Int8Array(m))).set(rows.i8!, start * d);
    if (keepsBits) (this.bits = grow(this.bits, total * b, (m) => new Uint8Array(m))).set(rows.bits!, start * b);
    for (let i = 0; i < n; i++) this.rowOfId.set(rows.ids[i]!, start + i);
    this.vectorCount = total;
  }

  /** Replaces the assignments; rows must be sorted by node id, then window. Unknown vectors are skipped. */
  setAssignments(nodeIds: ArrayLike<number>, windows: ArrayLike<number>, embeddingIds: ArrayLike<number>): void {
    const n = nodeIds.length;
    const rowNode = new Int32Array(n);
    const rowWindow = new Int32Array(n);
    const rowVec = new Int32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const row = this.rowOfId.get(embeddingIds[i]!);
      if (row === undefined) continue;
      rowNode[m] = nodeIds[i]!;
      rowWindow[m] = windows[i]!;
      rowVec[m] = row;
      m++;
    }
    this.rowNode = rowNode.subarray(0, m);
    this.rowWindow = rowWindow.subarray(0, m);
    this.rowVec = rowVec.subarray(0, m);
    this.assignmentCount = m;
  }

  /** The largest embedding id loaded (refreshes append ids above it). */
  get maxId(): number {
    return this.vectorCount === 0 ? 0 : this.ids[this.vectorCount - 1]!;
  }

  /** Bytes held by the typed arrays (the id → row map is estimated at 40 bytes an entry). */
  memoryBytes(): number {
    return (
      this.ids.byteLength +
      this.invNorm.byteLength +
      this.f32.byteLength +
      this.i8.byteLength +
      this.bits.byteLength +
      this.rowNode.byteLength * 3 +
      this.scratch.byteLength +
      this.rowOfId.size * 40
    );
  }

  /**
   * The `k` nodes whose best window is nearest `query` (cosine), among nodes passing `allow`.
   * Exact for `float`; quantised modes re-score `max(k × rescoreFactor, rescoreMin)` candidate
   * nodes (for `binary-lut-int8`: narrowed by int8 to `max(k × 3, floatCandidates)` first) with
   * float32, so the result has exactly min(k, eligible nodes) entries either way.
   */
  search(query: Float32Array, k: number, allow: ((nodeId: number) => boolean) | null, rescore?: number): KnnHit[] {
    if (k <= 0 || this.assignmentCount === 0) return [];
    const { scores, qInv } = this.score(query);
    const need = this.firstPassSize(k, rescore);
    const heap = this.scan(need, allow, scores);
    if (this.mode === 'float') return this.finish(heap, qInv);
    return this.refine(Array.from(heap.items.subarray(0, heap.size)), query, qInv, k);
  }

  /**
   * `search` among the nodes `check` accepts, without the set of every accepted node: the
   * first pass walks the nearest nodes (those `allow` passes) best first and asks `check` about
   * them a batch at a time, until it has as many accepted candidates as `search` keeps. The
   * answer is `search(query, k, accepted)`'s, exactly; the cost is the nodes checked, which
   * `passRate` (the expected fraction accepted) sizes. Returns null when fewer than that many
   * are accepted among the `maxChecked` nearest (nodes near the query fail far more often than
   * the rate said): the caller then passes the accepted set to `search`.
   */
  searchChecked(
    query: Float32Array,
    k: number,
    allow: ((nodeId: number) => boolean) | null,
    check: NodeCheck,
    options: { readonly passRate: number; readonly maxChecked: number; readonly rescore?: number },
  ): KnnHit[] | null {
    if (k <= 0 || this.assignmentCount === 0) return [];
    const { scores, qInv } = this.score(query);
    const need = this.firstPassSize(k, options.rescore);
    const maxChecked = Math.max(need, Math.floor(options.maxChecked));
    let rate = Math.min(1, Math.max(options.passRate, 1 / 64));
    const starts: number[] = [];
    const bestRows: number[] = [];
    const bestScores: number[] = [];
    let checked = 0;
    // Nearest nodes first: a heap of `capacity`, sorted, widened (×4) while too few were accepted.
    let capacity = Math.min(maxChecked, Math.ceil((need / rate) * 1.5) + 64);
    for (;;) {
      const heap = this.scan(capacity, allow, scores);
      const order = sortedEntries(heap);
      while (checked < order.length && starts.length < need) {
        // Enough for the candidates still missing at the rate seen so far, with a margin.
        const size = Math.max(64, Math.ceil(((need - starts.length) / rate) * 1.2));
        const batch = order.slice(checked, checked + size);
        const ids = batch.map((e) => this.rowNode[heap.items[e]!]!);
        const accepted = check(ids);
        for (let i = 0; i < batch.length && starts.length < need; i++) {
          if (!accepted.has(ids[i]!)) continue;
          const e = batch[i]!;
          starts.push(heap.items[e]!);
          bestRows.push(heap.extra[e]!);
          bestScores.push(heap.scores[e]!);
        }
        checked += batch.length;
        rate = Math.max(starts.length / checked, 1 / 64);
      }
      // Enough, or every eligible node was checked: the answer is exact.
      if (starts.length >= need || checked >= heap.eligible) break;
      if (capacity >= maxChecked) return null;
      capacity = Math.min(maxChecked, capacity * 4);
    }
    if (this.mode === 'float') {
      return starts.map((_, i) => ({ nodeId: this.rowNode[bestRows[i]!]!, score: bestScores[i]! * qInv, window: this.rowWindow[bestRows[i]!]! }));
    }
    return this.refine(starts, query, qInv, k);
  }

  /** Scores every vector against the query (into the reused scratch array). */
  private score(query: Float32Array): { scores: Float32Array; qInv: number } {
    let qn = 0;
    for (let i = 0; i < this.dims; i++) qn += query[i]! * query[i]!;
    if (this.scratch.length < this.vectorCount) this.scratch = new Float32Array(this.ids.length);
    this.denseScores(query, this.scratch);
    return { scores: this.scratch, qInv: qn > 0 ? 1 / Math.sqrt(qn) : 0 };
  }

  /**
   * How many nodes the first pass keeps: `k` for the exact `float` mode, else the candidates
   * re-scored (`max(k × rescoreFactor, rescore)`). Never more than the assignment rows (a huge k
   * must not allocate k × factor).
   */
  private firstPassSize(k: number, rescore: number | undefined): number {
    const n = this.mode === 'float' ? k : Math.max(k * this.options.rescoreFactor, rescore ?? this.options.rescoreMin);
    return Math.max(1, Math.min(n, this.assignmentCount));
  }

  /**
   * Quantised modes: the first pass's candidates (by first assignment row) re-scored, narrowed
   * by int8 first for `binary-lut-int8`. In row order, so that ties break alike however the
   * candidates were found.
   */
  private refine(starts: number[], query: Float32Array, qInv: number, k: number): KnnHit[] {
    starts.sort((a, b) => a - b);
    if (this.mode === 'binary-lut-int8') starts = this.narrowInt8(starts, query, Math.max(k * 3, this.options.floatCandidates));
    return this.rescore(starts, query, qInv, k);
  }

  /** Walks the node-sorted assignments once; keeps the best window per node in a top-`capacity` heap. */
  private scan(capacity: number, allow: ((nodeId: number) => boolean) | null, scores: Float32Array): TopHeap {
    const heap = new TopHeap(capacity);
    const { rowNode, rowVec } = this;
    const n = this.assignmentCount;
    let r = 0;
    while (r < n) {
      const node = rowNode[r]!;
      const start = r;
      let end = r + 1;
      while (end < n && rowNode[end] === node) end++;
      r = end;
      if (allow !== null && !allow(node)) continue;
      heap.eligible++;
      let best = -Infinity;
      let bestRow = start;
      for (let i = start; i < end; i++) {
        const s = scores[rowVec[i]!]!;
        if (s > best) {
          best = s;
          bestRow = i;
        }
      }
      if (best >= heap.floor) heap.push(best, start, bestRow);
    }
    return heap;
  }

  /** Sorts the heap into hits (score descending, node id ascending on ties). */
  private finish(heap: TopHeap, qInv: number): KnnHit[] {
    const hits: KnnHit[] = [];
    for (let i = 0; i < heap.size; i++) {
      const bestRow = heap.extra[i]!;
      hits.push({ nodeId: this.rowNode[bestRow]!, score: heap.scores[i]! * qInv, window: this.rowWindow[bestRow]! });
    }
    return hits.sort((a, b) => b.score - a.score || a.nodeId - b.nodeId);
  }

  /** Keeps the `keep` candidate nodes (by first assignment row) whose best window has the highest int8 cosine. */
  private narrowInt8(starts: number[], query: Float32Array, keep: number): number[] {
    if (starts.length <= keep) return starts;
    const d = this.dims;
    let maxAbs = 0;
    for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs(query[i]!));
    const scale = maxAbs > 0 ? 127 / maxAbs : 0;
    const q = new Int32Array(d);
    for (let i = 0; i < d; i++) q[i] = Math.round(query[i]! * scale);
    const m = this.i8;
    const heap = new TopHeap(keep);
    for (const start of starts) {
      const node = this.rowNode[start]!;
      let best = -Infinity;
      for (let r = start; r < this.assignmentCount && this.rowNode[r] === node; r++) {
        const row = this.rowVec[r]!;
        const o = row * d;
        let s = 0;
        for (let i = 0; i < d; i++) s = (s + q[i]! * m[o + i]!) | 0;
        const c = s * this.invNorm[row]!;
        if (c > best) best = c;
      }
      heap.push(best, start, 0);
    }
    return Array.from(heap.items.subarray(0, heap.size));
  }

  private rescore(starts: readonly number[], query: Float32Array, qInv: number, k: number): KnnHit[] {
    const needed = new Set<number>();
    for (const start of starts) {
      for (let r = start; r < this.assignmentCount && this.rowNode[r] === this.rowNode[start]; r++) {
        needed.add(this.ids[this.rowVec[r]!]!);
      }
    }
    const floats = this.options.fetchFloat([...needed]);
    const hits: KnnHit[] = [];
    for (const start of starts) {
      const node = this.rowNode[start]!;
      let best = -Infinity;
      let window = 0;
      for (let r = start; r < this.assignmentCount && this.rowNode[r] === node; r++) {
        const v = floats.get(this.ids[this.rowVec[r]!]!);
        if (!v) continue;
        let dot = 0;
        let vn = 0;
        for (let i = 0; i < this.dims; i++) {
          dot += query[i]! * v[i]!;
          vn += v[i]! * v[i]!;
        }
        const s = vn > 0 ? (dot * qInv) / Math.sqrt(vn) : 0;
        if (s > best) {
          best = s;
          window = this.rowWindow[r]!;
        }
      }
      if (best > -Infinity) hits.push({ nodeId: node, score: best, window });
    }
    hits.sort((a, b) => b.score - a.score || a.nodeId - b.nodeId);
    return hits.slice(0, k);
  }

  /** Scores every vector into `out` (one tight pass over contiguous memory, no per-row calls). */
  private denseScores(query: Float32Array, out: Float32Array): void {
    const n = this.vectorCount;
    const d = this.dims;
    if (this.mode === 'float') {
      const m = this.f32;
      const inv = this.invNorm;
      const d4 = d - (d % 4);
      for (let row = 0, o = 0; row < n; row++, o += d) {
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        let i = 0;
        for (; i < d4; i += 4) {
          s0 += query[i]! * m[o + i]!;
          s1 += query[i + 1]! * m[o + i + 1]!;
          s2 += query[i + 2]! * m[o + i + 2]!;
          s3 += query[i + 3]! * m[o + i + 3]!;
        }
        for (; i < d; i++) s0 += query[i]! * m[o + i]!;
        out[row] = (s0 + s1 + s2 + s3) * inv[row]!;
      }
    } else if (this.mode === 'int8') {
      let maxAbs = 0;
      for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs(query[i]!));
      const scale = maxAbs > 0 ? 127 / maxAbs : 0;
      const q = new Int32Array(d);
      for (let i = 0; i < d; i++) q[i] = Math.round(query[i]! * scale);
      const m = this.i8;
      const inv = this.invNorm;
      const d4 = d - (d % 4);
      for (let row = 0, o = 0; row < n; row++, o += d) {
        let s0 = 0;
        let s1 = 0;
        let i = 0;
        for (; i < d4; i += 4) {
          s0 = (s0 + q[i]! * m[o + i]! + q[i + 1]! * m[o + i + 1]!) | 0;
          s1 = (s1 + q[i + 2]! * m[o + i + 2]! + q[i + 3]! * m[o + i + 3]!) | 0;
        }
        for (; i < d; i++) s0 = (s0 + q[i]! * m[o + i]!) | 0;
        out[row] = (s0 + s1) * inv[row]!;
      }
    } else if (this.mode === 'binary') {
      const b = this.bytesPerBits;
      const qb = new Uint8Array(b);
      for (let i = 0; i < d; i++) if (query[i]! > 0) qb[i >> 3]! |= 1 << (i & 7);
      const pop = POPCOUNT8;
      const m = this.bits;
      for (let row = 0, o = 0; row < n; row++, o += b) {
        let h = 0;
        for (let j = 0; j < b; j++) h += pop[qb[j]! ^ m[o + j]!]!;
        out[row] = -h;
      }
    } else {
      const b = this.bytesPerBits;
      // table[j*256 + byte] = Σ query components whose bit is set in `byte` at byte position j
      // (float32: 48 KB for 384 dims, small enough to stay in L1/L2 during the scan).
      const table = new Float32Array(b * 256);
      for (let j = 0; j < b; j++) {
        for (let byte = 1; byte < 256; byte++) {
          const low = byte & -byte;
          const dim = j * 8 + (31 - Math.clz32(low));
          table[j * 256 + byte] = table[j * 256 + (byte ^ low)]! + (dim < d ? query[dim]! : 0);
        }
      }
      const m = this.bits;
      for (let row = 0, o = 0; row < n; row++, o += b) {
        let s0 = 0;
        let s1 = 0;
        let j = 0;
        for (; j + 1 < b; j += 2) {
          s0 += table[(j << 8) | m[o + j]!]!;
          s1 += table[((j + 1) << 8) | m[o + j + 1]!]!;
        }
        if (j < b) s0 += table[(j << 8) | m[o + j]!]!;
        out[row] = s0 + s1;
      }
    }
  }
}

/**
 * A scan's heap entries best first: score descending, then first assignment row (so node id)
 * ascending — the order in which a heap of any smaller capacity would have kept them.
 */
function sortedEntries(heap: TopHeap): number[] {
  const order = Array.from({ length: heap.size }, (_, i) => i);
  const { scores, items } = heap;
  return order.sort((a, b) => scores[b]! - scores[a]! || items[a]! - items[b]!);
}

const POPCOUNT8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 1; i < 256; i++) t[i] = (i & 1) + t[i >> 1]!;
  return t;
})();
