import { resolve } from 'node:path';
import {
  embedSliceOf,
  Engine,
  mayHoldIndexedFiles,
  Refresher,
  TreeWatcher,
  treeChanges,
  type EngineOptions,
  type IndexProgress,
  type IndexReport,
  type RefreshRequest,
  type TreeWatcherOptions,
} from '@ca/engine';
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
  /**
   * With refresh on, how a refresh learns what changed (docs/decisions/013, amended): `watch`
   * (default) keeps a file watcher on the tree, and a refresh before an answer indexes only the
   * paths it reported since the last run, or nothing at all; `walk` compares every file's size
   * and mtime before every answer (for file systems whose changes raise no events: network
   * shares, some container and VM mounts). A watcher that cannot run falls back to `walk`.
   */
  readonly changes?: 'watch' | 'walk';
  /** Tests: the watcher's flood threshold and `fs.watch` replacement. */
  readonly watcher?: Pick<TreeWatcherOptions, 'floodEvents' | 'watch'>;
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
  /** How changes are found with refresh on: `watcher` (file events), or `walk: <why>` (a tree walk before each answer). */
  readonly changes?: string;
}

/** Quiet time after a file event before a run behind the answers (an answer does not wait for it). */
export const WATCH_DEBOUNCE_MS = 100;

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
  /** The file watcher while it reports every change (refresh on, `changes: 'watch'`). */
  private watcher: TreeWatcher | null = null;
  /** Why a refresh walks the tree instead of trusting the watcher (null while it does). */
  private walkReason: string | null;
  /** HEAD's stamp when the last run started: a move since then (a commit, a checkout) is a run. */
  private headAtRun: string | null = null;

  /** Symbols per embedding slice: at least 1, so that every slice makes progress. */
  private readonly slice: number;

  constructor(readonly options: SessionOptions) {
    this.slice = embedSliceOf(options.embedSlice);
    this.walkReason = options.changes === 'walk' ? 'asked for (--no-watch)' : null;
    this.refresher = new Refresher<Outcome>({
      run: (request) => this.run(request),
      ...(options.refresh ? { fill: (max: number) => this.engine().fillEmbeddings({ maxNodes: max }) } : {}),
      debounceMs: WATCH_DEBOUNCE_MS,
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
    if (this.options.refresh && this.walkReason === null && this.watcher === null) this.startWatcher(this.engineInstance);
    return this.engineInstance;
  }

  /**
   * Watches the tree before the first run (a change made while it walks is one more run); the
   * first answer waits for that full run. A watcher that cannot watch every directory is closed
   * and the session walks before every answer, as without one.
   */
  private startWatcher(engine: Engine): void {
    const root = resolve(engine.repoRoot);
    const watcher = new TreeWatcher({
      ...this.options.watcher,
      root,
      watchDir: mayHoldIndexedFiles(engine.config.indexing),
      onChange: treeChanges(root, engine.dbPath, this.refresher),
      onOverflow: (reason) => {
        this.options.log(`file watcher: ${reason}; the next refresh walks the tree`);
        this.refresher.overflow(reason);
      },
      onFailure: (reason) => {
        this.walkReason = `the file watcher stopped: ${reason}`;
        this.watcher = null;
        this.options.log(`${this.walkReason}; every answer now walks the tree first`);
        this.refresher.overflow(reason);
      },
    });
    this.watcher = watcher;
    watcher.start();
    if (!watcher.active) return;
    this.refresher.overflow('first run');
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
      if (this.watcher?.active) {
        // An edit made before this call queued its file event in the kernel before the call
        // began: the event loop's next poll for I/O delivers it. Two turns of the loop make sure
        // one full poll starts after this point (a call made during a poll phase, as an
        // in-process client does, would otherwise reach the check before the next poll).
        await afterNextPoll();
        this.checkHead();
        // Still watching (a failure during the wait falls through to the walk).
        if (this.watcher?.active) {
          await this.refresher.catchUp();
          return null;
        }
      }
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
      ...(this.options.refresh ? { changes: this.walkReason === null ? 'watcher' : `walk: ${this.walkReason}` } : {}),
    };
  }

  /** Waits for a running index, then releases the engine and its workers. */
  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    await this.refresher.close();
    const engine = this.engineInstance;
    this.engineInstance = null;
    await engine?.dispose();
  }

  /** A commit, checkout or reset since the last run moved HEAD: a run (git names what it changed). */
  private checkHead(): void {
    const stamp = this.engineInstance?.git?.headStamp() ?? null;
    if (stamp !== this.headAtRun && !this.refresher.due()) this.refresher.notify([]);
  }

  private async run(request: RefreshRequest): Promise<Outcome> {
    const retryFailedSemantic = this.retryFailedNext;
    this.retryFailedNext = false;
    try {
      const engine = this.engine();
      this.headAtRun = engine.git?.headStamp() ?? null;
      const report = await engine.index({
        ...(request.paths !== null ? { paths: request.paths } : {}),
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

/** Resolves after the event loop has polled for I/O at least once from now. */
function afterNextPoll(): Promise<void> {
  return new Promise((done) => setImmediate(() => setImmediate(done)));
}
