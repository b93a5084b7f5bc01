#!/usr/bin/env node
// Team store servers under load while an indexer publishes (issue 30; docs/benchmarks.md,
// "Team store servers under load"):
//
//   node tools/bench/teamLoad.mjs --store URL [--repo DIR] [--servers 4] [--clients 20] [--seconds 60]
//
// URL is a read-write PostgreSQL team store (eval "$(bash tools/pg-test-server.sh)" gives one as
// CA_TEST_PG_URL; the servers read with CA_TEST_PG_RO_URL when it is set). DIR (default
// fixtures/ts-app) is copied, indexed and published as label `main` of a repository of its own.
// Then SERVERS `ca serve --store` processes start, CLIENTS MCP clients per server call a mix of
// tools over HTTP for SECONDS, and meanwhile an indexer loop edits one file of the copy and runs
// `ca index --store` (a new snapshot of `main` each time). Prints one JSON object: per tool the
// calls, errors and p50/p95 (ms), the publishes, and the machine's load. Build first (`pnpm build`).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'apps/cli/dist/main.js');
const require = createRequire(join(ROOT, 'apps/mcp/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StreamableHTTPClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'));

const { values } = parseArgs({
  options: {
    store: { type: 'string' }, repo: { type: 'string' }, servers: { type: 'string', default: '4' },
    clients: { type: 'string', default: '20' }, seconds: { type: 'string', default: '60' },
  },
});
const url = values.store ?? process.env['CA_TEST_PG_URL'];
if (!url) {
  console.error('usage: node tools/bench/teamLoad.mjs --store postgres://… [--repo DIR] [--servers N] [--clients N] [--seconds N]');
  process.exit(2);
}
const readUrl = process.env['CA_TEST_PG_RO_URL'] ?? url;
const servers = Number(values.servers);
const clientsPerServer = Number(values.clients);
const seconds = Number(values.seconds);
const log = (s) => process.stderr.write(`${s}\n`);
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))), CA_EMBEDDING_ENABLED: 'false', CA_MCP_TOKEN: 'bench-token-teamload-0123456789' };

const source = resolve(values.repo ?? join(ROOT, 'fixtures/ts-app'));
const dir = join(mkdtempSync(join(tmpdir(), 'ca-bench-teamload-')), 'repo');
cpSync(source, dir, { recursive: true, filter: (p) => !p.includes('/.codeagent') });
const repository = `teamload-${process.pid}`;
const publishOnce = () => execFileSync(process.execPath, [CLI, 'index', dir, '--store', url, '--store-repo', repository, '--label', 'main'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
log(`publishing ${source} as ${repository}/main`);
publishOnce();

// The tool mix: fixtures/ts-app's symbols (another repository: set CALLS as JSON [[tool, args], …]).
const CALLS = process.env['CA_BENCH_CALLS'] ? JSON.parse(process.env['CA_BENCH_CALLS']) : [
  ['search_code', { query: 'AuthService.login', limit: 5 }],
  ['search_code', { query: 'token refresh', limit: 10 }],
  ['get_callers', { symbol: 'AuthService.issueToken' }],
  ['get_references', { symbol: 'MAX_LOGIN_ATTEMPTS' }],
  ['lookup_symbol', { symbol: 'AuthService.refresh' }],
  ['impact_analysis', { symbol: 'TokenStore.save', depth: 5 }],
  ['get_callees', { symbol: 'AuthService.login' }],
  ['get_implementations', { symbol: 'TokenStore' }],
  ['get_dependents', { symbol: 'src/auth/tokenStore.ts' }],
];

/** Starts one `ca serve --store` on a free port; resolves to its /mcp URL once it listens. */
function startServer() {
  const child = spawn(process.execPath, [CLI, 'serve', '--store', readUrl, '--store-repo', repository, '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return new Promise((res, rej) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /serving the team store .* on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) res({ child, url: m[1] });
    });
    child.on('exit', (code) => {
      if (!stop) serverExits.push(`server exited ${code}: ${err.slice(-2000)}`);
      rej(new Error(`server exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

const serverExits = [];
let stop = false;
const children = [];
// The servers end with this script, however it ends (a failed start, an exception).
process.on('exit', () => children.forEach((c) => c.kill('SIGTERM')));
const started = await Promise.all(Array.from({ length: servers }, startServer));
log(`${servers} servers: ${started.map((s) => s.url).join(' ')}`);
const latencies = new Map(CALLS.map(([t]) => [t, []]));
const errors = new Map(CALLS.map(([t]) => [t, []]));
const connectErrors = [];

async function client(serverUrl, seed) {
  const c = new Client({ name: 'teamload', version: '0' });
  try {
    await c.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { requestInit: { headers: { Authorization: 'Bearer bench-token-teamload-0123456789' } } }));
  } catch (e) {
    connectErrors.push(String(e?.cause?.code ?? e?.message ?? e));
    return;
  }
  let i = seed;
  while (!stop) {
    const [tool, args] = CALLS[i++ % CALLS.length];
    const t0 = performance.now();
    try {
      const r = await c.callTool({ name: tool, arguments: args });
      if (r.isError) errors.get(tool).push(r.content?.[0]?.text ?? 'error');
      else latencies.get(tool).push(performance.now() - t0);
    } catch (e) {
      errors.get(tool).push(String(e?.message ?? e));
    }
  }
  await c.close();
}

let publishes = 0;
const publishErrors = [];
async function indexer() {
  while (!stop) {
    // One edit per run: a new snapshot of `main` with a changed file.
    appendFileSync(join(dir, 'src/auth/authService.ts'), `\n// edit ${publishes}\n`);
    try {
      await new Promise((res, rej) => {
        const p = spawn(process.execPath, [CLI, 'index', dir, '--store', url, '--store-repo', repository, '--label', 'main'], { env, stdio: 'ignore' });
        p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`ca index --store exited ${code}`))));
      });
      publishes++;
    } catch (e) {
      publishErrors.push(String(e.message));
    }
  }
}

const load = { before: loadavg().map((x) => Math.round(x * 100) / 100), cpus: cpus().length };
const t0 = performance.now();
const work = [indexer(), ...started.flatMap((s, k) => Array.from({ length: clientsPerServer }, (_, j) => client(s.url, k * clientsPerServer + j)))];
let wall = 0;
setTimeout(() => {
  stop = true;
  wall = (performance.now() - t0) / 1000;
}, seconds * 1000);
// The clients stop after their call in flight; the indexer after its run in flight.
await Promise.all(work);
for (const s of started) s.child.kill('SIGTERM');

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
};
const tools = Object.fromEntries([...latencies].map(([t, xs]) => [t, { calls: xs.length + errors.get(t).length, errors: errors.get(t).length, p50: pct(xs, 50), p95: pct(xs, 95) }]));
const all = [...latencies.values()].flat();
const errorSamples = [...errors.values()].flat().slice(0, 5);
console.log(JSON.stringify({
  repo: source, servers, clientsPerServer, seconds: Math.round(wall), calls: all.length + [...errors.values()].flat().length,
  errors: [...errors.values()].flat().length + connectErrors.length, errorSamples, callsPerSecond: Math.round(all.length / wall), p50: pct(all, 50), p95: pct(all, 95),
  tools, publishes, publishErrors, connectErrors, serverExits, load: { ...load, after: loadavg().map((x) => Math.round(x * 100) / 100) },
}, null, 2));
process.exit(0);
