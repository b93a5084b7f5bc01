import { inflateRawSync } from 'node:zlib';
import type { Confidence, EdgeType, FilterNode, Language, NodeKind, ParseStatus } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { allowedNodeIds, compileFilter, idsPassingWhere, passingFraction, type FilterScope, type NodeIdSet } from './filterSql.js';
import { findNodes, indexedFile, locationsByChunkHash, nodeFacts, type CodeLocation, type FindCursor, type FindPage, type IndexedFile, type NodeFacts } from './queries.js';
import { countExportNodes, exportNodes, type ExportNode } from './exportNodes.js';
import { buildFtsQuery, headsMatch, quote } from './ftsQuery.js';
import { cachedPluck, cachedStatement, changeStamp, readMetadata, type Statement } from './statements.js';

/** A node as read back from the index, joined with its file. */
export interface NodeRecord {
  readonly id: number;
  readonly fileId: number;
  readonly parentId: number | null;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly name: string;
  readonly qualifiedName: string;
  readonly symbolKey: string;
  readonly project: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly signature: string;
  readonly parameterCount: number | null;
  readonly returnType: string | null;
  readonly modifiers: readonly string[];
  readonly isPublicApi: boolean;
  readonly doc: string | null;
  readonly generated: boolean;
  readonly chunkText: string;
  readonly chunkHash: string;
  readonly parseStatus: ParseStatus;
  /** `ok` when the file has compiler-grade (exact) edges; else syntactic only. */
  readonly semanticState: string;
  readonly referenceCount: number | null;
}

/** Filters applied inside every channel, before fusion. */
export interface NodeFilter {
  readonly languages?: readonly Language[];
  readonly kinds?: readonly NodeKind[];
  /** A JavaScript regular expression source matched against the repo-relative path. */
  readonly pathRegex?: string;
  /** Exclude file/module nodes (default false). */
  readonly symbolsOnly?: boolean;
  /** A filter expression (@ca/schema `parseFilter`), ANDed with the fields above. */
  readonly expression?: FilterNode;
}

/** True when a filter restricts anything. */
export function isRestrictive(filter: NodeFilter | undefined): boolean {
  return (
    filter !== undefined &&
    ((filter.languages?.length ?? 0) > 0 || (filter.kinds?.length ?? 0) > 0 || !!filter.pathRegex || filter.symbolsOnly === true || filter.expression !== undefined)
  );
}

export interface RankedHit {
  readonly nodeId: number;
  /** Channel-specific score, higher is better. */
  readonly score: number;
}

export interface FileStatusRecord {
  readonly path: string;
  readonly language: string | null;
  readonly parseStatus: ParseStatus;
  readonly reason: string | null;
  readonly lineCount: number;
  readonly generated: boolean;
}

export interface LabelEntry {
  readonly fileId: number;
  readonly contentHash: string;
  readonly mtimeMs: number | null;
  readonly size: number;
  readonly extractor: string;
}

export interface EdgeRecord {
  readonly id: number;
  readonly sourceId: number;
  readonly targetId: number | null;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  readonly targetKey: string;
  readonly targetName: string;
  readonly line: number;
  readonly path: string;
}

export const NODE_COLUMNS = `n.id, n.file_id, n.parent_id, n.kind, n.language, n.name, n.qualified_name, n.symbol_key, n.project,
  f.path, n.start_line, n.end_line, n.start_byte, n.end_byte, n.signature, n.parameter_count, n.return_type,
  n.modifiers, n.is_public_api, n.doc, n.generated, n.chunk_text, n.chunk_hash, f.parse_status, f.semantic_state, n.reference_count`;

/** The columns of a node that every view of it prints (graph answers hydrate only these). */
export interface NodeSummaryRow {
  id: number;
  parent_id: number | null;
  kind: string;
  language: string;
  name: string;
  qualified_name: string;
  start_line: number;
  end_line: number;
  signature: string;
  doc: string | null;
  modifiers: string | null;
  is_public_api: number;
}

/** A node's printed fields, without its chunk text (cheap to hydrate in bulk). */
export type NodeSummary = Pick<
  NodeRecord,
  'id' | 'parentId' | 'kind' | 'language' | 'name' | 'qualifiedName' | 'path' | 'startLine' | 'endLine' | 'signature' | 'doc' | 'modifiers' | 'isPublicApi'
>;

/** Maps summary columns (and the file's path) to a `NodeSummary`. */
export function toNodeSummary(r: NodeSummaryRow, path: string): NodeSummary {
  return {
    id: r.id,
    parentId: r.parent_id,
    kind: r.kind as NodeKind,
    language: r.language as Language,
    name: r.name,
    qualifiedName: r.qualified_name,
    path,
    startLine: r.start_line,
    endLine: r.end_line,
    signature: r.signature,
    doc: r.doc,
    modifiers: r.modifiers ? r.modifiers.split(' ') : [],
    isPublicApi: r.is_public_api === 1,
  };
}

export interface NodeRow extends NodeSummaryRow {
  file_id: number;
  symbol_key: string;
  project: string;
  path: string;
  start_byte: number;
  end_byte: number;
  parameter_count: number | null;
  return_type: string | null;
  generated: number;
  chunk_text: string;
  chunk_hash: string;
  parse_status: string;
  semantic_state: string;
  reference_count: number | null;
}

/**
 * The summary extended in place: spreading it into a new literal with 13 more fields made V8
 * build each record on a slow path, ~11 µs a node (0.3 µs this way); search hydrates ~50 per
 * query (docs/benchmarks.md, problem 7).
 */
export function toNode(r: NodeRow): NodeRecord {
  return Object.assign(toNodeSummary(r, r.path), {
    fileId: r.file_id,
    symbolKey: r.symbol_key,
    project: r.project,
    startByte: r.start_byte,
    endByte: r.end_byte,
    parameterCount: r.parameter_count,
    returnType: r.return_type,
    generated: r.generated === 1,
    chunkText: r.chunk_text,
    chunkHash: r.chunk_hash,
    parseStatus: r.parse_status as ParseStatus,
    semanticState: r.semantic_state,
    referenceCount: r.reference_count,
  });
}

/** The SQL condition of a filter over `n` and `f` (` AND …`, or '' for none); binds its values to `params`. */
export function filterSql(db: SqliteDatabase, filter: NodeFilter | undefined, params: unknown[]): string {
  if (!filter) return '';
  const parts: string[] = [];
  if (filter.languages && filter.languages.length > 0) {
    parts.push(`n.language IN (${filter.languages.map(() => '?').join(',')})`);
    params.push(...filter.languages);
  }
  if (filter.kinds && filter.kinds.length > 0) {
    parts.push(`n.kind IN (${filter.kinds.map(() => '?').join(',')})`);
    params.push(...filter.kinds);
  }
  if (filter.pathRegex) {
    parts.push(`regexp(?, f.path)`);
    params.push(filter.pathRegex);
  }
  if (filter.symbolsOnly) parts.push(`n.kind NOT IN ('file','module')`);
  if (filter.expression) {
    const compiled = compileFilter(db, filter.expression);
    parts.push(compiled.sql);
    params.push(...compiled.params);
  }
  return parts.length > 0 ? ` AND ${parts.join(' AND ')}` : '';
}

/**
 * Posting budget of one BM25 query. FTS5 scores every row that matches any OR term before it
 * can sort, at about 0.5 ms per 1,000 rows here (0.8 ms before it was ranked under SQLite's own
 * bounded sort), so a query whose terms together match more rows
 * than this keeps its rarest terms up to the budget (at least one) and drops the common ones.
 * Dropped terms have the lowest IDF; at 100K symbols they matched up to 57% of the rows each.
 * Keeping them for the name columns only was tried twice and is slower at the same quality
 * (their matches there cost ~2.5× a row scored in all columns; decision 010). A rarest term over
 * the budget is matched in the name columns only (`IndexReader.termPlan`).
 * Measured in docs/benchmarks.md ("BM25 at 100K").
 */
export const BM25_POSTING_BUDGET = 8000;

/**
 * The fraction of nodes (as `IndexReader.passingFraction` estimates it) from which a filter not
 * yet cached counts as broad: channels then check their best candidates against it a batch at a
 * time (BM25 its ranked rows, the vector channel its nearest nodes, `VectorStore.knnChecked`)
 * instead of reading its allowed set. Below it the set is small to hold and is read once, for
 * every channel of the search (docs/decisions/019-filter-language.md).
 */
export const BROAD_FILTER_FRACTION = 0.25;

interface TermStats {
  /** Rows matching one MATCH expression. */
  readonly count: Statement;
  /** Rows matching one MATCH expression, counted up to a cap (`min(rows, cap)`). */
  readonly countUpTo: Statement;
  /** Row counts by `cap\0match` (cap 0: exact), for terms in any column or in `BM25_HEAD_COLUMNS`. */
  readonly counts: Map<string, number>;
  stamp: string;
}

/** How the terms of one BM25 query are matched (see `IndexReader.termPlan`). */
export interface TermPlan {
  /** Terms left out of the query. */
  readonly drop: Set<string>;
  /** Terms matched in `BM25_HEAD_COLUMNS` only (at most the rarest term, when it alone is over the budget). */
  readonly heads: Set<string>;
}
const termStatsByDb = new WeakMap<SqliteDatabase, TermStats>();
const exclusiveCache = new WeakMap<SqliteDatabase, { stamp: string; labels: Map<string, boolean> }>();

/** Column weights for bm25(): name, qualified_name, split, signature, doc, path, body. */
const BM25_WEIGHTS = '10.0, 8.0, 5.0, 3.0, 2.0, 1.5, 1.0';

/** Read queries over one label of the index. */
export class IndexReader {
  constructor(
    private readonly db: SqliteDatabase,
    readonly label = 'working',
  ) {}

  private labelId(): number | null {
    const row = cachedStatement(this.db, `SELECT id FROM labels WHERE name = ?`).get(this.label) as { id: number } | undefined;
    return row ? row.id : null;
  }

  private inLabel(): string {
    return `JOIN label_files lf ON lf.file_id = n.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = '${this.label.replace(/'/g, "''")}')`;
  }

  /** Nodes by id, in the order given (missing ids dropped). */
  nodesByIds(ids: readonly number[]): NodeRecord[] {
    if (ids.length === 0) return [];
    const out = new Map<number, NodeRecord>();
    // One prepared statement for any number of ids (an `IN (?, ?, …)` list is re-prepared per length).
    const rows = this.cached(`SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as NodeRow[];
    for (const r of rows) out.set(r.id, toNode(r));
    return ids.map((id) => out.get(id)).filter((n): n is NodeRecord => n !== undefined);
  }

  /** A statement prepared once per connection (readers are cheap, short-lived objects). */
  private cached(sql: string): Statement {
    return cachedStatement(this.db, sql);
  }

  nodeById(id: number): NodeRecord | null {
    return this.nodesByIds([id])[0] ?? null;
  }

  /** Exact (case-insensitive) qualified-name matches, exact case first. */
  byQualifiedName(qualifiedName: string, filter?: NodeFilter, limit = 50): NodeRecord[] {
    const params: unknown[] = [qualifiedName];
    const where = filterSql(this.db, filter, params);
    params.push(qualifiedName, limit);
    const rows = cachedStatement(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${this.inLabel()}
        WHERE n.qualified_name = ? COLLATE NOCASE ${where}
        ORDER BY (n.qualified_name = ?) DESC, n.kind IN ('file','module'), f.path, n.start_line LIMIT ?`)
      .all(...params) as NodeRow[];
    return rows.map(toNode);
  }

  /**
   * Suffix matches: nodes whose qualified name ends with `.<suffix>` (member or namespace
   * match), plus simple-name matches when `suffix` has no dot.
   */
  bySuffix(suffix: string, filter?: NodeFilter, limit = 50): NodeRecord[] {
    const lastDot = Math.max(suffix.lastIndexOf('.'), suffix.lastIndexOf('::') >= 0 ? suffix.lastIndexOf('::') + 1 : -1);
    const simple = lastDot >= 0 ? suffix.slice(lastDot + 1) : suffix;
    const normalized = suffix.replace(/::/g, '.');
    const params: unknown[] = [simple];
    const where = filterSql(this.db, filter, params);
    params.push(normalized, `%.${normalized}`, normalized, limit);
    const rows = cachedStatement(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${this.inLabel()}
        WHERE n.name = ? COLLATE NOCASE ${where}
          AND (n.qualified_name = ? COLLATE NOCASE OR n.qualified_name LIKE ?)
        ORDER BY (n.name = ?) DESC, n.kind IN ('file','module'), length(n.qualified_name), f.path, n.start_line LIMIT ?`)
      .all(...params) as NodeRow[];
    return rows.map(toNode);
  }

  /**
   * BM25 over the FTS columns; user text is quoted term by term (see buildFtsQuery). The FTS
   * table is kept in the outer loop (`CROSS JOIN`: SQLite never reorders it), so MATCH runs once
   * and nodes are primary-key lookups. Without filters, the FTS rows are ranked and cut before
   * any join, with `bm25()` as a column under SQLite's own `ORDER BY … LIMIT`, which keeps only
   * the best rows as it goes: FTS5's `ORDER BY rank` sorts every matching row first and cost a
   * third more at 100K symbols, for the same rows in the same order (ties by rowid in both).
   */
  bm25(text: string, filter?: NodeFilter, limit = 50): RankedHit[] {
    let q = buildFtsQuery(text);
    if (!q.match) return [];
    const plan = this.termPlan(q.terms);
    if (plan.drop.size > 0 || plan.heads.size > 0) q = buildFtsQuery(text, plan);
    if (!q.match) return [];
    if (!isRestrictive(filter)) {
      // Over-fetch a little: rows of other labels' file versions are dropped by the join.
      const rows = this.cached(
        `SELECT m.id AS id, -m.rank AS score FROM (
            SELECT rowid AS id, bm25(fts_nodes, ${BM25_WEIGHTS}) AS rank FROM fts_nodes WHERE fts_nodes MATCH ?
            ORDER BY rank, rowid LIMIT ?
          ) m CROSS JOIN nodes n ON n.id = m.id ${this.inLabel()}
          ORDER BY m.rank, m.id LIMIT ?`,
      ).all(q.match, limit * 2, limit) as { id: number; score: number }[];
      return rows.map((r) => ({ nodeId: r.id, score: r.score }));
    }
    // BM25 scores do not depend on the filter: the filtered answer is the unfiltered ranking
    // with the rows that fail it left out. FTS ranks the matching rows alone (no join); they are
    // kept by the filter's allowed set when it is cached or the filter is selective (a sample
    // says under a quarter of the nodes pass: the set is cheap to read, or needed by the vector
    // channel too), else checked a batch at a time in ranking order (`idsPassing`) until `limit`
    // pass — exact either way. A broad filter's passing rows are near the top: the head of the
    // ranking is read under LIMIT (SQLite's bounded sort, as without a filter), and the whole
    // ranking only when the head holds fewer than `limit` of them.
    const ranking = (head: number | null) =>
      this.cached(
        `SELECT rowid AS id, -bm25(fts_nodes, ${BM25_WEIGHTS}) AS score FROM fts_nodes WHERE fts_nodes MATCH ?
         ORDER BY bm25(fts_nodes, ${BM25_WEIGHTS}), rowid${head === null ? '' : ' LIMIT ?'}`,
      ).all(...(head === null ? [q.match] : [q.match, head])) as { id: number; score: number }[];
    const out: RankedHit[] = [];
    const cached = this.cachedNodeIdsMatching(filter!);
    const fraction = cached ? 1 : this.passingFraction(filter!);
    const allowed = cached ?? (fraction < BROAD_FILTER_FRACTION ? this.nodeIdsMatching(filter!) : null);
    if (allowed) {
      for (const r of ranking(null)) {
        if (!allowed.has(r.id)) continue;
        out.push({ nodeId: r.id, score: r.score });
        if (out.length >= limit) break;
      }
      return out;
    }
    const head = Math.ceil((2 * limit) / fraction);
    let ranked = ranking(head);
    let whole = ranked.length < head;
    for (let at = 0, batch = limit * 2; out.length < limit; ) {
      if (at >= ranked.length) {
        if (whole) break;
        ranked = ranking(null);
        whole = true;
        continue;
      }
      const slice = ranked.slice(at, at + batch);
      at += slice.length;
      batch *= 2;
      const passing = this.idsPassing(filter!, slice.map((r) => r.id));
      for (const r of slice) {
        if (!passing.has(r.id)) continue;
        out.push({ nodeId: r.id, score: r.score });
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  /**
   * How the terms of a BM25 query are matched so that together they match at most `budget` rows
   * (FTS5 scores every matching row before it can sort): the rarest terms while they fit, the
   * most common ones dropped. The rarest term is always kept; when it alone is over the budget
   * (`add`, `data` at 100K symbols), it is matched in the name columns only
   * (`heads`), where its best rows are, unless it never appears there. Document frequencies are
   * FTS5 row counts of each term as the query matches it (`count(*) … MATCH`, which reads a
   * term's doclist without scoring), cached per connection until the database changes. They are
   * counted only up to the budget + 1: a term over the budget is dropped (or, as the rarest,
   * restricted) whatever its exact count, and reading a common term's whole doclist cost 1.2–3.8
   * ms at 100K symbols against ~0.35 ms for the first 8,001 rows (the fts5vocab views used
   * before took 1.2–4.8 ms per term). Exact counts are read only when every term is over the
   * budget, to find the rarest; the plan is the one exact counts give.
   */
  termPlan(terms: readonly string[], budget = BM25_POSTING_BUDGET): TermPlan {
    const plan = { drop: new Set<string>(), heads: new Set<string>() };
    if (terms.length === 0) return plan;
    const stats = this.termStats();
    const cap = Math.max(0, Math.floor(budget)) + 1;
    /** Rows matching `match`, up to `upTo` (0: all of them). */
    const count = (match: string, upTo = 0): number => {
      const key = `${upTo}\0${match}`;
      let n = stats.counts.get(key);
      if (n === undefined) stats.counts.set(key, (n = Number((upTo > 0 ? stats.countUpTo.get(match, upTo) : stats.count.get(match)) ?? 0)));
      return n;
    };
    const df = (t: string): number => count(quote(t), cap);
    const exactDf = (t: string): number => count(quote(t));
    let byRarity = [...terms].sort((a, b) => df(a) - df(b));
    if (df(byRarity[0]!) > budget) byRarity = [...terms].sort((a, b) => exactDf(a) - exactDf(b));
    let total = 0;
    byRarity.forEach((t, i) => {
      total += df(t);
      if (i > 0 && total > budget) plan.drop.add(t);
    });
    const rarest = byRarity[0]!;
    if (df(rarest) > budget && count(headsMatch(rarest)) > 0) plan.heads.add(rarest);
    return plan;
  }

  private termStats(): TermStats {
    let stats = termStatsByDb.get(this.db);
    if (!stats) {
      stats = {
        count: cachedPluck(this.db, `SELECT count(*) FROM fts_nodes WHERE fts_nodes MATCH ?`),
        countUpTo: cachedPluck(this.db, `SELECT count(*) FROM (SELECT 1 FROM fts_nodes WHERE fts_nodes MATCH ? LIMIT ?)`),
        counts: new Map(),
        stamp: '',
      };
      termStatsByDb.set(this.db, stats);
    }
    const stamp = changeStamp(this.db);
    if (stamp !== stats.stamp || stats.counts.size > 20_000) {
      stats.counts.clear();
      stats.stamp = stamp;
    }
    return stats;
  }

  /**
   * Ids of the label's nodes that pass a filter (for channels that filter by predicate), cached
   * per connection until the index changes (see `allowedNodeIds`).
   */
  nodeIdsMatching(filter: NodeFilter): NodeIdSet {
    const params: unknown[] = [];
    const where = filterSql(this.db, filter, params);
    return allowedNodeIds(this.db, this.filterScope(), where, params)!;
  }

  /** About what fraction of the label's nodes pass a filter (a sample; 1 without a filter). */
  passingFraction(filter: NodeFilter): number {
    const params: unknown[] = [];
    const where = filterSql(this.db, filter, params);
    return where === '' ? 1 : passingFraction(this.db, this.filterScope(), where, params)!;
  }

  /**
   * `passingFraction` when an earlier call sampled it (the filter was used before on this
   * connection since the index last changed), else null: nothing is computed.
   */
  knownPassingFraction(filter: NodeFilter): number | null {
    const params: unknown[] = [];
    const where = filterSql(this.db, filter, params);
    return where === '' ? 1 : passingFraction(this.db, this.filterScope(), where, params, true);
  }

  /** `nodeIdsMatching` when its answer is cached (nothing to compute), else null. */
  cachedNodeIdsMatching(filter: NodeFilter): NodeIdSet | null {
    const params: unknown[] = [];
    const where = filterSql(this.db, filter, params);
    return allowedNodeIds(this.db, this.filterScope(), where, params, true);
  }

  /** Which of `ids` are nodes of the label passing the filter (a check of a few candidates, not a scan). */
  idsPassing(filter: NodeFilter, ids: readonly number[]): Set<number> {
    const params: unknown[] = [];
    const where = filterSql(this.db, filter, params);
    return idsPassingWhere(this.db, this.filterScope(), where, params, ids);
  }

  /** The label, and whether it holds the whole index (then filters need not check it per node). */
  private filterScope(): FilterScope {
    return { label: this.label, wholeIndex: this.exclusive() };
  }

  /** The label's nodes passing a filter for a graph export, in batches (see exportNodes.ts). */
  exportNodes(filter: NodeFilter | undefined, limit: number): Generator<ExportNode[]> {
    return exportNodes(this.db, this.label, filter, limit);
  }

  /** How many of the label's nodes pass a filter (the total a capped graph export reports). */
  countExportNodes(filter: NodeFilter | undefined): number {
    return countExportNodes(this.db, this.label, filter);
  }

  /** The label's nodes passing a filter, one page at a time in a stable order (`ca find`). */
  find(filter: NodeFilter, page: { limit: number; offset?: number; after?: FindCursor | null }): FindPage {
    return findNodes(this.db, this.label, filter, page);
  }

  /** Caller counts and a few neighbour names per node (search results). */
  nodeFacts(nodeIds: readonly number[], perSide = 3): Map<number, NodeFacts> {
    return nodeFacts(this.db, this.label, nodeIds, perSide);
  }

  /** Every location of each chunk hash in the label (identical code), up to `max` per hash. */
  locationsByChunkHash(chunkHashes: readonly string[], max = 20): Map<string, { locations: CodeLocation[]; total: number }> {
    return locationsByChunkHash(this.db, this.label, chunkHashes, max);
  }

  /** The label's version of a file (content hash, line count), or null when it does not hold the path. */
  indexedFile(path: string): IndexedFile | null {
    return indexedFile(this.db, this.label, path);
  }

  /** Notices about a filter expression for this index (a `project:` naming no project of it). */
  filterNotices(filter: NodeFilter): readonly string[] {
    return filter.expression ? compileFilter(this.db, filter.expression).notices : [];
  }

  /**
   * One-hop neighbours of the given nodes over resolved structural edges (both directions),
   * as (neighbour, seed) pairs.
   */
  neighbours(nodeIds: readonly number[], types: readonly EdgeType[]): { neighbour: number; seed: number }[] {
    if (nodeIds.length === 0) return [];
    const ids = nodeIds.map(() => '?').join(',');
    const ts = types.map(() => '?').join(',');
    return cachedStatement(this.db, `SELECT target_id AS neighbour, source_id AS seed FROM edges WHERE source_id IN (${ids}) AND target_id IS NOT NULL AND type IN (${ts})
         UNION
         SELECT source_id AS neighbour, target_id AS seed FROM edges WHERE target_id IN (${ids}) AND type IN (${ts})`)
      .all(...nodeIds, ...types, ...nodeIds, ...types) as { neighbour: number; seed: number }[];
  }

  /** Nodes of one file (all versions held by this label), in source order. */
  outline(path: string): NodeRecord[] {
    const rows = cachedStatement(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${this.inLabel()}
        WHERE f.path = ? ORDER BY n.start_byte, n.end_byte DESC`)
      .all(path) as NodeRow[];
    return rows.map(toNode);
  }

  /** Children of a node, in source order. */
  children(nodeId: number): NodeRecord[] {
    const rows = cachedStatement(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.parent_id = ?
        ORDER BY n.start_byte`)
      .all(nodeId) as NodeRow[];
    return rows.map(toNode);
  }

  /** Every path of the label with its version data, for change detection. */
  labelEntries(): Map<string, LabelEntry> {
    const labelId = this.labelId();
    const out = new Map<string, LabelEntry>();
    if (labelId === null) return out;
    const rows = cachedStatement(this.db, `SELECT lf.path, lf.file_id, lf.mtime_ms, f.content_hash, f.size, f.extractor FROM label_files lf
        JOIN files f ON f.id = lf.file_id WHERE lf.label_id = ?`)
      .all(labelId) as { path: string; file_id: number; mtime_ms: number | null; content_hash: string; size: number; extractor: string }[];
    for (const r of rows) {
      out.set(r.path, { fileId: r.file_id, contentHash: r.content_hash, mtimeMs: r.mtime_ms, size: r.size, extractor: r.extractor });
    }
    return out;
  }

  /** One path of the label with its version data (an answer's freshness check), or null. */
  labelEntry(path: string): LabelEntry | null {
    const labelId = this.labelId();
    if (labelId === null) return null;
    const r = cachedStatement(this.db, `SELECT lf.file_id, lf.mtime_ms, f.content_hash, f.size, f.extractor FROM label_files lf
        JOIN files f ON f.id = lf.file_id WHERE lf.label_id = ? AND lf.path = ?`)
      .get(labelId, path) as { file_id: number; mtime_ms: number | null; content_hash: string; size: number; extractor: string } | undefined;
    return r ? { fileId: r.file_id, contentHash: r.content_hash, mtimeMs: r.mtime_ms, size: r.size, extractor: r.extractor } : null;
  }

  /** Files of the label whose parse status is not `ok`, with the recorded reason. */
  fileStatuses(): FileStatusRecord[] {
    const rows = cachedStatement(this.db, `SELECT f.path, f.language, f.parse_status, f.status_reason, f.line_count, f.generated FROM files f
        JOIN label_files lf ON lf.file_id = f.id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)
        ORDER BY f.path`)
      .all(this.label) as { path: string; language: string | null; parse_status: string; status_reason: string | null; line_count: number; generated: number }[];
    return rows.map((r) => ({
      path: r.path,
      language: r.language,
      parseStatus: r.parse_status as ParseStatus,
      reason: r.status_reason,
      lineCount: r.line_count,
      generated: r.generated === 1,
    }));
  }

  /** Counts for `ca status`. */
  counts(): { files: number; symbols: number; edges: number; lines: number; byStatus: Record<ParseStatus, number> } {
    const byStatus: Record<ParseStatus, number> = { ok: 0, partial: 0, error: 0, no_grammar: 0, skipped: 0 };
    let files = 0;
    let lines = 0;
    for (const s of this.fileStatuses()) {
      byStatus[s.parseStatus]++;
      files++;
      lines += s.lineCount;
    }
    const labelId = this.labelId() ?? -1;
    const symbols = (cachedStatement(this.db, `SELECT COUNT(*) AS c FROM nodes n JOIN label_files lf ON lf.file_id = n.file_id AND lf.label_id = ?
        WHERE n.kind NOT IN ('file','module')`)
      .get(labelId) as { c: number }).c;
    const edges = (cachedStatement(this.db, `SELECT COUNT(*) AS c FROM edges e JOIN label_files lf ON lf.file_id = e.file_id AND lf.label_id = ?`)
      .get(labelId) as { c: number }).c;
    return { files, symbols, edges, lines, byStatus };
  }

  /** Outgoing edges of a node. */
  edgesFrom(nodeId: number, types?: readonly EdgeType[]): EdgeRecord[] {
    return this.edgeQuery('e.source_id = ?', nodeId, types);
  }

  /** Incoming (resolved) edges of a node. */
  edgesTo(nodeId: number, types?: readonly EdgeType[]): EdgeRecord[] {
    return this.edgeQuery('e.target_id = ?', nodeId, types);
  }

  private edgeQuery(where: string, id: number, types?: readonly EdgeType[]): EdgeRecord[] {
    const params: unknown[] = [id];
    let typeSql = '';
    if (types && types.length > 0) {
      typeSql = ` AND e.type IN (${types.map(() => '?').join(',')})`;
      params.push(...types);
    }
    const rows = cachedStatement(this.db, `SELECT e.id, e.source_id, e.target_id, e.type, e.confidence, e.target_key, e.target_name, e.line, f.path
        FROM edges e JOIN files f ON f.id = e.file_id WHERE ${where}${typeSql} ORDER BY f.path, e.line`)
      .all(...params) as { id: number; source_id: number; target_id: number | null; type: string; confidence: string; target_key: string; target_name: string; line: number; path: string }[];
    return rows.map((r) => ({
      id: r.id,
      sourceId: r.source_id,
      targetId: r.target_id,
      type: r.type as EdgeType,
      confidence: r.confidence as Confidence,
      targetKey: r.target_key,
      targetName: r.target_name,
      line: r.line,
      path: r.path,
    }));
  }

  /**
   * Number of distinct files with a resolved call/reference edge into each node, counted up to
   * `cap` over at most `scan` of its edges (search only uses ≤ 10; a hub with thousands of edges
   * from a few files would otherwise be read whole). Nodes without such edges are absent.
   */
  callerFileCounts(nodeIds: readonly number[], cap = 10, scan = 256): Map<number, number> {
    const out = new Map<number, number>();
    if (nodeIds.length === 0) return out;
    const rows = this.cached(
      `SELECT t.value AS id, (SELECT COUNT(DISTINCT s.file_id) FROM (SELECT e.file_id FROM edges e
         WHERE e.target_id = t.value AND e.type IN ('calls','references') LIMIT ?) s) AS c
       FROM json_each(?) t`,
    ).all(scan, JSON.stringify(nodeIds)) as { id: number; c: number }[];
    for (const r of rows) if (r.c > 0) out.set(r.id, Math.min(r.c, cap));
    return out;
  }

  /**
   * Dependents of the given nodes in this label: sources of `types` edges into them (callers,
   * referrers, implementers, subclasses), with how many such edges each has, most first.
   */
  dependentsOf(nodeIds: readonly number[], types: readonly EdgeType[], limit = 50): { nodeId: number; edges: number }[] {
    if (nodeIds.length === 0 || types.length === 0) return [];
    return (
      cachedStatement(this.db, `SELECT e.source_id AS nodeId, COUNT(*) AS edges FROM edges e
           JOIN label_files lf ON lf.file_id = e.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)
           WHERE e.target_id IN (${nodeIds.map(() => '?').join(',')}) AND e.type IN (${types.map(() => '?').join(',')})
             AND e.source_id NOT IN (${nodeIds.map(() => '?').join(',')})
           GROUP BY e.source_id ORDER BY edges DESC, e.source_id LIMIT ?`)
        .all(this.label, ...nodeIds, ...types, ...nodeIds, limit) as { nodeId: number; edges: number }[]
    );
  }

  metadata(key: string): string | null {
    return readMetadata(this.db, key);
  }

  /** The most recent events, newest first. */
  recentEvents(limit = 20): { at: string; kind: string; path: string | null; message: string }[] {
    return cachedStatement(this.db, `SELECT at, kind, path, message FROM events ORDER BY id DESC LIMIT ?`)
      .all(limit) as { at: string; kind: string; path: string | null; message: string }[];
  }

  /** The content hash of the version the label holds at `path`, or null. */
  contentHashOf(path: string): string | null {
    return (
      (cachedPluck(this.db,
        `SELECT f.content_hash FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ? WHERE lf.path = ?`)
        .get(this.label, path) as string | undefined) ?? null
    );
  }

  /**
   * The bytes of the version the label holds at `path` as the index stored them, or null when
   * the label has no such path or the index kept no copy (over the size cap, or indexed by a
   * version of ca that kept none).
   */
  fileContent(path: string): Buffer | null {
    const row = cachedStatement(
      this.db,
      `SELECT c.data FROM label_files lf JOIN labels l ON l.id = lf.label_id AND l.name = ? JOIN files f ON f.id = lf.file_id
       JOIN file_contents c ON c.content_hash = f.content_hash WHERE lf.path = ?`,
    ).get(this.label, path) as { data: Buffer } | undefined;
    return row ? inflateRawSync(row.data) : null;
  }

  /** Import specifiers (or names) of a file node, at most 40 (file embedding texts). */
  fileImports(fileNodeId: number): string[] {
    return cachedPluck(this.db, `SELECT DISTINCT COALESCE(specifier, target_name) AS s FROM edges WHERE source_id = ? AND type = 'imports' LIMIT 40`)
      .all(fileNodeId) as string[];
  }

  /** Names of a node's public children in source order, at most 40 (file embedding texts). */
  publicChildren(nodeId: number): string[] {
    return cachedPluck(this.db, `SELECT name FROM nodes WHERE parent_id = ? AND is_public_api = 1 ORDER BY start_byte LIMIT 40`)
      .all(nodeId) as string[];
  }

  /** Number of the label's files in `languages`. */
  countFiles(languages: readonly string[]): number {
    if (languages.length === 0) return 0;
    return cachedPluck(this.db, `SELECT COUNT(*) FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
         WHERE f.language IN (${languages.map(() => '?').join(',')})`)
      .get(this.label, ...languages) as number;
  }

  /**
   * Whether every file version of the index belongs to this label (no other label, staging
   * crawl or uncollected version): then label filters can be skipped. Cached until the index changes.
   */
  exclusive(): boolean {
    const stamp = changeStamp(this.db);
    let cache = exclusiveCache.get(this.db);
    if (!cache || cache.stamp !== stamp) exclusiveCache.set(this.db, (cache = { stamp, labels: new Map() }));
    let answer = cache.labels.get(this.label);
    if (answer === undefined) {
      const labelId = this.labelId();
      answer =
        labelId !== null &&
        (cachedPluck(this.db, `SELECT NOT EXISTS (SELECT 1 FROM files f WHERE NOT EXISTS (SELECT 1 FROM label_files lf WHERE lf.file_id = f.id AND lf.label_id = ?))`)
          .get(labelId) as number) === 1;
      cache.labels.set(this.label, answer);
    }
    return answer;
  }

  /** Whether the label exists. */
  exists(): boolean {
    return this.labelId() !== null;
  }
}
