import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateTokens } from '@ca/engine';
import { TOOL_NAMES } from '../src/index.js';
import { callTool, CLEAN_ENV, CLI_BIN, copyFixture, MCP_BIN } from './helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const ENV = { ...CLEAN_ENV, CA_EMBEDDING_ENABLED: 'false', CA_MCP_TOKEN: TOKEN };

/** Starts `args` (an HTTP server on a free port) and resolves with its URL once it listens. */
function startServer(args: string[], env: Record<string, string> = ENV): Promise<{ child: ChildProcess; url: URL; stderr: () => string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      const m = / on (http:\/\/\S+\/mcp)\n/.exec(stderr);
      // The token line follows the address line.
      if (m && /ca-mcp: token: .*\n/.test(stderr)) resolve({ child, url: new URL(m[1]!), stderr: () => stderr });
    });
    child.once('exit', (code) => reject(new Error(`the server exited ${code}: ${stderr}`)));
  });
}

async function httpClient(url: URL, token = TOKEN): Promise<Client> {
  const client = new Client({ name: 'ca-mcp-http-test', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** A raw POST of `body` to the server with the headers given (Host and Origin may be forged here, unlike with fetch). */
function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

describe('ca serve: one HTTP server for two repositories and many sessions', () => {
  let app: string;
  let mono: string;
  let server: { child: ChildProcess; url: URL; stderr: () => string };
  beforeAll(async () => {
    app = copyFixture('ts-app');
    mono = copyFixture('ts-monorepo');
    server = await startServer([CLI_BIN, 'serve', '--port', '0', '--repo', app, '--repo', mono]);
  }, 60_000);
  afterAll(async () => {
    const exited = new Promise((res) => server.child.once('exit', res));
    server.child.kill('SIGTERM');
    await exited;
    rmSync(join(app, '..'), { recursive: true, force: true });
    rmSync(join(mono, '..'), { recursive: true, force: true });
  });

  it('binds 127.0.0.1 and says where; the token came from CA_MCP_TOKEN', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.stderr()).toContain(`ca-mcp: serving ${app}, ${mono} on http://127.0.0.1:${server.url.port}/mcp\n`);
    expect(server.stderr()).toContain('ca-mcp: token: from CA_MCP_TOKEN\n');
  });

  it('serves both repositories to one client, each named with repo; tools/list stays under 3,000 tokens with the repo argument', async () => {
    const client = await httpClient(server.url);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      expect(Object.keys(listed.tools[0]!.inputSchema.properties ?? {})).toContain('repo');
      expect(estimateTokens(JSON.stringify(listed))).toBeLessThanOrEqual(3000);
      expect(client.getInstructions()).toContain(`name one with the repo argument of any tool (${app}, ${mono})`);
      const inApp = await callTool(client, 'get_callers', { symbol: 'AuthService.issueToken', repo: app });
      expect(inApp.json.edges.map((e: any) => e.line)).toEqual([32, 46]);
      // fixtures/ts-monorepo: formatMoney is called from checkout.ts:8, stripeGateway.ts:11 and PriceTag.tsx:14.
      const inMono = await callTool(client, 'get_callers', { symbol: 'formatMoney', repo: mono });
      expect(inMono.json.edges.map((e: any) => [e.path, e.line])).toEqual([
        ['packages/core/src/checkout.ts', 8],
        ['packages/core/src/payments/stripeGateway.ts', 11],
        ['packages/web/src/PriceTag.tsx', 14],
      ]);
      const status = await callTool(client, 'get_status', { repo: mono });
      expect([status.json.repo, status.json.repos]).toEqual([mono, [app, mono]]);
      // One ranking over both: formatMoney is ts-monorepo's, formatCurrency ts-app's; each result names its repository.
      const both = await callTool(client, 'search_code', { query: 'formatMoney formatCurrency', repos: [app, mono], limit: 4, filter: 'kind:function' });
      const found = both.json.results.map((r: any) => [r.qualifiedName, r.repo]);
      expect(found).toContainEqual(['formatMoney', mono]);
      expect(found).toContainEqual(['formatCurrency', app]);
      expect(both.json.results.every((r: any) => r.kind === 'function')).toBe(true);
      const refused = await callTool(client, 'search_code', { query: 'x', repos: [app, '/etc'] });
      expect(refused.json.error).toEqual({ code: 'invalid_path', message: `repository /etc is not served by this server (allowed: ${app}, ${mono})` });
    } finally {
      await client.close();
    }
  }, 180_000);

  it('refuses a repository outside the allow-list, and a call without repo when several are served', async () => {
    const client = await httpClient(server.url);
    try {
      const outside = await callTool(client, 'get_status', { repo: '/etc' });
      expect([outside.isError, outside.json.error]).toEqual([true, { code: 'invalid_path', message: `repository /etc is not served by this server (allowed: ${app}, ${mono})` }]);
      const sibling = await callTool(client, 'read_file', { repo: `${app}-evil`, path: 'x' });
      expect(sibling.json.error.code).toBe('invalid_path');
      const unnamed = await callTool(client, 'get_status');
      expect(unnamed.json.error).toEqual({ code: 'usage', message: `this server serves several repositories: name one with repo (one of ${app}, ${mono})` });
    } finally {
      await client.close();
    }
  });

  it('two sessions at once, each with its own session id, share the warm engines', async () => {
    const [a, b] = await Promise.all([httpClient(server.url), httpClient(server.url)]);
    try {
      const [ra, rb] = await Promise.all([
        callTool(a, 'lookup_symbol', { symbol: 'AuthService.login', repo: app }),
        callTool(b, 'lookup_symbol', { symbol: 'formatMoney', repo: mono }),
      ]);
      expect(ra.json.matches.map((m: any) => [m.qualifiedName, m.startLine])).toEqual([['AuthService.login', 22]]);
      expect(rb.json.matches.map((m: any) => m.path)).toEqual(['packages/core/src/money.ts']);
      const ids = [(a as any)._transport.sessionId, (b as any)._transport.sessionId];
      expect(ids[0]).not.toBe(ids[1]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 120_000);

  it('a foreign Host or Origin is refused with 403 (DNS rebinding), before the token is looked at', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const host = await post(server.url, { ...auth, host: 'evil.example' }, INIT);
    expect([host.status, JSON.parse(host.body).error.message]).toEqual([403, 'Forbidden: Host "evil.example" is not this server']);
    const rebound = await post(server.url, { ...auth, host: `attacker.example:${server.url.port}` }, INIT);
    expect(rebound.status).toBe(403);
    const origin = await post(server.url, { ...auth, origin: 'https://evil.example' }, INIT);
    expect([origin.status, JSON.parse(origin.body).error.message]).toEqual([403, 'Forbidden: Origin "https://evil.example" may not call this server']);
    // An Origin that is not a URL at all (an unclosed IPv6 bracket) names no host: refused the same way, not a 500.
    const garbled = await post(server.url, { ...auth, origin: 'http://[::1' }, INIT);
    expect([garbled.status, JSON.parse(garbled.body).error.message]).toEqual([403, 'Forbidden: Origin "http://[::1" may not call this server']);
    const local = await post(server.url, { ...auth, origin: 'http://localhost:3000' }, INIT);
    expect(local.status).toBe(200);
  });

  it('a missing or wrong bearer token is refused with 401', async () => {
    const none = await post(server.url, {}, INIT);
    expect([none.status, none.headers['www-authenticate'], JSON.parse(none.body).error.message]).toEqual([
      401,
      'Bearer',
      'Unauthorized: send Authorization: Bearer <token> (printed by the server at launch, or CA_MCP_TOKEN)',
    ]);
    expect((await post(server.url, { authorization: 'Bearer wrong-token-0123456789abc' }, INIT)).status).toBe(401);
    expect((await post(server.url, { authorization: `Basic ${TOKEN}` }, INIT)).status).toBe(401);
    await expect(httpClient(server.url, 'wrong-token-0123456789abc')).rejects.toThrow(/Unauthorized/);
  });

  it('a malformed body, a request without a session and an oversized body get HTTP errors; the server keeps serving', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const bad = await post(server.url, auth, '{"jsonrpc":');
    expect([bad.status, JSON.parse(bad.body).error.code]).toEqual([400, -32700]);
    const early = await post(server.url, auth, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(early.status).toBe(400);
    const big = await post(server.url, auth, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { pad: 'x'.repeat(20 * 1024 * 1024) } }));
    expect(big.status).toBe(413);
    const client = await httpClient(server.url);
    expect((await callTool(client, 'list_labels', { repo: app })).json.labels[0].name).toBe('working');
    await client.close();
  }, 60_000);
});

describe('HTTP launch checks', () => {
  it('generates a token per launch and prints it on stderr; a non-loopback bind needs --allow-remote and a chosen token', async () => {
    const repo = copyFixture('ts-app');
    const env = { ...CLEAN_ENV, CA_EMBEDDING_ENABLED: 'false' };
    const server = await startServer([MCP_BIN, '--http', '--port', '0', repo], env);
    try {
      const token = /ca-mcp: token: (\S+)\n/.exec(server.stderr())![1]!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const client = await httpClient(server.url, token);
      // fixtures/ts-app: 13 code files + README.md, package.json, tsconfig.json (decision 039).
      expect((await callTool(client, 'get_status')).json.files).toBe(16);
      await client.close();
    } finally {
      server.child.kill('SIGTERM');
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
    const run = (args: string[], extra: Record<string, string> = {}) =>
      new Promise<{ code: number | null; stderr: string }>((res) => {
        const child = spawn(process.execPath, [MCP_BIN, ...args], { env: { ...env, ...extra } });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        child.once('exit', (code) => res({ code, stderr }));
      });
    const remote = await run(['--http', '--host', '0.0.0.0', '--port', '0']);
    expect([remote.code, remote.stderr.split('\n')[0]]).toEqual([2, 'ca-mcp: --host 0.0.0.0 is not a loopback address: add --allow-remote to expose the server']);
    const noToken = await run(['--http', '--host', '0.0.0.0', '--allow-remote', '--port', '0']);
    expect([noToken.code, noToken.stderr.split('\n')[0]]).toEqual([2, 'ca-mcp: a non-loopback bind needs a token you chose: set CA_MCP_TOKEN']);
  }, 120_000);
});
