#!/usr/bin/env node
/**
 * The model's own ceiling: onnxruntime-node inference alone (no tokenizer, no pooling, no worker),
 * the int8 model on synthetic token ids, to compare with what the embedding pipeline reaches
 * (embedBench.mjs) and with the symbols/s target.
 *
 *   node packages/embed/bench/ortBench.mjs [--lengths 48,64,80,128] [--batch 32] [--runs 6]
 *   node packages/embed/bench/ortBench.mjs --sessions 2 [--threads 1] [--seconds 15] [--lengths 96] [--batch 16]
 *
 * Session variants: onnxruntime's defaults, 2 and 1 intra-op threads, no spinning, basic graph
 * optimisation. With `--sessions N`: N sessions of `--threads` intra-op threads each, one per
 * worker thread (a session's `run` blocks its thread), running at once for `--seconds`; prints
 * their summed tokens/s (`--sessions 1 --threads 2` is the single-session comparison).
 * Model dir: CA_EMBEDDING_MODEL_DIR, else ../shared/models beside the repository; `--model FILE`
 * times another .onnx file (a rewritten graph, say) with the same inputs.
 */
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { arg, modelDir, repoRoot } from './benchArgs.mjs';

const LENGTHS = arg('lengths', '48,64,80,128').split(',').map(Number);
const BATCH = Number(arg('batch', '32'));
const RUNS = Number(arg('runs', '6'));
const modelFile = arg('model', join(modelDir, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'));

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

const SESSIONS = Number(arg('sessions', '0'));

if (!isMainThread) {
  // One session of a --sessions run: embed the same batch until the time is up.
  const { length, batch, threads, seconds } = workerData;
  const session = await ort.InferenceSession.create(modelFile, { intraOpNumThreads: threads });
  const input = feeds(batch, length);
  await session.run(input); // warm-up
  parentPort.postMessage('ready');
  await new Promise((resolve) => parentPort.once('message', resolve)); // start together
  const t0 = performance.now();
  let runs = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await session.run(input);
    runs++;
  }
  parentPort.postMessage({ tokens: runs * batch * length, ms: performance.now() - t0 });
  await session.release?.();
} else if (SESSIONS > 0) {
  const threads = Number(arg('threads', '1'));
  const seconds = Number(arg('seconds', '15'));
  console.log(`${modelFile}\n${SESSIONS} session(s) x ${threads} thread(s), batch ${BATCH}, ${seconds} s, ${cpus().length} cpus\n`);
  console.log('tokens/text | tokens/s (all sessions)');
  for (const length of LENGTHS) {
    const workers = Array.from({ length: SESSIONS }, () => new Worker(new URL(import.meta.url), { workerData: { length, batch: BATCH, threads, seconds }, argv: process.argv.slice(2) }));
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
    const results = workers.map((w) => new Promise((resolve) => w.once('message', resolve)));
    for (const w of workers) w.postMessage('go');
    const done = await Promise.all(results);
    const perSecond = done.reduce((sum, r) => sum + r.tokens / (r.ms / 1000), 0);
    console.log(`${String(length).padStart(11)} | ${String(Math.round(perSecond)).padStart(8)}`);
    await Promise.all(workers.map((w) => new Promise((resolve) => w.once('exit', resolve))));
  }
} else {
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
}
