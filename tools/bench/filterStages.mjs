// Query stages of the filter language and of multi-repository search over synthetic indexes:
// hybrid search with and without filters (filter reused across queries, and a new filter every
// query), the cost of the facts each result carries, and a search over two indexes against one.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { benchEnv, importDist, percentile, round } from './lib.mjs';
import { querySet, WARMUP_QUERIES } from './queries.mjs';

function latency(samples) {
  if (samples.length === 0) return { n: 0, p50: null, p95: null, max: null };
  return { n: samples.length, p50: round(percentile(samples, 50), 2), p95: round(percentile(samples, 95), 2), max: round(Math.max(...samples), 2) };
}

function emptyRepo(dbPath) {
  const repo = join(dirname(dbPath), 'empty-repo');
  mkdirSync(repo, { recursive: true });
  return repo;
}

/**
 * The filters measured (the synthetic index: files `src/<16 areas>/<module>.ts`, each with a
 * class, 4 methods, 4 functions and an interface or type alias): `broad` keeps the ~40% of
 * nodes that are methods outside tests, `selective` the ~2.5% that are functions of one area,
 * `fresh` is a new filter text on every query (its allowed set is never cached).
 */
export const FILTERS = {
  broad: 'kind:method and not is:test',
  selective: 'path:src/auth/** and kind:function',
};

/**
 * Filtered against unfiltered hybrid search, every configuration measured on the same query
 * in turn, in a rotating order (interleaved, so load on the shared machine and cold pages hit
 * them alike). The engine's answer cache is cleared before every call.
 */
export async function filterSearch({ dbPath, rounds = 3, limit = 10 }) {
  const { Engine } = await importDist('engine');
  const engine = Engine.open(emptyRepo(dbPath), { dbPath, env: benchEnv() });
  const clearCache = () => engine.queryCache?.clear?.();
  try {
    const off = await engine.vectorOffReason();
    if (off) throw new Error(`vector channel off on the synthetic index: ${off}`);
    const queries = querySet(engine.store.db);
    let fresh = 0;
    const configs = {
      hybrid: () => ({}),
      hybridNoFacts: () => ({ facts: false }),
      broad: () => ({ filter: FILTERS.broad }),
      selective: () => ({ filter: FILTERS.selective }),
      // A filter never seen before: the allowed set is computed on this query.
      freshBroad: () => ({ filter: `${FILTERS.broad} and not name:zz${fresh++}` }),
    };
    for (const q of WARMUP_QUERIES) {
      for (const make of Object.values(configs)) {
        clearCache();
        await engine.search(q, { ...make(), limit });
      }
    }
    const samples = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
    const results = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
    const entries = Object.entries(configs);
    for (let r = 0; r < rounds; r++) {
      for (const [qi, { q }] of queries.entries()) {
        // Each query runs every configuration, starting with a different one each time: the
        // first to run a query pays for its cold pages, and that must not fall on one of them.
        for (let c = 0; c < entries.length; c++) {
          const [name, make] = entries[(c + qi + r) % entries.length];
          clearCache();
          const t = performance.now();
          const res = await engine.search(q, { ...make(), limit });
          samples[name].push(performance.now() - t);
          if (r === 0) results[name].push(res.results.length);
        }
      }
    }
    const lat = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, latency(v)]));
    const allowed = {};
    for (const [name, filter] of Object.entries(FILTERS)) {
      const reader = engine.reader();
      const { parseFilter } = await importDist('schema');
      const t = performance.now();
      const set = reader.nodeIdsMatching({ expression: parseFilter(`${filter} and not name:zzcount`) });
      allowed[name] = { nodes: set.size, ms: round(performance.now() - t, 2) };
    }
    for (const [k, v] of Object.entries(lat)) console.log(`${k}: p50 ${v.p50} ms, p95 ${v.p95} ms (n=${v.n})`);
    return {
      queries: queries.length,
      rounds,
      limit,
      filters: FILTERS,
      latency: lat,
      ratioP95: Object.fromEntries(Object.keys(configs).map((k) => [k, round(lat[k].p95 / lat.hybrid.p95, 2)])),
      minResults: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, Math.min(...v)])),
      allowedSet: allowed,
    };
  } finally {
    await engine.dispose();
  }
}

/**
 * Hybrid search over two indexes (`Workspace`: channels merged per channel, one fusion) against
 * the same queries over the first index alone through the same path, interleaved.
 */
export async function workspaceSearch({ dbPath, secondDbPath, rounds = 3, limit = 10 }) {
  const { Workspace, Engine } = await importDist('engine');
  const env = benchEnv();
  const one = Workspace.open([{ name: 'a', root: emptyRepo(dbPath), dbPath }], { env });
  const two = Workspace.open(
    [
      { name: 'a', root: emptyRepo(dbPath), dbPath },
      { name: 'b', root: emptyRepo(secondDbPath), dbPath: secondDbPath },
    ],
    { env },
  );
  const probe = Engine.open(emptyRepo(dbPath), { dbPath, env });
  const queries = querySet(probe.store.db);
  probe.close();
  try {
    for (const q of WARMUP_QUERIES) {
      await one.search(q, { limit });
      await two.search(q, { limit });
    }
    const samples = { one: [], two: [] };
    const fromSecond = [];
    for (let r = 0; r < rounds; r++) {
      for (const [qi, { q }] of queries.entries()) {
        // Alternate which runs first (the first pays for the query's cold pages of index a).
        for (const which of (qi + r) % 2 === 0 ? ['one', 'two'] : ['two', 'one']) {
          const t = performance.now();
          const res = await (which === 'one' ? one : two).search(q, { limit });
          samples[which].push(performance.now() - t);
          if (r === 0 && which === 'two') fromSecond.push(res.results.filter((x) => x.repo === 'b').length);
        }
      }
    }
    const lat = { one: latency(samples.one), two: latency(samples.two) };
    for (const [k, v] of Object.entries(lat)) console.log(`${k} index(es): p50 ${v.p50} ms, p95 ${v.p95} ms (n=${v.n})`);
    return {
      queries: queries.length,
      rounds,
      limit,
      latency: lat,
      ratioP95: round(lat.two.p95 / lat.one.p95, 2),
      medianResultsFromSecond: percentile(fromSecond, 50),
    };
  } finally {
    await one.dispose();
    await two.dispose();
  }
}
