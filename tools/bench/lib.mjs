// Shared helpers of the benchmark suite (tools/bench): paths, statistics, corpora, child stages.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(BENCH_DIR, '../..');
export const OUT_DIR = join(ROOT, 'bench-out');
/** The built CLI, run as a user runs it. */
export const CLI = join(ROOT, 'apps/cli/dist/main.js');

/** The CLI's own SQLite driver (tools/ has no dependencies of its own), for reading an index directly. */
export function sqliteDriver() {
  return createRequire(join(ROOT, 'apps/cli/package.json'))('better-sqlite3');
}
export const CACHE_DIR = join(OUT_DIR, 'cache');

const require = createRequire(import.meta.url);

/** Built packages (the suite runs on dist/, like the CLI: `pnpm --filter @ca/cli... build` first). */
export async function importDist(pkg) {
  const file = join(ROOT, 'packages', pkg, 'dist', 'index.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`pnpm --filter @ca/cli... build\` first`);
  return import(file);
}

/** The model folder: CA_EMBEDDING_MODEL_DIR, else ../shared/models beside the repository (CI layout). */
export function modelDir() {
  return process.env.CA_EMBEDDING_MODEL_DIR ?? resolve(ROOT, '../shared/models');
}

export function benchEnv() {
  return { ...process.env, CA_EMBEDDING_MODEL_DIR: modelDir() };
}

export const median = (xs) => percentile(xs, 50);

/** Nearest-rank percentile (p95 of 50 samples is the 48th smallest). */
export function percentile(xs, p) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export const round = (x, digits = 0) => (x === null || x === undefined ? null : Math.round(x * 10 ** digits) / 10 ** digits);

/** Deterministic PRNG (mulberry32): synthetic data is identical on every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function typescriptLibDir() {
  const pkg = require.resolve('typescript/package.json', { paths: [join(ROOT, 'packages/parse-ts')] });
  return join(dirname(pkg), 'lib');
}

export function machineInfo() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) model = m[1].trim();
  } catch {
    // Not Linux: os.cpus() is the best we have.
  }
  let load = null;
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    // No /proc/loadavg (not Linux): the report shows no load average.
  }
  return { cores: cpus().length, cpu: model, ramGiB: round(totalmem() / 2 ** 30, 1), node: process.version, platform: `${process.platform}-${process.arch}`, loadAvg: load };
}

export function loadAvg() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    // No /proc/loadavg (not Linux): the report shows no load average.
    return null;
  }
}

/** A fresh temporary folder under the system temp dir. */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `ca-bench-${prefix}-`));
}

const FIXTURES = ['ts-app', 'ts-monorepo', 'cs-solution'];
const LITE_LIB = (f) => f.startsWith('lib.') && f.endsWith('.d.ts') && !/^lib\.(dom|webworker)/.test(f);

/**
 * The default corpora, built from files every checkout has:
 * - `tslib`: TypeScript's lib/*.d.ts copied twice under different folders (≈174K lines),
 *   the same corpus as tools/bench-index.mjs (syntactic throughput);
 * - `lite`: the repository's fixtures (TS app, TS monorepo, C# solution) plus lib/*.d.ts without
 *   the DOM and web-worker declarations and typescript.d.ts (≈16K lines), small enough to run
 *   the semantic passes and embed every symbol in a couple of minutes.
 */
export function buildDefaultCorpora(root) {
  const lib = typescriptLibDir();
  const tslib = join(root, 'tslib');
  for (const copy of ['a', 'b']) {
    mkdirSync(join(tslib, copy), { recursive: true });
    for (const f of readdirSync(lib)) if (f.endsWith('.d.ts')) cpSync(join(lib, f), join(tslib, copy, f));
  }
  const lite = join(root, 'lite');
  mkdirSync(join(lite, 'tslib'), { recursive: true });
  for (const f of readdirSync(lib)) if (LITE_LIB(f)) cpSync(join(lib, f), join(lite, 'tslib', f));
  for (const f of FIXTURES) cpSync(join(ROOT, 'fixtures', f), join(lite, 'fixtures', f), { recursive: true });
  return { tslib, lite };
}

/** Copies a repository without .git, node_modules and index folders (the update stage edits the copy). */
export function copyRepo(src, dest) {
  const skip = new Set(['.git', 'node_modules', '.codeagent']);
  cpSync(src, dest, {
    recursive: true,
    filter: (p) => !skip.has(p.slice(p.lastIndexOf('/') + 1)),
  });
  return dest;
}

export function dirLines(dir) {
  let lines = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (statSync(p).size < 2_000_000) lines += readFileSync(p, 'utf8').split('\n').length;
    }
  };
  walk(dir);
  return lines;
}

const TIME = '/usr/bin/time';

/**
 * Runs one stage in its own Node process (`stage.mjs NAME ARGS`), so each stage has its own
 * peak RSS and no JIT or cache state carries over. Under GNU time, the peak also covers the
 * stage's own child processes (TS semantic worker, roslyn-host): wait4 reports the largest
 * single peak among the process and its reaped descendants (a maximum, not a sum of processes
 * alive at the same time). Resolves with the stage's JSON result.
 */
export function runStage(name, args, { timeoutMs = 30 * 60_000, log = true } = {}) {
  const out = join(tempDir('stage'), 'result.json');
  const rssFile = `${out}.rss`;
  const node = [process.execPath, '--expose-gc', join(BENCH_DIR, 'stage.mjs'), name, JSON.stringify(args), out];
  const useTime = existsSync(TIME) && process.platform === 'linux';
  const [cmd, ...argv] = useTime ? [TIME, '-f', '%M', '-o', rssFile, ...node] : node;
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: benchEnv() });
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    let stderr = '';
    child.stdout.on('data', (d) => log && process.stderr.write(`  │ ${d.toString().trimEnd().split('\n').join('\n  │ ')}\n`));
    child.stderr.on('data', (d) => {
      stderr += d.toString();
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (code !== 0 || !existsSync(out)) {
        reject(new Error(`stage ${name} failed (exit ${code}):\n${stderr.slice(-4000)}`));
        return;
      }
      const result = JSON.parse(readFileSync(out, 'utf8'));
      let treePeakMiB = null;
      if (useTime && existsSync(rssFile)) {
        const kb = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
        if (Number.isFinite(kb)) treePeakMiB = Math.round(kb / 1024);
      }
      rmSync(dirname(out), { recursive: true, force: true });
      resolvePromise({ ...result, stageWallMs: Math.round(wallMs), peakRssMiB: treePeakMiB ?? result.selfPeakRssMiB });
    });
  });
}

/** Peak RSS of this process so far (MiB). */
export function selfPeakRssMiB() {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
