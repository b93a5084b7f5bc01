import type { Freshness, NavigationResult } from '@ca/engine';
import { get } from './api.js';
import { currentLabel, freshnessBanner, href, link, symbolHref } from './common.js';
import { h } from './dom.js';
import { graphSvg, layout, panZoom, type GraphNode } from './graph.js';

type ImpactAnswer = NavigationResult & { freshness: Freshness };

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
  img.src = url;
}

function controls(params: URLSearchParams, apply: (p: URLSearchParams) => void): HTMLElement {
  const depth = h('input', { type: 'number', min: 1, max: 20, name: 'depth', value: params.get('depth') ?? '', placeholder: 'default' });
  const min = h('select', { name: 'minConfidence' }, ...['', 'approximate', 'probable', 'exact'].map((c) => h('option', { value: c, selected: (params.get('minConfidence') ?? '') === c }, c || 'any confidence')));
  const max = h('input', { type: 'number', min: 1, name: 'maxNodes', value: params.get('maxNodes') ?? '', placeholder: '1000' });
  return h('form', {
    class: 'controls',
    onsubmit: (e: Event) => {
      e.preventDefault();
      const p = new URLSearchParams({ depth: depth.value, minConfidence: min.value, maxNodes: max.value });
      for (const [k, v] of [...p]) if (!v) p.delete(k);
      const label = currentLabel();
      if (label) p.set('label', label);
      apply(p);
    },
  }, h('label', {}, 'depth ', depth), h('label', {}, 'min confidence ', min), h('label', {}, 'max nodes ', max), h('button', { type: 'submit' }, 'Apply'));
}

/** `/impact/ID`: what depends on the symbol, as a graph to pan, zoom, search and focus. */
export async function impactPage(main: HTMLElement, banner: HTMLElement, id: string, navigate: (to: string) => void): Promise<void> {
  const params = new URLSearchParams(location.search);
  const r = await get<ImpactAnswer>(`nav/impact/${encodeURIComponent(id)}`, {
    label: currentLabel(),
    depth: params.get('depth'),
    minConfidence: params.get('minConfidence'),
    maxNodes: params.get('maxNodes'),
  });
  banner.replaceChildren(freshnessBanner(r.freshness));
  const nodes: GraphNode[] = r.nodes.some((n) => n.id === r.symbol.id) ? [...r.nodes] : [{ ...r.symbol, depth: 0 }, ...r.nodes];
  const { svg, root, nodeEls, edgeEls } = graphSvg(nodes, r.edges);
  const shownEdges = edgeEls.length;
  const search = h('input', { type: 'search', placeholder: 'find in graph', id: 'graph-search' });
  const focusInfo = h('span', { id: 'graph-focus' });
  main.replaceChildren(
    h('header', { class: 'symbol-head' }, h('h1', {}, 'Impact of ', link(symbolHref(r.symbol.id), r.symbol.qualifiedName))),
    controls(params, (p) => navigate(`/impact/${encodeURIComponent(id)}?${p.toString()}`)),
    h(
      'div',
      { class: 'graph-bar' },
      h('span', { id: 'graph-count' }, `${nodes.length} nodes, ${shownEdges} edges`),
      r.truncated ? h('span', { class: 'warning' }, `cut at ${r.maxNodes} nodes (at least ${r.totalReached} reached)`) : null,
      r.complete ? null : h('span', { class: 'warning', title: r.gaps.map((g) => `${g.scope}: ${g.reason}`).join('\n') }, `the graph stops in ${r.gaps.length} place${r.gaps.length === 1 ? '' : 's'}`),
      search,
      focusInfo,
      h('button', { type: 'button', onclick: () => download(new Blob([standaloneSvg(svg)], { type: 'image/svg+xml' }), `impact-${id}.svg`) }, 'SVG'),
      h('button', { type: 'button', onclick: () => exportPng(svg, `impact-${id}.png`) }, 'PNG'),
    ),
    svg,
  );
  const view = panZoom(svg, root);
  const { width, height, placed } = layout(nodes);
  view.fit(width, height);
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
    const p = placed.get(nid);
    if (p) view.center(p.x + 140, p.y + 10);
    focusInfo.textContent = p ? `${p.node.qualifiedName}: ${near.size - 1} neighbours` : '';
  };
  for (const [nid, el] of nodeEls) {
    el.addEventListener('click', () => focus(nid));
    el.addEventListener('dblclick', () => navigate(href(`/symbol/${encodeURIComponent(nid)}`)));
  }
  search.addEventListener('change', () => {
    const q = search.value.trim().toLowerCase();
    let first: string | null = null;
    for (const [nid, el] of nodeEls) {
      const on = q !== '' && (placed.get(nid)?.node.qualifiedName.toLowerCase().includes(q) ?? false);
      el.classList.toggle('match', on);
      if (on && first === null) first = nid;
    }
    if (first !== null) focus(first);
  });
}
