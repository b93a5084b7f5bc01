import type { Freshness, SearchResult, SymbolView } from '@ca/engine';
import { get } from './api.js';
import { codeLine, errorBox, fileHref, freshnessBanner, href, link, numberLines, symbolHref, type CodeLine } from './common.js';
import { h, type Child } from './dom.js';

interface Collapsed {
  readonly line: number;
  readonly id: string;
  readonly name: string;
}

type Result = Omit<SearchResult, 'ranks'> & { readonly collapsed: readonly Collapsed[] };

interface SearchAnswer {
  readonly query: string;
  readonly results: readonly Result[];
  readonly notices: readonly string[];
  readonly tookMs: number;
  /** The filter the query box's `field:value` terms made (null: none). */
  readonly filter: string | null;
  readonly freshness: Freshness;
}

/** Lowercased words of the query (filter fields like `kind:` left out): the lines holding one are highlighted. */
export function queryWords(q: string): string[] {
  return q
    .split(/\s+/)
    .filter((w) => w !== '' && !/^-?[a-z]+:/i.test(w))
    .flatMap((w) => w.split(/[^A-Za-z0-9_$]+/))
    .filter((w) => w.length >= 2)
    .map((w) => w.toLowerCase());
}

/**
 * The child's lines as they stand in the parent: its code starts at the symbol's first column,
 * so its first line is the collapsed line up to the body (`  module.exports = function f(a) `)
 * plus the body's opening brace on, and whatever followed the collapsed body (`;`) ends its last
 * line unless it ends so already.
 */
function spliceInto(collapsedText: string, lines: readonly CodeLine[]): CodeLine[] {
  const m = /\{ \/\* \d+ lines? collapsed \*\/ \}/.exec(collapsedText);
  const first = lines[0];
  if (!m || !first) return [...lines];
  const brace = first.text.lastIndexOf('{');
  const head = brace < 0 ? /^\s*/.exec(collapsedText)![0] + first.text.trimStart() : collapsedText.slice(0, m.index) + first.text.slice(brace);
  const out = [{ ...first, text: head }, ...lines.slice(1)];
  const last = out.length - 1;
  const suffix = collapsedText.slice(m.index + m[0].length);
  // A child whose span takes the statement's end (`};`) already has it.
  if (!out[last]!.text.endsWith(suffix)) out[last] = { ...out[last]!, text: out[last]!.text + suffix };
  return out;
}

/** Replaces a collapsed line by the child's own code (fetched), each line numbered by the file. */
async function expand(row: Element, child: Collapsed, hit: (text: string) => boolean): Promise<void> {
  const { symbol, code, stale } = await get<{ symbol: SymbolView; code: string; stale: boolean }>(`source/${encodeURIComponent(child.id)}`, { label: new URLSearchParams(location.search).get('label') });
  // Read from the file (its own lines), or the indexed chunk when the file changed since.
  const numbered = numberLines(code, symbol.startLine, stale);
  const lines = spliceInto(row.querySelector('.src')?.textContent ?? '', numbered).map((l) => codeLine(l, hit(l.text)));
  for (const l of lines) l.classList.add('expanded');
  row.replaceWith(...lines);
}

function resultView(r: Result, words: readonly string[]): HTMLElement {
  const hit = (line: string) => {
    const lower = line.toLowerCase();
    return words.some((w) => lower.includes(w));
  };
  const children = new Map(r.collapsed.map((c) => [c.line, c]));
  const expandButton = (l: CodeLine): Child => {
    const child = children.get(l.n);
    if (!l.collapsed || !child) return null;
    const button = h('button', {
      type: 'button',
      class: 'expand',
      title: `show the ${l.collapsed} lines of ${child.name}`,
      onclick: () => {
        button.disabled = true;
        const row = button.closest<HTMLElement>('.line')!;
        expand(row, child, hit).catch((e: unknown) => row.append(errorBox(e)));
      },
    }, `+${l.collapsed}`);
    return button;
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
      h('span', { class: 'channels', title: 'why it matched: the channels that found it' }, 'matched by', ...r.matchedBy.map((c) => h('span', { class: 'channel' }, c))),
    ),
    h('pre', { class: 'code' }, ...numberLines(r.code, r.startLine, true).map((l) => codeLine(l, hit(l.text), expandButton(l)))),
  );
}

/** The word of the query box the caret is in: its start and text. */
function wordAtCaret(input: HTMLInputElement): { start: number; end: number; word: string } {
  const caret = input.selectionStart ?? input.value.length;
  const start = input.value.lastIndexOf(' ', caret - 1) + 1;
  const space = input.value.indexOf(' ', caret);
  const end = space < 0 ? input.value.length : space;
  return { start, end, word: input.value.slice(start, end) };
}

/**
 * Completion of the filter language in the query box: a word without a colon completes to a
 * field (`kind:`), after the colon to that field's values in this index (kinds, languages,
 * labels, paths). Arrow keys move, Enter or Tab takes the choice, Escape closes the list.
 */
function completion(input: HTMLInputElement): HTMLElement {
  const list = h('ul', { id: 'completions', class: 'completions', role: 'listbox', hidden: true });
  let active = -1;
  let asked = 0;
  const items = () => [...list.children] as HTMLElement[];
  const mark = (i: number) => {
    active = i;
    items().forEach((el, j) => el.classList.toggle('active', j === i));
  };
  const take = (value: string) => {
    const { start, end } = wordAtCaret(input);
    const negated = input.value[start] === '-' ? '-' : '';
    const next = `${input.value.slice(0, start)}${negated}${value}${value.endsWith(':') || value.endsWith('/') ? '' : ' '}`;
    input.value = next + input.value.slice(end).trimStart();
    input.setSelectionRange(next.length, next.length);
    list.hidden = true;
    input.focus();
    if (value.endsWith(':') || value.endsWith('/')) void suggest();
  };
  const suggest = async (): Promise<void> => {
    const word = wordAtCaret(input).word.replace(/^-/, '');
    const mine = ++asked;
    if (word === '') {
      list.hidden = true;
      return;
    }
    const colon = word.indexOf(':');
    const params = colon < 0 ? { prefix: word } : { field: word.slice(0, colon), prefix: word.slice(colon + 1) };
    const { values } = await get<{ values: string[] }>('complete', { ...params, label: new URLSearchParams(location.search).get('label') });
    if (mine !== asked) return;
    const full = colon < 0 ? values : values.map((v) => `${word.slice(0, colon + 1)}${v}`);
    list.replaceChildren(...full.map((v) => h('li', { role: 'option', onmousedown: (e: Event) => (e.preventDefault(), take(v)) }, v)));
    list.hidden = full.length === 0;
    mark(full.length > 0 ? 0 : -1);
  };
  input.addEventListener('input', () => void suggest().catch(() => (list.hidden = true)));
  input.addEventListener('blur', () => (list.hidden = true));
  input.addEventListener('keydown', (e: KeyboardEvent) => {
    if (list.hidden) return;
    const n = items().length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      mark((active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) {
      e.preventDefault();
      take(items()[active]!.textContent ?? '');
    } else if (e.key === 'Escape') list.hidden = true;
  });
  return list;
}

/** `/search?q=…`: the query box (with completion), the results as code with matched lines highlighted, why each matched, collapsed children expandable. */
export async function searchPage(main: HTMLElement, banner: HTMLElement, navigate: (to: string) => void): Promise<void> {
  const q = new URLSearchParams(location.search).get('q') ?? '';
  const input = h('input', { type: 'search', name: 'q', id: 'q', value: q, placeholder: 'Search code: words, names, and filters like kind:function path:src/', autofocus: true, size: 60, autocomplete: 'off' });
  const form = h('form', {
    class: 'query',
    onsubmit: (e: Event) => {
      e.preventDefault();
      navigate(href('/search', { q: input.value }));
    },
  }, h('span', { class: 'query-box' }, input, completion(input)), h('button', { type: 'submit' }, 'Search'));
  main.replaceChildren(form);
  if (q.trim() === '') return;
  const answer = await get<SearchAnswer>('search', { q, label: new URLSearchParams(location.search).get('label') });
  banner.replaceChildren(freshnessBanner(answer.freshness));
  const words = queryWords(q);
  main.append(
    h('p', { class: 'summary', id: 'result-count' }, `${answer.results.length} result${answer.results.length === 1 ? '' : 's'} in ${Math.round(answer.tookMs)} ms`, answer.filter ? h('span', { class: 'filter', id: 'filter' }, ` filter: ${answer.filter}`) : null),
    ...answer.notices.map((n) => h('p', { class: 'notice' }, n)),
    h('div', { id: 'results' }, ...answer.results.map((r) => resultView(r, words))),
  );
}
