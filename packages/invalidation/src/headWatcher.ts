import { readFileSync, statSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GitRepository } from './git.js';
import { nativeWatch, type WatchDirectory } from './watcher.js';

export interface HeadWatcherOptions {
  /** The repository whose HEAD is watched (its git directories and `headStamp()`). */
  readonly git: Pick<GitRepository, 'location' | 'headStamp'>;
  /** HEAD, or the branch it is on, moved: a checkout, commit, pull, rebase or reset. */
  readonly onMove: () => void;
  /** The watcher stopped for good (a directory could not be watched): moves are no longer reported. */
  readonly onFailure: (reason: string) => void;
  /** Tests: replaces `fs.watch`. */
  readonly watch?: WatchDirectory;
}

/**
 * Reports moves of HEAD, which a tree watcher does not see (`.git` is not watched, and a linked
 * worktree's git directory lies outside the tree). Watches, without recursion, the worktree's git
 * directory (HEAD), the common one (packed-refs) and the directory holding the loose ref of the
 * branch HEAD is on; on any event there it compares `headStamp()` with the last one. Git replaces
 * HEAD and refs by renaming a lock file over them, which a directory's watch reports by name.
 *
 * The branch's directory follows HEAD (a checkout to `topic/x` watches `refs/heads/topic`, or
 * the nearest directory above it that exists), and a directory removed and created again is
 * watched again. A directory that cannot be watched stops the watcher and is a failure.
 */
export class HeadWatcher {
  private readonly dirs = new Map<string, { readonly watch: Pick<FSWatcher, 'close' | 'on'>; readonly ino: number }>();
  private readonly watchFn: WatchDirectory;
  private stamp = '';
  private failure: string | null = null;
  private closed = false;

  constructor(private readonly options: HeadWatcherOptions) {
    this.watchFn = options.watch ?? nativeWatch;
  }

  /** Watches HEAD (synchronously: every move after this returns is reported). */
  start(): this {
    this.stamp = this.options.git.headStamp();
    this.sync();
    return this;
  }

  /** True while HEAD is watched (false after a failure or close). */
  get active(): boolean {
    return !this.closed && this.failure === null;
  }

  /** Why the watcher stopped, or null. */
  get failed(): string | null {
    return this.failure;
  }

  /** The directories watched (absolute paths). */
  get watched(): readonly string[] {
    return [...this.dirs.keys()];
  }

  close(): void {
    this.closed = true;
    for (const d of this.dirs.values()) d.watch.close();
    this.dirs.clear();
  }

  private onEvent(): void {
    if (!this.active) return;
    // HEAD may be on another branch now, or the branch's directory may have been created. Watched
    // first, compared after: a ref written before a new watch existed is in this comparison, one
    // written after it has an event.
    this.sync();
    if (!this.active) return;
    const stamp = this.options.git.headStamp();
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.options.onMove();
    }
  }

  /** Watches the directories HEAD's state lives in now; drops the ones it no longer does. */
  private sync(): void {
    const { gitDir, commonDir } = this.options.git.location;
    const wanted = new Map<string, number>();
    const want = (dir: string | null) => {
      const ino = dir === null ? null : inodeOf(dir);
      if (dir !== null && ino !== null) wanted.set(dir, ino);
    };
    want(gitDir);
    want(commonDir);
    const ref = branchRef(gitDir);
    if (ref !== null) {
      want(nearestDirectory(commonDir, ref));
      want(nearestDirectory(gitDir, ref));
    }
    for (const [dir, d] of this.dirs) {
      // A directory removed (and perhaps created again) leaves its watch on the old inode.
      if (wanted.get(dir) !== d.ino) {
        d.watch.close();
        this.dirs.delete(dir);
      }
    }
    for (const [dir, ino] of wanted) {
      if (!this.active) return;
      if (!this.dirs.has(dir)) this.watchOne(dir, ino);
    }
  }

  private watchOne(dir: string, ino: number): void {
    try {
      const w = this.watchFn(dir, () => this.onEvent());
      w.on('error', (e: Error) => this.fail(`watching ${dir} failed (${e.message})`));
      this.dirs.set(dir, { watch: w, ino });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Removed since it was listed (a ref directory git pruned): the next event there syncs again.
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      this.fail(code === 'ENOSPC' ? `cannot watch ${dir}: the inotify watch limit is reached (fs.inotify.max_user_watches)` : `cannot watch ${dir} (${(e as Error).message})`);
    }
  }

  private fail(reason: string): void {
    if (this.failure !== null || this.closed) return;
    this.failure = reason;
    for (const d of this.dirs.values()) d.watch.close();
    this.dirs.clear();
    this.options.onFailure(reason);
  }
}

/** The ref HEAD points at (`refs/heads/topic/x`), or null when detached or unreadable. */
function branchRef(gitDir: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(gitDir, 'HEAD'), 'utf8');
  } catch {
    // No readable HEAD file (the repository is being removed or re-cloned): no branch ref to watch.
    return null;
  }
  const ref = /^ref: (\S+)/.exec(text)?.[1];
  // Only a plain ref name: never a path out of the git directory.
  return ref !== undefined && /^refs\/[A-Za-z0-9._/@+-]+$/.test(ref) && !ref.split('/').includes('..') ? ref : null;
}

/** The directory holding `base/ref`, or the nearest one above it that exists (at most `base`). */
function nearestDirectory(base: string, ref: string): string | null {
  let dir = dirname(join(base, ref));
  while (inodeOf(dir) === null) {
    if (dir === base) return null;
    dir = dirname(dir);
  }
  return dir;
}

function inodeOf(dir: string): number | null {
  try {
    const st = statSync(dir);
    return st.isDirectory() ? st.ino : null;
  } catch {
    // The directory is gone (or unreadable): it has no inode to watch, and the caller looks at its parent.
    return null;
  }
}
