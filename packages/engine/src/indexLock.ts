import { hostname } from 'node:os';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { CaError } from '@ca/schema';

/** Who holds an index's run lock. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly label: string;
  readonly since: string;
}

/**
 * One index run at a time per index file, across processes (`ca index`, `ca watch`, MCP
 * servers on one repository): `<db>.lock` holds the runner's pid. Created with `link` (atomic:
 * it fails when the file exists); a lock whose process is gone (same host) is stale and taken
 * over. SQLite's own lock only spans a transaction, not a run of many.
 */
export class IndexLock {
  private held = false;

  constructor(readonly path: string) {}

  /** The holder, or null when nobody (alive) holds the lock. */
  holder(): LockHolder | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      // No lock file: nobody holds the lock. Any other failure (a directory or an unreadable file in
      // its place) must not read as "free": tryAcquire would then remove what it cannot read.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new CaError('io_error', `cannot read the index lock ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    let h: LockHolder;
    try {
      h = JSON.parse(text) as LockHolder;
    } catch {
      // Being written right now (link makes the file appear whole, so this is a damaged file): stale.
      return null;
    }
    if (h.host === hostname() && h.pid !== process.pid && !alive(h.pid)) return null;
    if (h.host === hostname() && h.pid === process.pid && !this.held) return null;
    return h;
  }

  /** Takes the lock if free (or stale); false when another live process holds it. */
  tryAcquire(label: string): boolean {
    if (this.held) return true;
    const me: LockHolder = { pid: process.pid, host: hostname(), label, since: new Date().toISOString() };
    const tmp = `${this.path}.${process.pid}.${Date.now()}`;
    writeFileSync(tmp, JSON.stringify(me));
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          linkSync(tmp, this.path);
          this.held = true;
          return true;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new CaError('io_error', `cannot create the index lock ${this.path}: ${(e as Error).message}`, { cause: e });
        }
        if (this.holder() !== null) return false;
        // Stale: its process is gone. Remove it and try once more (another process may win).
        try {
          unlinkSync(this.path);
        } catch {
          // Someone else removed it first.
        }
      }
      return false;
    } finally {
      try {
        unlinkSync(tmp);
      } catch {
        // The temporary file is only the link source; if it is already gone there is nothing to clean.
      }
    }
  }

  /**
   * Waits until the lock is taken. `onWait` is told once who holds it. Gives up with `db_locked`
   * after `timeoutMs` (default: never).
   */
  async acquire(label: string, options: { timeoutMs?: number; pollMs?: number; onWait?: (holder: LockHolder) => void } = {}): Promise<void> {
    const started = Date.now();
    let told = false;
    while (!this.tryAcquire(label)) {
      const h = this.holder();
      if (h && !told) {
        options.onWait?.(h);
        told = true;
      }
      if (options.timeoutMs !== undefined && Date.now() - started >= options.timeoutMs) {
        throw new CaError('db_locked', `another process (pid ${h?.pid ?? '?'}, indexing ${h?.label ?? '?'} since ${h?.since ?? '?'}) holds the index lock ${this.path}`, {
          context: { path: this.path, holder: h },
        });
      }
      await new Promise((r) => setTimeout(r, options.pollMs ?? 100));
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      const h = JSON.parse(readFileSync(this.path, 'utf8')) as LockHolder;
      if (h.pid === process.pid && h.host === hostname()) unlinkSync(this.path);
    } catch {
      // Gone already (or taken over as stale by a process that thought this one dead).
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
