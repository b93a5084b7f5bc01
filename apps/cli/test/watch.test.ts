import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport } from '@ca/engine';
import { watchRepository } from '../src/watch.js';
import { watchChild, type WatchLine } from './helpers.js';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_')));

describe('ca watch', () => {
  let repo: string;
  let child: ChildProcess;
  let line: (n: number) => Promise<WatchLine>;

  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-watch-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    ({ child, line } = watchChild(repo, ENV, 60_000));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(resolve(repo, '..'), { recursive: true, force: true });
  });

  it('indexes, then re-indexes each change while other commands read the index', async () => {
    // fixtures/ts-app: 13 code files + README.md, package.json, tsconfig.json (decision 039) = 16 files.
    expect(await line(1)).toMatchObject({ event: 'indexed', files: 16, changed: 16, removed: 0 });
    writeFileSync(join(repo, 'src/watched.ts'), 'export function watchedFunction(): number {\n  return 1;\n}\n');
    expect(await line(2)).toMatchObject({ event: 'updated', files: 17, changed: 1, removed: 0 });
    const sym = spawnSync(process.execPath, [BIN, 'symbol', 'watchedFunction', '--repo', repo, '--json'], { env: ENV, encoding: 'utf8' });
    expect(sym.status).toBe(0);
    expect(JSON.parse(sym.stdout).symbols.map((s: { qualifiedName: string; path: string }) => [s.qualifiedName, s.path])).toEqual([
      ['watchedFunction', 'src/watched.ts'],
    ]);
    rmSync(join(repo, 'src/watched.ts'));
    expect(await line(3)).toMatchObject({ event: 'updated', files: 16, changed: 0, removed: 1 });
  }, 120_000);

  it('stops on SIGINT with exit code 0', async () => {
    const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);
});

const MODELS = process.env['CA_EMBEDDING_MODEL_DIR'] ?? '';
const MODEL_MISSING = existsSync(join(MODELS, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'))
  ? null
  : `embedding model all-MiniLM-L6-v2 not found in CA_EMBEDDING_MODEL_DIR="${MODELS}"`;
if (MODEL_MISSING && process.env['CA_REQUIRE_MODEL'] === '1') throw new Error(MODEL_MISSING);
if (MODEL_MISSING) console.warn(`SKIPPED: the watch tests that embed: ${MODEL_MISSING}`);

describe.skipIf(MODEL_MISSING !== null)('ca watch with the embedding model: vectors behind the runs', () => {
  const open = () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'ca-watch-vec-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } } });
    return { engine, remove: () => rmSync(resolve(repo, '..'), { recursive: true, force: true }) };
  };
  const quiet = { debounceMs: 50, printError: (e: unknown) => { throw e; } };

  it('the first run embeds one slice; the rest follow in slices until every symbol has its vector', async () => {
    const { engine, remove } = open();
    const reports: IndexReport[] = [];
    let release!: () => void;
    const stop = new Promise<void>((r) => (release = r));
    try {
      const watching = watchRepository(engine, { ...quiet, embedSlice: 40, stop, print: (r) => reports.push(r) });
      // fixtures/ts-app: 92 nodes to embed (the 11 nodes of its 3 documentation files get no
      // vectors, decision 039); the run embeds 40 and reports the other 52 pending, of 16 changed files.
      for (let i = 0; i < 600 && engine.reader().metadata('vectors_pending') !== '0'; i++) await new Promise((r) => setTimeout(r, 100));
      release();
      await watching;
      expect(reports.map((r) => [r.changed, r.embeddings?.nodes, r.embeddings?.pending])).toEqual([[16, 40, 52]]);
      expect(engine.status().vectorChannel).toMatch(/^on: all-MiniLM-L6-v2 \(384 dims\), \d+ vectors$/);
    } finally {
      await engine.dispose();
      remove();
    }
  }, 180_000);

  it('stopping does not wait for the rest of the vectors', async () => {
    const { engine, remove } = open();
    let release!: () => void;
    const stop = new Promise<void>((r) => (release = r));
    try {
      const watching = watchRepository(engine, { ...quiet, embedSlice: 1, stop, print: () => release() });
      await watching;
      // One run, then slices of one symbol until the stop was seen: most are still pending.
      expect(Number(engine.reader().metadata('vectors_pending'))).toBeGreaterThan(40);
    } finally {
      await engine.dispose();
      remove();
    }
  }, 180_000);
});

describe('ca watch --json: a failed run', () => {
  it('is one JSON line on stdout (the stream stays one object per line), its message on stderr', async () => {
    const { watchErrorLine } = await import('../src/output.js');
    const { CaError } = await import('@ca/schema');
    const line = watchErrorLine(new CaError('io_error', 'cannot write the index: disk full\nat writeBatch'));
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1).includes('\n')).toBe(false);
    expect(JSON.parse(line)).toEqual({ event: 'error', error: { code: 'io_error', message: 'cannot write the index: disk full\nat writeBatch' } });
  });
});
