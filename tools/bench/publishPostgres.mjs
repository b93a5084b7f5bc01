#!/usr/bin/env node
// Publish throughput into the team store (decision 036): publishes one label of an existing
// local index to PostgreSQL three times — first into the database, again unchanged, then as a
// second repository sharing every file — and prints per run the wall time, files, nodes, edges
// and the rows each run added. Figures go to docs/benchmarks.md ("Team store publish").
// Usage: node tools/bench/publishPostgres.mjs --index <repo>/.codeagent/index.db --store URL [--label working] [--repo NAME]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { Store } = await import(resolve(import.meta.dirname, '../../packages/store/dist/index.js'));
const { publish, tableCounts } = await import(resolve(import.meta.dirname, '../../packages/store-postgres/dist/index.js'));

const { values } = parseArgs({ options: { index: { type: 'string' }, store: { type: 'string' }, label: { type: 'string', default: 'working' }, repo: { type: 'string', default: 'bench' } } });
if (!values.index || !values.store) {
  console.error('usage: node tools/bench/publishPostgres.mjs --index FILE --store URL [--label NAME] [--repo NAME]');
  process.exit(2);
}
const store = Store.open(values.index, { readonly: true });
const source = store.snapshotSource(values.label);
const runs = [
  ['first publish', values.repo],
  ['republish, unchanged', values.repo],
  ['second repository, same files', `${values.repo}-fork`],
];
for (const [what, repo] of runs) {
  const started = performance.now();
  const r = await publish(values.store, repo, source);
  const ms = Math.round(performance.now() - started);
  console.log(JSON.stringify({ run: what, repository: repo, ms, files: r.files, nodes: r.nodes, edges: r.edges, written: r.written, filesPerSecond: Math.round((r.files / ms) * 1000) }));
}
console.log(JSON.stringify({ tables: await tableCounts(values.store) }));
store.close();
