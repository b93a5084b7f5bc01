/**
 * Worker thread entry: owns one set of language adapters (WASM grammars) and processes files
 * sent by the ParsePool. Never throws across the boundary: failures come back as results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createAdapters, type AdapterSet } from './adapters.js';
import { processFile } from './fileProcessing.js';
import type { ParseTask, ParseWorkerData, WorkerReply } from './parsePool.js';

const port = parentPort;
if (!port) throw new Error('parseWorker must run in a worker thread');

let adapters: AdapterSet | null = null;
const projects = (workerData as ParseWorkerData).projects;
const ready = createAdapters((path) => projects[path] ?? null).then((a) => {
  adapters = a;
});

port.on('message', (task: ParseTask | 'close') => {
  if (task === 'close') {
    void ready.then(() => adapters?.dispose()).finally(() => port.close());
    return;
  }
  void ready
    .then(async () => {
      const adapter = adapters!.forPath(task.path);
      if (!adapter) throw new Error(`no adapter for ${task.path}`);
      const result = await processFile(task.bytes, task.path, adapter, task.deadlineMs);
      port.postMessage({ id: task.id, result } satisfies WorkerReply);
    })
    .catch((e: unknown) => {
      port.postMessage({ id: task.id, error: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
    });
});
