/**
 * Worker thread entry: owns one set of language adapters (WASM grammars), created from the
 * languages' worker entries, and processes files sent by the ParsePool. Never throws across the
 * boundary: failures come back as results.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createAdapters, type AdapterSet } from './adapters.js';
import { processFile } from './fileProcessing.js';
import { LanguageRegistry, type EngineLanguage } from './languages/registry.js';
import type { ParseTask, ParseWorkerData, WorkerReply } from './parsePool.js';
import { projectReaderOf } from './projects.js';

const port = parentPort;
if (!port) throw new Error('parseWorker must run in a worker thread');

let adapters: AdapterSet | null = null;
const data = workerData as ParseWorkerData;

/** The languages the pool named, imported from their modules (functions do not cross threads). */
async function loadLanguages(): Promise<LanguageRegistry> {
  const languages: EngineLanguage[] = [];
  for (const entry of data.languages) {
    const mod = (await import(entry.module)) as Record<string, unknown>;
    const support = mod[entry.export];
    if (typeof support !== 'object' || support === null) throw new Error(`${entry.module} exports no language ${entry.export}`);
    languages.push(support as EngineLanguage);
  }
  return new LanguageRegistry(languages);
}

const ready = loadLanguages()
  .then((registry) => createAdapters(registry, projectReaderOf(data.projects)))
  .then((a) => {
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
