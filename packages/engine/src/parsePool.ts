import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AdapterSet } from './adapters.js';
import type { ProjectFile } from './csProjects.js';
import { processFile, type ProcessedFile } from './fileProcessing.js';

export interface ParseTask {
  readonly id: number;
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly deadlineMs: number;
}

/** What workers need besides the files: the C# projects' text (preprocessor symbols) of the tree being indexed. */
export interface ParseWorkerData {
  readonly projects: Readonly<Record<string, ProjectFile>>;
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

/**
 * Parses files on worker threads (one adapter set per worker), or on the main thread when
 * `workers` is 0. Results are delivered in completion order through `onResult`.
 */
export class ParsePool {
  private constructor(
    private readonly workers: Worker[],
    private readonly local: AdapterSet | null,
    private readonly data: ParseWorkerData,
  ) {}

  /** `local` parses on this thread when `workers` is 0 (its project facts must be those of `data`). */
  static create(workers: number, local: AdapterSet | null, data: ParseWorkerData): ParsePool {
    const script = workers > 0 ? workerScript() : null;
    if (!script) return new ParsePool([], local, data);
    return new ParsePool(
      Array.from({ length: workers }, () => new Worker(script, { workerData: data })),
      local,
      data,
    );
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
    await new Promise<void>((resolve) => {
      let next = 0;
      let done = 0;
      if (tasks.length === 0) return resolve();
      const failed = (t: Omit<ParseTask, 'id'>, reason: string): ProcessedFile => ({
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
      });
      const complete = (t: Omit<ParseTask, 'id'>, result: ProcessedFile) => {
        done++;
        onResult(result, t);
        if (done === tasks.length) {
          for (const c of cleanups.values()) c();
          resolve();
        }
      };
      const cleanups = new Map<Worker, () => void>();
      const attach = (w: Worker, index: number) => {
        const pending = new Map<number, Omit<ParseTask, 'id'>>();
        const dispatch = () => {
          if (next >= tasks.length) return;
          const id = next++;
          const t = tasks[id]!;
          pending.set(id, t);
          w.postMessage({ ...t, id } satisfies ParseTask);
        };
        const onMessage = (reply: WorkerReply) => {
          const t = pending.get(reply.id);
          if (!t) return;
          pending.delete(reply.id);
          dispatch();
          complete(t, 'result' in reply ? reply.result : failed(t, `parser worker failed: ${reply.error}`));
        };
        // A worker that dies (WASM abort, out of memory) fails only its in-flight files; a
        // fresh worker takes its place and the run goes on.
        const onExit = (code: number) => {
          cleanups.get(w)?.();
          cleanups.delete(w);
          if (done === tasks.length) return;
          const lost = [...pending.values()];
          pending.clear();
          const replacement = new Worker(workerScript()!, { workerData: this.data });
          this.workers[index] = replacement;
          attach(replacement, index);
          for (const t of lost) complete(t, failed(t, `parser worker crashed (exit code ${code}) while parsing this file`));
        };
        const onError = () => {
          /* 'exit' follows and handles recovery */
        };
        w.on('message', onMessage);
        w.on('exit', onExit);
        w.on('error', onError);
        cleanups.set(w, () => {
          w.off('message', onMessage);
          w.off('exit', onExit);
          w.off('error', onError);
        });
        for (let i = 0; i < IN_FLIGHT_PER_WORKER; i++) dispatch();
      };
      this.workers.forEach((w, i) => attach(w, i));
    });
  }

  async close(): Promise<void> {
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.once('exit', () => resolve());
            w.postMessage('close');
            setTimeout(() => void w.terminate(), 2000).unref();
          }),
      ),
    );
  }
}
