import { availableParallelism } from 'node:os';
import { CaError, toCaError } from '@ca/schema';
import { Supervisor, workerThreadTransport, type Codec } from '@ca/supervisor';
import { DEFAULT_BATCH_SIZE, DEFAULT_BATCH_TOKENS, embedderIdentity, planBatches, splitRows, windowLengths } from './embedder.js';
import type { Embedder } from './embedder.js';
import type { EmbedderOptions } from './localEmbedder.js';
import { modelInfo, requireResolved } from './modelInfo.js';
import type { ModelResolution, ResolvedModel } from './resolveModel.js';
import { loadTokenCounter } from './loadTokenCounter.js';

export interface WorkerEmbedderOptions extends EmbedderOptions {
  /**
   * Model workers (config `embedding.workers`; 0 or absent = `defaultEmbeddingWorkers()`). Each
   * worker holds its own onnxruntime session and runs one batch at a time.
   */
  readonly workers?: number;
  /** onnxruntime intra-op threads per worker (default: the cores divided among the workers). */
  readonly threadsPerWorker?: number;
  /** Deadline for the workers to load the model (default 60 s). */
  readonly startupTimeoutMs?: number;
  /** How long `dispose()` waits for a clean exit before terminating a worker (default 5 s). */
  readonly shutdownTimeoutMs?: number;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; data: Float32Array; dims: number }
  | { type: 'error'; id: number | null; message: string };

/** One worker thread with one model session. */
interface ModelWorker {
  run(texts: string[]): Promise<Float32Array[]>;
  /** Set once the worker can no longer embed (load failure, crash, disposal). */
  failure(): Error | null;
  dispose(timeoutMs: number): Promise<void>;
}

/**
 * The worker script sits in `runtime/`, a sibling of both `src/` (tests) and `dist/` (package),
 * so one relative URL works from either.
 */
const WORKER_URL = new URL('../runtime/embedWorker.mjs', import.meta.url);

/**
 * Model workers when the config does not say: two on a machine with two or more cores, else one.
 * On 2 cores (docs/benchmarks.md, problem 9) two sessions of one intra-op thread each run the
 * model faster than one session of two threads, and each worker's tokenizing and pooling
 * overlaps the other's model run instead of leaving the cores idle.
 */
export function defaultEmbeddingWorkers(cores = availableParallelism()): number {
  return cores >= 2 ? 2 : 1;
}

/**
 * Runs the model in `worker_threads` Workers so embedding never blocks the calling thread
 * (where the SQLite writer lives). Batches (planned by token length) go to whichever worker is
 * free; vectors do not depend on the worker or its thread count (onnxruntime's results are the
 * same for 1 and 2 intra-op threads, checked in the tests). Tokens are counted on the calling
 * thread with the model's tokenizer (loaded without the ONNX session), because `countTokens` is
 * synchronous. The workers' stdout is forwarded to stderr: the CLI's stdout carries JSON only.
 */
export async function createWorkerEmbedder(
  resolution: ModelResolution,
  options: WorkerEmbedderOptions = {},
): Promise<Embedder> {
  const model = requireResolved(resolution);
  const [info, counter] = await Promise.all([modelInfo(model), loadTokenCounter(model)]);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const batchTokens = options.batchTokens ?? DEFAULT_BATCH_TOKENS;
  const cores = availableParallelism();
  const count = Math.max(1, Math.floor(options.workers || defaultEmbeddingWorkers(cores)));
  const threads = Math.max(1, Math.floor(options.threadsPerWorker ?? cores / count));
  const startupTimeoutMs = options.startupTimeoutMs ?? 60_000;

  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 5000;
  const started = await Promise.allSettled(Array.from({ length: count }, () => startWorker(model, threads, startupTimeoutMs, shutdownTimeoutMs)));
  const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const firstFailure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (firstFailure) {
    await Promise.all(workers.map((w) => w.dispose(0)));
    throw firstFailure.reason;
  }
  let disposed: CaError | null = null;
  const failure = (): Error | null => disposed ?? workers.map((w) => w.failure()).find((e) => e !== null) ?? null;

  return {
    ...embedderIdentity(info, counter),
    async embed(texts, tokenCounts) {
      const dead = failure();
      if (dead) throw dead;
      if (texts.length === 0) return [];
      const lengths = windowLengths(texts, tokenCounts, counter, info.maxTokens);
      // A short request is spread over every worker instead of filling one batch.
      const batches = planBatches(lengths, Math.min(batchSize, Math.ceil(texts.length / workers.length)), batchTokens);
      const out = new Array<Float32Array>(texts.length);
      // Every batch is posted at once, longest first, each to the worker with the least padded
      // tokens so far: a worker's queue then never waits for the calling thread (which may be
      // building the next texts or writing vectors) to hand it the next batch.
      const queued = workers.map(() => 0);
      const runs: Promise<void>[] = [];
      for (let b = batches.length - 1; b >= 0; b--) {
        const batch = batches[b]!;
        const w = queued.indexOf(Math.min(...queued));
        queued[w]! += Math.max(...batch.map((i) => lengths[i]!)) * batch.length;
        runs.push(
          workers[w]!.run(batch.map((i) => texts[i]!)).then((rows) => {
            batch.forEach((textIndex, row) => (out[textIndex] = rows[row]!));
          }),
        );
      }
      await Promise.all(runs);
      return out;
    },
    async dispose() {
      disposed ??= new CaError('model_unavailable', 'embedder has been disposed');
      await Promise.all(workers.map((w) => w.dispose(shutdownTimeoutMs)));
    },
  };
}

/** What a worker sends back for one batch. */
interface BatchResult {
  readonly data: Float32Array;
  readonly dims: number;
}

/** The embedding worker's wire format (runtime/embedWorker.mjs). */
const EMBED_CODEC: Codec<string[], BatchResult> = {
  encode: (id, texts) => ({ type: 'embed', id, texts }),
  decode(message) {
    const msg = message as WorkerMessage;
    if (msg.type === 'result') return { kind: 'result', id: msg.id, value: { data: msg.data, dims: msg.dims } };
    if (msg.type === 'error' && msg.id !== null) return { kind: 'error', id: msg.id, error: new CaError('internal', `embedding failed: ${msg.message}`) };
    if (msg.type === 'ready' || msg.type === 'error') return { kind: 'event', value: msg };
    return { kind: 'invalid', reason: `unknown message from the embedding worker` };
  },
  shutdown: () => ({ type: 'close' }),
};

/** The supervisor's failure of a worker as this package reports it (`timeout`, `model_unavailable`). */
function workerFailure(e: unknown, model: ResolvedModel, startupTimeoutMs: number): CaError {
  const err = toCaError(e);
  if (err.code === 'deadline_exceeded') return new CaError('timeout', `embedding worker did not load ${model.modelId} within ${startupTimeoutMs} ms`, { cause: err });
  if (err.code === 'model_unavailable') return err;
  const code = err.context.code;
  const how = typeof code === 'number' ? `exited (code ${code})` : `failed: ${err.message}`;
  return new CaError('model_unavailable', `embedding worker ${how}`, { cause: err });
}

async function startWorker(model: ResolvedModel, threads: number, startupTimeoutMs: number, shutdownTimeoutMs: number): Promise<ModelWorker> {
  let dead: CaError | null = null;
  // A worker that dies is not restarted: the embedder reports the failure (the engine then
  // indexes without vectors) instead of loading the model again in the middle of a run.
  const supervisor = new Supervisor<string[], BatchResult>({
    transport: workerThreadTransport({
      name: 'embedding worker',
      script: WORKER_URL,
      workerData: { dir: model.dir, modelId: model.modelId, threads },
      stdoutToStderr: true,
    }),
    codec: EMBED_CODEC,
    maxInFlight: Number.POSITIVE_INFINITY,
    maxRestarts: 0,
    startTimeoutMs: startupTimeoutMs,
    shutdownGraceMs: shutdownTimeoutMs,
    handshake: (ctx) =>
      ctx.waitFor((m) => {
        const msg = m as WorkerMessage;
        if (msg.type === 'ready') return true;
        if (msg.type === 'error' && msg.id === null) {
          throw new CaError('model_unavailable', `cannot load embedding model ${model.modelId} from ${model.dir}: ${msg.message}`);
        }
        return undefined;
      }),
  });
  try {
    await supervisor.start();
  } catch (e) {
    await supervisor.close(0);
    throw workerFailure(e, model, startupTimeoutMs);
  }
  return {
    async run(texts) {
      if (dead) throw dead;
      try {
        const { data, dims } = await supervisor.request(texts);
        return splitRows(data, dims, texts.length);
      } catch (e) {
        const err = toCaError(e);
        if (err.code === 'internal') throw err;
        dead ??= workerFailure(err, model, startupTimeoutMs);
        throw dead;
      }
    },
    failure: () => dead,
    async dispose(timeoutMs) {
      dead ??= new CaError('model_unavailable', 'embedder has been disposed');
      await supervisor.close(timeoutMs);
    },
  };
}
