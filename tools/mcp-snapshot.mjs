#!/usr/bin/env node
// Records what the MCP server answers: `node tools/mcp-snapshot.mjs [--build DIR] [--out FILE] [--only ts|cs|pool]`.
// Starts the built stdio server (`<build>/apps/mcp/dist/main.js`, default this checkout) on private
// copies of fixtures/ts-app and fixtures/cs-solution (once with the default answer cap, once with a
// small cap so that answers page), sends tools/list and every tool with representative arguments
// (paging offsets, bad arguments, errors), and writes the answers as one JSON document. A pool
// (several repositories, the `repo`/`repos` arguments) is driven in-process through the build's
// library. Timings, dates and the copies' paths are normalised, so two builds that behave the same
// write the same file: a refactoring is checked with `diff` of two snapshots.
// C# needs roslyn-host (`dotnet build -c Release roslyn-host`, or CA_ROSLYN_HOST_DLL); without it the
// cs part records the server's answers without the semantic pass, and says so in the file.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const here = resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({ options: { build: { type: 'string' }, out: { type: 'string' }, only: { type: 'string' } } });
const build = resolve(opts.build ?? here);
const CALL_DEADLINE_MS = 180_000;

/** The environment without CA_ settings (the machine's must not leak in), embeddings off, one parse thread, roslyn-host located. */
function cleanEnv() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_')));
  env.CA_EMBEDDING_ENABLED = 'false';
  // Parsed on the main thread: files are stored in one order, so node ids are the same run to run.
  env.CA_INDEXING_WORKERS = '0';
  const dll = process.env.CA_ROSLYN_HOST_DLL;
  if (dll) env.CA_ROSLYN_HOST_DLL = dll;
  return env;
}

function copyFixture(name) {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-mcp-snap-')), 'repo');
  cpSync(join(here, 'fixtures', name), target, { recursive: true });
  return target;
}

/** The stdio server as a JSON-lines peer: `request` sends one message and waits for its answer. */
function startServer(repo, extraArgs) {
  const child = spawn(process.execPath, [join(build, 'apps/mcp/dist/main.js'), repo, ...extraArgs], { env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map();
  let buffer = '';
  let nextId = 1;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      if (process.env.SNAPSHOT_VERBOSE) process.stderr.write(`<- ${line.slice(0, 100)}\n`);
      const waiter = pending.get(message.id);
      if (waiter) {
        pending.delete(message.id);
        waiter(message);
      }
    }
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  // A write after the server exited fails with EPIPE; the exit itself is reported by `exited`.
  child.stdin.on('error', (e) => {
    log += `\nstdin: ${e.message}`;
  });
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  exited.then(({ code, signal }) => {
    for (const waiter of pending.values()) waiter({ error: { exited: code ?? signal, log: log.slice(-2000) } });
    pending.clear();
  });
  const request = (method, params) =>
    new Promise((done, fail) => {
      if (child.exitCode !== null || child.signalCode !== null) return fail(new Error(`the server exited (${child.exitCode ?? child.signalCode}) before ${method}: ${log.slice(-2000)}`));
      const id = nextId++;
      const timer = setTimeout(() => fail(new Error(`${method} got no answer in ${CALL_DEADLINE_MS} ms`)), CALL_DEADLINE_MS);
      pending.set(id, (m) => {
        clearTimeout(timer);
        done(m);
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method, params) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  const stop = () => {
    child.stdin.end();
    return exited;
  };
  return { request, notify, stop };
}

/** Keys whose values are clocks or durations: replaced, so that two runs compare. */
const TIMING_KEY = /(^|[a-z])(ms|Ms|At|At_|time|Time|duration|Duration|seconds|Seconds)$/;
const ISO_DATE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

function normaliseString(s, roots) {
  let out = s.replace(ISO_DATE, '<date>');
  for (const [root, name] of roots) out = out.split(root).join(`<${name}>`);
  return out.replace(/(took|in) \d+(\.\d+)? ?ms/g, '$1 <ms>');
}

/** `value` with clocks, durations and temporary paths replaced; JSON text items are parsed and normalised too. */
function normalise(value, roots) {
  if (typeof value === 'string') {
    const t = value.trim();
    if ((t.startsWith('{') || t.startsWith('[')) && t.length > 1) {
      try {
        return { json: normalise(JSON.parse(t), roots) };
      } catch (e) {
        // Not JSON after all (a search result's code may start with a brace): kept as text.
        if (!(e instanceof SyntaxError)) throw e;
      }
    }
    return normaliseString(value, roots);
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, roots));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, TIMING_KEY.test(k) && (typeof v === 'number' || typeof v === 'string') ? '<t>' : normalise(v, roots)]));
  }
  return value;
}

const TS_CALLS = [
  ['search_code', { query: 'AuthService.login', limit: 2 }],
  ['search_code', { query: 'token', limit: 2 }],
  ['search_code', { query: 'token', limit: 2, offset: 2 }],
  ['search_code', { query: 'retry', language: 'js', kind: 'function', path: 'src/legacy/**' }],
  ['search_code', { query: 'invoice plan', filter: 'kind:method and path:src/billing/** and is:public' }],
  ['search_code', { query: 'x', filter: 'kind:method and (lang:ts' }],
  ['search_code', { query: 'BillingAccount.terminatePlan', budget_tokens: 0, limit: 1 }],
  ['search_code', { query: 'session', include_tests: true, min_score: 0.5 }],
  ['search_code', { query: 'login', path: '../outside/**' }],
  ['search_code', { query: '   ' }],
  ['search_code', { query: 'x'.repeat(8193) }],
  ['search_code', { query: 'login', limit: 101 }],
  ['search_code', { query: 'login', language: 'py' }],
  ['search_code', { query: 'login', label: 'no-such-label' }],
  ['search_code', { query: 'login', repos: ['a', 'b'] }],
  ['lookup_symbol', { symbol: 'AuthService.refresh' }],
  ['lookup_symbol', { symbol: 'NoSuchName' }],
  ['lookup_symbol', { symbol: 'load', limit: 1 }],
  ['find_similar', { symbol: 'MemoryTokenStore.load', limit: 3 }],
  ['find_similar', { symbol: 'NoSuchName' }],
  ['get_symbol', { symbol: 'TokenStore' }],
  ['get_symbol', { symbol: 'AuthService.issueToken' }],
  ['get_symbol', { symbol: 'load' }],
  ['get_symbol', { symbol: '' }],
  ['get_source_spans', { symbol: 'AuthService.login' }],
  ['get_source_spans', { symbol: 'AuthService.login', start_line: 23, end_line: 25 }],
  ['get_source_spans', { symbol: 'AuthService.login', span: 1 }],
  ['get_source_spans', { symbol: 'AuthService.login', span: 'all' }],
  ['get_file_outline', { path: 'src/auth/tokenStore.ts' }],
  ['get_file_outline', { path: 'src/auth/authService.ts', offset: 1 }],
  ['get_file_outline', { path: '../x.ts' }],
  ['get_file_outline', { path: 'src/none.ts' }],
  ['get_callers', { symbol: 'AuthService.issueToken' }],
  ['get_callers', { symbol: 'AuthService.issueToken', detail: 'code' }],
  ['get_callers', { symbol: 'TokenStore.save', through_interfaces: true, depth: 2 }],
  ['get_callers', { symbol: 'AuthService.issueToken', detail: 'everything' }],
  ['get_callers', { symbol: 'AuthService.issueToken', depth: 1000 }],
  ['get_callers', { symbol: 'load' }],
  ['get_callers', { symbol: 'load', all: true }],
  ['get_callees', { symbol: 'AuthService.issueToken', min_confidence: 'exact' }],
  ['get_callees', { symbol: 'AuthService.login', max_nodes: 1 }],
  ['get_references', { symbol: 'MAX_LOGIN_ATTEMPTS' }],
  ['get_references', { symbol: 'MAX_LOGIN_ATTEMPTS', min_confidence: 'certain' }],
  ['get_implementations', { symbol: 'TokenStore' }],
  ['get_dependencies', { symbol: 'src/components/UserCard.tsx' }],
  ['get_dependencies', { symbol: '../../etc/passwd' }],
  ['get_dependents', { symbol: 'src/auth/tokenStore.ts', offset: 1 }],
  ['impact_analysis', { symbol: 'TokenStore.save', depth: 5 }],
  ['impact_analysis', { symbol: 'TokenStore.save', depth: 5, offset: 2, detail: 'code' }],
  ['discover_directories', { query: 'BillingAccount terminatePlan subscription' }],
  ['discover_directories', { limit: 2 }],
  ['discover_directories', { path: 'src/auth/**', include_tests: true }],
  ['map_symbols', { path: 'src/auth/**', detail: 'names' }],
  ['map_symbols', { path: 'src/**', limit: 1, offset: 1 }],
  ['map_symbols', { query: 'billing invoice' }],
  ['map_symbols', {}],
  ['get_directory_tree', { depth: 1 }],
  ['get_directory_tree', { path: 'src', depth: 3 }],
  ['get_directory_tree', { depth: 11 }],
  ['get_directory_tree', { path: '..' }],
  ['list_directory', { path: 'src/auth' }],
  ['list_directory', { offset: 2 }],
  ['list_directory', { path: 'src', include_ignored: true }],
  ['list_directory', { path: '../' }],
  ['read_file', { path: 'src/auth/tokenStore.ts', start_line: 8, end_line: 12 }],
  ['read_file', { path: 'src/utils/format.ts' }],
  ['read_file', { path: '../../etc/passwd' }],
  ['read_file', { path: 'src/none.ts' }],
  ['read_file', { path: 'src/utils/format.ts', label: 'no-such-label' }],
  ['read_file', { path: 'src/utils/format.ts', start_line: 0 }],
  ['index_files', { paths: ['src/auth/tokenStore.ts'] }],
  ['index_files', { paths: ['../outside.ts'] }],
  ['get_status', {}],
  ['list_labels', {}],
  ['no_such_tool', {}],
];

/** With a small answer cap: every paging path cuts, and its offsets are followed. */
const TS_PAGED_CALLS = [
  ['search_code', { query: 'token', limit: 5 }],
  ['search_code', { query: 'token', limit: 5, offset: 1 }],
  ['lookup_symbol', { symbol: 'AuthService' }],
  ['find_similar', { symbol: 'AuthService.login', limit: 20 }],
  ['get_symbol', { symbol: 'AuthService' }],
  ['get_source_spans', { symbol: 'AuthService' }],
  ['get_source_spans', { symbol: 'AuthService', span: 'all', start_line: 30 }],
  ['get_file_outline', { path: 'src/auth/authService.ts' }],
  ['get_file_outline', { path: 'src/auth/authService.ts', offset: 1 }],
  ['get_callees', { symbol: 'App', depth: 3, detail: 'code' }],
  ['get_callees', { symbol: 'App', depth: 3, detail: 'code', offset: 2 }],
  ['impact_analysis', { symbol: 'TokenStore', depth: 3 }],
  ['impact_analysis', { symbol: 'TokenStore', depth: 3, offset: 3 }],
  ['get_dependencies', { symbol: 'src/App.jsx', detail: 'code' }],
  ['discover_directories', { limit: 20 }],
  ['map_symbols', { path: 'src/**' }],
  ['map_symbols', { path: 'src/**', offset: 2 }],
  ['get_directory_tree', { depth: 4 }],
  ['list_directory', { path: 'src' }],
  ['list_directory', { path: 'src', offset: 3 }],
  ['read_file', { path: 'src/auth/authService.ts' }],
  ['read_file', { path: 'src/auth/authService.ts', start_line: 20 }],
  ['get_status', {}],
  ['list_labels', {}],
];

const CS_CALLS = [
  ['search_code', { query: 'subscription renewal', limit: 3 }],
  ['search_code', { query: 'Customer', kind: 'class', language: 'cs' }],
  ['lookup_symbol', { symbol: 'Customer' }],
  ['get_symbol', { symbol: 'Customer' }],
  ['get_source_spans', { symbol: 'Customer', span: 'all' }],
  ['get_source_spans', { symbol: 'Customer', span: 1 }],
  ['get_source_spans', { symbol: 'Acme.Core.Domain.Customer', span: 'all' }],
  ['get_callers', { symbol: 'Acme.Core.Billing.SubscriptionService.ChargeAllAsync', all: true }],
  ['get_implementations', { symbol: 'Acme.Core.Payments.IPaymentGateway' }],
  ['get_file_outline', { path: 'src/Acme.Core/Domain/Customer.cs' }],
  ['get_callers', { symbol: 'IPaymentGateway.Charge', through_interfaces: true }],
  ['get_callees', { symbol: 'SubscriptionService', depth: 2 }],
  ['get_references', { symbol: 'Money' }],
  ['get_implementations', { symbol: 'IPaymentGateway' }],
  ['get_dependencies', { symbol: 'src/Acme.App/Program.cs' }],
  ['get_dependents', { symbol: 'src/Acme.Core/Domain/Money.cs' }],
  ['impact_analysis', { symbol: 'Money', depth: 3 }],
  ['discover_directories', { query: 'payments' }],
  ['map_symbols', { path: 'src/Acme.Core/**', detail: 'names' }],
  ['get_directory_tree', { depth: 2 }],
  ['list_directory', { path: 'src/Acme.Core' }],
  ['read_file', { path: 'src/Acme.Core/Domain/Money.cs', start_line: 1, end_line: 10 }],
  ['get_status', {}],
  ['list_labels', {}],
];

/** One stdio server on `fixture`: initialize, tools/list, then `calls` in order. */
async function recordStdio(fixture, args, calls) {
  const repo = copyFixture(fixture);
  const server = startServer(repo, args);
  const roots = [[repo, 'repo']];
  try {
    const init = await server.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'snapshot', version: '0' } });
    if (init.result === undefined) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
    server.notify('notifications/initialized', {});
    const list = await server.request('tools/list', {});
    const answers = [];
    for (const [name, callArgs] of calls) {
      if (process.env.SNAPSHOT_VERBOSE) process.stderr.write(`${fixture} ${name} ${JSON.stringify(callArgs).slice(0, 80)}\n`);
      const r = await server.request('tools/call', { name, arguments: callArgs });
      if (r.error?.exited !== undefined) throw new Error(`the server exited (${r.error.exited}) during ${name}: ${r.error.log}`);
      answers.push({ call: name, args: callArgs.query?.length > 100 ? { ...callArgs, query: `<${callArgs.query.length} chars>` } : callArgs, answer: normalise(r.result ?? r.error, roots) });
    }
    return { fixture, args, initialize: normalise(init.result, roots), toolsList: normalise(list.result, roots), answers };
  } finally {
    await server.stop();
    rmSync(resolve(repo, '..'), { recursive: true, force: true });
  }
}

/** A pool over two fixtures, in-process through the build's library: the `repo` and `repos` arguments. */
async function recordPool() {
  const require = createRequire(join(build, 'apps/mcp/package.json'));
  const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { InMemoryTransport } = await import(require.resolve('@modelcontextprotocol/sdk/inMemory.js'));
  const { createMcpServer, SessionPool } = await import(join(build, 'apps/mcp/dist/index.js'));
  const a = copyFixture('ts-app');
  const b = copyFixture('commonjs');
  const roots = [[a, 'a'], [b, 'b']];
  const pool = new SessionPool({ repos: [a, b], session: { refresh: true, log: () => {}, env: {}, configOverrides: { embedding: { enabled: false }, indexing: { workers: 0 } } } });
  const server = createMcpServer(pool);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'snapshot', version: '0' });
  await client.connect(clientSide);
  const calls = [
    ['search_code', { query: 'login', limit: 3, repo: a }],
    ['search_code', { query: 'format', limit: 4, repos: [a, b] }],
    ['search_code', { query: 'format', limit: 2, offset: 2, repos: [a, b] }],
    ['search_code', { query: 'format', repos: [a, '/no/such/repo'] }],
    ['search_code', { query: 'format', repos: [a], label: 'x' }],
    ['lookup_symbol', { symbol: 'AuthService', repo: b }],
    ['get_symbol', { symbol: 'AuthService' }],
    ['get_status', { repo: b }],
    ['list_labels', { repo: '/no/such/repo' }],
  ];
  try {
    const list = await client.listTools();
    const answers = [];
    for (const [name, args] of calls) answers.push({ call: name, args: normalise(args, roots), answer: normalise(await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_DEADLINE_MS }), roots) });
    return { fixture: 'pool ts-app + commonjs', instructions: normalise(client.getInstructions(), roots), toolsList: normalise(list, roots), answers };
  } finally {
    await client.close();
    await pool.close();
    for (const r of [a, b]) rmSync(resolve(r, '..'), { recursive: true, force: true });
  }
}

const parts = [];
const only = opts.only;
if (!only || only === 'ts') {
  parts.push(await recordStdio('ts-app', [], TS_CALLS));
  parts.push(await recordStdio('ts-app', ['--max-answer-tokens', '500'], TS_PAGED_CALLS));
}
if (!only || only === 'cs') {
  const host = process.env.CA_ROSLYN_HOST_DLL ?? join(build, 'roslyn-host/bin/Release/net10.0/CodeAgent.RoslynHost.dll');
  parts.push({ roslynHost: existsSync(host) ? 'present' : 'absent', ...(await recordStdio('cs-solution', [], CS_CALLS)) });
}
if (!only || only === 'pool') parts.push(await recordPool());
const text = `${JSON.stringify(parts, null, 1)}\n`;
if (opts.out) writeFileSync(opts.out, text);
else process.stdout.write(text);
