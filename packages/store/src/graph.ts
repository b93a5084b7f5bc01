import { CONFIDENCES, type Confidence, type EdgeType } from '@ca/schema';
import type { SqliteDatabase } from './database.js';

export type Direction = 'in' | 'out';

export interface TraversalOptions {
  readonly direction: Direction;
  readonly types: readonly EdgeType[];
  readonly minConfidence: Confidence;
  readonly depth: number;
  /** Upper bound on (node, depth) rows the walk may produce (guards dense graphs). */
  readonly maxRows?: number;
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
}

function allowedConfidences(min: Confidence): Confidence[] {
  return CONFIDENCES.slice(0, CONFIDENCES.indexOf(min) + 1);
}

/**
 * Graph walks over resolved edges with a recursive CTE. The CTE's UNION (not UNION ALL) over
 * (node, depth) plus the depth bound is the cycle guard: a cycle can revisit a node only at a
 * greater depth, and depth stops at `options.depth`.
 */
export class GraphReader {
  constructor(private readonly db: SqliteDatabase) {}

  walk(seeds: readonly number[], options: TraversalOptions): Traversal {
    const confs = allowedConfidences(options.minConfidence);
    const typeList = options.types.map(() => '?').join(',');
    const confList = confs.map(() => '?').join(',');
    const maxRows = options.maxRows ?? 200_000;
    const [near, far] = options.direction === 'in' ? ['target_id', 'source_id'] : ['source_id', 'target_id'];
    const rows = this.db
      .prepare(
        `WITH RECURSIVE reach(id, depth) AS (
           SELECT value, 0 FROM json_each(?)
           UNION
           SELECT e.${far}, r.depth + 1 FROM reach r JOIN edges e ON e.${near} = r.id
           WHERE r.depth < ? AND e.${far} IS NOT NULL AND e.type IN (${typeList}) AND e.confidence IN (${confList})
           LIMIT ${maxRows}
         )
         SELECT id, MIN(depth) AS depth, COUNT(*) AS n FROM reach GROUP BY id`,
      )
      .all(JSON.stringify(seeds), options.depth, ...options.types, ...confs) as { id: number; depth: number; n: number }[];
    const depth = new Map<number, number>();
    let total = 0;
    for (const r of rows) {
      depth.set(r.id, r.depth);
      total += r.n;
    }
    const reached = [...depth.keys()];
    const edges: GraphEdge[] = [];
    // Edges whose near end was expanded (depth < limit) and whose far end was reached.
    for (let i = 0; i < reached.length; i += 400) {
      const chunk = reached.slice(i, i + 400);
      const list = chunk.map(() => '?').join(',');
      const found = this.db
        .prepare(
          `SELECT e.id, e.source_id, e.target_id, e.type, e.confidence, e.line, e.target_name, f.path
           FROM edges e JOIN files f ON f.id = e.file_id
           WHERE e.${near} IN (${list}) AND e.type IN (${typeList}) AND e.confidence IN (${confList})
           ORDER BY f.path, e.line, e.id`,
        )
        .all(...chunk, ...options.types, ...confs) as {
        id: number;
        source_id: number;
        target_id: number | null;
        type: string;
        confidence: string;
        line: number;
        target_name: string;
        path: string;
      }[];
      for (const e of found) {
        const nearId = options.direction === 'in' ? e.target_id! : e.source_id;
        const farId = options.direction === 'in' ? e.source_id : e.target_id;
        const nearDepth = depth.get(nearId)!;
        if (nearDepth >= options.depth) continue;
        if (farId !== null && !depth.has(farId)) continue;
        // Unresolved targets are reported only one hop out from the seeds.
        if (farId === null && nearDepth !== 0) continue;
        edges.push({
          id: e.id,
          from: e.source_id,
          to: e.target_id,
          type: e.type as EdgeType,
          confidence: e.confidence as Confidence,
          path: e.path,
          line: e.line,
          targetName: e.target_name,
        });
      }
    }
    return { depth, edges, truncated: total >= maxRows };
  }

  /** Child nodes (via `contains`) of the given nodes, recursively. */
  descendants(nodeIds: readonly number[]): number[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE d(id) AS (SELECT value FROM json_each(?) UNION SELECT n.id FROM nodes n JOIN d ON n.parent_id = d.id)
         SELECT id FROM d`,
      )
      .all(JSON.stringify(nodeIds)) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** Files of the label whose semantic state is not `ok`, grouped by project and language. */
  semanticGaps(label: string, languages: readonly string[]): { project: string; language: string; state: string; reason: string | null; files: number }[] {
    if (languages.length === 0) return [];
    return this.db
      .prepare(
        `SELECT f.project, f.language, f.semantic_state AS state, MIN(f.semantic_reason) AS reason, COUNT(*) AS files
         FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
         WHERE f.language IN (${languages.map(() => '?').join(',')}) AND f.semantic_state <> 'ok'
           AND f.parse_status IN ('ok', 'partial', 'error')
         GROUP BY f.project, f.language, f.semantic_state ORDER BY f.project`,
      )
      .all(label, ...languages) as { project: string; language: string; state: string; reason: string | null; files: number }[];
  }
}
