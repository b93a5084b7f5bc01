import { symbolKey, type Diagnostic, type ExtractedNode, type FileIndex, type NodeKind, type ParseStatus, type Span } from '@ca/schema';
import type { TextMap } from './text.js';

/** The longest chunk text a section or key keeps (search reads it; the span still covers all of it). */
export const MAX_CHUNK_CHARS = 4000;
/** The most sections or keys one file yields; past it the file is `partial` and says so. */
export const MAX_NODES_PER_FILE = 5000;

/** A section or key found by a scanner, before it becomes an `ExtractedNode`. */
export interface DocPart {
  readonly kind: Extract<NodeKind, 'doc' | 'config'>;
  readonly name: string;
  /** Names of the enclosing parts, outermost first. */
  readonly containers: readonly string[];
  /** Index into the parts list of the enclosing part, or -1 for a child of the file. */
  readonly parent: number;
  /** Character range of the span. */
  readonly start: number;
  readonly end: number;
  /** The text search reads (capped to MAX_CHUNK_CHARS). */
  readonly chunk: string;
  readonly signature: string;
  readonly qualifiedName: string;
}

/** What a scanner returns: the parts, the file node's chunk, and problems met. */
export interface ScanResult {
  readonly parts: readonly DocPart[];
  readonly fileChunk: string;
  readonly diagnostics: readonly Diagnostic[];
  /** `partial` when the scanner stopped early (malformed input, too many parts). */
  readonly status: ParseStatus;
}

/** `text` cut to MAX_CHUNK_CHARS. */
export function cap(text: string): string {
  return text.length <= MAX_CHUNK_CHARS ? text : `${text.slice(0, MAX_CHUNK_CHARS)}…`;
}

function node(localId: string, kind: NodeKind, name: string, qualifiedName: string, key: string, disambiguator: number, parentLocalId: string | null, span: Span, signature: string, chunkText: string): ExtractedNode {
  return {
    localId,
    kind,
    name,
    qualifiedName,
    symbolKey: key,
    disambiguator,
    parentLocalId,
    span,
    signature,
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    chunkText,
  };
}

/** The `FileIndex` of a scanned file: a file node, then one node per part (nested by `parent`). */
export function toFileIndex(path: string, language: string, map: TextMap, scan: ScanResult): FileIndex {
  const fileKey = symbolKey({ language, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' });
  const nodes: ExtractedNode[] = [
    node('n0', 'file', path.slice(path.lastIndexOf('/') + 1), path, fileKey, 0, null, map.span(0, map.text.length), path, cap(scan.fileChunk)),
  ];
  const seen = new Map<string, number>();
  scan.parts.forEach((p, i) => {
    const key = symbolKey({ language, scope: { kind: 'file', path }, containers: p.containers, name: p.name, kind: p.kind });
    const d = seen.get(key) ?? 0;
    seen.set(key, d + 1);
    nodes.push(node(`n${i + 1}`, p.kind, p.name, p.qualifiedName, key, d, p.parent < 0 ? 'n0' : `n${p.parent + 1}`, map.span(p.start, p.end), p.signature, p.chunk));
  });
  const edges = nodes.slice(1).map((n) => ({
    sourceLocalId: n.parentLocalId!,
    type: 'contains' as const,
    confidence: 'exact' as const,
    target: { key: n.symbolKey, name: n.name, localId: n.localId },
    line: n.span.startLine,
  }));
  return {
    path,
    language,
    parseStatus: scan.status,
    generated: false,
    lineCount: map.lineCount,
    nodes,
    edges,
    diagnostics: scan.diagnostics,
    exports: [],
    reExports: [],
  };
}
