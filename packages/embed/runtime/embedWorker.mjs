// @ts-check
/**
 * Worker-thread side of `createWorkerEmbedder`: loads the model once (with `workerData.threads`
 * intra-op threads), then embeds one batch per message, strictly one at a time (onnxruntime's
 * `run` blocks this thread; the pool runs several workers when the cores allow).
 *
 * Protocol (parent → worker): { type: 'embed', id, texts } | { type: 'close' }
 *           (worker → parent): { type: 'ready', dims } | { type: 'result', id, data, dims }
 *                              | { type: 'error', id, message }   (id null: load failed)
 */
import { parentPort, workerData } from 'node:worker_threads';
import { embedBatch, loadFeatureExtractor } from './modelRunner.mjs';

const port = parentPort;
if (!port) throw new Error('embedWorker.mjs must run in a worker thread');

/** @type {any} */
let extractor = null;
try {
  extractor = await loadFeatureExtractor(workerData.dir, workerData.modelId, workerData.threads);
  port.postMessage({ type: 'ready' });
} catch (e) {
  port.postMessage({ type: 'error', id: null, message: e instanceof Error ? e.message : String(e) });
  port.close();
}

let queue = Promise.resolve();

port.on('message', (msg) => {
  queue = queue.then(() => handle(msg));
});

/** @param {{ type: string, id?: number, texts?: string[] }} msg */
async function handle(msg) {
  if (msg.type === 'close') {
    if (extractor) await extractor.dispose().catch(() => {});
    extractor = null;
    port.close();
    return;
  }
  if (msg.type !== 'embed') return;
  try {
    if (!extractor) throw new Error('embedding model is not loaded');
    const { data, dims } = await embedBatch(extractor, msg.texts ?? []);
    // Copy into a buffer we own, then transfer it (no structured-clone copy of the vectors).
    const owned = new Float32Array(data);
    port.postMessage({ type: 'result', id: msg.id, data: owned, dims }, [owned.buffer]);
  } catch (e) {
    port.postMessage({ type: 'error', id: msg.id, message: e instanceof Error ? e.message : String(e) });
  }
}
