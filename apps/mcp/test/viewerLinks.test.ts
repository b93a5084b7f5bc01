import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_PROBE_PATH, ViewerLinks, viewerFilePath, viewerUrl, writeViewerFile } from '../src/index.js';
import { connect, copyFixture, type Connected } from './helpers.js';

/** A stand-in for `ca ui` on a free port: answers the probe path with `instance` (or `body` when given). */
async function fakeViewer(instance: string, body?: { status: number; text: string }): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    if (body) {
      res.writeHead(body.status, { 'content-type': 'text/html' });
      return res.end(body.text);
    }
    if (req.url !== VIEWER_PROBE_PATH) {
      res.writeHead(401);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ app: 'ca-ui', instance }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as AddressInfo).port, server };
}

const close = (s: Server) => new Promise<void>((done) => s.close(() => done()));

describe('MCP answers link into a running viewer (ca ui)', () => {
  let repo: string;
  let db: string;
  let mcp: Connected;
  let viewer: { port: number; server: Server };

  beforeAll(async () => {
    repo = copyFixture('ts-app');
    db = join(repo, '.codeagent', 'index.db');
    mcp = await connect({ repo });
    viewer = await fakeViewer('inst-1');
  }, 120_000);
  afterAll(async () => {
    await mcp?.close();
    if (viewer) await close(viewer.server);
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('no ui.json: no link in navigation or search answers', async () => {
    const r = await mcp.call('get_callers', { symbol: 'AuthService.issueToken' });
    expect(r.isError).toBe(false);
    expect('viewer' in r.json).toBe(false);
    const s = await mcp.call('search_code', { query: 'formatDate' });
    expect('viewer' in s.json).toBe(false);
    expect(s.json.results.some((x: object) => 'viewer' in x)).toBe(false);
    expect(s.texts[0]).not.toContain('viewer:');
  });

  it('a viewer announced and answering: /symbol/ID, /impact/ID and /search?q= links, with no token in them', async () => {
    writeViewerFile(db, { app: 'ca-ui', port: viewer.port, pid: process.pid, instance: 'inst-1', repoRoot: repo });
    const origin = `http://127.0.0.1:${viewer.port}`;
    const callers = await mcp.call('get_callers', { symbol: 'AuthService.issueToken' });
    // The whole link is the origin and the page: nothing else (no token, no code) can ride in it.
    expect(callers.json.viewer).toBe(`${origin}/symbol/${callers.json.symbol.id}`);
    const impact = await mcp.call('impact_analysis', { symbol: 'formatDate' });
    expect(impact.json.viewer).toBe(`${origin}/impact/${impact.json.symbol.id}`);
    const s = await mcp.call('search_code', { query: 'formatDate' });
    expect(s.json.viewer).toBe(`${origin}/search?q=formatDate`);
    expect(s.json.results[0].qualifiedName).toBe('formatDate');
    expect(s.json.results[0].viewer).toBe(`${origin}/symbol/${s.json.results[0].id}`);
    expect(s.texts[0]!.split('\n').at(-1)).toBe(`viewer: ${origin}/search?q=formatDate`);
  });

  it('the viewer stopped without removing its file: no link once the port no longer answers', async () => {
    const stopped = await fakeViewer('inst-2');
    writeViewerFile(db, { app: 'ca-ui', port: stopped.port, pid: process.pid, instance: 'inst-2', repoRoot: repo });
    const live = (await mcp.call('get_callers', { symbol: 'AuthService.issueToken' })).json;
    expect(live.viewer).toBe(`http://127.0.0.1:${stopped.port}/symbol/${live.symbol.id}`);
    await close(stopped.server);
    // The same announcement written again (a new file: the verdict is not reused).
    writeViewerFile(db, { app: 'ca-ui', port: stopped.port, pid: process.pid, instance: 'inst-2', repoRoot: repo });
    expect('viewer' in (await mcp.call('get_callers', { symbol: 'AuthService.issueToken' })).json).toBe(false);
  });
});

describe('ViewerLinks: which announcements give a link', () => {
  let repo: string;
  let db: string;
  const servers: Server[] = [];

  beforeAll(() => {
    repo = copyFixture('ts-app');
    // No index is needed: the links read only the file beside where the index would be.
    mkdirSync(join(repo, '.codeagent'), { recursive: true });
    db = join(repo, '.codeagent', 'index.db');
  });
  afterAll(async () => {
    for (const s of servers) await close(s);
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  const announce = (port: number, instance: string, repoRoot = repo) => writeViewerFile(db, { app: 'ca-ui', port, pid: 1, instance, repoRoot });

  it('the announced instance answering → its origin; another instance, another program, another repository, a torn file → null', async () => {
    const v = await fakeViewer('right');
    const html = await fakeViewer('', { status: 200, text: '<html>not the viewer</html>' });
    servers.push(v.server, html.server);
    announce(v.port, 'right');
    expect(await new ViewerLinks().origin(db, repo)).toBe(`http://127.0.0.1:${v.port}`);
    // The port answers as a viewer, but a different launch: the file is stale.
    announce(v.port, 'wrong');
    expect(await new ViewerLinks().origin(db, repo)).toBeNull();
    // Another program on the announced port.
    announce(html.port, 'right');
    expect(await new ViewerLinks().origin(db, repo)).toBeNull();
    // A viewer of another working tree sharing this index.
    announce(v.port, 'right', '/elsewhere');
    expect(await new ViewerLinks().origin(db, repo)).toBeNull();
    writeFileSync(viewerFilePath(db), '{"app":"ca-ui","port":');
    expect(await new ViewerLinks().origin(db, repo)).toBeNull();
  });

  it('reuses a verdict while the file is unchanged, for 5 s', async () => {
    const v = await fakeViewer('cached');
    servers.push(v.server);
    announce(v.port, 'cached');
    let now = 1_000;
    const links = new ViewerLinks(() => now);
    expect(await links.origin(db, repo)).toBe(`http://127.0.0.1:${v.port}`);
    await close(v.server);
    servers.pop();
    now += 4_999;
    expect(await links.origin(db, repo)).toBe(`http://127.0.0.1:${v.port}`);
    now += 1;
    expect(await links.origin(db, repo)).toBeNull();
  });

  it('viewerUrl keeps the label as ?label=', () => {
    expect(viewerUrl('http://127.0.0.1:7312', '/symbol/12', 'v1.0 rc')).toBe('http://127.0.0.1:7312/symbol/12?label=v1.0%20rc');
    expect(viewerUrl('http://127.0.0.1:7312', '/search?q=a', 'main')).toBe('http://127.0.0.1:7312/search?q=a&label=main');
  });
});
