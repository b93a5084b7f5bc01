#!/usr/bin/env node
// CLI start-up benchmark (issue 28; docs/benchmarks.md, "CLI start-up"):
//
//   node tools/bench/startup.mjs [--runs 15] [--before DIR] [--model DIR] [--repo DIR]   (pnpm bench:startup)
//
// Times whole processes, end to end, as an agent's shell would start them: `ca --help` through
// `pnpm ca`, through `node apps/cli/dist/main.js` and through the repo-root launcher `./ca`; and
// `status`, `view`, `outline` and `search` on an indexed copy of fixtures/ts-app (or --repo, copied
// first). `search` runs twice: with the vector channel (the query is embedded: the ONNX model
// loads in the process) and without it (CA_EMBEDDING_ENABLED=false: name + BM25 + graph only).
// Each row also counts the JavaScript modules the process loads (a module.register hook), and
// whether the embedding runtime, transformers, the TypeScript compiler or tree-sitter is among
// them. --before DIR: a clone of another commit with its apps/cli/dist built (e.g. main's):
// the same rows for it, interleaved run by run with this clone's, so both see the same load.
// Medians (and min) of --runs runs; the 1-minute load average before and after. Prints JSON.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    before: { type: 'string' },
    model: { type: 'string', default: process.env.CA_EMBEDDING_MODEL_DIR ?? join(ROOT, '../shared/models') },
    repo: { type: 'string', default: join(ROOT, 'fixtures/ts-app') },
  },
});
const RUNS = Number(values.runs);
const clones = [{ name: 'this', root: ROOT }, ...(values.before ? [{ name: 'before', root: resolve(values.before) }] : [])];
for (const c of clones) if (!existsSync(join(c.root, 'apps/cli/dist/main.js'))) throw new Error(`${c.root}: apps/cli/dist/main.js is missing (build it first)`);
// The launcher installs when its stamp is missing: that would be timed as start-up.
if (!existsSync(join(ROOT, 'node_modules/.ca-installed'))) throw new Error('node_modules/.ca-installed is missing: run bash tools/install.sh (or ./ca once) first');

const work = mkdtempSync(join(tmpdir(), 'ca-startup-'));
const repo = join(work, 'repo');
cpSync(values.repo, repo, { recursive: true, filter: (p) => !p.includes('/.codeagent') });
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))), CA_EMBEDDING_MODEL_DIR: values.model };
const noVectors = { ...env, CA_EMBEDDING_ENABLED: 'false' };

// Module counting: every resolved module URL (ESM hook) and required file (CommonJS) is written to TRACE_OUT at exit.
const hook = join(work, 'trace.mjs');
const { writeFileSync } = await import('node:fs');
writeFileSync(
  hook,
  `import { register } from 'node:module';
import Module from 'node:module';
import { writeFileSync } from 'node:fs';
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (u) => seen.add(u));
port1.unref();
register('data:text/javascript,' + encodeURIComponent('let p; export function initialize(d) { p = d.port; } export async function resolve(s, c, next) { const r = await next(s, c); p.postMessage(r.url); return r; }'), { data: { port: port2 }, transferList: [port2] });
const load = Module._load;
Module._load = function (request, parent) { const r = load.apply(this, arguments); try { seen.add(Module._resolveFilename(request, parent)); } catch { /* a builtin */ } return r; };
process.on('exit', () => writeFileSync(process.env.TRACE_OUT, [...seen].join('\\n')));
`,
);
const HEAVY = { onnxruntime: /onnxruntime/, transformers: /@huggingface\/transformers/, typescript: /node_modules\/(\.pnpm\/typescript@[^/]+\/node_modules\/)?typescript\//, 'tree-sitter': /tree-sitter/ };

function rowsFor(root) {
  const cli = join(root, 'apps/cli/dist/main.js');
  const node = (args, e = env) => ({ cmd: process.execPath, args: [cli, ...args], env: e, cwd: root });
  return [
    { row: 'pnpm ca --help', cmd: 'pnpm', args: ['--silent', 'ca', '--help'], env, cwd: root, trace: false },
    { row: 'node main.js --help', ...node(['--help']) },
    ...(existsSync(join(root, 'ca')) ? [{ row: './ca --help (launcher)', cmd: join(root, 'ca'), args: ['--help'], env, cwd: root, trace: false }] : []),
    { row: 'status', ...node(['status', '--repo', repo]) },
    { row: 'view FILE', ...node(['view', 'src/auth/authService.ts', '--repo', repo]) },
    { row: 'outline FILE', ...node(['outline', 'src/auth/authService.ts', '--repo', repo]) },
    { row: 'search (vector channel on)', ...node(['search', 'where is the login token issued', '--repo', repo]) },
    { row: 'search (vector channel off)', ...node(['search', 'where is the login token issued', '--repo', repo], noVectors) },
  ];
}

function once(r) {
  const start = process.hrtime.bigint();
  const p = spawnSync(r.cmd, r.args, { env: r.env, cwd: r.cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (p.status !== 0) throw new Error(`${r.row}: exit ${p.status}: ${p.stderr}`);
  return ms;
}

function modules(r) {
  if (r.trace === false) return null;
  const out = join(work, 'trace.txt');
  const p = spawnSync(r.cmd, ['--import', hook, ...r.args], { env: { ...r.env, TRACE_OUT: out }, cwd: r.cwd, encoding: 'utf8' });
  if (p.status !== 0) throw new Error(`${r.row} (traced): exit ${p.status}: ${p.stderr}`);
  const files = readFileSync(out, 'utf8').split('\n').filter((l) => l !== '');
  return { count: files.length, heavy: Object.entries(HEAVY).filter(([, re]) => files.some((f) => re.test(f))).map(([k]) => k) };
}

// The index is built once with this clone's CLI (with vectors), so every row reads the same index.
const built = spawnSync(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'index', repo], { env, encoding: 'utf8' });
if (built.status !== 0) throw new Error(`ca index: ${built.stderr}`);

const loadBefore = loadavg()[0];
const plan = clones.map((c) => ({ clone: c.name, rows: rowsFor(c.root) }));
const times = plan.map((p) => p.rows.map(() => []));
for (const p of plan) for (const r of p.rows) once(r); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  plan.forEach((p, ci) => p.rows.forEach((r, ri) => times[ci][ri].push(once(r))));
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const result = {
  runs: RUNS,
  cpus: cpus().length,
  load1: { before: Number(loadBefore.toFixed(2)), after: Number(loadavg()[0].toFixed(2)) },
  node: process.version,
  rows: plan.flatMap((p, ci) =>
    p.rows.map((r, ri) => ({ clone: p.clone, row: r.row, medianMs: Math.round(median(times[ci][ri])), minMs: Math.round(Math.min(...times[ci][ri])), modules: modules(r) })),
  ),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
