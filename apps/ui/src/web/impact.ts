import type { Freshness, NavigationEdge, NavigationResult } from '@ca/engine';
import { get } from './api.js';
import { currentLabel, freshnessBanner, href, link, symbolHref } from './common.js';
import { h } from './dom.js';
import { foldApproximate, graphSvg, nodeCenter, panZoom, type GraphNode, type GroupBy } from './graph.js';

/** `/api/nav/impact/ID`: the answer, its freshness and each node's package or project. */
type ImpactAnswer = NavigationResult & { freshness: Freshness; projects: Record<string, string> };

/** The SVG of the graph as a standalone file (its look inlined from the page's style rules). */
function standaloneSvg(svg: SVGSVGElement): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
  style.textContent = [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules].map((r) => r.cssText)).filter((t) => t.includes('.graph') || t.includes('.node') || t.includes('.edge')).join('\n');
  copy.prepend(style);
  const { width, height } = svg.getBoundingClientRect();
  copy.setAttribute('width', String(Math.round(width)));
  copy.setAttribute('height', String(Math.round(height)));
  return new XMLSerializer().serializeToString(copy);
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function exportPng(svg: SVGSVGElement, name: string): void {
  const text = standaloneSvg(svg);
  const img = new Image();
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  img.onload = () => {
    const canvas = h('canvas', { width: img.width, height: img.height });
    canvas.getContext('2d')?.drawImage(img, 0, 0);
    URL.revokeObjectURL(url);
    canvas.toBlob((b) => b && download(b, name));
  };
  img.onerror = () => {
    URL.revokeObjectURL(url);
    document.getElementById('graph-focus')?.replaceChildren('PNG export failed: the browser could not draw the SVG');
  };
  img.src = url;
}

/** The page's options as the URL holds them (deep links keep the view). */
interface ViewOptions {
  readonly group: GroupBy;
  readonly showApproximate: boolean;
}

function viewOptions(params: URLSearchParams): ViewOptions {
  return { group: params.get('group') === 'package' ? 'package' : 'file', showApproximate: params.get('approximate') === 'show' };
}

function controls(params: URLSearchParams, apply: (p: URLSearchParams) => void): HTMLElement {
  const depth = h('input', { type: 'number', min: 1, max: 20, name: 'depth', value: params.get('depth') ?? '', placeholder: 'default' });
  const min = h('select', { name: 'minConfidence' }, ...['', 'approximate', 'probable', 'exact'].map((c) => h('option', { value: c, selected: (params.get('minConfidence') ?? '') === c }, c || 'any confidence')));
  const max = h('input', { type: 'number', min: 1, name: 'maxNodes', value: params.get('maxNodes') ?? '', placeholder: '1000' });
  const view = viewOptions(params);
  const group = h('select', { name: 'group', id: 'graph-group' }, ...(['file', 'package'] as const).map((g) => h('option', { value: g, selected: view.group === g }, g)));
  const approx = h('input', { type: 'checkbox', name: 'approximate', id: 'graph-approximate', checked: view.showApproximate });
  const form = h('form', {
    class: 'controls',
    onsubmit: (e: Event) => {
      e.preventDefault();
      const p = new URLSearchParams({ depth: depth.value, minConfidence: min.value, maxNodes: max.value, group: group.value === 'file' ? '' : group.value, approximate: approx.checked ? 'show' : '' });
      for (const [k, v] of [...p]) if (!v) p.delete(k);
      const label = currentLabel();
      if (label) p.set('label', label);
      apply(p);
    },
  }, h('label', {}, 'depth ', depth), h('label', {}, 'min confidence ', min), h('label', {}, 'max nodes ', max), h('label', {}, 'group by ', group), h('label', {}, approx, ' show approximate edges'), h('button', { type: 'submit' }, 'Apply'));
  // Grouping and folding are views of the same answer: they apply at once, no Apply needed.
  group.addEventListener('change', () => form.requestSubmit());
  approx.addEventListener('change', () => form.requestSubmit());
  return form;
}

/** The answer's nodes for the graph: the symbol at depth 0, each node with its package or project. */
function graphNodes(r: ImpactAnswer): GraphNode[] {
  const project = (id: string) => r.projects[id] ?? '';
  const nodes: GraphNode[] = r.nodes.map((n) => ({ ...n, project: project(n.id) }));
  return nodes.some((n) => n.id === r.symbol.id) ? nodes : [{ ...r.symbol, depth: 0, project: project(r.symbol.id) }, ...nodes];
}

/**
 * The answer's edges with each end that is not a drawn node (another seed of the walk: a member
 * of the class, a symbol of the file) drawn at the symbol, which stands for its seeds.
 */
function graphEdges(r: ImpactAnswer, nodes: readonly GraphNode[]): NavigationEdge[] {
  const ids = new Set(nodes.map((n) => n.id));
  const end = (id: string) => (ids.has(id) ? id : r.symbol.id);
  return r.edges.filter((e) => e.to !== null).map((e) => ({ ...e, from: end(e.from), to: end(e.to!) }));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `/impact/ID`: what depends on the symbol, as a graph to pan, zoom, search and focus. */
export async function impactPage(main: HTMLElement, banner: HTMLElement, id: string, navigate: (to: string) => void): Promise<void> {
  const params = new URLSearchParams(location.search);
  const view = viewOptions(params);
  const r = await get<ImpactAnswer>(`nav/impact/${encodeURIComponent(id)}`, {
    label: currentLabel(),
    depth: params.get('depth'),
    minConfidence: params.get('minConfidence'),
    maxNodes: params.get('maxNodes'),
  });
  banner.replaceChildren(freshnessBanner(r.freshness));
  const all = graphNodes(r);
  const shown = foldApproximate(all, graphEdges(r, all), view.showApproximate);
  const { svg, root, nodeEls, edgeEls, layout } = graphSvg(shown.nodes, shown.edges, view.group);
  const search = h('input', { type: 'search', placeholder: 'find in graph', id: 'graph-search' });
  const focusInfo = h('span', { id: 'graph-focus' });
  const folded = shown.foldedEdges > 0 ? `${plural(shown.foldedEdges, 'approximate edge')} folded${shown.foldedNodes > 0 ? ` (hiding ${plural(shown.foldedNodes, 'node')} only they reach)` : ''}` : null;
  main.replaceChildren(
    h('header', { class: 'symbol-head' }, h('h1', {}, 'Impact of ', link(symbolHref(r.symbol.id), r.symbol.qualifiedName))),
    controls(params, (p) => navigate(`/impact/${encodeURIComponent(id)}?${p.toString()}`)),
    h(
      'div',
      { class: 'graph-bar' },
      h('span', { id: 'graph-count' }, `${plural(shown.nodes.length, 'node')}, ${plural(edgeEls.length, 'edge')}`),
      h('span', { id: 'graph-groups' }, `${plural(layout.groups, 'group')} by ${view.group}`),
      folded ? h('span', { id: 'graph-folded', class: 'muted' }, folded) : null,
      r.truncated ? h('span', { class: 'warning' }, `cut at ${r.maxNodes} nodes (at least ${r.totalReached} reached)`) : null,
      r.complete ? null : h('span', { class: 'warning', title: r.gaps.map((g) => `${g.scope}: ${g.reason}`).join('\n') }, `the graph stops in ${plural(r.gaps.length, 'place')}`),
      search,
      focusInfo,
      h('button', { type: 'button', id: 'export-svg', onclick: () => download(new Blob([standaloneSvg(svg)], { type: 'image/svg+xml' }), `impact-${id}.svg`) }, 'SVG'),
      h('button', { type: 'button', id: 'export-png', onclick: () => exportPng(svg, `impact-${id}.png`) }, 'PNG'),
    ),
    h('div', { class: 'legend' }, ...(['exact', 'probable', 'approximate'] as const).map((c) => h('span', { class: `legend-${c}` }, c))),
    svg,
  );
  const pan = panZoom(svg, root);
  pan.fit(layout.width, layout.height);
  const focus = (nid: string) => {
    svg.classList.add('focusing');
    for (const el of nodeEls.values()) el.classList.remove('focus', 'near');
    const near = new Set([nid]);
    for (const e of edgeEls) {
      const on = e.from === nid || e.to === nid;
      e.el.classList.toggle('near', on);
      if (on) near.add(e.from === nid ? e.to : e.from);
    }
    for (const n of near) nodeEls.get(n)?.classList.add(n === nid ? 'focus' : 'near');
    const p = layout.placed.get(nid);
    if (p) {
      const c = nodeCenter(p);
      pan.center(c.x, c.y);
    }
    focusInfo.textContent = p ? `${p.node.qualifiedName}: ${plural(near.size - 1, 'neighbour')}` : '';
  };
  for (const [nid, el] of nodeEls) {
    el.addEventListener('click', () => focus(nid));
    el.addEventListener('dblclick', () => navigate(href(`/symbol/${encodeURIComponent(nid)}`)));
  }
  search.addEventListener('change', () => {
    const q = search.value.trim().toLowerCase();
    let first: string | null = null;
    for (const [nid, el] of nodeEls) {
      const on = q !== '' && (layout.placed.get(nid)?.node.qualifiedName.toLowerCase().includes(q) ?? false);
      el.classList.toggle('match', on);
      if (on && first === null) first = nid;
    }
    if (first !== null) return focus(first);
    svg.classList.remove('focusing');
    focusInfo.textContent = q === '' ? '' : `no node matches "${search.value.trim()}"`;
  });
}
