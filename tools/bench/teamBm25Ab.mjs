#!/usr/bin/env node
// The team store's BM25 statement, before and after a change, side by side: `bm25Search` of an
// older checkout's build (--old DIR, built: its packages/store-postgres/dist) and of this one,
// alternated query by query (the order swapped every run) on one read-only snapshot each, over
// the search bench's query set (tools/bench/queries.mjs, from the synthetic index --db). Checks
// that both give the same answers with the same scores, and prints p50 / p95 per side.
// Usage: node tools/bench/teamBm25Ab.mjs --old DIR --url RO_URL --repo NAME --db INDEX.db [--runs 5] [--label main]
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { importDist, percentile, round, sqliteDriver } from './lib.mjs';
import { querySet } from './queries.mjs';

const { values } = parseArgs({
  options: { old: { type: 'string' }, url: { type: 'string' }, repo: { type: 'string' }, db: { type: 'string' }, runs: { type: 'string', default: '5' }, label: { type: 'string', default: 'main' } },
});
if (!values.old || !values.url || !values.repo || !values.db) {
  console.error('usage: node tools/bench/teamBm25Ab.mjs --old DIR --url RO_URL --repo NAME --db INDEX.db [--runs 5] [--label main]');
  process.exit(2);
}
const before = await import(join(resolve(values.old), 'packages', 'store-postgres', 'dist', 'index.js'));
const after = await importDist('store-postgres');
const db = new (sqliteDriver())(values.db, { readonly: true });
const queries = querySet(db).map((x) => x.q);
db.close();

const times = { before: [], after: [] };
const different = [];
await after.withSnapshot(values.url, values.repo, values.label, async (clientA, snapA) => {
  await before.withSnapshot(values.url, values.repo, values.label, async (clientB, snapB) => {
    for (let run = 0; run < Number(values.runs); run++) {
      for (const q of queries) {
        const got = {};
        for (const side of run % 2 === 0 ? ['before', 'after'] : ['after', 'before']) {
          const t = performance.now();
          got[side] = side === 'before' ? await before.bm25Search(clientB, snapB, q, null, 100) : await after.bm25Search(clientA, snapA, q, null, 100);
          times[side].push(performance.now() - t);
        }
        if (run === 0 && JSON.stringify(got.before) !== JSON.stringify(got.after)) different.push(q);
      }
    }
  });
});
const stats = (xs) => ({ p50: round(percentile(xs, 50), 2), p95: round(percentile(xs, 95), 2), max: round(Math.max(...xs), 1) });
console.log(JSON.stringify({ queries: queries.length, runs: Number(values.runs), identical: queries.length - different.length, different, before: stats(times.before), after: stats(times.after), load: loadavg().map((x) => round(x, 1)) }));
