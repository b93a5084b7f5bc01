import type { LabelInfo } from '@ca/engine';
import { get } from './api.js';
import { currentLabel, errorBox, href, link, reindexButton } from './common.js';
import { h } from './dom.js';
import { filePage, statusPage } from './file.js';
import { impactPage } from './impact.js';
import { searchPage } from './search.js';
import { symbolPage } from './symbol.js';

const banner = h('div', { id: 'banner' });
const main = h('main', { id: 'main' });
const labelPicker = h('select', { id: 'label', title: 'label (the working tree, or an indexed commit)' });
let renders = 0;

function navigate(to: string): void {
  history.pushState(null, '', to);
  void render();
}

function segment(path: string, prefix: string): string {
  return decodeURIComponent(path.slice(prefix.length));
}

/** Renders the page the URL names (every page is a deep link). */
async function render(): Promise<void> {
  const mine = ++renders;
  const path = location.pathname;
  document.body.dataset['ready'] = 'false';
  banner.replaceChildren();
  main.replaceChildren(h('p', { class: 'loading' }, 'Loading…'));
  try {
    if (path.startsWith('/symbol/')) await symbolPage(main, banner, segment(path, '/symbol/'));
    else if (path.startsWith('/impact/')) await impactPage(main, banner, segment(path, '/impact/'), navigate);
    else if (path.startsWith('/file/')) await filePage(main, banner, path.slice('/file/'.length).split('/').map(decodeURIComponent).join('/'));
    else if (path === '/status') await statusPage(main, banner);
    else await searchPage(main, banner, navigate);
  } catch (e) {
    if (mine === renders) main.replaceChildren(errorBox(e));
  }
  // Tests and benchmarks wait for this: the page has its data.
  if (mine === renders) document.body.dataset['ready'] = 'true';
}

async function fillLabels(): Promise<void> {
  const { labels, working } = await get<{ labels: LabelInfo[]; working: string }>('labels');
  const chosen = currentLabel() ?? working;
  labelPicker.replaceChildren(...labels.map((l) => h('option', { value: l.name, selected: l.name === chosen }, l.name)));
  labelPicker.addEventListener('change', () => {
    const url = new URL(location.href);
    if (labelPicker.value === working) url.searchParams.delete('label');
    else url.searchParams.set('label', labelPicker.value);
    navigate(`${url.pathname}${url.search}${url.hash}`);
  });
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element).closest?.('a');
  if (!a || a.hasAttribute('download') || a.origin !== location.origin || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(`${a.pathname}${a.search}${a.hash}`);
});
window.addEventListener('popstate', () => void render());

document.body.append(
  h('nav', { class: 'top' }, h('strong', {}, 'Code Agent'), link(href('/search'), 'Search'), link(href('/status'), 'Status'), h('label', {}, 'label ', labelPicker), reindexButton(() => void render())),
  banner,
  main,
);
void fillLabels().catch((e: unknown) => banner.replaceChildren(errorBox(e)));
void render();
