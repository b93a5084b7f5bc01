import { Worker } from 'node:worker_threads';
import { CaError, toCaError } from '@ca/schema';
import { DEFAULT_BATCH_SIZE, planBatches, splitRows } from './embedder.js';
import type { Embedder } from './embedder.js';
import type { EmbedderOptions } from './localEmbedder.js';
import { modelInfo, requireResolved } from './modelInfo.js';
import type { ModelResolution } from './resolveModel.js';
import { loadTokenCounter } from './loadTokenCounter.js';

export interface WorkerEmbedderOptions extends EmbedderOptions {
  /** Deadline for the worker to load the model (default 60 s). */
  readonly startupTimeoutMs?: number;
  /** How long `dispose()` waits for a clean exit before terminating the worker (default 5 s). */
  readonly shutdownTimeoutMs?: number;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; data: Float32Array; dims: number }
  | { type: 'error'; id: number | null; message: string };

interface Pending {
  resolve(rows: Float32Array[]): void;
  reject(e: Error): void;
  count: number;
}

/**
 * The worker script sits in `runtime/`, a sibling of both `src/` (tests) and `dist/` (package),
 * so one relative URL works from either.
 */
const WORKER_URL = new URL('../runtime/embedWorker.mjs', import.meta.url);

/**
 * Runs the model in a `worker_threads` Worker so embedding never blocks the calling thread
 * (where the SQLite writer lives). Tokens are counted on the calling thread with the model's
 * tokenizer (loaded without the ONNX session), because `countTokens` is synchronous.
 * The worker's stdout is forwarded to stderr: the CLI's stdout carries JSON only.
 */
export async function createWorkerEmbedder(
  resolution: ModelResolution,
  options: WorkerEmbedderOptions = {},
): Promise<Embedder> {
  const model = requireResolved(resolution);
  const [info, counter] = await Promise.all([modelInfo(model), loadTokenCounter(model)]);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;

  const worker = new Worker(WORKER_URL, {
    workerData: { dir: model.dir, modelId: model.modelId },
    stdout: true,
  });
  worker.stdout.pipe(process.stderr, { end: false });

  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: Error | null = null;
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  const failAll = (e: Error): void => {
    dead ??= e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    worker.unref();
  };

  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new CaError('timeout', `embedding worker did not load ${model.modelId} within ${options.startupTimeoutMs ?? 60_000} ms`)),
      options.startupTimeoutMs ?? 60_000,
    );
    worker.on('message', (msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        clearTimeout(timer);
        resolve();
        return;
      }
      if (msg.type === 'error' && msg.id === null) {
        clearTimeout(timer);
        const e = new CaError('model_unavailable', `cannot load embedding model ${model.modelId} from ${model.dir}: ${msg.message}`);
        failAll(e);
        reject(e);
        return;
      }
      if (msg.id === null) return;
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (pending.size === 0) worker.unref();
      if (msg.type === 'error') p.reject(new CaError('internal', `embedding failed: ${msg.message}`));
      else {
        try {
          p.resolve(splitRows(msg.data, msg.dims, p.count));
        } catch (e) {
          p.reject(toCaError(e));
        }
      }
    });
    worker.on('error', (e) => {
      clearTimeout(timer);
      const err = new CaError('model_unavailable', `embedding worker failed: ${e.message}`, { cause: e });
      failAll(err);
      reject(err);
    });
    worker.on('exit', (code) => {
      exited = true;
      clearTimeout(timer);
      const err = dead ?? new CaError('model_unavailable', `embedding worker exited (code ${code})`);
      failAll(err);
      reject(err);
    });
  });

  try {
    await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  }
  // Idle workers must not keep the process alive; `ref()` again while requests are in flight.
  worker.unref();

  const runBatch = (texts: string[]): Promise<Float32Array[]> =>
    new Promise((resolve, reject) => {
      if (dead) return reject(dead);
      const id = nextId++;
      pending.set(id, { resolve, reject, count: texts.length });
      worker.ref();
      worker.postMessage({ type: 'embed', id, texts });
    });

  return {
    modelId: info.modelId,
    revision: info.revision,
    dims: info.dims,
    maxTokens: info.maxTokens,
    countTokens: counter.countTokens,
    truncateToTokens: counter.truncateToTokens,
    async embed(texts) {
      if (dead) throw dead;
      if (texts.length === 0) return [];
      const lengths = texts.map((t) => Math.min(counter.countTokens(t), info.maxTokens));
      const batches = planBatches(lengths, batchSize);
      // All batches are queued at once; the worker runs them one after another.
      const results = await Promise.all(batches.map((batch) => runBatch(batch.map((i) => texts[i]!))));
      const out = new Array<Float32Array>(texts.length);
      batches.forEach((batch, b) => batch.forEach((textIndex, row) => (out[textIndex] = results[b]![row]!)));
      return out;
    },
    async dispose() {
      if (exited) return;
      dead ??= new CaError('model_unavailable', 'embedder has been disposed');
      worker.ref();
      worker.postMessage({ type: 'close' });
      const timeout = options.shutdownTimeoutMs ?? 5000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        exitPromise.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeout))),
      ]);
      clearTimeout(timer);
      if (timedOut) await worker.terminate();
    },
  };
}
