import { inflateRawSync } from 'node:zlib';
import { DOC_LANGUAGES, type EdgeType, type FilterNode, type Language, type NodeKind, type ParseStatus, type ProjectTestFact } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { allowedNodeIds, compileFilter, idsPassingWhere, passingFraction, type FilterScope, type NodeIdSet } from './filterSql.js';
import { findNodes, indexedFile, locationsByChunkHash, nodeFacts, type CodeLocation, type FindCursor, type FindPage, type IndexedFile, type NodeFacts } from './queries.js';
import { countExportNodes, exportNodes, type ExportNode } from './exportNodes.js';
import { buildFtsQuery, headsMatch, quote } from './ftsQuery.js';
import { cachedPluck, changeStamp, readMetadata, selectAll, selectColumn, selectOne, selectValue, type Statement } from './statements.js';
import { readProjectFacts, testProjectsOf } from './testProjects.js';
import { inLabelExists, inLabelJoin, inLabelJoinByLabel, labelEntriesCondition } from './labelScope.js';
import {
  EDGE_COLUMNS,
  FILE_STATUS_COLUMNS,
  LABEL_ENTRY_COLUMNS,
  NODE_COLUMNS,
  toEdge,
  toFileStatus,
  toLabelEntry,
  toNode,
  type EdgeRecord,
  type EdgeRow,
  type FileStatusRecord,
  type FileStatusRow,
  type LabelEntry,
  type LabelEntryRow,
  type NodeRecord,
  type NodeRow,
} from './rows.js';

export type { NodeRecord, FileStatusRecord, LabelEntry, EdgeRecord } from './rows.js';

/** Filters applied inside every channel, before fusion. */
export interface NodeFilter {
  readonly languages?: readonly Language[];
  readonly kinds?: readonly NodeKind[];
  /** A JavaScript regular expression source matched against the repo-relative path. */
  readonly pathRegex?: string;
  /** Exclude file/module nodes (default false). */
  readonly symbolsOnly?: boolean;
  /** Exclude the nodes of documentation files (Markdown, JSON, YAML; default false). */
  readonly codeOnly?: boolean;
  /** A filter expression (@ca/schema `parseFilter`), ANDed with the fields above. */
  readonly expression?: FilterNode;
}

/** True when a filter restricts anything. */
export function isRestrictive(filter: NodeFilter | undefined): boolean {
  return (
    filter !== undefined &&
    ((filter.languages?.length ?? 0) > 0 || (filter.kinds?.length ?? 0) > 0 || !!filter.pathRegex || filter.symbolsOnly === true || filter.codeOnly === true || filter.expression !== undefined)
  );
}

export interface RankedHit {
  readonly nodeId: number;
  /** Channel-specific score, higher is better. */
  readonly score: number;
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
  if (filter.codeOnly) parts.push(codeOnly(false).slice(' AND '.length));
  if (filter.expression) {
    const compiled = compileFilter(db, filter.expression);
    parts.push(compiled.sql);
    params.push(...compiled.params);
  }
  return parts.length > 0 ? ` AND ${parts.join(' AND ')}` : '';
}

/**
 * Posting budget of one BM25 query. FTS5 scores every row that matches any OR term before it
 * can sort (a cost per matching row: docs/benchmarks.md, "Figures behind choices in the code"),
 * so a query whose terms together match more rows
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
/** Document frequencies a term plan reads (rows of the index matching a term). */
export interface TermCounts {
  /** Rows matching the term in any column, counted up to the budget + 1 (`min(rows, budget + 1)`). */
  upTo(term: string): number;
  /** Rows matching the term in any column. */
  exact(term: string): number;
  /** Rows matching the term in `BM25_HEAD_COLUMNS`. */
  heads(term: string): number;
}

/**
 * The term plan of `IndexReader.termPlan` from a source of document frequencies: the rarest
 * terms while together they fit the budget (at least one), the rest dropped; the rarest matched
 * in the name columns only when it alone is over the budget and appears there. Shared with the
 * team store (decision 046), which reads the same frequencies from its own tables, so both
 * backends drop the same terms of the same query.
 */
export function planTerms(terms: readonly string[], counts: TermCounts, budget = BM25_POSTING_BUDGET): TermPlan {
  const plan = { drop: new Set<string>(), heads: new Set<string>() };
  if (terms.length === 0) return plan;
  const df = (t: string): number => counts.upTo(t);
  let byRarity = [...terms].sort((a, b) => df(a) - df(b));
  if (df(byRarity[0]!) > budget) byRarity = [...terms].sort((a, b) => counts.exact(a) - counts.exact(b));
  let total = 0;
  byRarity.forEach((t, i) => {
    total += df(t);
    if (i > 0 && total > budget) plan.drop.add(t);
  });
  const rarest = byRarity[0]!;
  if (df(rarest) > budget && counts.heads(rarest) > 0) plan.heads.add(rarest);
  return plan;
}

/** A ranked row: a node id and its channel score. */
interface ScoredRow {
  id: number;
  score: number;
}

const termStatsByDb = new WeakMap<SqliteDatabase, TermStats>();
const exclusiveCache = new WeakMap<SqliteDatabase, { stamp: string; labels: Map<string, boolean> }>();

/**
 * The name channel's condition leaving out the documentation partition (nodes of Markdown, JSON
 * and YAML files, decision 039) unless documentation is asked for: a constant of the query, not
 * a filter (no allowed set, no sampling). The languages are @ca/schema constants.
 */
function codeOnly(withDocs: boolean): string {
  return withDocs ? '' : ` AND IFNULL(n.language, '') NOT IN (${DOC_LANGUAGES.map((l) => `'${l}'`).join(', ')})`;
}

/** Column weights for bm25(): name, qualified_name, split, signature, doc, path, body. */
const BM25_WEIGHTS = '10.0, 8.0, 5.0, 3.0, 2.0, 1.5, 1.0';

/** Read queries over one label of the index. */
export class IndexReader {
  constructor(
    private readonly db: SqliteDatabase,
    readonly label = 'working',
  ) {}

  private labelId(): number | null {
    return selectValue<number>(this.db, `SELECT id FROM labels WHERE name = ?`, this.label) ?? null;
  }


  /** Nodes by id, in the order given (missing ids dropped). */
  nodesByIds(ids: readonly number[]): NodeRecord[] {
    if (ids.length === 0) return [];
    const out = new Map<number, NodeRecord>();
    // One prepared statement for any number of ids (an `IN (?, ?, …)` list is re-prepared per length).
    const rows = selectAll<NodeRow>(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
    for (const r of rows) out.set(r.id, toNode(r));
    return ids.map((id) => out.get(id)).filter((n): n is NodeRecord => n !== undefined);
  }

  nodeById(id: number): NodeRecord | null {
    return this.nodesByIds([id])[0] ?? null;
  }

  /**
   * Exact (case-insensitive) qualified-name matches, exact case first; nodes of documentation
   * files only `withDocs`.
   */
  byQualifiedName(qualifiedName: string, filter?: NodeFilter, limit = 50, withDocs = false): NodeRecord[] {
    const params: unknown[] = [this.label, qualifiedName];
    const where = filterSql(this.db, filter, params) + codeOnly(withDocs);
    params.push(qualifiedName, limit);
    const rows = selectAll<NodeRow>(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${inLabelJoin('n.file_id')}
        WHERE n.qualified_name = ? COLLATE NOCASE ${where}
        ORDER BY (n.qualified_name = ?) DESC, n.kind IN ('file','module'), f.path, n.start_line LIMIT ?`, ...params);
    return rows.map(toNode);
  }

  /**
   * Suffix matches: nodes whose qualified name ends with `.<suffix>` (member or namespace
   * match), plus simple-name matches when `suffix` has no dot; nodes of documentation files
   * only `withDocs`.
   */
  bySuffix(suffix: string, filter?: NodeFilter, limit = 50, withDocs = false): NodeRecord[] {
    const lastDot = Math.max(suffix.lastIndexOf('.'), suffix.lastIndexOf('::') >= 0 ? suffix.lastIndexOf('::') + 1 : -1);
    const simple = lastDot >= 0 ? suffix.slice(lastDot + 1) : suffix;
    const normalized = suffix.replace(/::/g, '.');
    const params: unknown[] = [this.label, simple];
    const where = filterSql(this.db, filter, params) + codeOnly(withDocs);
    params.push(normalized, `%.${normalized}`, normalized, limit);
    const rows = selectAll<NodeRow>(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${inLabelJoin('n.file_id')}
        WHERE n.name = ? COLLATE NOCASE ${where}
          AND (n.qualified_name = ? COLLATE NOCASE OR n.qualified_name LIKE ?)
        ORDER BY (n.name = ?) DESC, n.kind IN ('file','module'), length(n.qualified_name), f.path, n.start_line LIMIT ?`, ...params);
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
  bm25(text: string, filter?: NodeFilter, limit = 50, budget = BM25_POSTING_BUDGET): RankedHit[] {
    let q = buildFtsQuery(text);
    if (!q.match) return [];
    const plan = this.termPlan(q.terms, budget);
    if (plan.drop.size > 0 || plan.heads.size > 0) q = buildFtsQuery(text, plan);
    if (!q.match) return [];
    if (!isRestrictive(filter)) {
      // Over-fetch a little: rows of other labels' file versions are dropped by the join.
      const rows = selectAll<ScoredRow>(
        this.db,
        `SELECT m.id AS id, -m.rank AS score FROM (
            SELECT rowid AS id, bm25(fts_nodes, ${BM25_WEIGHTS}) AS rank FROM fts_nodes WHERE fts_nodes MATCH ?
            ORDER BY rank, rowid LIMIT ?
          ) m CROSS JOIN nodes n ON n.id = m.id ${inLabelJoin('n.file_id')}
          ORDER BY m.rank, m.id LIMIT ?`,
        q.match,
        limit * 2,
        this.label,
        limit,
      );
      return this.orderTies(rows.map((r) => ({ nodeId: r.id, score: r.score })));
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
      selectAll<ScoredRow>(
        this.db,
        `SELECT rowid AS id, -bm25(fts_nodes, ${BM25_WEIGHTS}) AS score FROM fts_nodes WHERE fts_nodes MATCH ?
         ORDER BY bm25(fts_nodes, ${BM25_WEIGHTS}), rowid${head === null ? '' : ' LIMIT ?'}`,
        ...(head === null ? [q.match] : [q.match, head]),
      );
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
      return this.orderTies(out);
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
    return this.orderTies(out);
  }

  /**
   * Equal scores in path and position order (the team store's order too), not in row id order:
   * row ids follow the order the parse workers finished, so two indexes of one tree would rank
   * tied rows differently. Only the tied rows are read.
   */
  private orderTies(hits: RankedHit[]): RankedHit[] {
    const tied = new Set<number>();
    for (let i = 1; i < hits.length; i++) {
      if (hits[i]!.score === hits[i - 1]!.score) tied.add(hits[i]!.nodeId).add(hits[i - 1]!.nodeId);
    }
    if (tied.size === 0) return hits;
    const place = new Map(
      selectAll<{ id: number; path: string; start: number }>(
        this.db,
        `SELECT n.id AS id, lf.path AS path, n.start_byte AS start FROM json_each(?) t CROSS JOIN nodes n ON n.id = t.value ${inLabelJoin('n.file_id')}`,
        JSON.stringify([...tied]),
        this.label,
      ).map((r) => [r.id, r] as const),
    );
    const order = (a: RankedHit, b: RankedHit): number => {
      const pa = place.get(a.nodeId);
      const pb = place.get(b.nodeId);
      if (!pa || !pb) return a.nodeId - b.nodeId;
      return (pa.path < pb.path ? -1 : pa.path > pb.path ? 1 : 0) || pa.start - pb.start || a.nodeId - b.nodeId;
    };
    return [...hits].sort((a, b) => b.score - a.score || order(a, b));
  }

  /**
   * BM25 over the documentation partition (`fts_docs`: the nodes of Markdown, JSON and YAML
   * files, decision 039), best first, at most `limit`, only nodes passing `filter`. Scored by the
   * documentation's own term statistics; no term plan (`termPlan` bounds the code's postings).
   */
  bm25Docs(text: string, filter?: NodeFilter, limit = 50): RankedHit[] {
    const q = buildFtsQuery(text);
    if (!q.match) return [];
    const restrictive = isRestrictive(filter);
    // Over-fetch a little without a filter (other labels' rows are dropped by the join); a filter
    // reads every matching row, then keeps the passing ones in ranking order.
    const rows = selectAll<ScoredRow>(
      this.db,
      `SELECT m.id AS id, -m.rank AS score FROM (
          SELECT rowid AS id, bm25(fts_docs, ${BM25_WEIGHTS}) AS rank FROM fts_docs WHERE fts_docs MATCH ?
          ORDER BY rank, rowid${restrictive ? '' : ' LIMIT ?'}
        ) m CROSS JOIN nodes n ON n.id = m.id ${inLabelJoin('n.file_id')}
        ORDER BY m.rank, m.id`,
      ...(restrictive ? [q.match] : [q.match, limit * 2]),
      this.label,
    );
    const passing = restrictive ? this.idsPassing(filter!, rows.map((r) => r.id)) : null;
    // Ties in path and position order, as the code partition's (`orderTies`).
    return this.orderTies(
      rows
        .filter((r) => passing === null || passing.has(r.id))
        .slice(0, limit)
        .map((r) => ({ nodeId: r.id, score: r.score })),
    );
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
   * restricted) whatever its exact count, and reading a common term's whole doclist costs several
   * times what its first budget + 1 rows do (as did the fts5vocab views used before). Exact counts are read only when every term is over the
   * budget, to find the rarest; the plan is the one exact counts give.
   */
  termPlan(terms: readonly string[], budget = BM25_POSTING_BUDGET): TermPlan {
    if (terms.length === 0) return { drop: new Set<string>(), heads: new Set<string>() };
    const stats = this.termStats();
    const cap = Math.max(0, Math.floor(budget)) + 1;
    /** Rows matching `match`, up to `upTo` (0: all of them). */
    const count = (match: string, upTo = 0): number => {
      const key = `${upTo}\0${match}`;
      let n = stats.counts.get(key);
      if (n === undefined) stats.counts.set(key, (n = Number((upTo > 0 ? stats.countUpTo.get(match, upTo) : stats.count.get(match)) ?? 0)));
      return n;
    };
    return planTerms(terms, { upTo: (t) => count(quote(t), cap), exact: (t) => count(quote(t)), heads: (t) => count(headsMatch(t)) }, budget);
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
    return selectAll<{ neighbour: number; seed: number }>(
      this.db,
      `SELECT target_id AS neighbour, source_id AS seed FROM edges WHERE source_id IN (${ids}) AND target_id IS NOT NULL AND type IN (${ts})
         UNION
         SELECT source_id AS neighbour, target_id AS seed FROM edges WHERE target_id IN (${ids}) AND type IN (${ts})`,
      ...nodeIds,
      ...types,
      ...nodeIds,
      ...types,
    );
  }

  /** Nodes of one file (all versions held by this label), in source order. */
  outline(path: string): NodeRecord[] {
    const rows = selectAll<NodeRow>(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id ${inLabelJoin('n.file_id')}
        WHERE f.path = ? ORDER BY n.start_byte, n.end_byte DESC`, this.label, path);
    return rows.map(toNode);
  }

  /** Children of a node, in source order. */
  children(nodeId: number): NodeRecord[] {
    const rows = selectAll<NodeRow>(this.db, `SELECT ${NODE_COLUMNS} FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.parent_id = ?
        ORDER BY n.start_byte`, nodeId);
    return rows.map(toNode);
  }

  /** Every path of the label with its version data, for change detection. */
  labelEntries(): Map<string, LabelEntry> {
    const labelId = this.labelId();
    const out = new Map<string, LabelEntry>();
    if (labelId === null) return out;
    const rows = selectAll<LabelEntryRow>(this.db, `SELECT ${LABEL_ENTRY_COLUMNS} FROM label_files lf
        JOIN files f ON f.id = lf.file_id WHERE ${labelEntriesCondition('id')}`, labelId);
    for (const r of rows) out.set(r.path, toLabelEntry(r));
    return out;
  }

  /** One path of the label with its version data (an answer's freshness check), or null. */
  labelEntry(path: string): LabelEntry | null {
    const labelId = this.labelId();
    if (labelId === null) return null;
    const r = selectOne<LabelEntryRow>(this.db, `SELECT ${LABEL_ENTRY_COLUMNS} FROM label_files lf
        JOIN files f ON f.id = lf.file_id WHERE ${labelEntriesCondition('id')} AND lf.path = ?`, labelId, path);
    return r ? toLabelEntry(r) : null;
  }

  /** Files of the label whose parse status is not `ok`, with the recorded reason. */
  fileStatuses(): FileStatusRecord[] {
    return selectAll<FileStatusRow>(this.db, `SELECT ${FILE_STATUS_COLUMNS} FROM files f ${inLabelJoin('f.id')} ORDER BY f.path`, this.label).map(toFileStatus);
  }

  /** Counts for `ca status`. */
  counts(): { files: number; symbols: number; edges: number; lines: number; byStatus: Record<ParseStatus, number>; docSections: number; configKeys: number } {
    const byStatus: Record<ParseStatus, number> = { ok: 0, partial: 0, error: 0, no_grammar: 0, skipped: 0 };
    let files = 0;
    let lines = 0;
    for (const s of this.fileStatuses()) {
      byStatus[s.parseStatus]++;
      files++;
      lines += s.lineCount;
    }
    const labelId = this.labelId() ?? -1;
    // Documentation sections and configuration keys are counted apart from the code's symbols.
    const symbols = selectValue<number>(this.db, `SELECT COUNT(*) FROM nodes n ${inLabelJoin('n.file_id', 'id')} WHERE n.kind NOT IN ('file','module','doc','config')`, labelId)!;
    const docSections = selectValue<number>(this.db, `SELECT COUNT(*) FROM nodes n ${inLabelJoin('n.file_id', 'id')} WHERE n.kind = 'doc'`, labelId)!;
    const configKeys = selectValue<number>(this.db, `SELECT COUNT(*) FROM nodes n ${inLabelJoin('n.file_id', 'id')} WHERE n.kind = 'config'`, labelId)!;
    const edges = selectValue<number>(this.db, `SELECT COUNT(*) FROM edges e ${inLabelJoin('e.file_id', 'id')}`, labelId)!;
    return { files, symbols, edges, lines, byStatus, docSections, configKeys };
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
    return selectAll<EdgeRow>(this.db, `SELECT ${EDGE_COLUMNS} FROM edges e JOIN files f ON f.id = e.file_id WHERE ${where}${typeSql} ORDER BY f.path, e.line`, ...params).map(
      toEdge,
    );
  }

  /**
   * Number of distinct files with a resolved call/reference edge into each node, counted up to
   * `cap` over at most `scan` of its edges (search only uses ≤ 10; a hub with thousands of edges
   * from a few files would otherwise be read whole). Nodes without such edges are absent.
   */
  callerFileCounts(nodeIds: readonly number[], cap = 10, scan = 256): Map<number, number> {
    const out = new Map<number, number>();
    if (nodeIds.length === 0) return out;
    const rows = selectAll<{ id: number; c: number }>(
      this.db,
      `SELECT t.value AS id, (SELECT COUNT(DISTINCT s.file_id) FROM (SELECT e.file_id FROM edges e
         WHERE e.target_id = t.value AND e.type IN ('calls','references') LIMIT ?) s) AS c
       FROM json_each(?) t`,
      scan,
      JSON.stringify(nodeIds),
    );
    for (const r of rows) if (r.c > 0) out.set(r.id, Math.min(r.c, cap));
    return out;
  }

  /**
   * Dependents of the given nodes in this label: sources of `types` edges into them (callers,
   * referrers, implementers, subclasses), with how many such edges each has, most first.
   */
  dependentsOf(nodeIds: readonly number[], types: readonly EdgeType[], limit = 50): { nodeId: number; edges: number }[] {
    if (nodeIds.length === 0 || types.length === 0) return [];
    return selectAll<{ nodeId: number; edges: number }>(
      this.db,
      `SELECT e.source_id AS nodeId, COUNT(*) AS edges FROM edges e ${inLabelJoin('e.file_id')} JOIN nodes s ON s.id = e.source_id
           WHERE e.target_id IN (${nodeIds.map(() => '?').join(',')}) AND e.type IN (${types.map(() => '?').join(',')})
             AND e.source_id NOT IN (${nodeIds.map(() => '?').join(',')})
           GROUP BY e.source_id ORDER BY edges DESC, MIN(lf.path), MIN(s.start_byte), e.source_id LIMIT ?`,
      this.label,
      ...nodeIds,
      ...types,
      ...nodeIds,
      limit,
    );
  }

  metadata(key: string): string | null {
    return readMetadata(this.db, key);
  }

  /** The label's test projects (`project` values whose nodes are test code), cached until the index changes. */
  testProjects(): ReadonlySet<string> {
    return testProjectsOf(this.db, this.label);
  }

  /** Every project file the label's last runs classified, with whether it is a test project and why. */
  projectFacts(): Map<string, ProjectTestFact> {
    return readProjectFacts(this.db, this.label);
  }

  /** The most recent events, newest first. */
  recentEvents(limit = 20): { at: string; kind: string; path: string | null; message: string }[] {
    return selectAll<{ at: string; kind: string; path: string | null; message: string }>(this.db, `SELECT at, kind, path, message FROM events ORDER BY id DESC LIMIT ?`, limit);
  }

  /** The content hash of the version the label holds at `path`, or null. */
  contentHashOf(path: string): string | null {
    return selectValue<string>(this.db, `SELECT f.content_hash FROM files f ${inLabelJoin('f.id')} WHERE lf.path = ?`, this.label, path) ?? null;
  }

  /**
   * The bytes of the version the label holds at `path` as the index stored them, or null when
   * the label has no such path or the index kept no copy (over the size cap, or indexed by a
   * version of ca that kept none).
   */
  fileContent(path: string): Buffer | null {
    const data = selectValue<Buffer>(
      this.db,
      `SELECT c.data FROM label_files lf JOIN files f ON f.id = lf.file_id
       JOIN file_contents c ON c.content_hash = f.content_hash WHERE ${labelEntriesCondition()} AND lf.path = ?`,
      this.label,
      path,
    );
    return data ? inflateRawSync(data) : null;
  }

  /** Import specifiers (or names) of a file node, at most 40 (file embedding texts). */
  fileImports(fileNodeId: number): string[] {
    return selectColumn<string>(this.db, `SELECT DISTINCT COALESCE(specifier, target_name) AS s FROM edges WHERE source_id = ? AND type = 'imports' LIMIT 40`, fileNodeId);
  }

  /** Names of a node's public children in source order, at most 40 (file embedding texts). */
  publicChildren(nodeId: number): string[] {
    return selectColumn<string>(this.db, `SELECT name FROM nodes WHERE parent_id = ? AND is_public_api = 1 ORDER BY start_byte LIMIT 40`, nodeId);
  }

  /** Number of the label's files in `languages`. */
  countFiles(languages: readonly string[]): number {
    if (languages.length === 0) return 0;
    return selectValue<number>(
      this.db,
      `SELECT COUNT(*) FROM files f ${inLabelJoinByLabel('f.id')} WHERE f.language IN (${languages.map(() => '?').join(',')})`,
      this.label,
      ...languages,
    )!;
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
        selectValue<number>(this.db, `SELECT NOT EXISTS (SELECT 1 FROM files f WHERE NOT ${inLabelExists('f.id', 'id')})`, labelId) === 1;
      cache.labels.set(this.label, answer);
    }
    return answer;
  }

  /** Whether the label exists. */
  exists(): boolean {
    return this.labelId() !== null;
  }
}
