import type { EdgeType } from '@ca/schema';
import { selectAll, selectOne } from './statements.js';
import { inLabelJoin } from './labelScope.js';
import { FILE_SUMMARY_COLUMNS, SPAN_COLUMNS, toFileSummary, toSpan, type FileSummary, type FileSummaryRow, type SpanRecord, type SpanRow } from './rows.js';
import type { SqliteDatabase } from './database.js';

/** One more span of a symbol (a partial class part, a merged declaration) beyond its primary one. */
export type ExtraSpan = SpanRecord;

/** Edges of one node by type and direction, counted in the label. */
export interface EdgeCounts {
  /** Incoming edges per type: distinct source symbols (`calls` here is the number of callers). */
  readonly incoming: Partial<Record<EdgeType, number>>;
  /** Outgoing edges per type: distinct targets (a resolved node, or the name when unresolved). */
  readonly outgoing: Partial<Record<EdgeType, number>>;
}

export type { FileSummary } from './rows.js';

/** Distinct other ends per edge type. */
interface TypeCountRow {
  type: EdgeType;
  n: number;
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
    return selectAll<SpanRow>(
      this.db,
      `SELECT ${SPAN_COLUMNS} FROM node_spans s JOIN files f ON f.id = s.file_id
       ${inLabelJoin('s.file_id')}
       WHERE s.node_id = ? ORDER BY f.path, s.start_byte`,
      this.label,
      nodeId,
    ).map(toSpan);
  }

  /** Incoming and outgoing edges of `nodeId` per type, counting distinct other ends, in the label. */
  edgeCounts(nodeId: number): EdgeCounts {
    const inLabel = inLabelJoin('e.file_id');
    const incoming = selectAll<TypeCountRow>(
      this.db,
      `SELECT e.type, COUNT(DISTINCT e.source_id) AS n FROM edges e ${inLabel} WHERE e.target_id = ? AND e.source_id <> e.target_id GROUP BY e.type`,
      this.label,
      nodeId,
    );
    const outgoing = selectAll<TypeCountRow>(
      this.db,
      `SELECT e.type, COUNT(DISTINCT COALESCE(CAST(e.target_id AS TEXT), e.target_key)) AS n FROM edges e ${inLabel}
       WHERE e.source_id = ? AND (e.target_id IS NULL OR e.target_id <> e.source_id) GROUP BY e.type`,
      this.label,
      nodeId,
    );
    const byType = (rows: TypeCountRow[]) => Object.fromEntries(rows.filter((r) => r.type !== 'contains').map((r) => [r.type, r.n]));
    return { incoming: byType(incoming), outgoing: byType(outgoing) };
  }

  /** Every file of the label with its language, lines and symbol count, by path. */
  files(): FileSummary[] {
    return selectAll<FileSummaryRow>(this.db, `SELECT ${FILE_SUMMARY_COLUMNS} FROM files f ${inLabelJoin('f.id')} ORDER BY f.path`, this.label).map(toFileSummary);
  }

  /** One file of the label as `files()` describes it, or null when the label does not hold it. */
  file(path: string): FileSummary | null {
    const row = selectOne<FileSummaryRow>(this.db, `SELECT ${FILE_SUMMARY_COLUMNS} FROM files f ${inLabelJoin('f.id')} WHERE f.path = ?`, this.label, path);
    return row ? toFileSummary(row) : null;
  }

  /** The `imports` edges made in `paths` (any node of those files), by path then line. */
  importsOf(paths: readonly string[]): FileImport[] {
    if (paths.length === 0) return [];
    const rows = selectAll<{ path: string; line: number; target_name: string; specifier: string | null; target_path: string | null }>(
      this.db,
      `SELECT f.path, e.line, e.target_name, e.specifier, tf.path AS target_path FROM edges e
       JOIN files f ON f.id = e.file_id
       ${inLabelJoin('f.id')}
       LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id
       WHERE e.type = 'imports' AND f.path IN (SELECT value FROM json_each(?))
       ORDER BY f.path, e.line, e.target_name`,
      this.label,
      JSON.stringify(paths),
    );
    return rows.map((r) => ({ path: r.path, line: r.line, targetName: r.target_name, specifier: r.specifier, targetPath: r.target_path }));
  }
}
