#!/usr/bin/env node
// Index throughput into the team store vs the local index, and fork sharing (issue 30), in one run.
//
// Throughput: each repository is indexed into a fresh local index (Engine.index, what `ca index`
// runs; embeddings on when the model is found), then that label is published to PostgreSQL
// (what `ca index --store` adds). Per repository: local index time, publish time and rows/s
// (node + edge rows of the label over each step's wall time).
// Fork: a copy of the first repository with --fork-edits files changed (a function appended to
// each) is indexed starting from a copy of the first's local index (its content-hash embedding
// cache, as a CI job restoring a cached index would), then published as another repository: the
// rows and bytes the team store gains and the texts the model ran on show what it stores and
// embeds for the second repository.
// Prints JSON lines; figures go to docs/benchmarks.md ("Team store at scale").
// Usage: node tools/bench/teamScaleIndex.mjs --store URL --repos DIR,DIR [--fork-edits 3] [--out DIR]
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { benchEnv, importDist, round } from './lib.mjs';

const { values } = parseArgs({
  options: { store: { type: 'string' }, repos: { type: 'string' }, 'fork-edits': { type: 'string', default: '3' }, out: { type: 'string', default: '/tmp/ca-team-scale-index' } },
});
if (!values.store || !values.repos) {
  console.error('usage: node tools/bench/teamScaleIndex.mjs --store URL --repos DIR,DIR [--fork-edits 3] [--out DIR]');
  process.exit(2);
}
const out = resolve(values.out);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const { Engine } = await importDist('engine');
const { Store } = await importDist('store');
const pg = await importDist('store-postgres');
const emit = (o) => console.log(JSON.stringify({ ...o, load: loadavg().map((x) => round(x, 1)) }));

/** Indexes `repo` into `dbPath` (a fresh file, or a copy of another index) and returns the report. */
async function indexLocal(repo, dbPath) {
  const engine = Engine.open(repo, { dbPath, env: benchEnv() });
  try {
    const t = performance.now();
    const report = await engine.index({});
    return { report, ms: performance.now() - t };
  } finally {
    await engine.dispose();
  }
}

async function publishLocal(dbPath, label, repository) {
  const store = Store.open(dbPath, { readonly: true, skipQuickCheck: true });
  try {
    const t = performance.now();
    const r = await pg.publish(values.store, repository, store.snapshotSource(label), { label: 'main' });
    return { r, ms: performance.now() - t };
  } finally {
    store.close();
  }
}

/** Rows per table and the database's size: the fork's cost is the difference around its publish. */
async function storeSize() {
  const client = await pg.connect(values.store);
  try {
    const size = await client.query(`SELECT pg_database_size(current_database())::bigint AS bytes`);
    return { bytes: Number(size.rows[0].bytes), tables: await pg.tableCounts(values.store) };
  } finally {
    await client.end();
  }
}

const repos = values.repos.split(',').map((r) => resolve(r));
const indexes = [];
for (const repo of repos) {
  const dbPath = join(out, `${basename(repo)}.db`);
  const { report, ms } = await indexLocal(repo, dbPath);
  const pub = await publishLocal(dbPath, report.label, basename(repo));
  const rows = pub.r.nodes + pub.r.edges;
  indexes.push({ repo, dbPath });
  emit({
    step: 'throughput', repository: basename(repo), files: report.files, lines: report.lines, symbols: report.symbols,
    embedded: report.embeddings?.embedded ?? null, vectorsOff: report.embeddings?.off ?? null,
    localMs: Math.round(ms), localRowsPerSecond: Math.round((rows / ms) * 1000),
    publishMs: Math.round(pub.ms), publishRowsPerSecond: Math.round((rows / pub.ms) * 1000), nodes: pub.r.nodes, edges: pub.r.edges, written: pub.r.written,
  });
}

// The fork: a copy of the first repository, a few files changed, its index started from the first's.
const base = indexes[0];
const fork = join(out, `${basename(base.repo)}-fork`);
cpSync(base.repo, fork, { recursive: true });
const tracked = execFileSync('git', ['-C', fork, 'ls-files'], { encoding: 'utf8' })
  .split('\n')
  .filter((p) => /\.(ts|tsx|cs)$/.test(p) && !/(^|\/)(test|tests|__tests__)\//.test(p) && !p.endsWith('.d.ts'))
  .sort();
const step = Math.max(1, Math.floor(tracked.length / Number(values['fork-edits'])));
const edited = tracked.filter((_, i) => i % step === 0).slice(0, Number(values['fork-edits']));
for (const [i, path] of edited.entries()) {
  const file = join(fork, path);
  const cs = path.endsWith('.cs');
  const added = cs
    ? `\nnamespace ForkOnly { public static class ForkAddition${i} { public static int AddFork${i}(int x) => x + ${i}; } }\n`
    : `\nexport function addFork${i}(x: number): number {\n  return x + ${i};\n}\n`;
  writeFileSync(file, readFileSync(file, 'utf8') + added);
}
const forkDb = join(out, `${basename(fork)}.db`);
copyFileSync(base.dbPath, forkDb);
const before = await storeSize();
const indexed = await indexLocal(fork, forkDb);
const pub = await publishLocal(forkDb, indexed.report.label, `${basename(base.repo)}-fork`);
const after = await storeSize();
const grew = Object.fromEntries(Object.keys(after.tables).map((t) => [t, after.tables[t] - (before.tables[t] ?? 0)]));
emit({
  step: 'fork', base: basename(base.repo), edited, localMs: Math.round(indexed.ms), changed: indexed.report.changed,
  embedding: indexed.report.embeddings ? { nodes: indexed.report.embeddings.nodes, texts: indexed.report.embeddings.texts, embedded: indexed.report.embeddings.embedded } : null,
  publishMs: Math.round(pub.ms), nodes: pub.r.nodes, edges: pub.r.edges, written: pub.r.written, rowsAdded: grew, bytesAdded: after.bytes - before.bytes,
});
