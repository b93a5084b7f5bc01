#!/usr/bin/env node
// Syntactic indexing benchmark: `pnpm bench:index [DIR] [--runs N] [--workers N]`.
// Without DIR, builds a corpus from TypeScript's own lib/*.d.ts (shipped in node_modules),
// copied twice under different names (≈174K lines), so the figure is reproducible offline.
// Prints lines/s, files/s and peak RSS for a fresh index, plus a no-change re-index.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { Engine } = await import(resolve(import.meta.dirname, '../packages/engine/dist/index.js'));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '3' }, workers: { type: 'string' }, json: { type: 'string' } },
});

function typescriptLibCorpus() {
  const lib = dirname(require.resolve('typescript/package.json', { paths: [resolve(import.meta.dirname, '../packages/parse-ts')] })) + '/lib';
  const dir = mkdtempSync(join(tmpdir(), 'ca-bench-corpus-'));
  for (const copy of ['a', 'b']) {
    mkdirSync(join(dir, copy), { recursive: true });
    for (const f of readdirSync(lib)) if (f.endsWith('.d.ts')) cpSync(join(lib, f), join(dir, copy, f));
  }
  return dir;
}

const repo = positionals[0] ? resolve(positionals[0]) : typescriptLibCorpus();
const runs = Number(values.runs);
// Syntactic pass only: the semantic passes and embeddings have their own benchmarks (pnpm bench).
const overrides = {
  semantic: { enabled: false },
  embedding: { enabled: false },
  ...(values.workers ? { indexing: { workers: Number(values.workers) } } : {}),
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const fresh = [];
let report;
for (let i = 0; i < runs; i++) {
  const dbDir = mkdtempSync(join(tmpdir(), 'ca-bench-db-'));
  const engine = Engine.open(repo, { dbPath: join(dbDir, 'index.db'), configOverrides: overrides });
  const t0 = performance.now();
  report = await engine.index();
  const ms = performance.now() - t0;
  const t1 = performance.now();
  const again = await engine.index();
  const noChangeMs = performance.now() - t1;
  engine.close();
  rmSync(dbDir, { recursive: true, force: true });
  fresh.push({ ms, noChangeMs, changedOnReindex: again.changed });
}
const ms = median(fresh.map((r) => r.ms));
const result = {
  repo,
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
  files: report.files,
  lines: report.lines,
  symbols: report.symbols,
  edges: report.edges,
  parseStatus: report.parseStatus,
  runs,
  medianMs: Math.round(ms),
  allMs: fresh.map((r) => Math.round(r.ms)),
  linesPerSecond: Math.round(report.lines / (ms / 1000)),
  filesPerSecond: Math.round(report.files / (ms / 1000)),
  noChangeReindexMedianMs: Math.round(median(fresh.map((r) => r.noChangeMs))),
  peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
};
console.log(`syntactic index of ${result.files} files, ${result.lines} lines (${result.symbols} symbols, ${result.edges} edges)`);
console.log(`  fresh index median ${result.medianMs} ms over ${runs} runs [${result.allMs.join(', ')}]`);
console.log(`  ${result.linesPerSecond} lines/s, ${result.filesPerSecond} files/s`);
console.log(`  no-change re-index median ${result.noChangeReindexMedianMs} ms`);
console.log(`  peak RSS ${result.peakRssMiB} MiB`);
const out = values.json ?? join(resolve(import.meta.dirname, '..'), 'bench-out', 'bench-index.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2));
console.log(`  written ${out}`);
