import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { Statement } from 'better-sqlite3';
import type { SpanRow } from './rows.js';
import {
  ftsTextOf,
  isDocLanguage,
  pathTokens,
  type Confidence,
  type EdgeType,
  type ExtractedNode,
  type FtsText,
  type FileIndex,
  type Language,
  type ParseStatus,
  type ProjectTestFact,
} from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedStatement, readMetadata, selectAll, selectOne } from './statements.js';
import { serializeProjectFacts, testProjectsKey } from './testProjects.js';

/** One file version to record in a label, with its parse result when it was parsed. */
export interface FileWrite {
  readonly path: string;
  readonly contentHash: string;
  readonly language: Language | null;
  readonly size: number;
  readonly lineCount: number;
  readonly parseStatus: ParseStatus;
  readonly statusReason: string | null;
  readonly generated: boolean;
  readonly project: string;
  readonly mtimeMs: number | null;
  /** Identifies the extractor that produced `index` (`syntactic:ts@1`). */
  readonly extractor: string;
  readonly index: FileIndex | null;
  /**
   * FTS text per node of `index.nodes` (same order), when the caller computed it already
   * (the engine does it on parser threads); computed here otherwise.
   */
  readonly fts?: readonly FtsText[];
  /** The file's bytes, kept (deflated, content-addressed) so the version can be shown as indexed. */
  readonly content?: Uint8Array;
  /**
   * A move with an edit: the path whose version this one continues (its label entry goes, its
   * nodes continue as the planner decides, their FTS rows are written again for the new path).
   */
  readonly previousPath?: string;
  /**
   * Extract again even when the label holds this very content already: the file now holds the
   * primary fragment of a merged node whose facts were another file's (`WriteStats.promoted`).
   */
  readonly refresh?: boolean;
}

/** One edge found by a semantic pass (compiler-resolved), already mapped to node ids. */
export interface SemanticEdgeWrite {
  readonly sourceId: number;
  /** Null when the target is outside the index (framework, package). */
  readonly targetId: number | null;
  readonly targetKey: string;
  readonly targetName: string;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  /** File the use site is in (the edge's source file). */
  readonly fileId: number;
  readonly line: number;
  /**
   * `imports` edges: the module (path without extension) the specifier resolved to, so that
   * `SemanticStore.markImportersPending` finds importers by package name or alias too.
   */
  readonly targetModule?: string | null;
}

/** The columns `edges` and `superseded_edges` share (everything but the row id). */
const EDGE_COLUMNS = 'source_id, file_id, type, confidence, target_key, target_name, target_id, target_module, imported_name, specifier, line, extractor';

export interface SemanticPassWrite {
  /** File versions the pass covered: their prior semantic edges are replaced. */
  readonly fileIds: readonly number[];
  readonly edges: readonly SemanticEdgeWrite[];
  /** Edge types the pass produces; approximate edges of these types are superseded. */
  readonly types: readonly EdgeType[];
  /** Node id → refined symbol key (kept on the same node). */
  readonly keyUpdates?: ReadonlyMap<number, string>;
  readonly extractor: string;
  /**
   * Files the pass analysed for some symbols only (file id → the source node ids it resolved):
   * only those sources' semantic edges are replaced; the others' (carried) stay.
   */
  readonly regions?: ReadonlyMap<number, readonly number[]>;
  /**
   * Where each covered file's unresolved imports would be found (file id → module paths; a
   * covered file absent here has none): replaces what earlier passes recorded for the covered
   * files. Absent: a pass that records none (the table is left alone).
   */
  readonly moduleLookups?: ReadonlyMap<number, readonly string[]>;
}

export interface WriteStats {
  files: number;
  nodesInserted: number;
  nodesUpdated: number;
  nodesDeleted: number;
  edges: number;
  /** Per re-parsed path, the nodes whose exact edges moved to the new version (`CarryOptions`). */
  carried?: Map<string, number[]>;
  /** Names of the nodes deleted (`removePaths`). */
  droppedNames?: Set<string>;
  /** The nodes deleted (`removePaths`): name, kind and the path they were deleted from. */
  dropped?: { name: string; kind: string; path: string }[];
  /**
   * Paths whose file now holds the primary span of a merged node that lost its primary fragment
   * (deleted, or staying in its project when its file moved out): the node still has that
   * fragment's facts (signature, chunk, full-text row) until the path is written again with
   * `FileWrite.refresh`.
   */
  promoted?: Set<string>;
}

/**
 * Carrying exact edges across a re-parse (declaration-scoped invalidation, docs/architecture.md): a
 * continued node whose own text did not change keeps the semantic edges of `extractor` its
 * previous version had, when that version's pass was complete and the file is one of
 * `languages`; the syntactic edges of `types` at the same sites are set aside as the pass would.
 */
export interface CarryOptions {
  readonly extractor: string;
  readonly languages: readonly string[];
  readonly types: readonly EdgeType[];
}

/** The digest the index keeps of a chunk text (`nodes.chunk_hash`): a changed digest means a new vector. */
export function chunkHashOf(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A node of the label's previous version of a path, as the node planner sees it. */
export interface PreviousNode {
  readonly id: number;
  readonly symbolKey: string;
  readonly disambiguator: number;
  readonly kind: string;
  readonly chunkHash: string;
  /** Spans of this node in other files (a merged partial class): it survives losing this one. */
  readonly otherSpans: number;
  /** The project the node was indexed in: a merged node stays with its project's fragments. */
  readonly project?: string;
  /** The node's name (declarations that appear or disappear are looked up by it). */
  readonly name?: string;
  /** What carrying exact edges needs (absent: nothing is carried). */
  readonly signature?: string;
  readonly startLine?: number;
  readonly endLine?: number;
  readonly chunkText?: string;
}

/** The label's node of the same key in another file, which a `partial` fragment joins. */
export interface PartialTarget {
  readonly id: number;
  readonly path: string;
}

export type NodeAction =
  | { readonly kind: 'insert' }
  | { readonly kind: 'update'; readonly id: number; readonly reembed: boolean; readonly rekey?: boolean }
  | { readonly kind: 'merge'; readonly id: number; readonly primary: boolean };

/** What to do with each node of a re-parsed file (decided by @ca/invalidation's `planNodes`). */
export interface NodePlan {
  /** One action per extracted node, in order. */
  readonly actions: readonly NodeAction[];
  /** Previous nodes not carried over: journaled and deleted, or (survives) kept with their primary span moved to another file. */
  readonly drop: readonly { readonly id: number; readonly survives: boolean }[];
  readonly reembed: number;
  /**
   * Continued nodes whose own text did not change: their exact (semantic) edges move to the new
   * version, each line mapped old → new (`lines`); a node with an edge on a line the map lacks
   * keeps none. Absent or empty: nothing is carried.
   */
  readonly carry?: readonly { readonly id: number; readonly lines: ReadonlyMap<number, number> }[];
  /** Names whose meaning this file's change may have changed anywhere (see @ca/invalidation `changedNames`). */
  readonly dirtyNames?: readonly string[];
  /** Names whose meaning changed in this file only (its import statements). */
  readonly localDirtyNames?: readonly string[];
  /**
   * False when the file's previous text was compared and its export and re-export statements
   * (what other modules can import from it) are unchanged; absent when unknown.
   */
  readonly exportsChanged?: boolean;
}

export interface NodePlannerInput {
  readonly path: string;
  /** The path of the previous version when it was another one (a move with an edit, `FileWrite.previousPath`). */
  readonly previousPath?: string;
  /** The label's previous version's nodes (empty when there was none, or another label still holds it). */
  readonly previous: readonly PreviousNode[];
  readonly nodes: readonly ExtractedNode[];
  /** The project of the version being written. */
  readonly project?: string;
  /** The label's node with this node's key, language, project and kind in another file, if any. */
  partialTarget(node: ExtractedNode): PartialTarget | null;
}

/** Decides node identity for one file (the writer executes what it returns). */
export type NodePlanner = (input: NodePlannerInput) => NodePlan;

/** Kinds whose `partial` fragments in several files are merged into one node (C#). */
export const MERGEABLE_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'record', 'interface', 'method']);

/** Whether an extracted node is a fragment the node planner may merge with another file's (`planNodes`). */
export function isMergeableFragment(n: Pick<ExtractedNode, 'kind' | 'modifiers'>): boolean {
  return n.modifiers.includes('partial') && MERGEABLE_KINDS.has(n.kind);
}

/**
 * `files.merge_scope` of a version no other label may take (decision 047): a version holding a
 * mergeable fragment belongs to the merge of the label that wrote it, which another label's
 * files may not reproduce. Replaced by `#<row id>` right after the insert (never reused, never
 * looked up); '' marks a shareable version.
 */
const PRIVATE_SCOPE_PENDING = '#pending';

/** Files larger than this keep no copy of their bytes in the index (`file_contents`). */
export const CONTENT_MAX_BYTES = 4 * 1024 * 1024;

/** A file version's nodes as the writer reads them (`extra`: more columns, e.g. their chunk texts). */
function nodesOfFileSql(extra: string): string {
  return `SELECT id, symbol_key, disambiguator, kind, name, qualified_name, project, start_line, end_line, signature, doc, chunk_hash, ${extra}
      (SELECT COUNT(*) FROM node_spans ns WHERE ns.node_id = nodes.id AND ns.file_id <> nodes.file_id) AS other_spans
    FROM nodes WHERE file_id = ?`;
}

/** Whether a node of the same file keeps every word its FTS row was made of (`ftsTextOf`). */
function sameFtsText(old: ExistingNode, n: ExtractedNode, chunkHash: string): boolean {
  return (
    old.chunk_hash === chunkHash &&
    old.name === n.name &&
    old.qualified_name === n.qualifiedName &&
    old.kind === n.kind &&
    old.signature === n.signature &&
    (old.doc ?? null) === (n.doc ?? null)
  );
}

function now(): string {
  return new Date().toISOString();
}

/** Where an edge was made: its id, source node and line. */
interface EdgeSiteRow {
  id: number;
  source_id: number;
  line: number;
}

interface ExistingNode {
  id: number;
  symbol_key: string;
  disambiguator: number;
  kind: string;
  name: string;
  qualified_name: string;
  project: string;
  start_line: number;
  end_line: number;
  signature: string;
  doc: string | null;
  chunk_hash: string;
  other_spans: number;
  /** Only from `nodesOfFileWithText`. */
  chunk_text?: string | null;
}

/**
 * The single write path into the index. Every public method runs in one transaction, so a
 * reader (WAL snapshot) sees a file either entirely before or entirely after its update.
 */
export class IndexWriter {
  private readonly stmts: ReturnType<IndexWriter['prepare']>;

  constructor(private readonly db: SqliteDatabase) {
    this.stmts = this.prepare();
  }

  private prepare() {
    const db = this.db;
    // `R`: the row a reading statement returns (its `get`/`all` are typed by it, no cast per call).
    const s = <R = unknown>(sql: string): Statement<unknown[], R> => db.prepare<unknown[], R>(sql);
    return {
      labelByName: s<{ id: number }>(`SELECT id FROM labels WHERE name = ?`),
      insertLabel: s(`INSERT INTO labels(name, updated_at) VALUES (?, ?)`),
      touchLabel: s(`UPDATE labels SET updated_at = ? WHERE id = ?`),
      labelEntry: s<{ file_id: number; mtime_ms: number | null }>(`SELECT file_id, mtime_ms FROM label_files WHERE label_id = ? AND path = ?`),
      upsertLabelEntry: s(`INSERT INTO label_files(label_id, path, file_id, mtime_ms) VALUES (?, ?, ?, ?)
        ON CONFLICT(label_id, path) DO UPDATE SET file_id = excluded.file_id, mtime_ms = excluded.mtime_ms`),
      deleteLabelEntry: s(`DELETE FROM label_files WHERE label_id = ? AND path = ?`),
      // A shareable version of these bytes by this extractor (own ones are found through the label's entry).
      fileByVersion: s<{ id: number; extractor: string }>(`SELECT id, extractor FROM files WHERE path = ? AND content_hash = ? AND extractor = ? AND merge_scope = ''`),
      privateVersion: s<{ id: number; extractor: string }>(`SELECT id, extractor FROM files WHERE id = ? AND content_hash = ? AND extractor = ? AND merge_scope <> ''`),
      insertFile: s(`INSERT INTO files(path, content_hash, language, size, line_count, parse_status, status_reason,
          generated, project, semantic_state, extractor, indexed_at, merge_scope)
        VALUES (@path, @contentHash, @language, @size, @lineCount, @parseStatus, @statusReason, @generated, @project,
          'none', @extractor, @indexedAt, @mergeScope)`),
      sealPrivateScope: s(`UPDATE files SET merge_scope = '#' || id WHERE id = ?`),
      fileHolders: s<{ n: number }>(`SELECT COUNT(*) AS n FROM label_files WHERE file_id = ?`),
      otherHolders: s<{ n: number }>(`SELECT COUNT(*) AS n FROM label_files WHERE file_id = ? AND label_id <> ?`),
      deleteFile: s(`DELETE FROM files WHERE id = ?`),
      filePath: s<{ path: string }>(`SELECT path FROM files WHERE id = ?`),
      nodesOfFile: s<ExistingNode>(nodesOfFileSql('')),
      nodesOfFileWithText: s<ExistingNode>(nodesOfFileSql('chunk_text, ')),
      semanticStateOf: s<{ semantic_state: string }>(`SELECT semantic_state FROM files WHERE id = ?`),
      insertNode: s(`INSERT INTO nodes(file_id, parent_id, kind, language, name, qualified_name, symbol_key, disambiguator,
          project, start_line, end_line, start_byte, end_byte, signature, parameter_count, return_type, modifiers,
          attributes, is_public_api, doc, generated, chunk_text, chunk_hash)
        VALUES (@fileId, @parentId, @kind, @language, @name, @qualifiedName, @symbolKey, @disambiguator, @project,
          @startLine, @endLine, @startByte, @endByte, @signature, @parameterCount, @returnType, @modifiers, @attributes,
          @isPublicApi, @doc, @generated, @chunkText, @chunkHash)`),
      updateNode: s(`UPDATE nodes SET file_id = @fileId, parent_id = @parentId, kind = @kind, name = @name,
          qualified_name = @qualifiedName, project = @project, start_line = @startLine, end_line = @endLine,
          start_byte = @startByte, end_byte = @endByte, signature = @signature, parameter_count = @parameterCount,
          return_type = @returnType, modifiers = @modifiers, attributes = @attributes, is_public_api = @isPublicApi,
          doc = @doc, generated = @generated, chunk_text = @chunkText, chunk_hash = @chunkHash
        WHERE id = @id`),
      deleteNode: s(`DELETE FROM nodes WHERE id = ?`),
      // Files whose complete pass resolved a use to the node: their exact edge would dangle.
      // Syntactic edges of other files resolved to the node through a module path: resolved again (`resolveImports`).
      unresolveImporters: s(`UPDATE edges SET target_id = NULL
        WHERE target_id = ? AND file_id <> ? AND target_module IS NOT NULL AND extractor NOT LIKE 'semantic:%'`),
      // The same for the syntactic edges a semantic pass set aside: the importer's next pass
      // restores those it does not bind, and they must come back unresolved (difference 22).
      unresolveSupersededImporters: s(`UPDATE superseded_edges SET target_id = NULL
        WHERE target_id = ? AND file_id <> ? AND target_module IS NOT NULL AND extractor NOT LIKE 'semantic:%'`),
      // An exact edge into a node that goes, where the same symbol (key, disambiguator, language,
      // project) stays in a version that shares a label with the edge's file (a label's newer
      // version of an unchanged path, a partial member moved to a fragment written first), is
      // the edge a clean index has: it follows that node instead of dangling, and the file is
      // not pending for it.
      repointReferrers: s(`UPDATE edges SET target_id = (
          SELECT n2.id FROM nodes n2 JOIN nodes n1 ON n1.id = @id
            JOIN label_files l2 ON l2.file_id = n2.file_id
            JOIN label_files l1 ON l1.label_id = l2.label_id AND l1.file_id = edges.file_id
          WHERE n2.symbol_key = n1.symbol_key AND n2.disambiguator = n1.disambiguator AND n2.language = n1.language
            AND n2.project = n1.project AND n2.id <> n1.id
          ORDER BY n2.id DESC LIMIT 1)
        WHERE target_id = @id AND extractor LIKE 'semantic:%' AND EXISTS (
          SELECT 1 FROM nodes n2 JOIN nodes n1 ON n1.id = @id
            JOIN label_files l2 ON l2.file_id = n2.file_id
            JOIN label_files l1 ON l1.label_id = l2.label_id AND l1.file_id = edges.file_id
          WHERE n2.symbol_key = n1.symbol_key AND n2.disambiguator = n1.disambiguator AND n2.language = n1.language
            AND n2.project = n1.project AND n2.id <> n1.id)`),
      referrersPending: s(`UPDATE files SET semantic_state = 'pending', semantic_reason = 'edge target removed'
        WHERE semantic_state = 'ok' AND id IN (SELECT file_id FROM edges WHERE target_id = ? AND extractor LIKE 'semantic:%')`),
      deleteFts: s(`DELETE FROM fts_nodes WHERE rowid = ?`),
      insertFts: s(`INSERT INTO fts_nodes(rowid, name, qualified_name, split, signature, doc, path, body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      // The documentation partition (decision 039): nodes of Markdown/JSON/YAML files.
      deleteDocFts: s(`DELETE FROM fts_docs WHERE rowid = ?`),
      insertDocFts: s(`INSERT INTO fts_docs(rowid, name, qualified_name, split, signature, doc, path, body)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      journal: s(`INSERT INTO deletion_log(node_id, symbol_key, qualified_name, kind, path, snapshot, reason, deleted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      insertEdge: s(`INSERT INTO edges(source_id, file_id, type, confidence, target_key, target_name, target_id,
          target_module, imported_name, specifier, line, extractor)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      deleteEdgesOfFile: s(`DELETE FROM edges WHERE file_id = ?`),
      mergeTarget: s<{ id: number; file_id: number; path: string }>(`SELECT n.id, n.file_id, f.path FROM nodes n
          JOIN label_files lf ON lf.file_id = n.file_id AND lf.label_id = @labelId
          JOIN files f ON f.id = n.file_id
        WHERE n.symbol_key = @symbolKey AND n.language = @language AND n.project = @project AND n.file_id <> @fileId
          AND n.kind = @kind AND f.merge_scope <> ''
        LIMIT 1`),
      insertSpan: s(`INSERT OR REPLACE INTO node_spans(node_id, file_id, start_line, end_line, start_byte, end_byte)
        VALUES (?, ?, ?, ?, ?, ?)`),
      spansOfFile: s(`SELECT node_id FROM node_spans WHERE file_id = ?`),
      deleteSpansOfFile: s(`DELETE FROM node_spans WHERE file_id = ?`),
      firstOtherSpan: s(`SELECT ns.file_id, ns.start_line, ns.end_line, ns.start_byte, ns.end_byte FROM node_spans ns
          JOIN files f ON f.id = ns.file_id WHERE ns.node_id = ? AND ns.file_id <> ? ORDER BY f.path LIMIT 1`),
      deleteSpan: s(`DELETE FROM node_spans WHERE node_id = ? AND file_id = ? AND start_byte = ?`),
      movePrimary: s(`UPDATE nodes SET file_id = ?, start_line = ?, end_line = ?, start_byte = ?, end_byte = ? WHERE id = ?`),
      event: s(`INSERT INTO events(at, kind, path, message, data) VALUES (?, ?, ?, ?, ?)`),
      touchMtime: s(`UPDATE label_files SET mtime_ms = ? WHERE label_id = ? AND path = ?`),
      insertReexport: s(`INSERT INTO module_reexports(file_id, target_module, name) VALUES (?, ?, ?)`),
      setSemantic: s(`UPDATE files SET semantic_state = ?, semantic_reason = ? WHERE id = ?`),
      insertContent: s(`INSERT OR IGNORE INTO file_contents(content_hash, size, data) VALUES (?, ?, ?)`),
      // A file no pass has analysed (`none`: the pass is off or has no analyser for it) stays so: a clean index of the new tree gives it `none` too.
      renameFile: s(`UPDATE files SET path = ?, project = ?,
          semantic_reason = CASE WHEN semantic_state = 'none' THEN semantic_reason ELSE 'file moved' END,
          semantic_state = CASE WHEN semantic_state = 'none' THEN 'none' ELSE 'pending' END WHERE id = ?`),
      rekeyNode: s(`UPDATE OR IGNORE nodes SET symbol_key = ?, project = ? WHERE id = ?`),
      setNodeKey: s(`UPDATE nodes SET symbol_key = ?, disambiguator = ? WHERE id = ?`),
      renameFileNode: s(`UPDATE nodes SET name = CASE WHEN name = @fromName THEN @toName ELSE name END,
          qualified_name = CASE WHEN qualified_name = @from THEN @to ELSE qualified_name END,
          signature = CASE WHEN signature = @from THEN @to ELSE signature END
        WHERE id = @id AND kind IN ('file', 'module')`),
      nodeText: s<{ name: string; qualifiedName: string; kind: string; language: string | null; chunkText: string; doc: string | null; signature: string }>(`SELECT name, qualified_name AS qualifiedName, kind, language, chunk_text AS chunkText, doc, signature FROM nodes WHERE id = ?`),
    };
  }

  /** Returns the id of a label, creating it when missing. */
  ensureLabel(name: string): number {
    const row = this.stmts.labelByName.get(name);
    if (row) return row.id;
    return Number(this.stmts.insertLabel.run(name, now()).lastInsertRowid);
  }

  /**
   * Records a batch of file versions in a label, in one transaction; `planner` decides which
   * nodes of a path's previous version each new node continues (the writer only executes).
   */
  writeBatch(label: string, files: readonly FileWrite[], planner: NodePlanner, carry?: CarryOptions): WriteStats {
    const stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0 };
    this.db.transaction(() => {
      const labelId = this.ensureLabel(label);
      for (const f of files) this.writeOne(labelId, f, stats, planner, carry);
      this.stmts.touchLabel.run(now(), labelId);
    })();
    return stats;
  }

  /**
   * Puts versions the index already holds (for another label, or a worktree) at their paths in
   * `label`, in one transaction: nothing is parsed or embedded again. The versions the label
   * held there before go when no label holds them any more.
   */
  reuseVersions(label: string, entries: readonly { path: string; fileId: number; mtimeMs: number | null }[]): WriteStats {
    const stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0 };
    this.db.transaction(() => {
      const labelId = this.ensureLabel(label);
      for (const e of entries) {
        const entry = this.stmts.labelEntry.get(labelId, e.path);
        this.stmts.upsertLabelEntry.run(labelId, e.path, e.fileId, e.mtimeMs);
        if (entry && entry.file_id !== e.fileId) this.releaseVersion(entry.file_id, 'file changed', stats);
        stats.files++;
      }
      this.stmts.touchLabel.run(now(), labelId);
    })();
    return stats;
  }

  /**
   * Moves a version from one path to another in place, in one transaction (a `git mv`: same
   * content, no other label holds it): the file row, the label entry and the nodes keep their
   * ids — edges into them, FTS rows and vectors survive — file-scoped keys follow the path
   * (`rekey`), and the file's semantic pass is due again (its keys changed). Returns what the
   * release of a version the target path held did (`promoted` among it).
   */
  moveVersion(label: string, move: { from: string; to: string; fileId: number; mtimeMs: number | null; project: string }, rekey: (key: string) => string): WriteStats {
    const stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0 };
    this.db.transaction(() => {
      const labelId = this.ensureLabel(label);
      const entry = this.stmts.labelEntry.get(labelId, move.from);
      if (!entry || entry.file_id !== move.fileId) throw new Error(`moveVersion: ${move.from} is not version ${move.fileId} in ${label}`);
      const target = this.stmts.labelEntry.get(labelId, move.to);
      this.stmts.deleteLabelEntry.run(labelId, move.from);
      this.stmts.upsertLabelEntry.run(labelId, move.to, move.fileId, move.mtimeMs);
      this.stmts.renameFile.run(move.to, move.project, move.fileId);
      const pathText = pathTokens(move.to);
      const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
      for (const n of this.stmts.nodesOfFile.all(move.fileId)) {
        this.stmts.rekeyNode.run(rekey(n.symbol_key), move.project, n.id);
        // Other files reached the node by the old path: their module paths and exact edges are
        // what a clean index of the new tree would resolve again (decision 022).
        this.stmts.unresolveImporters.run(n.id, move.fileId);
        this.stmts.unresolveSupersededImporters.run(n.id, move.fileId);
        this.stmts.referrersPending.run(n.id);
        // The file's own node is named after its path.
        this.stmts.renameFileNode.run({ id: n.id, from: move.from, to: move.to, fromName: base(move.from), toName: base(move.to) });
        // The FTS row holds the path's words: written again (a contentless table cannot be read back).
        const t = this.stmts.nodeText.get(n.id)!;
        const fts = ftsTextOf(t);
        this.dropFts(n.id);
        this.putFts(t.language, n.id, t.name, t.qualifiedName, fts.split, t.signature, t.doc ?? '', pathText, fts.body);
      }
      if (target && target.file_id !== move.fileId) this.releaseVersion(target.file_id, 'file changed', stats);
      this.stmts.touchLabel.run(now(), labelId);
    })();
    return stats;
  }

  /** Keeps a version's bytes (deflated, content-addressed) so the file can be shown as indexed. */
  storeContent(contentHash: string, bytes: Uint8Array): void {
    if (bytes.length > CONTENT_MAX_BYTES) return;
    this.stmts.insertContent.run(contentHash, bytes.length, deflateRawSync(bytes));
  }

  /** Updates only the recorded modification time of an unchanged file. */
  touch(label: string, path: string, mtimeMs: number): void {
    const labelId = this.ensureLabel(label);
    this.stmts.touchMtime.run(mtimeMs, labelId, path);
  }

  /** Removes paths from a label, in one transaction; file versions no label holds are deleted. */
  removePaths(label: string, paths: readonly string[], reason = 'file deleted'): WriteStats {
    const stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0, droppedNames: new Set(), dropped: [] };
    this.db.transaction(() => {
      const labelId = this.ensureLabel(label);
      for (const path of paths) {
        const entry = this.stmts.labelEntry.get(labelId, path);
        if (!entry) continue;
        this.stmts.deleteLabelEntry.run(labelId, path);
        this.releaseVersion(entry.file_id, reason, stats);
        stats.files++;
      }
    })();
    return stats;
  }

  /**
   * Applies a semantic pass over a scope in one transaction: the scope's previous semantic
   * edges go; the syntactic edges an earlier pass set aside come back; a syntactic edge is set
   * aside (`superseded_edges`) when the pass resolved a use at the same source and line, and
   * stays (approximate) when the pass could not resolve that use; the new exact edges are
   * inserted; files are marked `semantic_state = ok`. Readers never see a mix of stale exact
   * and new approximate edges for the scope, and a use the new pass no longer resolves (its
   * semantic context changed) keeps its approximate edge.
   */
  applySemanticPass(pass: SemanticPassWrite): { inserted: number; superseded: number } {
    let inserted = 0;
    let superseded = 0;
    this.db.transaction(() => {
      const typeList = pass.types.map(() => '?').join(',');
      const covered = new Set(pass.edges.map((e) => `${e.sourceId}:${e.line}`));
      const delSemantic = this.db.prepare(`DELETE FROM edges WHERE file_id = ? AND extractor LIKE 'semantic:%' AND type IN (${typeList})`);
      // Syntactic edges (approximate calls, name-resolved imports) at a use site the pass resolved.
      const approx = this.db.prepare<unknown[], EdgeSiteRow>(
        `SELECT id, source_id, line FROM edges WHERE file_id = ? AND extractor NOT LIKE 'semantic:%' AND type IN (${typeList})`,
      );
      const markOk = this.db.prepare(`UPDATE files SET semantic_state = 'ok', semantic_reason = NULL WHERE id = ?`);
      const delSourceSemantic = this.db.prepare(
        `DELETE FROM edges WHERE file_id = ? AND source_id = ? AND extractor LIKE 'semantic:%' AND type IN (${typeList})`,
      );
      for (const fileId of pass.fileIds) {
        const region = pass.regions?.get(fileId);
        if (region === undefined) {
          delSemantic.run(fileId, ...pass.types);
          this.restoreSuperseded(fileId, pass.types);
        } else {
          for (const source of region) {
            delSourceSemantic.run(fileId, source, ...pass.types);
            this.restoreSuperseded(fileId, pass.types, source);
          }
        }
        const aside = approx.all(fileId, ...pass.types)
          .filter((e) => covered.has(`${e.source_id}:${e.line}`))
          .map((e) => e.id);
        this.setAside(aside);
        superseded += aside.length;
        markOk.run(fileId);
      }
      for (const e of pass.edges) {
        this.stmts.insertEdge.run(e.sourceId, e.fileId, e.type, e.confidence, e.targetKey, e.targetName, e.targetId, e.targetModule ?? null, null, null, e.line, pass.extractor);
        inserted++;
      }
      if (pass.moduleLookups) this.replaceModuleLookups(pass.fileIds, pass.moduleLookups);
      if (pass.keyUpdates) {
        const setKey = this.db.prepare(`UPDATE OR IGNORE nodes SET symbol_key = ? WHERE id = ?`);
        for (const [nodeId, key] of pass.keyUpdates) setKey.run(key, nodeId);
      }
    })();
    return { inserted, superseded };
  }

  /** The module lookups of `fileIds`, replaced by `lookups` (inside the caller's transaction). */
  private replaceModuleLookups(fileIds: readonly number[], lookups: ReadonlyMap<number, readonly string[]>): void {
    const del = cachedStatement(this.db, `DELETE FROM module_lookups WHERE file_id = ?`);
    const ins = cachedStatement(this.db, `INSERT INTO module_lookups(file_id, module) VALUES (?, ?)`);
    for (const id of fileIds) {
      del.run(id);
      for (const m of lookups.get(id) ?? []) ins.run(id, m);
    }
  }

  /**
   * Degrades files to syntactic-only in one transaction (the degradation rule,
   * docs/architecture.md): their semantic edges of `types` go, the syntactic edges a pass had set
   * aside come back, and the state and reason are recorded. Used when the pass that should have
   * replaced a file's exact edges failed (its project no longer loads): stale exact edges are never
   * served as current.
   */
  degradeSemantic(fileIds: readonly number[], types: readonly EdgeType[], state: 'none' | 'failed', reason: string | null): { removed: number } {
    let removed = 0;
    this.db.transaction(() => {
      const typeList = types.map(() => '?').join(',');
      const delSemantic = this.db.prepare(`DELETE FROM edges WHERE file_id = ? AND extractor LIKE 'semantic:%' AND type IN (${typeList})`);
      for (const id of fileIds) {
        removed += delSemantic.run(id, ...types).changes;
        this.restoreSuperseded(id, types);
        this.stmts.setSemantic.run(state, reason, id);
      }
    })();
    return { removed };
  }

  /** Moves the set-aside syntactic edges of `types` in a file back into `edges` (inside a caller's transaction). */
  private restoreSuperseded(fileId: number, types: readonly EdgeType[], source?: number): void {
    const where = `file_id = ?${source !== undefined ? ' AND source_id = ?' : ''} AND type IN (${types.map(() => '?').join(',')})`;
    const params = source !== undefined ? [fileId, source, ...types] : [fileId, ...types];
    cachedStatement(this.db, `INSERT INTO edges(${EDGE_COLUMNS}) SELECT ${EDGE_COLUMNS} FROM superseded_edges WHERE ${where} ORDER BY id`).run(...params);
    cachedStatement(this.db, `DELETE FROM superseded_edges WHERE ${where}`).run(...params);
  }

  /** Moves a syntactic edge into `superseded_edges` (a semantic edge resolved its site; inside a caller's transaction). */
  private setAside(edgeIds: readonly number[]): void {
    if (edgeIds.length === 0) return;
    const ids = JSON.stringify(edgeIds);
    cachedStatement(this.db, `INSERT INTO superseded_edges(${EDGE_COLUMNS}) SELECT ${EDGE_COLUMNS} FROM edges WHERE id IN (SELECT value FROM json_each(?))`).run(ids);
    cachedStatement(this.db, `DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))`).run(ids);
  }

  /** Records why a scope has no (or failed) semantic edges. */
  setSemanticState(fileIds: readonly number[], state: 'none' | 'pending' | 'failed', reason: string | null): void {
    this.db.transaction(() => {
      for (const id of fileIds) this.stmts.setSemantic.run(state, reason, id);
    })();
  }

  /** Appends an event (degraded parse, collision, semantic context change). */
  recordEvent(kind: string, path: string | null, message: string, data?: unknown): void {
    this.stmts.event.run(now(), kind, path, message, data === undefined ? null : JSON.stringify(data));
  }

  /** Records a label's project facts (decision 051): which of its project files are test projects, and why. */
  setProjectFacts(label: string, facts: ReadonlyMap<string, ProjectTestFact>): void {
    this.setMetadata(testProjectsKey(label), serializeProjectFacts(facts));
  }

  /** Sets a metadata value; writing the value it already has changes nothing (caches keyed by the change stamp survive). */
  setMetadata(key: string, value: string): void {
    // Reading first: an unchanged value costs no write transaction (a refresh before every answer sets several).
    if (readMetadata(this.db, key) === value) return;
    cachedStatement(this.db, `INSERT INTO _metadata(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(key, value);
  }

  private writeOne(labelId: number, f: FileWrite, stats: WriteStats, planner: NodePlanner, carry?: CarryOptions): void {
    stats.files++;
    if (f.content) this.storeContent(f.contentHash, f.content);
    const entry = this.stmts.labelEntry.get(labelId, f.path);
    // A version holding a mergeable fragment is this label's own (decision 047): the merged node
    // it belongs to depends on the label's other files. Only the label's own version of these
    // bytes counts as existing then; otherwise only a shareable one.
    const fragment = (f.index?.nodes ?? []).some(isMergeableFragment);
    // The same bytes by another extractor (other C# defines) are another version (the unique key
    // has the extractor): the label's version of the path is then continued like an edited one.
    const existing = fragment
      ? (entry ? this.stmts.privateVersion.get(entry.file_id, f.contentHash, f.extractor) : undefined)
      : this.stmts.fileByVersion.get(f.path, f.contentHash, f.extractor);
    if (existing && f.refresh !== true) {
      // Content already indexed (another label, or unchanged): only membership changes.
      this.stmts.upsertLabelEntry.run(labelId, f.path, existing.id, f.mtimeMs);
      if (entry && entry.file_id !== existing.id) this.releaseVersion(entry.file_id, 'file changed', stats);
      return;
    }
    // A version another label holds is never written again in place (that label's answers would
    // change): this label then gets a version of its own beside it.
    const inPlace = existing !== undefined && this.stmts.otherHolders.get(existing.id, labelId)!.n === 0;
    const ownScope = fragment || (existing !== undefined && !inPlace);
    // The version this label held before; its nodes keep their ids when their keys survive.
    let previous: number | null = entry ? entry.file_id : null;
    // A move with an edit: the version leaves its old path and this one continues it.
    const moved = this.takeMovedEntry(labelId, f, entry !== undefined);
    if (moved !== null) previous = moved;
    if (existing && inPlace) {
      // A refresh: re-extract in place of the version.
      if (previous !== existing.id) {
        this.stmts.upsertLabelEntry.run(labelId, f.path, existing.id, f.mtimeMs);
        if (previous !== null) this.releaseVersion(previous, 'file changed', stats);
      }
      previous = existing.id;
      this.stmts.deleteLabelEntry.run(labelId, f.path);
    }
    // A shareable version written in place of one with the same bytes takes a stand-in hash until
    // the old one is gone (the unique key); an own version's scope keeps them apart already.
    const standIn = existing !== undefined && inPlace && !ownScope;
    const fileId = Number(
      this.stmts.insertFile.run({
        path: f.path,
        contentHash: standIn ? `${f.contentHash}~${Date.now()}` : f.contentHash,
        language: f.language,
        size: f.size,
        lineCount: f.lineCount,
        parseStatus: f.parseStatus,
        statusReason: f.statusReason,
        generated: f.generated ? 1 : 0,
        project: f.project,
        extractor: f.extractor,
        indexedAt: now(),
        mergeScope: ownScope ? PRIVATE_SCOPE_PENDING : '',
      }).lastInsertRowid,
    );
    if (ownScope) this.stmts.sealPrivateScope.run(fileId);
    this.stmts.upsertLabelEntry.run(labelId, f.path, fileId, f.mtimeMs);
    // The previous version's nodes may continue (only when no other label still needs it).
    let previousNodes: ExistingNode[] = [];
    // The planner compares the old texts (what changed, what may carry); the exact edges of
    // unchanged symbols move over only when the old version's pass was complete.
    let withTexts = false;
    let carrying = false;
    if (previous !== null) {
      const holders = this.stmts.fileHolders.get(previous)!.n;
      if (holders === 0) {
        withTexts = carry !== undefined && f.language !== null && carry.languages.includes(f.language) && f.index !== null;
        carrying = withTexts && (this.stmts.semanticStateOf.get(previous))?.semantic_state === 'ok';
        // A moved file's planner compares chunk texts too (renamed and edited symbols).
        previousNodes = (withTexts || moved !== null ? this.stmts.nodesOfFileWithText : this.stmts.nodesOfFile).all(previous);
        if (!carrying) this.stmts.deleteEdgesOfFile.run(previous);
        this.stmts.deleteSpansOfFile.run(previous);
      }
    }
    const nodes = f.index?.nodes ?? [];
    const plan = planner({
      path: f.path,
      previous: previousNodes.map((n) => ({
        id: n.id,
        symbolKey: n.symbol_key,
        disambiguator: n.disambiguator,
        kind: n.kind,
        chunkHash: n.chunk_hash,
        otherSpans: n.other_spans,
        project: n.project,
        name: n.name,
        ...(withTexts || moved !== null
          ? { signature: n.signature, startLine: n.start_line, endLine: n.end_line, chunkText: n.chunk_text ?? '' }
          : {}),
      })),
      ...(moved !== null ? { previousPath: f.previousPath! } : {}),
      nodes,
      project: f.project,
      partialTarget: (n) => this.partialTarget(labelId, fileId, f, n),
    });
    const previousById = new Map(previousNodes.map((n) => [n.id, n]));
    checkPlan(plan, nodes.length, previousById);
    if (moved !== null) {
      // The nodes continue at another path (a move with an edit keeps their ids): what other
      // files resolved to them went through the old path, as for `moveVersion` (difference #15:
      // a module augmentation `declare module '../vanilla'` moved up a folder augments nothing,
      // and the unchanged augmented file must lose its exact edges into it).
      for (const n of previousNodes) {
        this.stmts.unresolveImporters.run(n.id, fileId);
        this.stmts.unresolveSupersededImporters.run(n.id, fileId);
        this.stmts.referrersPending.run(n.id);
      }
    }
    // A moved file's FTS rows hold the old path's words: none is kept.
    if (f.index) this.insertIndex(fileId, f, plan, stats, moved !== null ? new Map() : previousById);
    if (carrying) {
      const moved = this.carryEdges(previous!, fileId, plan, carry!);
      if (moved.length > 0) (stats.carried ??= new Map()).set(f.path, moved);
      this.stmts.deleteEdgesOfFile.run(previous!);
    }
    if (previous !== null) {
      // Nodes of the previous version that were not carried over are journaled and deleted.
      for (const d of plan.drop) this.deleteNode(previousById.get(d.id)!, f.path, 'symbol removed', stats);
      this.releaseVersion(previous, 'file changed', stats);
      if (standIn) {
        // Give the re-extracted version the real content hash now the stale one is gone.
        cachedStatement(this.db, `UPDATE files SET content_hash = ? WHERE id = ?`).run(f.contentHash, fileId);
      }
    }
  }

  /**
   * For a write that continues the version at `f.previousPath` (a move with an edit): removes that
   * label entry and returns its version, or null when there is nothing to continue (no previous
   * path, the new path already had a version, or the label no longer holds the old path).
   */
  private takeMovedEntry(labelId: number, f: FileWrite, hadEntry: boolean): number | null {
    if (f.previousPath === undefined || hadEntry) return null;
    const from = this.stmts.labelEntry.get(labelId, f.previousPath);
    if (!from) return null;
    this.stmts.deleteLabelEntry.run(labelId, f.previousPath);
    return from.file_id;
  }

  /**
   * Moves the semantic edges of the plan's carried nodes from the previous version to `fileId`
   * (lines mapped), and sets aside the new version's syntactic edges at the same sites, as the
   * pass does. A node with an edge on a line the map lacks carries nothing. Returns the ids of the
   * nodes that carried (a node without exact edges carries too: the pass found nothing there).
   */
  private carryEdges(previous: number, fileId: number, plan: NodePlan, carry: CarryOptions): number[] {
    const moved: number[] = [];
    if ((plan.carry ?? []).length === 0) return moved;
    // Each version's edges read once and grouped by source (a hub file carries hundreds of
    // nodes: one query per node would scan the file's edges once per node).
    const bySource = <R extends { source_id: number }>(rows: R[]): Map<number, R[]> => {
      const m = new Map<number, R[]>();
      for (const r of rows) {
        const list = m.get(r.source_id);
        if (list) list.push(r);
        else m.set(r.source_id, [r]);
      }
      return m;
    };
    const exact = bySource(
      selectAll<EdgeSiteRow & { extractor: string }>(this.db, `SELECT id, source_id, line, extractor FROM edges WHERE file_id = ? AND extractor LIKE 'semantic:%'`, previous),
    );
    const typeList = carry.types.map(() => '?').join(',');
    const approx = bySource(
      selectAll<EdgeSiteRow>(
        this.db,
        `SELECT id, source_id, line FROM edges WHERE file_id = ? AND extractor NOT LIKE 'semantic:%' AND type IN (${typeList})`,
        fileId,
        ...carry.types,
      ),
    );
    const move = cachedStatement(this.db, `UPDATE edges SET file_id = ?, line = ? WHERE id = ?`);
    const aside: number[] = [];
    for (const c of plan.carry ?? []) {
      const rows = exact.get(c.id) ?? [];
      if (!rows.every((r) => r.extractor === carry.extractor && c.lines.has(r.line))) continue;
      const sites = new Set<number>();
      for (const r of rows) {
        const line = c.lines.get(r.line)!;
        move.run(fileId, line, r.id);
        sites.add(line);
      }
      if (sites.size > 0) {
        for (const a of approx.get(c.id) ?? []) {
          if (sites.has(a.line)) aside.push(a.id);
        }
      }
      moved.push(c.id);
    }
    this.setAside(aside);
    return moved;
  }

  private insertIndex(fileId: number, f: FileWrite, plan: NodePlan, stats: WriteStats, previous: ReadonlyMap<number, ExistingNode> = new Map()): void {
    const index = f.index!;
    const ids = new Map<string, number>();
    const pathText = pathTokens(f.path);
    index.nodes.forEach((n, i) => {
      const parentId = n.parentLocalId === null ? null : (ids.get(n.parentLocalId) ?? null);
      const action = plan.actions[i]!;
      if (action.kind === 'merge' && !action.primary) {
        this.mergeInto(action.id, false, fileId, n);
        ids.set(n.localId, action.id);
        return;
      }
      const chunkHash = chunkHashOf(n.chunkText);
      const row = {
        fileId,
        parentId,
        kind: n.kind,
        language: index.language,
        name: n.name,
        qualifiedName: n.qualifiedName,
        symbolKey: n.symbolKey,
        disambiguator: n.disambiguator,
        project: f.project,
        startLine: n.span.startLine,
        endLine: n.span.endLine,
        startByte: n.span.startByte,
        endByte: n.span.endByte,
        signature: n.signature,
        parameterCount: n.parameterCount,
        returnType: n.returnType,
        modifiers: n.modifiers.join(' '),
        attributes: n.attributes && n.attributes.length > 0 ? JSON.stringify(n.attributes) : null,
        isPublicApi: n.isPublicApi ? 1 : 0,
        doc: n.doc,
        generated: index.generated ? 1 : 0,
        chunkText: n.chunkText,
        chunkHash,
      };
      let id: number;
      let writeFts = true;
      if (action.kind === 'merge') {
        // The fragment of the path that sorts first speaks for a merged node (as in a clean
        // index, which inserts it first): its facts and FTS row replace the previous primary's.
        id = action.id;
        this.mergeInto(id, true, fileId, n);
        this.stmts.updateNode.run({ ...row, id });
        this.dropFts(id);
      } else if (action.kind === 'update') {
        id = action.id;
        this.stmts.updateNode.run({ ...row, id });
        if (action.rekey === true) this.stmts.setNodeKey.run(n.symbolKey, n.disambiguator, id);
        stats.nodesUpdated++;
        // Same path, same words: the FTS row stays (most nodes of an edited file).
        const old = previous.get(id);
        writeFts = old === undefined || !sameFtsText(old, n, chunkHash);
        if (writeFts) this.dropFts(id);
      } else {
        id = Number(this.stmts.insertNode.run(row).lastInsertRowid);
        stats.nodesInserted++;
      }
      ids.set(n.localId, id);
      if (!writeFts) return;
      const fts = f.fts?.[i] ?? ftsTextOf(n);
      this.putFts(index.language, id, n.name, n.qualifiedName, fts.split, n.signature, n.doc ?? '', pathText, fts.body);
    });
    for (const e of index.edges) {
      const sourceId = ids.get(e.sourceLocalId);
      if (sourceId === undefined) continue;
      const targetId = e.target.localId !== undefined ? (ids.get(e.target.localId) ?? null) : null;
      this.stmts.insertEdge.run(
        sourceId,
        fileId,
        e.type,
        e.confidence,
        e.target.key,
        e.target.name,
        targetId,
        e.target.modulePath ?? null,
        e.target.importedName ?? null,
        e.target.specifier ?? null,
        e.line,
        f.extractor,
      );
      stats.edges++;
    }
    for (const r of index.reExports) {
      if (r.names === '*') this.stmts.insertReexport.run(fileId, r.modulePath, '*');
      else for (const name of r.names) this.stmts.insertReexport.run(fileId, r.modulePath, name);
    }
    for (const d of index.diagnostics) {
      if (d.severity === 'error') this.recordEvent('parse_diagnostic', f.path, d.message, { code: d.code, line: d.line });
    }
  }

  /** The label's node a `partial` fragment would join: same key, language, project and kind, in another file. */
  private partialTarget(labelId: number, fileId: number, f: FileWrite, n: ExtractedNode): PartialTarget | null {
    const target = this.stmts.mergeTarget.get({
      labelId,
      symbolKey: n.symbolKey,
      language: f.language,
      project: f.project,
      fileId,
      kind: n.kind,
    });
    return target ? { id: target.id, path: target.path } : null;
  }

  /** A fragment joins node `id` as an extra span, or (primary) takes its primary span, the old one moving to `node_spans`. */
  private mergeInto(id: number, primary: boolean, fileId: number, n: ExtractedNode): void {
    const s = n.span;
    if (primary) {
      const old = selectOne<Omit<SpanRow, 'path'> & { file_id: number }>(this.db, `SELECT file_id, start_line, end_line, start_byte, end_byte FROM nodes WHERE id = ?`, id)!;
      this.stmts.insertSpan.run(id, old.file_id, old.start_line, old.end_line, old.start_byte, old.end_byte);
      this.stmts.movePrimary.run(fileId, s.startLine, s.endLine, s.startByte, s.endByte, id);
    } else {
      this.stmts.insertSpan.run(id, fileId, s.startLine, s.endLine, s.startByte, s.endByte);
    }
  }

  /** Removes a node's full-text row, from whichever partition holds it (a missing row is a no-op). */
  private dropFts(id: number): void {
    this.stmts.deleteFts.run(id);
    this.stmts.deleteDocFts.run(id);
  }

  /**
   * Writes a node's full-text row: nodes of documentation files go to the documentation
   * partition (`fts_docs`), so code searches rank against the code's terms alone (decision 039).
   */
  private putFts(language: string | null, id: number, ...text: [string, string, string, string, string, string, string]): void {
    (isDocLanguage(language) ? this.stmts.insertDocFts : this.stmts.insertFts).run(id, ...text);
  }

  private deleteNode(n: ExistingNode, path: string, reason: string, stats: WriteStats): void {
    // A merged node with spans in other files survives: its primary span moves there.
    const other = this.stmts.firstOtherSpan.get(n.id, -1) as
      | { file_id: number; start_line: number; end_line: number; start_byte: number; end_byte: number }
      | undefined;
    if (other) {
      this.stmts.deleteSpan.run(n.id, other.file_id, other.start_byte);
      this.stmts.movePrimary.run(other.file_id, other.start_line, other.end_line, other.start_byte, other.end_byte, n.id);
      // The node keeps the facts of the fragment that left: that file must be written again.
      const promotedPath = this.stmts.filePath.get(other.file_id)?.path;
      if (promotedPath !== undefined) (stats.promoted ??= new Set()).add(promotedPath);
      return;
    }
    this.stmts.journal.run(
      n.id,
      n.symbol_key,
      n.qualified_name,
      n.kind,
      path,
      JSON.stringify({
        name: n.name,
        kind: n.kind,
        qualifiedName: n.qualified_name,
        symbolKey: n.symbol_key,
        startLine: n.start_line,
        endLine: n.end_line,
        signature: n.signature,
        chunkHash: n.chunk_hash,
      }),
      reason,
      now(),
    );
    this.dropFts(n.id);
    // The exact edges into the node lose their target (ON DELETE SET NULL); the files holding
    // them, unchanged or not, are analysed again in the same transaction as the delete, so an
    // interruption cannot leave an unresolved exact edge under a complete pass (decision 022).
    this.stmts.repointReferrers.run({ id: n.id });
    this.stmts.referrersPending.run(n.id);
    this.stmts.deleteNode.run(n.id);
    stats.nodesDeleted++;
    if (n.kind !== 'file') stats.droppedNames?.add(n.name);
    stats.dropped?.push({ name: n.name, kind: n.kind, path });
  }

  /** Drops each version no label holds any more (journaling its nodes), in one transaction. */
  releaseVersions(fileIds: readonly number[], reason: string): WriteStats {
    const stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0 };
    this.db.transaction(() => {
      for (const id of fileIds) {
        if (this.releaseVersion(id, reason, stats)) stats.files++;
      }
    })();
    return stats;
  }

  /** Drops a file version when no label holds it any more (journaling its nodes); true when it went. */
  private releaseVersion(fileId: number, reason: string, stats: WriteStats): boolean {
    const holders = this.stmts.fileHolders.get(fileId)!.n;
    if (holders > 0) return false;
    const pathRow = this.stmts.filePath.get(fileId);
    if (!pathRow) return false;
    this.stmts.deleteEdgesOfFile.run(fileId);
    this.stmts.deleteSpansOfFile.run(fileId);
    for (const n of this.stmts.nodesOfFile.all(fileId)) {
      this.deleteNode(n, pathRow.path, reason, stats);
    }
    this.stmts.deleteFile.run(fileId);
    return true;
  }
}

/** A plan the writer can execute: one action per node, updates and drops only of the previous version's nodes, each once. */
function checkPlan(plan: NodePlan, nodes: number, previous: ReadonlyMap<number, unknown>): void {
  const bad = (why: string) => new Error(`node plan rejected: ${why}`);
  if (plan.actions.length !== nodes) throw bad(`${plan.actions.length} actions for ${nodes} nodes`);
  const used = new Set<number>();
  for (const a of plan.actions) {
    if (a.kind !== 'update') continue;
    if (!previous.has(a.id)) throw bad(`node ${a.id} is not of the previous version`);
    if (used.has(a.id)) throw bad(`node ${a.id} continued twice`);
    used.add(a.id);
  }
  for (const d of plan.drop) {
    if (!previous.has(d.id) || used.has(d.id)) throw bad(`node ${d.id} cannot be dropped`);
    used.add(d.id);
  }
  if (used.size !== previous.size) throw bad(`${previous.size - used.size} previous nodes neither continued nor dropped`);
}
