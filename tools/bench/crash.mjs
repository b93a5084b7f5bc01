#!/usr/bin/env node
// SIGKILL benchmark (docs/reliability.md): `ca index` killed at random moments, then re-run; the
// result must pass `PRAGMA integrity_check` and equal a clean index of the same tree.
//
//   node tools/bench/crash.mjs REPO [--kills 20] [--max-s 60] [--edits 50] [--edit-kills 4] [--model DIR] [--seed 1]
//
// `--kills` fresh indexes are killed at a uniformly random time in [1, max-s] s; `--edit-kills`
// re-indexes after editing `--edits` files are killed while embedding (needs --model). Each
// recovered index is compared with a clean one: files, symbols, edges by type and confidence,
// semantic states, vectors assigned and searchable, orphan vectors, and the top answer of
// name/BM25 queries for 20 symbols of the repository; an edit-kill run is also compared with the
// same edits indexed without a kill (from a copy of the index before them), which separates what
// the kill did from what an incremental index does differently. Prints one JSON object. Build first.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, sqliteDriver } from './lib.mjs';

const BetterSqlite3 = sqliteDriver();
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    kills: { type: 'string', default: '20' },
    'max-s': { type: 'string', default: '60' },
    edits: { type: 'string', default: '50' },
    'edit-kills': { type: 'string', default: '4' },
    model: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/crash.mjs REPO [--kills N] [--max-s S] [--edits N] [--edit-kills N] [--model DIR] [--seed N]');
  process.exit(2);
}
const source = resolve(positionals[0]);
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
  ...(values.model ? { CA_EMBEDDING_MODEL_DIR: resolve(values.model) } : { CA_EMBEDDING_ENABLED: 'false' }),
};
const log = (s) => process.stderr.write(`${s}\n`);
let seed = Number(values.seed);
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

function copy(name) {
  const dir = join(mkdtempSync(join(tmpdir(), `ca-crash-${name}-`)), 'repo');
  cpSync(source, dir, { recursive: true, filter: (p) => !p.includes('/.codeagent') && !p.endsWith('/.git') && !p.includes('/.git/') });
  return dir;
}

function index(dir, db, extra = {}) {
  const r = spawnSync(process.execPath, [CLI, 'index', dir, '--db', db, '--json'], { env: { ...env, ...extra }, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { code: r.status, signal: r.signal, stderr: r.stderr };
}

/** Runs `ca index` and kills it with SIGKILL after `ms` (or lets it finish first). */
function killAfter(dir, db, ms) {
  return new Promise((res) => {
    const child = spawn(process.execPath, [CLI, 'index', dir, '--db', db], { env, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal });
    });
  });
}

function fingerprint(db, queries, repo) {
  const raw = new BetterSqlite3(db, { readonly: true });
  const one = (sql, ...p) => raw.prepare(sql).pluck().get(...p);
  const all = (sql) => raw.prepare(sql).all();
  const out = {
    integrity: raw.pragma('integrity_check', { simple: true }),
    files: one(`SELECT COUNT(*) FROM label_files lf JOIN labels l ON l.id = lf.label_id AND l.name = 'working'`),
    symbols: one(`SELECT COUNT(*) FROM nodes`),
    edges: all(`SELECT type, confidence, COUNT(*) AS n FROM edges GROUP BY 1, 2 ORDER BY 1, 2`),
    semantic: all(`SELECT language, semantic_state AS state, COUNT(*) AS n FROM files WHERE language IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`),
    vectorsAssigned: one(`SELECT COUNT(*) FROM node_embeddings`),
    orphanVectors: one(`SELECT COUNT(*) FROM embeddings e WHERE NOT EXISTS (SELECT 1 FROM node_embeddings ne WHERE ne.embedding_id = e.id)`),
  };
  raw.close();
  const answers = queries.map((q) => {
    const r = spawnSync(process.execPath, [CLI, 'search', q, '--db', db, '--repo', repo, '--json', '--limit', '1'], { env: { ...env, CA_EMBEDDING_ENABLED: 'false' }, encoding: 'utf8' });
    if (r.status !== 0) return `error: ${r.stderr.trim()}`;
    const top = JSON.parse(r.stdout).results[0];
    return top ? `${top.qualifiedName}@${top.path}:${top.startLine}` : null;
  });
  return { ...out, answers };
}

/** Edge groups (type, confidence) whose counts differ: [type, confidence, recovered, clean]. */
function edgeCountDiff(a, b) {
  const key = (e) => `${e.type}/${e.confidence}`;
  const bm = new Map(b.map((e) => [key(e), e.n]));
  const am = new Map(a.map((e) => [key(e), e.n]));
  return [...new Set([...am.keys(), ...bm.keys()])].filter((k) => am.get(k) !== bm.get(k)).map((k) => [k, am.get(k) ?? 0, bm.get(k) ?? 0]);
}

/** The parts a recovered index must share with the clean one (orphan vectors are collected in bounded steps, not required to be 0). */
function differences(a, b) {
  const keys = ['integrity', 'files', 'symbols', 'edges', 'semantic', 'vectorsAssigned', 'answers'];
  return keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

const out = { repo: source, startedAt: new Date().toISOString(), load: loadavg().map((x) => Math.round(x * 100) / 100), model: values.model ?? null, fresh: [], edits: [] };

// The clean reference, and the queries: 20 symbol names of the repository, evenly spread.
const cleanDir = copy('clean');
const cleanDb = join(cleanDir, '..', 'clean.db');
const t0 = performance.now();
if (index(cleanDir, cleanDb).code !== 0) throw new Error('clean index failed');
out.cleanMs = Math.round(performance.now() - t0);
const names = new BetterSqlite3(cleanDb, { readonly: true })
  .prepare(`SELECT qualified_name FROM nodes WHERE kind IN ('function','method','class') GROUP BY qualified_name HAVING COUNT(*) = 1 ORDER BY qualified_name`)
  .pluck()
  .all();
const queries = Array.from({ length: 20 }, (_, i) => names[Math.floor((i * names.length) / 20)]).filter(Boolean);
const clean = fingerprint(cleanDb, queries, cleanDir);
log(`clean index: ${out.cleanMs} ms, ${clean.files} files, ${clean.symbols} symbols`);

for (let i = 0; i < Number(values.kills); i++) {
  const db = join(cleanDir, '..', `kill-${i}.db`);
  const at = Math.round(1000 + random() * (Number(values['max-s']) - 1) * 1000);
  const killed = await killAfter(cleanDir, db, at);
  const rerun = index(cleanDir, db);
  const fp = fingerprint(db, queries, cleanDir);
  const diff = differences(fp, clean);
  out.fresh.push({ killAtMs: at, killed: killed.signal === 'SIGKILL', rerunExit: rerun.code, integrity: fp.integrity, equal: diff.length === 0 && rerun.code === 0, differs: diff });
  log(`kill ${i + 1}: at ${at} ms (${killed.signal ?? `exited ${killed.code}`}), re-run ${rerun.code}, ${diff.length === 0 ? 'equal' : `differs in ${diff.join(', ')}`}`);
  rmSync(db, { force: true });
  rmSync(`${db}-wal`, { force: true });
  rmSync(`${db}-shm`, { force: true });
}

if (values.model) {
  for (let i = 0; i < Number(values['edit-kills']); i++) {
    const dir = copy(`edit${i}`);
    const db = join(dir, '..', 'edit.db');
    index(dir, db);
    // The same edits indexed without a kill, from a copy of this index: what the recovery must equal.
    const uninterrupted = join(dir, '..', 'edit-uninterrupted.db');
    copyFileSync(db, uninterrupted);
    const files = spawnSync('git', ['-C', source, 'ls-files', '*.ts', '*.tsx', '*.cs'], { encoding: 'utf8' }).stdout.split('\n').filter((p) => p && !p.endsWith('.d.ts'));
    for (let k = 0; k < Number(values.edits); k++) {
      const path = files[Math.floor(random() * files.length)];
      const text = readFileSync(join(dir, path), 'utf8');
      const added = path.endsWith('.cs') ? `\n// edited ${i}-${k}\n` : `\nexport function crashBenchEdit${i}_${k}(): number {\n  return ${k};\n}\n`;
      writeFileSync(join(dir, path), `${text}${added}`);
    }
    // Even runs die as embedding starts, odd ones after its first round of vectors.
    const killed = index(dir, db, { CA_FAULT_KILL_AT: i % 2 === 0 ? 'embed:0' : 'embed:1' });
    const rerun = index(dir, db);
    const editedClean = join(dir, '..', 'edit-clean.db');
    index(dir, editedClean);
    index(dir, uninterrupted);
    const a = fingerprint(db, queries, dir);
    const b = fingerprint(editedClean, queries, dir);
    const c = fingerprint(uninterrupted, queries, dir);
    const diff = differences(a, b);
    const killDiff = differences(a, c);
    out.edits.push({ killed: killed.signal === 'SIGKILL', rerunExit: rerun.code, integrity: a.integrity, orphanVectors: a.orphanVectors, equal: diff.length === 0 && rerun.code === 0, differs: diff, edgeCounts: edgeCountDiff(a.edges, b.edges), equalToUninterrupted: killDiff.length === 0, differsFromUninterrupted: killDiff });
    log(`edit kill ${i + 1}: ${killed.signal ?? `exited ${killed.code}`}, re-run ${rerun.code}, ${diff.length === 0 ? 'equal' : `differs in ${diff.join(', ')} ${JSON.stringify(out.edits.at(-1).edgeCounts)}`} (orphan vectors ${a.orphanVectors}); against the same edits indexed without a kill: ${killDiff.length === 0 ? 'equal' : `differs in ${killDiff.join(', ')}`}`);
    rmSync(resolve(dir, '..'), { recursive: true, force: true });
  }
}

out.summary = {
  fresh: `${out.fresh.filter((r) => r.equal).length}/${out.fresh.length} equal, integrity ok ${out.fresh.filter((r) => r.integrity === 'ok').length}/${out.fresh.length}`,
  edits: `${out.edits.filter((r) => r.equal).length}/${out.edits.length} equal to a clean index, ${out.edits.filter((r) => r.equalToUninterrupted).length}/${out.edits.length} to the same edits indexed without a kill`,
};
out.loadAfter = loadavg().map((x) => Math.round(x * 100) / 100);
rmSync(resolve(cleanDir, '..'), { recursive: true, force: true });
console.log(JSON.stringify(out, null, 2));
