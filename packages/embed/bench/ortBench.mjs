#!/usr/bin/env node
/**
 * The model's own ceiling: onnxruntime-node inference alone (no tokenizer, no pooling, no worker),
 * the int8 model on synthetic token ids, to compare with what the embedding pipeline reaches
 * (embedBench.mjs) and with the symbols/s target.
 *
 *   node packages/embed/bench/ortBench.mjs [--lengths 48,64,80,128] [--batch 32] [--runs 6]
 *
 * Session variants: onnxruntime's defaults, 2 and 1 intra-op threads, no spinning, basic graph
 * optimisation. Model dir: CA_EMBEDDING_MODEL_DIR, else ../shared/models beside the repository.
 */
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { arg, modelDir, repoRoot } from './benchArgs.mjs';

const LENGTHS = arg('lengths', '48,64,80,128').split(',').map(Number);
const BATCH = Number(arg('batch', '32'));
const RUNS = Number(arg('runs', '6'));
const modelFile = join(modelDir, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx');

// onnxruntime-node as transformers.js loads it (a dependency of @huggingface/transformers).
const fromEmbed = createRequire(join(repoRoot, 'packages/embed/package.json'));
const ort = createRequire(fromEmbed.resolve('@huggingface/transformers'))('onnxruntime-node');

const VARIANTS = [
  ['default', {}],
  ['2 threads', { intraOpNumThreads: 2 }],
  ['1 thread', { intraOpNumThreads: 1 }],
  ['2 threads, no spinning', { intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: '0' } } } }],
  ['basic graph optimisation', { graphOptimizationLevel: 'basic' }],
];

/** input_ids / attention_mask / token_type_ids of `batch` texts of `length` tokens ([CLS] … [SEP]). */
function feeds(batch, length) {
  const ids = new BigInt64Array(batch * length);
  for (let i = 0; i < ids.length; i++) ids[i] = BigInt(1000 + ((i * 7919) % 20000));
  for (let b = 0; b < batch; b++) (ids[b * length] = 101n), (ids[b * length + length - 1] = 102n);
  const shape = [batch, length];
  return {
    input_ids: new ort.Tensor('int64', ids, shape),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(batch * length).fill(1n), shape),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(batch * length), shape),
  };
}

console.log(`${modelFile}\nbatch ${BATCH}, median of ${RUNS} runs, ${cpus().length} cpus\n`);
console.log('variant                   | tokens/text | ms/batch | tokens/s');
for (const [name, options] of VARIANTS) {
  const session = await ort.InferenceSession.create(modelFile, options);
  for (const length of LENGTHS) {
    const input = feeds(BATCH, length);
    await session.run(input); // warm-up
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await session.run(input);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)];
    console.log(`${name.padEnd(25)} | ${String(length).padStart(11)} | ${ms.toFixed(0).padStart(8)} | ${String(Math.round((BATCH * length) / (ms / 1000))).padStart(8)}`);
  }
  await session.release?.();
}
