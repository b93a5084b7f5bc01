#!/usr/bin/env node
// The SQLite path before and after the team-store change (issue 30), in one run: two checkouts
// (e.g. this one and a worktree of the commit before issue 30's first commit, each built) index
// the same repository and answer the same queries, alternating A B A B … in fresh processes.
// Per run and checkout: a full `Engine.index` into a fresh index file, a no-change `Engine.index`
// on it (a new engine, as a new `ca index` process), then search (the engine's default channels;
// the answer cache cleared before each call) and callers (depth 1) for a fixed set of queries and
// symbols, `--rounds` times each. Prints JSON lines per run and a summary of medians per checkout.
// Usage: node tools/bench/teamScaleSqlite.mjs --a ROOT --b ROOT --repo DIR [--runs 2] [--rounds 3]
// (child: --child ROOT --repo DIR --db FILE --rounds N)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, percentile, round } from './lib.mjs';

const { values } = parseArgs({
  options: {
    a: { type: 'string' }, b: { type: 'string' }, repo: { type: 'string' }, runs: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' },
    child: { type: 'string' }, db: { type: 'string' },
  },
});

// Words and identifiers a developer would ask of a TS web framework (hono); any repository works.
const QUERIES = [
  'Context', 'HTTPException', 'getCookie', 'validator', 'Hono.route', 'compose', 'RegExpRouter', 'streamSSE', 'basicAuth', 'parseBody',
  'set a cookie on the response', 'validate the request body', 'route parameters from the path', 'handle errors thrown in a handler',
  'stream a response', 'cors middleware', 'serve static files', 'json web token verification', 'read request headers', 'compress the response',
];

async function child() {
  const { Engine } = await import(join(resolve(values.child), 'packages/engine/dist/index.js'));
  const repo = resolve(values.repo);
  let engine = Engine.open(repo, { dbPath: values.db });
  let t = performance.now();
  const first = await engine.index({});
  const indexMs = performance.now() - t;
  await engine.dispose();
  engine = Engine.open(repo, { dbPath: values.db });
  t = performance.now();
  await engine.index({});
  const noChangeMs = performance.now() - t;
  const clear = () => engine.queryCache?.clear?.();
  const searchMs = [];
  const hits = [];
  for (const q of QUERIES.slice(0, 3)) (clear(), await engine.search(q, { limit: 10 }));
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const q of QUERIES) {
      clear();
      const s = performance.now();
      const res = await engine.search(q, { limit: 10 });
      searchMs.push(performance.now() - s);
      if (r === 0) hits.push(res.results[0]?.qualifiedName ?? null);
    }
  }
  // Callers of the symbols the searches found first (both checkouts index the same repository).
  const seeds = [...new Set(hits.filter(Boolean))];
  const callersMs = [];
  let edges = 0;
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const name of seeds) {
      const s = performance.now();
      try {
        const res = engine.navigate('callers', name, { depth: 1, all: true });
        if (r === 0) edges += res.edges.length;
      } catch (e) {
        if (e?.code !== 'not_found') throw e;
        // why: a top hit can be a file or a merged child that navigation names differently; timed all the same
      }
      callersMs.push(performance.now() - s);
    }
  }
  await engine.dispose();
  const stats = (xs) => ({ p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2) });
  console.log(JSON.stringify({
    files: first.files, symbols: first.symbols, edges: first.edges, vectorsOff: first.embeddings?.off ?? null,
    indexMs: Math.round(indexMs), noChangeMs: Math.round(noChangeMs), search: stats(searchMs), callers: { ...stats(callersMs), seeds: seeds.length, edges }, top1: hits,
  }));
}

function parent() {
  const roots = { A: resolve(values.a), B: resolve(values.b) };
  const results = { A: [], B: [] };
  for (let run = 0; run < Number(values.runs); run++) {
    // A B, then B A: neither checkout always runs second on a warm page cache.
    for (const side of run % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
      const dir = mkdtempSync(join(tmpdir(), 'ca-sqlite-ab-'));
      const load = loadavg().map((x) => round(x, 1));
      const out = execFileSync(process.execPath, [import.meta.filename, '--child', roots[side], '--repo', values.repo, '--db', join(dir, 'index.db'), '--rounds', values.rounds], { encoding: 'utf8', maxBuffer: 1 << 26 });
      rmSync(dir, { recursive: true, force: true });
      const r = JSON.parse(out.trim().split('\n').at(-1));
      results[side].push(r);
      const { top1, ...shown } = r;
      console.log(JSON.stringify({ run, side, root: roots[side], load, ...shown }));
    }
  }
  const sameTop1 = results.A[0].top1.filter((q, i) => q === results.B[0].top1[i]).length;
  for (const side of ['A', 'B']) {
    const rs = results[side];
    console.log(JSON.stringify({
      summary: side, root: roots[side], runs: rs.length, indexMs: median(rs.map((r) => r.indexMs)), noChangeMs: median(rs.map((r) => r.noChangeMs)),
      searchP50: median(rs.map((r) => r.search.p50)), searchP95: median(rs.map((r) => r.search.p95)),
      callersP50: median(rs.map((r) => r.callers.p50)), callersP95: median(rs.map((r) => r.callers.p95)),
    }));
  }
  console.log(JSON.stringify({ sameTop1, of: QUERIES.length, load: loadavg().map((x) => round(x, 1)) }));
}

if (values.child) await child();
else if (!values.a || !values.b || !values.repo) {
  console.error('usage: node tools/bench/teamScaleSqlite.mjs --a ROOT --b ROOT --repo DIR [--runs 2] [--rounds 3]');
  process.exit(2);
} else parent();
