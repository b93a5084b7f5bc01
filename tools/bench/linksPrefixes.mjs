#!/usr/bin/env node
// What the label-wide resolution of URL prefixes declared in another file (decision 038) costs the
// HTTP linker, on finished indexes: per database, the median of 5 rounds of the linker's reads
// (client calls, endpoints, operations), the `prefixFacts` query, and the matching
// (`computeHttpLinks` + `computeOperationLinks`) with the label's facts and without them.
//
//   node tools/bench/linksPrefixes.mjs /tmp/pfx-Kavita.db /tmp/pfx-Ombi.db [--label working]
import { parseArgs } from 'node:util';
import { importDist } from './lib.mjs';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { label: { type: 'string', default: 'working' } } });
const { Store } = await importDist('store');
const { computeHttpLinks, computeOperationLinks } = await importDist('engine');
const ROUNDS = 5;
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)].toFixed(1);

for (const db of positionals) {
  const store = Store.open(db);
  const t = { reads: [], facts: [], with: [], without: [] };
  let counts = '';
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now();
    const calls = store.httpLinks.clientCalls(values.label);
    const endpoints = store.httpLinks.endpoints(values.label);
    const operations = store.httpLinks.operationEdges(values.label);
    t.reads.push(performance.now() - start);
    start = performance.now();
    const facts = store.httpLinks.prefixFacts(values.label);
    t.facts.push(performance.now() - start);
    start = performance.now();
    computeHttpLinks(calls, endpoints, facts);
    computeOperationLinks(operations, endpoints, facts);
    t.with.push(performance.now() - start);
    start = performance.now();
    computeHttpLinks(calls, endpoints, []);
    computeOperationLinks(operations, endpoints, []);
    t.without.push(performance.now() - start);
    counts = `facts ${facts.length}, calls ${calls.length}, endpoints ${endpoints.length}, operations ${operations.length}`;
  }
  store.close();
  console.log(`${db}: ${counts}`);
  console.log(`  median ms: reads ${median(t.reads)}, prefixFacts ${median(t.facts)}, matching with facts ${median(t.with)}, without ${median(t.without)}`);
}
