#!/usr/bin/env node
// Declaration-scoped invalidation against a clean index (docs/architecture.md, "The life of an
// edit"; decision 021): for each of `--steps` git checkouts (HEAD~k → HEAD~(k-1) …, or the commits
// given), a copy of the repository indexed at the first commit is moved to the next one and indexed
// incrementally; a clean index of the same tree is built beside it, and the two are compared edge
// for edge (source symbol, type, confidence, target, line, semantic or syntactic). Prints, per
// step, the files parsed, the symbols the TS pass resolved again of those it could have (regions),
// both run times, and every differing edge (at most `--show`). Embeddings off. Build first.
//
//   node tools/bench/carry.mjs REPO [--from HEAD~10] [--steps 10] [--show 20]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, sqliteDriver } from './lib.mjs';

const BetterSqlite3 = sqliteDriver();
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { from: { type: 'string', default: 'HEAD~10' }, steps: { type: 'string', default: '10' }, show: { type: 'string', default: '20' } },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/carry.mjs REPO [--from REV] [--steps N] [--show N]');
  process.exit(2);
}
const source = resolve(positionals[0]);
const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))), CA_EMBEDDING_ENABLED: 'false' };
const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 }).trim();
const log = (s) => process.stderr.write(`${s}\n`);

const work = mkdtempSync(join(tmpdir(), 'ca-carry-'));
const repo = join(work, 'repo');
execFileSync('git', ['clone', '-q', '--no-checkout', source, repo]);
const head = git(source, 'rev-parse', 'HEAD');
const commits = git(source, 'rev-list', '--reverse', '--first-parent', `${values.from}..${head}`).split('\n').filter(Boolean).slice(0, Number(values.steps));
const start = git(source, 'rev-parse', values.from);

function checkout(rev) {
  // Missing blobs (a partial clone) stay missing: the files that have them are what is compared.
  spawnSync('git', ['-C', repo, 'checkout', '-q', '-f', rev], { encoding: 'utf8' });
}

function index(db) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'index', repo, '--db', db, '--json'], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ca index failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { ms: Math.round(performance.now() - t0), json: JSON.parse(r.stdout) };
}

/** Every edge of the working label as a comparable line. */
function edgesOf(dbPath) {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  const rows = db
    .prepare(
      `SELECT f.path AS path, s.kind AS skind, s.qualified_name AS source, s.disambiguator AS sd, e.type, e.confidence, e.line,
              CASE WHEN e.extractor LIKE 'semantic:%' THEN 'semantic' ELSE 'syntactic' END AS ex,
              coalesce(tf.path || ':' || t.qualified_name || ':' || t.kind, e.target_key) AS target
         FROM edges e JOIN nodes s ON s.id = e.source_id JOIN files f ON f.id = e.file_id
         LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id
         JOIN label_files lf ON lf.file_id = e.file_id JOIN labels l ON l.id = lf.label_id AND l.name = 'working'`,
    )
    .all();
  db.close();
  const count = new Map();
  for (const r of rows) {
    const k = `${r.path}:${r.line} ${r.skind} ${r.source}#${r.sd} -${r.type}/${r.confidence}/${r.ex}-> ${r.target}`;
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  return count;
}

function diff(a, b) {
  const out = [];
  for (const [k, n] of a) if ((b.get(k) ?? 0) !== n) out.push(`- ${k} (${n} vs ${b.get(k) ?? 0})`);
  for (const [k, n] of b) if (!a.has(k)) out.push(`+ ${k} (0 vs ${n})`);
  return out.sort();
}

const incDb = join(work, 'inc.db');
checkout(start);
const first = index(incDb);
log(`start ${start.slice(0, 10)}: ${first.json.files} files, ${first.ms} ms`);
const steps = [];
for (const c of commits) {
  checkout(c);
  const load = loadavg()[0];
  const inc = index(incDb);
  const cleanDb = join(work, `clean-${c.slice(0, 8)}.db`);
  const clean = index(cleanDb);
  const d = diff(edgesOf(cleanDb), edgesOf(incDb));
  rmSync(cleanDb, { force: true });
  for (const ext of ['-wal', '-shm', '.lock', '-checked']) rmSync(cleanDb + ext, { force: true });
  const ts = inc.json.semantic?.ts;
  const step = {
    commit: c.slice(0, 10),
    parsed: inc.json.blobs?.parsed ?? inc.json.changed,
    regions: ts?.regions ?? null,
    semanticMs: ts?.ms ?? null,
    incrementalMs: inc.ms,
    cleanMs: clean.ms,
    edges: clean.json.edges,
    differing: d.length,
    load: Number(load.toFixed(2)),
  };
  steps.push(step);
  log(JSON.stringify(step));
  for (const line of d.slice(0, Number(values.show))) log(`  ${line}`);
}
rmSync(work, { recursive: true, force: true });
console.log(JSON.stringify({ repo: source, from: start, steps, equal: `${steps.filter((s) => s.differing === 0).length}/${steps.length}` }, null, 2));
