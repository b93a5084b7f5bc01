#!/usr/bin/env node
// The Razor pass on a real repository (decision 041): components, @page endpoints, markup
// component usages (and how many name a component of the repository), event handlers and
// @inject properties found in its `.razor`/`.cshtml` files, and the parse CPU the Razor files add
// to the parse of its `.cs` files.
//
//   node tools/bench/razor.mjs --repo /work/repos/eShop [--rounds 5]
//
// Every file (bin/ obj/ .git node_modules left out, under 1 MiB) is parsed by this checkout's
// C# adapter with the nearest .csproj's root namespace (as `ca index` does); `rounds` times, the
// medians of the CPU time (user + system) of the `.cs` files and of the Razor files are compared.
// A usage is "linked" when @ca/engine's `razorUseTarget` finds exactly one component (or
// component member, for a parameter) of the repository by that name, or exactly one in the
// usage's project, as `ca index` links it. Unlinked names are listed with their counts.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { values } = parseArgs({ options: { repo: { type: 'string' }, rounds: { type: 'string', default: '5' } } });
if (!values.repo) {
  process.stderr.write('usage: razor.mjs --repo DIR [--rounds N]\n');
  process.exit(2);
}
const here = fileURLToPath(new URL('.', import.meta.url));
const cs = await import(pathToFileURL(join(here, '../../packages/parse-cs/dist/index.js')).href);
const engine = await import(pathToFileURL(join(here, '../../packages/engine/dist/index.js')).href);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (['bin', 'obj', '.git', 'node_modules', '.codeagent'].includes(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && /\.(cs|razor|cshtml)$/i.test(e.name) && statSync(p).size < 1 << 20) out.push(relative(values.repo, p));
  }
  return out;
}

const readProject = (relDir) => {
  const abs = join(values.repo, relDir);
  if (!existsSync(abs)) return null;
  const proj = readdirSync(abs).find((n) => n.endsWith('.csproj'));
  return proj ? { path: relDir ? `${relDir}/${proj}` : proj, text: readFileSync(join(abs, proj), 'utf8') } : null;
};
const projectOf = cs.createRazorProjectLookup(readProject);
const adapter = await cs.createCsAdapter({ razorProject: projectOf });
const paths = walk(values.repo);
const files = paths.map((path) => ({ path, text: readFileSync(join(values.repo, path), 'utf8') }));
const razor = files.filter((f) => cs.isRazorPath(f.path));
const plain = files.filter((f) => !cs.isRazorPath(f.path));
const cpu = (list) => {
  const c0 = process.cpuUsage();
  const out = list.map((f) => adapter.parse(f, { deadlineMs: 60_000 }));
  const c = process.cpuUsage(c0);
  return { ms: (c.user + c.system) / 1000, out };
};
const csMs = [];
const razorMs = [];
let results = [];
for (let r = 0; r < Number(values.rounds); r++) {
  csMs.push(cpu(plain).ms);
  const run = cpu(razor);
  razorMs.push(run.ms);
  results = run.out;
}

// Components and their direct members, as the store lists them for the linker.
const compRows = [];
for (const r of results) {
  const comp = r.nodes.find((n) => n.kind === 'component');
  if (!comp) continue;
  const project = projectOf(r.path)?.dir ?? '';
  compRows.push({ id: compRows.length, name: comp.name, qualifiedName: comp.qualifiedName, parentName: null, project });
  for (const n of r.nodes) if (n.parentLocalId === comp.localId) compRows.push({ id: compRows.length, name: n.name, qualifiedName: n.qualifiedName, parentName: comp.name, project });
}
const unlinked = new Map();
let usages = 0, linked = 0, params = 0, paramsLinked = 0, handlers = 0, handlersLocal = 0;
const textOf = new Map(razor.map((f) => [f.path, f.text.split('\n')]));
for (const r of results) {
  const comp = r.nodes.find((n) => n.kind === 'component');
  // Markup usages: `.razor` files, lines that are not directives (`@layout`, `@inherits` …).
  if (!r.path.endsWith('.razor')) continue;
  for (const e of r.edges) {
    if (!comp || e.sourceLocalId !== comp.localId) continue;
    if (/^\s*\uFEFF?@/.test(textOf.get(r.path)[e.line - 1] ?? '')) continue;
    if (e.type === 'references' && e.confidence === 'probable' && e.target.key.startsWith('?')) {
      const isParam = e.target.name.includes('.') && compRows.some((c) => c.parentName === null && c.name === e.target.name.split('.').slice(-2)[0]);
      const hit = engine.razorUseTarget(e.target.name, compRows, projectOf(r.path)?.dir ?? '') !== null;
      if (/^[A-Z]/.test(e.target.name) && !e.target.name.includes('.')) {
        usages++;
        if (hit) linked++;
        else unlinked.set(e.target.name, (unlinked.get(e.target.name) ?? 0) + 1);
      } else if (isParam) {
        params++;
        if (hit) paramsLinked++;
        else unlinked.set(e.target.name, (unlinked.get(e.target.name) ?? 0) + 1);
      }
    }
    if (e.type === 'calls') {
      handlers++;
      if (e.target.localId !== undefined) handlersLocal++;
    }
  }
}
const count = (pred) => results.reduce((n, r) => n + r.nodes.filter(pred).length, 0);
const status = {};
for (const r of results) status[r.parseStatus] = (status[r.parseStatus] ?? 0) + 1;
console.log(`${values.repo}: ${plain.length} .cs, ${razor.filter((f) => f.path.endsWith('.razor')).length} .razor, ${razor.filter((f) => f.path.endsWith('.cshtml')).length} .cshtml; parse status ${JSON.stringify(status)}`);
console.log(`components ${count((n) => n.kind === 'component')}, @page endpoints ${count((n) => n.kind === 'endpoint')}, @code/@functions members ${count((n) => ['method', 'property', 'field'].includes(n.kind) && !(n.attributes ?? []).includes('Inject'))}, @inject properties ${count((n) => (n.attributes ?? []).includes('Inject'))}`);
console.log(`component usages ${usages} (${linked} name one component of the repository), parameters of repository components ${params} (${paramsLinked} linked), markup handler calls ${handlers} (${handlersLocal} to a member of the same component)`);
console.log(`unlinked usages and parameters: ${[...unlinked].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([n, c]) => `${n} ${c}`).join(', ')}`);
console.log(`parse CPU ms (median of ${values.rounds}): .cs ${median(csMs).toFixed(0)}, Razor ${median(razorMs).toFixed(0)} (+${((100 * median(razorMs)) / median(csMs)).toFixed(1)} %)`);
