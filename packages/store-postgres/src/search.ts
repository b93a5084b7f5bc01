import { CaError, globToRegExp, isTestPath, type FilterNode } from '@ca/schema';
import { BM25_POSTING_BUDGET, BROAD_FILTER_FRACTION, ftsQueryParts, planTerms, type TermPlan } from '@ca/store';
import { connect, toStoreError, type PgClient } from './connection.js';
import { resolveSnapshot } from './labels.js';
import { assertNotNewer, serverSchemaVersion } from './migrations.js';
import { foldToken } from './textVectors.js';

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
  /** Whether publish stored the snapshot's BM25 document frequencies (false: published before schema migration 6). */
  readonly terms: boolean;
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
 * Runs `work` on a connection reading the same database snapshot as the body's: a second
 * connection when one is free (the two run at once), else the body's own.
 */
export type Beside = <R>(work: (client: PgClient) => Promise<R>) => Promise<R>;

/** The body of a snapshot read: its connection, the snapshot, and `beside` for work that may run alongside. */
export type SnapshotBody<T> = (client: PgClient, snap: TeamSnapshot, beside: Beside) => Promise<T>;

/**
 * Runs `body` over the label's snapshot in one `REPEATABLE READ READ ONLY` transaction on its
 * own connection (a read-only role suffices): every read of one search sees one snapshot, and
 * the channels' transaction-local settings end with it.
 */
export async function withSnapshot<T>(url: string, repository: string, label: string | null, body: SnapshotBody<T>): Promise<T> {
  const client = await connect(url);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // One connection: work "beside" the body runs on it too (its statements queue behind the body's).
    const out = await body(client, await openSnapshot(client, repository, label), (work) => work(client));
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

/**
 * One BM25 phrase: a lexeme matched whole in every column (`term`), whole in the name columns
 * only (`names`: the term plan's rarest term over the budget), or as a prefix of name and split
 * (`prefix`).
 */
interface Phrase {
  readonly lexeme: string;
  readonly match: 'term' | 'names' | 'prefix';
}

/** The phrases of user text, as the local index's FTS5 query has them under a term plan (its kept terms, then its prefixes; each stemmed). */
export function bm25Phrases(text: string, plan: TermPlan = { drop: new Set(), heads: new Set() }): Phrase[] {
  const { terms, prefixes } = ftsQueryParts(text, plan);
  const out: Phrase[] = [];
  for (const t of terms) out.push({ lexeme: foldToken(t), match: plan.heads.has(t) ? 'names' : 'term' });
  for (const p of prefixes) out.push({ lexeme: foldToken(p), match: 'prefix' });
  return out.filter((p) => p.lexeme.length > 0);
}

/** FTS5's BM25 parameters. */
const K1 = 1.2;
const B = 0.75;

/** FTS5's IDF of a phrase: rows `n`, rows matching it `hits` (floored at 1e-6 as FTS5 does). */
export function fts5Idf(n: number, hits: number): number {
  const idf = Math.log((n - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** A lexeme's document frequencies in a snapshot, as publish stored them (`snapshot_terms`). */
interface TermStats {
  /** Rows holding the lexeme in any column. */
  readonly hits: number;
  /** Rows holding it in a name column. */
  readonly name_hits: number;
}

/** The snapshot's document frequencies of the lexemes of `terms`: one indexed read, no count of rows. */
async function teamTermStats(client: PgClient, snap: TeamSnapshot, terms: readonly string[]): Promise<Map<string, TermStats>> {
  if (terms.length === 0) return new Map();
  const lexemes = [...new Set(terms.map(foldToken))];
  const r = await client.query<{ lexeme: string; hits: number; name_hits: number }>(
    `SELECT lexeme, hits, name_hits FROM snapshot_terms WHERE repo_id = $1 AND snapshot_id = $2 AND lexeme = ANY($3::text[])`, [snap.repoId, snap.snapshotId, lexemes]);
  return new Map(r.rows.map((row) => [row.lexeme, { hits: Number(row.hits), name_hits: Number(row.name_hits) }]));
}

/** The local reader's term plan (`planTerms`, the same budget) over a snapshot's document frequencies. */
function termPlanOf(terms: readonly string[], stats: ReadonlyMap<string, TermStats>, budget: number): TermPlan {
  if (terms.length === 0) return { drop: new Set(), heads: new Set() };
  const cap = Math.max(0, Math.floor(budget)) + 1;
  const exact = (t: string): number => stats.get(foldToken(t))?.hits ?? 0;
  return planTerms(terms, { upTo: (t) => Math.min(exact(t), cap), exact, heads: (t) => stats.get(foldToken(t))?.name_hits ?? 0 }, budget);
}

/**
 * The local reader's term plan (`planTerms`, the same budget) over the snapshot's document
 * frequencies as publish stored them: one indexed read of the query's lexemes, no count of rows.
 * A term whose lexeme is empty (nothing FTS5 would index) matches no row.
 */
export async function teamTermPlan(client: PgClient, snap: TeamSnapshot, terms: readonly string[], budget = BM25_POSTING_BUDGET): Promise<TermPlan> {
  return termPlanOf(terms, await teamTermStats(client, snap, terms), budget);
}

/**
 * One phrase's share of a node's score in SQL, FTS5's expression operation for operation: the
 * IDF times the saturated frequency over the length normalised by the average (`$6`).
 */
function termScore(idf: string, freq: string, length: string): string {
  return `${idf} * ((${freq} * ${K1 + 1}::float8) / (${freq} + ${K1}::float8 * (${1 - B}::float8 + ${B}::float8 * ${length} / $6::float8)))`;
}

/** `bm25Search` options. */
export interface Bm25SearchOptions {
  /** The term plan's posting budget (default: the local reader's, `BM25_POSTING_BUDGET`). */
  readonly budget?: number;
}

/**
 * BM25 over the snapshot, as the local index's `bm25(fts_nodes, 10, 8, 5, 3, 2, 1.5, 1)` ranks
 * (the same term plan, phrases, IDF over the snapshot's rows, column weights and lengths), best
 * first; words that stem alike (`issue`, `issues`) stay separate phrases, each scored on its
 * own, as FTS5 scores each phrase of the query; the filter leaves rows out without changing
 * scores (as in the local index). Ties by path and position. Reads only the postings of the
 * query's phrases (an index range per phrase); a snapshot published before postings existed
 * (schema migration 6) is `not_indexed`: publish the label again.
 */
export async function bm25Search(client: PgClient, snap: TeamSnapshot, text: string, filter: FilterNode | null, limit: number, options: Bm25SearchOptions = {}): Promise<TeamHit[]> {
  if (bm25Phrases(text).length === 0 || snap.nodeCount === 0) return [];
  if (!snap.terms) {
    throw new CaError('not_indexed', `label "${snap.label}" of repository ${JSON.stringify(snap.repository)} was published before the team store kept BM25 postings (schema migration 6): publish it again (ca publish) to search it`);
  }
  const terms = ftsQueryParts(text).terms;
  const stats = await teamTermStats(client, snap, terms);
  const phrases = bm25Phrases(text, termPlanOf(terms, stats, options.budget ?? BM25_POSTING_BUDGET));
  if (phrases.length === 0) return [];
  const paths = filterNeedsPaths(filter) ? await snapshotPaths(client, snap) : [];
  // Rows matching a whole lexeme are the snapshot's stored document frequency (`hits`, or
  // `name_hits` for a name-only phrase); a prefix's rows are counted by the statement.
  const wholeOnly = phrases.every((p) => p.match !== 'prefix');
  const where = compileTeamFilter(filter, paths, wholeOnly ? 9 : 8);
  // The filter's conditions read `sf` and `n` (compileTeamFilter): joined for the scored rows only.
  const nodes = filter === null ? '' : `JOIN nodes n ON n.repo_id = $1 AND n.version_id = s.version_id AND n.ordinal = s.ordinal
      JOIN snapshot_files sf ON sf.repo_id = $1 AND sf.snapshot_id = $2 AND sf.version_id = s.version_id`;
  // Per phrase one range of the postings index (a whole lexeme is the range [lex, lex]); the
  // snapshot's rows among them give the phrase's frequency per node and its IDF (rows matching it).
  // A node's score adds its phrases in query order with FTS5's expression, operation for
  // operation, so equal scores are equal in every bit on both backends and ties order alike.
  // Paths only order ties: the best `limit` scores (with every row tied with the last) are taken
  // first, and only they are joined to their paths and sorted in full.
  const ranked = `top AS (SELECT s.version_id, s.ordinal, s.start_byte, s.score FROM s ${nodes}
              WHERE ${where.sql}
              ORDER BY s.score DESC FETCH FIRST $7 ROWS WITH TIES)
     SELECT top.version_id, top.ordinal, top.score
       FROM top JOIN snapshot_files sp ON sp.repo_id = $1 AND sp.snapshot_id = $2 AND sp.version_id = top.version_id
      ORDER BY top.score DESC, sp.path COLLATE "C", top.start_byte, top.ordinal
      LIMIT $7`;
  const fixed = [snap.repoId, snap.snapshotId, phrases.map((p) => p.lexeme), phrases.map((p) => p.match), snap.nodeCount, snap.textTokens / snap.nodeCount, limit];
  // Whole lexemes only (every query of four or more terms, decision 053): a node has one posting
  // per lexeme, so its phrase frequencies are read straight from the postings and the IDF from
  // the stored frequencies, in one aggregation; with a prefix, a node's postings of every lexeme
  // under it are summed first and the matching rows counted.
  const r = wholeOnly
    ? await client.query<{ version_id: string; ordinal: number; score: number }>(
      `WITH q AS (SELECT q.lex, q.kind, q.i, CASE WHEN v.v <= 0 THEN 1e-6 ELSE v.v END AS idf
                    FROM unnest($3::text[], $4::text[], $8::float8[]) WITH ORDINALITY AS q(lex, kind, hits, i)
                    CROSS JOIN LATERAL (SELECT ln(($5::float8 - q.hits + 0.5) / (q.hits + 0.5)) AS v) v),
       s AS (SELECT p.version_id, p.ordinal, min(p.start_byte) AS start_byte,
                    sum(${termScore('q.idf', 'p.tf', 'p.text_length')} ORDER BY q.i) AS score
               FROM q CROSS JOIN LATERAL (
                      SELECT p.version_id, p.ordinal, p.start_byte, p.text_length, (CASE q.kind WHEN 'term' THEN p.freq ELSE p.names END)::float8 AS tf
                        FROM postings p WHERE p.repo_id = $1 AND p.lexeme = q.lex COLLATE "C"
                         AND (q.kind = 'term' OR p.names > 0)) p
              WHERE p.version_id IN (SELECT version_id FROM snapshot_files WHERE repo_id = $1 AND snapshot_id = $2)
              GROUP BY p.version_id, p.ordinal),
       ${ranked}`,
      [...fixed, phrases.map((p) => { const t = stats.get(p.lexeme); return p.match === 'term' ? (t?.hits ?? 0) : (t?.name_hits ?? 0); }), ...where.params])
    : await client.query<{ version_id: string; ordinal: number; score: number }>(
      `WITH q AS (SELECT * FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS q(lex, kind, i)),
       f AS (SELECT q.i, p.version_id, p.ordinal, min(p.text_length) AS len, min(p.start_byte) AS start_byte,
                    sum(CASE q.kind WHEN 'term' THEN p.freq WHEN 'names' THEN p.names ELSE p.prefix_names END) AS freq
               FROM q CROSS JOIN LATERAL (
                      SELECT * FROM postings p WHERE p.repo_id = $1 AND p.lexeme >= q.lex COLLATE "C"
                         AND p.lexeme <= (CASE WHEN q.kind = 'prefix' THEN q.lex || chr(1114111) ELSE q.lex END) COLLATE "C") p
              WHERE (q.kind = 'term' OR (q.kind = 'names' AND p.names > 0) OR (q.kind = 'prefix' AND p.prefix_names > 0))
                AND p.version_id IN (SELECT version_id FROM snapshot_files WHERE repo_id = $1 AND snapshot_id = $2)
              GROUP BY q.i, p.version_id, p.ordinal),
       idf AS (SELECT i, ln(($5::float8 - count(*) + 0.5) / (count(*) + 0.5)) AS v FROM f GROUP BY i),
       s AS (SELECT f.version_id, f.ordinal, min(f.start_byte) AS start_byte,
                    sum(${termScore('CASE WHEN idf.v <= 0 THEN 1e-6 ELSE idf.v END', 'f.freq', 'f.len')} ORDER BY f.i) AS score
               FROM f JOIN idf ON idf.i = f.i GROUP BY f.version_id, f.ordinal),
       ${ranked}`,
      [...fixed, ...where.params]);
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
