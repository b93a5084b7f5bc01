/**
 * Keeps an index fresh for a long-lived process (`ca watch`, the MCP server): watcher events
 * are debounced and coalesced into runs over the paths they name; a burst of events (a
 * checkout, a refactor) is collected until quiet and processed in chunks; runs never overlap;
 * vectors are filled in behind the runs, a slice at a time, never while an answer is produced.
 * A run over the changed paths only: a full rescan happens on overflow (the watcher dropped
 * events, ENOSPC), never silently stale.
 */

/** What one run asks the index to do: the paths to look at, or all (null). */
export interface RefreshRequest {
  readonly paths: readonly string[] | null;
  /** Why the run happens (`3 changed paths`, `watcher overflow: …`, `requested`). */
  readonly reason: string;
}

/** What a run reports back. */
export interface RefreshOutcome {
  /** Symbols still without a vector after the run (filled in behind it). */
  readonly embeddingsPending: number;
}

export interface RefresherTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RefresherOptions<O extends RefreshOutcome> {
  /** Runs one index run. */
  readonly run: (request: RefreshRequest) => Promise<O>;
  /** Embeds at most `max` pending symbols; resolves to how many are still pending. */
  readonly fill?: (max: number) => Promise<{ readonly pending: number }>;
  /** Quiet time after the last event before a run (an editor's save is several events). */
  readonly debounceMs: number;
  /** More than `files` distinct paths within `windowMs` is a burst: collected until `quietMs` of silence, then run in chunks of `chunk` paths. */
  readonly burst?: { readonly files: number; readonly windowMs: number; readonly quietMs: number; readonly chunk: number };
  /** Symbols per embedding slice behind the runs. */
  readonly slice: number;
  readonly onRun?: (outcome: O, request: RefreshRequest) => void;
  readonly onError?: (error: unknown, request: RefreshRequest) => void;
  readonly timers?: RefresherTimers;
}

export const DEFAULT_BURST = { files: 100, windowMs: 30_000, quietMs: 1_000, chunk: 500 } as const;

const realTimers: RefresherTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Counts of what the refresher did (for status answers). */
export interface RefresherState {
  readonly runs: number;
  readonly failures: number;
  readonly pendingPaths: number;
  readonly fullRescanPending: boolean;
  readonly embeddingsPending: number;
  readonly burst: boolean;
  readonly lastError: string | null;
}

export class Refresher<O extends RefreshOutcome = RefreshOutcome> {
  private readonly timers: RefresherTimers;
  private readonly pending = new Set<string>();
  private full = false;
  private fullReason = '';
  private timer: unknown = null;
  /** The run or slice under way (they never overlap). */
  private running: Promise<unknown> | null = null;
  /** The index run under way (not a slice). */
  private indexRun: Promise<unknown> | null = null;
  private queued: Promise<O> | null = null;
  private answering = 0;
  private closed = false;
  private runs = 0;
  private failures = 0;
  private lastError: string | null = null;
  private embeddingsPending = 0;
  private fillTimer: unknown = null;
  /** Arrival times of distinct paths in the burst window. */
  private arrivals: { at: number; path: string }[] = [];
  private inBurst = false;
  /** A run over no paths is due (HEAD moved). */
  private headMoved = false;

  constructor(private readonly options: RefresherOptions<O>) {
    this.timers = options.timers ?? realTimers;
  }

  /**
   * Watcher events: repo-relative paths that changed (files or directories). No paths: a run
   * anyway (HEAD moved: the run adds what git says changed).
   */
  notify(paths: readonly string[]): void {
    if (this.closed) return;
    if (paths.length === 0) this.headMoved = true;
    const now = this.timers.now();
    for (const p of paths) {
      if (!this.pending.has(p)) this.arrivals.push({ at: now, path: p });
      this.pending.add(p);
    }
    const burst = this.options.burst;
    if (burst) {
      this.arrivals = this.arrivals.filter((a) => now - a.at <= burst.windowMs);
      if (this.arrivals.length > burst.files) this.inBurst = true;
    }
    this.schedule();
  }

  /** The watcher lost events (overflow, ENOSPC, an error): the next run rescans everything. */
  overflow(reason: string): void {
    if (this.closed) return;
    this.full = true;
    this.fullReason = reason;
    this.schedule();
  }

  /**
   * A run now (the MCP server before an answer): joins the run under way and one more after it
   * (the running one may have listed the files before the latest edit); concurrent callers
   * share that run. `full` rescans everything.
   */
  refresh(options: { full?: boolean; reason?: string } = {}): Promise<O> {
    if (options.full !== false) {
      this.full = true;
      this.fullReason = options.reason ?? 'requested';
    }
    if (this.timer !== null) {
      this.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    return this.next();
  }

  /**
   * Before an answer when a watcher reports every change (the MCP server): a run only when
   * something is due (changed paths, a rescan, a HEAD move), shared with every caller waiting;
   * otherwise waits for the index run under way, if any (it may carry the caller's own edit),
   * and resolves to null without a run. Exact only if every change made before the call has
   * been passed to `notify`/`overflow` by then.
   */
  async catchUp(): Promise<O | null> {
    if (!this.due() && this.queued === null && this.indexRun !== null) await this.indexRun.catch(() => undefined);
    if (!this.due() && this.queued === null) return null;
    if (this.timer !== null) {
      this.timers.clearTimeout(this.timer);
      this.timer = null;
    }
    return this.next();
  }

  /** Whether a run is due: changed paths, a rescan or a HEAD move not yet taken by a run. */
  due(): boolean {
    return this.pending.size > 0 || this.full || this.headMoved;
  }

  /** Runs one answer: no embedding slice starts while any answer is under way. */
  async answer<T>(work: () => Promise<T>): Promise<T> {
    this.answering++;
    try {
      return await work();
    } finally {
      this.answering--;
      if (this.answering === 0) this.scheduleFill();
    }
  }

  state(): RefresherState {
    return {
      runs: this.runs,
      failures: this.failures,
      pendingPaths: this.pending.size,
      fullRescanPending: this.full,
      embeddingsPending: this.embeddingsPending,
      burst: this.inBurst,
      lastError: this.lastError,
    };
  }

  /** Resolves once no run is under way or due (slices may continue). */
  async settled(): Promise<void> {
    for (;;) {
      const current = this.queued ?? this.running;
      if (current === null && this.timer === null && this.pending.size === 0 && !this.full && !this.headMoved) return;
      if (current !== null) await current.catch(() => undefined);
      else await this.next().catch(() => undefined);
    }
  }

  /** Stops: no new runs or slices; waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    if (this.fillTimer !== null) this.timers.clearTimeout(this.fillTimer);
    this.timer = null;
    this.fillTimer = null;
    const current = this.queued ?? this.running;
    if (current) await current.catch(() => undefined);
  }

  private schedule(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    const quiet = this.inBurst ? (this.options.burst?.quietMs ?? this.options.debounceMs) : this.options.debounceMs;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.next().catch(() => undefined);
    }, quiet);
  }

  /** The run after the one under way (shared by every caller until it starts). */
  private next(): Promise<O> {
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

  /** Takes what is pending (everything, or one chunk of a burst) and runs it. */
  private takeRequest(): RefreshRequest {
    if (this.full) {
      const reason = this.fullReason || 'full rescan';
      this.full = false;
      this.fullReason = '';
      this.pending.clear();
      this.arrivals = [];
      this.inBurst = false;
      return { paths: null, reason };
    }
    this.headMoved = false;
    const all = [...this.pending].sort();
    const chunk = this.inBurst && this.options.burst ? this.options.burst.chunk : all.length;
    const paths = all.slice(0, Math.max(1, chunk));
    for (const p of paths) this.pending.delete(p);
    if (this.pending.size === 0) {
      this.inBurst = false;
      this.arrivals = [];
    }
    return { paths, reason: `${paths.length} changed path${paths.length === 1 ? '' : 's'}${this.pending.size > 0 ? ` (burst: ${this.pending.size} more to go)` : ''}` };
  }

  private start(): Promise<O> {
    const request = this.takeRequest();
    const run = (async () => {
      try {
        const outcome = await this.options.run(request);
        this.runs++;
        this.lastError = null;
        this.embeddingsPending = outcome.embeddingsPending;
        this.options.onRun?.(outcome, request);
        return outcome;
      } catch (e) {
        this.failures++;
        this.lastError = e instanceof Error ? e.message : String(e);
        this.options.onError?.(e, request);
        // What the run was to bring in is not lost: the next run looks at everything again.
        this.overflowAfterFailure();
        throw e;
      }
    })();
    const tracked = run.finally(() => {
      if (this.running === tracked) this.running = null;
      if (this.indexRun === tracked) this.indexRun = null;
      // A burst's remaining chunks follow at once.
      if (!this.closed && this.pending.size > 0 && this.timer === null && this.queued === null) void this.next().catch(() => undefined);
      this.scheduleFill();
    });
    // The caller handles `run`'s failure; the tracking copy must not surface it a second time.
    tracked.catch(() => undefined);
    this.running = tracked;
    this.indexRun = tracked;
    return run;
  }

  private overflowAfterFailure(): void {
    this.full = true;
    this.fullReason = 'the previous run failed';
  }

  /** The next slice of vectors once nothing else runs, waits or answers. */
  private scheduleFill(): void {
    const fill = this.options.fill;
    if (!fill || this.closed || this.fillTimer !== null || this.embeddingsPending === 0) return;
    this.fillTimer = this.timers.setTimeout(() => {
      this.fillTimer = null;
      // A run, a queued run, due paths or an answer under way schedule again when they end.
      if (this.closed || this.running !== null || this.queued !== null || this.answering > 0 || this.timer !== null) return;
      const slice = fill(this.options.slice).then(
        (r) => {
          this.embeddingsPending = r.pending;
        },
        (e: unknown) => {
          this.embeddingsPending = 0;
          this.lastError = e instanceof Error ? e.message : String(e);
        },
      );
      const tracked = slice.finally(() => {
        if (this.running === tracked) this.running = null;
        if (!this.closed && (this.pending.size > 0 || this.full) && this.timer === null && this.queued === null) this.schedule();
        this.scheduleFill();
      });
      this.running = tracked;
    }, 0);
  }
}
