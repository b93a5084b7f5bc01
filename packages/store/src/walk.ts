import { CONFIDENCES, type Confidence } from '@ca/schema';
import type { GraphEdge, Traversal, TraversalOptions } from './graph.js';

/** One edge a level query returns: a `GraphEdge` (its `to` already mapped into the walked label). */
export type WalkEdgeRow = GraphEdge;

/** The confidences at or above `min` (the order of `CONFIDENCES`: exact first). */
export function allowedConfidences(min: Confidence): Confidence[] {
  return CONFIDENCES.slice(0, CONFIDENCES.indexOf(min) + 1);
}

/** Use-site order: path, line, edge id. */
export function byLocation(a: { path: string; line: number; id: number }, b: { path: string; line: number; id: number }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.id - b.id;
}

/**
 * The breadth-first walk of `GraphReader.walk`, without its I/O: each `yield` hands out one
 * frontier (node ids) and takes back the edges at its near end (incoming: edges into the ids;
 * outgoing: edges out of them) of the walk's types and confidences — one query per level (and per
 * bridge round). The SQLite reader drives it synchronously, the async read contract
 * (`GraphReads`) with one awaited query per level, so both backends walk with the same rules:
 * a visited set (each node expanded once, at the depth first reached), `maxRows` applied in
 * use-site order, bridges crossed within a level, unresolved targets only one hop out.
 */
export function* walkSteps(seeds: readonly number[], options: TraversalOptions): Generator<readonly number[], Traversal, WalkEdgeRow[]> {
  const maxNodes = options.maxRows ?? 50_000;
  const incoming = options.direction === 'in';
  const depth = new Map<number, number>();
  for (const s of seeds) depth.set(s, 0);
  const seedCount = depth.size;
  const edges: GraphEdge[] = [];
  let frontier = [...depth.keys()];
  let truncated = false;
  const dropped = new Set<number>();
  const bridges = new Set<string>(options.bridges ?? []);
  for (let d = 0; d < options.depth && frontier.length > 0 && !truncated; d++) {
    const next: number[] = [];
    // A level's frontier, then the bridges it reached (crossed within the level), until none is left.
    for (let current = frontier; current.length > 0; ) {
      const rows = yield current;
      const crossed: number[] = [];
      rows.sort(byLocation);
      for (const e of rows) {
        const farId = incoming ? e.from : e.to;
        // Unresolved targets are reported only one hop out from the seeds.
        if (farId === null && d !== 0) continue;
        if (farId !== null && !depth.has(farId)) {
          if (depth.size - seedCount >= maxNodes) {
            truncated = true;
            dropped.add(farId);
            continue;
          }
          depth.set(farId, d + 1);
          if (bridges.has(e.type)) crossed.push(farId);
          else next.push(farId);
        }
        edges.push(e);
      }
      // A bridge is expanded here, in its own level: not again in the next one.
      current = crossed;
    }
    frontier = next;
  }
  edges.sort(byLocation);
  return { depth, edges, truncated, reached: depth.size - seedCount + dropped.size };
}

/** Runs `walkSteps` over an async level query (one awaited query per level). */
export async function walkAsync(
  seeds: readonly number[],
  options: TraversalOptions,
  level: (ids: readonly number[]) => Promise<WalkEdgeRow[]>,
): Promise<Traversal> {
  const steps = walkSteps(seeds, options);
  for (let step = steps.next(); ; step = steps.next(await level(step.value))) if (step.done) return step.value;
}
