import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEmbedder, createWorkerEmbedder } from '../src/index.js';
import { MODEL_ID, MODEL_MISSING, MODELS_DIR } from './helpers.js';

const RUNNER_URL = new URL('../runtime/modelRunner.mjs', import.meta.url).href;

describe('runtime', () => {
  it.skipIf(MODEL_MISSING !== null)('loading and running the model prints nothing to stdout', () => {
    const code = `
      const { loadFeatureExtractor, embedBatch } = await import(${JSON.stringify(RUNNER_URL)});
      const x = await loadFeatureExtractor(${JSON.stringify(MODELS_DIR)}, ${JSON.stringify(MODEL_ID)});
      const { data, dims } = await embedBatch(x, ['hello world', 'open a database connection pool']);
      await x.dispose();
      process.stderr.write('vectors ' + data.length / dims + 'x' + dims);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('vectors 2x384');
  }, 60_000);

  it.skipIf(MODEL_MISSING !== null)('a model folder with broken weights fails with model_unavailable (worker and in-process)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-embed-broken-'));
    try {
      const folder = join(dir, MODEL_ID);
      mkdirSync(join(folder, 'onnx'), { recursive: true });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
        copyFileSync(join(MODELS_DIR, MODEL_ID, f), join(folder, f));
      }
      writeFileSync(join(folder, 'onnx', 'model_quantized.onnx'), 'not an onnx graph');
      const resolution = { ok: true, dir, modelId: MODEL_ID, source: 'config' } as const;
      const why = expect.stringMatching(new RegExp(`^cannot load embedding model ${MODEL_ID} from ${dir}: `));
      await expect(createWorkerEmbedder(resolution)).rejects.toMatchObject({ code: 'model_unavailable', message: why });
      await expect(createEmbedder(resolution)).rejects.toMatchObject({ code: 'model_unavailable', message: why });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('embedBatch pooling', () => {
  it('averages the unmasked tokens of each row and L2-normalises it (padding ignored)', async () => {
    const { meanPoolNormalize } = await import('../runtime/modelRunner.mjs');
    // 2 rows × 3 tokens × 2 dims; row 0 keeps tokens 0–1 (mean (2, 4)), row 1 keeps token 0 (0, -5).
    const hidden = new Float32Array([1, 2, 3, 6, 100, 100, 0, -5, 7, 7, 9, 9]);
    const mask = new BigInt64Array([1n, 1n, 0n, 1n, 0n, 0n]);
    const out = meanPoolNormalize(hidden, mask, 2, 3, 2);
    expect([...out]).toEqual([Math.fround(2 / Math.fround(Math.sqrt(20))), Math.fround(4 / Math.fround(Math.sqrt(20))), 0, -1]);
  });

  it.skipIf(MODEL_MISSING !== null)('gives the feature-extraction pipeline’s vectors bit for bit', () => {
    // In a child process: the pipeline's own mean pooling and normalisation against ours, on
    // texts of different lengths (so rows are padded).
    const code = `
      const { loadFeatureExtractor, embedBatch } = await import(${JSON.stringify(RUNNER_URL)});
      const x = await loadFeatureExtractor(${JSON.stringify(MODELS_DIR)}, ${JSON.stringify(MODEL_ID)});
      const texts = ['hello', 'open a database connection pool and retry on failure', 'ts src/auth.ts AuthService > authenticate(user: User): Promise<Token>'];
      const ours = await embedBatch(x, texts);
      const theirs = await x(texts, { pooling: 'mean', normalize: true });
      await x.dispose();
      const same = ours.data.length === theirs.data.length && ours.data.every((v, i) => Object.is(v, theirs.data[i]));
      process.stderr.write(JSON.stringify({ same, n: ours.data.length, dims: ours.dims }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stderr)).toEqual({ same: true, n: 3 * 384, dims: 384 });
  }, 60_000);
});
