import type { Confidence, EdgeType } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedStatement, changeStamp, selectColumn, selectOne, selectValue, type Statement } from './statements.js';
import { toNodeSummary, type NodeSummary, type NodeSummaryRow } from './rows.js';
import { inLabelJoinByLabel, labelEntriesCondition } from './labelScope.js';
import { allowedConfidences, walkSteps, type WalkEdgeRow } from './walk.js';

export type Direction = 'in' | 'out';

export interface TraversalOptions {
  readonly direction: Direction;
  readonly types: readonly EdgeType[];
  readonly minConfidence: Confidence;
  readonly depth: number;
  /**
   * Upper bound on the nodes the walk may reach besides the seeds; default 50,000 (guards dense
   * graphs). Applied during the walk in BFS order, so the nodes kept are the nearest ones.
   */
  readonly maxRows?: number;
  /**
   * Walk within this label only, when the index holds other labels' versions too: edges from
   * files of the label, and each end taken as the label's version of that symbol (same symbol
   * key) — a file version two labels share points at whichever target version it was resolved
   * to, and each label sees its own.
   */
  readonly label?: string;
  /**
   * Edge types that lead to a *bridge*: a node the walk crosses within the same level, so its
   * neighbours are as far from the seeds as the bridge itself (an HTTP endpoint between a client
   * call and its handler, decision 038: `handles` walking in, `http_calls` walking out).
   */
  readonly bridges?: readonly EdgeType[];
}

export interface GraphEdge {
  readonly id: number;
  readonly from: number;
  /** Null for an unresolved target (only on outgoing walks). */
  readonly to: number | null;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  readonly path: string;
  readonly line: number;
  readonly targetName: string;
}

export interface Traversal {
  /** Reached node → the smallest depth it was reached at (seeds have depth 0). */
  readonly depth: ReadonlyMap<number, number>;
  /** Edges along the walk (between reached nodes, in walk direction), plus unresolved leaves. */
  readonly edges: readonly GraphEdge[];
  /** True when maxRows cut the walk short. */
  readonly truncated: boolean;
  /**
   * Distinct nodes reached besides the seeds. Exact when not truncated. When truncated it is a
   * lower bound: the kept nodes plus the distinct nodes seen and dropped on the level that hit
   * the cap (deeper levels are not explored; counting them would cost the full walk).
   */
  readonly reached: number;
}

/** The fields of a node that graph answers print (no chunk text: hydrating it dominated large answers). */
export type GraphNode = NodeSummary;

/** One group of files of a label whose semantic state is not `ok`. */
export interface SemanticGapRow {
  readonly project: string;
  readonly language: string;
  readonly state: string;
  readonly reason: string | null;
  readonly files: number;
}

/** One file of the label without exact edges (see `GraphReader.semanticGapFiles`). */
export interface SemanticGapFile {
  readonly path: string;
  readonly project: string;
  readonly language: string;
  readonly state: string;
  readonly reason: string | null;
}

// Per-connection caches (statements: statements.ts). Gaps: the
// query groups every file of the label (most of a depth-1 callers call's time) and its answer
// only changes when the index does.
const pathCache = new WeakMap<SqliteDatabase, { stamp: string; paths: Map<number, string> }>();
const gapCache = new WeakMap<SqliteDatabase, Map<string, { stamp: string; rows: SemanticGapRow[] }>>();
const gapFileCache = new WeakMap<SqliteDatabase, Map<string, { stamp: string; rows: SemanticGapFile[] }>>();
const scopeCache = new WeakMap<SqliteDatabase, { stamp: string; scopes: Map<string, LabelScope | null> }>();

/**
 * One label's view of a graph shared by several labels: its files, and each node of another
 * version of a file mapped to the label's node for the same symbol — same path, qualified name
 * and kind, preferring the same symbol key, then the same signature (keys of one symbol may
 * differ between versions once a semantic pass refined one of them). Cached for the life of the
 * scope (until the index changes).
 */
class LabelScope {
  private readonly mapped = new Map<number, number>();
  private readonly aliases = new Map<number, number[]>();

  constructor(
    private readonly db: SqliteDatabase,
    readonly files: ReadonlySet<number>,
  ) {}

  /** The label's version of node `id` (itself when it is the label's, or when the label has none). */
  inLabel(id: number): number {
    const hit = this.mapped.get(id);
    if (hit !== undefined) return hit;
    const self = this.node(id);
    let out = id;
    if (self && !this.files.has(self.file_id)) {
      const mine = this.others(self).filter((c) => this.files.has(c.file_id));
      out = (mine.find((c) => c.symbol_key === self.symbol_key) ?? mine.find((c) => c.signature === self.signature) ?? mine[0])?.id ?? id;
    }
    this.mapped.set(id, out);
    return out;
  }

  /** Each node with the nodes of the same symbol in other versions (not the label's), mapped back to it. */
  withAliases(ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    for (const id of ids) {
      out.set(id, id);
      let list = this.aliases.get(id);
      if (!list) {
        const self = this.node(id);
        list = self ? this.others(self).filter((o) => !this.files.has(o.file_id)).map((o) => o.id) : [];
        this.aliases.set(id, list);
      }
      for (const a of list) if (!out.has(a)) out.set(a, id);
    }
    return out;
  }

  private node(id: number): ScopeNode | undefined {
    return selectOne<ScopeNode>(
      this.db,
      `SELECT n.id, n.file_id, n.symbol_key, n.signature, n.qualified_name, n.kind, f.path FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id = ?`, id);
  }

  /** Nodes of the same symbol in other versions of its file. */
  private others(self: ScopeNode): ScopeNode[] {
    return cachedStatement(
      this.db,
      `SELECT n.id, n.file_id, n.symbol_key, n.signature, n.qualified_name, n.kind, f.path FROM nodes n JOIN files f ON f.id = n.file_id
       WHERE n.qualified_name = ? COLLATE NOCASE AND n.kind = ? AND f.path = ? AND n.id <> ?`,
    )
      .all(self.qualified_name, self.kind, self.path, self.id)
      .filter((o) => (o as ScopeNode).qualified_name === self.qualified_name) as ScopeNode[];
  }
}

interface ScopeNode {
  id: number;
  file_id: number;
  symbol_key: string;
  signature: string;
  qualified_name: string;
  kind: string;
  path: string;
}

/**
 * Graph walks over resolved edges: a breadth-first search, one indexed query per level over
 * the whole frontier (passed as one JSON array, so one prepared statement serves every size),
 * with a visited set — each node is expanded once, at the depth it is first reached, so cycles
 * and diamonds cost nothing extra (a recursive CTE deduplicates (node, depth) pairs only and
 * re-expands hubs at every depth, which made deep impact walks over large graphs take seconds).
 * `maxRows` caps the reached nodes during the walk (`truncated`).
 */
export class GraphReader {
  constructor(private readonly db: SqliteDatabase) {}

  private statement(sql: string): Statement {
    return cachedStatement(this.db, sql);
  }

  private stamp(): string {
    return changeStamp(this.db);
  }

  /** File id → path, cached until the database changes (10K files load in a few ms). */
  private filePaths(): Map<number, string> {
    const stamp = this.stamp();
    const hit = pathCache.get(this.db);
    if (hit && hit.stamp === stamp) return hit.paths;
    const rows = this.statement(`SELECT id, path FROM files`).all() as { id: number; path: string }[];
    const paths = new Map<number, string>();
    for (const r of rows) paths.set(r.id, r.path);
    pathCache.set(this.db, { stamp, paths });
    return paths;
  }

  /**
   * Walks from `seeds` level by level. Within a level, edges are taken in (use-site path, line,
   * edge id) order; with a cap, that order decides which nodes of the last level are kept.
   */
  walk(seeds: readonly number[], options: TraversalOptions): Traversal {
    const confs = allowedConfidences(options.minConfidence);
    const incoming = options.direction === 'in';
    const near = incoming ? 'target_id' : 'source_id';
    // With one or two types, (node, type) index seeks; with more (impact, deps: 8 types) one
    // range scan per node over `edges_target_file`/`edges_source` and the type filtered after — 8
    // seeks per node were slower on a capped impact level (docs/benchmarks.md, "Figures behind
    // choices in the code").
    const typeColumn = options.types.length <= 2 ? 'e.type' : '+e.type';
    // No join to `files`: paths come from a per-index map (the join cost ~25% of a level query).
    const stmt = this.statement(
      `SELECT e.id, e.source_id, e.target_id, e.type, e.confidence, e.line, e.target_name, e.file_id
       FROM edges e
       WHERE e.${near} IN (SELECT value FROM json_each(?)) AND ${typeColumn} IN (${options.types.map(() => '?').join(',')})
         AND e.confidence IN (${confs.map(() => '?').join(',')})`,
    );
    const paths = this.filePaths();
    const scope = options.label !== undefined ? this.labelScope(options.label) : null;
    const query = (ids: readonly number[]): WalkEdgeRow[] => {
      type Row = { id: number; source_id: number; target_id: number | null; type: string; confidence: string; line: number; target_name: string; file_id: number };
      let rows: Row[];
      if (scope === null) rows = stmt.all(JSON.stringify(ids), ...options.types, ...confs) as Row[];
      else {
        // Other versions of the frontier's symbols are asked too (edges resolved to them), then
        // every row is kept only from the label's files, with its ends mapped into the label.
        const asked = incoming ? scope.withAliases(ids) : new Map(ids.map((id) => [id, id]));
        rows = (stmt.all(JSON.stringify([...asked.keys()]), ...options.types, ...confs) as Row[]).filter((r) => scope.files.has(r.file_id));
        for (const r of rows) {
          if (incoming) r.target_id = asked.get(r.target_id!) ?? r.target_id;
          else if (r.target_id !== null) r.target_id = scope.inLabel(r.target_id);
        }
      }
      return rows.map((r) => ({
        id: r.id, from: r.source_id, to: r.target_id, type: r.type as EdgeType, confidence: r.confidence as Confidence,
        path: paths.get(r.file_id) ?? '', line: r.line, targetName: r.target_name,
      }));
    };
    const steps = walkSteps(seeds, options);
    for (let step = steps.next(); ; step = steps.next(query(step.value))) if (step.done) return step.value;
  }

  /** The label's files, and the mapping of nodes of other versions onto the label's (by symbol key). */
  private labelScope(label: string): LabelScope | null {
    const stamp = this.stamp();
    let cache = scopeCache.get(this.db);
    if (!cache || cache.stamp !== stamp) scopeCache.set(this.db, (cache = { stamp, scopes: new Map() }));
    const hit = cache.scopes.get(label);
    if (hit !== undefined) return hit;
    const labelId = selectValue<number>(this.db, `SELECT id FROM labels WHERE name = ?`, label);
    const files = new Set(
      labelId === undefined ? [] : selectColumn<number>(this.db, `SELECT lf.file_id FROM label_files lf WHERE ${labelEntriesCondition('id')}`, labelId),
    );
    const total = selectValue<number>(this.db, `SELECT COUNT(*) FROM files`)!;
    // Every version is the label's: nothing to filter or map.
    const scope: LabelScope | null = files.size === total ? null : new LabelScope(this.db, files);
    cache.scopes.set(label, scope);
    return scope;
  }

  /** Child nodes (via `contains`) of the given nodes, recursively. */
  descendants(nodeIds: readonly number[]): number[] {
    const rows = this.statement(
      `WITH RECURSIVE d(id) AS (SELECT value FROM json_each(?) UNION SELECT n.id FROM nodes n JOIN d ON n.parent_id = d.id)
       SELECT id FROM d`,
    ).all(JSON.stringify(nodeIds)) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** The printed fields of the given nodes, in the order of `ids` (unknown ids are skipped). */
  nodes(ids: readonly number[]): GraphNode[] {
    if (ids.length === 0) return [];
    const rows = this.statement(
      `SELECT n.id, n.parent_id, n.kind, n.language, n.name, n.qualified_name, n.file_id, n.start_line, n.end_line,
              n.signature, n.doc, n.modifiers, n.is_public_api
       FROM nodes n WHERE n.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as (NodeSummaryRow & { file_id: number })[];
    const paths = this.filePaths();
    const byId = new Map(rows.map((r) => [r.id, toNodeSummary(r, paths.get(r.file_id) ?? '')]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * Files of the label whose semantic state is not `ok`, grouped by project and language.
   * Cached per connection until the database changes (this connection's `total_changes()` or,
   * for other connections, `PRAGMA data_version`), so repeated navigation does not regroup
   * every file of the index.
   */
  semanticGaps(label: string, languages: readonly string[]): SemanticGapRow[] {
    return this.gapQuery(gapCache, label, languages, (from) =>
      `SELECT f.project, f.language, f.semantic_state AS state, MIN(f.semantic_reason) AS reason, COUNT(*) AS files
       ${from} GROUP BY f.project, f.language, f.semantic_state ORDER BY f.project, f.language, f.semantic_state`,
    ).map((r) => ({ ...r }));
  }

  /**
   * The files behind `semanticGaps`, one row each (project, language, state, path order), so a
   * caller can tell which of them could hold a missing edge. Cached like `semanticGaps`.
   */
  semanticGapFiles(label: string, languages: readonly string[]): readonly SemanticGapFile[] {
    return this.gapQuery(gapFileCache, label, languages, (from) =>
      `SELECT f.path, f.project, f.language, f.semantic_state AS state, f.semantic_reason AS reason
       ${from} ORDER BY f.project, f.language, f.semantic_state, f.path`,
    );
  }

  /** Rows of `sql(from)` over the label's files of `languages` without exact edges, cached in `caches` until the database changes. */
  private gapQuery<T>(
    caches: WeakMap<SqliteDatabase, Map<string, { stamp: string; rows: T[] }>>,
    label: string,
    languages: readonly string[],
    sql: (from: string) => string,
  ): T[] {
    if (languages.length === 0) return [];
    const langs = [...languages].sort();
    const stamp = this.stamp();
    let cache = caches.get(this.db);
    if (!cache) caches.set(this.db, (cache = new Map()));
    const key = JSON.stringify([label, langs]);
    const hit = cache.get(key);
    if (hit && hit.stamp === stamp) return hit.rows;
    const rows = this.statement(
      sql(`FROM files f ${inLabelJoinByLabel('f.id')}
       WHERE f.language IN (${langs.map(() => '?').join(',')}) AND f.semantic_state IN ('none','pending','failed')
         AND f.parse_status IN ('ok', 'partial', 'error')`),
    ).all(label, ...langs) as T[];
    cache.set(key, { stamp, rows });
    return rows;
  }
}
