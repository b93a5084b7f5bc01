import type { FileView, Freshness, StatusReport, SymbolView } from '@ca/engine';
import { get } from './api.js';
import { codeBlock, currentLabel, freshnessBanner, link, symbolHref } from './common.js';
import { h } from './dom.js';

type FileAnswer = FileView & { outline: readonly SymbolView[]; freshness: Freshness };

/** `/file/PATH`: the file as the label indexed it, with its outline (each symbol opens its page). */
export async function filePage(main: HTMLElement, banner: HTMLElement, path: string): Promise<void> {
  const f = await get<FileAnswer>('file', { path, label: currentLabel() });
  banner.replaceChildren(freshnessBanner(f.freshness));
  main.replaceChildren(
    h('header', { class: 'symbol-head' }, h('h1', { id: 'file-path' }, f.path), h('span', { class: 'kind' }, `${f.totalLines} lines, ${f.encoding}`)),
    h(
      'div',
      { class: 'file' },
      h('nav', { class: 'outline', id: 'outline' }, h('h2', {}, 'Outline'), h('ul', {}, ...f.outline.filter((n) => n.kind !== 'file').map((n) => h('li', {}, h('span', { class: 'kind' }, n.kind), ' ', link(symbolHref(n.id), n.qualifiedName), h('span', { class: 'ln' }, ` :${n.startLine}`))))),
      h('section', { class: 'file-text' }, codeBlock(f.text, f.startLine || 1)),
    ),
  );
  const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
  if (target) {
    target.classList.add('hit');
    target.scrollIntoView({ block: 'center' });
  }
}

function table(rows: readonly (readonly [string, string | number])[]): HTMLElement {
  return h('table', {}, ...rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, String(v)))));
}

/** `/status`: counts, channels, parse problems with reasons, labels and what was not loaded. */
export async function statusPage(main: HTMLElement, banner: HTMLElement): Promise<void> {
  const st = await get<Omit<StatusReport, 'repo' | 'db'>>('status', { label: currentLabel() });
  banner.replaceChildren(freshnessBanner(st.freshness));
  main.replaceChildren(
    h('h1', {}, `Status of ${st.label}`),
    h('h2', {}, 'Channels'),
    table([
      ['semantic', st.semantic],
      ['vector', st.vectorChannel],
    ]),
    h(
      'section',
      { id: 'counts' },
      table([
        ['files', st.files],
        ['symbols', st.symbols],
        ['edges', st.edges],
        ['lines', st.lines],
        ['last indexed', st.lastIndexedAt ?? 'never'],
        ...Object.entries(st.parseStatus).map(([k, v]) => [`parse ${k}`, v] as const),
      ]),
    ),
    h('h2', {}, `Parse problems (${st.problems.length})`),
    h('ul', { id: 'problems' }, ...st.problems.map((p) => h('li', {}, h('span', { class: 'path' }, p.path), ` ${p.status}: ${p.reason ?? 'no reason recorded'}`))),
    h('h2', {}, `Labels (${st.labels.length})`),
    h('table', { id: 'labels' }, h('tr', {}, h('th', {}, 'label'), h('th', {}, 'kind'), h('th', {}, 'commit'), h('th', {}, 'files')), ...st.labels.map((l) => h('tr', {}, h('td', {}, l.name), h('td', {}, l.kind), h('td', {}, l.commit?.slice(0, 10) ?? ''), h('td', {}, l.files)))),
    h('h2', {}, `Not loaded (${st.notLoaded.length})`),
    h('ul', { id: 'not-loaded' }, ...st.notLoaded.map((n) => h('li', {}, h('span', { class: 'kind' }, n.kind), ' ', n.path ? h('span', { class: 'path' }, n.path) : null, n.path ? ': ' : '', n.message))),
  );
}
