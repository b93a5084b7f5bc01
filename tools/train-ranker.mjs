#!/usr/bin/env node
// Trains the learned ranker (decision 043) from `ca eval run --features-out` dumps:
//   node tools/train-ranker.mjs --train A.jsonl,B.jsonl --dev C.jsonl --out packages/retrieve/src/ranker-weights.ts
// Selects the grid setting with the best dev NDCG@10 of the candidate lists; writes the weights
// (a .ts module, or JSON for any other extension) with the training provenance.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { handOrder, modelOrder, ndcgAt10, selectModel } from './train-ranker-lib.mjs';

const FORMAT = 1;

function readDump(file) {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const head = JSON.parse(lines[0]);
  if (!Array.isArray(head.featureNames)) throw new Error(`${file}: the first line must name the features (a --features-out dump)`);
  return { names: head.featureNames, rows: lines.slice(1).map((l) => JSON.parse(l)) };
}

function readAll(list) {
  const files = list.flatMap((s) => s.split(',')).filter(Boolean);
  let names = null;
  const rows = [];
  for (const f of files) {
    const d = readDump(f);
    if (names && JSON.stringify(names) !== JSON.stringify(d.names)) throw new Error(`${f}: another feature list than the first dump's`);
    names = d.names;
    rows.push(...d.rows);
  }
  return { names, rows, files: files.map((f) => basename(f)) };
}

const { values } = parseArgs({
  options: {
    train: { type: 'string', multiple: true },
    dev: { type: 'string', multiple: true },
    out: { type: 'string' },
    seed: { type: 'string', default: '1' },
    epochs: { type: 'string', default: '300' },
    // β: the selected model's score plus β · hand_rr (its weight raised by β · std), a prior
    // towards the hand order chosen end to end on the dev sets (decision 043).
    'hand-prior': { type: 'string', default: '0' },
    // Features the model must not use (weight 0), comma-separated: e.g. a feature whose
    // relation to the gold is an artefact of how the training queries were mined.
    exclude: { type: 'string', default: '' },
  },
});
if (!values.train || !values.dev || !values.out) {
  process.stderr.write('usage: node tools/train-ranker.mjs --train FILES --dev FILES --out FILE [--seed N] [--epochs N]\n');
  process.exit(2);
}
const train = readAll(values.train);
const dev = readAll(values.dev);
if (JSON.stringify(train.names) !== JSON.stringify(dev.names)) throw new Error('train and dev dumps have different feature lists');
const grid = [];
// File-level gain 1 lost on every setting in decision 043's selection; the grid now varies the
// weight of the hand-judged training queries instead.
for (const handWeight of [1, 3, 10]) for (const l2 of [0.0001, 0.001, 0.01, 0.1]) grid.push({ fileGain: 0, l2, handWeight });
const seed = Number(values.seed);
const epochs = Number(values.epochs);
const exclude = values.exclude.split(',').map((x) => x.trim()).filter(Boolean);
const { best, tried, hand } = selectModel(train.rows, dev.rows, { featureNames: train.names, grid, seed, epochs, exclude });
const f3 = (x) => x.toFixed(3);
process.stdout.write(`hand order: train ${f3(hand.train)}  dev ${f3(hand.dev)}  (candidate-list symbol NDCG@10, mean over sets; ${train.rows.length} train, ${dev.rows.length} dev queries)\n`);
for (const t of tried) process.stdout.write(`handWeight ${t.handWeight} l2 ${t.l2}: train ${f3(t.train)}  dev ${f3(t.dev)}${t === best ? '  ← selected' : ''}\n`);
// The selected model and the hand order per set (train and dev), to see which sets it wins or loses.
const bestOrder = modelOrder(best.model, train.names.indexOf('exact_qname'));
for (const [split, rows] of [['train', train.rows], ['dev', dev.rows]]) {
  const sets = [...new Set(rows.map((r) => r.set))];
  for (const set of sets) {
    const mine = rows.filter((r) => r.set === set);
    process.stdout.write(`  ${split} ${set} (${mine.length}): hand ${f3(ndcgAt10(mine, handOrder))} → selected ${f3(ndcgAt10(mine, bestOrder))}\n`);
  }
}
const handPrior = Number(values['hand-prior']);
if (!Number.isFinite(handPrior) || handPrior < 0) throw new Error('--hand-prior must be a number ≥ 0');
const handIndex = train.names.indexOf('hand_rr');
if (handPrior > 0 && handIndex < 0) throw new Error('--hand-prior needs the hand_rr feature');
const shipped = best.model.weights.map((w, i) => (i === handIndex ? w + handPrior * best.model.std[i] : w));
const round = (xs) => xs.map((x) => Math.round(x * 1e6) / 1e6);
const weights = {
  format: FORMAT,
  features: train.names,
  mean: round(best.model.mean),
  std: round(best.model.std),
  weights: round(shipped),
  trainedOn: { train: train.files, dev: dev.files, seed, epochs, fileGain: best.fileGain, l2: best.l2, handWeight: best.handWeight, handPrior, exclude, queries: { train: train.rows.length, dev: dev.rows.length } },
};
const json = JSON.stringify(weights, null, 2);
const text = values.out.endsWith('.ts')
  ? `// Generated by tools/train-ranker.mjs (decision 043); retrain rather than edit.\n/** The shipped learned-ranker weights (checked by \`loadRanker\`: format and feature list). */\nexport const RANKER_WEIGHTS: unknown = ${json};\n`
  : `${json}\n`;
writeFileSync(values.out, text);
process.stdout.write(`weights written to ${values.out}\n`);
