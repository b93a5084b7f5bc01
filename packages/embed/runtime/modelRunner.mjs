// @ts-check
/**
 * The only code that touches transformers.js / onnxruntime. Plain JS (not TS) on purpose:
 * the worker thread (`embedWorker.mjs`) imports it directly, both from the source tree
 * (tests) and from the published package, with no build step or TS loader in between.
 * The in-process embedder (`src/localEmbedder.ts`) imports the same file, so the load
 * settings and the pooling live in one place.
 */
import { AutoTokenizer, LogLevel, env, pipeline } from '@huggingface/transformers';

/**
 * Points transformers.js at a local folder and forbids the network. `env` is a
 * process-wide (per-thread) singleton of transformers.js.
 * @param {string} dir folder holding model folders (transformers.js `localModelPath`)
 */
function configure(dir) {
  env.localModelPath = dir;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  // ERROR maps to onnxruntime log severity 3: the graph-optimizer warnings onnxruntime
  // prints while loading a quantized graph are noise for a CLI whose stdout carries JSON.
  env.logLevel = LogLevel.ERROR;
}

/**
 * Loads the feature-extraction pipeline (int8 weights, `onnx/model_quantized.onnx`).
 * @param {string} dir
 * @param {string} modelId
 */
export async function loadFeatureExtractor(dir, modelId) {
  configure(dir);
  return pipeline('feature-extraction', modelId, {
    dtype: 'q8',
    device: 'cpu',
    session_options: { logSeverityLevel: 3 },
  });
}

/**
 * Loads only the tokenizer (no ONNX session): the worker embedder counts tokens on the
 * calling thread, where a synchronous `countTokens` is needed.
 * @param {string} dir
 * @param {string} modelId
 */
export async function loadTokenizer(dir, modelId) {
  configure(dir);
  return AutoTokenizer.from_pretrained(modelId);
}

/**
 * Embeds one batch: mean pooling over the attention mask, L2-normalised. The tokenizer
 * pads to the longest text of the batch and truncates to the model window.
 * @param {any} extractor a pipeline from loadFeatureExtractor
 * @param {string[]} texts
 * @returns {Promise<{ data: Float32Array, dims: number }>} row-major `texts.length x dims`
 */
export async function embedBatch(extractor, texts) {
  const out = await extractor(texts, { pooling: 'mean', normalize: true });
  const dims = out.dims[out.dims.length - 1];
  const data = out.data instanceof Float32Array ? out.data : Float32Array.from(out.data);
  if (typeof out.dispose === 'function') out.dispose();
  return { data, dims };
}
