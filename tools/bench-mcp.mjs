#!/usr/bin/env node
// MCP server latency: `node tools/bench-mcp.mjs [DIR] [--runs N] [--db FILE] [--no-semantic] [--model DIR [--embed-slice N]]`.
// Without DIR, a copy of fixtures/ts-app. Runs the real server (apps/mcp/dist) over a linked
// in-memory transport with the vector channel off, and prints the median and worst latency of a
// `callers` and a `search` call with the index refreshed before each answer (the default) and
// without (--no-refresh), so their difference is the cost of the freshness check; then the
// latency of the first answer after an edit.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'apps/mcp/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { InMemoryTransport } = await import(require.resolve('@modelcontextprotocol/sdk/inMemory.js'));
const { createServer } = await import(join(root, 'apps/mcp/dist/index.js'));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '30' },
    db: { type: 'string' },
    'no-semantic': { type: 'boolean', default: false },
    model: { type: 'string' },
    'embed-slice': { type: 'string' },
  },
});
const runs = Number(values.runs);
let repo = positionals[0] ? resolve(positionals[0]) : null;
if (!repo) {
  repo = join(mkdtempSync(join(tmpdir(), 'ca-bench-mcp-')), 'repo');
  cpSync(join(root, 'fixtures/ts-app'), repo, { recursive: true });
}
const dbPath = values.db ? resolve(values.db) : undefined;
// Without --model the vector channel is off; with it, vectors are filled in behind the answers
// (`--embed-slice N` symbols per slice; a huge N embeds everything before the first answer).
const embedding = values.model ? { model_dir: resolve(values.model), allow_download: false } : { enabled: false };
const configOverrides = { embedding, ...(values['no-semantic'] ? { semantic: { enabled: false } } : {}) };
const embedSlice = values['embed-slice'] ? { embedSlice: Number(values['embed-slice']) } : {};

async function connect(refresh) {
  const app = createServer({ repo, refresh, ...(dbPath ? { dbPath } : {}), env: {}, configOverrides, ...embedSlice, log: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await app.server.connect(a);
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(b);
  return { app, client };
}

async function timed(client, name, args) {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  return performance.now() - t;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)].toFixed(1)} ms, worst ${s[s.length - 1].toFixed(1)} ms`;
};

const first = await connect(true);
let t = performance.now();
// The first index may take minutes (the client's default request timeout is 60 s).
const status = (await first.client.callTool({ name: 'get_status', arguments: {} }, undefined, { timeout: 900_000 })).structuredContent;
console.log(`${repo}: ${status.files} files, ${status.symbols} symbols; first answer (full index) ${(performance.now() - t).toFixed(0)} ms`);
if (values.model) {
  // Polls (each status call refreshes too) until every symbol has its vector.
  let pending = status.freshness.embeddingsPending;
  while (pending > 0) {
    await new Promise((r) => setTimeout(r, 1000));
    pending = (await first.client.callTool({ name: 'get_status', arguments: {} })).structuredContent.freshness.embeddingsPending;
  }
  console.log(`all vectors in ${(performance.now() - t).toFixed(0)} ms after the first call`);
}
const top = (await first.client.callTool({ name: 'search_code', arguments: { query: 'index', limit: 1 } })).structuredContent.results[0];
if (!top) throw new Error('the repository has no symbol matching "index" to navigate from');
const calls = [
  ['get_callers', { symbol: top.id }],
  ['search_code', { query: top.qualifiedName, limit: 5 }],
];
for (const refresh of [true, false]) {
  const { app, client } = refresh ? first : await connect(false);
  for (const [name, args] of calls) {
    await timed(client, name, args);
    const xs = [];
    for (let i = 0; i < runs; i++) xs.push(await timed(client, name, args));
    console.log(`${name.padEnd(12)} ${refresh ? 'refresh before each answer' : 'no refresh (--no-refresh)'}: ${stats(xs)} over ${runs} calls`);
  }
  if (!refresh) await app.close();
}
// An edit, then the next answer: the incremental index of one file plus the answer.
const file = join(repo, top.path);
const original = readFileSync(file, 'utf8');
const edits = [];
for (let i = 0; i < Math.min(runs, 10); i++) {
  appendFileSync(file, `\n// bench edit ${i}\n`);
  edits.push(await timed(first.client, 'get_callers', { symbol: top.id }));
}
writeFileSync(file, original);
console.log(`get_callers  after an edit of ${top.path}: ${stats(edits)} over ${edits.length} edits`);
await first.app.close();
