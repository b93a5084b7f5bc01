#!/usr/bin/env node
// Change handling benchmarks (issue 19; docs/benchmarks.md, "Change handling and labels"):
//
//   node tools/bench/changes.mjs REPO [--back 200] [--switch-share 0.01] [--edits 50] [--model DIR] [--only label,switch,nochange,switchmany,switchwarm,watch] [--targets 5]
//
// REPO must be a git clone (it is copied to a temporary directory first; nothing is written to
// it). Stages, each from a fresh copy:
//   label     full index of HEAD (working tree), then `indexCommit('old', HEAD~back)`: time and
//             blobs reused / parsed / embedded, against the full index;
//   switch    from an index of HEAD, a checkout of a commit whose tree differs in about
//             `switch-share` of the indexed files, then `ca index`: time against the full index;
//   switchmany `--targets` different 1% switches from one full index (one-shot, there and back): each ratio;
//   switchwarm the same switch with `ca watch` running (warmed by one edit): checkout → run reported;
//   nochange  `ca index` again with nothing changed (the CLI process, end to end), 5 runs;
//   watch     `ca watch` running: `edits` saves of one file, each adding a function; save →
//             searchable (the new function found by name, polled every 5 ms through a second
//             connection, as another process would ask) minus the debounce, p50/p95; and save →
//             run reported (the whole run: semantic pass and the vectors of the edit included).
// Prints one JSON object. Build first (`pnpm build`).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'apps/cli/dist/main.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    back: { type: 'string', default: '200' },
    'switch-share': { type: 'string', default: '0.01' },
    edits: { type: 'string', default: '50' },
    model: { type: 'string' },
    only: { type: 'string', default: 'label,switch,nochange,switchwarm,watch' },
    debounce: { type: 'string', default: '300' },
    targets: { type: 'string', default: '5' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/changes.mjs REPO [--back N] [--switch-share F] [--edits N] [--model DIR] [--only …]');
  process.exit(2);
}
const source = resolve(positionals[0]);
const only = new Set(values.only.split(','));
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
  ...(values.model ? { CA_EMBEDDING_MODEL_DIR: resolve(values.model) } : { CA_EMBEDDING_ENABLED: 'false' }),
};
const log = (s) => process.stderr.write(`${s}\n`);
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

function copy() {
  const dir = join(mkdtempSync(join(tmpdir(), 'ca-bench-changes-')), 'repo');
  cpSync(source, dir, { recursive: true, filter: (p) => !p.includes('/.codeagent') });
  return dir;
}

function ca(args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`ca ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, json: args.includes('--json') ? JSON.parse(r.stdout) : null };
}

/** `ca watch DIR --json` running: its report lines as they come, and a wait for the n-th. */
function startWatch(dir, debounce) {
  const child = spawn(process.execPath, [CLI, 'watch', dir, '--json', '--debounce', String(debounce)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let wake = null;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let nl; (nl = buffer.indexOf('\n')) >= 0; ) {
      lines.push({ at: performance.now(), line: JSON.parse(buffer.slice(0, nl)) });
      buffer = buffer.slice(nl + 1);
      wake?.();
    }
  });
  const next = (n) =>
    new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no run ${n} within 300 s`)), 300_000);
      timer.unref();
      const check = () => {
        if (lines.length >= n) {
          clearTimeout(timer);
          wake = null;
          res(lines[n - 1]);
        } else wake = check;
      };
      check();
    });
  return { child, lines, next };
}

/** The nearest ancestor of HEAD whose tree differs from HEAD's in at least `want` source files. */
function ancestorDiffering(dir, want) {
  for (let back = 1; back <= 400; back++) {
    let rev;
    try {
      rev = git(dir, 'rev-parse', `HEAD~${back}`);
    } catch {
      // HEAD~n does not exist: the history is shorter than that, so stop looking.
      break;
    }
    const differing = git(dir, 'diff', '--name-only', 'HEAD', rev).split('\n').filter((p) => /\.(tsx?|jsx?|mts|cts|mjs|cjs|cs)$/.test(p)).length;
    if (differing >= want) return { target: rev, differing };
  }
  throw new Error(`no ancestor within 400 commits differs in ${want} source files`);
}

/** Up to `count` ancestors of HEAD, each differing from HEAD in `want`–2×`want` source files, found walking back. */
function ancestorsDiffering(dir, want, count) {
  const found = [];
  for (let back = 1; back <= 400 && found.length < count; back++) {
    let rev;
    try {
      rev = git(dir, 'rev-parse', `HEAD~${back}`);
    } catch {
      // HEAD~n does not exist: the history is shorter than that, so stop looking.
      break;
    }
    const paths = git(dir, 'diff', '--name-only', 'HEAD', rev).split('\n').filter((p) => /\.(tsx?|jsx?|mts|cts|mjs|cjs|cs)$/.test(p));
    if (paths.length < want) continue;
    if (paths.length > 2 * want) break;
    // Each target a different change: skip one whose files are those of the previous target.
    if (found.length > 0 && found.at(-1).paths.join() === paths.join()) continue;
    found.push({ target: rev, back, paths });
  }
  return found;
}

const out = { repo: source, head: git(source, 'rev-parse', 'HEAD'), cpus: cpus().length, load: loadavg().map((x) => Math.round(x * 100) / 100), startedAt: new Date().toISOString() };

if (only.has('label')) {
  const dir = copy();
  const full = ca(['index', dir, '--json']);
  const old = git(dir, 'rev-parse', `HEAD~${values.back}`);
  const label = ca(['index', dir, '--label', 'old', '--commit', old, '--json']);
  out.label = {
    back: Number(values.back),
    commit: old,
    fullMs: Math.round(full.ms),
    fullFiles: full.json.files,
    labelMs: Math.round(label.ms),
    ratio: Math.round((label.ms / full.ms) * 1000) / 1000,
    blobs: label.json.blobs,
    files: label.json.files,
    semantic: label.json.semantic?.ts ? { tsFiles: label.json.semantic.ts.files } : label.json.semantic?.cs ? { csDocuments: label.json.semantic.cs.documents } : null,
  };
  log(`label: ${JSON.stringify(out.label)}`);
  rmSync(resolve(dir, '..'), { recursive: true, force: true });
}

if (only.has('switch')) {
  const dir = copy();
  const full = ca(['index', dir, '--json']);
  const want = Math.max(1, Math.round(full.json.files * Number(values['switch-share'])));
  const { target, differing } = ancestorDiffering(dir, want);
  git(dir, 'checkout', '-q', target);
  const after = ca(['index', dir, '--json']);
  out.switch = {
    target,
    sourceFilesDiffering: differing,
    share: Math.round((differing / full.json.files) * 1000) / 1000,
    fullMs: Math.round(full.ms),
    switchMs: Math.round(after.ms),
    ratio: Math.round((after.ms / full.ms) * 1000) / 1000,
    changed: after.json.changed,
    removed: after.json.removed,
    blobs: after.json.blobs,
  };
  log(`switch: ${JSON.stringify(out.switch)}`);
  if (only.has('nochange')) {
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(ca(['index', dir, '--json']));
    out.nochange = { files: runs[0].json.files, lines: runs[0].json.lines, ms: runs.map((r) => Math.round(r.ms)), medianMs: Math.round(median(runs.map((r) => r.ms))), changed: runs.map((r) => r.json.changed) };
    log(`nochange: ${JSON.stringify(out.nochange)}`);
  }
  rmSync(resolve(dir, '..'), { recursive: true, force: true });
}

if (only.has('switchmany')) {
  // Several 1% switches from one full index, one-shot `ca index` each: there and back again.
  const dir = copy();
  const full = ca(['index', dir, '--json']);
  const want = Math.max(1, Math.round(full.json.files * Number(values['switch-share'])));
  const head = git(dir, 'rev-parse', 'HEAD');
  const runs = [];
  for (const t of ancestorsDiffering(dir, want, Number(values.targets))) {
    git(dir, 'checkout', '-q', t.target);
    const there = ca(['index', dir, '--json']);
    git(dir, 'checkout', '-q', head);
    const back = ca(['index', dir, '--json']);
    const ts = (r) => r.json.semantic?.ts?.ms ?? r.json.semantic?.cs?.ms ?? null;
    runs.push({ back: t.back, files: t.paths.length, paths: t.paths.slice(0, 12), thereMs: Math.round(there.ms), backMs: Math.round(back.ms), thereSemanticMs: ts(there), backSemanticMs: ts(back), ratios: [there.ms / full.ms, back.ms / full.ms].map((x) => Math.round(x * 1000) / 1000) });
    log(`switchmany: ${JSON.stringify(runs.at(-1))}`);
  }
  const ratios = runs.flatMap((r) => r.ratios);
  out.switchmany = { fullMs: Math.round(full.ms), want, runs, ratioMedian: median(ratios), atMostTenPercent: `${ratios.filter((r) => r <= 0.1).length}/${ratios.length}` };
  log(`switchmany: ${JSON.stringify({ ratioMedian: out.switchmany.ratioMedian, atMostTenPercent: out.switchmany.atMostTenPercent })}`);
  rmSync(resolve(dir, '..'), { recursive: true, force: true });
}

if (only.has('switchwarm')) {
  // The same switch with `ca watch` running (the warm path a developer has): checkout → the
  // watcher's run reported (re-parse, semantic pass with the warm compiler, vectors included).
  const dir = copy();
  const full = ca(['index', dir, '--json']);
  const want = Math.max(1, Math.round(full.json.files * Number(values['switch-share'])));
  const { target, differing } = ancestorDiffering(dir, want);
  const debounce = Number(values.debounce);
  const { child, lines, next } = startWatch(dir, debounce);
  await next(1);
  // Warm up: one edit and its run, so the compiler program and the embedder are loaded as in a session.
  const file = git(dir, 'ls-files', '*.ts').split('\n').find((p) => !p.includes('.d.ts') && !/test|spec/.test(p)) ?? git(dir, 'ls-files', '*.cs').split('\n')[0];
  const original = readFileSync(join(dir, file), 'utf8');
  writeFileSync(join(dir, file), `${original}\nexport const benchWarm = 1;\n`);
  await next(2);
  writeFileSync(join(dir, file), original);
  await next(3);
  await new Promise((r) => setTimeout(r, 1000));
  const t = performance.now();
  git(dir, 'checkout', '-q', target);
  let got = await next(4);
  // A switch the watcher took in more than one run: the last run that follows within 3 s.
  for (;;) {
    const more = await Promise.race([next(lines.length + 1).catch(() => null), new Promise((r) => setTimeout(() => r(null), 3000))]);
    if (more === null) break;
    got = more;
  }
  const runs = lines.length - 3;
  child.kill('SIGINT');
  const ms = got.at - t;
  out.switchwarm = {
    target,
    sourceFilesDiffering: differing,
    fullMs: Math.round(full.ms),
    switchMs: Math.round(ms),
    ratio: Math.round((ms / full.ms) * 1000) / 1000,
    runs,
    lastRun: { changed: got.line.changed, removed: got.line.removed, ms: got.line.ms },
  };
  log(`switchwarm: ${JSON.stringify(out.switchwarm)}`);
  rmSync(resolve(dir, '..'), { recursive: true, force: true });
}

if (only.has('watch')) {
  const dir = copy();
  ca(['index', dir]);
  const file = git(dir, 'ls-files', '*.ts').split('\n').find((p) => !p.includes('.d.ts') && !/test|spec/.test(p)) ?? git(dir, 'ls-files', '*.cs').split('\n')[0];
  const original = readFileSync(join(dir, file), 'utf8');
  const debounce = Number(values.debounce);
  const { child, lines, next } = startWatch(dir, debounce);
  await next(1);
  const { Engine } = await import(join(ROOT, 'packages/engine/dist/index.js'));
  const reader = Engine.open(dir, { env });
  const searchable = [];
  const reported = [];
  for (let i = 0; i < Number(values.edits); i++) {
    const name = `benchEdit${i}`;
    const expected = lines.length + 1;
    const t = performance.now();
    writeFileSync(join(dir, file), `${original}\nexport function ${name}(): number {\n  return ${i};\n}\n`);
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      if (reader.findSymbols(name).length > 0) break;
      if (performance.now() - t > 120_000) throw new Error(`${name} not searchable within 120 s`);
    }
    searchable.push(performance.now() - t - debounce);
    const got = await next(expected);
    reported.push(got.at - t - debounce);
    await new Promise((r) => setTimeout(r, 200));
  }
  reader.close();
  child.kill('SIGINT');
  const stats = (xs) => ({ p50Ms: Math.round(pct(xs, 0.5)), p95Ms: Math.round(pct(xs, 0.95)), maxMs: Math.round(Math.max(...xs)) });
  out.watch = { file, edits: searchable.length, debounceMs: debounce, searchable: stats(searchable), reported: stats(reported), runMs: stats(lines.slice(1).map((l) => l.line.ms)) };
  log(`watch: ${JSON.stringify(out.watch)}`);
  rmSync(resolve(dir, '..'), { recursive: true, force: true });
}

out.loadAfter = loadavg().map((x) => Math.round(x * 100) / 100);
console.log(JSON.stringify(out, null, 2));
