#!/usr/bin/env node
// Child entry of the benchmark suite: `node stage.mjs NAME JSON_ARGS OUT_FILE`. Runs one stage in
// a fresh process (own peak RSS, no state carried over) and writes its JSON result to OUT_FILE.
import { writeFileSync } from 'node:fs';
import { full, semantic, syntactic } from './indexStages.mjs';
import { loadAvg, selfPeakRssMiB } from './lib.mjs';
import { graph, rankers, search, synth } from './queryStages.mjs';
import { embedBench } from './embedStage.mjs';
import { filterSearch, workspaceSearch } from './filterStages.mjs';

const STAGES = { syntactic, semantic, full, synth, search, rankers, graph, embedBench, filterSearch, workspaceSearch };
const [name, json, out] = process.argv.slice(2);
const stage = STAGES[name];
if (!stage) {
  console.error(`unknown stage ${name}; one of ${Object.keys(STAGES).join(', ')}`);
  process.exit(2);
}
const loadBefore = loadAvg();
const result = await stage(JSON.parse(json));
writeFileSync(out, JSON.stringify({ ...result, selfPeakRssMiB: selfPeakRssMiB(), load: { before: loadBefore, after: loadAvg() } }));
// Worker threads and pools are disposed by the stages; exit even if a handle lingers.
process.exit(0);
