/**
 * Graphs out of the index: the whole graph of a label or the part a filter selects (`ca graph`),
 * streamed through the one serializer (graphFormat.ts), and navigation answers drawn by it.
 */
import { EDGE_TYPES, parseFilter, CaError } from '@ca/schema';
import type { GraphReader, IndexReader } from '@ca/store';
import { GraphWriter, renderGraphText, type GraphEdgeOut, type GraphFormat, type GraphNodeOut } from './graphFormat.js';
import type { NavigationResult } from './navigation.js';

/** Nodes `ca graph` writes unless `--max-nodes` says otherwise: catches an accident, not an ordinary repository. */
export const GRAPH_DEFAULT_MAX_NODES = 200_000;

/** Source nodes whose outgoing edges are read per query. */
const EDGE_BATCH = 500;

export interface GraphExportOptions {
  /** A filter expression (the `--filter` language); the whole label without one. */
  readonly filter?: string;
  /** Most nodes written, the first in (path, position) order (default `GRAPH_DEFAULT_MAX_NODES`). */
  readonly maxNodes?: number;
}

/** What an export wrote (also what its notices say). */
export interface GraphExportReport {
  readonly nodes: number;
  /** Nodes the filter selects: more than `nodes` when the cap cut. */
  readonly totalNodes: number;
  readonly edges: number;
  /** Distinct unresolved target names written as `unresolved` nodes. */
  readonly unresolved: number;
  /** Edges not written because their target is not a written node (outside the filter, or cut by the cap). */
  readonly omittedEdges: number;
  /** Edges into written nodes from nodes not written (the other side of the boundary; each node's `inboundOutside`). */
  readonly inboundOutside: number;
  /** Written nodes that such edges reach. */
  readonly boundaryNodes: number;
  readonly truncated: boolean;
  readonly notices: readonly string[];
}

/**
 * Writes the label's graph (nodes passing the filter, every edge from them: to a written node,
 * or to an unresolved name) to `write` in `format`, reading nodes and edges in batches.
 */
export function exportGraph(graph: GraphReader, reader: IndexReader, format: GraphFormat, write: (chunk: string) => void, options: GraphExportOptions = {}): GraphExportReport {
  const maxNodes = options.maxNodes ?? GRAPH_DEFAULT_MAX_NODES;
  if (!Number.isInteger(maxNodes) || maxNodes < 1) throw new CaError('usage', `--max-nodes must be a positive integer (got ${String(options.maxNodes)})`);
  const filter = options.filter !== undefined && options.filter.trim() !== '' ? { expression: parseFilter(options.filter) } : undefined;
  const notices = [...(filter ? reader.filterNotices(filter) : [])];
  const totalNodes = reader.countExportNodes(filter);
  // Whole and uncut, nothing is outside the graph; otherwise a first pass finds what is kept, so
  // that each node can say how many edges reach it from outside before it is written.
  const bounded = filter !== undefined || totalNodes > maxNodes;
  const inbound = bounded ? inboundFromOutside(graph, reader, keptIds(reader, filter, maxNodes)) : new Map<number, number>();
  const writer = new GraphWriter(format, write);
  const kept: number[] = [];
  for (const batch of reader.exportNodes(filter, maxNodes)) {
    for (const n of batch) {
      kept.push(n.id);
      writer.node({ ...n, id: String(n.id), inboundOutside: inbound.get(n.id) ?? 0 });
    }
  }
  const keptSet = new Set(kept);
  let edges = 0;
  let omittedEdges = 0;
  const unresolved = new Set<string>();
  for (let i = 0; i < kept.length; i += EDGE_BATCH) {
    const walk = graph.walk(kept.slice(i, i + EDGE_BATCH), { direction: 'out', types: EDGE_TYPES, minConfidence: 'approximate', depth: 1, maxRows: Number.MAX_SAFE_INTEGER, label: reader.label });
    for (const e of walk.edges) {
      if (e.to !== null && !keptSet.has(e.to)) {
        omittedEdges++;
        continue;
      }
      if (e.to === null) unresolved.add(e.targetName);
      writer.edge({ from: String(e.from), to: e.to === null ? null : String(e.to), type: e.type, confidence: e.confidence, path: e.path, line: e.line, targetName: e.targetName });
      edges++;
    }
  }
  const truncated = kept.length < totalNodes;
  // An empty export is valid in every format; the notice keeps it from passing for an empty repository.
  if (totalNodes === 0) notices.push(filter ? 'the filter selects no nodes: the graph is empty' : 'the label holds no nodes: the graph is empty');
  if (truncated) notices.push(`kept the first ${kept.length} of ${totalNodes} nodes in path order (--max-nodes ${maxNodes})`);
  if (omittedEdges > 0) {
    notices.push(`${omittedEdges} edge${omittedEdges === 1 ? '' : 's'} to nodes not in this graph (outside the filter${truncated ? ' or cut by --max-nodes' : ''}) not written`);
  }
  const inboundOutside = [...inbound.values()].reduce((a, b) => a + b, 0);
  if (inboundOutside > 0) {
    notices.push(`${inboundOutside} edge${inboundOutside === 1 ? '' : 's'} from nodes not in this graph (outside the filter${truncated ? ' or cut by --max-nodes' : ''}) into ${inbound.size} of its nodes, not written: each node's inboundOutside counts them`);
  }
  writer.end({ truncated, notices });
  return { nodes: kept.length, totalNodes, edges, unresolved: unresolved.size, omittedEdges, inboundOutside, boundaryNodes: inbound.size, truncated, notices };
}

/** The ids an export keeps (the filter's nodes, the first `maxNodes` in path order). */
function keptIds(reader: IndexReader, filter: Parameters<IndexReader['exportNodes']>[0], maxNodes: number): Set<number> {
  const ids = new Set<number>();
  for (const batch of reader.exportNodes(filter, maxNodes)) for (const n of batch) ids.add(n.id);
  return ids;
}

/** Per kept node, the edges into it whose source is not kept (only nodes with some). */
function inboundFromOutside(graph: GraphReader, reader: IndexReader, kept: ReadonlySet<number>): Map<number, number> {
  const counts = new Map<number, number>();
  const ids = [...kept];
  for (let i = 0; i < ids.length; i += EDGE_BATCH) {
    const walk = graph.walk(ids.slice(i, i + EDGE_BATCH), { direction: 'in', types: EDGE_TYPES, minConfidence: 'approximate', depth: 1, maxRows: Number.MAX_SAFE_INTEGER, label: reader.label });
    for (const e of walk.edges) {
      if (e.to === null || kept.has(e.from)) continue;
      counts.set(e.to, (counts.get(e.to) ?? 0) + 1);
    }
  }
  return counts;
}

/**
 * A navigation answer (or one page of it) drawn in `format`: the symbol, the nodes it reached and
 * its edges; its notices, the node cap and the completeness gaps are written inside the format.
 */
export function renderNavigationGraph(result: NavigationResult & { notices?: readonly string[] }, format: GraphFormat): string {
  const nodes = new Map<string, GraphNodeOut>([[result.symbol.id, graphNode(result.symbol)]]);
  for (const n of result.nodes) if (!nodes.has(n.id)) nodes.set(n.id, graphNode(n));
  // Seeds besides the symbol (a file's or a class's members) are not in `nodes`: an edge from one
  // still needs its end, written with what the edge knows.
  const edges: GraphEdgeOut[] = result.edges.map((e) => ({ ...e }));
  for (const e of edges) {
    for (const id of [e.from, e.to]) {
      if (id !== null && !nodes.has(id)) nodes.set(id, { id, kind: 'unknown', name: `#${id}`, qualifiedName: `#${id}`, path: id === e.from ? e.path : '', startLine: 0, endLine: 0, language: result.symbol.language });
    }
  }
  const notices = [...(result.notices ?? [])];
  if (result.truncated) notices.push(`kept the nearest ${result.maxNodes} of at least ${result.totalReached} reached nodes (--max-nodes)`);
  if (!result.complete) for (const g of result.gaps) notices.push(`incomplete: ${g.scope}: ${g.reason}`);
  return renderGraphText(format, nodes.values(), edges, { truncated: result.truncated, notices });
}

function graphNode(n: GraphNodeOut): GraphNodeOut {
  return { id: n.id, kind: n.kind, name: n.name, qualifiedName: n.qualifiedName, path: n.path, startLine: n.startLine, endLine: n.endLine, language: n.language };
}
