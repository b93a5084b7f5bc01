import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '@ca/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { checkModelFolder, defaultModelCacheDir, hubRepoOf, resolveModel } from '../src/index.js';
import { MODEL_ID, MODEL_MISSING, MODELS_DIR } from './helpers.js';

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'ca-embed-'));
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

const noDownload = { ...defaultConfig().embedding, allow_download: false };
/** A fetch that records calls and must never be reached. */
function spyFetch(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fetch: (async (url: string | URL | Request) => {
      calls.push(String(url));
      throw new TypeError('fetch failed');
    }) as typeof fetch,
  };
}

describe('resolveModel', () => {
  it.skipIf(MODEL_MISSING !== null)('CA_EMBEDDING_MODEL_DIR wins over config.model_dir and the cache', async () => {
    const cache = tempDir();
    symlinkSync(join(MODELS_DIR, MODEL_ID), join(cache, MODEL_ID));
    const res = await resolveModel(
      { ...noDownload, model_dir: tempDir() },
      { CA_EMBEDDING_MODEL_DIR: MODELS_DIR },
      { cacheDir: cache },
    );
    expect(res).toEqual({ ok: true, dir: MODELS_DIR, modelId: MODEL_ID, source: 'env' });
  });

  it.skipIf(MODEL_MISSING !== null)('config.model_dir is used when the env variable is unset', async () => {
    const res = await resolveModel({ ...noDownload, model_dir: MODELS_DIR }, {}, { cacheDir: tempDir() });
    expect(res).toEqual({ ok: true, dir: MODELS_DIR, modelId: MODEL_ID, source: 'config' });
  });

  it.skipIf(MODEL_MISSING !== null)('accepts the model folder itself as the directory', async () => {
    const res = await resolveModel(noDownload, { CA_EMBEDDING_MODEL_DIR: join(MODELS_DIR, MODEL_ID) });
    expect(res).toEqual({ ok: true, dir: MODELS_DIR, modelId: MODEL_ID, source: 'env' });
  });

  it('names the exact missing files of an explicit folder', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, MODEL_ID, 'onnx'), { recursive: true });
    writeFileSync(join(dir, MODEL_ID, 'config.json'), '{}');
    const res = await resolveModel(noDownload, { CA_EMBEDDING_MODEL_DIR: dir });
    expect(res).toEqual({
      ok: false,
      reason: `CA_EMBEDDING_MODEL_DIR=${dir}: model folder ${join(dir, MODEL_ID)} is missing tokenizer.json, onnx/model_quantized.onnx`,
    });
    expect(checkModelFolder(join(dir, 'nowhere'), MODEL_ID)).toBe(`model folder ${join(dir, 'nowhere', MODEL_ID)} does not exist`);
  });

  it('an explicit config folder without the model is an error, not a fall-through to the cache', async () => {
    const cache = tempDir();
    symlinkSync(join(MODELS_DIR, MODEL_ID), join(cache, MODEL_ID));
    const empty = tempDir();
    const res = await resolveModel({ ...noDownload, model_dir: empty }, {}, { cacheDir: cache });
    expect(res).toEqual({
      ok: false,
      reason: `embedding.model_dir=${empty}: model folder ${join(empty, MODEL_ID)} does not exist`,
    });
  });

  it.skipIf(MODEL_MISSING !== null)('uses the user cache when no folder is configured', async () => {
    const cache = tempDir();
    symlinkSync(join(MODELS_DIR, MODEL_ID), join(cache, MODEL_ID));
    const spy = spyFetch();
    const res = await resolveModel(noDownload, {}, { cacheDir: cache, fetch: spy.fetch });
    expect(res).toEqual({ ok: true, dir: cache, modelId: MODEL_ID, source: 'cache' });
    expect(spy.calls).toEqual([]);
  });

  it('no model and allow_download=false: ok:false with the reason, and no network attempt', async () => {
    const cache = tempDir();
    const spy = spyFetch();
    const res = await resolveModel(noDownload, {}, { cacheDir: cache, fetch: spy.fetch });
    expect(res).toEqual({
      ok: false,
      reason:
        `embedding model "all-MiniLM-L6-v2" not found: model folder ${join(cache, MODEL_ID)} does not exist; ` +
        'download disabled (embedding.allow_download=false); ' +
        'set CA_EMBEDDING_MODEL_DIR (or embedding.model_dir) to a folder holding all-MiniLM-L6-v2/',
    });
    expect(spy.calls).toEqual([]);
  });

  it('a failing download gives a clear reason after one request', async () => {
    const cache = tempDir();
    const spy = spyFetch();
    const res = await resolveModel({ ...noDownload, allow_download: true }, {}, { cacheDir: cache, fetch: spy.fetch, hubUrl: 'https://hub.invalid' });
    expect(spy.calls).toEqual(['https://hub.invalid/Xenova/all-MiniLM-L6-v2/resolve/main/config.json']);
    expect(res).toEqual({
      ok: false,
      reason:
        `embedding model "all-MiniLM-L6-v2" not found: model folder ${join(cache, MODEL_ID)} does not exist; ` +
        'download from https://hub.invalid failed (https://hub.invalid/Xenova/all-MiniLM-L6-v2/resolve/main/config.json: fetch failed); ' +
        'set CA_EMBEDDING_MODEL_DIR (or embedding.model_dir) to a folder holding all-MiniLM-L6-v2/',
    });
  });

  it('a failed download is not retried for a while: a long-lived engine does not wait for the network on every index', async () => {
    const cache = tempDir();
    const spy = spyFetch();
    let now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const options = { cacheDir: cache, fetch: spy.fetch, hubUrl: 'https://hub.invalid', retryAfterMs: 600_000, now: () => now };
    const config = { ...noDownload, allow_download: true };
    const first = await resolveModel(config, {}, options);
    now += 599_000;
    const second = await resolveModel(config, {}, options);
    expect(spy.calls.length).toBe(1);
    expect(!second.ok && second.reason).toBe(
      `embedding model "all-MiniLM-L6-v2" not found: model folder ${join(cache, MODEL_ID)} does not exist; ` +
        'download from https://hub.invalid failed (https://hub.invalid/Xenova/all-MiniLM-L6-v2/resolve/main/config.json: fetch failed); ' +
        'not retried before 12:10:00 UTC; set CA_EMBEDDING_MODEL_DIR (or embedding.model_dir) to a folder holding all-MiniLM-L6-v2/',
    );
    expect(first.ok).toBe(false);
    // Once the time is up, the next resolution asks the hub again.
    now += 1_000;
    await resolveModel(config, {}, options);
    expect(spy.calls.length).toBe(2);
  });

  it('a hub that never answers times out instead of hanging', async () => {
    const cache = tempDir();
    const hanging = ((_url: string, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
      })) as typeof fetch;
    const res = await resolveModel(
      { ...noDownload, allow_download: true },
      {},
      { cacheDir: cache, fetch: hanging, hubUrl: 'https://hub.invalid', downloadTimeoutMs: 50 },
    );
    expect(res.ok).toBe(false);
    expect(!res.ok && res.reason).toContain('(https://hub.invalid/Xenova/all-MiniLM-L6-v2/resolve/main/config.json: timed out after 50 ms)');
  });

  it('a successful download lands in the cache atomically', async () => {
    const cache = tempDir();
    const served: string[] = [];
    const fakeHub = (async (url: string | URL | Request) => {
      const name = String(url).replace('https://hub.test/owner/tiny/resolve/main/', '');
      served.push(name);
      if (name === 'special_tokens_map.json') return new Response('nope', { status: 404 });
      return new Response(`contents of ${name}`, { status: 200 });
    }) as typeof fetch;
    const res = await resolveModel(
      { ...noDownload, model: 'owner/tiny', allow_download: true },
      {},
      { cacheDir: cache, fetch: fakeHub, hubUrl: 'https://hub.test/' },
    );
    expect(res).toEqual({ ok: true, dir: cache, modelId: 'owner/tiny', source: 'download' });
    expect(served).toEqual(['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx', 'tokenizer_config.json', 'special_tokens_map.json']);
    expect(checkModelFolder(cache, 'owner/tiny')).toBe(null);
  });

  it('rejects model ids that would escape the folder', async () => {
    const res = await resolveModel({ ...noDownload, model: '../etc' }, { CA_EMBEDDING_MODEL_DIR: MODELS_DIR });
    expect(res).toEqual({ ok: false, reason: 'invalid embedding model id "../etc" (expected a name like all-MiniLM-L6-v2 or owner/name)' });
  });

  it('derives the cache folder and hub repository', () => {
    expect(defaultModelCacheDir({ XDG_CACHE_HOME: '/var/cache/u' })).toBe('/var/cache/u/codeagent/models');
    expect(hubRepoOf('all-MiniLM-L6-v2')).toBe('Xenova/all-MiniLM-L6-v2');
    expect(hubRepoOf('owner/model')).toBe('owner/model');
  });
});
