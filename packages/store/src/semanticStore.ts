import type { SqliteDatabase } from './database.js';
import { NodeLocator } from './nodeLocator.js';
import { cachedStatement, readMetadata, selectAll, selectColumn, selectOne, selectValue } from './statements.js';
import { inLabelJoinByLabel, labelEntriesCondition } from './labelScope.js';
import type { IndexWriter } from './writer.js';

/** A file of a label a semantic pass can analyse (parsed, with a language). */
export interface AnalysableFile {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly project: string;
  readonly lines: number;
  readonly semanticState: 'none' | 'pending' | 'ok' | 'failed';
  /** Why the file has no exact edges (a failure's `code: message`), or null. */
  readonly semanticReason: string | null;
}

/** A stored node of `storedSkeletons`: what a semantic pass needs to name a declaration's node. */
export interface StoredSkeletonNode {
  readonly id: number;
  readonly parentId: number | null;
  readonly kind: string;
  readonly name: string;
  readonly symbolKey: string;
  readonly startByte: number;
  readonly endByte: number;
}

/** The stored nodes of one parsed file version, with the content hash they were extracted from. */
export interface StoredSkeleton {
  readonly path: string;
  readonly contentHash: string;
  readonly nodes: readonly StoredSkeletonNode[];
}

/** One group of `semanticSummary`: files of a language in one semantic state. */
export interface SemanticSummaryRow {
  readonly language: string;
  readonly state: string;
  readonly files: number;
  readonly reason: string | null;
}

/** How many levels of re-exporting modules `markImportersPending` follows (the import resolver's own limit). */
const REEXPORT_DEPTH = 8;

/** The module paths an import may name a file by: without its extension, and its folder for an `index` file. */
function modulePathsOf(path: string): string[] {
  const bare = path.replace(/\.(d\.ts|d\.mts|d\.cts|tsx|ts|mts|cts|jsx|js|mjs|cjs)$/, '');
  if (bare === path) return [];
  const slash = bare.lastIndexOf('/');
  return bare.slice(slash + 1) === 'index' && slash > 0 ? [bare, bare.slice(0, slash)] : [bare];
}

const IN_LABEL = inLabelJoinByLabel('f.id');

/**
 * The semantic passes' view of the index: which files of a label need a pass, their states,
 * and the lookups that map a pass's results (paths, keys, positions) onto node ids. Writes of
 * edges go through `IndexWriter.applySemanticPass` / `degradeSemantic`.
 */
export class SemanticStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly writer: IndexWriter,
  ) {}

  /** Parsed files (`ok`/`partial`) of the label in `languages`, in path order. */
  analysableFiles(label: string, languages: readonly string[]): AnalysableFile[] {
    if (languages.length === 0) return [];
    return selectAll<AnalysableFile>(this.db, `SELECT f.id, f.path, f.language, f.project, f.line_count AS lines, f.semantic_state AS semanticState, f.semantic_reason AS semanticReason FROM files f ${IN_LABEL}
         WHERE f.language IN (${languages.map(() => '?').join(',')}) AND f.parse_status IN ('ok','partial') ORDER BY f.path`, label, ...languages);
  }

  /**
   * The stored nodes of the label's parsed files in `languages`, file by file in path order,
   * whole files only and at most `maxNodes` nodes in all. A file holding fragments of a node
   * declared in another file (`node_spans`) is left out: its stored nodes are not what a parse
   * of it gives.
   */
  storedSkeletons(label: string, languages: readonly string[], maxNodes: number): StoredSkeleton[] {
    if (languages.length === 0 || maxNodes <= 0) return [];
    const rows = cachedStatement(
      this.db,
      `SELECT f.path, f.content_hash AS contentHash, n.id, n.parent_id AS parentId, n.kind, n.name, n.symbol_key AS symbolKey, n.start_byte AS startByte, n.end_byte AS endByte
         FROM files f ${IN_LABEL} JOIN nodes n ON n.file_id = f.id
        WHERE f.language IN (${languages.map(() => '?').join(',')}) AND f.parse_status IN ('ok','partial')
          AND NOT EXISTS (SELECT 1 FROM node_spans s WHERE s.file_id = f.id)
        ORDER BY f.path, n.id`,
    ).iterate(label, ...languages) as IterableIterator<StoredSkeletonNode & { path: string; contentHash: string }>;
    const out: StoredSkeleton[] = [];
    let count = 0;
    let current: { path: string; contentHash: string; nodes: StoredSkeletonNode[] } | null = null;
    for (const r of rows) {
      if (current === null || current.path !== r.path) {
        if (current !== null) {
          if (count + current.nodes.length > maxNodes) break;
          count += current.nodes.length;
          out.push(current);
        }
        current = { path: r.path, contentHash: r.contentHash, nodes: [] };
      }
      current.nodes.push({ id: r.id, parentId: r.parentId, kind: r.kind, name: r.name, symbolKey: r.symbolKey, startByte: r.startByte, endByte: r.endByte });
    }
    if (current !== null && count + current.nodes.length <= maxNodes && out.at(-1) !== current) out.push(current);
    return out;
  }

  /** Analysable files without exact edges: new, changed, pending, or failed. */
  staleFiles(label: string, languages: readonly string[]): AnalysableFile[] {
    return this.analysableFiles(label, languages).filter((f) => f.semanticState !== 'ok');
  }

  /** Ids of the label's files whose semantic pass failed. */
  failedFileIds(label: string): number[] {
    return selectColumn<number>(this.db, `SELECT f.id FROM files f ${IN_LABEL} WHERE f.semantic_state = 'failed'`, label);
  }

  /** Marks files pending (their pass runs again), in one transaction, with the reason. */
  markPending(fileIds: readonly number[], reason: string): void {
    if (fileIds.length === 0) return;
    const mark = cachedStatement(this.db, `UPDATE files SET semantic_state = 'pending', semantic_reason = ? WHERE id = ?`);
    this.db.transaction(() => {
      for (const id of fileIds) mark.run(reason, id);
    })();
  }

  /**
   * Marks every file of `languages` whose exact edges came from another extractor version
   * pending (an upgraded ca re-analyses them; their edges stay served until replaced). The
   * version is remembered in `_metadata`; returns how many files were marked.
   */
  invalidateExtractor(languages: readonly string[], extractor: string): number {
    const key = `semantic_extractor:${languages.join(',')}`;
    let recorded = readMetadata(this.db, key);
    if (recorded === extractor) return 0;
    const list = languages.map(() => '?').join(',');
    // Indexes written before this key existed: their semantic edges name the extractor.
    recorded ??=
      (selectValue<string>(this.db, `SELECT e.extractor FROM edges e JOIN files f ON f.id = e.file_id
           WHERE f.language IN (${list}) AND e.extractor LIKE 'semantic:%' AND e.extractor <> ? LIMIT 1`, ...languages, extractor)) ?? null;
    let marked = 0;
    this.db.transaction(() => {
      if (recorded !== null) {
        marked = cachedStatement(this.db, `UPDATE files SET semantic_state = 'pending', semantic_reason = ? WHERE language IN (${list}) AND semantic_state = 'ok'`)
          .run(`extractor upgraded from ${recorded} to ${extractor}`, ...languages).changes;
        if (marked > 0) this.writer.recordEvent('semantic_extractor_changed', null, `${recorded} → ${extractor}: ${marked} files to re-analyse`);
      }
      this.writer.setMetadata(key, extractor);
    })();
    return marked;
  }

  /** Files per language and semantic state (for `ca status`). */
  summary(label: string): SemanticSummaryRow[] {
    return selectAll<SemanticSummaryRow>(this.db, `SELECT f.language, f.semantic_state AS state, COUNT(*) AS files, MIN(f.semantic_reason) AS reason FROM files f ${IN_LABEL}
         WHERE f.language IS NOT NULL AND f.parse_status IN ('ok','partial') GROUP BY f.language, f.semantic_state ORDER BY f.language, f.semantic_state`, label);
  }

  /** Files of the label with an import whose specifier is one of `names` or a subpath of one (set-aside edges too). */
  importersOf(label: string, names: readonly string[]): Set<number> {
    const ids = new Set<number>();
    for (const table of ['edges', 'superseded_edges']) {
      const stmt = cachedStatement(
        this.db,
        `SELECT DISTINCT e.file_id AS id FROM ${table} e ${inLabelJoinByLabel('e.file_id')}
         WHERE e.type = 'imports' AND (e.specifier = ? OR substr(e.specifier, 1, ?) = ?)`,
      );
      for (const n of names) for (const r of stmt.all(label, n, n.length + 1, `${n}/`) as { id: number }[]) ids.add(r.id);
    }
    return ids;
  }

  /**
   * The nodes of `fileIds` keyed to a package (`ts:pkg:name#…`, a semantic pass's key
   * refinement), with their keys: a pass that states these files' refinements completely sets
   * the ones it no longer refines back to file-scoped keys.
   */
  packageKeyedNodes(fileIds: readonly number[]): { readonly id: number; readonly fileId: number; readonly key: string }[] {
    if (fileIds.length === 0) return [];
    return selectAll<{ id: number; fileId: number; key: string }>(
      this.db,
      `SELECT id, file_id AS fileId, symbol_key AS key FROM nodes WHERE file_id IN (SELECT value FROM json_each(?)) AND instr(symbol_key, ':pkg:') > 0 ORDER BY id`,
      JSON.stringify([...fileIds]),
    );
  }

  /**
   * Marks pending the files of the label that import one of `paths`, directly or through modules
   * re-exporting it (`export … from`, followed up to a few levels): what they resolve to may have
   * changed with its exports, its creation or its removal (decision 022). An importer is found
   * by its syntactic edges' module (relative specifiers) and by its exact `imports` edges'
   * module (the module the compiler resolved any specifier to: a package name, a `paths`
   * alias), and by where its pass found an alias unresolved would be looked up
   * (`module_lookups`: the module did not exist then). Their syntactic edges through those modules lose their target until the import
   * resolver runs again — with `pending: false` (no semantic pass) only that is done. A
   * version another label holds too keeps the resolution it has (versions are shared, decision
   * 001). Returns the files marked pending.
   */
  markImportersPending(label: string, paths: readonly string[], reason: string, options: { readonly pending?: boolean } = {}): number[] {
    const modules = this.reexportClosure(label, paths);
    const importers = new Map<number, string>();
    for (const table of ['edges', 'superseded_edges']) {
      const stmt = cachedStatement(
        this.db,
        `SELECT DISTINCT e.file_id AS id, f.semantic_state AS state FROM ${table} e JOIN files f ON f.id = e.file_id ${IN_LABEL}
         WHERE e.type = 'imports' AND e.target_module IN (SELECT value FROM json_each(?))
           AND NOT EXISTS (SELECT 1 FROM label_files o WHERE o.file_id = f.id AND o.label_id <> lf.label_id)`,
      );
      for (const r of stmt.all(label, JSON.stringify([...modules])) as { id: number; state: string }[]) importers.set(r.id, r.state);
    }
    // Importers by a `paths` alias whose module did not exist when their pass ran (no edge names it).
    const lookups = cachedStatement(
      this.db,
      `SELECT DISTINCT m.file_id AS id, f.semantic_state AS state FROM module_lookups m JOIN files f ON f.id = m.file_id ${IN_LABEL}
       WHERE m.module IN (SELECT value FROM json_each(?))
         AND NOT EXISTS (SELECT 1 FROM label_files o WHERE o.file_id = f.id AND o.label_id <> lf.label_id)`,
    );
    for (const r of lookups.all(label, JSON.stringify([...modules])) as { id: number; state: string }[]) importers.set(r.id, r.state);
    const marked = options.pending === false ? [] : [...importers].filter(([, state]) => state === 'ok').map(([id]) => id).sort((a, b) => a - b);
    const unresolved = [...importers.keys()].sort((a, b) => a - b);
    this.db.transaction(() => {
      this.markPending(marked, reason);
      // Their syntactic edges through these modules resolve again too (`resolveImports`), set-aside ones included.
      for (const table of ['edges', 'superseded_edges']) {
        cachedStatement(
          this.db,
          `UPDATE ${table} SET target_id = NULL WHERE target_id IS NOT NULL AND extractor NOT LIKE 'semantic:%'
             AND target_module IN (SELECT value FROM json_each(?)) AND file_id IN (SELECT value FROM json_each(?))`,
        ).run(JSON.stringify([...modules]), JSON.stringify(unresolved));
      }
    })();
    return marked;
  }

  /**
   * Marks pending the label's analysed files at `paths` — modules another file augments, whose
   * augmentation changed: what their own uses of the merged declarations bind to changed — and
   * their importers (`markImportersPending`). The same rule for versions other labels hold.
   * Returns the files marked.
   */
  markAugmentedPending(label: string, paths: readonly string[], reason: string, options: { readonly pending?: boolean } = {}): number[] {
    const own = cachedStatement(
      this.db,
      `SELECT f.id AS id FROM files f ${IN_LABEL}
        WHERE lf.path IN (SELECT value FROM json_each(?)) AND f.semantic_state = 'ok'
          AND NOT EXISTS (SELECT 1 FROM label_files o WHERE o.file_id = f.id AND o.label_id <> lf.label_id)`,
    );
    const marked = options.pending === false ? [] : (own.all(label, JSON.stringify(paths)) as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
    this.markPending(marked, reason);
    return [...marked, ...this.markImportersPending(label, paths, reason, options)];
  }

  /** The module paths of `paths` and of the label's modules re-exporting them, a few levels up. */
  private reexportClosure(label: string, paths: readonly string[]): Set<string> {
    const modules = new Set(paths.flatMap(modulePathsOf));
    const reexporters = cachedStatement(
      this.db,
      `SELECT DISTINCT lf.path FROM module_reexports m JOIN files f ON f.id = m.file_id ${IN_LABEL} WHERE m.target_module IN (SELECT value FROM json_each(?))`,
    );
    let frontier = [...modules];
    for (let depth = 0; depth < REEXPORT_DEPTH && frontier.length > 0; depth++) {
      const next: string[] = [];
      for (const r of reexporters.all(label, JSON.stringify(frontier)) as { path: string }[]) {
        for (const m of modulePathsOf(r.path)) {
          if (modules.has(m)) continue;
          modules.add(m);
          next.push(m);
        }
      }
      frontier = next;
    }
    return modules;
  }

  /**
   * Marks pending the analysed files of the label in `languages` whose compiler binding may have
   * changed because declarations appeared or disappeared (decision 022, differences 7 and 8):
   * a file whose symbols' text names one of `types` (a type's uses bind to it, or to nothing,
   * wherever its name is written: `typeof(I<>)`, generic arguments, base lists), and a file
   * with an unresolved edge naming one of `members`, and the files declaring (any fragment of) a
   * subtype of one of `owners` — types whose members appeared: what their members implement or
   * override may have changed (difference 17). A version another label holds too keeps its pass
   * (versions are shared, decision 001), as for `markImportersPending`. Returns the files marked.
   */
  markNameUsersPending(
    label: string,
    languages: readonly string[],
    names: { readonly types: readonly string[]; readonly members: readonly string[]; readonly owners?: readonly string[] },
    reason: string,
  ): number[] {
    const eligible = `f.semantic_state = 'ok' AND f.language IN (SELECT value FROM json_each(?))
           AND NOT EXISTS (SELECT 1 FROM label_files o WHERE o.file_id = f.id AND o.label_id <> lf.label_id)`;
    const { types, members } = names;
    const ids = new Set<number>();
    const byText = cachedStatement(
      this.db,
      `SELECT DISTINCT n.file_id AS id FROM fts_nodes t JOIN nodes n ON n.id = t.rowid JOIN files f ON f.id = n.file_id ${IN_LABEL}
         WHERE fts_nodes MATCH ? AND ${eligible}`,
    );
    const langs = JSON.stringify(languages);
    // An identifier is one token of the body and signature columns (the FTS rows' own splitting keeps the whole word too).
    for (const t of new Set(types)) {
      if (!/^[\p{L}_][\p{L}\p{N}_]*$/u.test(t)) continue;
      for (const r of byText.all(label, `{body signature} : "${t}"`, langs) as { id: number }[]) ids.add(r.id);
    }
    if (members.length > 0) {
      // A use through a receiver is named with it (\`cfg.AddOpenBehavior\` in a lambda whose
      // parameter's type the file never names: difference 20), so a member matches the name's
      // last segment too; and a use the compiler could not bind may survive only as the syntactic
      // edge its pass set aside (\`superseded_edges\`).
      const list = JSON.stringify([...new Set(members)]);
      for (const table of ['edges', 'superseded_edges']) {
        const byEdge = cachedStatement(
          this.db,
          `SELECT DISTINCT e.file_id AS id FROM ${table} e JOIN files f ON f.id = e.file_id ${IN_LABEL}
             WHERE e.target_id IS NULL
               AND (e.target_name IN (SELECT value FROM json_each(?))
                 OR EXISTS (SELECT 1 FROM json_each(?) m WHERE substr(e.target_name, -length(m.value) - 1) = '.' || m.value))
               AND ${eligible}`,
        );
        for (const r of byEdge.all(label, list, list, langs) as { id: number }[]) ids.add(r.id);
      }
    }
    if ((names.owners ?? []).length > 0) {
      // Subtypes, transitively: the sources of type-level `implements`/`inherits` edges into an
      // owner (resolved to a node of its name, or unresolved naming it), then into those.
      const bySubtype = cachedStatement(
        this.db,
        `WITH RECURSIVE sub(id) AS (
           SELECT e.source_id FROM edges e LEFT JOIN nodes t ON t.id = e.target_id
            WHERE e.type IN ('implements', 'inherits')
              AND (t.name IN (SELECT value FROM json_each(?)) OR (e.target_id IS NULL AND e.target_name IN (SELECT value FROM json_each(?))))
           UNION
           SELECT e.source_id FROM edges e JOIN sub ON e.target_id = sub.id WHERE e.type IN ('implements', 'inherits'))
         SELECT DISTINCT f.id FROM files f ${IN_LABEL}
          WHERE (f.id IN (SELECT n.file_id FROM nodes n JOIN sub ON n.id = sub.id) OR f.id IN (SELECT s.file_id FROM node_spans s JOIN sub ON s.node_id = sub.id))
            AND ${eligible}`,
      );
      const owners = JSON.stringify([...new Set(names.owners)]);
      // Parameters in text order: the owners (twice, in the CTE), the label, the languages.
      for (const r of bySubtype.all(owners, owners, label, langs) as { id: number }[]) ids.add(r.id);
    }
    const marked = [...ids].sort((a, b) => a - b);
    this.markPending(marked, reason);
    return marked;
  }

  /** Maps a compiler's declaration/use positions onto the label's syntactic nodes. */
  locator(label: string): NodeLocator {
    return new NodeLocator(this.db, label);
  }

  /** Maps a TS pass's (path, symbol key) pairs onto the label's nodes. */
  keyResolver(label: string): SemanticKeyResolver {
    return new SemanticKeyResolver(this.db, label);
  }
}

/**
 * Node ids by (path, syntactic key), cached per pass. The worker names symbols by their
 * syntactic (file-scoped) keys; a node an earlier pass already refined to a package key
 * (`ts:pkg:@mono/core#formatMoney(Money)`) is found by the rest of its key, so edges into
 * unchanged files survive a partial or repeated pass.
 */
export class SemanticKeyResolver {
  private readonly fileIds = new Map<string, number | null>();
  private readonly nodes = new Map<string, number | null>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly label: string,
  ) {}

  fileId(path: string): number | null {
    if (!this.fileIds.has(path)) {
      const row = selectOne<{ id: number }>(
        this.db,
        `SELECT lf.file_id AS id FROM label_files lf WHERE ${labelEntriesCondition()} AND lf.path = ?`, this.label, path);
      this.fileIds.set(path, row?.id ?? null);
    }
    return this.fileIds.get(path)!;
  }

  nodeId(path: string, key: string): number | null {
    const k = `${path}\u0000${key}`;
    if (!this.nodes.has(k)) {
      const f = this.fileId(path);
      let id =
        f === null
          ? null
          : ((selectOne<{ id: number }>(this.db, `SELECT id FROM nodes WHERE file_id = ? AND symbol_key = ? ORDER BY disambiguator LIMIT 1`, f, key))?.id ??
            null);
      const lang = key.slice(0, key.indexOf(':'));
      const filePrefix = `${lang}:file:${path}#`;
      if (id === null && f !== null && key.startsWith(filePrefix)) {
        const rest = key.slice(filePrefix.length - 1); // keeps the '#'
        id =
          (selectOne<{ id: number }>(
            this.db,
            `SELECT id FROM nodes WHERE file_id = ? AND symbol_key LIKE ? AND substr(symbol_key, -length(?)) = ? ORDER BY disambiguator LIMIT 1`, f, `${lang}:pkg:%`, rest, rest))?.id ?? null;
      }
      this.nodes.set(k, id);
    }
    return this.nodes.get(k)!;
  }
}
