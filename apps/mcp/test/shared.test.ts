import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, CLEAN_ENV, copyFixture, MCP_BIN } from './helpers.js';

const ENV = { ...CLEAN_ENV, CA_EMBEDDING_ENABLED: 'false' };

interface Server {
  client: Client;
  stderr: string[];
}

async function start(repo: string): Promise<Server> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN, repo], env: ENV, stderr: 'pipe' });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(...d.toString().split('\n').filter(Boolean)));
  const client = new Client({ name: 'shared-test', version: '0' });
  await client.connect(transport);
  return { client, stderr };
}

/** Files a server's refreshes re-parsed, from its log (`indexed: N changed, …`). */
const parsedBy = (s: Server) => s.stderr.reduce((n, line) => n + Number(/^ca-mcp: indexed: (\d+) changed/.exec(line)?.[1] ?? 0), 0);

describe('several MCP servers on one repository (several agent sessions)', () => {
  let repo: string;
  let servers: Server[];

  beforeAll(async () => {
    repo = copyFixture('ts-monorepo');
    servers = [];
    for (let i = 0; i < 3; i++) servers.push(await start(repo));
    // The first answers: one server indexes, the others wait for it (or answer meanwhile, saying so).
    const first = await Promise.all(servers.map((s) => callTool(s.client, 'get_status')));
    expect(first.map((r) => r.isError)).toEqual([false, false, false]);
  }, 180_000);
  afterAll(async () => {
    for (const s of servers) await s.client.close();
  });

  it('after an edit of 8 files, the changes are parsed once in all, and every server answers', async () => {
    const before = servers.map(parsedBy);
    const files = ['money.ts', 'checkout.ts', 'shapes.ts', 'index.ts'].map((f) => join(repo, 'packages/core/src', f));
    const web = ['App.tsx', 'Button.tsx', 'PriceTag.tsx', 'index.ts'].map((f) => join(repo, 'packages/web/src', f));
    for (const f of [...files, ...web]) writeFileSync(f, `${readFileSync(f, 'utf8')}\n// edited\n`);
    const answers = await Promise.all(servers.map((s) => callTool(s.client, 'search_code', { query: 'formatMoney', limit: 1 })));
    expect(answers.map((a) => [a.isError, (a.structured as { results: { qualifiedName: string }[] }).results[0]?.qualifiedName])).toEqual([
      [false, 'formatMoney'],
      [false, 'formatMoney'],
      [false, 'formatMoney'],
    ]);
    // Answers that did not wait for another server's run say so.
    for (const a of answers) {
      const warning = a.texts.find((t) => t.startsWith('warning: '));
      if (warning) expect(warning).toMatch(/^warning: another process \(pid \d+, indexing working since .+\) holds the index lock .+; this answer comes from the index as it is and may miss the changes that run brings in$/);
    }
    // A second round: every server is up to date, nothing left to parse.
    await Promise.all(servers.map((s) => callTool(s.client, 'get_status')));
    const parsed = servers.map((s, i) => parsedBy(s) - before[i]!);
    expect(parsed.reduce((a, b) => a + b, 0)).toBe(8);
  }, 180_000);
});
