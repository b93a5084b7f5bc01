import type { EdgeType } from '@ca/schema';
import { cachedStatement } from './statements.js';
import type { SqliteDatabase } from './database.js';

/** One more span of a symbol (a partial class part, a merged declaration) beyond its primary one. */
export interface ExtraSpan {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
}

/** Edges of one node by type and direction, counted in the label. */
export interface EdgeCounts {
  /** Incoming edges per type: distinct source symbols (`calls` here is the number of callers). */
  readonly incoming: Partial<Record<EdgeType, number>>;
  /** Outgoing edges per type: distinct targets (a resolved node, or the name when unresolved). */
  readonly outgoing: Partial<Record<EdgeType, number>>;
}

/** A file of the label with what explore answers print about it. */
export interface FileSummary {
  readonly path: string;
  readonly language: string | null;
  readonly lineCount: number;
  /** Symbols in the file (file and module nodes not counted). */
  readonly symbols: number;
}

/** An `imports` edge of a file, as written at its use site. */
export interface FileImport {
  readonly path: string;
  readonly line: number;
  readonly targetName: string;
  /** The module specifier as written (`react`, `./tokenStore`), when the extractor kept it. */
  readonly specifier: string | null;
  /** The file the import resolved to, or null (a package, an unresolved module). */
  readonly targetPath: string | null;
}

/**
 * Intent-level reads for the explore tools (outline trees, symbol metadata, directory ranking,
 * symbol maps): counts and joins that `IndexReader` does not answer, scoped to one label.
 * Obtained from `Store.explore(label)`.
 */
export class ExploreReader {
  constructor(
    private readonly db: SqliteDatabase,
    readonly label = 'working',
  ) {}

  /** The spans of `nodeId` other than its primary one, by path then position. */
  extraSpans(nodeId: number): ExtraSpan[] {
    const rows = cachedStatement(
      this.db,
      `SELECT f.path, s.start_line, s.end_line, s.start_byte, s.end_byte FROM node_spans s JOIN files f ON f.id = s.file_id
       JOIN label_files lf ON lf.file_id = s.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)
       WHERE s.node_id = ? ORDER BY f.path, s.start_byte`,
    ).all(this.label, nodeId) as { path: string; start_line: number; end_line: number; start_byte: number; end_byte: number }[];
    return rows.map((r) => ({ path: r.path, startLine: r.start_line, endLine: r.end_line, startByte: r.start_byte, endByte: r.end_byte }));
  }

  /** Incoming and outgoing edges of `nodeId` per type, counting distinct other ends, in the label. */
  edgeCounts(nodeId: number): EdgeCounts {
    const inLabel = `JOIN label_files lf ON lf.file_id = e.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)`;
    const incoming = cachedStatement(
      this.db,
      `SELECT e.type, COUNT(DISTINCT e.source_id) AS n FROM edges e ${inLabel} WHERE e.target_id = ? AND e.source_id <> e.target_id GROUP BY e.type`,
    ).all(this.label, nodeId) as { type: EdgeType; n: number }[];
    const outgoing = cachedStatement(
      this.db,
      `SELECT e.type, COUNT(DISTINCT COALESCE(CAST(e.target_id AS TEXT), e.target_key)) AS n FROM edges e ${inLabel}
       WHERE e.source_id = ? AND (e.target_id IS NULL OR e.target_id <> e.source_id) GROUP BY e.type`,
    ).all(this.label, nodeId) as { type: EdgeType; n: number }[];
    const byType = (rows: { type: EdgeType; n: number }[]) => Object.fromEntries(rows.filter((r) => r.type !== 'contains').map((r) => [r.type, r.n]));
    return { incoming: byType(incoming), outgoing: byType(outgoing) };
  }

  /** Every file of the label with its language, lines and symbol count, by path. */
  files(): FileSummary[] {
    const rows = cachedStatement(
      this.db,
      `SELECT f.path, f.language, f.line_count,
         (SELECT COUNT(*) FROM nodes n WHERE n.file_id = f.id AND n.kind NOT IN ('file','module')) AS symbols
       FROM files f JOIN label_files lf ON lf.file_id = f.id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)
       ORDER BY f.path`,
    ).all(this.label) as { path: string; language: string | null; line_count: number; symbols: number }[];
    return rows.map((r) => ({ path: r.path, language: r.language, lineCount: r.line_count, symbols: r.symbols }));
  }

  /** One file of the label as `files()` describes it, or null when the label does not hold it. */
  file(path: string): FileSummary | null {
    const row = cachedStatement(
      this.db,
      `SELECT f.path, f.language, f.line_count,
         (SELECT COUNT(*) FROM nodes n WHERE n.file_id = f.id AND n.kind NOT IN ('file','module')) AS symbols
       FROM files f JOIN label_files lf ON lf.file_id = f.id AND lf.label_id = (SELECT id FROM labels WHERE name = ?) WHERE f.path = ?`,
    ).get(this.label, path) as { path: string; language: string | null; line_count: number; symbols: number } | undefined;
    return row ? { path: row.path, language: row.language, lineCount: row.line_count, symbols: row.symbols } : null;
  }

  /** The `imports` edges made in `paths` (any node of those files), by path then line. */
  importsOf(paths: readonly string[]): FileImport[] {
    if (paths.length === 0) return [];
    const rows = cachedStatement(
      this.db,
      `SELECT f.path, e.line, e.target_name, e.specifier, tf.path AS target_path FROM edges e
       JOIN files f ON f.id = e.file_id
       JOIN label_files lf ON lf.file_id = f.id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)
       LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id
       WHERE e.type = 'imports' AND f.path IN (SELECT value FROM json_each(?))
       ORDER BY f.path, e.line, e.target_name`,
    ).all(this.label, JSON.stringify(paths)) as { path: string; line: number; target_name: string; specifier: string | null; target_path: string | null }[];
    return rows.map((r) => ({ path: r.path, line: r.line, targetName: r.target_name, specifier: r.specifier, targetPath: r.target_path }));
  }
}
