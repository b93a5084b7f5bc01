import { watch, type FSWatcher } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { DEFAULT_BURST, embedSliceOf, Refresher, type Engine, type IndexReport } from '@ca/engine';

/** Quiet time after the last file event before re-indexing (an editor's save is several events). */
export const DEFAULT_DEBOUNCE_MS = 300;

/** Paths whose changes never concern the index (the index's own files included). */
const IGNORED = /(^|\/)(node_modules|\.codeagent)(\/|$)/;
/** Inside .git, only what moves HEAD matters (a checkout, pull, rebase, commit). */
const GIT_HEAD = /^\.git\/(HEAD|ORIG_HEAD|packed-refs|refs\/heads\/.*)$/;

export interface WatchOptions {
  readonly debounceMs: number;
  /** One line per index run. */
  readonly print: (report: IndexReport) => void;
  /** A failed run (the watch goes on; the next change tries again). */
  readonly printError: (error: unknown) => void;
  /** Resolves when the watch should stop (default: SIGINT or SIGTERM). */
  readonly stop: Promise<void>;
  /** Symbols embedded per slice behind the runs (default `EMBED_SLICE`). */
  readonly embedSlice?: number;
}

/**
 * `ca watch`: one engine for the whole session, so its semantic workers and embedder stay warm
 * and an edit is re-indexed in a fraction of a one-shot `ca index`. The shared `Refresher`
 * (@ca/invalidation) turns file events into runs over the changed paths only (a burst — a
 * checkout — is collected and run in chunks; a HEAD move adds what git says changed); runs never
 * overlap; vectors are filled in behind them a slice at a time. A watcher error or an event
 * without a file name rescans everything: never silently stale.
 */
export async function watchRepository(engine: Engine, options: WatchOptions): Promise<void> {
  const root = engine.repoRoot;
  const dbPath = resolve(engine.dbPath);
  const slice = embedSliceOf(options.embedSlice);
  let first = true;
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
      if (first || report.changed > 0 || report.removed > 0 || report.blobs.moved > 0 || report.blobs.reused > 0 || report.contextChanges) options.print(report);
      first = false;
    },
    onError: (e) => options.printError(e),
  });

  let watcher: FSWatcher | null = null;
  try {
    // Watch before the first index: a change made while it runs starts one more run.
    watcher = watch(root, { recursive: true }, (_event, file) => {
      if (file === null) {
        refresher.overflow('a file event without a file name');
        return;
      }
      const abs = resolve(root, file.toString());
      const rel = relative(root, abs).split(sep).join('/');
      if (abs.startsWith(dbPath)) return;
      if (rel === '.git' || rel.startsWith('.git/')) {
        // HEAD moved: the run asks git what changed between the indexed commit and the new one.
        if (GIT_HEAD.test(rel)) refresher.notify([]);
        return;
      }
      if (IGNORED.test(rel)) return;
      // A changed ignore file or config changes what is indexed anywhere below it: look at everything.
      if (/(^|\/)\.gitignore$/.test(rel) || rel === '.codeagent/config.json') refresher.overflow(`${rel} changed`);
      else refresher.notify([rel]);
    });
    watcher.on('error', (e) => refresher.overflow(`the file watcher failed (${e.message})`));
    void refresher.refresh({ reason: 'start' }).catch(() => undefined);
    await options.stop;
  } finally {
    watcher?.close();
    await refresher.close();
  }
}
