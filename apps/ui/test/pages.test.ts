import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '@ca/engine';
import { generateToken, serveHttp, SessionPool, type RunningHttpServer } from '@ca/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePages, type UiHandler } from '../src/index.js';
import { ASSETS, chromiumMissing, fixtureCopy, indexedEngine, launchBrowser, open, openViewer, ready, shot, type Viewer } from './harness.js';

const skip = chromiumMissing();

/** Texts of the elements matching `selector`, in page order. */
async function texts(v: Pick<Viewer, 'page'>, selector: string): Promise<string[]> {
  return v.page.locator(selector).allTextContents();
}

describe.skipIf(skip !== null)('ca ui over two repositories (fixtures/ts-app and fixtures/commonjs)', () => {
  let root: string;
  let engines: Engine[];
  let v: Viewer;

  beforeAll(async () => {
    // The copies are root/ts-app and root/commonjs: their names in the picker are the fixtures'.
    root = mkdtempSync(join(tmpdir(), 'ca-ui-two-'));
    const tsApp = fixtureCopy('ts-app', root);
    // A file whose own text reads like a collapsed body: the file page must number it line by line.
    writeFileSync(join(tsApp, 'src', 'literal.ts'), 'export const a = 1; // { /* 3 lines collapsed */ }\nexport const b = 2;\nexport const c = 3;\n');
    engines = [await indexedEngine(tsApp), await indexedEngine(fixtureCopy('commonjs', root))];
    v = await openViewer(engines);
  });
  afterAll(async () => {
    await v?.close();
    for (const e of engines ?? []) await e.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('the picker lists both; choosing one re-runs the search there and every link carries the repository', async () => {
    await open(v, '/search?q=makeThing');
    expect(await texts(v, '#repo option')).toEqual(['ts-app', 'commonjs']);
    expect(await v.page.locator('#repo').isVisible()).toBe(true);
    // Without ?repo= the page is the first repository's: ts-app has no makeThing.
    expect(await v.page.locator('.result-name', { hasText: /^makeThing$/ }).count()).toBe(0);
    await v.page.selectOption('#repo', 'commonjs');
    await ready(v.page);
    expect(new URL(v.page.url()).searchParams.get('repo')).toBe('commonjs');
    expect(new URL(v.page.url()).searchParams.get('q')).toBe('makeThing');
    // fixtures/commonjs/lib/Fn.js line 1: `module.exports = function makeThing(a) {`.
    const first = v.page.locator('.result').first();
    expect(await first.locator('.result-name').textContent()).toBe('makeThing');
    expect(await first.locator('.path').textContent()).toBe('lib/Fn.js:1');
    const symbolLink = new URL((await first.locator('a').first().getAttribute('href'))!, 'http://x');
    expect(symbolLink.searchParams.get('repo')).toBe('commonjs');
    expect(new URL((await v.page.locator('nav.top a', { hasText: 'Status' }).getAttribute('href'))!, 'http://x').searchParams.get('repo')).toBe('commonjs');
    await shot(v.page, 'two-repos');
    // The deep link opens the symbol of that repository (ids are per index).
    await open(v, `${symbolLink.pathname}${symbolLink.search}`);
    expect(await v.page.locator('#symbol-name').textContent()).toBe('makeThing');
    expect(await v.page.locator('#repo').inputValue()).toBe('commonjs');
    // The same id without the repository is ts-app's symbol of that id, not makeThing.
    await open(v, symbolLink.pathname);
    expect(await v.page.locator('#symbol-name').textContent()).not.toBe('makeThing');
  });

  it('completion offers the kinds the index holds after kind:, and takes one with Enter', async () => {
    await open(v, '/search');
    await v.page.locator('#q').pressSequentially('formatDate kind:');
    await v.page.waitForSelector('#completions:not([hidden]) li');
    // NODE_KINDS order, kept when fixtures/ts-app has one (`ca find kind:K` total > 0): files,
    // a module (App.jsx's), the Billing namespace (invoice.ts), classes, interfaces, the enum,
    // two type aliases, functions, methods, constructors, AuthService's getter and setter
    // (activeUser), properties, variables (MAX_LOGIN_ATTEMPTS …), the React components, README.md's
    // section (doc) and the keys of package.json/tsconfig.json (config).
    expect(await texts(v, '#completions li')).toEqual(
      ['file', 'module', 'namespace', 'class', 'interface', 'enum', 'type_alias', 'function', 'method', 'constructor', 'getter', 'setter', 'property', 'variable', 'component', 'doc', 'config'].map((k) => `kind:${k}`),
    );
    // Narrowed by what is typed: constant (a kind, none in the fixture) is not offered.
    await v.page.locator('#q').pressSequentially('c');
    await v.page.waitForFunction(() => document.querySelectorAll('#completions li').length === 4);
    expect(await texts(v, '#completions li')).toEqual(['kind:class', 'kind:constructor', 'kind:component', 'kind:config']);
    await v.page.press('#q', 'ArrowDown');
    await v.page.press('#q', 'Enter');
    expect(await v.page.locator('#q').inputValue()).toBe('formatDate kind:constructor ');
    // Fields complete too.
    await v.page.locator('#q').pressSequentially('pa');
    // Wait for the list of "pa", not the one of "p" (path:, project:) still showing.
    await v.page.waitForFunction(() => [...document.querySelectorAll('#completions li')].map((li) => li.textContent).join() === 'path:');
    expect(await texts(v, '#completions li')).toEqual(['path:']);
    await shot(v.page, 'completion');
  });

  it('filter terms of the query box filter the search: kind:function keeps formatDate, kind:class drops it', async () => {
    await open(v, '/search?q=formatDate%20kind:function');
    expect(await v.page.locator('#filter').textContent()).toBe(' filter: kind:function');
    expect(await v.page.locator('.result-name').first().textContent()).toBe('formatDate');
    expect(new Set(await texts(v, '.result .kind'))).toEqual(new Set(['function']));
    await open(v, '/search?q=formatDate%20kind:class');
    expect(await v.page.locator('.result-name', { hasText: /^formatDate$/ }).count()).toBe(0);
  });

  it('a collapsed child is numbered by the file and expands in place to its own lines', async () => {
    await open(v, '/search?q=MemoryTokenStore');
    const auth = v.page.locator('.result', { has: v.page.locator('.result-name', { hasText: /^AuthService$/ }) });
    // AuthService (authService.ts:15-73) comes with its matched members in full and three bodies
    // collapsed: activeUser's getter (52-54, 3 lines), its setter (56-58) and checkPassword
    // (64-67, 4 lines). Each collapsed line stands for its N lines, so the setter is on 56 (not
    // 54: the getter's line stands for 52-54) and describe, after it, on 60.
    expect(await auth.locator('.line.collapsed .ln').allTextContents()).toEqual(['52', '56', '64']);
    expect(await auth.locator('.line.collapsed button.expand').allTextContents()).toEqual(['+3', '+3', '+4']);
    expect(await auth.locator('.line', { hasText: 'describe(session: Session): string {' }).locator('.ln').textContent()).toBe('60');
    await auth.locator('#L64 button.expand').click();
    await v.page.waitForSelector('.line.expanded');
    // checkPassword's four lines, numbered 64-67, in place of the collapsed one.
    expect(await auth.locator('.line.expanded .ln').allTextContents()).toEqual(['64', '65', '66', '67']);
    expect(await auth.locator('.line.expanded .src').allTextContents()).toEqual([
      '  private checkPassword(user: string, password: string): boolean {',
      '    // Demo rule only: real deployments delegate to the identity provider.',
      '    return password.length >= 8 && !password.includes(user);',
      '  }',
    ]);
    expect(await auth.locator('.line.collapsed .ln').allTextContents()).toEqual(['52', '56']);
    await shot(v.page, 'expanded-child');
  });

  it('a body collapsed inside an expression (`module.exports = function … { … };`) expands with its prefix and suffix kept', async () => {
    await open(v, '/search?q=makeThing&repo=commonjs');
    // fixtures/commonjs/lib/Fn.js is three lines; the file's chunk shows them as one collapsed line.
    const file = v.page.locator('.result', { has: v.page.locator('.result-name', { hasText: /^lib\/Fn\.js$/ }) });
    expect(await file.locator('.line .src').allTextContents()).toEqual(['module.exports = function makeThing(a) { /* 3 lines collapsed */ };']);
    await file.locator('#L1 button.expand').click();
    await v.page.waitForSelector('.line.expanded');
    expect(await file.locator('.line .ln').allTextContents()).toEqual(['1', '2', '3']);
    expect(await file.locator('.line .src').allTextContents()).toEqual(['module.exports = function makeThing(a) {', '  return a;', '};']);
  });

  it('the file page numbers the file line by line, even a line that reads like a collapsed body', async () => {
    await open(v, '/file/src/literal.ts');
    expect(await v.page.locator('.file-text .line .ln').allTextContents()).toEqual(['1', '2', '3']);
    expect(await v.page.locator('#L2 .src').textContent()).toBe('export const b = 2;');
  });

  it('symbol: each callee is on the row of its call line; approximate ones hidden until the toggle', async () => {
    await open(v, '/search?q=AuthService.login');
    await v.page.locator('.result-name', { hasText: /^AuthService\.login$/ }).first().click();
    await ready(v.page);
    // authService.ts: checkPassword is called on line 27, issueToken on 32, store.save on 33.
    const rows = { 'AuthService.checkPassword': 27, 'AuthService.issueToken': 32, 'TokenStore.save': 33 } as const;
    for (const [name, line] of Object.entries(rows)) {
      const item = v.page.locator('#callees li.edge', { has: v.page.locator('a', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });
      expect(await item.locator('xpath=ancestor::div[contains(@class,"callee-row")]').getAttribute('data-line'), name).toBe(String(line));
      // On screen: the callee's row starts where the source line starts.
      const rowBox = (await v.page.locator(`#callees-L${line}`).boundingBox())!;
      const lineBox = (await v.page.locator(`#source #L${line}`).boundingBox())!;
      expect(Math.round(rowBox.y), name).toBe(Math.round(lineBox.y));
      expect(rowBox.x, name).toBeGreaterThan(lineBox.x + lineBox.width - 1);
    }
    // The rows of lines without a call are empty: 23 (`const attempts = this.failedAttempts.get(…)`, a Map method, library code).
    expect(await v.page.locator('#callees-L23 li').count()).toBe(0);
    // `new Error(…)` on 25 and 29 are approximate: hidden, then shown by the toggle on their rows.
    expect(await v.page.locator('#callees-L25 li').isVisible()).toBe(false);
    expect(await v.page.locator('label.approx-toggle').textContent()).toBe(' show 2 approximate edges (name-matched, may be wrong)');
    await v.page.check('#show-approx');
    expect(await v.page.locator('#callees-L25 li').isVisible()).toBe(true);
    expect(await v.page.locator('#callees-L25 li').textContent()).toBe('Error approximate src/auth/authService.ts:25');
    expect(Math.round((await v.page.locator('#callees-L29').boundingBox())!.y)).toBe(Math.round((await v.page.locator('#source #L29').boundingBox())!.y));
    await shot(v.page, 'symbol-aligned');
    await v.page.uncheck('#show-approx');
    expect(await v.page.locator('#callees-L29 li').isVisible()).toBe(false);
  });
});

describe.skipIf(skip !== null)('ca serve hosts the pages beside /mcp, behind its token', () => {
  let repo: string;
  let pool: SessionPool;
  let server: RunningHttpServer;
  let pages: UiHandler;
  let token: string;

  beforeAll(async () => {
    repo = fixtureCopy('ts-app');
    await (await indexedEngine(repo)).dispose();
    token = generateToken();
    pool = new SessionPool({ repos: [repo], session: { refresh: false, log: () => {}, configOverrides: { embedding: { enabled: false } } } });
    pages = servePages(pool, token, () => {}, ASSETS);
    server = await serveHttp({ repos: pool, port: 0, token, log: () => {}, pages: pages.handle });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(repo, { recursive: true, force: true });
  });

  it('the API answers the bearer token and refuses without it; /mcp stays the MCP endpoint', async () => {
    const origin = server.url.replace(/\/mcp$/, '');
    expect((await fetch(`${origin}/api/status`)).status).toBe(401);
    expect((await fetch(`${origin}/api/status`, { headers: { authorization: 'Bearer wrong-token-wrong-token' } })).status).toBe(401);
    const ok = await fetch(`${origin}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    // fixtures/ts-app: the 12 code files under src/ and package.json, as the index counts them.
    expect(((await ok.json()) as { files: number }).files).toBe((await pool.use(undefined, async (s) => s.engine().status().files)));
    const repos = await fetch(`${origin}/api/repos`, { headers: { authorization: `Bearer ${token}` } });
    expect(await repos.json()).toEqual({ repos: [{ name: repo.split('/').at(-1) }] });
    expect((await fetch(`${origin}/mcp`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${origin}/api/status`, { headers: { authorization: `Bearer ${token}`, origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('a browser signs in with the printed one-time link and gets the search page', async () => {
    const b = await launchBrowser();
    try {
      const origin = server.url.replace(/\/mcp$/, '');
      await b.page.goto(pages.loginUrl(origin, '/search?q=formatDate'));
      await ready(b.page);
      expect(new URL(b.page.url()).pathname).toBe('/search');
      expect(await b.page.locator('.result-name').first().textContent()).toBe('formatDate');
      expect(await b.page.locator('.result .path').first().textContent()).toBe('src/utils/format.ts:7');
      // One repository: no picker shown.
      expect(await b.page.locator('#repo').isVisible()).toBe(false);
      await shot(b.page, 'serve-search');
    } finally {
      await b.context.close();
      rmSync(b.profile, { recursive: true, force: true });
    }
  });
});
