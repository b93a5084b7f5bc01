import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export type Statement = BetterSqlite3.Statement<unknown[]>;

// Readers (IndexReader, GraphReader) are cheap objects built per call; preparing the same SQL
// again on every call showed up in profiles of navigation and search, and of a busy MCP server
// (a quarter of its time went to runs that found nothing changed, most of that preparing the
// same statements again). Every per-call query of the store goes through here. One cache per
// connection.
const statementCache = new WeakMap<SqliteDatabase, Map<string, Statement>>();

/**
 * `sql` prepared once per connection. The statement is shared by every caller of the same SQL:
 * never switch its mode (`pluck()`, `raw()`), which would change what the others read — use
 * `cachedPluck` / `cachedRaw`.
 */
export function cachedStatement(db: SqliteDatabase, sql: string): Statement {
  return cachedIn(db, sql, '', (stmt) => stmt);
}

/** `sql` prepared once per connection in pluck mode (first column only), apart from `cachedStatement`'s. */
export function cachedPluck(db: SqliteDatabase, sql: string): Statement {
  return cachedIn(db, sql, 'pluck\0', (stmt) => stmt.pluck());
}

/** `sql` prepared once per connection in raw mode (rows as arrays), apart from `cachedStatement`'s. */
export function cachedRaw(db: SqliteDatabase, sql: string): Statement {
  return cachedIn(db, sql, 'raw\0', (stmt) => stmt.raw());
}

/** Statements kept per connection (SQL built with IN lists of varying length makes many texts); the least recently used go first. */
export const STATEMENT_CACHE_SIZE = 512;

function cachedIn(db: SqliteDatabase, sql: string, mode: string, setMode: (stmt: Statement) => Statement): Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  const key = mode + sql;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Still iterating (a caller's loop runs the same SQL again): a statement of its own.
    if (hit.busy) return setMode(db.prepare(sql));
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  const stmt = setMode(db.prepare(sql));
  cache.set(key, stmt);
  return stmt;
}

// Typed reads. The driver hands back `unknown` rows; these say once what a statement's rows are
// (the row types of rows.ts), so queries need no cast each. They are the read half of the small
// driver contract a second backend implements (all rows, one row, one column, one value).

/** Every row of `sql` (cached statement) bound to `params`, typed as `R`. */
export function selectAll<R>(db: SqliteDatabase, sql: string, ...params: readonly unknown[]): R[] {
  return cachedStatement(db, sql).all(...params) as R[];
}

/** The first row of `sql` bound to `params`, or undefined. */
export function selectOne<R>(db: SqliteDatabase, sql: string, ...params: readonly unknown[]): R | undefined {
  return cachedStatement(db, sql).get(...params) as R | undefined;
}

/** The first column of every row of `sql` bound to `params`. */
export function selectColumn<T>(db: SqliteDatabase, sql: string, ...params: readonly unknown[]): T[] {
  return cachedPluck(db, sql).all(...params) as T[];
}

/** The first column of the first row of `sql` bound to `params`, or undefined. */
export function selectValue<T>(db: SqliteDatabase, sql: string, ...params: readonly unknown[]): T | undefined {
  return cachedPluck(db, sql).get(...params) as T | undefined;
}

/**
 * Changes whenever the database does: this connection's `total_changes()` (its own writes) and
 * `PRAGMA data_version` (commits by other connections). Per-connection caches compare it.
 */
export function changeStamp(db: SqliteDatabase): string {
  return selectValue<string>(db, `SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version())`)!;
}

/** The `_metadata` value of `key`, or null: one statement for every reader and writer of it. */
export function readMetadata(db: SqliteDatabase, key: string): string | null {
  return selectValue<string>(db, `SELECT value FROM _metadata WHERE key = ?`, key) ?? null;
}
