#!/usr/bin/env node
// Benchmarks roslyn-host on a directory: host start (spawn → handshake), project load, analyse
// throughput (lines/s, after start) and peak RSS (VmHWM). Speaks the wire protocol directly so it runs
// without building the TypeScript package.
//   node packages/parse-cs/bench/roslynBench.mjs [dir] [--dll path] [--runs N] [--engine-flow] [--deadline MS]
// Default dir: fixtures/cs-solution. Every *.csproj under dir (minus bin/obj/node_modules/hidden) is loaded.
// --engine-flow: what `ca index` does (packages/engine/src/csSemantic.ts): for each project in turn,
// loadProject (with references) then analyze {projectId, includeReferenceCounts} under the supervisor's
// default 30 s batch deadline (--deadline to change); prints per-project times and timeouts.
// Extra host environment: CA_BENCH_ENV="DOTNET_TieredPGO=1 DOTNET_gcServer=1" (space-separated K=V).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const dll = resolve(opt('--dll', process.env.CA_ROSLYN_HOST_DLL ?? join(repo, 'roslyn-host/bin/Release/net10.0/CodeAgent.RoslynHost.dll')));
const runs = Number(opt('--runs', '3'));
const engineFlow = args.includes('--engine-flow');
if (engineFlow) args.splice(args.indexOf('--engine-flow'), 1);
const flowDeadline = Number(opt('--deadline', '30000'));
const extraEnv = Object.fromEntries((process.env.CA_BENCH_ENV ?? '').split(/\s+/).filter(Boolean).map((kv) => kv.split('=')));
const dir = resolve(args[0] ?? join(repo, 'fixtures/cs-solution'));
if (!existsSync(dll)) {
  console.error(`roslyn-host not built: ${dll} (run: dotnet build -c Release roslyn-host)`);
  process.exit(1);
}

function findProjects(root) {
  const out = [];
  const stack = [root];
  while (stack.length) {
    const d = stack.pop();
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || ['bin', 'obj', 'node_modules'].includes(e.name)) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.csproj')) out.push(p);
    }
  }
  return out.sort();
}

function vm(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (n) => Number(new RegExp(`^${n}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

function startHost() {
  const child = spawn('dotnet', [dll], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, DOTNET_NOLOGO: '1', ...extraEnv } });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const f = JSON.parse(line);
    waiting.get(f.id)?.(f);
    waiting.delete(f.id);
  });
  let id = 0;
  const call = (method, params, deadlineMs) =>
    new Promise((res, rej) => {
      const my = ++id;
      waiting.set(my, (f) => (f.error ? rej(new Error(`${method}: ${f.error.code}: ${f.error.message}`)) : res(f.result)));
      child.stdin.write(JSON.stringify({ id: my, method, params, deadlineMs }) + '\n');
    });
  return { child, call };
}

/** The engine's sequence: per project, load (with references) then analyse that project with reference counts. */
async function flowOnce() {
  const t0 = performance.now();
  const { child, call } = startHost();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, vm(child.pid).hwm)), 100);
  await call('initialize', { protocolVersion: 1 });
  const startMs = performance.now() - t0;
  const steps = [];
  let lines = 0;
  let busyMs = 0;
  for (const p of findProjects(dir)) {
    const rel = relative(dir, p);
    const t1 = performance.now();
    let loadMs = 0;
    try {
      await call('loadProject', { projectPath: rel, repoRoot: dir, safeMode: true, loadReferences: true }, 120_000);
      loadMs = performance.now() - t1;
      const t2 = performance.now();
      const r = await call('analyze', { projectId: rel, includeReferenceCounts: true, includeExternalTargets: true }, flowDeadline);
      const analyzeMs = performance.now() - t2;
      lines += r.stats.lines;
      steps.push({ rel, loadMs, analyzeMs, lines: r.stats.lines, error: null });
    } catch (e) {
      steps.push({ rel, loadMs, analyzeMs: performance.now() - t1 - loadMs, lines: 0, error: e.message });
    }
    busyMs += performance.now() - t1;
  }
  peak = Math.max(peak, vm(child.pid).hwm);
  clearInterval(sampler);
  child.stdin.end();
  await new Promise((res) => child.on('exit', res));
  return { startMs, steps, lines, busyMs, peak };
}

if (engineFlow) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await flowOnce());
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`engine flow on ${dir} (analyze deadline ${flowDeadline} ms), ${runs} run(s)`);
  results.forEach((r, i) => {
    console.log(`run ${i + 1}: start ${r.startMs.toFixed(0)} ms, total ${r.busyMs.toFixed(0)} ms, ${r.lines} lines analysed → ${Math.round(r.lines / (r.busyMs / 1000))} lines/s (load+analyse), peak ${(r.peak / 1048576).toFixed(0)} MiB`);
    for (const s of r.steps)
      console.log(`   ${s.rel}: load ${s.loadMs.toFixed(0)} ms, analyse ${s.analyzeMs.toFixed(0)} ms, ${s.lines} lines${s.error ? ` FAILED ${s.error}` : ''}`);
  });
  console.log(`median: start ${median(results.map((r) => r.startMs)).toFixed(0)} ms, load+analyse ${median(results.map((r) => r.busyMs)).toFixed(0)} ms, peak ${(Math.max(...results.map((r) => r.peak)) / 1048576).toFixed(0)} MiB`);
  process.exit(0);
}

async function once() {
  const t0 = performance.now();
  const child = spawn('dotnet', [dll], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, DOTNET_NOLOGO: '1', ...extraEnv } });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const f = JSON.parse(line);
    waiting.get(f.id)?.(f);
    waiting.delete(f.id);
  });
  let id = 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, vm(child.pid).hwm)), 100);
  const call = (method, params, deadlineMs) =>
    new Promise((res, rej) => {
      const my = ++id;
      waiting.set(my, (f) => (f.error ? rej(new Error(`${method}: ${f.error.code}: ${f.error.message}`)) : res(f.result)));
      child.stdin.write(JSON.stringify({ id: my, method, params, deadlineMs }) + '\n');
    });
  const hs = await call('initialize', { protocolVersion: 1 });
  const startMs = performance.now() - t0;
  const projects = findProjects(dir);
  const t1 = performance.now();
  const failed = [];
  for (const p of projects) {
    try {
      await call('loadProject', { projectPath: p, repoRoot: dir }, 600_000);
    } catch (e) {
      failed.push(`${relative(dir, p)}: ${e.message}`);
    }
  }
  const loadMs = performance.now() - t1;
  const t2 = performance.now();
  const r = await call('analyze', {}, 3_600_000);
  const analyzeMs = performance.now() - t2;
  // Second pass on a warm process (JIT done): unload, reload, analyse again.
  await call('unloadProject', {});
  for (const p of projects) await call('loadProject', { projectPath: p, repoRoot: dir }, 600_000).catch(() => undefined);
  const t3 = performance.now();
  await call('analyze', {}, 3_600_000);
  const warmMs = performance.now() - t3;
  const edges = r.documents.reduce((n, d) => n + d.edges.length, 0);
  const symbols = r.documents.reduce((n, d) => n + d.symbols.length, 0);
  peak = Math.max(peak, vm(child.pid).hwm);
  clearInterval(sampler);
  child.stdin.end();
  await new Promise((res) => child.on('exit', res));
  return { hs, startMs, loadMs, analyzeMs, warmMs, projects: projects.length, failed, docs: r.documents.length, lines: r.stats.lines, edges, symbols, peak };
}

const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const last = results.at(-1);
const startMs = median(results.map((r) => r.startMs));
const loadMs = median(results.map((r) => r.loadMs));
const analyzeMs = median(results.map((r) => r.analyzeMs));
console.log(`roslyn-host ${last.hs.extractorVersion} (Roslyn ${last.hs.roslynVersion}, ${last.hs.runtimeVersion}) on ${dir}`);
console.log(`projects ${last.projects} (${last.failed.length} failed), documents ${last.docs}, lines ${last.lines}, symbols ${last.symbols}, edges ${last.edges}`);
console.log(`host start (spawn→handshake), median of ${runs}: ${startMs.toFixed(0)} ms`);
console.log(`project load: ${loadMs.toFixed(0)} ms`);
console.log(`analyse: ${analyzeMs.toFixed(0)} ms → ${Math.round(last.lines / (analyzeMs / 1000))} lines/s`);
const warmMs = median(results.map((r) => r.warmMs));
console.log(`analyse, warm process (second pass): ${warmMs.toFixed(0)} ms → ${Math.round(last.lines / (warmMs / 1000))} lines/s`);
console.log(`load + analyse: ${Math.round(last.lines / ((loadMs + analyzeMs) / 1000))} lines/s`);
console.log(`peak RSS (VmHWM): ${(Math.max(...results.map((r) => r.peak)) / 1024 / 1024).toFixed(0)} MiB`);
for (const f of last.failed) console.log(`  failed: ${f}`);
