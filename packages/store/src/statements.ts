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
