import type { Confidence, EdgeType, Language, NodeKind, ParseStatus } from '@ca/schema';

// Row types and mappers, one place per table. Each `*_COLUMNS` constant is what its query selects
// (aliases as written: `n` nodes, `f` files, `e` edges, `lf` label_files, `s` node_spans), its
// `*Row` interface is the row the driver hands back (snake_case, SQLite's integers for booleans),
// and its `to*` function maps that row to the record the store hands out. A query that reads a
// table's record selects the constant and maps with the function, so a column added, renamed or
// read by a second backend changes here only.

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

/** A file of a label whose parse status is worth reporting. */
export interface FileStatusRecord {
  readonly path: string;
  readonly language: string | null;
  readonly parseStatus: ParseStatus;
  readonly reason: string | null;
  readonly lineCount: number;
  readonly generated: boolean;
}

/** The version a label holds at one path, for change detection. */
export interface LabelEntry {
  readonly fileId: number;
  readonly contentHash: string;
  readonly mtimeMs: number | null;
  readonly size: number;
  readonly extractor: string;
}

/** An edge as read back from the index, with the path of the file that made it. */
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

/** The columns `NodeRow` reads: select them from `nodes n JOIN files f ON f.id = n.file_id`. */
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

/** The row `NODE_COLUMNS` selects. */
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
 * The summary extended in place: spreading it into a new literal with the remaining fields made
 * V8 build each record on a slow path, and search hydrates dozens of nodes per query
 * (docs/benchmarks.md, problem 7).
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


/** The columns `EdgeRow` reads: select them from `edges e JOIN files f ON f.id = e.file_id`. */
export const EDGE_COLUMNS = `e.id, e.source_id, e.target_id, e.type, e.confidence, e.target_key, e.target_name, e.line, f.path`;

/** The row `EDGE_COLUMNS` selects. */
export interface EdgeRow {
  id: number;
  source_id: number;
  target_id: number | null;
  type: string;
  confidence: string;
  target_key: string;
  target_name: string;
  line: number;
  path: string;
}

/** Maps an `EDGE_COLUMNS` row to an `EdgeRecord`. */
export function toEdge(r: EdgeRow): EdgeRecord {
  return {
    id: r.id,
    sourceId: r.source_id,
    targetId: r.target_id,
    type: r.type as EdgeType,
    confidence: r.confidence as Confidence,
    targetKey: r.target_key,
    targetName: r.target_name,
    line: r.line,
    path: r.path,
  };
}

/** The columns `LabelEntryRow` reads: select them from `label_files lf JOIN files f ON f.id = lf.file_id`. */
export const LABEL_ENTRY_COLUMNS = `lf.path, lf.file_id, lf.mtime_ms, f.content_hash, f.size, f.extractor`;

/** The row `LABEL_ENTRY_COLUMNS` selects. */
export interface LabelEntryRow {
  path: string;
  file_id: number;
  mtime_ms: number | null;
  content_hash: string;
  size: number;
  extractor: string;
}

/** Maps a `LABEL_ENTRY_COLUMNS` row to a `LabelEntry` (its path is the key it is filed under). */
export function toLabelEntry(r: LabelEntryRow): LabelEntry {
  return { fileId: r.file_id, contentHash: r.content_hash, mtimeMs: r.mtime_ms, size: r.size, extractor: r.extractor };
}

/** The columns `FileStatusRow` reads: select them from `files f`. */
export const FILE_STATUS_COLUMNS = `f.path, f.language, f.parse_status, f.status_reason, f.line_count, f.generated`;

/** The row `FILE_STATUS_COLUMNS` selects. */
export interface FileStatusRow {
  path: string;
  language: string | null;
  parse_status: string;
  status_reason: string | null;
  line_count: number;
  generated: number;
}

/** Maps a `FILE_STATUS_COLUMNS` row to a `FileStatusRecord`. */
export function toFileStatus(r: FileStatusRow): FileStatusRecord {
  return {
    path: r.path,
    language: r.language,
    parseStatus: r.parse_status as ParseStatus,
    reason: r.status_reason,
    lineCount: r.line_count,
    generated: r.generated === 1,
  };
}

/** A span of a node (its primary one or another), by path and position. */
export interface SpanRecord {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
}

/** The columns `SpanRow` reads: select them from `node_spans s JOIN files f ON f.id = s.file_id`. */
export const SPAN_COLUMNS = `f.path, s.start_line, s.end_line, s.start_byte, s.end_byte`;

/** The row `SPAN_COLUMNS` selects. */
export interface SpanRow {
  path: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
}

/** Maps a `SPAN_COLUMNS` row to a `SpanRecord`. */
export function toSpan(r: SpanRow): SpanRecord {
  return { path: r.path, startLine: r.start_line, endLine: r.end_line, startByte: r.start_byte, endByte: r.end_byte };
}

/** A file of a label with its language, lines and symbol count. */
export interface FileSummary {
  readonly path: string;
  readonly language: string | null;
  readonly lineCount: number;
  /** Nodes of the file other than file/module nodes. */
  readonly symbols: number;
}

/** The columns `FileSummaryRow` reads: select them from `files f`. */
export const FILE_SUMMARY_COLUMNS = `f.path, f.language, f.line_count,
  (SELECT COUNT(*) FROM nodes n WHERE n.file_id = f.id AND n.kind NOT IN ('file','module')) AS symbols`;

/** The row `FILE_SUMMARY_COLUMNS` selects. */
export interface FileSummaryRow {
  path: string;
  language: string | null;
  line_count: number;
  symbols: number;
}

/** Maps a `FILE_SUMMARY_COLUMNS` row to a `FileSummary`. */
export function toFileSummary(r: FileSummaryRow): FileSummary {
  return { path: r.path, language: r.language, lineCount: r.line_count, symbols: r.symbols };
}
