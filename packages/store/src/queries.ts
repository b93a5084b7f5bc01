/**
 * Intent-level reads behind filter-only queries (`ca find`), the context search results carry
 * (caller counts, neighbour names, the other locations of identical code) and file views.
 * Each takes the connection and the label; `IndexReader` exposes them as methods.
 */
import { CaError } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { filterSql, type NodeFilter } from './reader.js';
import { NODE_COLUMNS, toNode, type NodeRecord, type NodeRow } from './rows.js';
import { inLabelExists, inLabelJoin, labelEntriesCondition } from './labelScope.js';
import { selectAll, selectOne, selectValue } from './statements.js';

/** Where a page of `find` results starts after: the last row of the previous page. */
export interface FindCursor {
  readonly path: string;
  readonly startByte: number;
  readonly id: number;
}

export interface FindPage {
  readonly nodes: readonly NodeRecord[];
  /** Matching nodes in the label, all pages together. */
  readonly total: number;
  /** The cursor of the next page, or null on the last one. */
  readonly next: FindCursor | null;
}

/** The most rows one page of `find` returns. */
export const FIND_MAX_LIMIT = 1000;

/**
 * The label's nodes passing `filter`, in a stable order (path, position in the file, id), one
 * page at a time: after `cursor` (keyset, stable under concurrent appends) or from `offset`.
 */
export function findNodes(
  db: SqliteDatabase,
  label: string,
  filter: NodeFilter,
  page: { limit: number; offset?: number; after?: FindCursor | null },
): FindPage {
  const { limit } = page;
  if (!Number.isInteger(limit) || limit < 1 || limit > FIND_MAX_LIMIT) throw new CaError('invalid_query', `--limit must be an integer from 1 to ${FIND_MAX_LIMIT} (got ${limit})`);
  const offset = page.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new CaError('invalid_query', `--offset must be a non-negative integer (got ${offset})`);
  const params: unknown[] = [label];
  const where = filterSql(db, filter, params);
  const base = `FROM nodes n JOIN files f ON f.id = n.file_id
    ${inLabelJoin('n.file_id')}
    WHERE 1 = 1 ${where}`;
  const total = db.prepare(`SELECT COUNT(*) ${base}`).pluck().get(...params) as number;
  const after = page.after ?? null;
  const afterSql = after ? ` AND (f.path, n.start_byte, n.id) > (?, ?, ?)` : '';
  const rows = db
    .prepare(`SELECT ${NODE_COLUMNS} ${base}${afterSql} ORDER BY f.path, n.start_byte, n.id LIMIT ? OFFSET ?`)
    .all(...params, ...(after ? [after.path, after.startByte, after.id] : []), limit + 1, offset) as NodeRow[];
  const nodes = rows.slice(0, limit).map(toNode);
  const last = nodes[nodes.length - 1];
  return { nodes, total, next: rows.length > limit && last ? { path: last.path, startByte: last.startByte, id: last.id } : null };
}

/** What a search result says about its symbol's place in the graph. */
export interface NodeFacts {
  /** Distinct symbols with a call edge into it (in the label). */
  readonly callerCount: number;
  /** Qualified names of the alphabetically first `perSide` distinct callers and callees (itself left out). */
  readonly callers: readonly string[];
  readonly callees: readonly string[];
}

/**
 * Caller counts and neighbour names of a few nodes (search results), one query per side over
 * the `(target_id, type)` and `(source_id, type)` edge indexes, edges of the label only.
 */
export function nodeFacts(db: SqliteDatabase, label: string, nodeIds: readonly number[], perSide = 3): Map<number, NodeFacts> {
  const out = new Map<number, NodeFacts>();
  if (nodeIds.length === 0) return out;
  const ids = JSON.stringify(nodeIds);
  const labelId = selectValue<number>(db, `SELECT id FROM labels WHERE name = ?`, label);
  if (labelId === undefined) return out;
  const counts = selectAll<{ id: number; c: number }>(
    db,
    `SELECT t.value AS id, (SELECT COUNT(DISTINCT e.source_id) FROM edges e ${inLabelJoin('e.file_id', 'id')}
       WHERE e.target_id = t.value AND e.type = 'calls') AS c FROM json_each(?) t`,
    labelId,
    ids,
  );
  // The alphabetically first `perSide` distinct neighbours: an order of the names alone, so
  // every index of the same tree (and the team store, decision 046) names the same ones; the
  // first in index order depended on the order the parse workers finished. The count above
  // reads a hub's caller edges anyway; this adds a name lookup per distinct caller.
  const names = (side: 'in' | 'out') =>
    selectAll<{ id: number; names: string }>(
      db,
      `SELECT t.value AS id, (SELECT json_group_array(q) FROM (
         SELECT n.qualified_name AS q FROM (
           SELECT DISTINCT ${side === 'in' ? 'e.source_id' : 'e.target_id'} AS other FROM edges e
           ${inLabelJoin('e.file_id', 'id')}
           WHERE ${side === 'in' ? 'e.target_id' : 'e.source_id'} = t.value AND e.type = 'calls' AND e.target_id IS NOT NULL
             AND e.source_id <> e.target_id) x
         JOIN nodes n ON n.id = x.other ORDER BY q LIMIT ?)) AS names
       FROM json_each(?) t`,
      labelId,
      perSide,
      ids,
    );
  const callers = new Map(names('in').map((r) => [r.id, JSON.parse(r.names) as string[]]));
  const callees = new Map(names('out').map((r) => [r.id, JSON.parse(r.names) as string[]]));
  for (const r of counts) out.set(r.id, { callerCount: r.c, callers: callers.get(r.id) ?? [], callees: callees.get(r.id) ?? [] });
  return out;
}

/** One place a chunk of code stands. */
export interface CodeLocation {
  readonly id: number;
  readonly qualifiedName: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/**
 * Every node of the label with one of `chunkHashes` (identical code: copied files, vendored
 * duplicates), by hash, in path order; `max` per hash at most (their count is `total`).
 */
export function locationsByChunkHash(
  db: SqliteDatabase,
  label: string,
  chunkHashes: readonly string[],
  max = 20,
): Map<string, { locations: CodeLocation[]; total: number }> {
  const out = new Map<string, { locations: CodeLocation[]; total: number }>();
  if (chunkHashes.length === 0) return out;
  const rows = selectAll<CodeLocation & { hash: string }>(
    db,
    // The hashes drive the loop (CROSS JOIN keeps them outside): each is one lookup in nodes_chunk_hash.
    `SELECT n.chunk_hash AS hash, n.id, n.qualified_name AS qualifiedName, f.path, n.start_line AS startLine, n.end_line AS endLine
     FROM json_each(?) h CROSS JOIN nodes n ON n.chunk_hash = h.value JOIN files f ON f.id = n.file_id
     WHERE ${inLabelExists('n.file_id')}
     ORDER BY n.chunk_hash, f.path, n.start_line, n.id`,
    JSON.stringify([...new Set(chunkHashes)]),
    label,
  );
  for (const { hash, ...loc } of rows) {
    let entry = out.get(hash);
    if (!entry) out.set(hash, (entry = { locations: [], total: 0 }));
    entry.total++;
    if (entry.locations.length < max) entry.locations.push(loc);
  }
  return out;
}

/** A file version as the label holds it. */
export interface IndexedFile {
  readonly fileId: number;
  readonly path: string;
  /** Git blob id of the indexed content. */
  readonly contentHash: string;
  readonly lineCount: number;
  readonly parseStatus: string;
}

/** The label's version of `path`, or null when the label does not hold it. */
export function indexedFile(db: SqliteDatabase, label: string, path: string): IndexedFile | null {
  const row = selectOne<IndexedFile>(
    db,
    `SELECT f.id AS fileId, lf.path, f.content_hash AS contentHash, f.line_count AS lineCount, f.parse_status AS parseStatus
     FROM label_files lf JOIN files f ON f.id = lf.file_id
     WHERE ${labelEntriesCondition()} AND lf.path = ?`,
    label,
    path,
  );
  return row ?? null;
}
