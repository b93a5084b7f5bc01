import type { Freshness, SearchResult } from '@ca/engine';
import { get } from './api.js';
import { codeBlock, fileHref, freshnessBanner, currentLabel, link, symbolHref } from './common.js';
import { h } from './dom.js';

interface SearchAnswer {
  readonly query: string;
  readonly results: readonly Omit<SearchResult, 'ranks'>[];
  readonly notices: readonly string[];
  readonly tookMs: number;
  readonly freshness: Freshness;
}

/** Lowercased words of the query (filter fields like `kind:` left out): the lines holding one are highlighted. */
export function queryWords(q: string): string[] {
  return q
    .split(/\s+/)
    .filter((w) => w !== '' && !/^[a-z]+:/i.test(w))
    .flatMap((w) => w.split(/[^A-Za-z0-9_$]+/))
    .filter((w) => w.length >= 2)
    .map((w) => w.toLowerCase());
}

function resultView(r: SearchAnswer['results'][number], words: readonly string[]): HTMLElement {
  const hit = (line: string) => {
    const lower = line.toLowerCase();
    return words.some((w) => lower.includes(w));
  };
  return h(
    'article',
    { class: 'result' },
    h(
      'header',
      {},
      link(symbolHref(r.id), h('span', { class: 'result-name' }, r.qualifiedName)),
      h('span', { class: 'kind' }, r.kind),
      link(fileHref(r.path, r.startLine), h('span', { class: 'path' }, `${r.path}:${r.startLine}`)),
      h('span', { class: 'channels', title: 'why it matched' }, ...r.matchedBy.map((c) => h('span', { class: 'channel' }, c))),
    ),
    codeBlock(r.code, r.startLine, hit),
  );
}

/** `/search?q=…`: the query box, the results as code with matched lines highlighted, and why each matched. */
export async function searchPage(main: HTMLElement, banner: HTMLElement, navigate: (to: string) => void): Promise<void> {
  const q = new URLSearchParams(location.search).get('q') ?? '';
  const input = h('input', { type: 'search', name: 'q', id: 'q', value: q, placeholder: 'Search code: words, names, or a filter like kind:function', autofocus: true, size: 60 });
  const form = h('form', {
    class: 'query',
    onsubmit: (e: Event) => {
      e.preventDefault();
      const params = new URLSearchParams({ q: input.value });
      const label = currentLabel();
      if (label) params.set('label', label);
      navigate(`/search?${params.toString()}`);
    },
  }, input, h('button', { type: 'submit' }, 'Search'));
  main.replaceChildren(form);
  if (q.trim() === '') return;
  const answer = await get<SearchAnswer>('search', { q, label: currentLabel() });
  banner.replaceChildren(freshnessBanner(answer.freshness));
  const words = queryWords(q);
  main.append(
    h('p', { class: 'summary', id: 'result-count' }, `${answer.results.length} result${answer.results.length === 1 ? '' : 's'} in ${Math.round(answer.tookMs)} ms`),
    ...answer.notices.map((n) => h('p', { class: 'notice' }, n)),
    h('div', { id: 'results' }, ...answer.results.map((r) => resultView(r, words))),
  );
}
