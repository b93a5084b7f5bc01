#!/usr/bin/env node
// Ranking experiments on the TRAIN split only: runs each variant of search options over the
// train queries of the given query sets (indexes already built by `ca eval run`) and prints
// NDCG@10 per set, per archetype group and the mean. Holdout queries are never read here.
//
//   node tools/tune-search.mjs --variants '[{"rrfK":60},{"rrfK":20}]' eval/excalidraw.jsonl …
//
// Needs built dist/ packages, CA_EVAL_REPOS (where the real repositories are) and
// CA_EMBEDDING_MODEL_DIR.
import { Engine } from '../packages/engine/dist/index.js';
import { readQuerySet, resolveRepoDir, defaultDbPath, scoreRanking, withContained } from '../apps/eval/dist/index.js';

const args = process.argv.slice(2);
let variants = [{}];
const files = [];
let verbose = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--variants') variants = JSON.parse(args[++i]);
  else if (args[i] === '--verbose') verbose = true;
  else files.push(args[i]);
}
const rows = variants.map(() => ({}));
for (const file of files) {
  const set = readQuerySet(file);
  const repoDir = resolveRepoDir(set, {});
  const engine = Engine.open(repoDir, { dbPath: defaultDbPath(repoDir) });
  await engine.index();
  const queries = set.queries.filter((q) => q.split === 'train' && q.relevant.some((j) => j.grade > 0));
  const name = set.name ?? file;
  for (const [vi, v] of variants.entries()) {
    const byArch = {};
    const all = [];
    for (const q of queries) {
      const r = await engine.search(q.query, { ...v, limit: 20 });
      const m = scoreRanking(withContained(engine, r.results), q.relevant);
      all.push(m.ndcg10);
      (byArch[process.env.GROUP === 'intent' ? r.intent : q.archetype] ??= []).push(m.ndcg10);
      if (verbose) console.log(vi, q.id, m.ndcg10.toFixed(2), q.query.slice(0, 60));
    }
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    rows[vi][name] = { n: all.length, ndcg: mean(all), arch: Object.fromEntries(Object.entries(byArch).map(([k, xs]) => [k, mean(xs)])) };
  }
  engine.close();
}
const setNames = Object.keys(rows[0]);
console.log(['variant', ...setNames.map((s) => `${s}(${rows[0][s].n})`), 'mean'].join('\t'));
for (const [vi, v] of variants.entries()) {
  const vals = setNames.map((s) => rows[vi][s].ndcg);
  console.log([JSON.stringify(v), ...vals.map((x) => x.toFixed(3)), (vals.reduce((a, b) => a + b, 0) / vals.length).toFixed(3)].join('\t'));
}
if (process.env.ARCH) {
  for (const s of setNames) {
    const archs = Object.keys(rows[0][s].arch);
    console.log(`\n${s}\t${archs.join('\t')}`);
    for (const [vi, v] of variants.entries()) console.log([JSON.stringify(v).slice(0, 40), ...archs.map((a) => (rows[vi][s].arch[a] ?? 0).toFixed(3))].join('\t'));
  }
}
