import type { SqliteDatabase } from './database.js';
import type { VectorStore } from './vectors.js';
import type { IndexWriter } from './writer.js';
import { cachedStatement, selectColumn, selectOne, selectValue } from './statements.js';
import { repairFtsTotals, type FtsTotals } from './ftsTotals.js';

/** What `gc` reclaimed. */
export interface GcReport {
  /** File versions no label held, dropped with their nodes (journaled), edges and FTS rows. */
  readonly versions: number;
  readonly nodes: number;
  readonly edges: number;
  readonly ftsRows: number;
  /** Vectors no node uses any more (or of another model). */
  readonly embeddings: number;
  /** Stored file bytes no version references. */
  readonly contents: number;
  /** `deletion_log` rows past the retention (age or count). */
  readonly journal: number;
  /** `events` rows past the cap. */
  readonly events: number;
  /** Bytes of the database file freed for reuse (pages now on the free list). */
  readonly bytesFreed: number;
  /** The database file's size (bytes) after. */
  readonly fileBytes: number;
}

export interface GcOptions {
  /** Journal rows older than this many days go (default 30). */
  readonly journalDays?: number;
  /** At most this many journal rows stay, newest first (default 100,000). */
  readonly journalMaxRows?: number;
  /** At most this many events stay, newest first (default 10,000). */
  readonly eventsMaxRows?: number;
  /** Only the cheap sweeps (no version or vector collection): what every index run does. */
  readonly sweepOnly?: boolean;
}

export const JOURNAL_DAYS = 30;
/** Orphan vectors an index run collects: more than this many, and more than this share of all vectors. */
export const ORPHAN_VECTORS_MIN = 256;
export const ORPHAN_VECTORS_SHARE = 0.05;
export const JOURNAL_MAX_ROWS = 100_000;
export const EVENTS_MAX_ROWS = 10_000;

/** Collects what no label references any more, and sweeps the journals. */
export class Maintenance {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly writer: IndexWriter,
    private readonly vectors: () => VectorStore,
  ) {}

  /**
   * Drops file versions no label holds (nodes journaled, edges and FTS rows with them), vectors
   * no node uses, stored bytes no version references, and journal/event rows past their
   * retention. Each step is its own transaction; readers see each before or after.
   */
  gc(options: GcOptions = {}): GcReport {
    const before = this.freeBytes();
    let versions = 0;
    let nodes = 0;
    let edges = 0;
    let embeddings = 0;
    let contents = 0;
    if (!options.sweepOnly) {
      const orphans = selectColumn<number>(this.db, `SELECT f.id FROM files f WHERE NOT EXISTS (SELECT 1 FROM label_files lf WHERE lf.file_id = f.id)`);
      for (let i = 0; i < orphans.length; i += 500) {
        const part = orphans.slice(i, i + 500);
        edges += selectValue<number>(this.db, `SELECT COUNT(*) FROM edges WHERE file_id IN (SELECT value FROM json_each(?))`, JSON.stringify(part))!;
        const stats = this.writer.releaseVersions(part, 'garbage collected: no label holds the version');
        versions += stats.files;
        nodes += stats.nodesDeleted;
      }
      embeddings = this.vectors().gc();
      contents = cachedStatement(this.db, `DELETE FROM file_contents WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.content_hash = file_contents.content_hash)`)
        .run().changes;
    }
    const days = options.journalDays ?? JOURNAL_DAYS;
    const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
    const journal = this.db.transaction(() => {
      let n = cachedStatement(this.db, `DELETE FROM deletion_log WHERE deleted_at < ?`).run(cutoff).changes;
      n += cachedStatement(this.db, `DELETE FROM deletion_log WHERE id <= (SELECT id FROM deletion_log ORDER BY id DESC LIMIT 1 OFFSET ?)`)
        .run(options.journalMaxRows ?? JOURNAL_MAX_ROWS).changes;
      return n;
    })();
    const events = cachedStatement(this.db, `DELETE FROM events WHERE id <= (SELECT id FROM events ORDER BY id DESC LIMIT 1 OFFSET ?)`)
      .run(options.eventsMaxRows ?? EVENTS_MAX_ROWS).changes;
    if (nodes > 0) this.repairFtsTotals();
    const after = this.freeBytes();
    return { versions, nodes, edges, ftsRows: nodes, embeddings, contents, journal, events, bytesFreed: Math.max(0, after.free - before.free), fileBytes: after.total };
  }

  /**
   * What every index run that changed files does: sweeps the journals past their retention, and
   * collects orphan vectors once they are many (deleting vectors makes the in-memory vector index
   * rebuild, so a single edit's few orphans wait for company). Bounded, never unbounded growth.
   */
  sweep(): { journal: number; events: number; embeddings: number } {
    const r = this.gc({ sweepOnly: true });
    const vectors = this.vectors();
    const orphans = vectors.orphanCount();
    const embeddings = orphans > ORPHAN_VECTORS_MIN && orphans > vectors.count() * ORPHAN_VECTORS_SHARE ? vectors.gc() : 0;
    return { journal: r.journal, events: r.events, embeddings };
  }

  /**
   * Puts the FTS table's BM25 statistics (row count, column totals) back to the rows it holds
   * when deletes left them counting more (ftsTotals.ts): BM25 scores then depend on the indexed
   * tree, not on the index's history. Called after each index run that wrote and after `gc`.
   */
  repairFtsTotals(): { before: FtsTotals; after: FtsTotals } | null {
    return repairFtsTotals(this.db);
  }

  /** `PRAGMA quick_check`'s first line (`ok` when intact). */
  quickCheck(): string {
    return this.db.pragma('quick_check', { simple: true }) as string;
  }

  /** Versions of the SQLite library and of sqlite-vec in use. */
  versions(): { sqlite: string; sqliteVec: string } {
    const r = selectOne<{ sqlite: string; sqliteVec: string }>(this.db, `SELECT sqlite_version() AS sqlite, vec_version() AS sqliteVec`)!;
    return r;
  }

  private freeBytes(): { free: number; total: number } {
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const free = this.db.pragma('freelist_count', { simple: true }) as number;
    const pages = this.db.pragma('page_count', { simple: true }) as number;
    return { free: free * pageSize, total: pages * pageSize };
  }
}
