// Query stages over a synthetic index: search latency per channel set, graph navigation
// latency, and the cold start (a new process: open the engine, answer one hybrid query).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { benchEnv, importDist, median, percentile, round } from './lib.mjs';
import { querySet, WARMUP_QUERIES } from './queries.mjs';
import { buildSynthetic } from './synthetic.mjs';

/** Builds a synthetic index (see synthetic.mjs) at `dbPath`. */
export async function synth({ symbols, dbPath }) {
  mkdirSync(join(dbPath, '..'), { recursive: true });
  const result = await buildSynthetic({ symbols, dbPath });
  console.log(`synthetic ${symbols}: ${result.symbols} symbols, ${result.edges} edges, ${result.nodes} vectors in ${result.totalMs} ms`);
  return result;
}

async function openSynthetic(dbPath) {
  const { Engine } = await importDist('engine');
  // The repository folder is empty: results come from the index (chunk text), as for a clean checkout.
  const repo = join(dirname(dbPath), 'empty-repo');
  mkdirSync(repo, { recursive: true });
  return Engine.open(repo, { dbPath, env: benchEnv() });
}

/**
 * The synthetic index's query set, after checking its vector channel is on and warming up the
 * model, the vector index and SQLite's page cache with every configuration (cache cleared).
 */
async function warmedQueries(engine, configs, limit) {
  const queries = querySet(engine.store.db);
  const off = await engine.vectorOffReason();
  if (off) throw new Error(`vector channel off on the synthetic index: ${off}`);
  for (const q of WARMUP_QUERIES) {
    for (const options of Object.values(configs)) {
      engine.queryCache?.clear?.();
      await engine.search(q, { ...options, limit });
    }
  }
  return queries;
}

function latency(samples) {
  if (samples.length === 0) return { n: 0, p50: null, p95: null, max: null };
  return {
    n: samples.length,
    p50: round(percentile(samples, 50), 2),
    p95: round(percentile(samples, 95), 2),
    max: round(Math.max(...samples), 2),
  };
}

/**
 * Search latency: every query of the set, `rounds` times, for name-only, BM25-only and hybrid
 * (name + BM25 + vector, the query embedded in-process each time). The engine's answer cache is
 * cleared before every call, so each sample is a cache miss (a repeated query would otherwise
 * cost ~0.05 ms).
 *
 * Each channel set gets at most `budgetMs` (a query already running is not interrupted: SQLite
 * calls are synchronous), so a pathological regression yields fewer samples, flagged
 * `complete: false`, instead of an endless run.
 */
export async function search({ dbPath, rounds = 3, limit = 10, channelSets = ['name', 'bm25', 'hybrid'], budgetMs = 45_000 }) {
  const engine = await openSynthetic(dbPath);
  const clearCache = () => engine.queryCache?.clear?.();
  try {
    const configs = { name: { channels: ['name'] }, bm25: { channels: ['bm25'] }, hybrid: {} };
    const w0 = performance.now();
    const queries = await warmedQueries(engine, configs, limit);
    const warmupMs = performance.now() - w0;
    const measure = async (name, options) => {
      const samples = [];
      const byType = {};
      const results = [];
      const started = performance.now();
      let complete = true;
      outer: for (let r = 0; r < rounds; r++) {
        for (const { q, type } of queries) {
          if (performance.now() - started > budgetMs) {
            complete = false;
            break outer;
          }
          clearCache();
          const t = performance.now();
          const res = await engine.search(q, { ...options, limit });
          const ms = performance.now() - t;
          samples.push(ms);
          (byType[type] ??= []).push(ms);
          if (r === 0) results.push(res.results.length);
        }
      }
      console.log(`${name}: ${samples.length} samples, p50 ${round(percentile(samples, 50), 2)} ms, p95 ${round(percentile(samples, 95), 2)} ms${complete ? '' : ' (time budget reached)'}`);
      return {
        ...latency(samples),
        complete,
        byQueryType: Object.fromEntries(Object.entries(byType).map(([t, v]) => [t, latency(v)])),
        medianResults: median(results),
      };
    };
    const latencyOf = {};
    for (const name of channelSets) latencyOf[name] = await measure(name, configs[name]);
    // The query embedding alone (what hybrid adds on top of the vector scan).
    const embedSamples = [];
    for (const { q } of queries) {
      const t = performance.now();
      await engine.queryEmbedder.embed(q);
      embedSamples.push(performance.now() - t);
    }
    const counts = engine.reader().counts();
    return {
      dbPath,
      symbols: counts.symbols,
      queries: queries.length,
      queryTypes: Object.fromEntries(['identifier', 'exact-name', 'natural-language'].map((t) => [t, queries.filter((x) => x.type === t).length])),
      rounds,
      budgetMs,
      warmupMs: Math.round(warmupMs),
      latency: latencyOf,
      queryEmbedding: latency(embedSamples),
    };
  } finally {
    await engine.dispose();
  }
}

/**
 * The ranking's cost: hybrid search with the hand ranking (the default) and with the learned
 * ranker (`ranker: 'learned'`, decision 043), side by side in one run. Every query runs both, in
 * an order that alternates from query to query, so load on the shared machine and cold pages hit
 * both alike; the answer cache is cleared before every call. Reports p50 / p95 of each and the
 * ratios learned ÷ hand.
 */
export async function rankers({ dbPath, rounds = 3, limit = 10 }) {
  const engine = await openSynthetic(dbPath);
  const clearCache = () => engine.queryCache?.clear?.();
  try {
    const configs = { hand: { ranker: 'hand' }, learned: { ranker: 'learned' } };
    const queries = await warmedQueries(engine, configs, limit);
    const samples = { hand: [], learned: [] };
    let turn = 0;
    for (let r = 0; r < rounds; r++) {
      for (const { q } of queries) {
        const order = turn++ % 2 === 0 ? ['hand', 'learned'] : ['learned', 'hand'];
        for (const name of order) {
          clearCache();
          const t = performance.now();
          const res = await engine.search(q, { ...configs[name], limit });
          samples[name].push(performance.now() - t);
          if (res.notices.some((n) => /learned ranker unavailable/.test(n))) throw new Error(`learned ranker unavailable: ${res.notices.join('; ')}`);
        }
      }
    }
    const hand = latency(samples.hand);
    const learned = latency(samples.learned);
    console.log(`hand: p50 ${hand.p50} / p95 ${hand.p95} ms; learned: p50 ${learned.p50} / p95 ${learned.p95} ms; p95 ratio ${round(learned.p95 / hand.p95, 3)}`);
    return {
      dbPath,
      symbols: engine.reader().counts().symbols,
      queries: queries.length,
      rounds,
      latency: { hand, learned },
      ratio: { p50: round(learned.p50 / hand.p50, 3), p95: round(learned.p95 / hand.p95, 3) },
    };
  } finally {
    await engine.dispose();
  }
}

/**
 * Graph latency: callers (depth 1) and impact (depth 5) of 50 functions — 10 hubs (most-called)
 * and 40 spread evenly over the rest — after one warm-up pass, `rounds` times each. Impact
 * answers are capped by `graph.impact_max_nodes` (`truncated` counts the seeds cut in round 1).
 */
export async function graph({ dbPath, rounds = 3 }) {
  const engine = await openSynthetic(dbPath);
  try {
    const db = engine.store.db;
    const hubs = db
      .prepare(
        `SELECT target_id AS id, COUNT(*) AS callers FROM edges WHERE type = 'calls' AND target_id IS NOT NULL
         GROUP BY target_id ORDER BY callers DESC, target_id LIMIT 10`,
      )
      .all();
    const fnCount = db.prepare(`SELECT COUNT(*) FROM nodes WHERE kind IN ('function','method')`).pluck().get();
    const nth = db.prepare(`SELECT id FROM nodes WHERE kind IN ('function','method') ORDER BY id LIMIT 1 OFFSET ?`).pluck();
    const spread = Array.from({ length: 40 }, (_, i) => nth.get(Math.floor(((i + 0.5) * fnCount) / 40)));
    const seeds = [...hubs.map((h) => ({ id: h.id, hub: true })), ...spread.map((id) => ({ id, hub: false }))];
    const navs = [
      ['callers', 1],
      ['impact', 5],
    ];
    for (const s of seeds) for (const [nav, depth] of navs) engine.navigate(nav, String(s.id), { depth });
    const out = {};
    for (const [nav, depth] of navs) {
      const all = [];
      const hubMs = [];
      const cpuMs = [];
      const sizes = [];
      let truncated = 0;
      for (let r = 0; r < rounds; r++) {
        for (const s of seeds) {
          const c = process.cpuUsage();
          const t = performance.now();
          const res = engine.navigate(nav, String(s.id), { depth });
          const ms = performance.now() - t;
          const cpu = process.cpuUsage(c);
          all.push(ms);
          cpuMs.push((cpu.user + cpu.system) / 1000);
          if (s.hub) hubMs.push(ms);
          if (r === 0) {
            sizes.push(res.nodes.length);
            if (res.truncated) truncated++;
          }
        }
      }
      out[`${nav}${depth}`] = {
        navigation: nav,
        depth,
        ...latency(all),
        hubs: latency(hubMs),
        // CPU time of the process per call: less sensitive than wall time to waiting for a core
        // on a shared machine (still inflated by contention for caches).
        cpu: latency(cpuMs),
        medianNodes: median(sizes),
        maxNodes: Math.max(...sizes),
        truncated,
      };
    }
    const counts = engine.reader().counts();
    return {
      dbPath,
      symbols: counts.symbols,
      nodes: db.prepare(`SELECT COUNT(*) FROM nodes`).pluck().get(),
      edges: counts.edges,
      seeds: seeds.length,
      hubCallers: hubs.map((h) => h.callers),
      rounds,
      ...out,
    };
  } finally {
    await engine.dispose();
  }
}
