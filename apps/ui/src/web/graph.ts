import type { NavigationEdge, NavigationNode } from '@ca/engine';
import { s } from './dom.js';

const COL_W = 320;
const ROW_H = 26;
const NODE_W = 280;
const NODE_H = 20;
const GROUP_GAP = 30;

/** How the graph gathers its symbols inside a column: by file, or by package (package.json for TS, the project for C#). */
export type GroupBy = 'file' | 'package';

export interface GraphNode extends Pick<NavigationNode, 'id' | 'qualifiedName' | 'kind' | 'path' | 'startLine' | 'depth'> {
  /** The package or project of the node's file ('' at the repository root). */
  readonly project: string;
}

export interface Placed {
  readonly node: GraphNode;
  readonly x: number;
  readonly y: number;
}

/** A group's box in one column (a group spanning several columns has one box in each). */
export interface GroupBox {
  readonly key: string;
  readonly x: number;
  readonly y: number;
  readonly height: number;
}

export interface Layout {
  readonly placed: Map<string, Placed>;
  readonly boxes: readonly GroupBox[];
  /** Distinct groups drawn (a group is counted once however many columns it spans). */
  readonly groups: number;
  readonly width: number;
  readonly height: number;
}

/** The group a node belongs to, as its box is titled. */
export function groupKey(n: GraphNode, by: GroupBy): string {
  if (by === 'file') return n.path;
  return n.project === '' ? '(repository root)' : n.project;
}

/**
 * Columns by hops from the symbol (the answer's `depth`: no force layout), each column's symbols
 * gathered by group and ordered by path and line. One sort per column, so drawing 1,000 nodes
 * costs n log n once; panning and zooming only move one transform.
 */
export function layout(nodes: readonly GraphNode[], by: GroupBy): Layout {
  const columns = new Map<number, GraphNode[]>();
  for (const n of nodes) {
    const col = columns.get(n.depth);
    if (col) col.push(n);
    else columns.set(n.depth, [n]);
  }
  const placed = new Map<string, Placed>();
  const boxes: GroupBox[] = [];
  const keys = new Set<string>();
  let height = 0;
  for (const [depth, col] of columns) {
    const keyed = col.map((n) => ({ n, key: groupKey(n, by) }));
    keyed.sort((a, b) => (a.key !== b.key ? (a.key < b.key ? -1 : 1) : a.n.path !== b.n.path ? (a.n.path < b.n.path ? -1 : 1) : a.n.startLine - b.n.startLine));
    const x = depth * COL_W;
    let y = 0;
    let key: string | null = null;
    let top = 0;
    for (const k of keyed) {
      if (k.key !== key) {
        if (key !== null) boxes.push({ key, x, y: top, height: y - top });
        key = k.key;
        y += GROUP_GAP;
        top = y - 18;
        keys.add(key);
      }
      placed.set(k.n.id, { node: k.n, x, y });
      y += ROW_H;
    }
    if (key !== null) boxes.push({ key, x, y: top, height: y - top });
    height = Math.max(height, y);
  }
  return { placed, boxes, groups: keys.size, width: (Math.max(0, ...columns.keys()) + 1) * COL_W, height };
}

/** What the graph shows by default: approximate (name-matched) edges folded, and the nodes only they reach. */
export interface Folded {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly NavigationEdge[];
  readonly foldedNodes: number;
  readonly foldedEdges: number;
}

/**
 * Folds the approximate edges: the nodes kept are those the symbol (depth 0) reaches through
 * exact and probable edges, in either direction; the edges kept join two kept nodes and are not
 * approximate. With `showApproximate` everything is kept.
 */
export function foldApproximate(nodes: readonly GraphNode[], edges: readonly NavigationEdge[], showApproximate: boolean): Folded {
  if (showApproximate) return { nodes, edges, foldedNodes: 0, foldedEdges: 0 };
  const sure = edges.filter((e) => e.confidence !== 'approximate' && e.to !== null);
  const next = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    const list = next.get(a);
    if (list) list.push(b);
    else next.set(a, [b]);
  };
  for (const e of sure) {
    link(e.from, e.to!);
    link(e.to!, e.from);
  }
  const reached = new Set(nodes.filter((n) => n.depth === 0).map((n) => n.id));
  const queue = [...reached];
  for (let i = 0; i < queue.length; i++) {
    for (const m of next.get(queue[i]!) ?? []) {
      if (!reached.has(m)) {
        reached.add(m);
        queue.push(m);
      }
    }
  }
  const keptNodes = nodes.filter((n) => reached.has(n.id));
  const keptEdges = sure.filter((e) => reached.has(e.from) && reached.has(e.to!));
  return { nodes: keptNodes, edges: keptEdges, foldedNodes: nodes.length - keptNodes.length, foldedEdges: edges.length - keptEdges.length };
}

/** A name cut from the left to `max` characters (the end of a path or qualified name says most). */
function label(name: string, max = 40): string {
  return name.length > max ? `…${name.slice(-(max - 1))}` : name;
}

export interface DrawnGraph {
  readonly svg: SVGSVGElement;
  readonly root: SVGElement;
  readonly layout: Layout;
  readonly nodeEls: Map<string, SVGElement>;
  readonly edgeEls: { el: SVGElement; from: string; to: string }[];
}

/**
 * The graph's SVG: group boxes titled by file or package, nodes as boxes with their names (text
 * nodes), edges as curves from dependent to dependency styled and titled by their confidence.
 */
export function graphSvg(nodes: readonly GraphNode[], edges: readonly NavigationEdge[], by: GroupBy): DrawnGraph {
  const lay = layout(nodes, by);
  const root = s('g', { class: 'viewport' });
  const groupLayer = s('g', { class: 'groups' });
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  for (const b of lay.boxes) {
    groupLayer.append(
      s('rect', { class: 'group', x: b.x - 8, y: b.y - 4, width: NODE_W + 16, height: b.height + 8, rx: 6 }),
      s('text', { class: 'group-label', x: b.x - 2, y: b.y + 8 }, label(b.key, 48)),
    );
  }
  const edgeEls: { el: SVGElement; from: string; to: string }[] = [];
  for (const e of edges) {
    const a = lay.placed.get(e.from);
    const b = e.to === null ? undefined : lay.placed.get(e.to);
    if (!a || !b || a === b) continue;
    const [x1, y1, x2, y2] = a.x > b.x ? [a.x, a.y + NODE_H / 2, b.x + NODE_W, b.y + NODE_H / 2] : [a.x + NODE_W, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2];
    const mx = (x1 + x2) / 2;
    const el = s('path', { d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, class: `edge conf-${e.confidence}`, 'data-confidence': e.confidence }, s('title', {}, `${e.type} (${e.confidence}) ${e.path}:${e.line}`));
    edgeLayer.append(el);
    edgeEls.push({ el, from: e.from, to: e.to! });
  }
  const nodeEls = new Map<string, SVGElement>();
  for (const p of lay.placed.values()) {
    const g = s(
      'g',
      { class: p.node.depth === 0 ? 'node root' : 'node', transform: `translate(${p.x},${p.y})`, 'data-id': p.node.id },
      s('title', {}, `${p.node.qualifiedName} (${p.node.kind}) ${p.node.path}:${p.node.startLine}`),
      s('rect', { width: NODE_W, height: NODE_H, rx: 4 }),
      s('text', { x: 6, y: 14 }, label(p.node.qualifiedName)),
    );
    nodeLayer.append(g);
    nodeEls.set(p.node.id, g);
  }
  root.append(groupLayer, edgeLayer, nodeLayer);
  const svg = s('svg', { class: 'graph', xmlns: 'http://www.w3.org/2000/svg', 'data-width': lay.width, 'data-height': lay.height }, root) as SVGSVGElement;
  return { svg, root, layout: lay, nodeEls, edgeEls };
}

/** The center of a placed node (to focus it). */
export function nodeCenter(p: Placed): { x: number; y: number } {
  return { x: p.x + NODE_W / 2, y: p.y + NODE_H / 2 };
}

/** Pan (drag) and zoom (wheel, around the pointer) of the graph's viewport: each event rewrites one transform, nothing is laid out again. */
export function panZoom(svg: SVGSVGElement, root: SVGElement): { center(x: number, y: number): void; fit(width: number, height: number): void } {
  let x = 20;
  let y = 20;
  let k = 1;
  const apply = () => root.setAttribute('transform', `translate(${x},${y}) scale(${k})`);
  svg.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      const px = e.clientX - r.left;
      const py = e.clientY - r.top;
      const k2 = Math.min(4, Math.max(0.05, k * Math.exp(-e.deltaY * 0.0015)));
      x = px - ((px - x) * k2) / k;
      y = py - ((py - y) * k2) / k;
      k = k2;
      apply();
    },
    { passive: false },
  );
  let drag: { sx: number; sy: number; x: number; y: number } | null = null;
  svg.addEventListener('pointerdown', (e) => {
    drag = { sx: e.clientX, sy: e.clientY, x, y };
  });
  svg.addEventListener('pointermove', (e) => {
    if (!drag) return;
    x = drag.x + e.clientX - drag.sx;
    y = drag.y + e.clientY - drag.sy;
    apply();
  });
  const end = () => (drag = null);
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointerleave', end);
  apply();
  return {
    center(cx, cy) {
      const r = svg.getBoundingClientRect();
      x = r.width / 2 - cx * k;
      y = r.height / 2 - cy * k;
      apply();
    },
    fit(width, height) {
      const r = svg.getBoundingClientRect();
      k = Math.min(1, Math.max(0.05, Math.min((r.width - 40) / Math.max(1, width), (r.height - 40) / Math.max(1, height))));
      x = 20;
      y = 20;
      apply();
    },
  };
}
