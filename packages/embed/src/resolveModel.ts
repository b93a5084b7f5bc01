import { statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { Config } from '@ca/schema';

/** Where a usable model was found. */
export type ModelSource = 'env' | 'config' | 'cache' | 'download';

/** A model folder that holds every required file. */
export interface ResolvedModel {
  readonly ok: true;
  /** Folder holding model folders (transformers.js `localModelPath`); the model is `<dir>/<modelId>`. */
  readonly dir: string;
  readonly modelId: string;
  readonly source: ModelSource;
}

/** No usable model: `reason` says what was tried and what is missing. */
export interface UnresolvedModel {
  readonly ok: false;
  readonly reason: string;
}

export type ModelResolution = ResolvedModel | UnresolvedModel;

/** Files a model folder must hold (relative to the model folder). */
export const REQUIRED_MODEL_FILES = ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'] as const;

/** Optional files fetched by a download when the hub has them. */
const OPTIONAL_MODEL_FILES = ['tokenizer_config.json', 'special_tokens_map.json'] as const;

/** Default deadline of the first download request: the hub answers in well under a second when reachable. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 5000;

export interface ResolveModelOptions {
  /** User model cache; default `$XDG_CACHE_HOME/codeagent/models` or `~/.cache/codeagent/models`. */
  readonly cacheDir?: string;
  /** Injected for tests; default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Deadline of each small request (config/tokenizer files); the weights get 60x this. */
  readonly downloadTimeoutMs?: number;
  /** Hub base URL; default `$HF_ENDPOINT` or https://huggingface.co. */
  readonly hubUrl?: string;
  /** After a failed download, how long the same model is not requested again; default `DOWNLOAD_RETRY_MS`. */
  readonly retryAfterMs?: number;
  /** Injected for tests; default `Date.now`. */
  readonly now?: () => number;
}

/**
 * After a failed download, the same model is not requested again for this long (per process): a
 * long-lived engine (`ca watch`, the MCP server) resolves the model on every index run, and an
 * offline laptop would otherwise wait for the network, up to the request deadline, on each one.
 */
export const DOWNLOAD_RETRY_MS = 10 * 60_000;

const failedDownloads = new Map<string, { at: number; failure: string }>();

/** The per-user model cache folder. */
export function defaultModelCacheDir(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'codeagent', 'models');
}

/**
 * Checks `<dir>/<modelId>` for the required files. Returns null when complete, otherwise the
 * precise problem (`model folder … does not exist` / `… is missing a, b`).
 */
export function checkModelFolder(dir: string, modelId: string): string | null {
  const folder = join(dir, modelId);
  if (!isDirectory(folder)) return `model folder ${folder} does not exist`;
  const missing = REQUIRED_MODEL_FILES.filter((f) => !isFile(join(folder, f)));
  return missing.length === 0 ? null : `model folder ${folder} is missing ${missing.join(', ')}`;
}

/**
 * Finds the embedding model. Order: `CA_EMBEDDING_MODEL_DIR`, then `config.model_dir`, then the
 * user cache, then a download into the cache (only when `allow_download` is true). An explicit
 * folder (env or config) that lacks the model is an error, not a silent fall-through: the user
 * pointed there, so a typo must surface. Never throws; never hangs (downloads have deadlines).
 */
export async function resolveModel(
  config: Config['embedding'],
  env: Record<string, string | undefined> = process.env,
  options: ResolveModelOptions = {},
): Promise<ModelResolution> {
  const modelId = config.model;
  const badId = checkModelId(modelId);
  if (badId) return { ok: false, reason: badId };

  const envDir = env.CA_EMBEDDING_MODEL_DIR?.trim();
  if (envDir) return explicit(envDir, modelId, 'env', `CA_EMBEDDING_MODEL_DIR=${envDir}`);
  if (config.model_dir) return explicit(config.model_dir, modelId, 'config', `embedding.model_dir=${config.model_dir}`);

  const cacheDir = resolve(options.cacheDir ?? defaultModelCacheDir(env));
  const cacheProblem = checkModelFolder(cacheDir, modelId);
  if (!cacheProblem) return { ok: true, dir: cacheDir, modelId, source: 'cache' };

  const hint = `set CA_EMBEDDING_MODEL_DIR (or embedding.model_dir) to a folder holding ${modelId}/`;
  if (!config.allow_download) {
    return {
      ok: false,
      reason: `embedding model "${modelId}" not found: ${cacheProblem}; download disabled (embedding.allow_download=false); ${hint}`,
    };
  }
  const failure = await downloadOnce(modelId, cacheDir, env, options);
  if (failure) return { ok: false, reason: `embedding model "${modelId}" not found: ${cacheProblem}; ${failure}; ${hint}` };
  const after = checkModelFolder(cacheDir, modelId);
  if (after) return { ok: false, reason: `embedding model "${modelId}": download incomplete: ${after}` };
  return { ok: true, dir: cacheDir, modelId, source: 'download' };
}

function explicit(rawDir: string, modelId: string, source: 'env' | 'config', label: string): ModelResolution {
  const dir = resolve(rawDir);
  const problem = checkModelFolder(dir, modelId);
  if (!problem) return { ok: true, dir, modelId, source };
  // Also accept the model folder itself (`…/models/all-MiniLM-L6-v2`), a common way to set it.
  if (!modelId.includes('/') && basename(dir) === modelId && checkModelFolder(dirname(dir), modelId) === null) {
    return { ok: true, dir: dirname(dir), modelId, source };
  }
  return { ok: false, reason: `${label}: ${problem}` };
}

function checkModelId(modelId: string): string | null {
  const parts = modelId.split('/');
  if (modelId === '' || isAbsolute(modelId) || modelId.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    return `invalid embedding model id "${modelId}" (expected a name like all-MiniLM-L6-v2 or owner/name)`;
  }
  return null;
}

/** Hub repository of a model id: bare names map to Xenova's transformers.js exports. */
export function hubRepoOf(modelId: string): string {
  return modelId.includes('/') ? modelId : `Xenova/${modelId}`;
}

function hubOf(env: Record<string, string | undefined>, options: ResolveModelOptions): string {
  return (options.hubUrl ?? env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, '');
}

/** `download`, unless the same download failed less than `retryAfterMs` ago: then that failure. */
async function downloadOnce(
  modelId: string,
  cacheDir: string,
  env: Record<string, string | undefined>,
  options: ResolveModelOptions,
): Promise<string | null> {
  const key = `${hubOf(env, options)}|${modelId}|${cacheDir}`;
  const now = (options.now ?? Date.now)();
  const retryAfterMs = options.retryAfterMs ?? DOWNLOAD_RETRY_MS;
  const previous = failedDownloads.get(key);
  if (previous && now - previous.at < retryAfterMs) {
    return `${previous.failure}; not retried before ${new Date(previous.at + retryAfterMs).toISOString().slice(11, 19)} UTC`;
  }
  const failure = await download(modelId, cacheDir, env, options);
  if (failure) failedDownloads.set(key, { at: now, failure });
  else failedDownloads.delete(key);
  return failure;
}

/**
 * Downloads the model files into `<cacheDir>/<modelId>` through a temporary folder renamed at
 * the end, so an interrupted download never looks complete. Returns null or a failure reason.
 */
async function download(
  modelId: string,
  cacheDir: string,
  env: Record<string, string | undefined>,
  options: ResolveModelOptions,
): Promise<string | null> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS;
  const hub = hubOf(env, options);
  const repo = hubRepoOf(modelId);
  const target = join(cacheDir, modelId);
  const tmp = `${target}.partial-${process.pid}-${Date.now()}`;
  const files: { name: string; required: boolean }[] = [
    ...REQUIRED_MODEL_FILES.map((name) => ({ name, required: true })),
    ...OPTIONAL_MODEL_FILES.map((name) => ({ name, required: false })),
  ];
  try {
    for (const { name, required } of files) {
      const url = `${hub}/${repo}/resolve/main/${name}`;
      // The weights are ~23 MB: give them a longer deadline, the small files a short one.
      const deadline = name.endsWith('.onnx') ? timeoutMs * 60 : timeoutMs;
      let res: Response;
      try {
        res = await doFetch(url, { signal: AbortSignal.timeout(deadline), redirect: 'follow' });
      } catch (e) {
        const err = e as Error;
        const why = err.name === 'TimeoutError' || err.name === 'AbortError' ? `timed out after ${deadline} ms` : describe(err);
        return `download from ${hub} failed (${url}: ${why})`;
      }
      if (!res.ok) {
        if (!required && res.status === 404) continue;
        return `download from ${hub} failed (${url}: HTTP ${res.status})`;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const file = join(tmp, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, bytes);
    }
    await mkdir(dirname(target), { recursive: true });
    await rm(target, { recursive: true, force: true });
    await rename(tmp, target);
    return null;
  } catch (e) {
    return `download from ${hub} failed (${describe(e as Error)})`;
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

function describe(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  const causeMsg = cause instanceof Error ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : '';
  return `${err.message}${causeMsg}`;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    // A missing or unreadable path is simply not a model directory; the caller tries the next candidate.
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    // A missing or unreadable path is simply not a model file; the caller reports the model as unavailable.
    return false;
  }
}
