#!/usr/bin/env node
// Code Agent benchmark suite: `pnpm bench [--ts DIR] [--cs DIR] [--repo DIR]… [--runs N]
// [--scales 10000,100000] [--only a,b] [--out FILE]` (stages: syntactic, semantic, full, embed,
// search, rankers, graph, cold, filter, workspace). Build first: `pnpm --filter @ca/cli... build`.
//
// Without repositories the corpora are built from files every checkout has (TypeScript's
// lib/*.d.ts and the fixtures, see lib.mjs). Every stage runs in its own child process (own peak
// RSS). Prints one table and writes every figure to bench-out/bench.json. See docs/benchmarks.md.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, OUT_DIR, benchEnv, buildDefaultCorpora, loadAvg, machineInfo, median, round, runStage, tempDir } from './lib.mjs';
import { WARMUP_QUERIES } from './queries.mjs';

const STAGE_NAMES = ['syntactic', 'semantic', 'full', 'embed', 'search', 'rankers', 'graph', 'cold', 'filter', 'workspace'];
const { values } = parseArgs({
  options: {
    ts: { type: 'string', multiple: true, default: [] },
    cs: { type: 'string', multiple: true, default: [] },
    repo: { type: 'string', multiple: true, default: [] },
    runs: { type: 'string', default: '3' },
    scales: { type: 'string', default: '10000,100000' },
    only: { type: 'string' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(`pnpm bench [--ts DIR] [--cs DIR] [--repo DIR]… [--runs N] [--scales 10000,100000] [--only ${STAGE_NAMES.join(',')}] [--out FILE]`);
  process.exit(0);
}
const only = new Set(values.only ? values.only.split(',') : STAGE_NAMES);
for (const s of only) if (!STAGE_NAMES.includes(s)) throw new Error(`unknown stage ${s}; one of ${STAGE_NAMES.join(', ')}`);
const runs = Number(values.runs);
const scales = values.scales.split(',').map(Number).filter((n) => n > 0);
const started = performance.now();
const machine = machineInfo();
const work = tempDir('suite');

// Corpora: each given repository, or the default ones.
const given = [
  ...values.ts.map((d) => ({ dir: resolve(d), kind: 'ts' })),
  ...values.cs.map((d) => ({ dir: resolve(d), kind: 'cs' })),
  ...values.repo.map((d) => ({ dir: resolve(d), kind: 'repo' })),
];
let corpora;
if (given.length > 0) {
  corpora = given.map((g) => ({ name: g.dir.split('/').pop(), syntactic: g.dir, semantic: g.dir, full: g.dir, kind: g.kind }));
} else {
  const { tslib, lite } = buildDefaultCorpora(join(work, 'corpus'));
  corpora = [{ name: 'default', syntactic: tslib, semantic: lite, full: lite, kind: 'default', syntacticName: 'TS lib ×2', liteName: 'TS lib (ES only) + fixtures' }];
}

const results = { machine, startedAt: new Date().toISOString(), args: process.argv.slice(2), corpora: [], synthetic: {}, embedBench: null, cold: null };
const log = (s) => process.stderr.write(`${s}\n`);
const outFile = values.out ?? join(OUT_DIR, 'bench.json');
mkdirSync(resolve(outFile, '..'), { recursive: true });
/** Saved after every stage, so a failure later never loses what was measured. */
const save = () => writeFileSync(outFile, JSON.stringify(results, null, 2));
const attempt = async (label, fn) => {
  log(`▸ ${label} (load ${loadAvg()?.join(' ') ?? '?'})`);
  let result;
  try {
    result = await fn();
  } catch (e) {
    log(`  ✗ ${label}: ${e.message}`);
    result = { error: e.message.slice(0, 2000) };
  }
  results.partial ??= {};
  results.partial[label] = result;
  save();
  return result;
};

for (const c of corpora) {
  const r = { name: c.name, kind: c.kind, dirs: { syntactic: c.syntactic, semantic: c.semantic, full: c.full } };
  if (only.has('syntactic')) r.syntactic = await attempt(`syntactic index: ${c.syntacticName ?? c.name}`, () => runStage('syntactic', { repo: c.syntactic, runs }));
  if (only.has('semantic')) r.semantic = await attempt(`semantic passes: ${c.liteName ?? c.name}`, () => runStage('semantic', { repo: c.semantic }));
  if (only.has('full')) r.full = await attempt(`full index + embeddings, no-change, single-file update: ${c.liteName ?? c.name}`, () => runStage('full', { repo: c.full }));
  results.corpora.push(r);
}
if (only.has('embed')) results.embedBench = await attempt('embedBench (600 lib declarations, 64-token budget)', () => runStage('embedBench', { count: 600, budget: 64 }));

const needSynthetic = only.has('search') || only.has('rankers') || only.has('graph') || only.has('cold') || only.has('filter') || only.has('workspace');
if (needSynthetic) {
  for (const symbols of scales) {
    const dbPath = join(work, `synthetic-${symbols}`, 'index.db');
    const s = { build: await attempt(`synthetic index ${symbols} symbols`, () => runStage('synth', { symbols, dbPath })) };
    if (!s.build.error) {
      if (only.has('search')) s.search = await attempt(`search latency ${symbols}`, () => runStage('search', { dbPath, rounds: runs }));
      if (only.has('rankers')) s.rankers = await attempt(`hand vs learned ranking ${symbols}`, () => runStage('rankers', { dbPath, rounds: runs }));
      if (only.has('graph')) s.graph = await attempt(`graph latency ${symbols}`, () => runStage('graph', { dbPath, rounds: runs }));
      if (only.has('filter')) s.filter = await attempt(`filtered search latency ${symbols}`, () => runStage('filterSearch', { dbPath, rounds: runs }));
      if (only.has('workspace')) {
        // A second index of about the same size with other names and vectors (another seed).
        const secondDbPath = join(work, `synthetic-${symbols}-b`, 'index.db');
        const second = await attempt(`synthetic index ${symbols + 1} symbols (second repository)`, () => runStage('synth', { symbols: symbols + 1, dbPath: secondDbPath }));
        if (!second.error) s.workspace = await attempt(`two-repository search latency ${symbols}`, () => runStage('workspaceSearch', { dbPath, secondDbPath, rounds: runs }));
        rmSync(join(work, `synthetic-${symbols}-b`), { recursive: true, force: true });
      }
      if (only.has('cold') && symbols === Math.max(...scales)) results.cold = await attempt(`cold start ${symbols}`, () => coldStarts(dbPath, 3));
    }
    results.synthetic[symbols] = s;
    rmSync(join(work, `synthetic-${symbols}`), { recursive: true, force: true });
  }
}

/** Cold start: a new process opens the engine and answers one hybrid query; wall time to the first result line. */
async function coldStarts(dbPath, n) {
  const samples = [];
  const emptyRepo = join(work, 'empty-repo');
  mkdirSync(emptyRepo, { recursive: true });
  for (let i = 0; i < n; i++) {
    const query = WARMUP_QUERIES[i % WARMUP_QUERIES.length];
    const t0 = performance.now();
    const line = await new Promise((res, rej) => {
      const child = spawn(process.execPath, [join(BENCH_DIR, 'coldStart.mjs'), dbPath, emptyRepo, query], { env: benchEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
      let buf = '';
      let seen = null;
      child.stdout.on('data', (d) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (nl >= 0 && seen === null) seen = { wallMs: performance.now() - t0, ...JSON.parse(buf.slice(0, nl)) };
      });
      child.on('close', (code) => (code === 0 && seen ? res(seen) : rej(new Error(`cold start exited ${code}`))));
    });
    samples.push(line);
    log(`  cold start ${i + 1}/${n}: ${Math.round(line.wallMs)} ms to first result (in-process ${Math.round(line.sinceProcessStartMs)} ms)`);
  }
  return {
    runs: samples.map((s) => ({ ...s, wallMs: Math.round(s.wallMs) })),
    medianWallMs: Math.round(median(samples.map((s) => s.wallMs))),
    medianInProcessMs: Math.round(median(samples.map((s) => s.sinceProcessStartMs))),
    medianFirstQueryMs: Math.round(median(samples.map((s) => s.firstQueryMs))),
  };
}

results.totalSeconds = Math.round((performance.now() - started) / 1000);
results.finishedAt = new Date().toISOString();
rmSync(work, { recursive: true, force: true });
save();

// ── table ──────────────────────────────────────────────────────────────────────────────────
const rows = [];
const row = (figure, corpus, value, target = '', status = '') => rows.push([figure, corpus, value, target, status]);
const fmt = (n, unit = '') => (n === null || n === undefined || Number.isNaN(n) ? 'n/a' : `${Number(n).toLocaleString('en-US')}${unit}`);
const check = (ok) => (ok === null ? '' : ok ? 'pass' : 'MISS');
for (const c of results.corpora) {
  const syn = c.syntactic;
  const corpusS = c.kind === 'default' ? 'TS lib ×2' : c.name;
  const corpusL = c.kind === 'default' ? 'lite' : c.name;
  if (syn && !syn.error) {
    row('1. syntactic index', corpusS, `${fmt(syn.linesPerSecond)} lines/s, ${fmt(syn.filesPerSecond)} files/s (${fmt(syn.lines)} lines, median of ${syn.runs})`, '≥ 30,000 lines/s', check(syn.linesPerSecond >= 30_000));
    row('   peak RSS', corpusS, `${fmt(syn.peakRssMiB)} MiB`, '< 1 GiB', check(syn.peakRssMiB !== null && syn.peakRssMiB < 1024));
  } else if (syn) row('1. syntactic index', corpusS, `error: ${syn.error.split('\n')[0]}`);
  const sem = c.semantic;
  if (sem && !sem.error) {
    if (sem.ts) row('2. semantic pass TS', corpusL, `${fmt(sem.ts.linesPerSecond)} lines/s (${fmt(sem.ts.lines)} lines in ${fmt(sem.ts.ms)} ms, ${sem.ts.edges} edges, ${sem.ts.failedProjects.length} failed projects)`, '≥ 15,000 lines/s', check(sem.ts.linesPerSecond >= 15_000));
    if (sem.cs) row('2. semantic pass C#', corpusL, sem.cs.available ? `${fmt(sem.cs.linesPerSecond)} lines/s (${fmt(sem.cs.lines)} lines in ${fmt(sem.cs.ms)} ms, ${sem.cs.edges} edges)` : `unavailable: ${sem.cs.reason}`, '≥ 20,000 lines/s', sem.cs.available ? check(sem.cs.linesPerSecond >= 20_000) : '');
    row('   peak RSS (incl. compiler processes)', corpusL, `${fmt(sem.peakRssMiB)} MiB`);
  } else if (sem) row('2. semantic passes', corpusL, `error: ${sem.error.split('\n')[0]}`);
  const f = c.full;
  if (f && !f.error) {
    const e = f.embeddings;
    if (e && !e.off) row('3. embedding (index report)', corpusL, `${fmt(e.symbolsPerSecond)} symbols/s, ${fmt(e.tokensPerSecond)} tokens/s (${fmt(e.nodes)} nodes, ${fmt(e.texts)} texts, ${fmt(e.ms)} ms)`, '≥ 150 symbols/s', check(e.symbolsPerSecond >= 150));
    else if (e) row('3. embedding (index report)', corpusL, `off: ${e.off}`);
    row('4. full index with embeddings', corpusL, `${fmt(f.linesPerSecond)} lines/s (${fmt(f.lines)} lines in ${fmt(f.ms)} ms)`, '≥ 4,000 lines/s', check(f.linesPerSecond >= 4000));
    row('   peak RSS', corpusL, `${fmt(f.peakRssMiB)} MiB`);
    row('5. no-change re-index', corpusL, `${fmt(f.noChange.medianMs)} ms (median of ${f.noChange.allMs.length})`);
    if (syn && !syn.error) row('5. no-change re-index (syntactic)', corpusS, `${fmt(syn.noChangeMedianMs)} ms (median of ${syn.noChangeMs.length})`);
    for (const [lang, u] of Object.entries(f.update)) {
      row(`6. single-file update (${lang})`, corpusL, `${fmt(u.medianMs)} ms median of ${u.allMs.length} (semantic ${fmt(u.medianSemanticMs)} ms, embed ${fmt(u.medianEmbedMs)} ms; ${u.file})`);
    }
  } else if (f) row('4. full index', corpusL, `error: ${f.error.split('\n')[0]}`);
}
const eb = results.embedBench;
if (eb && !eb.error) row('3. embedding (embedBench)', 'TS lib decls', `${fmt(eb.symbolsPerSecond)} symbols/s, ${fmt(eb.tokensPerSecond)} tokens/s (${eb.texts} texts, avg ${eb.avgTokens} tokens, ${eb.embedder})`, '≥ 150 symbols/s', check(eb.symbolsPerSecond >= 150));
for (const [symbols, s] of Object.entries(results.synthetic)) {
  const label = `synthetic ${Number(symbols) / 1000}K`;
  if (s.build?.error) {
    row('7. search latency', label, `error: ${s.build.error.split('\n')[0]}`);
    continue;
  }
  const sr = s.search;
  if (sr && !sr.error) {
    const lat = (x) => (x ? `p50 ${fmt(x.p50)} / p95 ${fmt(x.p95)} ms (n=${x.n}${x.complete === false ? ', time budget hit' : ''})` : 'not run');
    const target = (name) => (name === 'hybrid' ? 'p95 ≤ 40 ms' : 'p95 ≤ 10 ms');
    const limit = (name) => (name === 'hybrid' ? 40 : 10);
    for (const name of ['name', 'bm25', 'hybrid']) {
      const x = sr.latency[name];
      if (x) row(`7. search ${name}`, label, lat(x), target(name), check(x.p95 !== null && x.p95 <= limit(name)));
    }
    row('   query embedding alone', label, lat(sr.queryEmbedding));
    row('   peak RSS', label, `${fmt(sr.peakRssMiB)} MiB`);
  }
  const rk = s.rankers;
  if (rk && !rk.error) {
    const p = (x) => `p50 ${fmt(x.p50)} / p95 ${fmt(x.p95)} ms`;
    row('7. hybrid, learned ranker vs hand (alternated)', label, `${p(rk.latency.learned)} vs ${p(rk.latency.hand)} (n=${rk.latency.hand.n}), p95 ${rk.ratio.p95}×`, 'p95 ≤ 1.1× hand', check(rk.ratio.p95 <= 1.1));
  }
  const g = s.graph;
  if (g && !g.error) {
    row('8. callers depth 1', label, `p50 ${fmt(g.callers1.p50)} / p95 ${fmt(g.callers1.p95)} ms (n=${g.callers1.n}, ${fmt(g.nodes)} nodes)`, 'p95 ≤ 5 ms', check(g.callers1.p95 <= 5));
    row('8. impact depth 5', label, `p50 ${fmt(g.impact5.p50)} / p95 ${fmt(g.impact5.p95)} ms (median ${fmt(g.impact5.medianNodes)} nodes reached)`, 'p95 ≤ 50 ms', check(g.impact5.p95 <= 50));
  }
  const fl = s.filter;
  if (fl && !fl.error) {
    const p = (x) => `p50 ${fmt(x.p50)} / p95 ${fmt(x.p95)} ms`;
    row('7. hybrid, no filter', label, `${p(fl.latency.hybrid)} (n=${fl.latency.hybrid.n})`);
    for (const [name, what] of [['broad', `"${fl.filters.broad}"`], ['selective', `"${fl.filters.selective}"`], ['freshBroad', 'a new broad filter every query']]) {
      const x = fl.latency[name];
      row(`7. hybrid + filter ${what}`, label, `${p(x)}, ${fl.ratioP95[name]}× unfiltered p95`, 'p95 ≤ 1.5× unfiltered', check(fl.ratioP95[name] <= 1.5));
    }
    row('   result facts (callers, neighbours, duplicates)', label, `${p(fl.latency.hybrid)} with, ${p(fl.latency.hybridNoFacts)} without`);
  }
  const ws = s.workspace;
  if (ws && !ws.error) {
    row('7. two-repository hybrid search', label, `p50 ${fmt(ws.latency.two.p50)} / p95 ${fmt(ws.latency.two.p95)} ms vs one: p50 ${fmt(ws.latency.one.p50)} / p95 ${fmt(ws.latency.one.p95)} ms (${ws.ratioP95}×)`);
  }
  if (s.build && !s.build.error) row('   synthetic build', label, `${fmt(s.build.totalMs)} ms, ${fmt(s.build.edges)} edges, peak RSS ${fmt(s.build.peakRssMiB)} MiB`);
}
const cold = results.cold;
if (cold && !cold.error) row('7. cold start to first hybrid result', `synthetic ${Math.max(...scales) / 1000}K`, `${fmt(cold.medianWallMs)} ms wall (in-process ${fmt(cold.medianInProcessMs)} ms, median of ${cold.runs.length})`, '≤ 1,500 ms', check(cold.medianWallMs <= 1500));

const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i].length), ['figure', 'corpus', 'value', 'target', 'status'][i].length));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' │ ');
console.log(`\nCode Agent benchmarks — ${machine.cores} cores ${machine.cpu}, ${machine.ramGiB} GiB, Node ${machine.node}, load at start ${machine.loadAvg?.join(' ') ?? '?'}`);
console.log(line(['figure', 'corpus', 'value', 'target', 'status']));
console.log(widths.map((w) => '─'.repeat(w)).join('─┼─'));
for (const r of rows) console.log(line(r));
results.table = rows.map(([figure, corpus, value, target, status]) => ({ figure, corpus, value, target, status }));
delete results.partial;
save();
console.log(`\n${results.totalSeconds} s in all; written ${outFile}`);
