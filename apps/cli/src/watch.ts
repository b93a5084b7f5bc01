import { watch, type FSWatcher } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { embedSliceOf, type Engine, type IndexReport } from '@ca/engine';

/** Quiet time after the last file event before re-indexing (an editor's save is several events). */
export const DEFAULT_DEBOUNCE_MS = 300;

/** Paths whose changes never concern the index (the index's own files included). */
const IGNORED = /(^|\/)(\.git|node_modules|\.codeagent)(\/|$)/;

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
 * and an edit is re-indexed in a fraction of a one-shot `ca index`. Runs never overlap: changes
 * that arrive during a run start one more run after it. Vectors are filled in behind the runs,
 * a slice at a time: a change waits for one slice at most, and stopping does not wait for the rest.
 */
export async function watchRepository(engine: Engine, options: WatchOptions): Promise<void> {
  const root = engine.repoRoot;
  const dbPath = resolve(engine.dbPath);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  let first = true;
  let stopped = false;
  void options.stop.then(() => (stopped = true));
  const slice = embedSliceOf(options.embedSlice);
  const run = (): void => {
    timer = null;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        let pending = 0;
        try {
          const report = await engine.index({ embedLimit: slice });
          pending = report.embeddings?.pending ?? 0;
          if (first || report.changed > 0 || report.removed > 0 || report.contextChanges) options.print(report);
        } catch (e) {
          options.printError(e);
        }
        first = false;
        // The rest of the vectors, a slice at a time, until a change (`again`) or the stop.
        while (pending > 0 && !again && !stopped) {
          try {
            pending = (await engine.fillEmbeddings({ maxNodes: slice })).pending;
          } catch (e) {
            options.printError(e);
            pending = 0;
          }
        }
      } while (again && !stopped);
      running = null;
    })();
  };

  let watcher: FSWatcher | null = null;
  try {
    // Watch before the first index: a change made while it runs starts one more run.
    watcher = watch(root, { recursive: true }, (_event, file) => {
      if (file === null) return;
      const abs = resolve(root, file.toString());
      const rel = relative(root, abs).split(sep).join('/');
      if (IGNORED.test(rel) || abs.startsWith(dbPath)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(run, options.debounceMs);
    });
    run();
    await options.stop;
  } finally {
    watcher?.close();
    if (timer) clearTimeout(timer);
    await running;
  }
}
