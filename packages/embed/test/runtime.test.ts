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
