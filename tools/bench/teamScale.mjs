#!/usr/bin/env node
// The team store at scale (issue 30): a synthetic index of N symbols (tools/bench/synthetic.mjs,
// written through the store's own writer; its vectors are the synthetic ones: real MiniLM vectors
// of ~3,000 TS lib declarations, perturbed per node) is published to PostgreSQL through the real
// publish path, then hybrid search and navigation are asked of both backends in one process,
// interleaved query by query: SQLite (the local engine) and PostgreSQL (the team store).
//
// Search: the suite's query set (tools/bench/queries.mjs), each query embedded once and the same
// vector given to both sides; local = Engine.searchContext + @ca/retrieve search (answer cache
// bypassed), team = searchTeamStore (a connection and read-only snapshot per search, as the CLI),
// pooled = the same through a TeamStorePool (a read-only snapshot per search on a kept connection,
// as `ca serve --store` answers).
// A second team figure runs the same channels on one open connection and snapshot, timed per
// channel, to say where the time goes.
// Navigation: symbol (lookup by qualified name), callers (depth 1), refs, impact (depth 3) for a
// sample of symbols whose qualified name is unique (every k-th by name), SQLite through
// Engine.navigate and PostgreSQL through the async read contract on one open snapshot; the edge
// sums per backend show both answered the same.
// Facts (`--only …,facts`): the team search with its result facts (caller count, neighbour
// names, identical code) and without (`facts: false`), interleaved query by query; the same
// pair on SQLite.
// Prints JSON lines; figures go to docs/benchmarks.md ("Team store at scale").
// Usage: node tools/bench/teamScale.mjs --symbols 100000 --store URL [--read-url URL] [--db FILE]
//          [--repo NAME] [--runs 3] [--queries 50] [--sample 100] [--only build,publish,search,navigation,facts] [--show-diff]
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchEnv, importDist, OUT_DIR, percentile, round, sqliteDriver } from './lib.mjs';
import { querySet, WARMUP_QUERIES } from './queries.mjs';
import { buildSynthetic } from './synthetic.mjs';

const { values } = parseArgs({
  options: {
    symbols: { type: 'string', default: '100000' },
    store: { type: 'string' },
    'read-url': { type: 'string' },
    db: { type: 'string' },
    repo: { type: 'string' },
    runs: { type: 'string', default: '3' },
    sample: { type: 'string', default: '100' },
    queries: { type: 'string', default: '50' },
    'impact-depth': { type: 'string', default: '3' },
    only: { type: 'string', default: 'build,publish,search,navigation' },
    // Print the queries whose first result differs between the backends (search step, first run).
    'show-diff': { type: 'boolean', default: false },
  },
});
if (!values.store) {
  console.error('usage: node tools/bench/teamScale.mjs --symbols N --store URL [--read-url URL] [--db FILE] [--runs 3] [--sample 100] [--only build,publish,search,navigation]');
  process.exit(2);
}
const symbols = Number(values.symbols);
const only = new Set(values.only.split(','));
const dbPath = resolve(values.db ?? join(OUT_DIR, `team-scale-${symbols}`, 'index.db'));
const repository = values.repo ?? `synthetic-${symbols}`;
const readUrl = values['read-url'] ?? values.store;
const LABEL = 'main';
const load = () => loadavg().map((x) => round(x, 1));
const emit = (o) => console.log(JSON.stringify({ ...o, load: load() }));
const stats = (xs) => ({ n: xs.length, p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2), max: round(Math.max(...xs), 2) });

if (only.has('build') && !existsSync(dbPath)) {
  mkdirSync(dirname(dbPath), { recursive: true });
  const built = await buildSynthetic({ symbols, dbPath });
  delete built.hubNames;
  emit({ step: 'build', ...built, bytes: statSync(dbPath).size });
} else if (!existsSync(dbPath)) throw new Error(`${dbPath} is missing: run with --only build first`);

const { Store } = await importDist('store');
const pg = await importDist('store-postgres');

if (only.has('publish')) {
  const store = Store.open(dbPath, { readonly: true, skipQuickCheck: true });
  try {
    const t = performance.now();
    // Progress per batch: a publish cut short still says how far it got and at what rate.
    const onProgress = (phase, done, total) => emit({ step: 'publish progress', phase, done, total, ms: Math.round(performance.now() - t) });
    const r = await pg.publish(values.store, repository, store.snapshotSource('working'), { label: LABEL, onProgress });
    emit({ step: 'publish', repository, ms: Math.round(performance.now() - t), files: r.files, nodes: r.nodes, edges: r.edges, written: r.written });
    const client = await pg.connect(values.store);
    try {
      const size = await client.query(`SELECT pg_database_size(current_database())::bigint AS bytes`);
      const indexes = await client.query(
        `SELECT c.relname AS name, pg_relation_size(c.oid)::bigint AS bytes FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
          WHERE s.nspname = 'public' AND c.relkind IN ('r', 'i') ORDER BY pg_relation_size(c.oid) DESC LIMIT 8`);
      emit({ step: 'database', bytes: Number(size.rows[0].bytes), largest: indexes.rows.map((x) => [x.name, Number(x.bytes)]) });
    } finally {
      await client.end();
    }
  } finally {
    store.close();
  }
}

const { Engine, navigateOf, searchTeamStore, symbolOf } = await importDist('engine');
const { search, analyzeQuery } = await importDist('retrieve');
const emptyRepo = join(dirname(dbPath), 'empty-repo');
mkdirSync(emptyRepo, { recursive: true });
const engine = Engine.open(emptyRepo, { dbPath, env: benchEnv() });
try {
  if (only.has('search')) await searchBench();
  if (only.has('facts')) await factsBench();
  if (only.has('navigation')) await navigationBench();
} finally {
  await engine.dispose();
}

/**
 * The queries a search bench runs (--queries N: every k-th query of the set, identifiers, exact
 * names and questions alike), each embedded once with the warm-up queries, and the model's id.
 */
async function sampledQueries() {
  const db = new (sqliteDriver())(dbPath, { readonly: true });
  const all = querySet(db).map((x) => x.q);
  const every = Math.max(1, Math.floor(all.length / Number(values.queries)));
  const queries = all.filter((_, i) => i % every === 0).slice(0, Number(values.queries));
  db.close();
  const model = engine.store.vectors.model();
  if (!model) throw new Error('the synthetic index has no vectors');
  const modelId = `${model.modelId}@${model.revision}`;
  const vectors = new Map();
  for (const q of [...WARMUP_QUERIES, ...queries]) vectors.set(q, await engine.embedQuery(q));
  return { queries, vectors, modelId };
}

/** Hybrid search, local and team interleaved per query, plus the team channels on one open snapshot. */
async function searchBench() {
  const { queries, vectors, modelId } = await sampledQueries();
  const options = { limit: 10 };
  const local = async (q) => {
    const { ctx } = await engine.searchContext(q, options, vectors.get(q));
    return search(ctx, q, engine.searchOptions(options));
  };
  const team = (q) => searchTeamStore(readUrl, repository, q, { ...options, label: LABEL, queryVector: { vector: vectors.get(q).vector, modelId } });
  const pool = new pg.TeamStorePool(readUrl, { max: 2 });
  const pooled = (q) => searchTeamStore(pool, repository, q, { ...options, label: LABEL, queryVector: { vector: vectors.get(q).vector, modelId } });
  const sides = { local, team, pooled };
  try {
    for (const q of WARMUP_QUERIES) for (const f of Object.values(sides)) await f(q);
    const runs = { local: [], team: [], pooled: [] };
    let sameTop1 = 0;
    for (let r = 0; r < Number(values.runs); r++) {
      for (const [i, q] of queries.entries()) {
        // Rotate which side goes first, so none always finds the others' caches warm.
        const keys = Object.keys(sides);
        const answers = {};
        for (let j = 0; j < keys.length; j++) {
          const side = keys[(i + r + j) % keys.length];
          const t = performance.now();
          answers[side] = await sides[side](q);
          runs[side].push(performance.now() - t);
        }
        if (r === 0 && answers.local.results[0]?.qualifiedName === answers.team.results[0]?.qualifiedName) sameTop1++;
        else if (r === 0 && values['show-diff']) {
          const top = (a) => a.results.slice(0, 3).map((x) => `${x.qualifiedName} ${x.path}:${x.startLine} ${x.score.toFixed(4)} [${Object.keys(x.ranks ?? {}).join(',')}]`);
          emit({ step: 'top-1 differs', query: q, local: top(answers.local), team: top(answers.team) });
        }
      }
    }
    emit({ step: 'search', queries: queries.length, runs: Number(values.runs), local: stats(runs.local), team: stats(runs.team), pooled: stats(runs.pooled), sameTop1 });
  } finally {
    await pool.close();
  }
  await channelBreakdown(queries, vectors, modelId);
}

/** Search with and without the result facts, on both backends, interleaved per query. */
async function factsBench() {
  const { queries, vectors, modelId } = await sampledQueries();
  const run = {
    localFacts: async (q) => search((await engine.searchContext(q, { limit: 10 }, vectors.get(q))).ctx, q, engine.searchOptions({ limit: 10 })),
    localBare: async (q) => search((await engine.searchContext(q, { limit: 10, facts: false }, vectors.get(q))).ctx, q, engine.searchOptions({ limit: 10, facts: false })),
    teamFacts: (q) => searchTeamStore(readUrl, repository, q, { limit: 10, label: LABEL, queryVector: { vector: vectors.get(q).vector, modelId } }),
    teamBare: (q) => searchTeamStore(readUrl, repository, q, { limit: 10, facts: false, label: LABEL, queryVector: { vector: vectors.get(q).vector, modelId } }),
  };
  for (const q of WARMUP_QUERIES) for (const f of Object.values(run)) await f(q);
  const times = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [i, q] of queries.entries()) {
      // Rotate the order, so no variant always finds the others' caches warm.
      const keys = Object.keys(run);
      for (let j = 0; j < keys.length; j++) {
        const k = keys[(i + r + j) % keys.length];
        const t = performance.now();
        await run[k](q);
        times[k].push(performance.now() - t);
      }
    }
  }
  emit({ step: 'search facts', queries: queries.length, runs: Number(values.runs), ...Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, stats(xs)])) });
}

/** The team search's parts on one open connection and snapshot: where a search's time goes. */
async function channelBreakdown(queries, vectors, modelId) {
  const parts = { connect: [], snapshot: [], name: [], bm25: [], vector: [], nodes: [] };
  const client = await pg.connect(readUrl);
  try {
    for (let r = 0; r < Number(values.runs); r++) {
      for (const q of queries) {
        let t = performance.now();
        const c = await pg.connect(readUrl);
        await c.end();
        parts.connect.push(performance.now() - t);
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        t = performance.now();
        const snap = await pg.openSnapshot(client, repository, LABEL);
        parts.snapshot.push(performance.now() - t);
        t = performance.now();
        const names = await pg.nameSearch(client, snap, analyzeQuery(q).identifiers, null, 50);
        parts.name.push(performance.now() - t);
        t = performance.now();
        const bm = await pg.bm25Search(client, snap, q, null, 50);
        parts.bm25.push(performance.now() - t);
        t = performance.now();
        const v = await pg.vectorSearch(client, snap, modelId, vectors.get(q).vector, null, 50);
        parts.vector.push(performance.now() - t);
        const refs = [...new Set([...names.refs, ...bm.map((h) => h.ref), ...v.hits.map((h) => h.ref)])];
        t = performance.now();
        await pg.nodesByRefs(client, snap, refs);
        parts.nodes.push(performance.now() - t);
        await client.query('COMMIT');
      }
    }
  } finally {
    await client.end();
  }
  emit({ step: 'team search parts', ...Object.fromEntries(Object.entries(parts).map(([k, xs]) => [k, stats(xs)])) });
}

/** Symbols whose qualified name is unique, every k-th in name order (both backends resolve them alike). */
function navigationSample(size) {
  const db = new (sqliteDriver())(dbPath, { readonly: true });
  const names = db
    .prepare(
      `SELECT qualified_name FROM nodes WHERE kind IN ('function', 'method', 'class')
        GROUP BY qualified_name HAVING COUNT(*) = 1 ORDER BY qualified_name`,
    )
    .pluck()
    .all();
  db.close();
  const step = Math.max(1, Math.floor(names.length / size));
  return names.filter((_, i) => i % step === 0).slice(0, size);
}

async function navigationBench() {
  const sample = navigationSample(Number(values.sample));
  const limits = (await importDist('schema')).defaultConfig().graph;
  const cases = [
    ['callers', { depth: 1 }],
    ['refs', { depth: 1 }],
    ['impact', { depth: Number(values['impact-depth']) }],
  ];
  const snapshot = await pg.openGraphReads(readUrl, repository, LABEL);
  const localReads = engine.graphReads('working');
  try {
    // Warm-up: the first answers pay the gap files' texts and the page caches.
    for (const name of sample.slice(0, 5)) for (const [nav, o] of cases) (engine.navigate(nav, name, { ...o, label: 'working' }), await navigateOf(snapshot, nav, name, o, limits));
    const symbolTimes = { sqlite: [], postgres: [] };
    for (const [i, name] of sample.entries()) {
      const order = i % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
      for (const side of order) {
        const t = performance.now();
        await symbolOf(side === 'sqlite' ? localReads : snapshot, name);
        symbolTimes[side].push(performance.now() - t);
      }
    }
    emit({ step: 'navigation', navigation: 'symbol', sqlite: stats(symbolTimes.sqlite), postgres: stats(symbolTimes.postgres), note: 'both through the async read contract' });
    for (const [navigation, options] of cases) {
      const times = { sqlite: [], postgres: [] };
      const edges = { sqlite: 0, postgres: 0 };
      for (let r = 0; r < Number(values.runs); r++) {
        for (const [i, name] of sample.entries()) {
          const order = (i + r) % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite'];
          for (const side of order) {
            const t = performance.now();
            const res = side === 'sqlite' ? engine.navigate(navigation, name, { ...options, label: 'working' }) : await navigateOf(snapshot, navigation, name, options, limits);
            times[side].push(performance.now() - t);
            if (r === 0) edges[side] += res.edges.length;
          }
        }
      }
      emit({ step: 'navigation', navigation, ...options, symbols: sample.length, sqlite: { ...stats(times.sqlite), edges: edges.sqlite }, postgres: { ...stats(times.postgres), edges: edges.postgres } });
    }
  } finally {
    await snapshot.close();
  }
}
