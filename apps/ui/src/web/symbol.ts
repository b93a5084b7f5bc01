import type { Freshness, NavigationEdge, NavigationResult, SymbolView } from '@ca/engine';
import { get } from './api.js';
import { codeBlock, confidenceBadge, currentLabel, fileHref, freshnessBanner, href, link, symbolHref } from './common.js';
import { h, replace, type Child } from './dom.js';

interface SymbolAnswer {
  readonly symbol: SymbolView;
  readonly code: string;
  readonly stale: boolean;
  readonly callers: NavigationResult;
  readonly callees: NavigationResult;
  readonly refs: NavigationResult;
  readonly impls: NavigationResult;
  readonly freshness: Freshness;
}

/** One edge: the symbol at its other end (a link, or the name as written when unresolved), where, and how sure. */
function edgeItem(e: NavigationEdge, other: string | null, nodes: ReadonlyMap<string, SymbolView>): HTMLElement {
  const node = other === null ? undefined : nodes.get(other);
  const name: Child = node ? link(symbolHref(node.id), node.qualifiedName) : h('span', { class: 'unresolved', title: 'not resolved to a symbol of the index' }, e.targetName);
  return h('li', { class: 'edge', 'data-confidence': e.confidence }, name, ' ', confidenceBadge(e.confidence), ' ', link(fileHref(e.path, e.line), h('span', { class: 'path' }, `${e.path}:${e.line}`)));
}

/** The gaps of an answer: where the graph stops, and why (a "0 callers" there may be "unknown"). */
function gapsView(r: NavigationResult): HTMLElement | null {
  if (r.complete) return null;
  return h('div', { class: 'gaps' }, h('strong', {}, 'Where the graph stops'), h('ul', {}, ...r.gaps.map((g) => h('li', {}, h('span', { class: 'path' }, g.scope), ': ', g.reason))));
}

/** A list of edges, exact and probable shown, approximate ones folded. */
function edgeColumn(title: string, id: string, r: NavigationResult, end: 'from' | 'to'): HTMLElement {
  const nodes = new Map<string, SymbolView>([[r.symbol.id, r.symbol], ...r.nodes.map((n) => [n.id, n] as const)]);
  const sure = r.edges.filter((e) => e.confidence !== 'approximate');
  const approx = r.edges.filter((e) => e.confidence === 'approximate');
  const item = (e: NavigationEdge) => edgeItem(e, end === 'from' ? e.from : e.to, nodes);
  return h(
    'section',
    { class: 'column', id },
    h('h2', {}, `${title} (${r.edges.length})`),
    h('ul', { class: 'edges' }, ...sure.map(item)),
    approx.length > 0 ? h('details', { class: 'approx' }, h('summary', {}, `${approx.length} approximate (name-matched)`), h('ul', { class: 'edges' }, ...approx.map(item))) : null,
    r.edges.length === 0 ? h('p', { class: 'none' }, r.complete ? 'none' : 'none found') : null,
    gapsView(r),
  );
}

/** `/symbol/ID`: callers | source | callees, then references and implementations. */
export async function symbolPage(main: HTMLElement, banner: HTMLElement, id: string): Promise<void> {
  const a = await get<SymbolAnswer>(`symbol/${encodeURIComponent(id)}`, { label: currentLabel() });
  banner.replaceChildren(freshnessBanner(a.freshness));
  const s = a.symbol;
  const callLines = new Set(a.callees.edges.map((e) => e.line));
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
    h(
      'div',
      { class: 'three' },
      edgeColumn('Callers', 'callers', a.callers, 'from'),
      h('section', { class: 'column source', id: 'source' }, h('h2', {}, 'Source'), codeBlock(a.code, s.startLine, (_l, n) => n !== s.startLine && callLines.has(n))),
      edgeColumn('Callees', 'callees', a.callees, 'to'),
    ),
    h('div', { class: 'two' }, edgeColumn('References', 'refs', a.refs, 'from'), edgeColumn('Implementations', 'impls', a.impls, 'from')),
  );
}
