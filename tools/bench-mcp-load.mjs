#!/usr/bin/env node
// MCP server under load: `node tools/bench-mcp-load.mjs [DIR] [--clients 20] [--seconds 60] [--edit-every-ms 3000] [--no-refresh] [--json]`.
// Without DIR, a copy of fixtures/ts-app; DIR is used in place, so give a copy (an edited file is
// restored at the end). Starts the real HTTP server (apps/mcp/dist/main.js --http, loopback, a
// token, vector channel off), makes CLIENTS agent sessions issue mixed search and navigation calls
// back to back for SECONDS while one more session edits a file and calls index_files every
// EDIT_EVERY_MS, and prints the calls, errors, p50 and p95 per tool. Exits 1 when any call failed.
// --profile DIR writes a CPU profile of the server into DIR.
// --no-refresh starts the server without the refresh before each answer (only index_files
// re-indexes), which separates the cost of the refresh from that of the server.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'apps/mcp/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StreamableHTTPClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    clients: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '60' },
    'edit-every-ms': { type: 'string', default: '3000' },
    json: { type: 'boolean', default: false },
    'no-refresh': { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const editEvery = Number(values['edit-every-ms']);
let repo = positionals[0] ? resolve(positionals[0]) : null;
if (!repo) {
  repo = join(mkdtempSync(join(tmpdir(), 'ca-bench-load-')), 'repo');
  cpSync(join(root, 'fixtures/ts-app'), repo, { recursive: true });
}
const log = (line) => process.stderr.write(`${line}\n`);

// The server, as an agent's client would reach it.
const token = 'bench-token-0123456789abcdefghij';
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_')));
// --profile DIR: a CPU profile of the server (written when it stops).
const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile)] : [];
const server = spawn(process.execPath, [...profile, join(root, 'apps/mcp/dist/main.js'), '--http', '--port', '0', '--repo', repo, ...(values['no-refresh'] ? ['--no-refresh'] : [])], {
  env: { ...env, CA_EMBEDDING_ENABLED: 'false', CA_MCP_TOKEN: token },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let serverLog = '';
const url = await new Promise((res, rej) => {
  server.stderr.on('data', (d) => {
    serverLog += d;
    const m = / on (http:\/\/\S+\/mcp)\n/.exec(serverLog);
    if (m) res(new URL(m[1]));
  });
  server.once('exit', (code) => rej(new Error(`server exited ${code}: ${serverLog}`)));
});

async function session() {
  const client = new Client({ name: 'bench-load', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}
const json = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);

// The first call waits for the first index (minutes on a large repository).
const first = await session();
let t = performance.now();
// Without the refresh before each answer, index_files builds the index.
if (values['no-refresh']) await first.callTool({ name: 'index_files', arguments: {} }, undefined, { timeout: 1_800_000 });
const status = json(await first.callTool({ name: 'get_status', arguments: {} }, undefined, { timeout: 1_800_000 }));
log(`${repo}: ${status.files} files, ${status.symbols} symbols; first answer (full index) ${(performance.now() - t).toFixed(0)} ms`);

// Targets: symbols and files that the searches of these words find.
const QUERIES = ['render', 'update state', 'parse input', 'handle click event', 'export', 'create element', 'token', 'format', 'payment', 'login'];
const symbols = new Set();
const files = new Set();
for (const q of QUERIES) {
  for (const x of json(await first.callTool({ name: 'search_code', arguments: { query: q, limit: 5 } })).results) {
    if (['method', 'function', 'class', 'component', 'constructor'].includes(x.kind)) symbols.add(x.id);
    files.add(x.path);
  }
}
const targets = [...symbols];
const paths = [...files];
if (targets.length === 0) throw new Error('no symbol to navigate from');
const editFile = join(repo, paths[0]);
const original = readFileSync(editFile, 'utf8');
log(`${targets.length} symbols and ${paths.length} files as targets; edits go to ${paths[0]}`);

const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const MIX = [
  () => ['search_code', { query: pick(QUERIES), limit: 10 }],
  () => ['search_code', { query: pick(QUERIES), limit: 5 }],
  () => ['get_callers', { symbol: pick(targets) }],
  () => ['get_callees', { symbol: pick(targets) }],
  () => ['get_references', { symbol: pick(targets) }],
  () => ['get_symbol', { symbol: pick(targets) }],
  () => ['impact_analysis', { symbol: pick(targets), depth: 2 }],
  () => ['get_file_outline', { path: pick(paths) }],
];

const latencies = new Map();
const errors = [];
const deadline = Date.now() + seconds * 1000;
const record = (name, ms) => {
  if (!latencies.has(name)) latencies.set(name, []);
  latencies.get(name).push(ms);
};

async function agent() {
  const client = await session();
  while (Date.now() < deadline) {
    const [name, args] = pick(MIX)();
    const t0 = performance.now();
    try {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
      // not_found / ambiguous answers are answers; anything else is an error of the server.
      if (r.isError && !/"code":"(not_found|ambiguous_symbol)"/.test(r.content[0].text)) errors.push(`${name}: ${r.content[0].text.slice(0, 200)}`);
    } catch (e) {
      errors.push(`${name}: ${e.message}`);
    }
    record(name, performance.now() - t0);
  }
  await client.close();
}

async function indexer() {
  let n = 0;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(editEvery, deadline - Date.now()))));
    if (Date.now() >= deadline) break;
    writeFileSync(editFile, `${original}\n// bench edit ${++n}\n`);
    const t0 = performance.now();
    try {
      const r = await first.callTool({ name: 'index_files', arguments: { paths: [paths[0]] } }, undefined, { timeout: 300_000 });
      if (r.isError) errors.push(`index_files: ${r.content[0].text.slice(0, 200)}`);
    } catch (e) {
      errors.push(`index_files: ${e.message}`);
    }
    record('index_files', performance.now() - t0);
  }
}

const load0 = loadavg()[0];
t = performance.now();
await Promise.all([...Array.from({ length: clients }, agent), indexer()]);
const wall = performance.now() - t;
const load1 = loadavg()[0];
writeFileSync(editFile, original);
await first.close();
const stopped = new Promise((res) => server.once('exit', res));
server.kill('SIGTERM');
await stopped;

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const rows = [...latencies.entries()]
  .sort((a, b) => (a[0] < b[0] ? -1 : 1))
  .map(([name, xs]) => ({ tool: name, calls: xs.length, p50: Math.round(q(xs, 0.5) * 10) / 10, p95: Math.round(q(xs, 0.95) * 10) / 10, max: Math.round(Math.max(...xs)) }));
const total = rows.reduce((s, r) => s + r.calls, 0);
const summary = { repo, files: status.files, clients, seconds, refresh: !values['no-refresh'], calls: total, errors: errors.length, callsPerSecond: Math.round((total / wall) * 1000 * 10) / 10, loadavg: [load0, load1].map((x) => Math.round(x * 100) / 100), date: new Date().toISOString(), rows };
if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
else {
  console.log(`${clients} clients, ${seconds} s${values['no-refresh'] ? ', --no-refresh' : ''}, ${total} calls (${summary.callsPerSecond}/s), ${errors.length} errors, load ${summary.loadavg.join(' → ')}, ${summary.date}`);
  console.log('| tool | calls | p50 ms | p95 ms | max ms |\n| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.tool} | ${r.calls} | ${r.p50} | ${r.p95} | ${r.max} |`);
}
for (const e of errors.slice(0, 10)) log(`error: ${e}`);
process.exitCode = errors.length > 0 ? 1 : 0;
