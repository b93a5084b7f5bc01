import { createHash } from 'node:crypto';
import { CaError, isDocLanguage } from '@ca/schema';
import type { SnapshotFile, SnapshotSource } from '@ca/store';
import { connect, inTransaction, toStoreError, type PgClient } from './connection.js';
import { semanticGapGroups } from './graphReads.js';
import { migrate } from './migrations.js';
import { nodeText, type NodeText } from './textVectors.js';
import { edgeSetPayloads, versionPayloads, type EdgeSetPayload, type NodePayload, type NodePlaces, type VersionPayload } from './payload.js';

/** Files per batch: one query per table per batch, one transaction per batch of new versions. */
export const PUBLISH_BATCH_FILES = 200;

/** What `publish` did. */
export interface PublishReport {
  readonly repository: string;
  readonly label: string;
  readonly snapshotId: number;
  readonly files: number;
  /** File versions, edge sets, blobs, chunk texts and embeddings this run added (the rest existed). */
  readonly written: { readonly versions: number; readonly edgeSets: number; readonly blobs: number; readonly chunks: number; readonly embeddings: number };
  readonly nodes: number;
  readonly edges: number;
}

/** `publish` options. */
export interface PublishOptions {
  /** The label's name on the team store (default: the local label's name). */
  readonly label?: string;
  readonly batchFiles?: number;
  /** Called after each batch of each phase (a test stops a publisher half-way with it). */
  readonly onProgress?: (phase: 'versions' | 'edges', done: number, total: number) => void | Promise<void>;
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The repository's id (created when new). */
async function repositoryId(client: PgClient, name: string): Promise<number> {
  await client.query(`INSERT INTO repositories(name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [name]);
  const r = await client.query<{ repo_id: string }>(`SELECT repo_id FROM repositories WHERE name = $1`, [name]);
  return Number(r.rows[0]!.repo_id);
}

/** Inserts the missing rows of a content table (sorted keys: concurrent publishers lock in one order). */
async function putMissing(
  client: PgClient,
  existingSql: string,
  params: readonly unknown[],
  keys: readonly string[],
  insert: (missing: string[]) => Promise<number>,
): Promise<number> {
  if (keys.length === 0) return 0;
  const unique = [...new Set(keys)].sort();
  const have = await client.query<{ k: string }>(existingSql, [unique, ...params]);
  const present = new Set(have.rows.map((r) => r.k));
  const missing = unique.filter((k) => !present.has(k));
  return missing.length === 0 ? 0 : insert(missing);
}

/** The vector as pgvector's text form. */
function vectorText(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

/** Uploads what the new versions of a batch need of the shared content: bytes, chunk texts, embeddings. */
async function putContent(client: PgClient, source: SnapshotSource, versions: readonly VersionPayload[]): Promise<{ blobs: number; chunks: number; embeddings: number }> {
  const blobs = await putMissing(client, `SELECT blob_id AS k FROM blobs WHERE blob_id = ANY($1::text[])`, [], versions.map((v) => v.file.contentHash), async (missing) => {
    const rows = source.contents(missing).sort((a, b) => (a.contentHash < b.contentHash ? -1 : 1));
    if (rows.length === 0) return 0;
    const r = await client.query(
      `INSERT INTO blobs(blob_id, size, data) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[]) ON CONFLICT DO NOTHING`,
      [rows.map((c) => c.contentHash), rows.map((c) => c.size), rows.map((c) => c.data)]);
    return r.rowCount ?? 0;
  });
  const texts = new Map<string, string>();
  for (const v of versions) for (const n of v.nodes) texts.set(n.node.chunkHash, n.node.chunkText);
  const chunks = await putMissing(client, `SELECT chunk_hash AS k FROM chunks WHERE chunk_hash = ANY($1::text[])`, [], [...texts.keys()], async (missing) => {
    const r = await client.query(`INSERT INTO chunks(chunk_hash, text) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
      [missing, missing.map((h) => texts.get(h)!)]);
    return r.rowCount ?? 0;
  });
  const byModel = new Map<string, string[]>();
  for (const v of versions) for (const x of v.vectors) {
    const list = byModel.get(x.model);
    if (list) list.push(x.contentHash);
    else byModel.set(x.model, [x.contentHash]);
  }
  let embeddings = 0;
  for (const model of [...byModel.keys()].sort()) {
    embeddings += await putMissing(client, `SELECT content_hash AS k FROM embeddings WHERE model = $2 AND content_hash = ANY($1::text[])`, [model], byModel.get(model)!, async (missing) => {
      const rows = source.embeddings(model, missing).sort((a, b) => (a.contentHash < b.contentHash ? -1 : 1));
      if (rows.length === 0) return 0;
      const r = await client.query(
        `INSERT INTO embeddings(model, content_hash, vector) SELECT $1, h, v::vector FROM unnest($2::text[], $3::text[]) AS u(h, v) ON CONFLICT DO NOTHING`,
        [model, rows.map((e) => e.contentHash), rows.map((e) => vectorText(e.vector))]);
      return r.rowCount ?? 0;
    });
  }
  return { blobs, chunks, embeddings };
}

/** The version ids of these payloads that the server already holds, by SQLite file id. */
async function knownVersions(client: PgClient, repoId: number, versions: readonly VersionPayload[]): Promise<Map<number, number>> {
  const r = await client.query<{ path: string; blob_id: string; digest: string; version_id: string }>(
    `SELECT v.path, v.blob_id, v.digest, v.version_id FROM file_versions v
       JOIN unnest($2::text[], $3::text[], $4::text[]) AS k(path, blob_id, digest)
         ON v.path = k.path AND v.blob_id = k.blob_id AND v.digest = k.digest
      WHERE v.repo_id = $1`,
    [repoId, versions.map((v) => v.file.path), versions.map((v) => v.file.contentHash), versions.map((v) => v.digest)]);
  const id = new Map(r.rows.map((row) => [`${row.path}\0${row.blob_id}\0${row.digest}`, Number(row.version_id)]));
  const out = new Map<number, number>();
  for (const v of versions) {
    const known = id.get(`${v.file.path}\0${v.file.contentHash}\0${v.digest}`);
    if (known !== undefined) out.set(v.file.fileId, known);
  }
  return out;
}

/** Writes new versions with their nodes, vectors and re-exports in one transaction; returns how many it added. */
async function putVersions(client: PgClient, repoId: number, versions: readonly VersionPayload[]): Promise<number> {
  if (versions.length === 0) return 0;
  return inTransaction(client, async () => {
    const f = versions.map((v) => v.file);
    const inserted = await client.query<{ version_id: string; path: string; blob_id: string; digest: string }>(
      `INSERT INTO file_versions(repo_id, path, blob_id, digest, language, size, line_count, parse_status, status_reason, generated, project, extractor, node_count, postings)
       SELECT $1, *, true FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::int[], $8::text[], $9::text[], $10::bool[], $11::text[], $12::text[], $13::int[])
       ON CONFLICT (repo_id, path, blob_id, digest) DO NOTHING
       RETURNING version_id, path, blob_id, digest`,
      [repoId, f.map((x) => x.path), f.map((x) => x.contentHash), versions.map((v) => v.digest), f.map((x) => x.language), f.map((x) => x.size),
        f.map((x) => x.lineCount), f.map((x) => x.parseStatus), f.map((x) => x.statusReason), f.map((x) => x.generated), f.map((x) => x.project),
        f.map((x) => x.extractor), versions.map((v) => v.nodes.length)]);
    // Versions another publisher inserted first are theirs to fill (their transaction holds them).
    const mine = new Map(inserted.rows.map((r) => [`${r.path}\0${r.blob_id}\0${r.digest}`, Number(r.version_id)]));
    const fresh = versions.flatMap((v) => {
      const id = mine.get(`${v.file.path}\0${v.file.contentHash}\0${v.digest}`);
      return id === undefined ? [] : [{ id, v }];
    });
    await insertNodes(client, repoId, fresh);
    return fresh.length;
  });
}

/** The nodes, vectors and re-exports of freshly inserted versions (one statement per table). */
async function insertNodes(client: PgClient, repoId: number, fresh: readonly { id: number; v: VersionPayload }[]): Promise<void> {
  const nodes = fresh.flatMap(({ id, v }) => v.nodes.map((p) => ({ id, p, t: textOf(v, p) })));
  await insertPostings(client, repoId, nodes.map((x) => ({ versionId: x.id, ordinal: x.p.ordinal, startByte: x.p.node.startByte, text: x.t })));
  if (nodes.length > 0) {
    const col = <T>(f: (x: (typeof nodes)[number]) => T): T[] => nodes.map(f);
    await client.query(
      `INSERT INTO nodes(repo_id, version_id, ordinal, parent_ordinal, kind, language, name, qualified_name, symbol_key, disambiguator, project,
                         start_line, end_line, start_byte, end_byte, signature, parameter_count, return_type, modifiers, attributes, is_public_api,
                         doc, generated, chunk_hash, spans, head, body, text_length)
       SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[],
                                $12::int[], $13::int[], $14::int[], $15::int[], $16::text[], $17::int[], $18::text[], $19::text[], $20::text[], $21::bool[],
                                $22::text[], $23::bool[], $24::text[], $25::jsonb[], $26::tsvector[], $27::tsvector[], $28::int[])`,
      [repoId, col((x) => x.id), col((x) => x.p.ordinal), col((x) => x.p.parentOrdinal), col((x) => x.p.node.kind), col((x) => x.p.node.language),
        col((x) => x.p.node.name), col((x) => x.p.node.qualifiedName), col((x) => x.p.node.symbolKey), col((x) => x.p.node.disambiguator),
        col((x) => x.p.node.project), col((x) => x.p.node.startLine), col((x) => x.p.node.endLine), col((x) => x.p.node.startByte),
        col((x) => x.p.node.endByte), col((x) => x.p.node.signature), col((x) => x.p.node.parameterCount), col((x) => x.p.node.returnType),
        col((x) => x.p.node.modifiers), col((x) => x.p.node.attributes), col((x) => x.p.node.isPublicApi), col((x) => x.p.node.doc),
        col((x) => x.p.node.generated), col((x) => x.p.node.chunkHash), col((x) => (x.p.spans.length === 0 ? null : JSON.stringify(x.p.spans))),
        col((x) => x.t.head), col((x) => x.t.body), col((x) => x.t.length)]);
  }
  const vectors = fresh.flatMap(({ id, v }) => v.vectors.map((x) => ({ id, x })));
  if (vectors.length > 0) {
    await client.query(
      `INSERT INTO node_vectors(repo_id, version_id, ordinal, "window", model, content_hash)
       SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::int[], $5::text[], $6::text[])`,
      [repoId, vectors.map((r) => r.id), vectors.map((r) => r.x.ordinal), vectors.map((r) => r.x.window), vectors.map((r) => r.x.model), vectors.map((r) => r.x.contentHash)]);
  }
  const reexports = fresh.flatMap(({ id, v }) => v.reexports.map((x) => ({ id, x })));
  if (reexports.length > 0) {
    await client.query(
      `INSERT INTO reexports(repo_id, version_id, target_module, name) SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[])`,
      [repoId, reexports.map((r) => r.id), reexports.map((r) => r.x.targetModule), reexports.map((r) => r.x.name)]);
  }
}

/** The postings of nodes (one row per node and lexeme; the caller marks their versions). */
async function insertPostings(client: PgClient, repoId: number, nodes: readonly { versionId: number; ordinal: number; startByte: number; text: NodeText }[]): Promise<void> {
  const rows = nodes.flatMap((n) => n.text.terms.map((t) => ({ n, t })));
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO postings(repo_id, version_id, ordinal, lexeme, freq, names, prefix_names, text_length, start_byte)
     SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $8::int[], $9::int[])`,
    [repoId, rows.map((r) => r.n.versionId), rows.map((r) => r.n.ordinal), rows.map((r) => r.t.lexeme), rows.map((r) => r.t.freq),
      rows.map((r) => r.t.names), rows.map((r) => r.t.prefixNames), rows.map((r) => r.n.text.length), rows.map((r) => r.n.startByte)]);
}

/**
 * Writes the postings of known versions published before the schema had them (migration 6), in
 * one transaction per batch: the versions are claimed by setting their flag first, so two
 * publishers never write one version's postings twice (the second waits on the row, then finds
 * the flag set).
 */
async function backfillPostings(client: PgClient, repoId: number, payloads: readonly VersionPayload[], known: ReadonlyMap<number, number>): Promise<number> {
  const ids = payloads.flatMap((v) => (known.has(v.file.fileId) ? [known.get(v.file.fileId)!] : []));
  if (ids.length === 0) return 0;
  return inTransaction(client, async () => {
    const r = await client.query<{ version_id: string }>(
      `UPDATE file_versions SET postings = true WHERE repo_id = $1 AND version_id = ANY($2::bigint[]) AND NOT postings RETURNING version_id`, [repoId, ids]);
    if (r.rows.length === 0) return 0;
    const claimed = new Set(r.rows.map((row) => Number(row.version_id)));
    await insertPostings(client, repoId, payloads.flatMap((v) => {
      const id = known.get(v.file.fileId);
      return id !== undefined && claimed.has(id) ? v.nodes.map((p) => ({ versionId: id, ordinal: p.ordinal, startByte: p.node.startByte, text: textOf(v, p) })) : [];
    }));
    return claimed.size;
  });
}

/** A node's full-text row (its file's path is the FTS path column). */
function textOf(v: VersionPayload, p: NodePayload): NodeText {
  return nodeText({ ...p.node, path: v.file.path });
}

/**
 * Fills the tsvectors of known versions published before the schema had them (migration 2):
 * one statement per batch, only for versions whose nodes lack them.
 */
async function backfillText(client: PgClient, repoId: number, payloads: readonly VersionPayload[], known: ReadonlyMap<number, number>): Promise<void> {
  const ids = payloads.flatMap((v) => (known.has(v.file.fileId) && v.nodes.length > 0 ? [known.get(v.file.fileId)!] : []));
  if (ids.length === 0) return;
  const r = await client.query<{ version_id: string }>(
    `SELECT DISTINCT version_id FROM nodes WHERE repo_id = $1 AND version_id = ANY($2::bigint[]) AND head IS NULL`, [repoId, ids]);
  if (r.rows.length === 0) return;
  const lacking = new Set(r.rows.map((row) => Number(row.version_id)));
  const rows = payloads.flatMap((v) => {
    const id = known.get(v.file.fileId);
    return id !== undefined && lacking.has(id) ? v.nodes.map((p) => ({ id, ordinal: p.ordinal, t: textOf(v, p) })) : [];
  });
  await client.query(
    `UPDATE nodes n SET head = u.head, body = u.body, text_length = u.len
       FROM unnest($2::bigint[], $3::int[], $4::tsvector[], $5::tsvector[], $6::int[]) AS u(version_id, ordinal, head, body, len)
      WHERE n.repo_id = $1 AND n.version_id = u.version_id AND n.ordinal = u.ordinal`,
    [repoId, rows.map((x) => x.id), rows.map((x) => x.ordinal), rows.map((x) => x.t.head), rows.map((x) => x.t.body), rows.map((x) => x.t.length)]);
}

/** Advisory lock key (the two-int form's first half) under which HNSW indexes are created. */
const VECTOR_INDEX_LOCK = 0x6361_0002;

/** The name of a model's HNSW index (a hash: model names are free text). */
export function vectorIndexName(model: string): string {
  return `embeddings_hnsw_${createHash('sha256').update(model).digest('hex').slice(0, 16)}`;
}

/**
 * Creates the HNSW (cosine) index of each model that has none yet: a partial expression index
 * on the shared embeddings (`vector::vector(dims)`, pgvector indexes need a fixed dimension),
 * recorded in `vector_models`. The statement is composed by the server (`format` with %I and
 * %L), so a model name is never pasted into SQL.
 */
export async function ensureVectorIndexes(client: PgClient, models: readonly string[]): Promise<void> {
  for (const model of [...new Set(models)].sort()) {
    const known = await client.query(`SELECT 1 FROM vector_models WHERE model = $1`, [model]);
    if (known.rowCount! > 0) continue;
    await inTransaction(client, async () => {
      await client.query(`SELECT pg_advisory_xact_lock($1, 0)`, [VECTOR_INDEX_LOCK]);
      const again = await client.query(`SELECT 1 FROM vector_models WHERE model = $1`, [model]);
      if (again.rowCount! > 0) return;
      const dims = await client.query<{ d: number | null }>(`SELECT vector_dims(vector) AS d FROM embeddings WHERE model = $1 LIMIT 1`, [model]);
      const d = dims.rows[0]?.d;
      if (d == null) return;
      const name = vectorIndexName(model);
      const ddl = await client.query<{ sql: string }>(
        `SELECT format('CREATE INDEX IF NOT EXISTS %I ON embeddings USING hnsw ((vector::vector(%s)) vector_cosine_ops) WHERE model = %L', $1::text, $2::int, $3::text) AS sql`,
        [name, d, model]);
      await client.query(ddl.rows[0]!.sql);
      await client.query(`INSERT INTO vector_models(model, dims, index_name) VALUES ($1, $2, $3)`, [model, d, name]);
    });
  }
}

/** The edge set ids of these payloads, writing the missing sets (each with its edges, in one transaction). */
async function putEdgeSets(client: PgClient, repoId: number, sets: readonly EdgeSetPayload[]): Promise<{ ids: Map<string, number>; written: number }> {
  const lookup = async (): Promise<Map<string, number>> => {
    const r = await client.query<{ version_id: string; digest: string; edge_set_id: string }>(
      `SELECT s.version_id, s.digest, s.edge_set_id FROM edge_sets s
         JOIN unnest($2::bigint[], $3::text[]) AS k(version_id, digest) ON s.version_id = k.version_id AND s.digest = k.digest
        WHERE s.repo_id = $1`, [repoId, sets.map((s) => s.versionId), sets.map((s) => s.digest)]);
    return new Map(r.rows.map((row) => [`${row.version_id}\0${row.digest}`, Number(row.edge_set_id)]));
  };
  const known = await lookup();
  const missing = sets.filter((s) => !known.has(`${s.versionId}\0${s.digest}`));
  let written = 0;
  if (missing.length > 0) {
    written = await inTransaction(client, async () => {
      const inserted = await client.query<{ version_id: string; digest: string; edge_set_id: string }>(
        `INSERT INTO edge_sets(repo_id, version_id, digest, edge_count) SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::int[])
         ON CONFLICT (repo_id, version_id, digest) DO NOTHING RETURNING version_id, digest, edge_set_id`,
        [repoId, missing.map((s) => s.versionId), missing.map((s) => s.digest), missing.map((s) => s.edges.length)]);
      const mine = new Map(inserted.rows.map((r) => [`${r.version_id}\0${r.digest}`, Number(r.edge_set_id)]));
      const rows = missing.flatMap((s) => {
        const id = mine.get(`${s.versionId}\0${s.digest}`);
        return id === undefined ? [] : s.edges.map((e) => ({ id, e }));
      });
      if (rows.length > 0) {
        const col = <T>(f: (x: (typeof rows)[number]) => T): T[] => rows.map(f);
        await client.query(
          `INSERT INTO edges(repo_id, edge_set_id, source_ordinal, type, confidence, target_key, target_name, target_version_id, target_ordinal,
                             target_module, imported_name, specifier, line, extractor)
           SELECT $1, * FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::int[], $10::text[],
                                    $11::text[], $12::text[], $13::int[], $14::text[])`,
          [repoId, col((x) => x.id), col((x) => x.e.sourceOrdinal), col((x) => x.e.edge.type), col((x) => x.e.edge.confidence),
            col((x) => x.e.edge.targetKey), col((x) => x.e.edge.targetName), col((x) => x.e.targetVersionId), col((x) => x.e.targetOrdinal),
            col((x) => x.e.edge.targetModule), col((x) => x.e.edge.importedName), col((x) => x.e.edge.specifier), col((x) => x.e.edge.line),
            col((x) => x.e.edge.extractor)]);
      }
      return mine.size;
    });
  }
  return { ids: missing.length > 0 ? await lookup() : known, written };
}

/** Per-(repository, label) lock key: the repository id and a hash of the label. */
async function lockLabel(client: PgClient, repoId: number, label: string): Promise<void> {
  await client.query(`SELECT pg_advisory_lock($1::int, hashtext($2))`, [repoId, label]);
}

/** A new building snapshot of the label (dead building ones of an interrupted publish are dropped first). */
async function beginSnapshot(client: PgClient, repoId: number, label: string, source: SnapshotSource): Promise<number> {
  await client.query(`DELETE FROM snapshots WHERE repo_id = $1 AND label = $2 AND state = 'building'`, [repoId, label]);
  const info = source.info();
  const r = await client.query<{ snapshot_id: string }>(
    `INSERT INTO snapshots(repo_id, label, state, commit_sha, head_ref, dirty) VALUES ($1, $2, 'building', $3, $4, $5) RETURNING snapshot_id`,
    [repoId, label, info.commit, info.headRef, info.dirty]);
  return Number(r.rows[0]!.snapshot_id);
}

// The tables a publish fills, whose statistics the readers' plans need.
const READ_TABLES = ['file_versions', 'nodes', 'edge_sets', 'edges', 'snapshot_files', 'chunks', 'postings'] as const;

/**
 * ANALYZE of the tables this publish added rows to, before the label switches: the first readers
 * of a freshly filled store otherwise plan their joins without statistics (autovacuum analyzes
 * later), and a nested loop over unanalyzed tables can run for minutes. `postings` is VACUUMed as
 * well: BM25 reads it by an index-only scan (decision 053), which reads the heap for every row on
 * a page not yet marked all-visible — every page this publish wrote, until autovacuum came by.
 * VACUUM visits only the pages not marked yet, so its cost follows what this publish wrote. A
 * publish that wrote no content still wrote the snapshot's file list (`wroteContent` false): that
 * table alone. A role that does not own the tables gets a warning from the server, not an error.
 */
async function refreshStatistics(client: PgClient, wroteContent: boolean): Promise<void> {
  if (!wroteContent) {
    // Without it the planner takes the new snapshot id for a rare value (one row) and joins the
    // label's files by nested loops until autovacuum comes by (decision 053).
    await client.query(`ANALYZE snapshot_files`);
    return;
  }
  await client.query(`VACUUM (ANALYZE) postings`);
  await client.query(`ANALYZE ${READ_TABLES.filter((t) => t !== 'postings').join(', ')}`);
}

/**
 * The snapshot's embeddings (node windows) by model, the vector channel's scope without a
 * filter, stored with the snapshot; and each of these models' embeddings in the whole store
 * (its HNSW plan's denominator), refreshed: both fixed here so that no search counts them.
 */
async function vectorCounts(client: PgClient, repoId: number, snapshotId: number): Promise<Record<string, number>> {
  const r = await client.query<{ model: string; c: string }>(
    `SELECT nv.model, count(*) AS c FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
       JOIN node_vectors nv ON nv.repo_id = n.repo_id AND nv.version_id = n.version_id AND nv.ordinal = n.ordinal
      WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 GROUP BY nv.model`, [repoId, snapshotId]);
  const out: Record<string, number> = {};
  for (const row of r.rows) out[row.model] = Number(row.c);
  await client.query(
    `UPDATE vector_models m SET vectors = (SELECT count(*) FROM embeddings e WHERE e.model = m.model) WHERE m.model = ANY($1::text[])`, [Object.keys(out)]);
  return out;
}

/**
 * Each lexeme's document frequency over the snapshot's nodes, in all columns and in the name
 * columns (the term plan's counts, decision 046), from the postings of its versions.
 */
async function snapshotTerms(client: PgClient, repoId: number, snapshotId: number): Promise<void> {
  await client.query(
    `INSERT INTO snapshot_terms(repo_id, snapshot_id, lexeme, hits, name_hits)
     SELECT $1, $2, p.lexeme, count(*), count(*) FILTER (WHERE p.names > 0)
       FROM snapshot_files sf JOIN postings p ON p.repo_id = sf.repo_id AND p.version_id = sf.version_id
      WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 GROUP BY p.lexeme`, [repoId, snapshotId]);
}

/** Points the label at the finished snapshot and drops the one it replaces (one transaction). */
async function switchLabel(client: PgClient, repoId: number, label: string, snapshotId: number): Promise<{ nodes: number; edges: number; files: number }> {
  return inTransaction(client, async () => {
    const counts = await client.query<{ files: string; nodes: string | null; edges: string | null }>(
      `SELECT count(*) AS files, sum(v.node_count) AS nodes, sum(coalesce(s.edge_count, 0)) AS edges
         FROM snapshot_files sf JOIN file_versions v ON v.repo_id = sf.repo_id AND v.version_id = sf.version_id
         LEFT JOIN edge_sets s ON s.repo_id = sf.repo_id AND s.edge_set_id = sf.edge_set_id
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2`, [repoId, snapshotId]);
    const c = { files: Number(counts.rows[0]!.files), nodes: Number(counts.rows[0]!.nodes ?? 0), edges: Number(counts.rows[0]!.edges ?? 0) };
    // BM25's average document length over the snapshot: fixed with it (a snapshot is immutable).
    const tokens = await client.query<{ t: string | null }>(
      `SELECT sum(n.text_length) AS t FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
        WHERE sf.repo_id = $1 AND sf.snapshot_id = $2`, [repoId, snapshotId]);
    const vectors = await vectorCounts(client, repoId, snapshotId);
    await snapshotTerms(client, repoId, snapshotId);
    const gaps = await semanticGapGroups(client, repoId, snapshotId, null);
    await client.query(
      `UPDATE snapshots SET state = 'complete', completed_at = now(), file_count = $3, node_count = $4, edge_count = $5, text_tokens = $6, vector_counts = $7, terms = true,
                            semantic_gaps = $8
        WHERE repo_id = $1 AND snapshot_id = $2`, [repoId, snapshotId, c.files, c.nodes, c.edges, Number(tokens.rows[0]!.t ?? 0), JSON.stringify(vectors), JSON.stringify(gaps)]);
    const previous = await client.query<{ snapshot_id: string }>(
      `SELECT snapshot_id FROM labels WHERE repo_id = $1 AND name = $2 FOR UPDATE`, [repoId, label]);
    await client.query(
      `INSERT INTO labels(repo_id, name, snapshot_id) VALUES ($1, $2, $3)
       ON CONFLICT (repo_id, name) DO UPDATE SET snapshot_id = excluded.snapshot_id, updated_at = now()`, [repoId, label, snapshotId]);
    const old = previous.rows[0]?.snapshot_id;
    if (old !== undefined && Number(old) !== snapshotId) {
      await client.query(`DELETE FROM snapshots WHERE repo_id = $1 AND snapshot_id = $2`, [repoId, Number(old)]);
    }
    return c;
  });
}

/** Phase 1: every file version of the label on the server (content first, then versions), by SQLite file id. */
async function publishVersions(
  client: PgClient, repoId: number, source: SnapshotSource, files: readonly SnapshotFile[], batch: number, options: PublishOptions,
  written: { versions: number; blobs: number; chunks: number; embeddings: number },
): Promise<{ versionOf: Map<number, number>; places: NodePlaces; backfilled: number }> {
  const pathOf = new Map(files.map((f) => [f.fileId, f.path]));
  const places: NodePlaces = new Map();
  const versionOf = new Map<number, number>();
  const models = new Set<string>();
  const batches = chunked(files, batch);
  let backfilled = 0;
  for (const [i, group] of batches.entries()) {
    const ids = group.map((f) => f.fileId);
    const payloads = versionPayloads(group, { nodes: source.nodes(ids), spans: source.spans(ids), reexports: source.reexports(ids), vectors: source.nodeVectors(ids) }, pathOf, places);
    let known = await knownVersions(client, repoId, payloads);
    await backfillText(client, repoId, payloads, known);
    backfilled += await backfillPostings(client, repoId, payloads, known);
    for (const p of payloads) for (const x of p.vectors) models.add(x.model);
    const missing = payloads.filter((p) => !known.has(p.file.fileId));
    if (missing.length > 0) {
      const content = await putContent(client, source, missing);
      written.blobs += content.blobs;
      written.chunks += content.chunks;
      written.embeddings += content.embeddings;
      written.versions += await putVersions(client, repoId, missing);
      known = await knownVersions(client, repoId, payloads);
    }
    for (const [fileId, versionId] of known) versionOf.set(fileId, versionId);
    await options.onProgress?.('versions', i + 1, batches.length);
  }
  await ensureVectorIndexes(client, [...models]);
  return { versionOf, places, backfilled };
}

/**
 * Publishes the label `label` of a local index (`source`) as repository `repository`'s label of
 * the same name on the team store at `url`: content-addressed and batched, idempotent, under a
 * per-(repository, label) advisory lock; the label moves to the new snapshot in one transaction
 * at the end, so a reader never sees a half-written snapshot and an interrupted publish leaves
 * the previous one answering (decision 036).
 */
/**
 * The files a label publishes: its code files. Markdown, JSON and YAML files (decision 039's
 * documentation partition) stay local: the team store has one BM25 corpus per snapshot (its node
 * count and text length give every code search's idf and length norm), so their sections and keys
 * would change the scores of every code search, and team reads have no `include_docs` to ask for them.
 */
function publishedFiles(source: SnapshotSource): SnapshotFile[] {
  return source.files().filter((f) => !isDocLanguage(f.language));
}

export async function publish(url: string, repository: string, source: SnapshotSource, options: PublishOptions = {}): Promise<PublishReport> {
  if (repository.length === 0) throw new CaError('usage', 'a repository name is required to publish');
  if (!source.exists()) throw new CaError('unknown_label', `no label "${source.label}" in the local index: index it first`);
  const label = options.label ?? source.label;
  if (label.length === 0) throw new CaError('usage', 'a label name is required to publish');
  const client = await connect(url);
  try {
    await migrate(client);
    const canWrite = await client.query<{ ok: boolean }>(`SELECT has_table_privilege('file_versions', 'INSERT') AS ok`);
    if (!canWrite.rows[0]!.ok) throw new CaError('store_read_only', `the role of this store URL may not write (no INSERT on the team store's tables): publish with a read-write role`);
    const repoId = await repositoryId(client, repository);
    await lockLabel(client, repoId, label);
    const snapshotId = await beginSnapshot(client, repoId, label, source);
    const files = publishedFiles(source);
    const batch = options.batchFiles ?? PUBLISH_BATCH_FILES;
    const written = { versions: 0, edgeSets: 0, blobs: 0, chunks: 0, embeddings: 0 };
    const { versionOf, places, backfilled } = await publishVersions(client, repoId, source, files, batch, options, written);
    const batches = chunked(files, batch);
    for (const [i, group] of batches.entries()) {
      const sets = edgeSetPayloads(group, source.edges(group.map((f) => f.fileId)), places, versionOf);
      const { ids, written: w } = await putEdgeSets(client, repoId, sets);
      written.edgeSets += w;
      await client.query(
        `INSERT INTO snapshot_files(repo_id, snapshot_id, path, version_id, edge_set_id, semantic_state, semantic_reason)
         SELECT $1, $2, * FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[])`,
        [repoId, snapshotId, group.map((f) => f.path), group.map((f) => versionOf.get(f.fileId)!),
          sets.map((s) => ids.get(`${s.versionId}\0${s.digest}`) ?? null), group.map((f) => f.semanticState), group.map((f) => f.semanticReason)]);
      await options.onProgress?.('edges', i + 1, batches.length);
    }
    // Backfilled postings are new rows too: the ranking's plan needs their statistics.
    await refreshStatistics(client, written.versions + written.edgeSets + backfilled > 0);
    const counts = await switchLabel(client, repoId, label, snapshotId);
    // The snapshot's document frequencies were written by the switch: their statistics too.
    await client.query(`ANALYZE snapshot_terms`);
    return { repository, label, snapshotId, files: counts.files, written, nodes: counts.nodes, edges: counts.edges };
  } catch (e) {
    throw toStoreError(e, url);
  } finally {
    await client.end().catch(() => undefined); // why: ending releases the advisory lock; a dead connection released it already
  }
}
