import { spawn } from 'node:child_process';
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
    const r = await callTool(client, 'search', { query: 'AuthService.login', limit: 2 });
    expect(r.isError).toBe(false);
    expect(r.json.results.map((x: any) => [x.qualifiedName, x.kind, x.path, x.startLine])[0]).toEqual(['AuthService.login', 'method', 'src/auth/authService.ts', 22]);
    expect(r.json.notices).toEqual([`vector channel off: ${MODEL_OFF}`]);
    const status = await callTool(client, 'status');
    expect(status.json.vectorChannel).toBe(`off: ${MODEL_OFF}`);
    expect(status.json.files).toBe(13);
  });

  it('an error result leaves the process serving; logs go to stderr', async () => {
    const bad = await callTool(client, 'callers', { symbol: 'NoSuchThing' });
    expect([bad.isError, bad.json]).toEqual([true, { error: { code: 'not_found', message: 'no symbol matches "NoSuchThing"' } }]);
    const good = await callTool(client, 'callers', { symbol: 'AuthService.issueToken' });
    expect(good.json.edges.length).toBe(2);
    expect(stderr().split('\n')[0]).toBe(`ca-mcp: serving ${repo}`);
    expect(stderr()).toContain('ca-mcp: indexed: 13 changed, 0 removed in ');
  });
});

describe('ca mcp (the CLI subcommand starts the same server)', () => {
  it('serves the tools of the repository given as PATH', async () => {
    const repo = copyFixture('ts-app');
    const { client } = await stdioClient([CLI_BIN, 'mcp', repo]);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      const r = await callTool(client, 'symbol', { symbol: 'AuthService.login' });
      expect([r.json.symbol.qualifiedName, r.json.symbol.startLine, r.json.stale]).toEqual(['AuthService.login', 22, false]);
    } finally {
      await client.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  });
});

describe('ca-mcp process lifetime', () => {
  it('exits with code 0 when the client closes stdin', async () => {
    const repo = copyFixture('ts-app');
    const child = spawn(process.execPath, [MCP_BIN, repo], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
    // Nothing but protocol messages on stdout (none were asked for).
    expect(stdout).toBe('');
    rmSync(join(repo, '..'), { recursive: true, force: true });
  }, 120_000);

  it('a usage error exits 2 with the usage on stderr', async () => {
    const child = spawn(process.execPath, [MCP_BIN, '--bogus'], { env: ENV });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    expect(await new Promise((res) => child.once('exit', res))).toBe(2);
    // The rest of the first line is Node's parseArgs wording.
    expect(stderr.split('\n')[0]).toMatch(/^ca-mcp: Unknown option '--bogus'\. /);
    expect(stderr.split('\n')[1]).toBe('usage: ca-mcp [PATH] [--db FILE] [--no-refresh]');
  });
});
