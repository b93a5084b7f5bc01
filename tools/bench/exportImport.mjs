#!/usr/bin/env node
// Index artifacts (decision 045): `ca export` of an existing index with and without vectors and
// file contents, then `ca import --no-index` of each into a scratch index file; prints per
// variant the artifact's size, the index's size, and the export and import wall times (the
// commands' own `ms`, process start excluded). With --reindex, also the import of the full
// artifact followed by the incremental `ca index` of the unchanged checkout. Figures go to
// docs/benchmarks.md ("Index artifacts").
// Usage: node tools/bench/exportImport.mjs --repo DIR --db INDEX [--work DIR] [--reindex]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { repo: { type: 'string' }, db: { type: 'string' }, work: { type: 'string' }, reindex: { type: 'boolean', default: false } } });
if (!values.repo || !values.db) {
  console.error('usage: node tools/bench/exportImport.mjs --repo DIR --db INDEX [--work DIR] [--reindex]');
  process.exit(2);
}
const BIN = resolve(import.meta.dirname, '../../apps/cli/dist/main.js');
const work = values.work ?? mkdtempSync(join(tmpdir(), 'ca-artifact-bench-'));
const ca = (...args) => JSON.parse(execFileSync(process.execPath, [BIN, ...args, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] }));
const variants = [
  ['everything', []],
  ['--no-vectors', ['--no-vectors']],
  ['--no-contents', ['--no-contents']],
  ['--no-vectors --no-contents', ['--no-vectors', '--no-contents']],
];
console.log(JSON.stringify({ index: values.db, indexBytes: statSync(values.db).size }));
for (const [name, flags] of variants) {
  const out = join(work, `${name.replace(/[^a-z]+/g, '-')}.caindex`);
  const exported = ca('export', '--repo', values.repo, '--db', values.db, '--out', out, ...flags);
  const target = join(work, 'imported.db');
  const imported = ca('import', out, '--repo', values.repo, '--db', target, '--no-index');
  console.log(JSON.stringify({ variant: name, artifactBytes: statSync(out).size, databaseBytes: exported.header.databaseBytes, exportMs: exported.ms, importMs: imported.ms }));
  for (const ext of ['', '-wal', '-shm']) rmSync(target + ext, { force: true });
  if (values.reindex && name === 'everything') {
    const started = performance.now();
    const full = ca('import', out, '--repo', values.repo, '--db', target);
    console.log(JSON.stringify({ variant: 'everything, then ca index', importMs: full.ms, indexMs: full.index.ms, parsed: full.index.changed, wallMs: Math.round(performance.now() - started) }));
    for (const ext of ['', '-wal', '-shm']) rmSync(target + ext, { force: true });
  }
  rmSync(out, { force: true });
}
if (!values.work) rmSync(work, { recursive: true, force: true });
