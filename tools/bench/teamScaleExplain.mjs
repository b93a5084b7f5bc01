#!/usr/bin/env node
// Where a team search's time goes (issue 30): runs the team store's search channels
// (@ca/store-postgres nameSearch, bm25Search, vectorSearch, nodesByRefs) for a few queries on one
// read-only snapshot, with every statement they send also run under EXPLAIN (ANALYZE, BUFFERS)
// first; prints per statement its round trip, the server's execution time and the plan's top
// lines. The queries are embedded with the local index's model (the synthetic index of
// tools/bench/teamScale.mjs, or any index published to the store).
// Usage: node tools/bench/teamScaleExplain.mjs --db FILE --store URL --repo NAME [--label main] [--lines 12] QUERY…
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { benchEnv, importDist } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { db: { type: 'string' }, store: { type: 'string' }, repo: { type: 'string' }, label: { type: 'string', default: 'main' }, lines: { type: 'string', default: '12' } },
});
if (!values.db || !values.store || !values.repo || positionals.length === 0) {
  console.error('usage: node tools/bench/teamScaleExplain.mjs --db FILE --store URL --repo NAME [--label main] QUERY…');
  process.exit(2);
}
const pg = await importDist('store-postgres');
const { Engine } = await importDist('engine');
const { analyzeQuery } = await importDist('retrieve');
const repoDir = join(dirname(values.db), 'empty-repo');
mkdirSync(repoDir, { recursive: true });
const engine = Engine.open(repoDir, { dbPath: values.db, env: benchEnv() });
const model = engine.store.vectors.model();
const modelId = `${model.modelId}@${model.revision}`;
const client = await pg.connect(values.store);
const plain = client.query.bind(client);
let step = '';
// Every statement is explained (and so run twice): the printed round trip is the plain run's.
client.query = async (sql, params) => {
  const text = typeof sql === 'string' ? sql : sql.text;
  const explainable = /^\s*(WITH|SELECT)\b/i.test(text) && !/set_config/.test(text);
  let plan = null;
  if (explainable) plan = (await plain(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows.map((r) => r['QUERY PLAN']);
  const t = performance.now();
  const out = await plain(sql, params);
  const ms = performance.now() - t;
  if (plan) {
    const exec = plan.find((l) => l.startsWith('Execution Time'));
    console.log(`--- ${step}: round trip ${ms.toFixed(1)} ms, ${exec}; ${text.replace(/\s+/g, ' ').slice(0, 140)}`);
    for (const line of plan.slice(0, Number(values.lines))) console.log(`    ${line}`);
  }
  return out;
};
try {
  for (const q of positionals) {
    const vector = (await engine.embedQuery(q)).vector;
    console.log(`=== ${q}`);
    await plain('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    step = 'snapshot';
    const snap = await pg.openSnapshot(client, values.repo, values.label);
    step = 'name';
    const names = await pg.nameSearch(client, snap, analyzeQuery(q).identifiers, null, 50);
    step = 'bm25';
    const bm = await pg.bm25Search(client, snap, q, null, 50);
    step = 'vector';
    const v = await pg.vectorSearch(client, snap, modelId, vector, null, 50);
    step = 'nodes';
    await pg.nodesByRefs(client, snap, [...new Set([...names.refs, ...bm.map((h) => h.ref), ...v.hits.map((h) => h.ref)])]);
    console.log(`(vector plan ${v.plan}, scope ${v.scope})`);
    await plain('COMMIT');
  }
} finally {
  await client.end();
  await engine.dispose();
}
