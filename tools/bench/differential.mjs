#!/usr/bin/env node
// Differential testing, long run (decision 022): `--steps` seeded changes generated from the
// repository's own content (packages/engine/test/differential/lib.mjs) are applied to a copy of REPO; after
// each, the incremental index must equal a clean index of the same tree — every file, node,
// span, edge (type, confidence, resolved target), re-export, full-text row and vector, and the
// callers/callees/refs/impls answers of sampled symbols. Prints one JSON line per step and, on a
// difference, a readable diff with the seed and step that replay it. Embeddings off unless
// `--embeddings` (they cost a model run per clean index). Build first (`pnpm build`).
//
//   node tools/bench/differential.mjs REPO [--steps 100] [--seed 1] [--keep-going] [--no-fts] [--embeddings] [--from K]
//
// CA_DIFF_LIMIT=N prints up to N differing rows per section (default 12); CA_DIFF_KEEP=DIR keeps a copy
// of the workspace (the steps' commits and the incremental index) at each differing step in DIR/step-N.
//
// --from K replays one step: the steps before it are indexed incrementally without comparing, the
// index is rebuilt from scratch before step K, and only steps K.. are compared (use with --steps K).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { runDifferential } from '../../packages/engine/test/differential/lib.mjs';
import { importDist, modelDir } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    steps: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    'keep-going': { type: 'boolean', default: false },
    'no-fts': { type: 'boolean', default: false },
    embeddings: { type: 'boolean', default: false },
    from: { type: 'string', default: '1' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/differential.mjs REPO [--steps N] [--seed S] [--keep-going] [--no-fts] [--embeddings] [--from K]');
  process.exit(2);
}
const { Engine } = await importDist('engine');
const seed = Number(values.seed);
// Deadlines far above any run's needs: a parse or pass cut short by a loaded machine differs
// from one that was not, and the comparison is about what indexing computes, not when.
const engineOptions = {
  env: {},
  configOverrides: {
    embedding: values.embeddings ? { model_dir: modelDir(), allow_download: false } : { enabled: false },
    indexing: { parse_timeout_ms: 120_000 },
    semantic: { request_timeout_ms: 1_800_000 },
  },
};
const started = Date.now();
const results = await runDifferential({
  Engine,
  source: resolve(positionals[0]),
  seed,
  steps: Number(values.steps),
  engineOptions,
  fts: !values['no-fts'],
  keepGoing: values['keep-going'],
  from: Number(values.from),
  onStep: (r) => {
    const { differences, ...rest } = r;
    console.log(JSON.stringify({ ...rest, differing: differences.length, load: Number(loadavg()[0].toFixed(2)) }));
    if (differences.length > 0) {
      console.log(`DIFFERENCE at step ${r.step} (replay: node tools/bench/differential.mjs ${positionals[0]} --seed ${seed} --steps ${r.step})`);
      for (const line of differences) console.log(line);
    }
  },
});
const differing = results.filter((r) => r.differences.length > 0);
console.log(
  JSON.stringify({ repo: resolve(positionals[0]), seed, steps: results.length, differing: differing.map((r) => r.step), minutes: Number(((Date.now() - started) / 60000).toFixed(1)) }),
);
process.exit(differing.length > 0 ? 1 : 0);
