import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CaError, toCaError } from '@ca/schema';
import { Supervisor, workerThreadTransport, type Codec } from '@ca/supervisor';
import type { AdapterSet } from './adapters.js';
import type { WorkerEntry } from '@ca/schema';
import type { ProjectFiles } from './projects.js';
import { processFile, type ProcessedFile } from './fileProcessing.js';

export interface ParseTask {
  readonly id: number;
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly deadlineMs: number;
}

/** What workers need besides the files: where to load the languages, and their project files in the tree being indexed. */
export interface ParseWorkerData {
  readonly languages: readonly WorkerEntry[];
  readonly projects: ProjectFiles;
}

export type WorkerReply = { id: number; result: ProcessedFile } | { id: number; error: string };

/** Tasks in flight per worker: enough to hide message latency, small enough to bound memory. */
const IN_FLIGHT_PER_WORKER = 4;

function workerScript(): string | null {
  for (const candidate of ['./parseWorker.js', '../dist/parseWorker.js']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return path;
  }
  return null;
}

/** The parse worker's wire format: a task with its id out, a result or an error message back. */
const PARSE_CODEC: Codec<Omit<ParseTask, 'id'>, ProcessedFile> = {
  encode: (id, task) => ({ ...task, id }) satisfies ParseTask,
  decode(message) {
    const reply = message as WorkerReply;
    if (typeof reply?.id !== 'number') return { kind: 'invalid', reason: 'a parse worker reply without an id' };
    if ('result' in reply) return { kind: 'result', id: reply.id, value: reply.result };
    return { kind: 'error', id: reply.id, error: new CaError('parse_failed', reply.error) };
  },
  shutdown: () => 'close',
};

/** The result standing for a file whose parse failed outside the parser (worker error or crash). */
function failedFile(t: Omit<ParseTask, 'id'>, reason: string): ProcessedFile {
  return {
    path: t.path,
    contentHash: `failed:${Date.now()}`,
    language: null,
    size: 0,
    lineCount: 0,
    parseStatus: 'error',
    statusReason: reason,
    generated: false,
    extractor: 'none',
    index: null,
  };
}

function failureReason(e: unknown): string {
  const err = toCaError(e);
  if (err.code === 'parse_failed') return `parser worker failed: ${err.message}`;
  const exit = err.context.code ?? err.context.signal;
  return `parser worker crashed (${exit === undefined || exit === null ? err.message : `exit code ${String(exit)}`}) while parsing this file`;
}

/**
 * Parses files on worker threads (one adapter set per worker, each a `Supervisor` from
 * @ca/supervisor), or on the main thread when `workers` is 0. Results are delivered in
 * completion order through `onResult`.
 */
export class ParsePool {
  private constructor(
    private readonly workers: Supervisor<Omit<ParseTask, 'id'>, ProcessedFile>[],
    private readonly local: AdapterSet | null,
  ) {}

  /** `local` parses on this thread when `workers` is 0 (its project facts must be those of `data`). */
  static create(workers: number, local: AdapterSet | null, data: ParseWorkerData): ParsePool {
    const script = workers > 0 ? workerScript() : null;
    if (!script) return new ParsePool([], local);
    const supervisor = (): Supervisor<Omit<ParseTask, 'id'>, ProcessedFile> =>
      new Supervisor({
        transport: workerThreadTransport({ name: 'parser worker', script, workerData: data }),
        codec: PARSE_CODEC,
        maxInFlight: IN_FLIGHT_PER_WORKER,
        // A worker that dies (WASM abort, out of memory) fails only its in-flight files; a fresh
        // worker takes its place at once and the run goes on, however often that happens.
        maxRestarts: Number.POSITIVE_INFINITY,
        backoffMs: 0,
      });
    return new ParsePool(Array.from({ length: workers }, supervisor), local);
  }

  get threadCount(): number {
    return this.workers.length;
  }

  async run(
    tasks: readonly Omit<ParseTask, 'id'>[],
    onResult: (result: ProcessedFile, task: Omit<ParseTask, 'id'>) => void,
  ): Promise<void> {
    if (this.workers.length === 0) {
      if (!this.local) throw new Error('ParsePool has neither workers nor local adapters');
      for (const t of tasks) {
        const adapter = this.local.forPath(t.path);
        if (!adapter) continue;
        onResult(await processFile(t.bytes, t.path, adapter, t.deadlineMs, false), t);
      }
      return;
    }
    let next = 0;
    // Each worker pulls the next file as soon as one of its slots frees: a worker busy with a
    // large file does not hold back the files queued behind it.
    const lane = async (worker: Supervisor<Omit<ParseTask, 'id'>, ProcessedFile>): Promise<void> => {
      while (next < tasks.length) {
        const t = tasks[next++]!;
        const result = await worker.request(t).catch((e: unknown) => failedFile(t, failureReason(e)));
        onResult(result, t);
      }
    };
    await Promise.all(this.workers.flatMap((w) => Array.from({ length: IN_FLIGHT_PER_WORKER }, () => lane(w))));
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}
