import { connect, toStoreError, type PgClient } from './connection.js';
import { assertNotNewer, serverSchemaVersion } from './migrations.js';

/** One label of one repository as `ca repos` lists it. */
export interface RepositoryLabel {
  readonly repository: string;
  readonly label: string;
  readonly snapshotId: number;
  readonly commit: string | null;
  readonly files: number;
  readonly nodes: number;
  readonly edges: number;
  /** When the snapshot was completed (ISO 8601). */
  readonly publishedAt: string;
}

/** Runs `body` on a connection to `url` whose schema this tool can read. */
async function withStore<T>(url: string, body: (client: PgClient) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    const version = await serverSchemaVersion(client);
    assertNotNewer(version);
    return await body(client);
  } catch (e) {
    throw toStoreError(e, url);
  } finally {
    await client.end().catch(() => undefined); // why: nothing is left to release on a dead connection
  }
}

/** Every repository and label of the team store with its snapshot's commit and counts (a read-only role suffices). */
export async function listRepositories(url: string): Promise<RepositoryLabel[]> {
  return withStore(url, async (client) => {
    if ((await serverSchemaVersion(client)) === 0) return [];
    const r = await client.query<{ repository: string; label: string; snapshot_id: string; commit_sha: string | null; file_count: number; node_count: string; edge_count: string; completed_at: Date }>(
      `SELECT r.name AS repository, l.name AS label, s.snapshot_id, s.commit_sha, s.file_count, s.node_count, s.edge_count, s.completed_at
         FROM labels l JOIN repositories r ON r.repo_id = l.repo_id
         JOIN snapshots s ON s.repo_id = l.repo_id AND s.snapshot_id = l.snapshot_id
        ORDER BY r.name, l.name`);
    return r.rows.map((x) => ({
      repository: x.repository, label: x.label, snapshotId: Number(x.snapshot_id), commit: x.commit_sha, files: x.file_count,
      nodes: Number(x.node_count), edges: Number(x.edge_count), publishedAt: x.completed_at.toISOString(),
    }));
  });
}

/** A label's snapshot as lines named by paths and symbol keys (what tests compare), read in one transaction. */
export interface SnapshotDump {
  /** `path blob language parse_status semantic_state`, by path. */
  readonly files: readonly string[];
  /** `path|symbol_key|disambiguator kind qualified_name start-end parent=… chunk=…`, sorted. */
  readonly nodes: readonly string[];
  /** `source -type/confidence-> target @line`, sorted (target: `path|key|disambiguator` or `unresolved name`). */
  readonly edges: readonly string[];
  /** `model|content hash` of every node window's vector, sorted. */
  readonly vectors: readonly string[];
}

/** The snapshot `label` of `repository` points at (REPEATABLE READ: one consistent view), or null when there is none. */
export async function snapshotDump(url: string, repository: string, label: string): Promise<SnapshotDump | null> {
  return withStore(url, async (client) => {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const snap = await client.query<{ repo_id: string; snapshot_id: string }>(
        `SELECT l.repo_id, l.snapshot_id FROM labels l JOIN repositories r ON r.repo_id = l.repo_id WHERE r.name = $1 AND l.name = $2`, [repository, label]);
      if (snap.rows.length === 0) return null;
      const params = [snap.rows[0]!.repo_id, snap.rows[0]!.snapshot_id];
      const files = await client.query<{ line: string }>(
        `SELECT concat_ws(' ', sf.path, v.blob_id, coalesce(v.language, '-'), v.parse_status, sf.semantic_state) AS line
           FROM snapshot_files sf JOIN file_versions v ON v.repo_id = sf.repo_id AND v.version_id = sf.version_id
          WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 ORDER BY sf.path`, params);
      const nodes = await client.query<{ line: string }>(
        `SELECT concat(sf.path, '|', n.symbol_key, '|', n.disambiguator, ' ', n.kind, ' ', n.qualified_name, ' ', n.start_line, '-', n.end_line,
                       ' parent=', coalesce(p.symbol_key, '-'), ' chunk=', n.chunk_hash) AS line
           FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
           LEFT JOIN nodes p ON p.repo_id = n.repo_id AND p.version_id = n.version_id AND p.ordinal = n.parent_ordinal
          WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 ORDER BY 1`, params);
      const edges = await client.query<{ line: string }>(
        `SELECT concat(sf.path, '|', src.symbol_key, '|', src.disambiguator, ' -', e.type, '/', e.confidence, '-> ',
                       CASE WHEN t.symbol_key IS NULL THEN 'unresolved ' || e.target_name ELSE tf.path || '|' || t.symbol_key || '|' || t.disambiguator END,
                       ' @', e.line) AS line
           FROM snapshot_files sf JOIN edges e ON e.repo_id = sf.repo_id AND e.edge_set_id = sf.edge_set_id
           JOIN nodes src ON src.repo_id = sf.repo_id AND src.version_id = sf.version_id AND src.ordinal = e.source_ordinal
           LEFT JOIN nodes t ON t.repo_id = e.repo_id AND t.version_id = e.target_version_id AND t.ordinal = e.target_ordinal
           LEFT JOIN file_versions tf ON tf.repo_id = e.repo_id AND tf.version_id = e.target_version_id
          WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 ORDER BY 1`, params);
      const vectors = await client.query<{ line: string }>(
        `SELECT concat(nv.model, '|', nv.content_hash) AS line
           FROM snapshot_files sf JOIN node_vectors nv ON nv.repo_id = sf.repo_id AND nv.version_id = sf.version_id
          WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 ORDER BY 1`, params);
      return { files: files.rows.map((r) => r.line), nodes: nodes.rows.map((r) => r.line), edges: edges.rows.map((r) => r.line), vectors: vectors.rows.map((r) => r.line) };
    } finally {
      await client.query('ROLLBACK');
    }
  });
}

/** Row counts of the team store's tables (content tables whole, the rest for `repository` when named). */
export async function tableCounts(url: string, repository?: string): Promise<Record<string, number>> {
  return withStore(url, async (client) => {
    const out: Record<string, number> = {};
    for (const table of ['blobs', 'chunks', 'embeddings'] as const) {
      const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      out[table] = Number(r.rows[0]!.n);
    }
    for (const table of ['file_versions', 'nodes', 'node_vectors', 'reexports', 'edge_sets', 'edges', 'snapshots', 'snapshot_files', 'labels'] as const) {
      const r = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table} WHERE $1::text IS NULL OR repo_id = (SELECT repo_id FROM repositories WHERE name = $1)`, [repository ?? null]);
      out[table] = Number(r.rows[0]!.n);
    }
    return out;
  });
}
