import { createHash } from 'node:crypto';
import type { SnapshotEdge, SnapshotFile, SnapshotNode, SnapshotNodeVector, SnapshotReexport, SnapshotSpan } from '@ca/store';

// A file version as the team store keeps it: nodes renamed to their ordinal in the file (the
// SQLite row ids mean nothing elsewhere), parents and spans by ordinal and path, and a digest of
// all of it. The digest is part of the version's key, so the same bytes indexed by another
// extractor (other nodes) make another version, and the same facts are never stored twice.

/** A node row ready for the server. */
export interface NodePayload {
  readonly ordinal: number;
  readonly parentOrdinal: number | null;
  readonly node: SnapshotNode;
  /** Further spans as `[path, startLine, endLine, startByte, endByte]`. */
  readonly spans: readonly (readonly [string, number, number, number, number])[];
}

/** One file version ready for the server. */
export interface VersionPayload {
  readonly file: SnapshotFile;
  readonly digest: string;
  readonly nodes: readonly NodePayload[];
  readonly vectors: readonly { readonly ordinal: number; readonly window: number; readonly model: string; readonly contentHash: string }[];
  readonly reexports: readonly SnapshotReexport[];
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function groupBy<T>(items: readonly T[], key: (t: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const t of items) {
    const k = key(t);
    const list = out.get(k);
    if (list) list.push(t);
    else out.set(k, [t]);
  }
  return out;
}

/** Where a SQLite node id lives: its file and its ordinal there. */
export type NodePlaces = Map<number, { readonly fileId: number; readonly ordinal: number }>;

/**
 * The payloads of a batch of files (nodes arrive ordered by file, then position); records each
 * node's place in `places` for the edges written later.
 */
export function versionPayloads(
  files: readonly SnapshotFile[],
  parts: {
    readonly nodes: readonly SnapshotNode[];
    readonly spans: readonly SnapshotSpan[];
    readonly reexports: readonly SnapshotReexport[];
    readonly vectors: readonly SnapshotNodeVector[];
  },
  pathOf: ReadonlyMap<number, string>,
  places: NodePlaces,
): VersionPayload[] {
  const nodesByFile = groupBy(parts.nodes, (n) => n.fileId);
  const spansByNode = groupBy(parts.spans, (s) => s.nodeId);
  const vectorsByNode = groupBy(parts.vectors, (v) => v.nodeId);
  const reexportsByFile = groupBy(parts.reexports, (r) => r.fileId);
  return files.map((file) => {
    const nodes = nodesByFile.get(file.fileId) ?? [];
    const ordinalOf = new Map<number, number>();
    nodes.forEach((n, i) => {
      ordinalOf.set(n.id, i);
      places.set(n.id, { fileId: file.fileId, ordinal: i });
    });
    const nodePayloads: NodePayload[] = nodes.map((n, i) => ({
      ordinal: i,
      parentOrdinal: n.parentId === null ? null : (ordinalOf.get(n.parentId) ?? null),
      node: n,
      spans: (spansByNode.get(n.id) ?? []).map((s) => [pathOf.get(s.fileId) ?? '?', s.startLine, s.endLine, s.startByte, s.endByte] as const),
    }));
    const vectors = nodes.flatMap((n, i) =>
      (vectorsByNode.get(n.id) ?? []).map((v) => ({ ordinal: i, window: v.window, model: v.model, contentHash: v.contentHash })));
    const reexports = reexportsByFile.get(file.fileId) ?? [];
    const facts = {
      file: [file.path, file.contentHash, file.language, file.size, file.lineCount, file.parseStatus, file.statusReason, file.generated, file.project, file.extractor],
      nodes: nodePayloads.map((p) => {
        const { id: _id, fileId: _f, parentId: _p, chunkText: _t, ...rest } = p.node;
        return [p.ordinal, p.parentOrdinal, rest, p.spans];
      }),
      vectors,
      reexports: reexports.map((r) => [r.targetModule, r.name]),
    };
    return { file, digest: sha256(JSON.stringify(facts)), nodes: nodePayloads, vectors, reexports };
  });
}

/** An edge row ready for the server (its target renamed to a version and an ordinal). */
export interface EdgePayload {
  readonly sourceOrdinal: number;
  readonly edge: SnapshotEdge;
  readonly targetVersionId: number | null;
  readonly targetOrdinal: number | null;
}

/** A file's edges in this snapshot and their digest (the edge set's key beside the version). */
export interface EdgeSetPayload {
  readonly path: string;
  readonly versionId: number;
  readonly digest: string;
  readonly edges: readonly EdgePayload[];
}

/**
 * The edge sets of a batch of files. A target outside the label (a node no file of the label
 * holds) is kept as unresolved: its key and name still say what it names.
 */
export function edgeSetPayloads(
  files: readonly SnapshotFile[],
  edges: readonly SnapshotEdge[],
  places: NodePlaces,
  versionOfFile: ReadonlyMap<number, number>,
): EdgeSetPayload[] {
  const byFile = groupBy(edges, (e) => e.fileId);
  return files.map((file) => {
    const rows: EdgePayload[] = [];
    for (const e of byFile.get(file.fileId) ?? []) {
      const source = places.get(e.sourceId);
      if (source === undefined) continue; // a source outside the file's nodes cannot be named
      const target = e.targetId === null ? undefined : places.get(e.targetId);
      const targetVersionId = target === undefined ? null : (versionOfFile.get(target.fileId) ?? null);
      rows.push({ sourceOrdinal: source.ordinal, edge: e, targetVersionId, targetOrdinal: targetVersionId === null ? null : target!.ordinal });
    }
    const versionId = versionOfFile.get(file.fileId)!;
    const digest = sha256(JSON.stringify(rows.map((r) => {
      const { fileId: _f, sourceId: _s, targetId: _t, ...rest } = r.edge;
      return [r.sourceOrdinal, r.targetVersionId, r.targetOrdinal, rest];
    })));
    return { path: file.path, versionId, digest, edges: rows };
  });
}
