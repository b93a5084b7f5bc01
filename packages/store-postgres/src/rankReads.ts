import type { FilterNode } from '@ca/schema';
import type { PgClient } from './connection.js';
import { compileTeamFilter, filterNeedsPaths, nodeRef, snapshotPaths, splitRef, type TeamSnapshot } from './search.js';

// The graph reads of the ranking (decision 046): what @ca/store's reader answers for the local
// search's rescoring and hub elevation, over one label's snapshot. Edges belong to a file's edge
// set; an edge is the snapshot's when its set is one of the snapshot's files'.

function refColumns(refs: readonly number[]): [number[], number[]] {
  const parts = refs.map(splitRef);
  return [parts.map((p) => p.versionId), parts.map((p) => p.ordinal)];
}

/**
 * Per node, the distinct files holding `calls`/`references` edges into it (among its first
 * `scan` such edges, at most `cap`), as the local reader's `callerFileCounts`; nodes without any
 * are left out.
 */
export async function callerFileCounts(client: PgClient, snap: TeamSnapshot, refs: readonly number[], cap = 10, scan = 256): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (refs.length === 0) return out;
  const [versions, ordinals] = refColumns(refs);
  const r = await client.query<{ v: string; o: number; c: string }>(
    `SELECT t.v, t.o, (SELECT count(DISTINCT s.path) FROM (
        SELECT sf.path FROM edges e JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.edge_set_id = e.edge_set_id
         WHERE e.repo_id = $1 AND e.target_version_id = t.v AND e.target_ordinal = t.o AND e.type IN ('calls', 'references') LIMIT $5) s) AS c
       FROM unnest($3::bigint[], $4::int[]) AS t(v, o)`,
    [snap.repoId, snap.snapshotId, versions, ordinals, scan]);
  for (const row of r.rows) {
    const c = Number(row.c);
    if (c > 0) out.set(nodeRef(Number(row.v), row.o), Math.min(c, cap));
  }
  return out;
}

/**
 * The nodes one `types` edge away from each seed, either way (as the local reader's
 * `neighbours`): targets of the seeds' edges, sources of edges into them; distinct pairs.
 */
export async function neighbourPairs(client: PgClient, snap: TeamSnapshot, seeds: readonly number[], types: readonly string[]): Promise<{ neighbour: number; seed: number }[]> {
  if (seeds.length === 0) return [];
  const [versions, ordinals] = refColumns(seeds);
  const r = await client.query<{ nv: string; no: number; sv: string; so: number }>(
    `SELECT e.target_version_id AS nv, e.target_ordinal AS no, t.v AS sv, t.o AS so
       FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = t.v
       JOIN edges e ON e.repo_id = $1 AND e.edge_set_id = sf.edge_set_id AND e.source_ordinal = t.o
      WHERE e.target_version_id IS NOT NULL AND e.type = ANY($5::text[])
     UNION
     SELECT sf.version_id, e.source_ordinal, t.v, t.o
       FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       JOIN edges e ON e.repo_id = $1 AND e.target_version_id = t.v AND e.target_ordinal = t.o
       JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.edge_set_id = e.edge_set_id
      WHERE e.type = ANY($5::text[])`,
    [snap.repoId, snap.snapshotId, versions, ordinals, [...types]]);
  return r.rows.map((row) => ({ neighbour: nodeRef(Number(row.nv), row.no), seed: nodeRef(Number(row.sv), row.so) }));
}

/** The refs among `refs` that pass the filter (a set), or null without a filter (all pass). */
export async function refsPassing(client: PgClient, snap: TeamSnapshot, refs: readonly number[], filter: FilterNode | null): Promise<Set<number> | null> {
  if (!filter) return null;
  if (refs.length === 0) return new Set();
  const [versions, ordinals] = refColumns(refs);
  const paths = filterNeedsPaths(filter) ? await snapshotPaths(client, snap) : [];
  const where = compileTeamFilter(filter, paths, 5);
  const r = await client.query<{ version_id: string; ordinal: number }>(
    `SELECT n.version_id, n.ordinal FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       JOIN nodes n ON n.repo_id = $1 AND n.version_id = t.v AND n.ordinal = t.o
       JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = n.version_id
      WHERE ${where.sql}`,
    [snap.repoId, snap.snapshotId, versions, ordinals, ...where.params]);
  return new Set(r.rows.map((row) => nodeRef(Number(row.version_id), row.ordinal)));
}

/**
 * Dependents of the seeds in the snapshot (the graph channel of "callers of X" questions, as the
 * local reader's `dependentsOf`): sources of `types` edges into them, the seeds left out, with how
 * many such edges each has; most first, then by path and position (the local order too).
 */
export async function dependentRefs(client: PgClient, snap: TeamSnapshot, seeds: readonly number[], types: readonly string[], limit: number): Promise<{ ref: number; edges: number }[]> {
  if (seeds.length === 0 || types.length === 0) return [];
  const [versions, ordinals] = refColumns(seeds);
  const r = await client.query<{ v: string; o: number; edges: string }>(
    `SELECT sf.version_id AS v, e.source_ordinal AS o, count(*) AS edges
       FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
       JOIN edges e ON e.repo_id = $1 AND e.target_version_id = t.v AND e.target_ordinal = t.o
       JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.edge_set_id = e.edge_set_id
       JOIN nodes n ON n.repo_id = $1 AND n.version_id = sf.version_id AND n.ordinal = e.source_ordinal
      WHERE e.type = ANY($5::text[])
        AND NOT EXISTS (SELECT 1 FROM unnest($3::bigint[], $4::int[]) AS x(v, o) WHERE x.v = sf.version_id AND x.o = e.source_ordinal)
      GROUP BY sf.version_id, e.source_ordinal, sf.path, n.start_byte
      ORDER BY count(*) DESC, sf.path COLLATE "C", n.start_byte, e.source_ordinal LIMIT $6`,
    [snap.repoId, snap.snapshotId, versions, ordinals, [...types], limit]);
  return r.rows.map((row) => ({ ref: nodeRef(Number(row.v), row.o), edges: Number(row.edges) }));
}
