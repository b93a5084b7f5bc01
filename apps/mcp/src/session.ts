import { embedSliceOf, Engine, type EngineOptions, type IndexProgress, type IndexReport } from '@ca/engine';
import { CaError, toCaError } from '@ca/schema';

export interface SessionOptions {
  /** Repository root. */
  readonly repo: string;
  /** Index file; default `<repo>/.codeagent/index.db`. */
  readonly dbPath?: string;
  /**
   * Bring the index up to date (an incremental `engine.index()`) before every answer, so an
   * edit is visible in the next answer (docs/decisions/013). Off: the index is served as it is
   * and only the `index` tool (or another process, such as `ca watch`) updates it.
   */
  readonly refresh: boolean;
  /** Configuration over the config file and environment (tests). */
  readonly configOverrides?: EngineOptions['configOverrides'];
  /** Environment for `CA_<SECTION>_<KEY>` overrides (default process.env). */
  readonly env?: EngineOptions['env'];
  /** One line of diagnostics (stderr in the stdio server). */
  readonly log: (line: string) => void;
  /**
   * Progress notifications to a caller that asked for them (`_meta.progressToken`) while its
   * answer waits for an index run: none before `delayMs` (a refresh usually takes tens of ms),
   * then on every phase change and at least every `intervalMs` (a heartbeat through long phases,
   * so clients that reset their request timeout on progress keep waiting). Default 500 / 5,000 ms.
   */
  readonly progress?: { readonly delayMs?: number; readonly intervalMs?: number };
  /**
   * With refresh on: a refresh embeds at most this many symbols before its answer, and the rest
   * are embedded behind it in slices of this size while no call waits (a call arriving meanwhile
   * waits for one slice at most). Default `EMBED_SLICE`; the first answer on a large repository
   * then waits for the structural and semantic index only, not for every vector.
   */
  readonly embedSlice?: number;
}

/** What the last refresh did, as the `status` tool reports it. */
export interface RefreshState {
  readonly mode: 'before-each-answer' | 'on-request';
  readonly runs: number;
  readonly last: { readonly at: string; readonly ms: number; readonly changed: number; readonly removed: number } | null;
  readonly lastError: string | null;
  /** Symbols without a vector yet (being filled in behind the answers). */
  readonly embeddingsPending: number;
}

/**
 * One long-lived engine for the server's lifetime (warm semantic workers and embedder, like
 * `ca watch`), opened on first use: an index that cannot be opened is an error answer, retried
 * on the next call. Index runs never overlap: a refresh asked for while one runs waits for one
 * more run after it (the running one may have listed the files before the latest edit), and
 * every caller waiting meanwhile shares that run.
 */
export class Session {
  private engineInstance: Engine | null = null;
  /** The index run or embedding slice under way (they never overlap). */
  private running: Promise<unknown> | null = null;
  private queued: Promise<IndexReport> | null = null;
  private runs = 0;
  private last: RefreshState['last'] = null;
  private lastError: string | null = null;
  private closed = false;
  private readonly progressListeners = new Set<(p: IndexProgress) => void>();
  /** The next run retries semantic passes that failed (asked for by the `index` tool). */
  private retryFailedNext = false;
  private embeddingsPending = 0;
  private fillTimer: NodeJS.Timeout | null = null;
  /** Answers being produced: embedding slices wait for none (they would slow the answer down). */
  private answering = 0;

  /** Symbols per embedding slice: at least 1, so that every slice makes progress. */
  private readonly slice: number;

  constructor(readonly options: SessionOptions) {
    this.slice = embedSliceOf(options.embedSlice);
  }

  /** Passes the progress of index runs to `listener` until the returned function is called. */
  onProgress(listener: (p: IndexProgress) => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /** The engine, opened now if it is not yet (throws the open error, e.g. `db_corrupt`, `invalid_path`). */
  engine(): Engine {
    if (this.closed) throw new CaError('internal', 'the server is shutting down');
    this.engineInstance ??= Engine.open(this.options.repo, {
      ...(this.options.dbPath ? { dbPath: this.options.dbPath } : {}),
      ...(this.options.configOverrides ? { configOverrides: this.options.configOverrides } : {}),
      ...(this.options.env ? { env: this.options.env } : {}),
      // The server maintains its index like `ca watch` does: a damaged file is rebuilt from source.
      rebuildIfCorrupt: this.options.refresh,
    });
    return this.engineInstance;
  }

  /**
   * Brings the index up to date (incremental); concurrent callers share runs. `retryFailed`
   * also re-runs semantic passes that failed (a refresh before an answer retries them only when
   * their files or configs change).
   */
  refresh(options: { retryFailed?: boolean } = {}): Promise<IndexReport> {
    if (options.retryFailed === true) this.retryFailedNext = true;
    if (this.queued) return this.queued;
    if (this.running) {
      const settle = () => undefined;
      this.queued = this.running.then(settle, settle).then(() => {
        this.queued = null;
        return this.start();
      });
      return this.queued;
    }
    return this.start();
  }

  /**
   * Before an answer: refreshes when the session does so. Resolves to a warning when the
   * refresh failed (the answer then comes from the index as it is), or null.
   */
  async beforeAnswer(): Promise<string | null> {
    if (!this.options.refresh) return null;
    try {
      await this.refresh();
      return null;
    } catch (e) {
      return `the index could not be brought up to date (${toCaError(e).message}); this answer may miss recent edits`;
    }
  }

  /**
   * Runs one answer. No embedding slice starts while an answer is under way (a slice already
   * running finishes first: the answer's refresh queues behind it); the last answer to finish
   * schedules the next slice, so vectors fill in between calls.
   */
  async answer<T>(work: () => Promise<T>): Promise<T> {
    this.answering++;
    try {
      return await work();
    } finally {
      this.answering--;
      if (this.answering === 0) this.scheduleFill();
    }
  }

  state(): RefreshState {
    return {
      mode: this.options.refresh ? 'before-each-answer' : 'on-request',
      runs: this.runs,
      last: this.last,
      lastError: this.lastError,
      embeddingsPending: this.embeddingsPending,
    };
  }

  /** Waits for a running index, then releases the engine and its workers. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.fillTimer) clearTimeout(this.fillTimer);
    const pending = this.queued ?? this.running;
    if (pending) await pending.catch(() => undefined);
    const engine = this.engineInstance;
    this.engineInstance = null;
    await engine?.dispose();
  }

  private start(): Promise<IndexReport> {
    const run = (async () => {
      const retryFailedSemantic = this.retryFailedNext;
      this.retryFailedNext = false;
      const report = await this.engine().index({
        onProgress: (p) => this.progressListeners.forEach((l) => l(p)),
        retryFailedSemantic,
        ...(this.options.refresh ? { embedLimit: this.slice } : {}),
      });
      this.embeddingsPending = report.embeddings?.pending ?? 0;
      this.runs++;
      this.last = { at: new Date().toISOString(), ms: report.ms, changed: report.changed, removed: report.removed };
      this.lastError = null;
      if (this.runs === 1 || report.changed > 0 || report.removed > 0) {
        this.options.log(`indexed: ${report.changed} changed, ${report.removed} removed in ${report.ms} ms (${report.files} files, ${report.symbols} symbols)`);
      }
      return report;
    })().catch((e: unknown) => {
      const err: CaError = toCaError(e);
      this.lastError = err.message;
      this.options.log(`index failed: ${err.message}`);
      throw err;
    });
    const tracked = run.finally(() => {
      if (this.running === tracked) this.running = null;
      this.scheduleFill();
    });
    this.running = tracked;
    return tracked;
  }

  /**
   * Embeds the next slice of pending symbols once nothing else runs, waits or answers; a slice
   * schedules the next one until none is pending. A failed slice stops the filling until the next run.
   */
  private scheduleFill(): void {
    if (this.closed || this.fillTimer !== null || this.embeddingsPending === 0 || !this.options.refresh) return;
    this.fillTimer = setTimeout(() => {
      this.fillTimer = null;
      // A run, a queued run or an answer under way schedules again when it ends.
      if (this.closed || this.running !== null || this.queued !== null || this.answering > 0) return;
      const slice = this.engine()
        .fillEmbeddings({ maxNodes: this.slice })
        .then(
          (r) => {
            this.embeddingsPending = r.pending;
          },
          (e: unknown) => {
            this.embeddingsPending = 0;
            this.options.log(`embedding failed: ${toCaError(e).message}`);
          },
        );
      const tracked = slice.finally(() => {
        if (this.running === tracked) this.running = null;
        this.scheduleFill();
      });
      this.running = tracked;
    }, 0);
    this.fillTimer.unref();
  }
}
