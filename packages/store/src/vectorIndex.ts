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
 */
export type CoarseMode = 'float' | 'int8' | 'binary' | 'binary-lut';

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
  readonly fetchFloat: FloatFetcher;
}

/** A growable typed array: appending a refresh's new vectors never copies the whole matrix twice. */
function grow<T extends Float32Array | Int8Array | Uint8Array | Float64Array>(arr: T, needed: number, make: (n: number) => T): T {
  if (needed <= arr.length) return arr;
  const next = make(Math.max(needed, Math.ceil(arr.length * 1.5), 1024));
  next.set(arr);
  return next;
}

/** Min-heap of (score, payload) keeping the `capacity` largest scores. */
class TopHeap {
  readonly scores: Float64Array;
  readonly items: Int32Array;
  readonly extra: Int32Array;
  size = 0;

  constructor(readonly capacity: number) {
    this.scores = new Float64Array(capacity);
    this.items = new Int32Array(capacity);
    this.extra = new Int32Array(capacity);
  }

  /** The score a new entry must beat once the heap is full. */
  get floor(): number {
    return this.size < this.capacity ? -Infinity : this.scores[0]!;
  }

  push(score: number, item: number, extra: number): void {
    const { scores, items } = this;
    if (this.size < this.capacity) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (scores[p]! <= score) break;
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
    if (score <= scores[0]!) return;
    // Replace the root and sift down.
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && scores[r]! < scores[l]! ? r : l;
      if (scores[c]! >= score) break;
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

  constructor(options: VectorIndexOptions) {
    this.options = options;
    this.dims = options.dims;
    this.mode = options.mode;
    this.bytesPerBits = Math.ceil(options.dims / 8);
  }

  /** Adds vectors (ids must be new). Keeps only what the mode scans. */
  appendVectors(batch: readonly { id: number; vector: Float32Array }[]): void {
    const d = this.dims;
    const n = this.vectorCount + batch.length;
    this.ids = grow(this.ids, n, (m) => new Float64Array(m));
    this.invNorm = grow(this.invNorm, n, (m) => new Float32Array(m));
    if (this.mode === 'float') this.f32 = grow(this.f32, n * d, (m) => new Float32Array(m));
    if (this.mode === 'int8') this.i8 = grow(this.i8, n * d, (m) => new Int8Array(m));
    if (this.mode === 'binary' || this.mode === 'binary-lut') this.bits = grow(this.bits, n * this.bytesPerBits, (m) => new Uint8Array(m));
    for (const { id, vector } of batch) {
      const row = this.vectorCount++;
      this.ids[row] = id;
      this.rowOfId.set(id, row);
      let norm = 0;
      for (let i = 0; i < d; i++) norm += vector[i]! * vector[i]!;
      if (this.mode === 'float') {
        this.f32.set(vector, row * d);
        this.invNorm[row] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      } else if (this.mode === 'int8') {
        let maxAbs = 0;
        for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs(vector[i]!));
        const scale = maxAbs > 0 ? 127 / maxAbs : 0;
        let qn = 0;
        for (let i = 0; i < d; i++) {
          const x = vector[i]! * scale;
          const q = Math.sign(x) * Math.round(Math.abs(x));
          this.i8[row * d + i] = q;
          qn += q * q;
        }
        this.invNorm[row] = qn > 0 ? 1 / Math.sqrt(qn) : 0;
      } else {
        const o = row * this.bytesPerBits;
        this.bits.fill(0, o, o + this.bytesPerBits);
        for (let i = 0; i < d; i++) if (vector[i]! > 0) this.bits[o + (i >> 3)]! |= 1 << (i & 7);
      }
    }
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
      this.rowOfId.size * 40
    );
  }

  /**
   * The `k` nodes whose best window is nearest `query` (cosine), among nodes passing `allow`.
   * Exact for `float`; quantised modes re-score `max(k × rescoreFactor, rescoreMin)` candidate
   * nodes with float32, so the result has exactly min(k, eligible nodes) entries either way.
   */
  search(query: Float32Array, k: number, allow: ((nodeId: number) => boolean) | null, rescore?: number): KnnHit[] {
    if (k <= 0 || this.assignmentCount === 0) return [];
    let qn = 0;
    for (let i = 0; i < this.dims; i++) qn += query[i]! * query[i]!;
    const qInv = qn > 0 ? 1 / Math.sqrt(qn) : 0;
    if (this.mode === 'float') {
      const heap = this.scan(k, allow, this.floatScorer(query));
      return this.finish(heap, qInv);
    }
    const candidates = Math.max(k * this.options.rescoreFactor, rescore ?? this.options.rescoreMin);
    const scorer =
      this.mode === 'int8' ? this.int8Scorer(query) : this.mode === 'binary' ? this.hammingScorer(query) : this.lutScorer(query);
    const heap = this.scan(candidates, allow, scorer);
    return this.rescore(heap, query, qInv, k);
  }

  /** Walks the node-sorted assignments once; keeps the best window per node in a top-`capacity` heap. */
  private scan(capacity: number, allow: ((nodeId: number) => boolean) | null, score: (row: number) => number): TopHeap {
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
      let best = -Infinity;
      let bestRow = start;
      for (let i = start; i < end; i++) {
        const s = score(rowVec[i]!);
        if (s > best) {
          best = s;
          bestRow = i;
        }
      }
      if (best > heap.floor) heap.push(best, start, bestRow);
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

  private rescore(heap: TopHeap, query: Float32Array, qInv: number, k: number): KnnHit[] {
    const starts: number[] = [];
    const needed = new Set<number>();
    for (let i = 0; i < heap.size; i++) {
      const start = heap.items[i]!;
      starts.push(start);
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

  private floatScorer(query: Float32Array): (row: number) => number {
    const m = this.f32;
    const d = this.dims;
    const inv = this.invNorm;
    const d4 = d - (d % 4);
    return (row) => {
      const o = row * d;
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
      return (s0 + s1 + s2 + s3) * inv[row]!;
    };
  }

  private int8Scorer(query: Float32Array): (row: number) => number {
    const d = this.dims;
    let maxAbs = 0;
    for (let i = 0; i < d; i++) maxAbs = Math.max(maxAbs, Math.abs(query[i]!));
    const scale = maxAbs > 0 ? 127 / maxAbs : 0;
    const q = new Int32Array(d);
    for (let i = 0; i < d; i++) q[i] = Math.round(query[i]! * scale);
    const m = this.i8;
    const inv = this.invNorm;
    const d4 = d - (d % 4);
    return (row) => {
      const o = row * d;
      let s0 = 0;
      let s1 = 0;
      let i = 0;
      for (; i < d4; i += 4) {
        s0 = (s0 + q[i]! * m[o + i]! + q[i + 1]! * m[o + i + 1]!) | 0;
        s1 = (s1 + q[i + 2]! * m[o + i + 2]! + q[i + 3]! * m[o + i + 3]!) | 0;
      }
      for (; i < d; i++) s0 = (s0 + q[i]! * m[o + i]!) | 0;
      return (s0 + s1) * inv[row]!;
    };
  }

  private hammingScorer(query: Float32Array): (row: number) => number {
    const b = this.bytesPerBits;
    const qb = new Uint8Array(b);
    for (let i = 0; i < this.dims; i++) if (query[i]! > 0) qb[i >> 3]! |= 1 << (i & 7);
    const pop = POPCOUNT8;
    const m = this.bits;
    return (row) => {
      const o = row * b;
      let h = 0;
      for (let j = 0; j < b; j++) h += pop[qb[j]! ^ m[o + j]!]!;
      return -h;
    };
  }

  private lutScorer(query: Float32Array): (row: number) => number {
    const b = this.bytesPerBits;
    // table[j*256 + byte] = Σ query components whose bit is set in `byte` at byte position j.
    const table = new Float64Array(b * 256);
    for (let j = 0; j < b; j++) {
      for (let byte = 1; byte < 256; byte++) {
        const low = byte & -byte;
        const bit = 31 - Math.clz32(low);
        const dim = j * 8 + bit;
        table[j * 256 + byte] = table[j * 256 + (byte ^ low)]! + (dim < this.dims ? query[dim]! : 0);
      }
    }
    const m = this.bits;
    return (row) => {
      const o = row * b;
      let s = 0;
      for (let j = 0; j < b; j++) s += table[(j << 8) | m[o + j]!]!;
      return s;
    };
  }
}

const POPCOUNT8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 1; i < 256; i++) t[i] = (i & 1) + t[i >> 1]!;
  return t;
})();
