import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../src/index.js';
import { callTool, CLEAN_ENV, CLI_BIN, copyFixture, MCP_BIN } from './helpers.js';

/** A model folder that does not exist: the server must say the vector channel is off, and why. */
const ENV = { ...CLEAN_ENV, CA_EMBEDDING_MODEL_DIR: '/nonexistent/models' };
const MODEL_OFF = 'CA_EMBEDDING_MODEL_DIR=/nonexistent/models: model folder /nonexistent/models/all-MiniLM-L6-v2 does not exist';

async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env: ENV, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'ca-mcp-stdio-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('ca-mcp over real stdio (the built bin)', () => {
  let repo: string;
  let client: Client;
  let stderr: () => string;
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    ({ client, stderr } = await stdioClient([MCP_BIN, repo]));
  });
  afterAll(async () => {
    await client.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('lists the tools and answers a search: exact name first, vector channel off with the reason', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const r = await client.callTool({ name: 'search_code', arguments: { query: 'AuthService.login', limit: 2 } });
    expect((r.structuredContent as any).results.map((x: any) => [x.qualifiedName, x.kind, x.path, x.startLine])[0]).toEqual(['AuthService.login', 'method', 'src/auth/authService.ts', 22]);
    expect((r.structuredContent as any).notices).toEqual([`vector channel off: ${MODEL_OFF}`]);
    const status = await callTool(client, 'get_status');
    // fixtures/ts-app: 13 code files + README.md, package.json, tsconfig.json (decision 039).
    expect([status.json.vectorChannel, status.json.files]).toEqual([`off: ${MODEL_OFF}`, 16]);
  });

  it('an error result leaves the process serving; logs go to stderr', async () => {
    const bad = await callTool(client, 'get_callers', { symbol: 'NoSuchThing' });
    expect([bad.isError, bad.json]).toEqual([true, { error: { code: 'not_found', message: 'no symbol matches "NoSuchThing"' } }]);
    const good = await callTool(client, 'get_callers', { symbol: 'AuthService.issueToken' });
    expect(good.json.edges.length).toBe(2);
    expect(stderr().split('\n')[0]).toBe(`ca-mcp: serving ${repo}`);
    // 16: ts-app's 13 code files + README.md, package.json, tsconfig.json (decision 039).
    expect(stderr()).toContain('ca-mcp: indexed: 16 changed, 0 removed in ');
  });
});

describe('ca mcp (the CLI subcommand starts the same server)', () => {
  it('serves the tools of the repository given as PATH', async () => {
    const repo = copyFixture('ts-app');
    const { client } = await stdioClient([CLI_BIN, 'mcp', repo]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      const r = await callTool(client, 'get_source_spans', { symbol: 'AuthService.login' });
      expect([r.json.symbol.qualifiedName, r.json.spans[0].startLine, r.json.spans[0].stale]).toEqual(['AuthService.login', 22, false]);
    } finally {
      await client.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  });
});

/** The server process spoken to line by line, as a broken or hostile client would. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  private out = '';
  stderr = '';
  exited: number | null | undefined = undefined;
  constructor(args: string[]) {
    this.child = spawn(process.execPath, args, { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (d: Buffer) => (this.out += d.toString('utf8')));
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.child.once('exit', (code) => (this.exited = code));
  }
  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }
  send(message: object): void {
    this.write(JSON.stringify(message));
  }
  /** Every line written to stdout so far, parsed (a line that is not JSON fails the test). */
  lines(): any[] {
    return this.out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
  }
  /** Waits until the answer to `id` has arrived. */
  async answer(id: number | string | null, timeoutMs = 60_000): Promise<any> {
    const start = Date.now();
    for (;;) {
      const found = this.lines().find((m) => m.id === id && ('result' in m || 'error' in m));
      if (found) return found;
      if (this.exited !== undefined) throw new Error(`the server exited (${this.exited}) before answering ${id}: ${this.stderr}`);
      if (Date.now() - start > timeoutMs) throw new Error(`no answer to ${id} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  initialize(id = 'init'): void {
    this.send({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  async stop(): Promise<number | null> {
    this.child.stdin.end();
    if (this.exited !== undefined) return this.exited;
    return new Promise((res) => this.child.once('exit', (code) => res(code)));
  }
}

describe('hostile and broken input over stdio never ends the server', () => {
  let repo: string;
  let server: RawServer;
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    server = new RawServer([MCP_BIN, repo]);
  });
  afterAll(async () => {
    await server.stop();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('a call before initialize gets "server not initialized"; then initialize works', async () => {
    server.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_status', arguments: {} } });
    expect(await server.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Server not initialized: send initialize before tools/call' } });
    server.initialize();
    expect((await server.answer('init')).result.serverInfo.name).toBe('code-agent');
  });

  it('a malformed frame, a wrong jsonrpc version, a missing method and a batch get JSON-RPC errors', async () => {
    server.write('{"jsonrpc":"2.0","id":2,"method":');
    expect(await server.answer(null)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Unexpected end of JSON input' } });
    server.send({ jsonrpc: '1.0', id: 3, method: 'ping' });
    expect(await server.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' } });
    server.send({ jsonrpc: '2.0', id: 4 });
    expect(await server.answer(4)).toEqual({ jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Invalid Request: a request needs a method' } });
    server.write(JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'ping' }]));
    server.send({ jsonrpc: '2.0', id: 6, method: 'ping' });
    expect(await server.answer(6)).toEqual({ jsonrpc: '2.0', id: 6, result: {} });
    expect(server.lines().filter((m) => m.id === null).map((m) => m.error.message)).toContain('Invalid Request: batches are not supported; send one message per line');
  });

  it('a 20 MB frame is dropped with a clear error, and the next request is answered', async () => {
    const before = server.lines().filter((m) => m.id === null).length;
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_code', arguments: { query: 'x'.repeat(20 * 1024 * 1024) } } }));
    server.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await server.answer(8)).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
    const dropped = server.lines().filter((m) => m.id === null).slice(before);
    // The frame: 20 MiB (20,971,520 bytes) of query plus the 103 bytes of JSON around it.
    expect(dropped).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'message of 20971623 bytes is over the limit of 4194304 bytes; it was dropped' } }]);
    expect(server.exited).toBe(undefined);
  });

  it('100K-deep nested arguments, an unknown tool and an unknown method are errors, not a crash', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    server.write(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search_code","arguments":{"query":${deep}}}}`);
    const nested = await server.answer(9);
    expect(nested.result.isError).toBe(true);
    expect(nested.result.content[0].text).toBe('MCP error -32602: Input validation error: Invalid arguments for tool search_code: Invalid input: expected string, received array at query');
    server.write(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"get_status","arguments":{"extra":${deep}}}}`);
    expect((await server.answer(10)).result.isError).toBeUndefined();
    server.send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'frobnicate', arguments: {} } });
    expect((await server.answer(11)).result).toEqual({ content: [{ type: 'text', text: 'MCP error -32602: Tool frobnicate not found' }], isError: true });
    server.send({ jsonrpc: '2.0', id: 12, method: 'frobnicate/now' });
    expect((await server.answer(12)).error).toEqual({ code: -32601, message: 'Method not found' });
  });

  it('2,000 pipelined requests are all answered', async () => {
    const ids = Array.from({ length: 2000 }, (_, i) => 1000 + i);
    // Written in one go, before reading any answer: alternating cheap pings and tool calls.
    server.child.stdin.write(
      ids
        .map((id) =>
          JSON.stringify(id % 2 === 0 ? { jsonrpc: '2.0', id, method: 'ping' } : { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'lookup_symbol', arguments: { symbol: 'AuthService.login' } } }),
        )
        .join('\n') + '\n',
    );
    await server.answer(2999, 120_000);
    const answered = new Map(server.lines().filter((m) => typeof m.id === 'number' && m.id >= 1000).map((m) => [m.id, m] as const));
    expect(ids.filter((id) => !answered.has(id))).toEqual([]);
    expect(JSON.parse(answered.get(1001).result.content[0].text).matches[0].startLine).toBe(22);
    expect(server.exited).toBe(undefined);
  }, 180_000);

  it('stdout carried JSON-RPC messages only', () => {
    // lines() parses every stdout line: a stray log would have failed it already.
    expect(server.lines().every((m) => m.jsonrpc === '2.0')).toBe(true);
  });
});

describe('ca-mcp process lifetime', () => {
  it('exits with code 0 when the client closes stdin, nothing written to stdout', async () => {
    const repo = copyFixture('ts-app');
    const server = new RawServer([MCP_BIN, repo]);
    expect(await server.stop()).toBe(0);
    expect(server.lines()).toEqual([]);
    rmSync(join(repo, '..'), { recursive: true, force: true });
  }, 120_000);

  it('ca mcp instructions and ca mcp install print; a wrong client is a usage error', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [CLI_BIN, 'mcp', ...args], { env: ENV, encoding: 'utf8' });
    const instructions = run(['instructions']);
    expect([instructions.status, instructions.stdout.split('\n')[0]]).toEqual([0, '## Code search and navigation (Code Agent MCP server)']);
    const printed = run(['install', '--client', 'vscode', '--repo', '/work/r']);
    expect(printed.status).toBe(0);
    expect(printed.stdout.split('\n')[0]).toBe('# add to /work/r/.vscode/mcp.json (ca mcp install --client vscode --write does it, keeping your other entries)');
    expect(JSON.parse(printed.stdout.split('\n').slice(1).join('\n')).servers['code-agent'].args).toEqual([MCP_BIN, '/work/r']);
    const wrong = run(['install', '--client', 'emacs']);
    expect([wrong.status, wrong.stderr.split('\n')[0]]).toEqual([2, 'ca-mcp: install needs --client claude-code|claude-desktop|vscode|cursor']);
  });

  it('a usage error exits 2 with the usage on stderr', async () => {
    const child = spawn(process.execPath, [MCP_BIN, '--bogus'], { env: ENV });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    expect(await new Promise((res) => child.once('exit', res))).toBe(2);
    // The rest of the first line is Node's parseArgs wording.
    expect(stderr.split('\n')[0]).toMatch(/^ca-mcp: Unknown option '--bogus'\. /);
    expect(stderr.split('\n')[1]).toBe('usage: ca-mcp [PATH] [--db FILE] [--no-refresh | --no-watch] [--max-answer-tokens N]');
  });
});
