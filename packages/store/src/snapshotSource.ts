import type { SqliteDatabase } from './database.js';
import { inLabelJoin } from './labelScope.js';
import { selectAll, selectOne } from './statements.js';
import { blobToVector } from './vectors.js';

// What a publisher (issue 30: a label's state copied to a team store) reads of a local index:
// the label's files, then per batch of files their contents, nodes, extra spans, edges,
// re-exports and vector assignments, then the embeddings by (model, content hash). Every read
// takes a batch of ids bound as one JSON array, so a batch is one query per table, never one
// per row.

/** A file version of the label, with its path there. */
export interface SnapshotFile {
  readonly fileId: number;
  readonly path: string;
  /** Git's blob id of the bytes (for a skipped file: its `skipped:…` stamp). */
  readonly contentHash: string;
  readonly language: string | null;
  readonly size: number;
  readonly lineCount: number;
  readonly parseStatus: string;
  readonly statusReason: string | null;
  readonly generated: boolean;
  readonly project: string;
  readonly semanticState: string;
  readonly semanticReason: string | null;
  readonly extractor: string;
}

/** A node as stored, with its row ids (parent, file) for the publisher to rename. */
export interface SnapshotNode {
  readonly id: number;
  readonly fileId: number;
  readonly parentId: number | null;
  readonly kind: string;
  readonly language: string;
  readonly name: string;
  readonly qualifiedName: string;
  readonly symbolKey: string;
  readonly disambiguator: number;
  readonly project: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly signature: string;
  readonly parameterCount: number | null;
  readonly returnType: string | null;
  readonly modifiers: string;
  readonly attributes: string | null;
  readonly isPublicApi: boolean;
  readonly doc: string | null;
  readonly generated: boolean;
  readonly chunkText: string;
  readonly chunkHash: string;
}

/** A further span of a node (a partial declaration), in the file `fileId`. */
export interface SnapshotSpan {
  readonly nodeId: number;
  readonly fileId: number;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
}

/** An edge as stored; `targetId` is a node id of the same index (or null: unresolved). */
export interface SnapshotEdge {
  readonly fileId: number;
  readonly sourceId: number;
  readonly type: string;
  readonly confidence: string;
  readonly targetKey: string;
  readonly targetName: string;
  readonly targetId: number | null;
  readonly targetModule: string | null;
  readonly importedName: string | null;
  readonly specifier: string | null;
  readonly line: number;
  readonly extractor: string;
}

/** A re-export of the file `fileId`. */
export interface SnapshotReexport {
  readonly fileId: number;
  readonly targetModule: string;
  readonly name: string;
}

/** Which embedding (model, content hash) a node's window uses. */
export interface SnapshotNodeVector {
  readonly nodeId: number;
  readonly window: number;
  readonly model: string;
  readonly contentHash: string;
}

/** One stored embedding. */
export interface SnapshotEmbedding {
  readonly model: string;
  readonly contentHash: string;
  readonly vector: Float32Array;
}

/** Stored bytes of a file version (versions over the content cap have none). */
export interface SnapshotContent {
  readonly contentHash: string;
  readonly size: number;
  readonly data: Buffer;
}

interface FileRow {
  id: number; path: string; content_hash: string; language: string | null; size: number; line_count: number;
  parse_status: string; status_reason: string | null; generated: number; project: string; semantic_state: string;
  semantic_reason: string | null; extractor: string;
}

interface NodeRow {
  id: number; file_id: number; parent_id: number | null; kind: string; language: string; name: string; qualified_name: string;
  symbol_key: string; disambiguator: number; project: string; start_line: number; end_line: number; start_byte: number;
  end_byte: number; signature: string; parameter_count: number | null; return_type: string | null; modifiers: string;
  attributes: string | null; is_public_api: number; doc: string | null; generated: number; chunk_text: string; chunk_hash: string;
}

interface EdgeRow {
  file_id: number; source_id: number; type: string; confidence: string; target_key: string; target_name: string;
  target_id: number | null; target_module: string | null; imported_name: string | null; specifier: string | null;
  line: number; extractor: string;
}

/** The ids bound as one parameter (`IN (SELECT value FROM json_each(?))`). */
function idList(ids: readonly (number | string)[]): string {
  return JSON.stringify(ids);
}

const IN_FILES = `IN (SELECT value FROM json_each(?))`;

/** Reads a label's state in batches, for publishing it elsewhere (see the module comment). */
export class SnapshotSource {
  constructor(
    private readonly db: SqliteDatabase,
    readonly label: string,
  ) {}

  /** Whether the label exists. */
  exists(): boolean {
    return selectOne<{ id: number }>(this.db, `SELECT id FROM labels WHERE name = ?`, this.label) !== undefined;
  }

  /** The label's commit, head ref and dirtiness as recorded. */
  info(): { readonly commit: string | null; readonly headRef: string | null; readonly dirty: boolean | null } {
    const r = selectOne<{ commit_sha: string | null; head_ref: string | null; dirty: number | null }>(
      this.db, `SELECT commit_sha, head_ref, dirty FROM labels WHERE name = ?`, this.label);
    return { commit: r?.commit_sha ?? null, headRef: r?.head_ref ?? null, dirty: r?.dirty == null ? null : r.dirty === 1 };
  }

  /** Every file version of the label, by path. */
  files(): SnapshotFile[] {
    return selectAll<FileRow>(
      this.db,
      `SELECT f.id, lf.path, f.content_hash, f.language, f.size, f.line_count, f.parse_status, f.status_reason, f.generated,
              f.project, f.semantic_state, f.semantic_reason, f.extractor
         FROM files f ${inLabelJoin('f.id')} ORDER BY lf.path`, this.label,
    ).map((r) => ({
      fileId: r.id, path: r.path, contentHash: r.content_hash, language: r.language, size: r.size, lineCount: r.line_count,
      parseStatus: r.parse_status, statusReason: r.status_reason, generated: r.generated === 1, project: r.project,
      semanticState: r.semantic_state, semanticReason: r.semantic_reason, extractor: r.extractor,
    }));
  }

  /** The stored bytes of these content hashes (those kept). */
  contents(hashes: readonly string[]): SnapshotContent[] {
    return selectAll<{ content_hash: string; size: number; data: Buffer }>(
      this.db, `SELECT content_hash, size, data FROM file_contents WHERE content_hash ${IN_FILES}`, idList(hashes),
    ).map((r) => ({ contentHash: r.content_hash, size: r.size, data: r.data }));
  }

  /** The nodes of these files. */
  nodes(fileIds: readonly number[]): SnapshotNode[] {
    return selectAll<NodeRow>(
      this.db,
      `SELECT id, file_id, parent_id, kind, language, name, qualified_name, symbol_key, disambiguator, project, start_line,
              end_line, start_byte, end_byte, signature, parameter_count, return_type, modifiers, attributes, is_public_api,
              doc, generated, chunk_text, chunk_hash
         FROM nodes WHERE file_id ${IN_FILES} ORDER BY file_id, start_byte, end_byte, symbol_key, disambiguator`, idList(fileIds),
    ).map((r) => ({
      id: r.id, fileId: r.file_id, parentId: r.parent_id, kind: r.kind, language: r.language, name: r.name,
      qualifiedName: r.qualified_name, symbolKey: r.symbol_key, disambiguator: r.disambiguator, project: r.project,
      startLine: r.start_line, endLine: r.end_line, startByte: r.start_byte, endByte: r.end_byte, signature: r.signature,
      parameterCount: r.parameter_count, returnType: r.return_type, modifiers: r.modifiers, attributes: r.attributes,
      isPublicApi: r.is_public_api === 1, doc: r.doc, generated: r.generated === 1, chunkText: r.chunk_text, chunkHash: r.chunk_hash,
    }));
  }

  /** The further spans of the nodes of these files. */
  spans(fileIds: readonly number[]): SnapshotSpan[] {
    return selectAll<{ node_id: number; file_id: number; start_line: number; end_line: number; start_byte: number; end_byte: number }>(
      this.db,
      `SELECT ns.node_id, ns.file_id, ns.start_line, ns.end_line, ns.start_byte, ns.end_byte
         FROM node_spans ns JOIN nodes n ON n.id = ns.node_id WHERE n.file_id ${IN_FILES}
        ORDER BY ns.node_id, ns.file_id, ns.start_byte`, idList(fileIds),
    ).map((r) => ({ nodeId: r.node_id, fileId: r.file_id, startLine: r.start_line, endLine: r.end_line, startByte: r.start_byte, endByte: r.end_byte }));
  }

  /** The edges recorded for these files. */
  edges(fileIds: readonly number[]): SnapshotEdge[] {
    return selectAll<EdgeRow>(
      this.db,
      `SELECT file_id, source_id, type, confidence, target_key, target_name, target_id, target_module, imported_name, specifier,
              line, extractor
         FROM edges WHERE file_id ${IN_FILES} ORDER BY file_id, id`, idList(fileIds),
    ).map((r) => ({
      fileId: r.file_id, sourceId: r.source_id, type: r.type, confidence: r.confidence, targetKey: r.target_key,
      targetName: r.target_name, targetId: r.target_id, targetModule: r.target_module, importedName: r.imported_name,
      specifier: r.specifier, line: r.line, extractor: r.extractor,
    }));
  }

  /** The re-exports of these files. */
  reexports(fileIds: readonly number[]): SnapshotReexport[] {
    return selectAll<{ file_id: number; target_module: string; name: string }>(
      this.db, `SELECT file_id, target_module, name FROM module_reexports WHERE file_id ${IN_FILES} ORDER BY file_id, target_module, name`,
      idList(fileIds),
    ).map((r) => ({ fileId: r.file_id, targetModule: r.target_module, name: r.name }));
  }

  /** Which embedding each window of the nodes of these files uses. */
  nodeVectors(fileIds: readonly number[]): SnapshotNodeVector[] {
    return selectAll<{ node_id: number; window: number; model_id: string; content_hash: string }>(
      this.db,
      `SELECT ne.node_id, ne.window, em.model_id, em.content_hash
         FROM node_embeddings ne JOIN embeddings em ON em.id = ne.embedding_id JOIN nodes n ON n.id = ne.node_id
        WHERE n.file_id ${IN_FILES} ORDER BY ne.node_id, ne.window`, idList(fileIds),
    ).map((r) => ({ nodeId: r.node_id, window: r.window, model: r.model_id, contentHash: r.content_hash }));
  }

  /** The embeddings of `model` with these content hashes. */
  embeddings(model: string, contentHashes: readonly string[]): SnapshotEmbedding[] {
    return selectAll<{ content_hash: string; vector: Buffer }>(
      this.db, `SELECT content_hash, vector FROM embeddings WHERE model_id = ? AND content_hash ${IN_FILES}`, model, idList(contentHashes),
    ).map((r) => ({ model, contentHash: r.content_hash, vector: blobToVector(r.vector) }));
  }
}
