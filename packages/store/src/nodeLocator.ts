import type { SqliteDatabase } from './database.js';
import { labelEntriesCondition } from './labelScope.js';

/** A declaration node as seen from one file (partial fragments contribute their own span). */
export interface SpanNode {
  readonly id: number;
  readonly fileId: number;
  readonly kind: string;
  readonly name: string;
  readonly symbolKey: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
}

/**
 * Finds the syntactic node a compiler-reported declaration or use site belongs to, by file and
 * position: the innermost node whose span (in that file) contains the line, preferring one of
 * the same kind and name. Loads each file's nodes once.
 */
export class NodeLocator {
  private readonly byPath = new Map<string, SpanNode[]>();
  private readonly fileIdOf = new Map<string, number>();
  private readonly stmt;
  private readonly spanStmt;
  private readonly fileStmt;

  constructor(db: SqliteDatabase, label: string) {
    this.fileStmt = db.prepare(
      `SELECT lf.file_id AS id FROM label_files lf WHERE ${labelEntriesCondition()} AND lf.path = ?`,
    );
    this.stmt = db.prepare(
      `SELECT id, file_id, kind, name, symbol_key, start_line, end_line, start_byte, end_byte FROM nodes WHERE file_id = ?`,
    );
    this.spanStmt = db.prepare(
      `SELECT n.id, s.file_id, n.kind, n.name, n.symbol_key, s.start_line, s.end_line, s.start_byte, s.end_byte
       FROM node_spans s JOIN nodes n ON n.id = s.node_id WHERE s.file_id = ?`,
    );
    this.label = label;
  }

  private readonly label: string;

  fileId(path: string): number | null {
    let id = this.fileIdOf.get(path);
    if (id === undefined) {
      const row = this.fileStmt.get(this.label, path) as { id: number } | undefined;
      id = row ? row.id : -1;
      this.fileIdOf.set(path, id);
    }
    return id < 0 ? null : id;
  }

  nodes(path: string): SpanNode[] {
    let list = this.byPath.get(path);
    if (list) return list;
    const fileId = this.fileId(path);
    list = [];
    if (fileId !== null) {
      type Row = { id: number; file_id: number; kind: string; name: string; symbol_key: string; start_line: number; end_line: number; start_byte: number; end_byte: number };
      const rows = [...(this.stmt.all(fileId) as Row[]), ...(this.spanStmt.all(fileId) as Row[])];
      list = rows.map((r) => ({
        id: r.id,
        fileId: r.file_id,
        kind: r.kind,
        name: r.name,
        symbolKey: r.symbol_key,
        startLine: r.start_line,
        endLine: r.end_line,
        startByte: r.start_byte,
        endByte: r.end_byte,
      }));
    }
    this.byPath.set(path, list);
    return list;
  }

  /** The innermost node containing `line`; with kind/name hints, matching ones win. */
  locate(path: string, line: number, hint?: { kind?: string; name?: string; requireMatch?: boolean }): SpanNode | null {
    let best: SpanNode | null = null;
    let bestScore = -1;
    for (const n of this.nodes(path)) {
      if (line < n.startLine || line > n.endLine) continue;
      // An endpoint spans its attribute or Map call: no compiler reports it or uses inside it.
      if (n.kind === 'endpoint') continue;
      const isFile = n.kind === 'file' || n.kind === 'module';
      let score = 0;
      if (hint?.kind && n.kind === hint.kind) score += 2;
      if (hint?.name && n.name === hint.name) score += 1;
      if (hint?.requireMatch && score === 0) continue;
      if (isFile && hint?.requireMatch) continue;
      const better =
        best === null ||
        score > bestScore ||
        (score === bestScore && n.endByte - n.startByte < best.endByte - best.startByte);
      if (better) {
        best = n;
        bestScore = score;
      }
    }
    return best;
  }
}
