#!/usr/bin/env node
// Navigation on the team store vs the local index (decision 042): indexes REPO into a temporary
// local index (no embeddings: navigation reads none), publishes it, then answers callers (depth 1)
// and impact (depth 3) for a fixed sample of symbols (asked by qualified name, --all) — every k-th function, method or class in
// qualified-name order — from SQLite (Engine.navigate, the local path) and from PostgreSQL through
// the async read contract (and SQLite behind it too), once on one open snapshot and once opening a snapshot per query (what
// a stateless server does per request). Prints p50/p95 per (navigation, backend) as JSON lines;
// figures go to docs/benchmarks.md ("Team store navigation").
// Usage: node tools/bench/navigationStore.mjs --repo DIR --store URL [--read-url URL] [--sample 200] [--db FILE (reuse a local index)]
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { repo: { type: 'string' }, store: { type: 'string' }, 'read-url': { type: 'string' }, sample: { type: 'string', default: '200' }, db: { type: 'string' } } });
if (!values.repo || !values.store) {
  console.error('usage: node tools/bench/navigationStore.mjs --repo DIR --store URL [--read-url URL] [--sample N]');
  process.exit(2);
}
process.env.CA_EMBEDDING_MODEL_DIR = '/nonexistent/models';
const root = resolve(import.meta.dirname, '../..');
const { Engine, navigateOf } = await import(join(root, 'packages/engine/dist/index.js'));
const { publish, openGraphReads } = await import(join(root, 'packages/store-postgres/dist/index.js'));
const { defaultConfig } = await import(join(root, 'packages/schema/dist/index.js'));

const engine = Engine.open(resolve(values.repo), { dbPath: values.db ?? join(mkdtempSync(join(tmpdir(), 'ca-navbench-')), 'index.db') });
let t = performance.now();
const report = await engine.index({});
console.log(JSON.stringify({ indexed: { files: report.files, symbols: report.symbols, edges: report.edges, ms: Math.round(performance.now() - t) } }));
const repository = `navbench-${basename(resolve(values.repo))}`;
t = performance.now();
const pub = await publish(values.store, repository, engine.store.snapshotSource(report.label), { label: 'main' });
console.log(JSON.stringify({ published: { nodes: pub.nodes, edges: pub.edges, ms: Math.round(performance.now() - t) } }));

const reader = engine.store.reader(report.label);
const candidates = [...reader.labelEntries().keys()]
  .flatMap((path) => reader.outline(path))
  .filter((n) => n.kind === 'function' || n.kind === 'method' || n.kind === 'class')
  .sort((a, b) => (a.qualifiedName < b.qualifiedName ? -1 : a.qualifiedName > b.qualifiedName ? 1 : a.id - b.id));
const step = Math.max(1, Math.floor(candidates.length / Number(values.sample)));
const sample = candidates.filter((_, i) => i % step === 0).slice(0, Number(values.sample));
const limits = defaultConfig().graph;
const readUrl = values['read-url'] ?? values.store;
const cases = [
  ['callers', { depth: 1 }],
  ['impact', { depth: 3 }],
];

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(navigation, backend, times, edges) {
  const s = [...times].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  console.log(JSON.stringify({ navigation, backend, queries: s.length, p50: round(percentile(s, 50)), p95: round(percentile(s, 95)), max: round(s.at(-1)), edges }));
}

const snapshot = await openGraphReads(readUrl, repository, 'main');
const localReads = engine.graphReads(report.label);
for (const [navigation, options] of cases) {
  const runs = { sqlite: [], 'sqlite (async contract)': [], 'postgres (open snapshot)': [], 'postgres (snapshot per query)': [] };
  const edgeCounts = { sqlite: 0, 'sqlite (async contract)': 0, 'postgres (open snapshot)': 0, 'postgres (snapshot per query)': 0 };
  for (const node of sample) {
    t = performance.now();
    const a = engine.navigate(navigation, node.qualifiedName, { ...options, all: true, label: report.label });
    runs.sqlite.push(performance.now() - t);
    edgeCounts.sqlite += a.edges.length;
    // The same index behind the async contract (resolved promises): what async costs SQLite.
    t = performance.now();
    const l = await navigateOf(localReads, navigation, node.qualifiedName, { ...options, all: true }, limits);
    runs['sqlite (async contract)'].push(performance.now() - t);
    edgeCounts['sqlite (async contract)'] += l.edges.length;
    // Every backend is asked by qualified name with --all (node ids differ between backends):
    // the edge totals printed per backend show they answered the same.
    const seed = node.qualifiedName;
    t = performance.now();
    const b = await navigateOf(snapshot, navigation, seed, { ...options, all: true }, limits);
    runs['postgres (open snapshot)'].push(performance.now() - t);
    edgeCounts['postgres (open snapshot)'] += b.edges.length;
    t = performance.now();
    const reads = await openGraphReads(readUrl, repository, 'main');
    const c = await navigateOf(reads, navigation, seed, { ...options, all: true }, limits);
    await reads.close();
    runs['postgres (snapshot per query)'].push(performance.now() - t);
    edgeCounts['postgres (snapshot per query)'] += c.edges.length;
  }
  for (const [backend, times] of Object.entries(runs)) summary(navigation, backend, times, edgeCounts[backend]);
}
await snapshot.close();
engine.close();
