import type { Freshness, NavigationEdge, NavigationResult, SymbolView } from '@ca/engine';
import { get } from './api.js';
import { codeLine, confidenceBadge, currentLabel, fileHref, freshnessBanner, href, link, numberLines, symbolHref } from './common.js';
import { h, replace, type Child } from './dom.js';

interface SymbolAnswer {
  readonly symbol: SymbolView;
  readonly code: string;
  readonly stale: boolean;
  readonly callers: NavigationResult;
  readonly callees: NavigationResult;
  readonly refs: NavigationResult;
  readonly impls: NavigationResult;
  readonly dependents: NavigationResult;
  readonly freshness: Freshness;
}

type Nodes = ReadonlyMap<string, SymbolView>;

function nodesOf(r: NavigationResult): Nodes {
  return new Map<string, SymbolView>([[r.symbol.id, r.symbol], ...r.nodes.map((n) => [n.id, n] as const)]);
}

/**
 * One edge: the symbol at its other end (a link, or the name as written when unresolved), where,
 * and how sure. Approximate edges carry the `approx` class: folded until the toggle shows them.
 */
function edgeItem(e: NavigationEdge, other: string | null, nodes: Nodes): HTMLElement {
  const node = other === null ? undefined : nodes.get(other);
  const name: Child = node ? link(symbolHref(node.id), node.qualifiedName) : h('span', { class: 'unresolved', title: 'not resolved to a symbol of the index' }, e.targetName);
  return h(
    'li',
    { class: e.confidence === 'approximate' ? 'edge approx' : 'edge', 'data-confidence': e.confidence, 'data-line': e.line },
    name,
    ' ',
    confidenceBadge(e.confidence),
    ' ',
    link(fileHref(e.path, e.line), h('span', { class: 'path' }, `${e.path}:${e.line}`)),
  );
}

/** The gaps of an answer: where the graph stops, and why (a "0 callers" there may be "unknown"). */
function gapsView(r: NavigationResult): HTMLElement | null {
  if (r.complete) return null;
  return h('div', { class: 'gaps' }, h('strong', {}, 'Where the graph stops'), h('ul', {}, ...r.gaps.map((g) => h('li', {}, h('span', { class: 'path' }, g.scope), ': ', g.reason))));
}

/** How many edges a heading counts, and how many of them are approximate (folded). */
function countText(r: NavigationResult): string {
  const approx = r.edges.filter((e) => e.confidence === 'approximate').length;
  return `${r.edges.length}${approx > 0 ? `, ${approx} approximate` : ''}`;
}

/** The edges of an answer as a list, "none" when there are none, and where the graph stops. */
function edgeBody(r: NavigationResult, end: 'from' | 'to'): Child[] {
  const nodes = nodesOf(r);
  return [
    h('ul', { class: 'edges' }, ...r.edges.map((e) => edgeItem(e, end === 'from' ? e.from : e.to, nodes))),
    r.edges.length === 0 ? h('p', { class: 'none' }, r.complete ? 'none' : 'none found') : null,
    gapsView(r),
  ];
}

/** A titled list of edges (references, implementations, dependents). */
function edgeList(title: string, id: string, r: NavigationResult, end: 'from' | 'to'): HTMLElement {
  return h('section', { class: 'column', id }, h('h2', {}, `${title} (${countText(r)})`), ...edgeBody(r, end));
}

/** Places an element in the aligned grid (CSSOM, which the CSP allows, unlike a style attribute). */
function place<T extends HTMLElement>(el: T, row: number, column: number): T {
  el.style.gridRow = String(row);
  el.style.gridColumn = String(column);
  return el;
}

/**
 * Callers | source | callees. The source and the callees share one grid whose rows are the
 * source lines: each callee sits on the row of its call line (the row's `data-line` is the
 * edge's line), so a line with several calls grows and its neighbours stay level. The callers
 * (calls from elsewhere) list their own call line. A callee edge outside the shown lines is
 * listed under them.
 */
function alignedView(a: SymbolAnswer): HTMLElement {
  const s = a.symbol;
  const calleeNodes = nodesOf(a.callees);
  // The source as read from the file; the indexed chunk (collapsed bodies) when the file changed since.
  const lines = numberLines(a.code, s.startLine, a.stale);
  const byLine = new Map<number, NavigationEdge[]>();
  for (const e of a.callees.edges) if (e.path === s.path) byLine.set(e.line, [...(byLine.get(e.line) ?? []), e]);
  const shown = new Set(lines.map((l) => l.n));
  const elsewhere = a.callees.edges.filter((e) => e.path !== s.path || !shown.has(e.line));
  const source = lines.map((l, i) => place(codeLine(l, byLine.has(l.n)), i + 1, 1));
  const callees = lines.map((l, i) => {
    const edges = byLine.get(l.n) ?? [];
    return place(h('div', { class: 'callee-row', id: `callees-L${l.n}`, 'data-line': l.n }, edges.length > 0 ? h('ul', { class: 'edges' }, ...edges.map((e) => edgeItem(e, e.to, calleeNodes))) : null), i + 1, 2);
  });
  const tail = place(h('div', { class: 'callee-tail' }, elsewhere.length > 0 ? h('ul', { class: 'edges elsewhere' }, ...elsewhere.map((e) => edgeItem(e, e.to, calleeNodes))) : null, a.callees.edges.length === 0 ? h('p', { class: 'none' }, a.callees.complete ? 'none' : 'none found') : null, gapsView(a.callees)), lines.length + 1, 2);
  return h(
    'div',
    { class: 'aligned', id: 'aligned' },
    h('section', { class: 'callers-col', id: 'callers' }, h('h2', {}, `Callers (${countText(a.callers)})`), ...edgeBody(a.callers, 'from')),
    h(
      'section',
      { class: 'source-callees' },
      h('div', { class: 'aligned-head' }, h('h2', {}, 'Source'), h('h2', {}, `Callees (${countText(a.callees)})`)),
      h('div', { class: 'aligned-grid' }, h('pre', { class: 'code source', id: 'source' }, ...source), h('div', { class: 'callees-col', id: 'callees' }, ...callees, tail)),
    ),
  );
}

/** The toggle of approximate (name-matched) edges: folded by default, shown on demand. */
function approxToggle(main: HTMLElement, a: SymbolAnswer): HTMLElement | null {
  const count = [a.callers, a.callees, a.refs, a.impls, a.dependents].reduce((n, r) => n + r.edges.filter((e) => e.confidence === 'approximate').length, 0);
  if (count === 0) return null;
  main.classList.add('fold-approx');
  const box = h('input', { type: 'checkbox', id: 'show-approx', onchange: () => main.classList.toggle('fold-approx', !box.checked) });
  return h('label', { class: 'approx-toggle' }, box, ` show ${count} approximate edge${count === 1 ? '' : 's'} (name-matched, may be wrong)`);
}

/** `/symbol/ID`: callers | source | callees aligned to the call lines, then references, implementations and dependents. */
export async function symbolPage(main: HTMLElement, banner: HTMLElement, id: string): Promise<void> {
  const a = await get<SymbolAnswer>(`symbol/${encodeURIComponent(id)}`, { label: currentLabel() });
  banner.replaceChildren(freshnessBanner(a.freshness));
  const s = a.symbol;
  main.classList.remove('fold-approx');
  replace(
    main,
    h(
      'header',
      { class: 'symbol-head' },
      h('h1', { id: 'symbol-name' }, s.qualifiedName),
      h('span', { class: 'kind' }, s.kind),
      link(fileHref(s.path, s.startLine), h('span', { class: 'path' }, `${s.path}:${s.startLine}-${s.endLine}`)),
      link(href(`/impact/${encodeURIComponent(s.id)}`), 'Impact graph'),
      a.stale ? h('span', { class: 'warning' }, 'the file changed since indexed: showing the indexed text') : null,
    ),
    s.signature ? h('pre', { class: 'signature' }, s.signature) : null,
    s.doc ? h('p', { class: 'doc' }, s.doc) : null,
    approxToggle(main, a),
    alignedView(a),
    h('div', { class: 'three' }, edgeList('References', 'refs', a.refs, 'from'), edgeList('Implementations', 'impls', a.impls, 'from'), edgeList('Dependents', 'dependents', a.dependents, 'from')),
  );
}
