import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '@ca/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUi, type RunningUi } from '../src/index.js';
import { ASSETS, chromiumMissing, indexedEngine, open, openViewer, ready, shot, type Viewer } from './harness.js';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-REPOSITORY';
const XSS_NAME = '<img src=x onerror=alert(1)>';
const XSS_FILE = `src/${XSS_NAME}.ts`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request (any Host, Origin and Cookie header, which fetch would not let a test set). */
function call(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Signs in with a fresh one-time code: the session cookie (name=value). */
async function signIn(ui: RunningUi): Promise<string> {
  const url = new URL(ui.loginUrl());
  const res = await call(ui.port, `${url.pathname}${url.search}`);
  const setCookie = String(res.headers['set-cookie']);
  return setCookie.split(';')[0]!;
}

/**
 * A repository whose names and text are HTML, next to a directory outside it with a secret
 * file, reached from the repository by a file symlink and a directory symlink.
 */
function hostileRepo(): { root: string; repo: string } {
  const root = mkdtempSync(join(tmpdir(), 'ca-ui-hostile-'));
  const repo = join(root, 'repo');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  writeFileSync(join(root, 'outside', 'secret.ts'), `export const secret = '${SECRET}';\n`);
  writeFileSync(join(root, 'outside.ts'), `export const outside = '${SECRET}';\n`);
  writeFileSync(join(repo, 'package.json'), '{ "name": "hostile" }\n');
  writeFileSync(
    join(repo, XSS_FILE),
    [
      '/** <script>alert("doc")</script> <b>bold</b> */',
      'export class Widget {',
      `  '${XSS_NAME}'(): string {`,
      `    return '<img src=x onerror=alert("code")>';`,
      '  }',
      '}',
      `export const html = \`<html><body onload="alert('body')"><script>alert('script')</script></body></html>\`;`,
      'export function render(): string {',
      `  return new Widget()['${XSS_NAME}']() + html;`,
      '}',
      '',
    ].join('\n'),
  );
  symlinkSync(join(root, 'outside', 'secret.ts'), join(repo, 'src', 'link.ts'));
  symlinkSync(join(root, 'outside'), join(repo, 'src', 'linkdir'));
  return { root, repo };
}

describe('ca ui: who may call the server', () => {
  let root: string;
  let engine: Engine;
  let ui: RunningUi;
  let cookie: string;

  beforeAll(async () => {
    ({ root } = hostileRepo());
    engine = await indexedEngine(join(root, 'repo'));
    ui = await startUi({ engine, assetsDir: ASSETS });
    cookie = await signIn(ui);
  });
  afterAll(async () => {
    await ui?.close();
    await engine?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('refuses every page, asset and API call without the session cookie (401), or with a wrong one', async () => {
    for (const path of ['/search', '/status', '/symbol/1', '/assets/app.js', '/api/status', '/api/search?q=Widget']) {
      expect((await call(ui.port, path)).status, path).toBe(401);
      expect((await call(ui.port, path, { cookie: 'ca_ui=not-the-token' })).status, path).toBe(401);
    }
    expect((await call(ui.port, '/api/status', { cookie })).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding) or Origin with 403, even with the cookie', async () => {
    expect((await call(ui.port, '/api/status', { cookie, host: `evil.example:${ui.port}` })).status).toBe(403);
    expect((await call(ui.port, '/api/status', { cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await call(ui.port, '/search', { cookie, origin: 'null' })).status).toBe(403);
    expect((await call(ui.port, ui.loginUrl().replace(ui.origin, ''), { host: `evil.example:${ui.port}` })).status).toBe(403);
    expect((await call(ui.port, '/api/status', { cookie, origin: ui.origin })).status).toBe(200);
    expect((await call(ui.port, '/api/status', { cookie, host: `localhost:${ui.port}` })).status).toBe(200);
  });

  it('a login code works once, sets an HttpOnly SameSite=Strict cookie and redirects to a URL without it', async () => {
    const url = new URL(ui.loginUrl('/status'));
    const first = await call(ui.port, `${url.pathname}${url.search}`);
    expect(first.status).toBe(303);
    expect(first.headers['location']).toBe('/status');
    expect(String(first.headers['set-cookie'])).toMatch(/^ca_ui=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    const again = await call(ui.port, `${url.pathname}${url.search}`);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await call(ui.port, '/login?code=guessed')).status).toBe(401);
    // A redirect target on another site is replaced by the search page.
    const offsite = new URL(ui.loginUrl('//evil.example/x'));
    expect((await call(ui.port, `${offsite.pathname}${offsite.search}`)).headers['location']).toBe('/search');
  });

  it('a state change (re-index) needs the viewer header: a form posted from elsewhere is refused', async () => {
    expect((await call(ui.port, '/api/index', { cookie }, 'POST')).status).toBe(403);
    expect((await call(ui.port, '/api/index', { cookie, 'x-ca-ui': '1' }, 'POST')).status).toBe(200);
    await ui.repos.settled();
  });

  it('file paths cannot leave the repository: .., encoded .., absolute paths and symlinks are refused', async () => {
    const refused = [
      '../outside.ts',
      '..%2Foutside.ts',
      '%2e%2e%2Foutside.ts',
      '%252e%252e%252Foutside.ts',
      'src%2F..%2F..%2Foutside.ts',
      encodeURIComponent(join(root, 'outside.ts')),
      '%2Fetc%2Fpasswd',
      'src%2Flink.ts',
      'src%2Flinkdir%2Fsecret.ts',
    ];
    for (const p of refused) {
      const res = await call(ui.port, `/api/file?path=${p}`, { cookie });
      expect(res.status, p).toBe(400);
      expect(JSON.parse(res.body).error.code, p).toBe('invalid_path');
      expect(res.body).not.toContain(SECRET);
    }
    // The symlinks were not followed when indexing: search finds nothing of the secret file.
    const search = await call(ui.port, `/api/search?q=${SECRET}`, { cookie });
    expect(JSON.parse(search.body).results).toEqual([]);
    // The one real file of the repository is served.
    const ok = await call(ui.port, `/api/file?path=${encodeURIComponent(XSS_FILE)}`, { cookie });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).path).toBe(XSS_FILE);
  });

  it('every answer carries a CSP without inline script and nosniff', async () => {
    const res = await call(ui.port, '/search', { cookie });
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).not.toMatch(/<script>[^<]/);
  });
});

describe('ca ui: a repository is named, never a path', () => {
  let root: string;
  let engines: Engine[];
  let ui: RunningUi;
  let cookie: string;

  beforeAll(async () => {
    ({ root } = hostileRepo());
    mkdirSync(join(root, 'second', 'src'), { recursive: true });
    writeFileSync(join(root, 'second', 'src', 'b.ts'), 'export function secondOnly(): number {\n  return 2;\n}\n');
    engines = [await indexedEngine(join(root, 'repo')), await indexedEngine(join(root, 'second'))];
    ui = await startUi({ engines, assetsDir: ASSETS });
    cookie = await signIn(ui);
  });
  afterAll(async () => {
    await ui?.close();
    for (const e of engines ?? []) await e.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers for a served repository by its name; anything else (a path, .., another directory) is 404 unknown_repo', async () => {
    expect(JSON.parse((await call(ui.port, '/api/repos', { cookie })).body)).toEqual({ repos: [{ name: 'repo' }, { name: 'second' }] });
    const second = JSON.parse((await call(ui.port, '/api/search?q=secondOnly&repo=second', { cookie })).body);
    expect(second.results[0].qualifiedName).toBe('secondOnly');
    // `outside` is a real directory next to the served ones, holding the secret; the others are paths.
    for (const repo of ['outside', '..%2Foutside', encodeURIComponent(join(root, 'outside')), encodeURIComponent(join(root, 'second')), '%2Fetc', '.', 'repo%2F..%2Foutside']) {
      for (const path of [`/api/status?repo=${repo}`, `/api/file?path=secret.ts&repo=${repo}`, `/api/search?q=secret&repo=${repo}`, `/search?repo=${repo}`, `/symbol/1?repo=${repo}`]) {
        const res = await call(ui.port, path, { cookie });
        expect(res.status, path).toBe(404);
        expect(JSON.parse(res.body).error.code, path).toBe('unknown_repo');
        expect(res.body, path).not.toContain(SECRET);
      }
    }
    // Without the cookie the name is not even looked at.
    expect((await call(ui.port, '/api/status?repo=outside')).status).toBe(401);
  });
});

const skip = chromiumMissing();

describe.skipIf(skip !== null)('ca ui: what the repository holds is shown as text, never run (headless Chromium)', () => {
  let root: string;
  let engine: Engine;
  let v: Viewer;

  beforeAll(async () => {
    ({ root } = hostileRepo());
    engine = await indexedEngine(join(root, 'repo'));
    v = await openViewer(engine);
  });
  afterAll(async () => {
    await v?.close();
    await engine?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  /** Elements the payloads would create if any text were parsed as HTML. */
  const injected = (v: Viewer) => v.page.locator('main img, main script, main b, #banner img').count();

  it('a symbol named <img src=x onerror=alert(1)> shows as text on search, symbol, file and impact pages, and no dialog opens', async () => {
    await open(v, '/search?q=Widget');
    // The class is the first result; its method (the hostile name) is folded into its code.
    const first = v.page.locator('.result').first();
    expect(await first.locator('.result-name').textContent()).toBe('Widget');
    expect(await first.locator('.path').textContent()).toBe(`${XSS_FILE}:2`);
    expect(await first.locator('.line .src').allTextContents()).toContain(`  '${XSS_NAME}'(): string {`);
    expect(await injected(v)).toBe(0);
    await open(v, `/file/src/${encodeURIComponent(`${XSS_NAME}.ts`)}`);
    expect(await v.page.locator('#file-path').textContent()).toBe(XSS_FILE);
    // The file's HTML lines are shown verbatim (line 7 holds the <html> document).
    expect(await v.page.locator('#L7 .src').textContent()).toBe(`export const html = \`<html><body onload="alert('body')"><script>alert('script')</script></body></html>\`;`);
    expect(await injected(v)).toBe(0);
    await v.page.locator('#outline a', { hasText: `Widget.${XSS_NAME}` }).click();
    await ready(v.page);
    expect(await v.page.locator('#symbol-name').textContent()).toBe(`Widget.${XSS_NAME}`);
    expect(await v.page.locator('#callers li').allTextContents()).toEqual([`render exact ${XSS_FILE}:9`]);
    expect(await injected(v)).toBe(0);
    await v.page.click('text=Impact graph');
    await ready(v.page);
    expect(await v.page.locator('svg.graph g.node text').allTextContents()).toContain(`Widget.${XSS_NAME}`);
    expect(await v.page.locator('svg image, svg img').count()).toBe(0);
    await shot(v.page, 'hostile-impact');
    expect(v.dialogs).toEqual([]);
  });
});
