/**
 * The nodes of a label a filter selects, read in keyset-paged batches for graph export (`ca
 * graph`): a whole-repository graph is written as it is read, never held whole.
 */
import type { Language, NodeKind } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { inLabelJoin } from './labelScope.js';
import { filterSql, type NodeFilter } from './reader.js';

/** The fields a graph export writes for a node. */
export interface ExportNode {
  readonly id: number;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly name: string;
  readonly qualifiedName: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** Rows per query: large enough that paging costs little, small enough to bound memory. */
export const EXPORT_BATCH = 2000;

interface ExportRow {
  id: number;
  kind: string;
  language: string;
  name: string;
  qualified_name: string;
  path: string;
  start_line: number;
  end_line: number;
  start_byte: number;
}

/** `FROM … WHERE …` of the label's nodes passing the filter (the label and the filter's values bound). */
function exportScope(filter: NodeFilter | undefined, db: SqliteDatabase, label: string): { from: string; params: unknown[] } {
  const params: unknown[] = [label];
  const where = filterSql(db, filter, params);
  return {
    from: `FROM nodes n JOIN files f ON f.id = n.file_id ${inLabelJoin('n.file_id')}
      WHERE 1 = 1 ${where}`,
    params,
  };
}

/** How many of the label's nodes pass the filter. */
export function countExportNodes(db: SqliteDatabase, label: string, filter: NodeFilter | undefined): number {
  const { from, params } = exportScope(filter, db, label);
  return db.prepare(`SELECT COUNT(*) ${from}`).pluck().get(...params) as number;
}

/**
 * The label's nodes passing the filter in (path, start byte, id) order, at most `limit`, one
 * batch per query. Each batch is a separate statement run, so the caller may use the connection
 * between batches (an open `iterate()` would hold it busy).
 */
export function* exportNodes(db: SqliteDatabase, label: string, filter: NodeFilter | undefined, limit: number): Generator<ExportNode[]> {
  const { from, params } = exportScope(filter, db, label);
  const columns = `n.id, n.kind, n.language, n.name, n.qualified_name, lf.path, n.start_line, n.end_line, n.start_byte`;
  // Prepared per export: the condition's text depends on the filter.
  const first = db.prepare(`SELECT ${columns} ${from} ORDER BY lf.path, n.start_byte, n.id LIMIT ?`);
  const next = db.prepare(`SELECT ${columns} ${from} AND (lf.path, n.start_byte, n.id) > (?, ?, ?) ORDER BY lf.path, n.start_byte, n.id LIMIT ?`);
  let left = limit;
  let last: ExportRow | undefined;
  while (left > 0) {
    const size = Math.min(EXPORT_BATCH, left);
    const rows = (last === undefined ? first.all(...params, size) : next.all(...params, last.path, last.start_byte, last.id, size)) as ExportRow[];
    if (rows.length === 0) return;
    left -= rows.length;
    last = rows[rows.length - 1];
    yield rows.map(toExportNode);
    if (rows.length < size) return;
  }
}

function toExportNode(r: ExportRow): ExportNode {
  return {
    id: r.id,
    kind: r.kind as NodeKind,
    language: r.language as Language,
    name: r.name,
    qualifiedName: r.qualified_name,
    path: r.path,
    startLine: r.start_line,
    endLine: r.end_line,
  };
}
