import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export type Statement = BetterSqlite3.Statement<unknown[]>;

// Readers (IndexReader, GraphReader) are cheap objects built per call; preparing the same SQL
// again on every call showed up in profiles of navigation and search. One cache per connection.
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

function cachedIn(db: SqliteDatabase, sql: string, mode: string, setMode: (stmt: Statement) => Statement): Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let stmt = cache.get(mode + sql);
  if (!stmt) cache.set(mode + sql, (stmt = setMode(db.prepare(sql))));
  return stmt;
}

/**
 * Changes whenever the database does: this connection's `total_changes()` (its own writes) and
 * `PRAGMA data_version` (commits by other connections). Per-connection caches compare it.
 */
export function changeStamp(db: SqliteDatabase): string {
  return (cachedStatement(db, `SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version()) AS s`).get() as { s: string }).s;
}
