import {
  buildEmbeddingTexts,
  buildFileEmbeddingText,
  contentHash,
  createEmbedder,
  createWorkerEmbedder,
  defaultEmbeddingWorkers,
  embedWithCache,
  modelInfo,
  resolveModel,
  type Embedder,
  type ModelResolution,
  type ResolvedModel,
  type WorkerEmbedderOptions,
} from '@ca/embed';
import type { Config } from '@ca/schema';
import { SNAPSHOT_MIN_NEW_ROWS, type NodeNeedingEmbedding, type Store } from '@ca/store';

export interface EmbedReport {
  /** Null when vectors are on; otherwise why the vector channel is off. */
  readonly off: string | null;
  readonly model: string | null;
  readonly nodes: number;
  readonly texts: number;
  /** Texts actually run through the model (the rest came from the content-hash cache). */
  readonly embedded: number;
  readonly tokens: number;
  readonly ms: number;
  readonly reset: boolean;
  /** Nodes still without a vector after this run (a run limited by `maxNodes` leaves some). */
  readonly pending: number;
}

/** Nodes embedded per round: each round commits, so an interrupted run resumes where it stopped. */
const ROUND = 512;
const META_VECTOR_OFF = 'vector_channel_off';
/**
 * Nodes without a vector (searches say so while it is not 0): set at the start of an embedding
 * run and after each of its rounds, so an interrupted run leaves the right count; `?` when an
 * index run wrote files and stopped before embedding them.
 */
export const META_VECTORS_PENDING = 'vectors_pending';

function containerChain(n: NodeNeedingEmbedding): string[] {
  return n.qualifiedName.split('.').filter(Boolean);
}

/**
 * Embeds every node of the label that has no vector for the current model, in resumable
 * rounds, on worker threads (the writer is not blocked). A missing model is not an error:
 * the reason is recorded and search runs on the other channels.
 */
export async function embedPending(
  store: Store,
  config: Config['embedding'],
  label: string,
  onProgress?: (done: number, total: number) => void,
  /** Supplies a long-lived embedder (not disposed here); default: a worker for this call only. */
  acquire?: (resolution: ResolvedModel, options: WorkerEmbedderOptions) => Promise<Embedder>,
  /** Stop after about this many nodes (whole rounds of `min(roundSize, maxNodes)`); the rest stays pending. */
  maxNodes?: number,
  /** Nodes per round (texts built, embedded and stored together; default 512). */
  roundSize = ROUND,
): Promise<EmbedReport> {
  const started = performance.now();
  const off = (reason: string): EmbedReport => {
    store.writer.setMetadata(META_VECTOR_OFF, reason);
    store.writer.setMetadata(META_VECTORS_PENDING, '0');
    return { off: reason, model: null, nodes: 0, texts: 0, embedded: 0, tokens: 0, ms: Math.round(performance.now() - started), reset: false, pending: 0 };
  };
  if (!config.enabled) return off('embedding.enabled is false');
  const resolution = await resolveModel(config);
  if (!resolution.ok) return off(resolution.reason);
  const info = await modelInfo(resolution);
  const vectors = store.vectors;
  const { reset } = vectors.ensureModel({ modelId: info.modelId, revision: info.revision, dims: info.dims });
  let total = vectors.countNodesNeedingEmbedding(label);
  store.writer.setMetadata(META_VECTOR_OFF, '');
  if (total === 0 || maxNodes === 0) {
    store.writer.setMetadata(META_VECTORS_PENDING, String(total));
    return { off: null, model: info.modelId, nodes: 0, texts: 0, embedded: 0, tokens: 0, ms: Math.round(performance.now() - started), reset, pending: total };
  }
  const round = Math.max(1, Math.floor(maxNodes === undefined ? roundSize : Math.min(roundSize, maxNodes)));
  store.writer.setMetadata(META_VECTORS_PENDING, String(total));
  onProgress?.(0, total);
  const workerOptions = { batchSize: config.batch_size, batchTokens: config.batch_tokens, workers: embeddingWorkersFor(config.workers, total) };
  const embedder = acquire ? await acquire(resolution, workerOptions) : await createWorkerEmbedder(resolution, workerOptions);
  let nodes = 0;
  let texts = 0;
  let embedded = 0;
  let tokens = 0;
  try {
    const reader = store.reader(label);
    const textsOf = (n: NodeNeedingEmbedding): string[] =>
      n.kind === 'file' || n.kind === 'module'
        ? [
            buildFileEmbeddingText(
              {
                path: n.path,
                language: n.language,
                exports: reader.publicChildren(n.nodeId),
                imports: reader.fileImports(n.nodeId),
                headerDoc: n.doc,
              },
              64,
              embedder,
            ),
          ]
        : buildEmbeddingTexts(
            {
              language: n.language,
              path: n.path,
              containerChain: containerChain(n),
              kind: n.kind,
              signature: n.signature,
              doc: n.doc,
              chunkText: n.chunkText,
            },
            { maxWindows: config.max_windows, tokenBudget: config.text_tokens, windowTokens: config.window_tokens },
            embedder,
          );
    const stale = staleImporters(vectors.vectoredImportersOfPending(label), textsOf, embedder.modelId);
    if (stale.length > 0) {
      vectors.unassign(stale);
      total += stale.length;
      store.writer.setMetadata(META_VECTORS_PENDING, String(total));
    }
    const fetchRound = (afterId: number): { batch: NodeNeedingEmbedding[]; perNode: string[][] } => {
      const batch = vectors.nodesNeedingEmbedding(label, round, { afterId });
      return { batch, perNode: batch.map(textsOf) };
    };
    let current = fetchRound(0);
    while (current.batch.length > 0) {
      const { batch, perNode } = current;
      const flat = perNode.flat();
      const embedding = embedWithCache(embedder, flat, vectors.cache());
      embedding.catch(() => {}); // awaited below, after the next round is built
      // The next round's texts are built while the workers embed this one (its cache lookups
      // wait for its own turn, after this round's vectors are stored).
      const more = maxNodes === undefined || nodes + batch.length < maxNodes;
      const next = more ? fetchRound(batch[batch.length - 1]!.nodeId) : { batch: [], perNode: [] };
      const result = await embedding;
      let i = 0;
      vectors.assignMany(
        perNode.map((windows, k) => ({
          nodeId: batch[k]!.nodeId,
          windows: windows.map((_, w) => ({ window: w, hash: result.hashes[i++]! })),
        })),
      );
      nodes += batch.length;
      store.writer.setMetadata(META_VECTORS_PENDING, String(Math.max(0, total - nodes)));
      texts += flat.length;
      embedded += result.embedded;
      tokens += result.tokens;
      onProgress?.(nodes, total);
      current = next;
    }
  } finally {
    if (!acquire) await embedder.dispose();
  }
  const pending = Math.max(0, total - nodes);
  // Many new vectors, or the last slice of a fill (slices are each too small): build the
  // in-memory index now so its persisted snapshot is written here, not by the first search
  // (a cold `ca search` then copies it: docs/benchmarks.md, cold start).
  if (embedded >= SNAPSHOT_MIN_NEW_ROWS || (maxNodes !== undefined && pending === 0 && nodes > 0)) vectors.warm();
  return { off: null, model: info.modelId, nodes, texts, embedded, tokens, ms: Math.round(performance.now() - started), reset, pending };
}

/**
 * Of the file nodes that import a node being embedded again, those whose embedding text no
 * longer hashes to the one their vector was built from: a file's text lists the names its
 * import edges resolve to, and those follow the imported file (the semantic pass rewrites the
 * edges) while the importing file, unchanged, keeps its vector.
 */
function staleImporters(
  candidates: readonly (NodeNeedingEmbedding & { readonly embeddedHash: string })[],
  textsOf: (n: NodeNeedingEmbedding) => string[],
  modelId: string,
): number[] {
  return candidates.filter((n) => contentHash(textsOf(n)[0] ?? '', modelId) !== n.embeddedHash).map((n) => n.nodeId);
}

/**
 * Starts loading the model into the indexing embedder's workers without embedding anything, so
 * a run whose vectors come after a long step (the semantic pass) finds it ready. Never fails
 * and never downloads: a model that is not on disk is left to `embedPending` to report.
 */
export async function prewarmEmbedder(
  config: Config['embedding'],
  acquire: (resolution: ResolvedModel, options: WorkerEmbedderOptions) => Promise<Embedder>,
  /** Nodes the run will embed (as `embedPending` will count them). */
  pending: number,
): Promise<void> {
  if (!config.enabled) return;
  try {
    const resolution = await resolveModel({ ...config, allow_download: false });
    if (!resolution.ok) return;
    await acquire(resolution, { batchSize: config.batch_size, batchTokens: config.batch_tokens, workers: embeddingWorkersFor(config.workers, pending) });
  } catch {
    // embedPending meets the same failure and reports it.
  }
}

/** See `embeddingWorkersFor`. */
const ONE_WORKER_MAX_NODES = 512;

/**
 * Model workers for a run embedding `pending` nodes: `embedding.workers` when set; otherwise one
 * for a few hundred nodes (a second worker's model load costs more than it saves on so little
 * embedding, and competes with the TS pass it runs beside; docs/benchmarks.md, "Figures behind
 * choices in the code"), else the default.
 */
export function embeddingWorkersFor(configured: number, pending: number): number {
  if (configured > 0) return configured;
  return pending <= ONE_WORKER_MAX_NODES ? 1 : defaultEmbeddingWorkers();
}

/**
 * The indexing embedder of a long-lived engine: its workers are kept across `index()` calls (an
 * edit then re-embeds without reloading the model); replaced when the model or batch limits
 * change or more workers are asked for (fewer are served by the ones running), dropped after a
 * failure. Idle workers do not keep the process alive.
 */
export class IndexEmbedder {
  private current: { key: string; workers: number; embedder: Promise<Embedder> } | null = null;

  readonly acquire = (resolution: ResolvedModel, options: WorkerEmbedderOptions): Promise<Embedder> => {
    const key = `${resolution.dir}\0${resolution.modelId}\0${options.batchSize}\0${options.batchTokens}`;
    const workers = options.workers || defaultEmbeddingWorkers();
    if (this.current?.key !== key || this.current.workers < workers) {
      void this.dispose();
      const embedder = createWorkerEmbedder(resolution, options);
      this.current = { key, workers, embedder };
      embedder.catch(() => {
        if (this.current?.embedder === embedder) this.current = null;
      });
    }
    return this.current!.embedder;
  };

  /** Forgets the worker after a failed pass (the next pass starts a new one). */
  reset(): void {
    void this.dispose();
  }

  async dispose(): Promise<void> {
    const c = this.current;
    this.current = null;
    if (c) await c.embedder.then((e) => e.dispose(), () => {});
  }
}

/** The query side: an in-process embedder (lowest latency), created on first use. */
export class QueryEmbedder {
  private embedder: Promise<Embedder> | null = null;
  private resolution: ModelResolution | null = null;

  constructor(private readonly config: Config['embedding']) {}

  /** Null when a model is available, else the reason it is not. */
  async unavailableReason(): Promise<string | null> {
    if (!this.config.enabled) return 'embedding.enabled is false';
    this.resolution ??= await resolveModel({ ...this.config, allow_download: false });
    return this.resolution.ok ? null : this.resolution.reason;
  }

  async embed(text: string): Promise<Float32Array> {
    if (!this.embedder) {
      const reason = await this.unavailableReason();
      if (reason) throw new Error(reason);
      this.embedder = createEmbedder(this.resolution!, { batchSize: 1 });
    }
    const e = await this.embedder;
    const [v] = await e.embed([text]);
    return v!;
  }

  async modelId(): Promise<string | null> {
    if (await this.unavailableReason()) return null;
    return (await modelInfo(this.resolution!)).modelId;
  }

  /** The model as an index keys its vectors (`modelId@revision`; the team store's model column). */
  async modelKey(): Promise<string | null> {
    if (await this.unavailableReason()) return null;
    const info = await modelInfo(this.resolution!);
    return `${info.modelId}@${info.revision}`;
  }

  async dispose(): Promise<void> {
    if (this.embedder) await (await this.embedder).dispose();
    this.embedder = null;
  }
}
