import { join } from 'node:path';
import * as z from 'zod';
import { CaError } from './errors.js';
import { gitignorePatternProblem } from './glob.js';

/** A list of gitignore-style patterns, each checked for syntax (a typo must not pass silently). */
const patternList = () =>
  z
    .array(
      z.string().superRefine((pattern, ctx) => {
        const problem = gitignorePatternProblem(pattern);
        if (problem) ctx.addIssue({ code: 'custom', message: `invalid glob ${JSON.stringify(pattern)}: ${problem.message} at column ${problem.offset + 1}` });
      }),
    )
    .default([]);
import { safeReadText } from './safeRead.js';

const indexingSchema = z
  .object({
    /** Glob patterns (gitignore syntax) a file must match to be indexed; empty = everything. */
    include: patternList(),
    /** Extra patterns to exclude, on top of .gitignore and the built-in excludes. */
    exclude: patternList(),
    /** Patterns re-included even when .gitignore or a built-in exclude drops them. */
    keep: patternList(),
    max_file_bytes: z.number().int().positive().default(1024 * 1024),
    /** Per-file parse deadline in milliseconds. */
    parse_timeout_ms: z.number().int().positive().default(5000),
    /** Parser worker threads; 0 = parse on the main thread. */
    workers: z.number().int().min(0).max(64).default(2),
    /** Files per write transaction. */
    batch_files: z.number().int().positive().default(200),
    safe_mode: z.boolean().default(true),
    /** Index files named like secrets (`.env`, `*.pem`, `id_rsa` … — `isSecretPath`); off by default. */
    index_secrets: z.boolean().default(false),
    /** Patterns (gitignore syntax) of secret-named files that are not secrets and may be indexed (`config/.env.ts`). */
    secret_allow: z.array(z.string().min(1).refine((p) => !p.includes('\0'), 'a pattern cannot hold a NUL character')).default([]),
    allow_nuget_restore: z.boolean().default(false),
  })
  .strict();

const searchSchema = z
  .object({
    limit: z.number().int().positive().default(10),
    rrf_k: z.number().positive().default(60),
    budget: z.number().int().nonnegative().default(16384),
    /** Candidates taken from each channel before fusion. */
    channel_k: z.number().int().positive().default(50),
  })
  .strict();

/** How the top candidates are ordered (decision 043): fixed weights, or the shipped learned model. */
const rankingSchema = z
  .object({
    model: z.enum(['hand', 'learned']).default('hand'),
  })
  .strict();

const embeddingSchema = z
  .object({
    model: z.string().default('all-MiniLM-L6-v2'),
    model_dir: z.string().nullable().default(null),
    allow_download: z.boolean().default(true),
    batch_size: z.number().int().positive().default(16),
    /** Padded tokens per model call at most (0 = no limit; a text over it is embedded alone). */
    batch_tokens: z.number().int().min(0).default(512),
    /** Model worker threads while indexing (0 = one for a run embedding at most 512 symbols, else two on a machine with two or more cores, else one). */
    workers: z.number().int().min(0).max(16).default(0),
    enabled: z.boolean().default(true),
    /** Extra body windows embedded per symbol after its main text (0 = main text only). */
    max_windows: z.number().int().min(0).max(16).default(2),
    /** Token budget of a symbol's main embedding text, special tokens included (docs/benchmarks.md, "Embedding text size"). */
    text_tokens: z.number().int().min(16).max(512).default(64),
    /** Token budget of each extra body window (header line included). */
    window_tokens: z.number().int().min(16).max(512).default(128),
  })
  .strict();

const semanticSchema = z
  .object({
    enabled: z.boolean().default(true),
    max_old_space_mb: z.number().int().positive().default(2048),
    request_timeout_ms: z.number().int().positive().default(120_000),
    idle_shutdown_ms: z.number().int().positive().default(15 * 60_000),
  })
  .strict();

const graphSchema = z
  .object({
    max_depth: z.number().int().positive().default(20),
    // Most dependents an `impact` answer lists (nearest first; the walk stops there, `truncated`).
    impact_max_nodes: z.number().int().positive().default(1000),
  })
  .strict();

const storeSchema = z
  .object({
    // The team store a `ca index` also publishes to (postgres://user:password@host:port/db); empty:
    // the local index only. `--store` overrides it, CA_STORE_URL sets it from the environment.
    url: z.string().default(''),
  })
  .strict();

export const configSchema = z
  .object({
    indexing: indexingSchema.default(indexingSchema.parse({})),
    search: searchSchema.default(searchSchema.parse({})),
    ranking: rankingSchema.default(rankingSchema.parse({})),
    embedding: embeddingSchema.default(embeddingSchema.parse({})),
    semantic: semanticSchema.default(semanticSchema.parse({})),
    graph: graphSchema.default(graphSchema.parse({})),
    store: storeSchema.default(storeSchema.parse({})),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type ConfigSection = keyof Config;

/** The configuration with every default applied. */
export function defaultConfig(): Config {
  return configSchema.parse({});
}

function coerceEnvValue(raw: string, shape: z.ZodType): unknown {
  const inner = unwrap(shape);
  if (inner instanceof z.ZodNumber) {
    const n = Number(raw);
    return Number.isFinite(n) && raw.trim() !== '' ? n : raw;
  }
  if (inner instanceof z.ZodBoolean) {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return raw;
  }
  if (inner instanceof z.ZodArray) {
    if (raw.trim().startsWith('[')) {
      try {
        return JSON.parse(raw);
      } catch {
        // Not JSON: the raw text is handed to the schema, whose validation names the bad setting.
        return raw;
      }
    }
    return raw.split(',').map((s) => s.trim()).filter(Boolean);
  }
  return raw;
}

function unwrap(t: z.ZodType): z.ZodType {
  let cur: z.ZodType = t;
  for (let i = 0; i < 5; i++) {
    if (cur instanceof z.ZodDefault || cur instanceof z.ZodNullable || cur instanceof z.ZodOptional) {
      cur = (cur as unknown as { unwrap(): z.ZodType }).unwrap();
    } else break;
  }
  return cur;
}

function sectionShape(section: string): Record<string, z.ZodType> | null {
  const s = (configSchema.shape as Record<string, z.ZodType>)[section];
  if (!s) return null;
  const obj = unwrap(s);
  return obj instanceof z.ZodObject ? (obj.shape as Record<string, z.ZodType>) : null;
}

/**
 * Reads `CA_<SECTION>_<KEY>` variables (e.g. `CA_EMBEDDING_MODEL_DIR`, `CA_INDEXING_WORKERS`).
 * Unknown variables with a known section are an error, so typos do not pass silently.
 */
export function envOverrides(env: Record<string, string | undefined>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(env)) {
    // An empty variable counts as unset (`CA_SEARCH_LIMIT= ca search …`).
    if (value === undefined || value === '' || !name.startsWith('CA_')) continue;
    const rest = name.slice(3).toLowerCase();
    const sep = rest.indexOf('_');
    if (sep <= 0) continue;
    const section = rest.slice(0, sep);
    const key = rest.slice(sep + 1);
    const shape = sectionShape(section);
    if (!shape) continue; // CA_ variables of other tools or future sections are ignored.
    const field = shape[key];
    if (!field) {
      throw new CaError('config_invalid', `unknown configuration variable ${name} (section "${section}" has no key "${key}")`);
    }
    (out[section] ??= {})[key] = coerceEnvValue(value, field);
  }
  return out;
}

function mergeSections(
  base: Record<string, unknown>,
  over: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [section, values] of Object.entries(over)) {
    const cur = merged[section];
    merged[section] = { ...(typeof cur === 'object' && cur !== null ? cur : {}), ...values };
  }
  return merged;
}

/** Validates a raw config object (file contents merged with overrides) into a Config. */
export function parseConfig(raw: unknown, source = 'configuration'): Config {
  const result = configSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue ? issue.path.join('.') : '';
    throw new CaError('config_invalid', `${source}: ${where ? `${where}: ` : ''}${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

export const CONFIG_DIR = '.codeagent';
export const CONFIG_FILE = 'config.json';
/** The largest configuration file (or .gitignore, package.json …) read as text: 1 MiB. */
export const CONFIG_READ_MAX_BYTES = 1 << 20;

/**
 * Loads `<repo>/.codeagent/config.json` (optional), applies `CA_<SECTION>_<KEY>` env
 * overrides, then programmatic overrides, and validates the result.
 */
export function loadConfig(
  repoRoot: string,
  options: { env?: Record<string, string | undefined>; overrides?: Record<string, Record<string, unknown>> } = {},
): Config {
  const file = join(repoRoot, CONFIG_DIR, CONFIG_FILE);
  let fromFile: Record<string, unknown> = {};
  let text: string | null = null;
  // The repository may be hostile: a FIFO or a link to /dev/zero here must not hang or fill memory.
  const read = safeReadText(file, { root: repoRoot, maxBytes: CONFIG_READ_MAX_BYTES });
  if (read.ok) text = read.text;
  else if (read.refusal !== 'missing') {
    throw new CaError('config_invalid', `cannot read ${file}: ${read.reason}`, { context: { path: file, refusal: read.refusal } });
  }
  if (text !== null) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new Error('the top level must be an object');
      }
      fromFile = parsed as Record<string, unknown>;
    } catch (e) {
      throw new CaError('config_invalid', `${file}: ${(e as Error).message}`, { cause: e, context: { path: file } });
    }
  }
  const withEnv = mergeSections(fromFile, envOverrides(options.env ?? process.env));
  const all = mergeSections(withEnv, options.overrides ?? {});
  return parseConfig(all, text !== null ? file : 'configuration');
}
