import { lstatSync, readdirSync, readFileSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { join, resolve } from 'node:path';

/** The subset of `fs.watch` the watcher uses (non-recursive, on one directory). */
export type WatchDirectory = (path: string, listener: (event: string, name: string | Buffer | null) => void) => Pick<FSWatcher, 'close' | 'on'>;

export interface TreeWatcherOptions {
  /** Absolute root of the tree. */
  readonly root: string;
  /** Whether a directory can hold indexed files: only those are watched (`rel` is repo-relative, POSIX). */
  readonly watchDir: (rel: string, name: string) => boolean;
  /** Repo-relative paths that changed: files, or directories standing for everything below them. */
  readonly onChange: (paths: readonly string[]) => void;
  /** Events may have been lost (the watcher keeps running): the next run must look at everything. */
  readonly onOverflow: (reason: string) => void;
  /** The watcher stopped for good (a directory could not be watched): the caller must walk the tree again. */
  readonly onFailure: (reason: string) => void;
  /**
   * Events within one second at which the kernel's queue may have dropped some (default: a
   * quarter of `/proc/sys/fs/inotify/max_queued_events`, at most 4,096).
   */
  readonly floodEvents?: number;
  /** Tests: replaces `fs.watch`. */
  readonly watch?: WatchDirectory;
}

/** The index's folder: never a change of the tree, even where a keep pattern reaches inside. */
const INDEX_FOLDER = /(^|\/)\.codeagent(\/|$)/;

/**
 * A TreeWatcher's `onChange` for a refresher (what `ca watch` and the MCP server both do with
 * file events): the index's own files (an index kept inside the tree, `.codeagent/`) are not
 * changes of the tree; a changed ignore file changes what is indexed anywhere below it, so
 * everything is looked at; any other path is a change.
 */
export function treeChanges(
  root: string,
  dbPath: string,
  refresher: { notify(paths: readonly string[]): void; overflow(reason: string): void },
): (paths: readonly string[]) => void {
  const db = resolve(dbPath);
  return (paths) => {
    for (const p of paths) {
      if (resolve(root, p).startsWith(db) || INDEX_FOLDER.test(p)) continue;
      if (p === '.gitignore' || p.endsWith('/.gitignore')) refresher.overflow(`${p} changed`);
      else refresher.notify([p]);
    }
  };
}

/** `fs.watch` on one directory, not holding the process open (the caller decides how long it lives). */
export const nativeWatch: WatchDirectory = (path, listener) => fsWatch(path, { persistent: false }, listener);

/**
 * Watches a working tree for changes, one non-recursive watch per directory that can hold
 * indexed files (excluded directories such as node_modules are never watched). Node 20's
 * recursive `fs.watch` on Linux is not used: it watches every file separately, so a file once
 * replaced by a rename (an editor's atomic save) is never reported again; a directory's own
 * watch reports every change of its entries by name.
 *
 * Never silently stale: a new directory is watched before it is reported (so a file created in
 * it after the report has an event, and one created before is found by the run that walks it);
 * an event without a name, or a flood of events in which the kernel may have dropped some
 * (libuv does not pass the kernel's overflow on), is an overflow; a directory that cannot be
 * watched (the inotify limit) stops the watcher and is a failure, after which the caller walks.
 */
export class TreeWatcher {
  private readonly dirs = new Map<string, Pick<FSWatcher, 'close' | 'on'>>();
  private readonly watchFn: WatchDirectory;
  private readonly floodEvents: number;
  private failure: string | null = null;
  private closed = false;
  private windowStart = 0;
  private windowEvents = 0;

  constructor(private readonly options: TreeWatcherOptions) {
    this.watchFn = options.watch ?? nativeWatch;
    this.floodEvents = options.floodEvents ?? defaultFloodEvents();
  }

  /** Watches the tree (synchronously: every event after this returns is reported). */
  start(): this {
    this.addTree('');
    return this;
  }

  /** True while every watchable directory is watched (false after a failure or close). */
  get active(): boolean {
    return !this.closed && this.failure === null;
  }

  /** Why the watcher stopped, or null. */
  get failed(): string | null {
    return this.failure;
  }

  /** How many directories are watched. */
  get watched(): number {
    return this.dirs.size;
  }

  close(): void {
    this.closed = true;
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
  }

  /** Watches `rel` and the directories below it that can hold indexed files. */
  private addTree(rel: string): void {
    const stack = [rel];
    while (stack.length > 0 && this.active) {
      const dir = stack.pop()!;
      if (!this.watchOne(dir)) continue;
      let entries;
      try {
        entries = readdirSync(join(this.options.root, dir), { withFileTypes: true });
      } catch {
        // Gone or unreadable since: its parent's watch reports it; the walk cannot read it either.
        continue;
      }
      for (const e of entries) {
        // Discovery never follows a link, so a linked directory holds nothing indexed.
        if (!e.isDirectory()) continue;
        const sub = dir ? `${dir}/${e.name}` : e.name;
        if (this.options.watchDir(sub, e.name)) stack.push(sub);
      }
    }
  }

  private watchOne(rel: string): boolean {
    if (this.dirs.has(rel)) return true;
    try {
      const w = this.watchFn(join(this.options.root, rel), (event, name) => this.onEvent(rel, event, name));
      // An error of a live watch leaves its directory unwatched: stop rather than go stale.
      w.on('error', (e: Error) => this.fail(`watching ${rel || '.'} failed (${e.message})`));
      this.dirs.set(rel, w);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Removed or made unreadable between the listing and the watch: nothing there to index.
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return false;
      this.fail(
        code === 'ENOSPC'
          ? `cannot watch ${rel || '.'}: the inotify watch limit is reached (fs.inotify.max_user_watches)`
          : `cannot watch ${rel || '.'} (${(e as Error).message})`,
      );
      return false;
    }
  }

  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (!this.active) return;
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowEvents = 0;
    }
    if (++this.windowEvents === this.floodEvents) {
      this.options.onOverflow(`${this.floodEvents} file events within a second (the kernel may have dropped some)`);
    }
    if (name === null) {
      this.options.onOverflow(`a file event without a name in ${dir || '.'}`);
      return;
    }
    const rel = dir ? `${dir}/${name.toString()}` : name.toString();
    if (event === 'rename') this.renamed(rel, name.toString());
    if (this.active) this.options.onChange([rel]);
  }

  /** An entry appeared, disappeared or was replaced: keep the watches in step with directories. */
  private renamed(rel: string, name: string): void {
    let isDir = false;
    try {
      isDir = lstatSync(join(this.options.root, rel)).isDirectory();
    } catch {
      // The entry is already gone again: it is not a directory to watch; a watched one is dropped below.
      isDir = false;
    }
    // A watched directory removed, moved away, or replaced (its watch follows the old one).
    if (this.dirs.has(rel)) {
      for (const [d, w] of this.dirs) {
        if (d === rel || d.startsWith(`${rel}/`)) {
          w.close();
          this.dirs.delete(d);
        }
      }
    }
    // Watched before it is reported: what is created in it from now on has an event.
    if (isDir && this.options.watchDir(rel, name)) this.addTree(rel);
  }

  private fail(reason: string): void {
    if (this.failure !== null || this.closed) return;
    this.failure = reason;
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
    this.options.onFailure(reason);
  }
}

function defaultFloodEvents(): number {
  try {
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    if (Number.isInteger(queued) && queued > 0) return Math.max(1, Math.min(4096, Math.floor(queued / 4)));
  } catch {
    // Not Linux, or /proc not mounted.
  }
  return 4096;
}
