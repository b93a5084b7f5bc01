import type { Freshness } from '@ca/engine';
import type { IndexState } from '../api.js';
import { get, post } from './api.js';
import { h, replace, type Child } from './dom.js';

/** The label in the page's URL (`?label=`), carried by every link. */
export function currentLabel(): string | null {
  return new URLSearchParams(location.search).get('label');
}

/** The repository in the page's URL (`?repo=`), carried by every link (null: the server's first). */
export function currentRepo(): string | null {
  return new URLSearchParams(location.search).get('repo');
}

/** A viewer path with the current repository and label kept (a deep link names both). */
export function href(path: string, params: Record<string, string> = {}): string {
  const q = new URLSearchParams(params);
  const repo = currentRepo();
  const label = currentLabel();
  if (repo) q.set('repo', repo);
  if (label) q.set('label', label);
  const qs = q.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

/** `/symbol/ID` */
export function symbolHref(id: string): string {
  return href(`/symbol/${encodeURIComponent(id)}`);
}

/** `/file/a/b.ts#L12` (each path segment encoded). */
export function fileHref(path: string, line?: number): string {
  return `${href(`/file/${path.split('/').map(encodeURIComponent).join('/')}`)}${line ? `#L${line}` : ''}`;
}

/** A link the router follows without a page load. */
export function link(to: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href: to }, ...children);
}

/** The confidence of an edge, shown on every edge. */
export function confidenceBadge(confidence: string): HTMLElement {
  return h('span', { class: `conf conf-${confidence}`, title: `${confidence} edge` }, confidence);
}

/** One line of indexed code: its file line, its text, and how many file lines a collapsed body on it stands for. */
export interface CodeLine {
  readonly n: number;
  readonly text: string;
  /** `header { /* N lines collapsed *\/ }` stands for the child's N lines (0: an ordinary line). */
  readonly collapsed: number;
}

const COLLAPSED_RE = /\{ \/\* (\d+) lines? collapsed \*\/ \}/;

/**
 * Numbers code lines by the file. In a chunk (`chunk`: the indexed text of a search result, or
 * of a file changed since) a collapsed child body stands for N lines of the file, so the line
 * after it is N further on (not one); text read from the file itself is numbered line by line
 * (a comment that happens to read `{ /* 3 lines collapsed *\/ }` is just text there).
 */
export function numberLines(code: string, firstLine: number, chunk: boolean): CodeLine[] {
  let n = firstLine;
  return code
    .replace(/\n$/, '')
    .split('\n')
    .map((text) => {
      const m = chunk ? COLLAPSED_RE.exec(text) : null;
      const collapsed = m ? Number(m[1]) : 0;
      const line = { n, text, collapsed };
      n += Math.max(1, collapsed);
      return line;
    });
}

/** One numbered code line (text nodes only). */
export function codeLine(l: CodeLine, hit: boolean, ...extra: Child[]): HTMLElement {
  return h('div', { class: `${hit ? 'line hit' : 'line'}${l.collapsed ? ' collapsed' : ''}`, id: `L${l.n}`, 'data-line': l.n }, h('span', { class: 'ln' }, l.n), h('span', { class: 'src' }, l.text || ' '), ...extra);
}

/** A file's text as numbered lines (text nodes only); `hit` marks lines to highlight. */
export function codeBlock(code: string, firstLine: number, hit: (line: string, n: number) => boolean = () => false): HTMLElement {
  return h('pre', { class: 'code' }, ...numberLines(code, firstLine, false).map((l) => codeLine(l, hit(l.text, l.n))));
}

function short(commit: string | null): string {
  return commit ? commit.slice(0, 10) : 'no git';
}

/** The freshness banner: what was indexed, and whether HEAD moved or files changed since. */
export function freshnessBanner(f: Freshness): HTMLElement {
  const warnings: string[] = [];
  if (f.headMoved) warnings.push(`HEAD moved to ${short(f.head)} since the index`);
  if (f.uncommittedChanges) warnings.push('indexed with uncommitted changes');
  if (f.stale) warnings.push(`${f.staleCount} file${f.staleCount === 1 ? '' : 's'} changed since indexed: ${f.staleFiles.join(', ')}`);
  const stale = f.headMoved || f.stale;
  return h(
    'div',
    { class: stale ? 'banner stale' : 'banner', id: 'freshness' },
    h('span', {}, `Label ${f.label} indexed at ${short(f.commit)}${f.branch ? ` (${f.branch})` : ''}${f.indexedAt ? `, ${f.indexedAt}` : ''}`),
    ...warnings.map((w) => h('span', { class: 'warning' }, w)),
  );
}

function progressText(s: IndexState): string {
  if (s.running) return `Indexing: ${s.phase ?? 'starting'} ${s.done}/${s.total}`;
  if (s.error) return `Index failed: ${s.error}`;
  if (s.last) return `Indexed ${s.last.files} files, ${s.last.symbols} symbols (${s.last.changed} changed) in ${Math.round(s.last.ms)} ms`;
  return '';
}

/** The re-index button with its progress (polls the run until it ends, then calls `onIndexed`). */
export function reindexButton(onIndexed: () => void): HTMLElement {
  const bar = h('progress', { max: 1, value: 0, hidden: true });
  const text = h('span', { id: 'index-progress' });
  const show = (s: IndexState) => {
    bar.hidden = !s.running;
    bar.max = Math.max(1, s.total);
    bar.value = s.done;
    replace(text, progressText(s));
  };
  const poll = async (s: IndexState): Promise<void> => {
    show(s);
    if (!s.running) {
      button.disabled = false;
      if (!s.error) onIndexed();
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
    return poll(await get<IndexState>('index'));
  };
  const button = h('button', {
    type: 'button',
    id: 'reindex',
    onclick: () => {
      button.disabled = true;
      post<IndexState>('index').then(poll, (e: Error) => {
        button.disabled = false;
        replace(text, `Index failed: ${e.message}`);
      });
    },
  }, 'Re-index');
  return h('span', { class: 'reindex' }, button, bar, text);
}

/** An error shown in the page (as text). */
export function errorBox(e: unknown): HTMLElement {
  return h('div', { class: 'error', role: 'alert' }, e instanceof Error ? e.message : String(e));
}
