import { CONFIDENCES, type Confidence, type EdgeType } from '@ca/schema';
import type { SqliteDatabase } from './database.js';

export type Direction = 'in' | 'out';

export interface TraversalOptions {
  readonly direction: Direction;
  readonly types: readonly EdgeType[];
  readonly minConfidence: Confidence;
  readonly depth: number;
  /** Upper bound on nodes the walk may reach (guards dense graphs); default 50,000. */
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
 * Graph walks over resolved edges: a breadth-first search, one indexed query per level over
 * the frontier, with a visited set — each node is expanded once, at the depth it is first
 * reached, so cycles and diamonds cost nothing extra (a recursive CTE deduplicates
 * (node, depth) pairs only and re-expands hubs at every depth; measured 2.4 s p95 for impact
 * depth 5 at 100K nodes against milliseconds here). `maxNodes` caps the walk (`truncated`).
 */
export class GraphReader {
  constructor(private readonly db: SqliteDatabase) {}

  walk(seeds: readonly number[], options: TraversalOptions): Traversal {
    const confs = allowedConfidences(options.minConfidence);
    const typeList = options.types.map(() => '?').join(',');
    const confList = confs.map(() => '?').join(',');
    const maxNodes = options.maxRows ?? 50_000;
    const [near, far] = options.direction === 'in' ? ['target_id', 'source_id'] : ['source_id', 'target_id'];
    const depth = new Map<number, number>();
    for (const s of seeds) depth.set(s, 0);
    const edges: GraphEdge[] = [];
    let frontier = [...new Set(seeds)];
    let truncated = false;
    type Row = { id: number; source_id: number; target_id: number | null; type: string; confidence: string; line: number; target_name: string; path: string };
    for (let d = 0; d < options.depth && frontier.length > 0 && !truncated; d++) {
      const next: number[] = [];
      for (let i = 0; i < frontier.length; i += 500) {
        const chunk = frontier.slice(i, i + 500);
        const rows = this.db
          .prepare(
            `SELECT e.id, e.source_id, e.target_id, e.type, e.confidence, e.line, e.target_name, f.path
             FROM edges e JOIN files f ON f.id = e.file_id
             WHERE e.${near} IN (${chunk.map(() => '?').join(',')}) AND e.type IN (${typeList}) AND e.confidence IN (${confList})
             ORDER BY f.path, e.line, e.id`,
          )
          .all(...chunk, ...options.types, ...confs) as Row[];
        for (const e of rows) {
          const farId = (options.direction === 'in' ? e.source_id : e.target_id) as number | null;
          // Unresolved targets are reported only one hop out from the seeds.
          if (farId === null && d !== 0) continue;
          if (farId !== null && !depth.has(farId)) {
            if (depth.size >= maxNodes) {
              truncated = true;
              continue;
            }
            depth.set(farId, d + 1);
            next.push(farId);
          }
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
      frontier = next;
    }
    edges.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.id - b.id));
    return { depth, edges, truncated };
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
         WHERE f.language IN (${languages.map(() => '?').join(',')}) AND f.semantic_state IN ('none','pending','failed')
           AND f.parse_status IN ('ok', 'partial', 'error')
         GROUP BY f.project, f.language, f.semantic_state ORDER BY f.project`,
      )
      .all(label, ...languages) as { project: string; language: string; state: string; reason: string | null; files: number }[];
  }
}
