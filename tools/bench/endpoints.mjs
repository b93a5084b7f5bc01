#!/usr/bin/env node
// Endpoint extraction on a real repository: endpoints found against a list labelled by hand
// (tools/bench/endpoints/<name>.tsv), and the parse time the endpoint rules add.
//
//   node tools/bench/endpoints.mjs --repo /work/repos/eShop --truth tools/bench/endpoints/eShop.tsv \
//     [--baseline /path/to/parse-cs/dist/index.js] [--rounds 5]
//   node tools/bench/endpoints.mjs --map-calls 5000 [--rounds 3]
//
// Matching: an endpoint found matches a labelled one with the same method and handler
// (`Type.Member`); its template is "exact" when it equals the labelled template too. Precision
// and recall are given both ways. Timing: every .cs file (bin/ obj/ left out) parsed by this
// checkout's adapter and, with --baseline, by an adapter without the endpoint rules (e.g. main's
// build before they were merged), alternating, `rounds` times; the medians of the CPU time are compared.
// --map-calls N: a file of N top-level `app.MapGet(…)` calls against the same file calling `app.Foo(…)`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { values } = parseArgs({
  options: { repo: { type: 'string' }, truth: { type: 'string' }, baseline: { type: 'string' }, rounds: { type: 'string', default: '5' }, 'map-calls': { type: 'string' } },
});
const here = fileURLToPath(new URL('.', import.meta.url));
const current = await import(pathToFileURL(join(here, '../../packages/parse-cs/dist/index.js')).href);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
if (values['map-calls']) {
  const n = Number(values['map-calls']);
  const a = await current.createCsAdapter();
  const file = (m) => ({ path: 'Program.cs', text: `var app = WebApplication.Create();\n${Array.from({ length: n }, (_, k) => `app.${m}("/r${k}/{id:int}", () => ${k});`).join('\n')}\n` });
  const cpu = (f) => {
    const c0 = process.cpuUsage();
    a.parse(f, { deadlineMs: 600_000 });
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  const map = [];
  const other = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    other.push(cpu(file('Foo')));
    map.push(cpu(file('MapGet')));
  }
  console.log(`${n} top-level calls, CPU ms (median of ${values.rounds}): MapGet ${median(map).toFixed(0)}, Foo ${median(other).toFixed(0)}, ratio ${(median(map) / median(other)).toFixed(2)}`);
  process.exit(0);
}
if (!values.repo || !values.truth) {
  process.stderr.write('usage: endpoints.mjs --repo DIR --truth FILE.tsv [--baseline parse-cs/dist/index.js] [--rounds N] | --map-calls N\n');
  process.exit(2);
}

function csFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'bin' || e.name === 'obj' || e.name === '.git' || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) csFiles(p, out);
    else if (e.isFile() && e.name.endsWith('.cs') && statSync(p).size < 1 << 20) out.push(p);
  }
  return out;
}

const files = csFiles(values.repo).map((p) => ({ path: relative(values.repo, p), text: readFileSync(p, 'utf8') }));

/** `Type.Member` of a qualified name (a file path stays as it is). */
const shortName = (q) => (q.includes('/') || q.endsWith('.cs') ? q : q.split('.').slice(-2).join('.'));

function found(adapter) {
  const out = [];
  for (const f of files) {
    const idx = adapter.parse(f, { deadlineMs: 60_000 });
    const byId = new Map(idx.nodes.map((n) => [n.localId, n]));
    for (const n of idx.nodes.filter((x) => x.kind === 'endpoint')) {
      const edge = idx.edges.find((e) => e.sourceLocalId === n.localId && e.type === 'handles');
      const handler = edge?.target.localId ? shortName(byId.get(edge.target.localId).qualifiedName) : (edge?.target.name ?? '?');
      const [method, template] = [n.name.slice(0, n.name.indexOf(' ')), n.name.slice(n.name.indexOf(' ') + 1)];
      out.push({ method, template, handler, approximate: / \(approximate: /.test(n.signature), path: f.path, line: n.span.startLine });
    }
  }
  return out;
}

const truth = readFileSync(values.truth, 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .map((l) => {
    const [method, template, handler] = l.split('\t');
    return { method, template, handler };
  });

const adapter = await current.createCsAdapter();
const got = found(adapter);
const used = new Set();
let exactTemplates = 0;
const unmatched = [];
for (const g of got) {
  const k = truth.findIndex((t, i) => !used.has(i) && t.method === g.method && t.handler === g.handler && t.template === g.template);
  const j = k >= 0 ? k : truth.findIndex((t, i) => !used.has(i) && t.method === g.method && t.handler === g.handler);
  if (j < 0) {
    unmatched.push(g);
    continue;
  }
  used.add(j);
  if (truth[j].template === g.template) exactTemplates++;
}
const missed = truth.filter((_, i) => !used.has(i));
const tp = used.size;
const fmt = (x) => x.toFixed(3);
console.log(`repository ${values.repo}: ${files.length} .cs files`);
console.log(`labelled ${truth.length}, found ${got.length} (${got.filter((g) => g.approximate).length} approximate)`);
console.log(`method+handler: precision ${fmt(tp / Math.max(1, got.length))}, recall ${fmt(tp / Math.max(1, truth.length))}`);
console.log(`method+handler+template: precision ${fmt(exactTemplates / Math.max(1, got.length))}, recall ${fmt(exactTemplates / Math.max(1, truth.length))}`);
for (const g of unmatched) console.log(`  not labelled: ${g.method} ${g.template} ${g.handler} (${g.path}:${g.line})`);
for (const t of missed) console.log(`  missed: ${t.method} ${t.template} ${t.handler}`);

if (values.baseline) {
  const base = await (await import(pathToFileURL(values.baseline).href)).createCsAdapter();
  // CPU time of this process (user + system), not wall time: the machine is shared, and a
  // wall clock measures the other processes as much as the parse.
  const parseAll = (a) => {
    const c0 = process.cpuUsage();
    for (const f of files) a.parse(f, { deadlineMs: 60_000 });
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  parseAll(adapter);
  parseAll(base);
  const rounds = Number(values.rounds);
  const withRules = [];
  const without = [];
  for (let r = 0; r < rounds; r++) {
    withRules.push(parseAll(adapter));
    without.push(parseAll(base));
  }
  const a = median(withRules);
  const b = median(without);
  console.log(`parse all .cs files, CPU ms (median of ${rounds}): with endpoints ${a.toFixed(0)} ms, without ${b.toFixed(0)} ms, extra ${(((a - b) / b) * 100).toFixed(1)}%`);
  base.dispose?.();
}
adapter.dispose?.();
