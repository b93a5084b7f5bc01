import type { Kysely } from 'kysely';
import { createKysely, openDatabase, type OpenOptions, type SqliteDatabase } from './database.js';
import { IndexReader } from './reader.js';
import { ImportResolver } from './resolver.js';
import type { Database } from './tables.js';
import { IndexWriter } from './writer.js';

/**
 * One repository's index: a SQLite file with the graph, FTS5 and vectors. Writes go through
 * `writer` (the single write path); reads through `reader(label)` or the typed `kysely`.
 */
export class Store {
  readonly writer: IndexWriter;
  private kyselyInstance: Kysely<Database> | null = null;

  private constructor(
    readonly db: SqliteDatabase,
    readonly path: string,
  ) {
    this.writer = new IndexWriter(db);
  }

  /** Opens or creates the index at `path` (migrating it); see `openDatabase`. */
  static open(path: string, options: OpenOptions = {}): Store {
    return new Store(openDatabase(path, options), path);
  }

  /** Read queries scoped to a label (default `working`). */
  reader(label = 'working'): IndexReader {
    return new IndexReader(this.db, label);
  }

  /** Resolves name-based edges across modules of the label; returns how many were resolved. */
  resolveImports(label = 'working'): number {
    return new ImportResolver(this.db, label).resolvePending();
  }

  /** A typed query builder over the same connection. */
  get kysely(): Kysely<Database> {
    this.kyselyInstance ??= createKysely(this.db);
    return this.kyselyInstance;
  }

  /** Checkpoints the WAL and closes the connection. */
  close(): void {
    if (!this.db.open) return;
    try {
      if (!this.db.readonly) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }
}
