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
 * @param {number} [threads] onnxruntime intra-op threads (default: onnxruntime's, one per core)
 */
export async function loadFeatureExtractor(dir, modelId, threads) {
  configure(dir);
  return pipeline('feature-extraction', modelId, {
    dtype: 'q8',
    device: 'cpu',
    session_options: { logSeverityLevel: 3, ...(threads ? { intraOpNumThreads: threads } : {}) },
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
 *
 * The same steps as the feature-extraction pipeline (`pooling: 'mean', normalize: true`), with
 * the pooling done here: transformers.js converts a BigInt mask value for every (token,
 * dimension) pair, which cost ~10% of a batch's time on 2 cores while onnxruntime's threads sat
 * idle. The arithmetic and its order are the pipeline's (float64 sums per dimension, float32
 * results, the norm accumulated in float32), so the vectors are bit-identical.
 * @param {any} extractor a pipeline from loadFeatureExtractor
 * @param {string[]} texts
 * @returns {Promise<{ data: Float32Array, dims: number }>} row-major `texts.length x dims`
 */
export async function embedBatch(extractor, texts) {
  const inputs = extractor.tokenizer(texts, { padding: true, truncation: true });
  const outputs = await extractor.model(inputs);
  const hidden = outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings;
  try {
    const [batch, seq, dims] = hidden.dims;
    const data = meanPoolNormalize(hidden.data, inputs.attention_mask.data, batch, seq, dims);
    return { data, dims };
  } finally {
    for (const t of [hidden, ...Object.values(inputs)]) if (typeof t?.dispose === 'function') t.dispose();
  }
}

/**
 * Mean pooling over the tokens whose mask is set, then L2 normalisation, per row.
 * @param {Float32Array} hidden `batch x seq x dims`
 * @param {ArrayLike<bigint | number>} mask `batch x seq`
 * @param {number} batch
 * @param {number} seq
 * @param {number} dims
 * @returns {Float32Array} `batch x dims`
 */
export function meanPoolNormalize(hidden, mask, batch, seq, dims) {
  const out = new Float32Array(batch * dims);
  const sums = new Float64Array(dims);
  for (let b = 0; b < batch; b++) {
    sums.fill(0);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (Number(mask[b * seq + t]) === 0) continue;
      count++;
      const at = (b * seq + t) * dims;
      for (let k = 0; k < dims; k++) sums[k] += hidden[at + k];
    }
    const row = b * dims;
    for (let k = 0; k < dims; k++) out[row + k] = sums[k] / count;
    let norm = Math.fround(0);
    for (let k = 0; k < dims; k++) norm = Math.fround(norm + out[row + k] ** 2);
    norm = Math.fround(norm ** 0.5);
    for (let k = 0; k < dims; k++) out[row + k] /= norm;
  }
  return out;
}
