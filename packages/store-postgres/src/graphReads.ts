import { inflateRawSync } from 'node:zlib';
import { CaError, type Confidence, type EdgeType, type Language, type NodeKind, type ParseStatus } from '@ca/schema';
import {
  allowedConfidences, walkAsync, type EdgeQuery, type GraphNode, type GraphReads, type GraphReadsOrigin, type NodeRecord, type SemanticGapFile, type SemanticGapRow, type Traversal, type TraversalOptions,
  type WalkEdgeRow,
} from '@ca/store';
import { connect, toStoreError, type PgClient } from './connection.js';
import { resolveSnapshot } from './labels.js';
import { assertNotNewer, serverSchemaVersion } from './migrations.js';

/**
 * A node of a snapshot is (file version, ordinal); the contract names nodes by one number:
 * `version_id * 2^24 + ordinal` (exact in a double while version ids stay under 2^29). Within one
 * snapshot a version holds one path, so the number names one node of the snapshot.
 */
const ORDINALS = 16_777_216;

function nodeId(versionId: number, ordinal: number): number {
  return versionId * ORDINALS + ordinal;
}

/** The (version ids, ordinals) arrays of node ids, for `unnest($a::bigint[], $b::int[])`. */
function splitIds(ids: readonly number[]): [number[], number[]] {
  return [ids.map((id) => Math.floor(id / ORDINALS)), ids.map((id) => id % ORDINALS)];
}

interface PgNodeRow {
  version_id: string;
  ordinal: number;
  parent_ordinal: number | null;
  kind: string;
  language: string;
  name: string;
  qualified_name: string;
  symbol_key: string;
  project: string;
  path: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  signature: string;
  parameter_count: number | null;
  return_type: string | null;
  modifiers: string;
  is_public_api: boolean;
  doc: string | null;
  generated: boolean;
  chunk_text: string | null;
  chunk_hash: string;
  parse_status: string;
  semantic_state: string;
}

// Every node read starts from the snapshot's files ($1 repo, $2 snapshot): a node is visible when
// its version is one of them. Paths compare byte-wise (COLLATE "C"), as SQLite's do.
const NODE_FROM = `FROM snapshot_files sf
  JOIN file_versions v ON v.repo_id = sf.repo_id AND v.version_id = sf.version_id
  JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
  LEFT JOIN chunks c ON c.chunk_hash = n.chunk_hash`;
const NODE_COLUMNS = `n.version_id, n.ordinal, n.parent_ordinal, n.kind, n.language, n.name, n.qualified_name, n.symbol_key, n.project, sf.path,
  n.start_line, n.end_line, n.start_byte, n.end_byte, n.signature, n.parameter_count, n.return_type, n.modifiers, n.is_public_api, n.doc,
  n.generated, c.text AS chunk_text, n.chunk_hash, v.parse_status, sf.semantic_state`;

function toNode(r: PgNodeRow): NodeRecord {
  const version = Number(r.version_id);
  return {
    id: nodeId(version, r.ordinal),
    fileId: version,
    parentId: r.parent_ordinal === null ? null : nodeId(version, r.parent_ordinal),
    kind: r.kind as NodeKind,
    language: r.language as Language,
    name: r.name,
    qualifiedName: r.qualified_name,
    symbolKey: r.symbol_key,
    project: r.project,
    path: r.path,
    startLine: r.start_line,
    endLine: r.end_line,
    startByte: r.start_byte,
    endByte: r.end_byte,
    signature: r.signature,
    parameterCount: r.parameter_count,
    returnType: r.return_type,
    modifiers: r.modifiers ? r.modifiers.split(' ') : [],
    isPublicApi: r.is_public_api,
    doc: r.doc,
    generated: r.generated,
    chunkText: r.chunk_text ?? '',
    chunkHash: r.chunk_hash,
    parseStatus: r.parse_status as ParseStatus,
    semanticState: r.semantic_state,
    // Reference counts are not published (decision 036); navigation does not read them.
    referenceCount: null,
  };
}

function summary(n: NodeRecord): GraphNode {
  return {
    id: n.id, parentId: n.parentId, kind: n.kind, language: n.language, name: n.name, qualifiedName: n.qualifiedName, path: n.path,
    startLine: n.startLine, endLine: n.endLine, signature: n.signature, doc: n.doc, modifiers: n.modifiers, isPublicApi: n.isPublicApi,
  };
}

interface PgEdgeRow {
  source_version: string;
  source_ordinal: number;
  target_version_id: string | null;
  target_ordinal: number | null;
  type: string;
  confidence: string;
  line: number;
  target_name: string;
  path: string;
  pos: string;
}

// The snapshot's files of languages $3 without exact edges (what a navigation answer's
// completeness report counts): `none`, `pending` or `failed`, of a file that parsed.
const GAP_FILES_FROM = `FROM snapshot_files sf JOIN file_versions v ON v.repo_id = sf.repo_id AND v.version_id = sf.version_id
  WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND ($3::text[] IS NULL OR v.language = ANY($3::text[]))
    AND sf.semantic_state IN ('none', 'pending', 'failed') AND v.parse_status IN ('ok', 'partial', 'error')`;

/**
 * A snapshot's files without exact edges grouped by project, language and state, as the local
 * index's `GraphReader.semanticGaps` groups them (byte-wise order; the least reason; the count),
 * of `languages` (null: every language). Publish stores them with the snapshot.
 */
export async function semanticGapGroups(client: PgClient, repoId: number, snapshotId: number, languages: readonly string[] | null): Promise<SemanticGapRow[]> {
  return gapGroupRows((await client.query<GapGroupRow>(GAP_GROUPS, [repoId, snapshotId, languages === null ? null : [...languages]])).rows);
}

interface GapGroupRow {
  project: string;
  language: string;
  state: string;
  reason: string | null;
  files: string;
}

const GAP_GROUPS = `SELECT v.project, v.language, sf.semantic_state AS state, min(sf.semantic_reason COLLATE "C") AS reason, count(*) AS files
  ${GAP_FILES_FROM}
  GROUP BY v.project, v.language, sf.semantic_state
  ORDER BY v.project COLLATE "C", v.language COLLATE "C", sf.semantic_state COLLATE "C"`;

function gapGroupRows(rows: readonly GapGroupRow[]): SemanticGapRow[] {
  return rows.map((row) => ({ project: row.project, language: row.language, state: row.state, reason: row.reason, files: Number(row.files) }));
}

/**
 * The read contract over one snapshot of a team store's label: one connection, one
 * `REPEATABLE READ READ ONLY` transaction opened on the label's snapshot, every read inside it —
 * a label that moves meanwhile changes nothing this object answers. Open it with `openGraphReads`.
 */
export class PgGraphReads implements GraphReads {
  private closed = false;
  /** A query of this object failed (its connection may be dead: not reused). */
  private failed = false;
  /** Stored file bytes already read (the snapshot never changes under this object), by path. */
  private readonly contents = new Map<string, Buffer | null>();
  /** The snapshot's files without exact edges, by language set (sorted, as JSON). */
  private readonly gapFiles = new Map<string, SemanticGapFile[]>();
  /** The snapshot's stored gap groups (null: published before they were stored). */
  private gapGroups: Promise<SemanticGapRow[] | null> | null = null;

  constructor(
    private readonly client: PgClient,
    private readonly url: string,
    private readonly repoId: string,
    readonly origin: GraphReadsOrigin,
    /** Gives the connection back (ends it, or returns it to a pool; `failed`: it must not be reused). */
    private readonly end: (failed: boolean) => Promise<void> | void,
  ) {}

  private async rows<R extends object>(sql: string, params: readonly unknown[]): Promise<R[]> {
    if (this.closed) throw new CaError('internal', 'team store reads used after close()');
    try {
      const r = await this.client.query<R>(sql, [this.repoId, this.origin.snapshotId, ...params]);
      return r.rows;
    } catch (e) {
      this.failed = true;
      throw toStoreError(e, this.url);
    }
  }

  async nodes(ids: readonly number[]): Promise<NodeRecord[]> {
    if (ids.length === 0) return [];
    const [versions, ordinals] = splitIds(ids);
    const rows = await this.rows<PgNodeRow>(
      `SELECT ${NODE_COLUMNS} ${NODE_FROM} JOIN unnest($3::bigint[], $4::int[]) AS t(v, o) ON n.version_id = t.v AND n.ordinal = t.o
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2`, [versions, ordinals]);
    const byId = new Map(rows.map((r) => [nodeId(Number(r.version_id), r.ordinal), toNode(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async summaries(ids: readonly number[]): Promise<GraphNode[]> {
    return (await this.nodes(ids)).map(summary);
  }

  async byQualifiedName(qualifiedName: string): Promise<NodeRecord[]> {
    // SQLite's COLLATE NOCASE (the nodes_qualified_name_ci index of migration 3 serves it).
    const rows = await this.rows<PgNodeRow>(
      `SELECT ${NODE_COLUMNS} ${NODE_FROM}
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND lower(n.qualified_name) = lower($3)
        ORDER BY (n.qualified_name = $3) DESC, n.kind IN ('file', 'module'), sf.path COLLATE "C", n.start_line, n.ordinal LIMIT 50`, [qualifiedName]);
    return rows.map(toNode);
  }

  async bySuffix(suffix: string): Promise<NodeRecord[]> {
    // The SQLite reader's rule: the simple name after the last `.` or `::`, and a qualified name
    // equal to the suffix or ending in `.suffix` (LIKE, case-insensitive, its wildcards as SQLite's).
    const lastDot = Math.max(suffix.lastIndexOf('.'), suffix.lastIndexOf('::') >= 0 ? suffix.lastIndexOf('::') + 1 : -1);
    const simple = lastDot >= 0 ? suffix.slice(lastDot + 1) : suffix;
    const normalized = suffix.replace(/::/g, '.');
    const rows = await this.rows<PgNodeRow>(
      `SELECT ${NODE_COLUMNS} ${NODE_FROM}
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND lower(n.name) = lower($3)
          AND (lower(n.qualified_name) = lower($4) OR lower(n.qualified_name) LIKE lower($5))
        ORDER BY (n.name = $3) DESC, n.kind IN ('file', 'module'), length(n.qualified_name), sf.path COLLATE "C", n.start_line, n.ordinal LIMIT 50`,
      [simple, normalized, `%.${normalized}`]);
    return rows.map(toNode);
  }

  async outline(path: string): Promise<NodeRecord[] | null> {
    const rows = await this.rows<PgNodeRow>(
      `SELECT ${NODE_COLUMNS} ${NODE_FROM} WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.path = $3
        ORDER BY n.start_byte, n.end_byte DESC, n.ordinal`, [path]);
    if (rows.length > 0) return rows.map(toNode);
    const file = await this.rows(`SELECT 1 FROM snapshot_files WHERE repo_id = $1 AND snapshot_id = $2 AND path = $3`, [path]);
    return file.length > 0 ? [] : null;
  }

  async children(ids: readonly number[]): Promise<NodeRecord[]> {
    if (ids.length === 0) return [];
    const [versions, ordinals] = splitIds(ids);
    const rows = await this.rows<PgNodeRow & { k: string }>(
      `SELECT ${NODE_COLUMNS}, t.k ${NODE_FROM}
         JOIN unnest($3::bigint[], $4::int[]) WITH ORDINALITY AS t(v, o, k) ON n.version_id = t.v AND n.parent_ordinal = t.o
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 ORDER BY t.k, n.start_byte, n.ordinal`, [versions, ordinals]);
    return rows.map(toNode);
  }

  async descendants(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const [versions, ordinals] = splitIds(ids);
    const rows = await this.rows<{ v: string; o: number }>(
      `WITH RECURSIVE d(v, o) AS (
         SELECT t.v, t.o FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
          WHERE EXISTS (SELECT 1 FROM snapshot_files sf WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = t.v)
         UNION
         SELECT n.version_id, n.ordinal FROM nodes n JOIN d ON n.repo_id = $1 AND n.version_id = d.v AND n.parent_ordinal = d.o)
       SELECT v, o FROM d`, [versions, ordinals]);
    return rows.map((r) => nodeId(Number(r.v), r.o));
  }

  async fileContents(paths: readonly string[]): Promise<Map<string, Buffer>> {
    const missing = [...new Set(paths)].filter((p) => !this.contents.has(p));
    if (missing.length > 0) {
      const rows = await this.rows<{ path: string; data: Buffer }>(
        `SELECT sf.path, b.data FROM snapshot_files sf JOIN file_versions v ON v.repo_id = sf.repo_id AND v.version_id = sf.version_id
           JOIN blobs b ON b.blob_id = v.blob_id
          WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.path = ANY($3::text[])`, [missing]);
      for (const p of missing) this.contents.set(p, null);
      // Stored as the local index keeps them: deflated.
      for (const r of rows) this.contents.set(r.path, inflateRawSync(r.data));
    }
    const out = new Map<string, Buffer>();
    for (const p of paths) {
      const bytes = this.contents.get(p);
      if (bytes) out.set(p, bytes);
    }
    return out;
  }

  async edges(ids: readonly number[], query: EdgeQuery): Promise<WalkEdgeRow[]> {
    if (ids.length === 0) return [];
    const [versions, ordinals] = splitIds(ids);
    const params = [versions, ordinals, [...query.types], allowedConfidences(query.minConfidence)];
    // Incoming: edges naming a node of the frontier as target, kept when their edge set is one of
    // the snapshot's files' (snapshot_files_edge_set). Outgoing: the frontier's files' edge sets.
    const near =
      query.direction === 'in'
        ? `FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
             JOIN edges e ON e.repo_id = $1 AND e.target_version_id = t.v AND e.target_ordinal = t.o
             JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.edge_set_id = e.edge_set_id`
        : `FROM unnest($3::bigint[], $4::int[]) AS t(v, o)
             JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = t.v
             JOIN edges e ON e.repo_id = $1 AND e.edge_set_id = sf.edge_set_id AND e.source_ordinal = t.o`;
    const rows = await this.rows<PgEdgeRow>(
      `SELECT sf.version_id AS source_version, e.source_ordinal, ${EDGE_POSITION} AS pos, e.target_version_id, e.target_ordinal, e.type, e.confidence, e.line, e.target_name, sf.path
         ${near}
        WHERE e.type = ANY($5::text[]) AND e.confidence = ANY($6::text[])`, params);
    return numberEdges(rows);
  }

  async walk(seeds: readonly number[], options: TraversalOptions): Promise<Traversal> {
    const query = { direction: options.direction, types: options.types, minConfidence: options.minConfidence };
    return walkAsync(seeds, options, (ids) => this.edges(ids, query));
  }

  async semanticGapFiles(languages: readonly string[]): Promise<readonly SemanticGapFile[]> {
    if (languages.length === 0) return [];
    // The snapshot never changes under this object: each language set is read once.
    const key = JSON.stringify([...languages].sort());
    let rows = this.gapFiles.get(key);
    if (!rows) {
      rows = await this.rows<SemanticGapFile>(
        `SELECT sf.path, v.project, v.language, sf.semantic_state AS state, sf.semantic_reason AS reason
           ${GAP_FILES_FROM}
          ORDER BY v.project COLLATE "C", v.language COLLATE "C", sf.semantic_state COLLATE "C", sf.path COLLATE "C"`, [[...languages]]);
      this.gapFiles.set(key, rows);
    }
    return rows;
  }

  async semanticGaps(languages: readonly string[]): Promise<SemanticGapRow[]> {
    if (languages.length === 0) return [];
    // The groups publish stored with the snapshot (schema migration 8), read once per object;
    // grouped here for a snapshot published before.
    this.gapGroups ??= this.rows<{ g: SemanticGapRow[] | null }>(`SELECT semantic_gaps AS g FROM snapshots WHERE repo_id = $1 AND snapshot_id = $2`, [])
      .then((r) => r[0]?.g ?? null);
    const stored = await this.gapGroups;
    const wanted = new Set(languages);
    if (stored) return stored.filter((g) => wanted.has(g.language)).map((g) => ({ ...g }));
    return gapGroupRows(await this.rows<GapGroupRow>(GAP_GROUPS, [[...languages]]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A dropped connection has no transaction left to end: it is given back as failed.
    const ended = await this.client.query('ROLLBACK').then(() => true, () => false);
    await this.end(this.failed || !ended);
  }
}

// The server keeps no edge ids. An edge set is written once, in the local index's edge order, and
// never updated, so an edge's physical position (block, offset) keeps that order within its edge
// set — and one path of a snapshot has one edge set: (path, line, position) is the local walk's
// use-site order (path, line, edge id).
const EDGE_POSITION = `((e.ctid::text::point)[0] * 65536 + (e.ctid::text::point)[1])::bigint`;

/** Edges as the contract names them: the id is the edge's position (see `EDGE_POSITION`), a tie-break, never an identity. */
function numberEdges(rows: readonly PgEdgeRow[]): WalkEdgeRow[] {
  return rows.map((r) => ({
    id: Number(r.pos),
    from: nodeId(Number(r.source_version), r.source_ordinal),
    to: r.target_version_id === null || r.target_ordinal === null ? null : nodeId(Number(r.target_version_id), r.target_ordinal),
    type: r.type as EdgeType,
    confidence: r.confidence as Confidence,
    path: r.path,
    line: r.line,
    targetName: r.target_name,
  }));
}

/**
 * Opens the read contract on the snapshot `label` of `repository` points at now, on a connection
 * of its own, in one `REPEATABLE READ READ ONLY` transaction (a read-only role suffices). Without
 * a label: the label rule of decision 050 (`chooseLabel`: the only label, else `working`). A
 * repository or label the store does not hold (or an unnamed label among several without
 * `working`) is `unknown_label`; an unreachable server `store_unreachable`.
 */
export async function openGraphReads(url: string, repository: string, label: string | null): Promise<GraphReads> {
  const client = await connect(url);
  try {
    assertNotNewer(await serverSchemaVersion(client));
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const snap = await resolveSnapshot(client, repository, label);
    return new PgGraphReads(client, url, String(snap.repoId), {
      backend: 'postgres', label: snap.label, repository, snapshotId: snap.snapshotId, commit: snap.commit,
    }, () => client.end().catch(() => undefined)); // why: nothing is left to release on a dead connection
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined); // why: the transaction may not have begun; the original error is the one to report
    await client.end().catch(() => undefined); // why: nothing is left to release on a dead connection
    throw toStoreError(e, url);
  }
}
