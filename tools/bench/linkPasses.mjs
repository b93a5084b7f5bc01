#!/usr/bin/env node
// What issue 31's extra passes cost on a real repository: the C# endpoint rules (and the Razor
// pass), the TS client-call extraction and the HTTP linking, side by side in one run.
//
//   node tools/bench/linkPasses.mjs REPO --baseline DIR --db FILE [--rounds 3]
//
// There is no switch for these passes, so the parse side compares this checkout's adapters with
// the adapters of a build without them (--baseline: a checkout of the commit before the endpoint
// rules, with parse-cs and parse-ts built): every .cs/.razor/.cshtml and .ts/.tsx/.js file (bin/
// obj/ .git node_modules left out, under 1 MiB) parsed by both, alternating, `rounds` times; the
// medians of the CPU time (user + system) are compared. Both builds differ by every other change
// between the two commits too (faster or slower), so the difference does not isolate the passes. The
// linking side is @ca/engine's `computeHttpLinks` on the index --db (the pure part of the pass the
// index runs; its reads and write are in the index's own `httpLinks.ms`), `rounds` times.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { importDist, median } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { baseline: { type: 'string' }, db: { type: 'string' }, rounds: { type: 'string', default: '3' }, label: { type: 'string', default: 'working' } },
});
const repo = positionals[0];
if (!repo || !values.baseline || !values.db) {
  process.stderr.write('usage: linkPasses.mjs REPO --baseline CHECKOUT --db FILE [--rounds N]\n');
  process.exit(2);
}
const rounds = Number(values.rounds);
const load = (root, pkg) => import(pathToFileURL(join(root, 'packages', pkg, 'dist', 'index.js')).href);

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (['bin', 'obj', '.git', 'node_modules', '.codeagent', 'dist'].includes(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && /\.(cs|razor|cshtml|ts|tsx|js)$/i.test(e.name) && !e.name.endsWith('.d.ts') && statSync(p).size < 1 << 20) out.push(relative(repo, p));
  }
  return out;
}
const files = walk(repo).map((path) => ({ path, text: readFileSync(join(repo, path), 'utf8') }));
const csFiles = files.filter((f) => /\.(cs|razor|cshtml)$/i.test(f.path));
const tsFiles = files.filter((f) => /\.(ts|tsx|js)$/i.test(f.path));

const adapters = async (root) => ({ cs: await (await load(root, 'parse-cs')).createCsAdapter(), ts: await (await load(root, 'parse-ts')).createTsAdapter() });
const current = await adapters(join(import.meta.dirname, '../..'));
const baseline = await adapters(values.baseline);
/** CPU ms of parsing `list` with `adapter` (a file the adapter does not take is skipped). */
const cpu = (adapter, list) => {
  const c0 = process.cpuUsage();
  for (const f of list) {
    try {
      adapter.parse(f, { deadlineMs: 60_000 });
    } catch {
      // why: the baseline's C# adapter has no Razor support and rejects .razor/.cshtml paths; those files cost it nothing.
    }
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const t = { csNow: [], csBase: [], tsNow: [], tsBase: [], link: [] };
const { Store } = await importDist('store');
const { computeHttpLinks } = await importDist('engine');
const store = Store.open(values.db);
const calls = store.httpLinks.clientCalls(values.label);
const endpoints = store.httpLinks.endpoints(values.label);
store.close();
for (let r = 0; r < rounds; r++) {
  t.csBase.push(cpu(baseline.cs, csFiles));
  t.csNow.push(cpu(current.cs, csFiles));
  t.tsBase.push(cpu(baseline.ts, tsFiles));
  t.tsNow.push(cpu(current.ts, tsFiles));
  const s = performance.now();
  computeHttpLinks(calls, endpoints);
  t.link.push(performance.now() - s);
}
const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]));
const pct = (a, b) => `${(((a - b) / b) * 100).toFixed(1)}%`;
console.log(`${csFiles.length} C#/Razor files, ${tsFiles.length} TS/JS files; ${calls.length} client calls, ${endpoints.length} endpoints; CPU ms, median of ${rounds}:`);
console.log(`C# parse: ${m.csBase.toFixed(0)} without → ${m.csNow.toFixed(0)} with the endpoint rules and Razor (${pct(m.csNow, m.csBase)})`);
console.log(`TS parse: ${m.tsBase.toFixed(0)} without → ${m.tsNow.toFixed(0)} with the client extraction (${pct(m.tsNow, m.tsBase)})`);
const base = m.csBase + m.tsBase;
const extra = m.csNow - m.csBase + (m.tsNow - m.tsBase) + m.link;
console.log(`linking (computeHttpLinks): ${m.link.toFixed(0)} ms; extra total ${extra.toFixed(0)} ms = ${((extra / base) * 100).toFixed(1)}% of the parse CPU without the passes`);
