import { resolve } from 'node:path';
import {
  DEFAULT_BURST,
  embedSliceOf,
  HeadWatcher,
  mayHoldIndexedFiles,
  Refresher,
  TreeWatcher,
  treeChanges,
  type Engine,
  type IndexReport,
  type TreeWatcherOptions,
} from '@ca/engine';

/** Quiet time after the last file event before re-indexing (an editor's save is several events). */
export const DEFAULT_DEBOUNCE_MS = 300;

/**
 * Time between full rescans once a watcher failed (from the end of one to the start of the
 * next): an unchanged tree's rescan is cheap, and an edit shows within a few seconds.
 */
export const DEFAULT_RESCAN_MS = 2_000;


export interface WatchOptions {
  readonly debounceMs: number;
  /** One line per index run. */
  readonly print: (report: IndexReport) => void;
  /** A failed run (the watch goes on; the next change tries again). */
  readonly printError: (error: unknown) => void;
  /** Said once when a watcher fails and the watch falls back to rescans (default: a `note:` line on stderr). */
  readonly printNotice?: (message: string) => void;
  /** Resolves when the watch should stop (default: SIGINT or SIGTERM). */
  readonly stop: Promise<void>;
  /** Symbols embedded per slice behind the runs (default `EMBED_SLICE`). */
  readonly embedSlice?: number;
  /** Time between full rescans after a watcher failed (default `DEFAULT_RESCAN_MS`). */
  readonly rescanMs?: number;
  /** Tests: the watchers' `fs.watch` replacement and flood threshold. */
  readonly watcher?: Pick<TreeWatcherOptions, 'floodEvents' | 'watch'>;
}

/**
 * `ca watch`: one engine for the whole session, so its semantic workers and embedder stay warm
 * and an edit is re-indexed in a fraction of a one-shot `ca index`. The shared `Refresher`
 * (@ca/invalidation) turns file events into runs over the changed paths only (a burst — a
 * checkout — is collected and run in chunks; a HEAD move adds what git says changed); runs never
 * overlap; vectors are filled in behind them a slice at a time.
 *
 * File events come from a `TreeWatcher` (one watch per directory: Node 20's recursive watcher
 * stops reporting a file an editor saved by a rename), HEAD moves from a `HeadWatcher` (the git
 * directory is not part of the tree watched). Never silently stale: lost events (an overflow) are
 * a full rescan, and a watcher that stops (the inotify limit) is said once, after which the
 * whole tree is rescanned every `rescanMs` until the watch ends.
 */
export async function watchRepository(engine: Engine, options: WatchOptions): Promise<void> {
  const root = resolve(engine.repoRoot);
  const slice = embedSliceOf(options.embedSlice);
  const rescanMs = options.rescanMs ?? DEFAULT_RESCAN_MS;
  const notice = options.printNotice ?? ((m: string) => process.stderr.write(`note: ${m}\n`));
  let first = true;
  let stopped = false;
  /** Why the watch rescans instead of trusting the watchers (null while it does). */
  let fallback: string | null = null;
  let rescanTimer: NodeJS.Timeout | null = null;
  const scheduleRescan = () => {
    if (fallback === null || stopped || rescanTimer !== null) return;
    rescanTimer = setTimeout(() => {
      rescanTimer = null;
      refresher.overflow('periodic rescan');
    }, rescanMs);
  };
  const refresher = new Refresher<IndexReport & { embeddingsPending: number }>({
    run: async (request) => {
      const report = await engine.index({ ...(request.paths !== null ? { paths: request.paths } : {}), embedLimit: slice });
      return { ...report, embeddingsPending: report.embeddings?.pending ?? 0 };
    },
    fill: (max) => engine.fillEmbeddings({ maxNodes: max }),
    debounceMs: options.debounceMs,
    burst: DEFAULT_BURST,
    slice,
    onRun: (report) => {
      if (first || report.changed > 0 || report.removed > 0 || report.blobs.moved > 0 || report.blobs.reused > 0 || report.contextChanges || report.notices) options.print(report);
      first = false;
      scheduleRescan();
    },
    onError: (e) => {
      options.printError(e);
      scheduleRescan();
    },
  });

  let tree: TreeWatcher | null = null;
  let head: HeadWatcher | null = null;
  const fallBack = (reason: string) => {
    if (fallback !== null || stopped) return;
    fallback = reason;
    tree?.close();
    head?.close();
    notice(`${reason}; rescanning the whole tree every ${rescanMs / 1000} s instead`);
    refresher.overflow(reason);
  };
  // The watches do not hold the process open (the watchers make them non-persistent): this does, until stop.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    // Watch before the first index: a change made while it runs starts one more run.
    tree = new TreeWatcher({
      ...options.watcher,
      root,
      watchDir: mayHoldIndexedFiles(engine.config.indexing),
      onChange: treeChanges(root, engine.dbPath, refresher),
      onOverflow: (reason) => refresher.overflow(reason),
      onFailure: (reason) => fallBack(`the file watcher stopped: ${reason}`),
    });
    tree.start();
    // HEAD moved (a checkout, pull, rebase, commit): the run asks git what changed between the
    // indexed commit and the new one.
    if (engine.git && fallback === null) {
      head = new HeadWatcher({
        git: engine.git,
        ...(options.watcher?.watch ? { watch: options.watcher.watch } : {}),
        onMove: () => refresher.notify([]),
        onFailure: (reason) => fallBack(`the HEAD watcher stopped: ${reason}`),
      });
      head.start();
    }
    void refresher.refresh({ reason: 'start' }).catch(() => undefined);
    await options.stop;
  } finally {
    stopped = true;
    clearInterval(keepAlive);
    if (rescanTimer !== null) clearTimeout(rescanTimer);
    tree?.close();
    head?.close();
    await refresher.close();
  }
}
