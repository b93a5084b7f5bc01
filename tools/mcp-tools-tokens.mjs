#!/usr/bin/env node
// Size of the MCP server's `tools/list` answer: `node tools/mcp-tools-tokens.mjs`. Prints the
// tokens (@ca/retrieve estimateTokens: characters / 3.5) of the whole JSON answer as a client
// receives it, for a stdio server (one repository) and an HTTP one (two repositories, tools take
// `repo`) and a team store one (`ca serve --store`: repo argument, no repos), with the largest
// tools. Nothing is indexed, nothing connects.
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'apps/mcp/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { InMemoryTransport } = await import(require.resolve('@modelcontextprotocol/sdk/inMemory.js'));
const { createServer, createMcpServer, createTeamStoreServer, SessionPool } = await import(join(root, 'apps/mcp/dist/index.js'));
const { estimateTokens } = await import(join(root, 'packages/engine/dist/index.js'));

async function measure(server) {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'measure', version: '0' });
  await client.connect(b);
  const listed = await client.listTools();
  await client.close();
  return listed;
}
const base = mkdtempSync(join(tmpdir(), 'ca-tools-tokens-'));
const session = { refresh: false, log: () => {}, env: {} };
const single = createServer({ repo: base, ...session });
const pool = new SessionPool({ repos: [join(base, 'a'), join(base, 'b')], session });
// The pool of a team store server connects on its first request: listing the tools opens nothing.
const teamStore = createTeamStoreServer({ url: 'postgres://nobody@127.0.0.1:1/none', answerTokens: 10_000 });
for (const [what, server] of [['stdio, one repository', single.server], ['HTTP, two repositories (repo argument)', createMcpServer(pool)], ['team store (ca serve --store, repo argument)', teamStore.server]]) {
  const listed = await measure(server);
  const top = listed.tools.map((t) => [t.name, estimateTokens(JSON.stringify(t))]).sort((x, y) => y[1] - x[1]).slice(0, 3);
  console.log(`${what}: ${listed.tools.length} tools, ${JSON.stringify(listed).length} characters, ${estimateTokens(JSON.stringify(listed))} tokens (largest: ${top.map(([n, k]) => `${n} ${k}`).join(', ')})`);
}
await single.close();
await pool.close();
await teamStore.close();
