import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import { selectOne, selectValue } from './statements.js';

// FTS5's `bm25()` reads the row count and each column's total tokens (its average document
// length) from the table's averages record (`fts_nodes_data` row 1). A contentless-delete table
// (ours: `content='', contentless_delete=1`) cannot see a deleted row's tokens, so a DELETE
// leaves both in the record: every node rewritten (an edited file, a merged C# fragment, the
// semantic pass) inflates them, and BM25 scores come to depend on the index's history — a clean
// index of the same tree ranks with other numbers, and so does the team store, which counts the
// snapshot's rows (decision 046). The per-row sizes (`fts_nodes_docsize`) stay exact: the record
// is recomputed from them.

/** The row count and per-column token totals of the FTS table. */
export interface FtsTotals {
  readonly rows: number;
  readonly columns: readonly number[];
}

/** SQLite's varints (big-endian groups of 7 bits; FTS5's records), decoded in order. */
export function decodeVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let v = 0;
    for (let n = 0; ; n++) {
      const b = buf[i++]!;
      // The ninth byte of a varint carries 8 bits (never reached by a token count).
      if (n === 8) {
        v = v * 256 + b;
        break;
      }
      v = v * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
    out.push(v);
  }
  return out;
}

/** SQLite's varint of a non-negative integer under 2^56 (what `decodeVarints` reads). */
export function encodeVarint(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`varint of ${value}`);
  const groups: number[] = [];
  let v = value;
  do {
    groups.unshift(v % 128);
    v = Math.floor(v / 128);
  } while (v > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? g | 0x80 : g));
}

/** What the averages record says (null: the table has none yet). */
export function recordedFtsTotals(db: SqliteDatabase): FtsTotals | null {
  const row = selectOne<{ block: Uint8Array }>(db, `SELECT block FROM fts_nodes_data WHERE id = 1`);
  if (!row) return null;
  const [rows = 0, ...columns] = decodeVarints(row.block);
  return { rows, columns };
}

/** The true totals: the rows the table holds and the sum of their column sizes. */
export function actualFtsTotals(db: SqliteDatabase, columnCount: number): FtsTotals {
  const columns = new Array<number>(columnCount).fill(0);
  let rows = 0;
  for (const r of db.prepare(`SELECT sz FROM fts_nodes_docsize`).iterate() as IterableIterator<{ sz: Uint8Array }>) {
    rows++;
    decodeVarints(r.sz).forEach((v, i) => (columns[i] = (columns[i] ?? 0) + v));
  }
  return { rows, columns };
}

/**
 * Puts the FTS table's averages record back to the rows it holds when deletes left it counting
 * more (see above); returns the totals before and after, or null when nothing drifted. Runs
 * outside any transaction (FTS5 writes its cached totals back when a writing transaction
 * commits); the record is a shadow table, writable only with SQLite's defensive mode off for
 * that one statement.
 */
export function repairFtsTotals(db: SqliteDatabase): { before: FtsTotals; after: FtsTotals } | null {
  const before = recordedFtsTotals(db);
  if (!before) return null;
  // Every contentless delete leaves the row count one too high: equal counts, nothing drifted.
  const rows = selectValue<number>(db, `SELECT count(*) FROM fts_nodes_docsize`) ?? 0;
  if (rows === before.rows) return null;
  const full = db as SqliteDatabase & Partial<Pick<BetterSqlite3.Database, 'unsafeMode' | 'inTransaction'>>;
  if (full.inTransaction === true || typeof full.unsafeMode !== 'function') return null; // why: the next run outside a transaction repairs it
  const after = actualFtsTotals(db, before.columns.length);
  const block = Uint8Array.from([after.rows, ...after.columns].flatMap(encodeVarint));
  full.unsafeMode(true);
  try {
    db.prepare(`UPDATE fts_nodes_data SET block = ? WHERE id = 1`).run(block);
  } finally {
    full.unsafeMode(false);
  }
  return { before, after };
}
