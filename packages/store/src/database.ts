import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { CaError } from '@ca/schema';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from './migrations.js';
import { assertSqliteVersion } from './sqliteVersion.js';
import { assertNotTruncated } from './fileIntegrity.js';

/**
 * The subset of better-sqlite3 the store uses (keeps the driver swappable in one place, in the
 * manner of Kysely's `SqliteDatabase`). Only @ca/store holds one: the engine and the apps reach
 * the index through the store's intent-level methods.
 */
export type SqliteDatabase = Pick<BetterSqlite3.Database, 'prepare' | 'exec' | 'transaction' | 'pragma' | 'function' | 'close' | 'open' | 'readonly' | 'name' | 'loadExtension'>;

export interface OpenOptions {
  /** Open without running migrations or writing; fails if the file does not exist. */
  readonly readonly?: boolean;
  /** Milliseconds a connection waits on a lock before SQLITE_BUSY. */
  readonly busyTimeoutMs?: number;
  /** Skip `PRAGMA quick_check` (tests that open many databases). */
  readonly skipQuickCheck?: boolean;
}

const regexCache = new Map<string, RegExp>();

function regexpFunction(pattern: string, value: string | null): number {
  if (value === null) return 0;
  let re = regexCache.get(pattern);
  if (!re) {
    if (regexCache.size > 256) regexCache.clear();
    re = new RegExp(pattern);
    regexCache.set(pattern, re);
  }
  return re.test(value) ? 1 : 0;
}

/**
 * Opens (creating if needed) an index database: loads sqlite-vec, sets the PRAGMAs, runs
 * `PRAGMA quick_check`, and applies pending migrations. A database written by a newer
 * version of ca is refused with `schema_too_new`.
 */
export function openDatabase(path: string, options: OpenOptions = {}): SqliteDatabase {
  if (path !== ':memory:') {
    if (options.readonly && !existsSync(path)) {
      throw new CaError('not_found', `no index at ${path}: run \`ca index\` first`, { context: { path } });
    }
    mkdirSync(dirname(path), { recursive: true });
    assertNotTruncated(path);
  }
  let db: SqliteDatabase;
  try {
    db = new BetterSqlite3(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (e) {
    throw new CaError('io_error', `cannot open index ${path}: ${(e as Error).message}${writeAccessHint(path)}`, { cause: e, context: { path } });
  }
  try {
    assertSqliteVersion(String(db.prepare('SELECT sqlite_version()').pluck().get()));
    sqliteVec.load(db);
    db.function('regexp', { deterministic: true }, (pattern: unknown, value: unknown) =>
      regexpFunction(String(pattern), value === null ? null : String(value)),
    );
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (!options.readonly) {
      // Switching to WAL takes an exclusive lock SQLite does not wait for: a second process
      // opening a new index at the same moment retries instead of failing.
      retryBusy(() => db.pragma('journal_mode = WAL'), options.busyTimeoutMs ?? 5000);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    if (!options.skipQuickCheck && path !== ':memory:') {
      const rows = db.pragma('quick_check') as { quick_check: string }[];
      const first = rows[0]?.quick_check;
      if (first !== 'ok') {
        throw new CaError('db_corrupt', `index ${path} failed PRAGMA quick_check: ${first ?? 'no answer'}`, {
          context: { path },
        });
      }
    }
    if (!options.readonly) retryBusy(() => migrate(db, path), options.busyTimeoutMs ?? 5000);
    else checkVersion(db, path);
    return db;
  } catch (e) {
    db.close();
    if (e instanceof CaError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN') {
      throw new CaError('io_error', `cannot open index ${path}: ${(e as Error).message}${writeAccessHint(path)}`, { cause: e, context: { path } });
    }
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new CaError('db_corrupt', `${path} is not a valid index database: ${(e as Error).message}`, {
        cause: e,
        context: { path },
      });
    }
    throw new CaError('io_error', `cannot open index ${path}: ${(e as Error).message}`, { cause: e, context: { path } });
  }
}

/** Runs `fn`, retrying while SQLite answers SQLITE_BUSY, for at most `timeoutMs`. */
function retryBusy<T>(fn: () => T, timeoutMs: number): T {
  const until = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      return fn();
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= until) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
  }
}

function currentVersion(db: SqliteDatabase): number {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='_metadata'`).get();
  if (!hasMeta) return 0;
  const row = db.prepare(`SELECT value FROM _metadata WHERE key='schema_version'`).get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

function checkVersion(db: SqliteDatabase, path: string): number {
  const version = currentVersion(db);
  if (version > LATEST_SCHEMA_VERSION) {
    throw new CaError(
      'schema_too_new',
      `index ${path} has schema version ${version}, newer than this ca supports (${LATEST_SCHEMA_VERSION}); upgrade ca or delete the index to rebuild it`,
      { context: { path } },
    );
  }
  return version;
}

/** Applies every migration newer than the database's schema_version, each in a transaction. */
export function migrate(db: SqliteDatabase, path = ':memory:'): number {
  db.exec(`CREATE TABLE IF NOT EXISTS _metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
           CREATE TABLE IF NOT EXISTS _migration_log (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);`);
  let version = checkVersion(db, path);
  for (const m of MIGRATIONS) {
    if (m.version <= version) continue;
    // A pragma, not allowed inside a transaction: set around it.
    const foreignKeys = m.rebuildsTables === true && db.pragma('foreign_keys', { simple: true }) === 1;
    if (foreignKeys) db.pragma('foreign_keys = OFF');
    try {
      applyMigration(db, path, m);
    } finally {
      if (foreignKeys) db.pragma('foreign_keys = ON');
    }
    version = m.version;
  }
  return version;
}

/** Runs one migration in an immediate transaction, recording it. */
function applyMigration(db: SqliteDatabase, path: string, m: (typeof MIGRATIONS)[number]): void {
  db.transaction(() => {
    // Another process may have applied it meanwhile.
    if (checkVersion(db, path) >= m.version) return;
    db.exec(m.sql);
    m.run?.(db);
    if (m.rebuildsTables === true) {
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new Error(`migration ${m.version}: ${broken.length} rows break foreign keys after the rebuild`);
    }
    db.prepare(`INSERT INTO _migration_log(version, name, applied_at) VALUES (?, ?, ?)`).run(
      m.version,
      m.name,
      new Date().toISOString(),
    );
    db.prepare(`INSERT INTO _metadata(key, value) VALUES ('schema_version', ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(String(m.version));
  }).immediate();
}


/**
 * Why an index cannot be opened for writing, when that is the reason: the file or its directory
 * is not writable (a read-only mount, permissions). WAL mode needs to create `-wal`/`-shm` files
 * beside the index, so even read commands need write access to the directory.
 */
function writeAccessHint(path: string): string {
  for (const [target, what] of [[path, 'the index file'], [dirname(path), 'its directory']] as const) {
    try {
      accessSync(target, constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EROFS') return ` (${what} is on a read-only file system; ca needs write access beside the index for its WAL files)`;
      if (code === 'EACCES' || code === 'EPERM') return ` (${what} is not writable; ca needs write access beside the index for its WAL files)`;
    }
  }
  return '';
}
