import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { CaError } from '@ca/schema';
import { Session, type SessionOptions } from './session.js';

/** What every session of the pool is opened with (the repository aside). */
export type PoolSessionOptions = Omit<SessionOptions, 'repo' | 'dbPath'>;

/** Where the tools get the session of the repository a call names (or the default one). */
export interface RepoSessions {
  /** The repositories a call may name, as given (absolute). */
  readonly repos: readonly string[];
  /** Whether tools take a `repo` argument (a server with one repository does not need it). */
  readonly multiRepo: boolean;
  /** Runs `work` with the session of `repo` (default: the only or first allowed one); refuses a repository outside the allow-list. */
  use<T>(repo: string | undefined, work: (session: Session) => Promise<T>): Promise<T>;
  /** The session of `repo` without holding it (status of the pool, warm-up). */
  peek(repo?: string): Session;
  close(): Promise<void>;
}

/** A repository path as the pool keys it: absolute and, when it exists, with links resolved. */
export function repoKey(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch (e) {
    // A repository that does not exist yet is kept as given: opening it reports `invalid_path`.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return abs;
    throw e;
  }
}

function outsideAllowList(repo: string, allowed: readonly string[]): CaError {
  return new CaError('invalid_path', `repository ${repo} is not served by this server (allowed: ${allowed.join(', ')})`, { context: { path: repo } });
}

/** stdio: one repository, one session, for the life of the process. */
export class SingleRepo implements RepoSessions {
  readonly multiRepo = false;
  readonly repos: readonly string[];
  private readonly key: string;
  constructor(readonly session: Session) {
    this.repos = [resolve(session.options.repo)];
    this.key = repoKey(session.options.repo);
  }

  use<T>(repo: string | undefined, work: (session: Session) => Promise<T>): Promise<T> {
    return work(this.peek(repo));
  }

  peek(repo?: string): Session {
    if (repo !== undefined && repoKey(repo) !== this.key) throw outsideAllowList(repo, this.repos);
    return this.session;
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

export interface PoolOptions {
  /** The allow-list: repositories the server may open (`--repo`, repeatable). */
  readonly repos: readonly string[];
  /** Index file per repository (tests); default `<repo>/.codeagent/index.db`. */
  readonly dbPathOf?: (repo: string) => string | undefined;
  readonly session: PoolSessionOptions;
  /** Most engines kept open at once (default 4); past it the least recently used idle one closes. */
  readonly maxOpen?: number;
  /** An engine unused this long closes (default 15 minutes). */
  readonly idleMs?: number;
  /** Resident memory over which idle engines close, least recently used first (default 2 GiB). */
  readonly memoryBudgetBytes?: number;
  /** Resident memory of the process (tests inject it). */
  readonly rss?: () => number;
}

/** How long a resident-memory reading is used before it is taken again. */
const RSS_READING_MS = 1000;

interface Entry {
  readonly key: string;
  readonly session: Session;
  lastUsed: number;
  inUse: number;
}

/**
 * HTTP: warm engines for several repositories shared by every agent session. A repository's
 * session opens on first use; the least recently used idle one closes when more than `maxOpen`
 * are open, when it stayed unused for `idleMs`, or when the process is over its memory budget.
 * A session in use is never closed under a call.
 */
export class SessionPool implements RepoSessions {
  readonly multiRepo = true;
  readonly repos: readonly string[];
  private readonly allowed: Map<string, string>;
  private readonly open = new Map<string, Entry>();
  private readonly closing = new Set<Promise<void>>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  /** The last resident-memory reading and when it was taken: reading /proc on every call would add its cost to every answer. */
  private rssReading = { at: Number.NEGATIVE_INFINITY, bytes: 0 };

  constructor(private readonly options: PoolOptions) {
    if (options.repos.length === 0) throw new CaError('usage', 'an HTTP server needs at least one --repo to serve');
    this.repos = options.repos.map((r) => resolve(r));
    this.allowed = new Map(options.repos.map((r) => [repoKey(r), resolve(r)]));
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1_000, (options.idleMs ?? 15 * 60_000) / 4)));
    this.sweeper.unref();
  }

  /** Repositories with an open engine, most recently used first. */
  openRepos(): string[] {
    return [...this.open.values()].sort((a, b) => b.lastUsed - a.lastUsed).map((e) => e.session.options.repo);
  }

  peek(repo?: string): Session {
    return this.entry(repo).session;
  }

  async use<T>(repo: string | undefined, work: (session: Session) => Promise<T>): Promise<T> {
    const entry = this.entry(repo);
    entry.inUse++;
    entry.lastUsed = Date.now();
    try {
      return await work(entry.session);
    } finally {
      entry.inUse--;
      entry.lastUsed = Date.now();
      this.sweep();
    }
  }

  private entry(repo: string | undefined): Entry {
    if (this.closed) throw new CaError('internal', 'the server is shutting down');
    let key: string;
    if (repo === undefined) {
      if (this.allowed.size > 1) {
        throw new CaError('usage', `this server serves several repositories: name one with repo (one of ${this.repos.join(', ')})`);
      }
      key = this.allowed.keys().next().value!;
    } else {
      key = repoKey(repo);
      if (!this.allowed.has(key)) throw outsideAllowList(repo, this.repos);
    }
    let entry = this.open.get(key);
    if (!entry) {
      const path = this.allowed.get(key)!;
      const dbPath = this.options.dbPathOf?.(path);
      entry = { key, session: new Session({ ...this.options.session, repo: path, ...(dbPath ? { dbPath } : {}) }), lastUsed: Date.now(), inUse: 0 };
      this.open.set(key, entry);
      this.evict(entry);
    }
    return entry;
  }

  /** Closes idle sessions: over the count, idle too long, or over the memory budget (LRU first). */
  private sweep(): void {
    const now = Date.now();
    const idleMs = this.options.idleMs ?? 15 * 60_000;
    for (const e of [...this.open.values()]) {
      if (e.inUse === 0 && now - e.lastUsed >= idleMs) this.release(e, 'idle');
    }
    this.evict(null);
  }

  private evict(keep: Entry | null): void {
    const maxOpen = this.options.maxOpen ?? 4;
    const budget = this.options.memoryBudgetBytes ?? 2 * 1024 ** 3;
    const rss = () => {
      if (this.options.rss) return this.options.rss();
      const now = Date.now();
      if (now - this.rssReading.at >= RSS_READING_MS) this.rssReading = { at: now, bytes: process.memoryUsage.rss() };
      return this.rssReading.bytes;
    };
    const idle = () => [...this.open.values()].filter((e) => e !== keep && e.inUse === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const e of idle()) {
      if (this.open.size <= maxOpen) break;
      this.release(e, `more than ${maxOpen} repositories open`);
    }
    for (const e of idle()) {
      if (rss() <= budget) break;
      this.release(e, 'over the memory budget');
    }
  }

  private release(e: Entry, why: string): void {
    this.open.delete(e.key);
    e.session.options.log(`closing the engine of ${e.session.options.repo} (${why})`);
    const done = e.session.close().catch((err: unknown) => e.session.options.log(`closing ${e.session.options.repo} failed: ${String(err)}`));
    this.closing.add(done);
    void done.finally(() => this.closing.delete(done));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.open.values()].map((e) => e.session.close()));
    this.open.clear();
    await Promise.all([...this.closing]);
  }
}
