import type { PgClient } from './connection.js';
import { nodeRef, splitRef, type TeamSnapshot } from './search.js';

// The result facts of a search (decision 046, amended): what @ca/store's reader answers for the
// local search's `withFacts` (`nodeFacts`, `locationsByChunkHash`), over one label's snapshot.
// One statement per fact kind for all results. An edge is the snapshot's when its edge set is
// one of the snapshot's files'; its source node is that file's node at `source_ordinal`.

/** What a search result says about its symbol's place in the graph (the local `NodeFacts`). */
export interface TeamNodeFacts {
  /** Distinct symbols with a `calls` edge into it in the snapshot (a recursive call counts itself). */
  readonly callerCount: number;
  /** Qualified names of the alphabetically first `perSide` distinct callers and callees (itself left out), alphabetical. */
  readonly callers: readonly string[];
  readonly callees: readonly string[];
}

/** One place a chunk of code stands (the local `CodeLocation`; `ref` the node's ref). */
export interface TeamCodeLocation {
  readonly ref: number;
  readonly qualifiedName: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

function refColumns(refs: readonly number[]): [number[], number[]] {
  const parts = refs.map(splitRef);
  return [parts.map((p) => p.versionId), parts.map((p) => p.ordinal)];
}

// The snapshot's `calls` edges into a node `t(v, o)`, with their sources as (version, ordinal).
const CALLS_INTO = `FROM edges e JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.edge_set_id = e.edge_set_id
   WHERE e.repo_id = $1 AND e.target_version_id = t.v AND e.target_ordinal = t.o AND e.type = 'calls'`;

/**
 * Caller counts and neighbour names of `refs` (search results), as the local reader's
 * `nodeFacts`: the count of distinct callers; the names of the alphabetically first `perSide`
 * distinct callers and callees other than the node itself (binary order, `COLLATE "C"`, as
 * SQLite's). Every ref of the snapshot gets an entry. Three statements (count, callers, callees).
 */
export async function teamNodeFacts(client: PgClient, snap: TeamSnapshot, refs: readonly number[], perSide = 3): Promise<Map<number, TeamNodeFacts>> {
  const out = new Map<number, TeamNodeFacts>();
  if (refs.length === 0) return out;
  const [versions, ordinals] = refColumns(refs);
  const params = [snap.repoId, snap.snapshotId, versions, ordinals];
  const counts = await client.query<{ v: string; o: number; c: string }>(
    `SELECT t.v, t.o, (SELECT count(DISTINCT (sf.version_id, e.source_ordinal)) ${CALLS_INTO}) AS c
       FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       JOIN snapshot_files s ON s.repo_id = $1 AND s.snapshot_id = $2 AND s.version_id = t.v`,
    params);
  const callers = await neighbourNames(client, 'in', params, perSide);
  const callees = await neighbourNames(client, 'out', params, perSide);
  for (const row of counts.rows) {
    const ref = nodeRef(Number(row.v), row.o);
    out.set(ref, { callerCount: Number(row.c), callers: callers.get(ref) ?? [], callees: callees.get(ref) ?? [] });
  }
  return out;
}

/** Per ref, the qualified names of its first `perSide` distinct neighbours on one side, alphabetical. */
async function neighbourNames(client: PgClient, side: 'in' | 'out', params: readonly unknown[], perSide: number): Promise<Map<number, string[]>> {
  // Callers: sources of the snapshot's `calls` edges into the node. Callees: resolved targets of
  // the `calls` edges of the node's own file's edge set whose source is the node.
  const others = side === 'in'
    ? `SELECT DISTINCT sf.version_id AS nv, e.source_ordinal AS no ${CALLS_INTO}
         AND NOT (sf.version_id = t.v AND e.source_ordinal = t.o)`
    : `SELECT DISTINCT e.target_version_id AS nv, e.target_ordinal AS no
         FROM snapshot_files sf JOIN edges e ON e.repo_id = $1 AND e.edge_set_id = sf.edge_set_id
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = t.v AND e.source_ordinal = t.o AND e.type = 'calls'
          AND e.target_version_id IS NOT NULL AND NOT (e.target_version_id = t.v AND e.target_ordinal = t.o)`;
  const r = await client.query<{ v: string; o: number; names: string[] }>(
    `SELECT t.v, t.o, x.names FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       CROSS JOIN LATERAL (SELECT array_agg(q ORDER BY q COLLATE "C") AS names FROM (
         SELECT n.qualified_name AS q FROM (${others}) d
           JOIN nodes n ON n.repo_id = $1 AND n.version_id = d.nv AND n.ordinal = d.no
          ORDER BY n.qualified_name COLLATE "C" LIMIT $5) y) x
      WHERE x.names IS NOT NULL`,
    [...params, perSide]);
  return new Map(r.rows.map((row) => [nodeRef(Number(row.v), row.o), row.names] as const));
}

/**
 * Every node of the snapshot with one of `chunkHashes` (identical code: copied files, vendored
 * duplicates), by hash, in path order (binary), then line and ordinal, as the local reader's
 * `locationsByChunkHash`: `max` per hash at most, `total` counting them all. One statement.
 */
export async function teamLocationsByChunkHash(
  client: PgClient, snap: TeamSnapshot, chunkHashes: readonly string[], max = 20,
): Promise<Map<string, { locations: TeamCodeLocation[]; total: number }>> {
  const out = new Map<string, { locations: TeamCodeLocation[]; total: number }>();
  if (chunkHashes.length === 0) return out;
  const r = await client.query<{ hash: string; v: string; o: number; q: string; path: string; start_line: number; end_line: number }>(
    `SELECT n.chunk_hash AS hash, n.version_id AS v, n.ordinal AS o, n.qualified_name AS q, sf.path, n.start_line, n.end_line
       FROM nodes n JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = n.version_id
      WHERE n.repo_id = $1 AND n.chunk_hash = ANY($3::text[])
      ORDER BY n.chunk_hash COLLATE "C", sf.path COLLATE "C", n.start_line, n.ordinal`,
    [snap.repoId, snap.snapshotId, [...new Set(chunkHashes)]]);
  for (const row of r.rows) {
    let entry = out.get(row.hash);
    if (!entry) out.set(row.hash, (entry = { locations: [], total: 0 }));
    entry.total++;
    if (entry.locations.length < max) {
      entry.locations.push({ ref: nodeRef(Number(row.v), row.o), qualifiedName: row.q, path: row.path, startLine: row.start_line, endLine: row.end_line });
    }
  }
  return out;
}
