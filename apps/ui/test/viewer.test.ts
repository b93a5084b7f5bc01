import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '@ca/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, chromiumMissing, fixtureCopy, indexedEngine, open, openViewer, ready, shot, type Viewer } from './harness.js';

const skip = chromiumMissing();

/** Texts of the elements matching `selector`, in page order. */
async function texts(v: Viewer, selector: string): Promise<string[]> {
  return v.page.locator(selector).allTextContents();
}

describe.skipIf(skip !== null)('ca ui pages in headless Chromium (fixtures/ts-app)', () => {
  let repo: string;
  let engine: Engine;
  let v: Viewer;

  beforeAll(async () => {
    repo = fixtureCopy('ts-app');
    engine = await indexedEngine(repo);
    v = await openViewer(engine);
    console.log(`apps/ui screenshots: ${ARTIFACTS}`);
  });
  afterAll(async () => {
    await v?.close();
    await engine?.dispose();
    rmSync(repo, { recursive: true, force: true });
  });

  it('search: the first result of "formatDate" is the function, its matched line highlighted, its channels shown', async () => {
    await open(v, '/search?q=formatDate');
    // src/utils/format.ts declares `export function formatDate(date: Date): string` at line 7
    // (lines 7-9); its name is the query, so the name channel ranks it first.
    const first = v.page.locator('.result').first();
    expect(await first.locator('.result-name').textContent()).toBe('formatDate');
    expect(await first.locator('.kind').textContent()).toBe('function');
    expect(await first.locator('.path').textContent()).toBe('src/utils/format.ts:7');
    // Of its three lines only the first spells "formatdate" (case-insensitively).
    expect(await first.locator('.line.hit .ln').allTextContents()).toEqual(['7']);
    expect(await first.locator('.line .ln').allTextContents()).toEqual(['7', '8', '9']);
    // Channels (the vector channel is off in these tests): the name channel (its name is the
    // query) and BM25 (its code spells it); no others run without a model.
    expect(await first.locator('.channel').allTextContents()).toEqual(['name', 'bm25']);
    expect(await v.page.locator('#freshness').getAttribute('class')).toBe('banner');
    await shot(v.page, 'search');
  });

  it('symbol: AuthService.login shows its caller, its exact callees, and its approximate ones folded', async () => {
    await open(v, '/search?q=AuthService.login');
    await v.page.locator('.result-name', { hasText: /^AuthService\.login$/ }).first().click();
    await ready(v.page);
    expect(await v.page.locator('#symbol-name').textContent()).toBe('AuthService.login');
    // Callers: App.jsx line 13 calls auth.login(...) inside App — the only call of login.
    expect(await texts(v, '#callers > ul.edges > li')).toEqual(['App exact src/App.jsx:13']);
    // Callees, from authService.ts lines 22-36: checkPassword (27), issueToken (32) and
    // this.store.save (33, the TokenStore interface member) resolve exactly; Map methods are
    // library code (no edge); the two `new Error(…)` (25, 29) are approximate, name-matched.
    expect(await texts(v, '#callees li.edge:not(.approx)')).toEqual([
      'AuthService.checkPassword exact src/auth/authService.ts:27',
      'AuthService.issueToken exact src/auth/authService.ts:32',
      'TokenStore.save exact src/auth/authService.ts:33',
    ]);
    // Approximate edges are folded (hidden) until the toggle shows them.
    expect(await texts(v, '#callees li.approx')).toEqual(['Error approximate src/auth/authService.ts:25', 'Error approximate src/auth/authService.ts:29']);
    expect(await v.page.locator('#callees li.approx').first().isVisible()).toBe(false);
    // The source column starts at the method's first line (22) and marks the call lines of its callees.
    expect(await v.page.locator('#source .line .ln').first().textContent()).toBe('22');
    expect(await v.page.locator('#source .line.hit .ln').allTextContents()).toEqual(['25', '27', '29', '32', '33']);
    // Every edge of this answer is in a fully analysed file: no "where the graph stops".
    expect(await v.page.locator('#callers .gaps, #callees .gaps').count()).toBe(0);
    // Dependents: the one caller, App (App.jsx:13), is the only symbol depending on login.
    expect(await texts(v, '#dependents li')).toEqual(['App exact src/App.jsx:13']);
    await shot(v.page, 'symbol');
  });

  it('impact: the graph of formatDate has the symbol and its 5 dependents', async () => {
    await open(v, '/search?q=formatDate');
    const id = (await v.page.locator('.result').first().locator('a').first().getAttribute('href'))!.replace('/symbol/', '');
    await open(v, `/impact/${id}`);
    // Dependents at depth 1: AuthService.describe (calls, authService.ts:61), stamp (calls,
    // helpers.js:24), formatDateTime (calls, format.ts:20), and the files that import it:
    // authService.ts (import, line 2) and helpers.js (require, line 1) — 5 nodes, one edge each.
    expect(await v.page.locator('#graph-count').textContent()).toBe('6 nodes, 5 edges');
    expect(await v.page.locator('svg.graph g.node').count()).toBe(6);
    expect(await v.page.locator('svg.graph path.edge').count()).toBe(5);
    // Focus by search in the graph: the matching node and its one neighbour (the symbol).
    await v.page.fill('#graph-search', 'stamp');
    await v.page.press('#graph-search', 'Enter');
    expect(await v.page.locator('#graph-focus').textContent()).toBe('stamp: 1 neighbour');
    // Zoom changes the viewport's transform.
    const before = await v.page.locator('svg.graph g.viewport').getAttribute('transform');
    await v.page.mouse.move(600, 500);
    await v.page.mouse.wheel(0, -300);
    expect(await v.page.locator('svg.graph g.viewport').getAttribute('transform')).not.toBe(before);
    await shot(v.page, 'impact');
  });

  it('file: src/utils/format.ts with its outline; a symbol of the outline opens its page', async () => {
    await open(v, '/file/src/utils/format.ts');
    expect(await v.page.locator('#file-path').textContent()).toBe('src/utils/format.ts');
    // The file has 35 lines (wc -l); its declarations in order (see fixtures/ts-app/src/utils/format.ts).
    expect(await v.page.locator('.file-text .line').count()).toBe(35);
    expect(await v.page.locator('#outline li a').allTextContents()).toEqual([
      'MAX_LOGIN_ATTEMPTS',
      'DEFAULT_LOCALE',
      'formatDate',
      'formatCurrency',
      'formatDateTime',
      'pad',
      'truncate',
      'formatDuration',
    ]);
    await shot(v.page, 'file');
    await v.page.locator('#outline li a', { hasText: /^pad$/ }).click();
    await ready(v.page);
    expect(await v.page.locator('#symbol-name').textContent()).toBe('pad');
  });

  it('status, then an edit: the freshness banner names the changed file; re-index shows progress and clears it', async () => {
    await open(v, '/status');
    // The status page shows the index's own count (fixtures/ts-app: 13 code files + README.md,
    // package.json, tsconfig.json, decision 039).
    expect(await v.page.locator('#counts tr', { hasText: /^files/ }).locator('td').textContent()).toBe('16');
    expect(await v.page.locator('#freshness').getAttribute('class')).toBe('banner');
    await shot(v.page, 'status');
    appendFileSync(join(repo, 'src/utils/format.ts'), '\nexport function addedAfterIndex(): number {\n  return 1;\n}\n');
    await open(v, '/search?q=formatDate');
    expect(await v.page.locator('#freshness').getAttribute('class')).toBe('banner stale');
    expect(await v.page.locator('#freshness .warning').allTextContents()).toEqual(['1 file changed since indexed: src/utils/format.ts']);
    // Record every text the progress line shows while the run goes on.
    await v.page.evaluate(() => {
      const el = document.getElementById('index-progress')!;
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => seen.push(el.textContent ?? '')).observe(el, { childList: true, characterData: true, subtree: true });
    });
    await v.page.click('#reindex');
    await v.page.waitForFunction(() => /^Indexed /.test(document.getElementById('index-progress')?.textContent ?? ''), null, { timeout: 60_000 });
    await ready(v.page);
    const seen = await v.page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.some((t) => /^Indexing: (discover|parse|write|resolve|semantic|embed) \d+\/\d+$/.test(t))).toBe(true);
    // One file changed: the run re-parsed exactly it.
    expect(seen.at(-1)).toMatch(/^Indexed \d+ files, \d+ symbols \(1 changed\) in \d+ ms$/);
    expect(await v.page.locator('#freshness').getAttribute('class')).toBe('banner');
    expect(await v.page.locator('#freshness .warning').count()).toBe(0);
    await shot(v.page, 'reindexed');
  });
});

describe.skipIf(skip !== null)('ca ui label picker (a git repository with a commit label)', () => {
  let repo: string;
  let engine: Engine;
  let v: Viewer;
  let head: string;

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), 'ca-ui-labels-'));
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src', 'a.ts'), 'export function alpha(): number {\n  return 1;\n}\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' }).trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'alpha');
    head = git('rev-parse', 'HEAD');
    // The working tree adds beta (uncommitted); the label "base" is the commit, without it.
    appendFileSync(join(repo, 'src', 'a.ts'), 'export function betaAddedLater(): number {\n  return alpha();\n}\n');
    engine = await indexedEngine(repo);
    await engine.indexCommit('base', 'HEAD');
    v = await openViewer(engine);
  });
  afterAll(async () => {
    await v?.close();
    await engine?.dispose();
    rmSync(repo, { recursive: true, force: true });
  });

  it('switching the label re-runs the page on that label: the commit has no betaAddedLater', async () => {
    await open(v, '/search?q=betaAddedLater');
    expect(await v.page.locator('.result-name').first().textContent()).toBe('betaAddedLater');
    expect(await v.page.locator('#freshness .warning').allTextContents()).toEqual(['indexed with uncommitted changes']);
    expect(await v.page.locator('#label option').allTextContents()).toEqual(['base', 'working']);
    await v.page.selectOption('#label', 'base');
    await ready(v.page);
    expect(new URL(v.page.url()).searchParams.get('label')).toBe('base');
    expect(await v.page.locator('.result-name', { hasText: /^betaAddedLater$/ }).count()).toBe(0);
    expect(await v.page.locator('#freshness > span').first().textContent()).toMatch(new RegExp(`^Label base indexed at ${head.slice(0, 10)}, `));
    await shot(v.page, 'label-base');
  });
});
