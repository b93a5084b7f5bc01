import type { LabelInfo } from '@ca/engine';
import { get } from './api.js';
import { currentLabel, currentRepo, errorBox, href, link, reindexButton } from './common.js';
import { h } from './dom.js';
import { filePage, statusPage } from './file.js';
import { impactPage } from './impact.js';
import { searchPage } from './search.js';
import { symbolPage } from './symbol.js';

const banner = h('div', { id: 'banner' });
const main = h('main', { id: 'main' });
const labelPicker = h('select', { id: 'label', title: 'label (the working tree, or an indexed commit)' });
const repoPicker = h('select', { id: 'repo', title: 'repository' });
const repoBox = h('label', { hidden: true }, 'repository ', repoPicker);
const searchLink = link(href('/search'), 'Search');
const statusLink = link(href('/status'), 'Status');
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
  // The header's links and picker follow the URL (back/forward can change the repository).
  searchLink.href = href('/search');
  statusLink.href = href('/status');
  if (currentRepo() !== null) repoPicker.value = currentRepo()!;
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

/**
 * The repository picker: shown when the server serves several. Another repository opens its
 * search page (symbol ids and labels belong to one repository), keeping the query.
 */
async function fillRepos(): Promise<void> {
  const { repos } = await get<{ repos: { name: string }[] }>('repos');
  const chosen = currentRepo() ?? repos[0]?.name;
  repoPicker.replaceChildren(...repos.map((r) => h('option', { value: r.name, selected: r.name === chosen }, r.name)));
  repoBox.hidden = repos.length < 2;
  repoPicker.addEventListener('change', () => {
    const q = location.pathname === '/search' ? new URLSearchParams(location.search).get('q') : null;
    const params = new URLSearchParams({ repo: repoPicker.value, ...(q ? { q } : {}) });
    navigate(`/search?${params.toString()}`);
    void fillRepos().catch((e: unknown) => banner.replaceChildren(errorBox(e)));
void fillLabels().catch((e: unknown) => banner.replaceChildren(errorBox(e)));
  });
}

async function fillLabels(): Promise<void> {
  const { labels, working } = await get<{ labels: LabelInfo[]; working: string }>('labels');
  const chosen = currentLabel() ?? working;
  labelPicker.replaceChildren(...labels.map((l) => h('option', { value: l.name, selected: l.name === chosen }, l.name)));
  labelPicker.onchange = () => {
    const url = new URL(location.href);
    if (labelPicker.value === working) url.searchParams.delete('label');
    else url.searchParams.set('label', labelPicker.value);
    navigate(`${url.pathname}${url.search}${url.hash}`);
  };
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element).closest?.('a');
  if (!a || a.hasAttribute('download') || a.origin !== location.origin || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(`${a.pathname}${a.search}${a.hash}`);
});
window.addEventListener('popstate', () => void render());

document.body.append(
  h('nav', { class: 'top' }, h('strong', {}, 'Code Agent'), searchLink, statusLink, repoBox, h('label', {}, 'label ', labelPicker), reindexButton(() => void render())),
  banner,
  main,
);
void fillRepos().catch((e: unknown) => banner.replaceChildren(errorBox(e)));
void fillLabels().catch((e: unknown) => banner.replaceChildren(errorBox(e)));
void render();
