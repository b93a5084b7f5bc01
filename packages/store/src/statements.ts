import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export type Statement = BetterSqlite3.Statement<unknown[]>;

// Readers (IndexReader, GraphReader) are cheap objects built per call; preparing the same SQL
// again on every call showed up in profiles of navigation and search. One cache per connection.
const statementCache = new WeakMap<SqliteDatabase, Map<string, Statement>>();

/** `sql` prepared once per connection. */
export function cachedStatement(db: SqliteDatabase, sql: string): Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/**
 * Changes whenever the database does: this connection's `total_changes()` (its own writes) and
 * `PRAGMA data_version` (commits by other connections). Per-connection caches compare it.
 */
export function changeStamp(db: SqliteDatabase): string {
  return (cachedStatement(db, `SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version()) AS s`).get() as { s: string }).s;
}
