import { CaError, globToRegExp, isTestPath, type FilterNode } from '@ca/schema';
import { BROAD_FILTER_FRACTION, ftsQueryParts } from '@ca/store';
import { connect, toStoreError, type PgClient } from './connection.js';
import { resolveSnapshot } from './labels.js';
import { assertNotNewer, serverSchemaVersion } from './migrations.js';
import { BODY_WEIGHTS, foldToken, HEAD_WEIGHTS, tsqueryTerm } from './textVectors.js';

// The search channels over one label's snapshot of the team store (decision 046): BM25 as the
// local index's FTS5 `bm25()` computes it, over tsvectors holding the same tokens, and the
// nearest vectors by pgvector (exact scan or HNSW by the scope's size). Fusion and the rest of
// the ranking stay in @ca/retrieve; the engine composes them.

/** A label's snapshot, as the channels read it. */
export interface TeamSnapshot {
  readonly repository: string;
  readonly label: string;
  readonly repoId: number;
  readonly snapshotId: number;
  readonly commit: string | null;
  /** Nodes of the snapshot (BM25's row count). */
  readonly nodeCount: number;
  /** Tokens of all its nodes' FTS columns (BM25's average length is this over `nodeCount`). */
  readonly textTokens: number;
  /** Embeddings (node windows) of the snapshot by model, stored at publish (null: published before they were; counted then). */
  readonly vectorCounts: ReadonlyMap<string, number> | null;
}

/** A node of a snapshot as one number (fusion ranks numbers): its version and its ordinal there. */
export function nodeRef(versionId: number, ordinal: number): number {
  return versionId * ORDINAL_SPACE + ordinal;
}
// The same numbering as the navigation reads' node ids (graphReads.ts): an id from a search is a
// valid argument of `ca callers --store`.
const ORDINAL_SPACE = 2 ** 24;
/** The version and ordinal of a `nodeRef`. */
export function splitRef(ref: number): { versionId: number; ordinal: number } {
  return { versionId: Math.floor(ref / ORDINAL_SPACE), ordinal: ref % ORDINAL_SPACE };
}

/** A ranked node: its ref and the channel's score (BM25, or cosine similarity). */
export interface TeamHit {
  readonly ref: number;
  readonly score: number;
}

/** The label's current snapshot, the label chosen by decision 050's rule when null (`unknown_label` when the repository or the label is not there). */
export async function openSnapshot(client: PgClient, repository: string, label: string | null): Promise<TeamSnapshot> {
  assertNotNewer(await serverSchemaVersion(client));
  return resolveSnapshot(client, repository, label);
}

/**
 * Runs `body` over the label's snapshot in one `REPEATABLE READ READ ONLY` transaction on its
 * own connection (a read-only role suffices): every read of one search sees one snapshot, and
 * the channels' transaction-local settings end with it.
 */
export async function withSnapshot<T>(url: string, repository: string, label: string | null, body: (client: PgClient, snap: TeamSnapshot) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const out = await body(client, await openSnapshot(client, repository, label));
    await client.query('COMMIT');
    return out;
  } catch (e) {
    throw toStoreError(e, url);
  } finally {
    await client.end().catch(() => undefined); // why: ending a read-only session loses nothing; a dead connection is already closed
  }
}

/** A filter as a SQL condition over `snapshot_files sf JOIN nodes n`, every value a bound parameter. */
export interface TeamFilterSql {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * Compiles a filter expression into a condition whose values are bound parameters numbered from
 * `first` (never pasted into the SQL). `lang:`, `kind:`, `is:generated`, `is:public` compare
 * columns; `path:` and `is:test` are matched in TypeScript against the snapshot's paths (as the
 * local index does) and become a path list. Other fields are not supported by the team store
 * yet: `invalid_query` naming the field.
 */
export function compileTeamFilter(filter: FilterNode | null, paths: readonly string[], first: number): TeamFilterSql {
  if (!filter) return { sql: 'TRUE', params: [] };
  const params: unknown[] = [];
  const bind = (v: unknown): string => `$${first + params.push(v) - 1}`;
  const walk = (f: FilterNode): string => {
    if (f.op === 'not') return `(NOT ${walk(f.arg)})`;
    if (f.op !== 'term') return `(${f.args.map(walk).join(f.op === 'and' ? ' AND ' : ' OR ')})`;
    switch (f.field) {
      case 'lang':
        return `n.language = ${bind(f.value)}`;
      case 'kind':
        return `n.kind = ${bind(f.value)}`;
      case 'path': {
        const re = globToRegExp(f.value, 'path');
        return `sf.path = ANY(${bind(paths.filter((p) => re.test(p)))}::text[])`;
      }
      case 'is':
        if (f.value === 'test') return `sf.path = ANY(${bind(paths.filter((p) => isTestPath(p)))}::text[])`;
        return f.value === 'generated' ? 'n.generated' : 'n.is_public_api';
      default:
        throw new CaError('invalid_query', `the filter field "${f.field}:" is not supported on the team store yet (lang:, kind:, path:, is: are)`);
    }
  };
  return { sql: walk(filter), params };
}

/** Whether a filter needs the snapshot's paths (`path:`, `is:test`). */
export function filterNeedsPaths(filter: FilterNode | null): boolean {
  if (!filter) return false;
  if (filter.op === 'not') return filterNeedsPaths(filter.arg);
  if (filter.op !== 'term') return filter.args.some(filterNeedsPaths);
  return filter.field === 'path' || (filter.field === 'is' && filter.value === 'test');
}

/** The snapshot's paths (for `path:` and `is:test`). */
export async function snapshotPaths(client: PgClient, snap: TeamSnapshot): Promise<string[]> {
  const r = await client.query<{ path: string }>(`SELECT path FROM snapshot_files WHERE repo_id = $1 AND snapshot_id = $2`, [snap.repoId, snap.snapshotId]);
  return r.rows.map((row) => row.path);
}

/** One BM25 phrase: a lexeme, matched whole in every column or as a prefix of name and split. */
interface Phrase {
  readonly lexeme: string;
  readonly prefix: boolean;
}

/** The phrases of user text, as the local index's FTS5 query has them (its terms, then its prefixes; each stemmed). */
export function bm25Phrases(text: string): Phrase[] {
  const { terms, prefixes } = ftsQueryParts(text);
  const out: Phrase[] = [];
  for (const t of terms) out.push({ lexeme: foldToken(t), prefix: false });
  for (const p of prefixes) out.push({ lexeme: foldToken(p), prefix: true });
  return out;
}

/** FTS5's BM25 parameters. */
const K1 = 1.2;
const B = 0.75;

/** FTS5's IDF of a phrase: rows `n`, rows matching it `hits` (floored at 1e-6 as FTS5 does). */
export function fts5Idf(n: number, hits: number): number {
  const idf = Math.log((n - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

const weightCase = (src: string): string =>
  `CASE WHEN ${src} = 'h' THEN CASE w.w WHEN 'A' THEN ${HEAD_WEIGHTS.A} WHEN 'B' THEN ${HEAD_WEIGHTS.B} WHEN 'C' THEN ${HEAD_WEIGHTS.C} ELSE ${HEAD_WEIGHTS.D} END
        ELSE CASE w.w WHEN 'A' THEN ${BODY_WEIGHTS.A} WHEN 'B' THEN ${BODY_WEIGHTS.B} ELSE ${BODY_WEIGHTS.D} END END`;

/**
 * BM25 over the snapshot, as the local index's `bm25(fts_nodes, 10, 8, 5, 3, 2, 1.5, 1)` ranks
 * (the same phrases, IDF over the snapshot's rows, the same column weights and lengths), best
 * first; words that stem alike (`issue`, `issues`) stay separate phrases, each scored on its
 * own, as FTS5 scores each phrase of the query; the filter leaves rows out without changing scores (as in the local index). Ties by
 * path and position.
 */
export async function bm25Search(client: PgClient, snap: TeamSnapshot, text: string, filter: FilterNode | null, limit: number): Promise<TeamHit[]> {
  const phrases = bm25Phrases(text).filter((p) => p.lexeme.length > 0);
  if (phrases.length === 0 || snap.nodeCount === 0) return [];
  const queries = phrases.map((p) => tsqueryTerm(p.lexeme, p.prefix));
  const hits = await client.query<{ i: string; hits: string }>(
    `SELECT q.i, (SELECT count(*) FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
                   WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND (n.head @@ q.t::tsquery OR (NOT q.pre AND n.body @@ q.t::tsquery))) AS hits
       FROM unnest($3::text[], $4::bool[]) WITH ORDINALITY AS q(t, pre, i)`,
    [snap.repoId, snap.snapshotId, queries, phrases.map((p) => p.prefix)]);
  const idf = new Map(hits.rows.map((r) => [Number(r.i), fts5Idf(snap.nodeCount, Number(r.hits))]));
  const headQuery = queries.join(' | ');
  const bodyQuery = queries.filter((_, i) => !phrases[i]!.prefix).join(' | ') || `''`;
  const paths = filterNeedsPaths(filter) ? await snapshotPaths(client, snap) : [];
  const where = compileTeamFilter(filter, paths, 12);
  const r = await client.query<{ version_id: string; ordinal: number; score: number }>(
    `WITH q AS (SELECT * FROM unnest($3::text[], $4::bool[], $5::float8[]) WITH ORDINALITY AS q(lex, pre, idf, i)),
     m AS (SELECT n.version_id, n.ordinal, n.head, n.body, n.text_length, sf.path, n.start_byte
             FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
            WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND (n.head @@ $6::tsquery OR n.body @@ $7::tsquery) AND ${where.sql})
     SELECT m.version_id, m.ordinal, s.score FROM m CROSS JOIN LATERAL (
       SELECT sum(t.idf * t.freq * ${K1 + 1} / (t.freq + ${K1} * (${1 - B} + ${B} * m.text_length / $8::float8))) AS score FROM (
         SELECT q.lex, q.pre, q.idf, sum(${weightCase('u.src')})::float8 AS freq
           FROM (SELECT 'h'::text AS src, x.lexeme, x.weights FROM unnest(m.head) x
                  WHERE x.lexeme = ANY($9::text[]) OR x.lexeme LIKE ANY($10::text[])
                 UNION ALL
                 SELECT 'b'::text, y.lexeme, y.weights FROM unnest(m.body) y WHERE y.lexeme = ANY($9::text[])) u
           CROSS JOIN LATERAL unnest(u.weights) AS w(w)
           JOIN q ON (NOT q.pre AND u.lexeme = q.lex) OR (q.pre AND u.src = 'h' AND w.w IN ('A', 'C') AND starts_with(u.lexeme, q.lex))
          GROUP BY q.i, q.lex, q.pre, q.idf) t) s
     ORDER BY s.score DESC, m.path COLLATE "C", m.start_byte, m.ordinal LIMIT $11`,
    [snap.repoId, snap.snapshotId, phrases.map((p) => p.lexeme), phrases.map((p) => p.prefix), phrases.map((_, i) => idf.get(i + 1)!),
      headQuery, bodyQuery, snap.textTokens / snap.nodeCount, phrases.filter((p) => !p.prefix).map((p) => p.lexeme),
      phrases.filter((p) => p.prefix).map((p) => `${p.lexeme.replace(/[\\%_]/g, '\\$&')}%`), limit, ...where.params]);
  return r.rows.map((row) => ({ ref: nodeRef(Number(row.version_id), row.ordinal), score: Number(row.score) }));
}

/** Scopes up to this many vectors are scanned exactly (cheaper than an HNSW walk, and exact). */
export const EXACT_SCAN_MAX_VECTORS = 10_000;

/** How the vector channel answers a scope. */
export type VectorPlan = 'exact' | 'hnsw';

/**
 * Exact scan or HNSW, from the scope's size (the label's vectors passing the filter) and the
 * model's vectors in the whole store (every repository's): a small scope is scanned exactly; a
 * scope under BROAD_FILTER_FRACTION of the store's vectors would make the HNSW walk visit
 * mostly rows of other scopes (as a filter under that fraction makes the local index read its
 * allowed set), so it is scanned exactly too.
 */
export function vectorPlan(scope: number, total: number, exactScanMax = EXACT_SCAN_MAX_VECTORS): VectorPlan {
  if (scope <= exactScanMax) return 'exact';
  return scope < BROAD_FILTER_FRACTION * total ? 'exact' : 'hnsw';
}

/** `vectorSearch` options (tests force a plan or lower the exact-scan size). */
export interface VectorSearchOptions {
  readonly plan?: VectorPlan;
  readonly exactScanMax?: number;
  /** HNSW candidates per search (default: max(100, 2 × the embeddings asked)). */
  readonly efSearch?: number;
}

/** pgvector's text form of a vector. */
function vectorText(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}

/**
 * The `k` nodes of the snapshot nearest the query (cosine similarity, best window per node) among
 * those passing the filter, with the plan used. HNSW searches run with
 * `hnsw.iterative_scan = relaxed_order` (the label is itself a filter on the shared embeddings)
 * and their candidates are re-sorted by exact distance.
 */
export async function vectorSearch(
  client: PgClient, snap: TeamSnapshot, model: string, query: Float32Array, filter: FilterNode | null, k: number, options: VectorSearchOptions = {},
): Promise<{ hits: TeamHit[]; plan: VectorPlan; scope: number }> {
  const dims = await client.query<{ dims: number; vectors: string | null }>(`SELECT dims, vectors FROM vector_models WHERE model = $1`, [model]);
  const info = dims.rows[0];
  if (!info) return { hits: [], plan: 'exact', scope: 0 };
  if (query.length !== info.dims) throw new CaError('invalid_query', `query vector has ${query.length} dims, the team store's model "${model}" has ${info.dims}`);
  const paths = filterNeedsPaths(filter) ? await snapshotPaths(client, snap) : [];
  const scope = await vectorScope(client, snap, model, filter, paths);
  const plan = options.plan ?? (scope <= (options.exactScanMax ?? EXACT_SCAN_MAX_VECTORS)
    ? 'exact'
    : vectorPlan(scope, info.vectors === null ? await modelVectors(client, model) : Number(info.vectors), options.exactScanMax));
  if (scope === 0) return { hits: [], plan, scope };
  // The channel queries bind the vector and k first: the filter's parameters follow them.
  const after = compileTeamFilter(filter, paths, 6);
  const hits = plan === 'exact'
    ? await exactNearest(client, snap, model, query, after, k)
    : await hnswNearest(client, snap, model, info.dims, query, after, k, options.efSearch);
  return { hits, plan, scope };
}

/**
 * The scope of a vector search: the snapshot's embeddings of the model passing the filter.
 * Without a filter it is the figure stored at publish (counted only for a snapshot published
 * before it was); a filter's scope depends on the query, so it is counted.
 */
async function vectorScope(client: PgClient, snap: TeamSnapshot, model: string, filter: FilterNode | null, paths: readonly string[]): Promise<number> {
  if (filter === null && snap.vectorCounts !== null) return snap.vectorCounts.get(model) ?? 0;
  const where = compileTeamFilter(filter, paths, 4);
  const r = await client.query<{ c: string }>(
    `SELECT count(*) AS c FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
       JOIN node_vectors nv ON nv.repo_id = n.repo_id AND nv.version_id = n.version_id AND nv.ordinal = n.ordinal
      WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND nv.model = $3 AND ${where.sql}`, [snap.repoId, snap.snapshotId, model, ...where.params]);
  return Number(r.rows[0]!.c);
}

/** The model's embeddings in the whole store, counted (for a store whose publishes predate the stored figure). */
async function modelVectors(client: PgClient, model: string): Promise<number> {
  const r = await client.query<{ c: string }>(`SELECT count(*) AS c FROM embeddings WHERE model = $1`, [model]);
  return Number(r.rows[0]!.c);
}

/** The exact nearest nodes: every vector of the scope compared (no index). */
async function exactNearest(client: PgClient, snap: TeamSnapshot, model: string, query: Float32Array, where: TeamFilterSql, k: number): Promise<TeamHit[]> {
  const r = await client.query<{ version_id: string; ordinal: number; score: number }>(
    `SELECT n.version_id, n.ordinal, max(1 - (e.vector <=> $4::vector)) AS score
       FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id
       JOIN node_vectors nv ON nv.repo_id = n.repo_id AND nv.version_id = n.version_id AND nv.ordinal = n.ordinal
       JOIN embeddings e ON e.model = nv.model AND e.content_hash = nv.content_hash
      WHERE sf.repo_id = $1 AND sf.snapshot_id = $2 AND nv.model = $3 AND ${where.sql}
      GROUP BY n.version_id, n.ordinal ORDER BY score DESC, n.version_id, n.ordinal LIMIT $5`,
    [snap.repoId, snap.snapshotId, model, vectorText(query), k, ...where.params]);
  return r.rows.map((row) => ({ ref: nodeRef(Number(row.version_id), row.ordinal), score: Number(row.score) }));
}

/**
 * The nearest nodes by the model's HNSW index: embeddings nearest first among those the scope
 * holds (iterative scan, relaxed order, re-sorted), mapped to their nodes; asked again for more
 * embeddings when shared embeddings left fewer than `k` nodes.
 */
async function hnswNearest(
  client: PgClient, snap: TeamSnapshot, model: string, dims: number, query: Float32Array, where: TeamFilterSql, k: number, efSearch?: number,
): Promise<TeamHit[]> {
  const cast = `vector(${Math.trunc(dims)})`;
  for (let want = 2 * k; ; want *= 2) {
    // Transaction-local settings: the caller reads in one transaction (`withSnapshot`).
    const rows = await (async () => {
      // The planner's estimate for a scope is unreliable in both directions: the plan was chosen
      // from the scope's size, so the index walk is forced (and the settings put back after).
      await client.query(
        `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true),
                set_config('enable_sort', 'off', true), set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
        [String(efSearch ?? Math.max(100, want))]);
      const r = await client.query<{ version_id: string; ordinal: number; score: number }>(
        `WITH nearest AS MATERIALIZED (
           SELECT e.content_hash, e.vector::${cast} <=> $4::${cast} AS distance FROM embeddings e
            WHERE e.model = $3 AND EXISTS (
              SELECT 1 FROM node_vectors nv JOIN snapshot_files sf ON sf.repo_id = nv.repo_id AND sf.version_id = nv.version_id
                JOIN nodes n ON n.repo_id = nv.repo_id AND n.version_id = nv.version_id AND n.ordinal = nv.ordinal
               WHERE nv.repo_id = $1 AND sf.snapshot_id = $2 AND nv.model = e.model AND nv.content_hash = e.content_hash AND ${where.sql})
            ORDER BY e.vector::${cast} <=> $4::${cast} LIMIT $5)
         SELECT n.version_id, n.ordinal, max(1 - m.distance) AS score, min(m.distance) AS d
           FROM nearest m JOIN node_vectors nv ON nv.model = $3 AND nv.content_hash = m.content_hash AND nv.repo_id = $1
           JOIN snapshot_files sf ON sf.repo_id = nv.repo_id AND sf.snapshot_id = $2 AND sf.version_id = nv.version_id
           JOIN nodes n ON n.repo_id = nv.repo_id AND n.version_id = nv.version_id AND n.ordinal = nv.ordinal
          WHERE ${where.sql}
          GROUP BY n.version_id, n.ordinal ORDER BY d, n.version_id, n.ordinal`,
        [snap.repoId, snap.snapshotId, model, vectorText(query), want, ...where.params]);
      await client.query(`SELECT set_config('enable_sort', 'on', true), set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'on', true)`);
      return r.rows;
    })();
    if (rows.length >= k || want >= 8 * k) {
      return rows.slice(0, k).map((row) => ({ ref: nodeRef(Number(row.version_id), row.ordinal), score: Number(row.score) }));
    }
  }
}

/** What the ranking and the output need of a node. */
export interface TeamNode {
  readonly ref: number;
  /** The parent's ref (same version), or null. */
  readonly parentRef: number | null;
  readonly startByte: number;
  readonly endByte: number;
  readonly signature: string;
  readonly doc: string | null;
  readonly kind: string;
  readonly language: string;
  readonly name: string;
  readonly qualifiedName: string;
  readonly symbolKey: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly project: string;
  readonly isPublicApi: boolean;
  readonly generated: boolean;
  readonly parseStatus: string;
  readonly semanticState: string;
  readonly chunkHash: string;
  readonly code: string;
}

/** Nodes of the snapshot by ref, in the order given (refs not in the snapshot dropped). */
export async function nodesByRefs(client: PgClient, snap: TeamSnapshot, refs: readonly number[]): Promise<TeamNode[]> {
  if (refs.length === 0) return [];
  const parts = refs.map(splitRef);
  const r = await client.query<{
    version_id: string; ordinal: number; parent_ordinal: number | null; start_byte: number; end_byte: number; signature: string; doc: string | null; kind: string; language: string; name: string; qualified_name: string; symbol_key: string; path: string;
    start_line: number; end_line: number; project: string; is_public_api: boolean; generated: boolean; parse_status: string; semantic_state: string;
    chunk_hash: string; text: string | null;
  }>(
    `SELECT n.version_id, n.ordinal, n.parent_ordinal, n.start_byte, n.end_byte, n.signature, n.doc, n.kind, n.language, n.name, n.qualified_name, n.symbol_key, sf.path, n.start_line, n.end_line, n.project,
            n.is_public_api, n.generated, v.parse_status, sf.semantic_state, n.chunk_hash, c.text
       FROM unnest($3::bigint[], $4::int[]) AS k(version_id, ordinal)
       JOIN nodes n ON n.repo_id = $1 AND n.version_id = k.version_id AND n.ordinal = k.ordinal
       JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = n.version_id
       JOIN file_versions v ON v.repo_id = $1 AND v.version_id = n.version_id
       LEFT JOIN chunks c ON c.chunk_hash = n.chunk_hash`,
    [snap.repoId, snap.snapshotId, parts.map((p) => p.versionId), parts.map((p) => p.ordinal)]);
  const byRef = new Map(r.rows.map((row) => {
    const ref = nodeRef(Number(row.version_id), row.ordinal);
    const node: TeamNode = {
      ref, parentRef: row.parent_ordinal === null ? null : nodeRef(Number(row.version_id), row.parent_ordinal),
      startByte: row.start_byte, endByte: row.end_byte, signature: row.signature, doc: row.doc, kind: row.kind, language: row.language, name: row.name, qualifiedName: row.qualified_name, symbolKey: row.symbol_key, path: row.path,
      startLine: row.start_line, endLine: row.end_line, project: row.project, isPublicApi: row.is_public_api, generated: row.generated,
      parseStatus: row.parse_status, semanticState: row.semantic_state, chunkHash: row.chunk_hash, code: row.text ?? '',
    };
    return [ref, node] as const;
  }));
  return refs.map((ref) => byRef.get(ref)).filter((n): n is TeamNode => n !== undefined);
}

/**
 * The name channel, as the local index's reader answers it: exact qualified-name matches
 * (case-insensitive, exact case first) of each identifier, then suffix matches (`.name` or the
 * simple name); which refs were exact and which named the symbol itself.
 */
export async function nameSearch(
  client: PgClient, snap: TeamSnapshot, identifiers: readonly string[], filter: FilterNode | null, k: number,
): Promise<{ refs: number[]; exact: Set<number>; named: Set<number> }> {
  const refs: number[] = [];
  const seen = new Set<number>();
  const exact = new Set<number>();
  const named = new Set<number>();
  const paths = filterNeedsPaths(filter) ? await snapshotPaths(client, snap) : [];
  const base = `FROM snapshot_files sf JOIN nodes n ON n.repo_id = sf.repo_id AND n.version_id = sf.version_id WHERE sf.repo_id = $1 AND sf.snapshot_id = $2`;
  const push = (rows: readonly { version_id: string; ordinal: number; name: string }[], mark: (ref: number, name: string) => void) => {
    for (const row of rows) {
      const ref = nodeRef(Number(row.version_id), row.ordinal);
      mark(ref, row.name);
      if (!seen.has(ref)) (seen.add(ref), refs.push(ref));
    }
  };
  for (const ident of identifiers) {
    const where = compileTeamFilter(filter, paths, 5);
    const r = await client.query<{ version_id: string; ordinal: number; name: string }>(
      `SELECT n.version_id, n.ordinal, n.name ${base} AND lower(n.qualified_name) = lower($3) AND ${where.sql}
        ORDER BY (n.qualified_name = $3) DESC, n.kind IN ('file', 'module'), sf.path, n.start_line LIMIT $4`, [snap.repoId, snap.snapshotId, ident, k, ...where.params]);
    push(r.rows, (ref) => exact.add(ref));
  }
  for (const ident of identifiers) {
    const lastDot = Math.max(ident.lastIndexOf('.'), ident.lastIndexOf('::') >= 0 ? ident.lastIndexOf('::') + 1 : -1);
    const simple = lastDot >= 0 ? ident.slice(lastDot + 1) : ident;
    const normalized = ident.replace(/::/g, '.');
    const where = compileTeamFilter(filter, paths, 6);
    const r = await client.query<{ version_id: string; ordinal: number; name: string }>(
      `SELECT n.version_id, n.ordinal, n.name ${base} AND lower(n.name) = lower($3)
          AND (lower(n.qualified_name) = lower($4) OR n.qualified_name ILIKE '%.' || $4) AND ${where.sql}
        ORDER BY (n.name = $3) DESC, n.kind IN ('file', 'module'), length(n.qualified_name), sf.path, n.start_line LIMIT $5`,
      [snap.repoId, snap.snapshotId, simple, normalized, k, ...where.params]);
    const last = ident.split(/\.|::/).pop()!;
    push(r.rows, (ref, name) => { if (name === last) named.add(ref); });
  }
  for (const ref of exact) named.add(ref);
  return { refs, exact, named };
}
