import type { NavigationEdge, NavigationNode } from '@ca/engine';
import { s } from './dom.js';

const COL_W = 320;
const ROW_H = 26;
const NODE_W = 280;
const NODE_H = 20;
const FILE_GAP = 22;

export interface GraphNode extends Pick<NavigationNode, 'id' | 'qualifiedName' | 'kind' | 'path' | 'startLine' | 'depth'> {}

interface Placed {
  readonly node: GraphNode;
  readonly x: number;
  readonly y: number;
}

/** Columns by hops from the symbol, each grouped by file (a file label above its symbols). */
export function layout(nodes: readonly GraphNode[]): { placed: Map<string, Placed>; files: { path: string; x: number; y: number }[]; width: number; height: number } {
  const columns = new Map<number, GraphNode[]>();
  for (const n of nodes) columns.set(n.depth, [...(columns.get(n.depth) ?? []), n]);
  const placed = new Map<string, Placed>();
  const files: { path: string; x: number; y: number }[] = [];
  let height = 0;
  for (const [depth, col] of columns) {
    col.sort((a, b) => (a.path === b.path ? a.startLine - b.startLine : a.path < b.path ? -1 : 1));
    let y = 0;
    let file: string | null = null;
    const x = depth * COL_W;
    for (const n of col) {
      if (n.path !== file) {
        file = n.path;
        y += FILE_GAP;
        files.push({ path: n.path, x, y: y - 6 });
      }
      placed.set(n.id, { node: n, x, y });
      y += ROW_H;
    }
    height = Math.max(height, y);
  }
  return { placed, files, width: (Math.max(0, ...columns.keys()) + 1) * COL_W, height };
}

function label(name: string): string {
  return name.length > 40 ? `…${name.slice(-39)}` : name;
}

/** The graph's SVG: nodes as boxes with their names (text nodes), edges as curves from dependent to dependency. */
export function graphSvg(nodes: readonly GraphNode[], edges: readonly NavigationEdge[]): { svg: SVGSVGElement; root: SVGElement; nodeEls: Map<string, SVGElement>; edgeEls: { el: SVGElement; from: string; to: string }[] } {
  const { placed, files, width, height } = layout(nodes);
  const root = s('g', { class: 'viewport' });
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  const edgeEls: { el: SVGElement; from: string; to: string }[] = [];
  for (const e of edges) {
    const a = placed.get(e.from);
    const b = e.to === null ? undefined : placed.get(e.to);
    if (!a || !b || a === b) continue;
    const [x1, y1, x2, y2] = a.x > b.x ? [a.x, a.y + NODE_H / 2, b.x + NODE_W, b.y + NODE_H / 2] : [a.x + NODE_W, a.y + NODE_H / 2, b.x, b.y + NODE_H / 2];
    const mx = (x1 + x2) / 2;
    const el = s('path', { d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, class: `edge conf-${e.confidence}` });
    edgeLayer.append(el);
    edgeEls.push({ el, from: e.from, to: e.to! });
  }
  const nodeEls = new Map<string, SVGElement>();
  for (const p of placed.values()) {
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
  for (const f of files) nodeLayer.append(s('text', { class: 'file', x: f.x, y: f.y }, f.path));
  root.append(edgeLayer, nodeLayer);
  const svg = s('svg', { class: 'graph', xmlns: 'http://www.w3.org/2000/svg', 'data-width': width, 'data-height': height }, root) as SVGSVGElement;
  return { svg, root, nodeEls, edgeEls };
}

/** Pan (drag) and zoom (wheel, around the pointer) of the graph's viewport; returns a way to center on a point. */
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
