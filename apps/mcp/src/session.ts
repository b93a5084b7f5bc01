import { embedSliceOf, Engine, Refresher, type EngineOptions, type IndexProgress, type IndexReport } from '@ca/engine';
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
 * How long a refresh before an answer waits for another process's index run (another MCP
 * server, `ca index`, `ca watch` on the same index) before answering from the index as it is,
 * with a warning: that run brings the same changes in, and the next answer sees them.
 */
export const REFRESH_LOCK_WAIT_MS = 2_000;

type Outcome = IndexReport & { embeddingsPending: number };

/**
 * One long-lived engine for the server's lifetime (warm semantic workers and embedder, like
 * `ca watch`), opened on first use: an index that cannot be opened is an error answer, retried
 * on the next call. Runs go through the shared `Refresher` (@ca/invalidation): they never
 * overlap, a refresh asked for while one runs waits for one more run after it, every caller
 * waiting meanwhile shares that run, and vectors are filled in behind the answers.
 */
export class Session {
  private engineInstance: Engine | null = null;
  private last: RefreshState['last'] = null;
  private closed = false;
  private readonly progressListeners = new Set<(p: IndexProgress) => void>();
  /** The next run retries semantic passes that failed (asked for by the `index` tool). */
  private retryFailedNext = false;
  /** Wait at most this long for another process's run before answering (set per refresh). */
  private lockTimeoutMs: number | undefined = undefined;
  private readonly refresher: Refresher<Outcome>;

  /** Symbols per embedding slice: at least 1, so that every slice makes progress. */
  private readonly slice: number;

  constructor(readonly options: SessionOptions) {
    this.slice = embedSliceOf(options.embedSlice);
    this.refresher = new Refresher<Outcome>({
      run: () => this.run(),
      ...(options.refresh ? { fill: (max: number) => this.engine().fillEmbeddings({ maxNodes: max }) } : {}),
      debounceMs: 0,
      slice: this.slice,
    });
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
   * their files or configs change). Waits for another process's run to end first.
   */
  refresh(options: { retryFailed?: boolean } = {}): Promise<IndexReport> {
    if (options.retryFailed === true) this.retryFailedNext = true;
    this.lockTimeoutMs = undefined;
    return this.refresher.refresh({ reason: 'requested' });
  }

  /**
   * Before an answer: refreshes when the session does so. Resolves to a warning when the
   * refresh failed or another process is still updating the index (the answer then comes from
   * the index as it is), or null.
   */
  async beforeAnswer(): Promise<string | null> {
    if (!this.options.refresh) return null;
    try {
      this.lockTimeoutMs = REFRESH_LOCK_WAIT_MS;
      await this.refresher.refresh({ reason: 'before an answer' });
      return null;
    } catch (e) {
      const err = toCaError(e);
      if (err.code === 'db_locked') return `${err.message}; this answer comes from the index as it is and may miss the changes that run brings in`;
      return `the index could not be brought up to date (${err.message}); this answer may miss recent edits`;
    }
  }

  /**
   * Runs one answer. No embedding slice starts while an answer is under way (a slice already
   * running finishes first: the answer's refresh queues behind it); the last answer to finish
   * schedules the next slice, so vectors fill in between calls.
   */
  answer<T>(work: () => Promise<T>): Promise<T> {
    return this.refresher.answer(work);
  }

  state(): RefreshState {
    const r = this.refresher.state();
    return {
      mode: this.options.refresh ? 'before-each-answer' : 'on-request',
      runs: r.runs,
      last: this.last,
      lastError: r.lastError,
      embeddingsPending: r.embeddingsPending,
    };
  }

  /** Waits for a running index, then releases the engine and its workers. */
  async close(): Promise<void> {
    this.closed = true;
    await this.refresher.close();
    const engine = this.engineInstance;
    this.engineInstance = null;
    await engine?.dispose();
  }

  private async run(): Promise<Outcome> {
    const retryFailedSemantic = this.retryFailedNext;
    this.retryFailedNext = false;
    try {
      const report = await this.engine().index({
        onProgress: (p) => this.progressListeners.forEach((l) => l(p)),
        retryFailedSemantic,
        ...(this.lockTimeoutMs !== undefined ? { lockTimeoutMs: this.lockTimeoutMs } : {}),
        onWait: (h) => this.options.log(`waiting for another process's index run (pid ${h.pid}, ${h.label})`),
        ...(this.options.refresh ? { embedLimit: this.slice } : {}),
      });
      const runs = this.refresher.state().runs;
      this.last = { at: new Date().toISOString(), ms: report.ms, changed: report.changed, removed: report.removed };
      if (runs === 0 || report.changed > 0 || report.removed > 0) {
        this.options.log(`indexed: ${report.changed} changed, ${report.removed} removed in ${report.ms} ms (${report.files} files, ${report.symbols} symbols)`);
      }
      return { ...report, embeddingsPending: report.embeddings?.pending ?? 0 };
    } catch (e) {
      const err: CaError = toCaError(e);
      if (err.code === 'db_locked') this.retryFailedNext ||= retryFailedSemantic;
      else this.options.log(`index failed: ${err.message}`);
      throw err;
    }
  }
}
