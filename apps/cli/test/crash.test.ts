import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@ca/engine';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');
const MODELS = process.env['CA_EMBEDDING_MODEL_DIR'] ?? resolve(ROOT, '../shared/models');
const HAS_MODEL = existsSync(join(MODELS, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'));
if (!HAS_MODEL && process.env['CA_REQUIRE_MODEL'] === '1') throw new Error(`CA_REQUIRE_MODEL=1 but no model in ${MODELS}`);
if (!HAS_MODEL) console.warn(`crash tests: embedding model not found in ${MODELS}; the embedding kill point is not exercised`);

/** A made-up word per number (4,096 of them), so each generated function's doc is findable alone. */
function word(n: number): string {
  const s = ['ka', 'lo', 'mi', 'nu', 'pe', 'ra', 'si', 'to', 'vu', 'be', 'do', 'fi', 'go', 'ha', 'ju', 'ze'];
  return s[(n >> 8) & 15]! + s[(n >> 4) & 15]! + s[n & 15]!;
}

/**
 * Deterministic answers to compare: a name or a made-up word only one generated symbol carries
 * (ties would be ordered by node id, which differs between a crashed-and-resumed and a clean
 * run), on the name and BM25 channels (the vector channel's int8 scores move with batch
 * composition). Each tree gets queries whose answers it holds.
 */
const QUERIES = [word(3 * 20 + 4), word(36 * 20 + 9), 'part2_7', 'Service37.run'];
/** The edited tree rewrites files 5-34. */
const EDIT_QUERIES = [...QUERIES, 'edited21_3', word(2000 + 9 * 20 + 2)];
/** The second commit rewrites files 2 and 22. */
const LABEL_QUERIES = [word(3 * 20 + 4), word(36 * 20 + 9), 'part3_7', 'Service37.run', 'moved22'];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
    CA_EMBEDDING_MODEL_DIR: MODELS,
    CA_EMBEDDING_ENABLED: HAS_MODEL ? 'true' : 'false',
    CA_EMBEDDING_ALLOW_DOWNLOAD: 'false',
    // One file per transaction: a kill in the write phase leaves some files written, some not.
    CA_INDEXING_BATCH_FILES: '1',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
    ...extra,
  };
}

function ca(args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: env(extra), timeout: 300_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A repository big enough to have kill points inside every phase: two TS projects that never
 * share a program (one enables experimentalDecorators, decision 015), 40 files of 20 functions
 * each (840 symbols: two embedding rounds of 512).
 */
function generate(root: string): void {
  const pkg = (name: string, options: Record<string, unknown>) => {
    mkdirSync(join(root, name, 'src'), { recursive: true });
    writeFileSync(join(root, name, 'package.json'), JSON.stringify({ name: `@crash/${name}`, version: '1.0.0', main: 'src/index.ts' }));
    writeFileSync(join(root, name, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', ...options }, include: ['src'] }));
  };
  pkg('a', {});
  pkg('b', { experimentalDecorators: true });
  for (let f = 0; f < 40; f++) {
    const name = f < 20 ? 'a' : 'b';
    const lines: string[] = [`import { formatValue } from './f${f === 0 || f === 20 ? f + 1 : f - 1}';`];
    for (let i = 0; i < 20; i++) {
      lines.push(`/** Computes the ${word(f * 20 + i)} total of part ${i} of file ${f}. */`);
      lines.push(`export function part${f}_${i}(input: number): number {\n  return formatValue(input + ${i}).length + ${f};\n}`);
    }
    lines.push(`export function formatValue(value: number): string {\n  return String(value);\n}`);
    lines.push(`export class Service${f} {\n  run(text: string): number {\n    return part${f}_0(text.length);\n  }\n}`);
    writeFileSync(join(root, name, 'src', `f${f}.ts`), `${lines.join('\n')}\n`);
  }
}

/** What a recovered index must equal: counts, semantic state, vectors (assigned and searchable), deterministic answers. */
async function fingerprint(repo: string, db: string, label?: string, queries: readonly string[] = QUERIES) {
  const raw = new BetterSqlite3(db, { readonly: true });
  const integrity = raw.pragma('integrity_check', { simple: true });
  const vectorsAssigned = raw.prepare(`SELECT COUNT(*) FROM node_embeddings`).pluck().get();
  const states = raw
    .prepare(`SELECT f.semantic_state, COUNT(*) AS n FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ? GROUP BY 1 ORDER BY 1`)
    .all(label ?? 'working');
  const edges = raw
    .prepare(`SELECT e.type, e.confidence, COUNT(*) AS n FROM edges e JOIN label_files lf ON lf.file_id = e.file_id JOIN labels l ON l.id = lf.label_id AND l.name = ? GROUP BY 1, 2 ORDER BY 1, 2`)
    .all(label ?? 'working');
  raw.close();
  const engine = Engine.open(repo, { dbPath: db, env: env() });
  try {
    const status = engine.status(label === undefined ? {} : { label });
    const answers = [];
    for (const q of queries) {
      const r = await engine.search(q, { channels: ['name', 'bm25'], limit: 1, ...(label === undefined ? {} : { label }) });
      answers.push(r.results.map((x) => `${x.qualifiedName}@${x.path}:${x.startLine}`));
    }
    // Every stored vector is in the searchable index (a stale snapshot would leave some out).
    const stats = HAS_MODEL ? engine.store.vectors.indexStats() : null;
    const searchable = stats?.assignments ?? 0;
    if (stats) expect(stats.vectors).toBe(engine.store.vectors.count());
    return { integrity, files: status.files, symbols: status.symbols, edges, states, lines: status.lines, parseStatus: status.parseStatus, vectorsAssigned, searchable, answers };
  } finally {
    await engine.dispose();
  }
}

describe('SIGKILL during ca index: integrity holds, a re-run completes and equals a clean index', () => {
  let base: string;
  let repo: string;
  let clean: Awaited<ReturnType<typeof fingerprint>>;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'ca-crash-'));
    repo = join(base, 'repo');
    generate(repo);
    const r = ca(['index', repo, '--db', join(base, 'clean.db')]);
    expect(r.code).toBe(0);
    clean = await fingerprint(repo, join(base, 'clean.db'));
    // The fixture does what the kill points need: both projects analysed, all vectors in.
    expect(clean.integrity).toBe('ok');
    // 40 TS files and each project's package.json and tsconfig.json, indexed as configuration files
    // (decision 039): no semantic pass takes them, so they are `none` (they were left `pending` by
    // a clean index and `none` by a killed-and-resumed one: the kill tests found it).
    expect(clean.files).toBe(44);
    expect(clean.states).toEqual([{ semantic_state: 'none', n: 4 }, { semantic_state: 'ok', n: 40 }]);
    expect(clean.vectorsAssigned).toBe(HAS_MODEL ? clean.searchable : 0);
  }, 600_000);
  afterAll(() => undefined);

  it.each([
    ['parse', 'parse:20'],
    ['write', 'write:17'],
    ['the semantic pass (between its two programs)', 'semantic:1'],
    ...(HAS_MODEL ? [['embedding (after the first round of vectors)', 'embed:512']] : []),
  ])('killed during %s (%s)', async (_what, point) => {
    const db = join(base, `kill-${point.replace(':', '-')}.db`);
    const killed = ca(['index', repo, '--db', db], { CA_FAULT_KILL_AT: point });
    expect(killed.signal).toBe('SIGKILL');
    const rerun = ca(['index', repo, '--db', db]);
    expect(rerun.code).toBe(0);
    expect(await fingerprint(repo, db)).toEqual(clean);
  }, 600_000);

  it(`killed during a re-index after edits of 30 files (${HAS_MODEL ? 'while embedding their new symbols' : 'while writing them'})`, async () => {
    const copy = join(base, 'edited');
    cpSync(repo, copy, { recursive: true });
    const db = join(base, 'edits.db');
    expect(ca(['index', copy, '--db', db]).code).toBe(0);
    // 30 files, each with 20 new functions: 630 symbols to embed again, two rounds.
    for (let f = 5; f < 35; f++) {
      const dir = f < 20 ? 'a' : 'b';
      const fns = Array.from({ length: 20 }, (_, i) => `/** Now ${word(2000 + f * 20 + i)}. */\nexport function edited${f}_${i}(): string {\n  return formatValue(${i});\n}`);
      writeFileSync(join(copy, dir, 'src', `f${f}.ts`), `export function formatValue(value: number): string {\n  return 'edited ' + String(value);\n}\n${fns.join('\n')}\nexport function edited${f}(): string {\n  return formatValue(${f});\n}\n`);
    }
    const killed = ca(['index', copy, '--db', db], { CA_FAULT_KILL_AT: HAS_MODEL ? 'embed:512' : 'write:2' });
    expect(killed.signal).toBe('SIGKILL');
    expect(ca(['index', copy, '--db', db]).code).toBe(0);
    const cleanDb = join(base, 'edits-clean.db');
    expect(ca(['index', copy, '--db', cleanDb]).code).toBe(0);
    expect(await fingerprint(copy, db, undefined, EDIT_QUERIES)).toEqual(await fingerprint(copy, cleanDb, undefined, EDIT_QUERIES));
  }, 600_000);

  it('killed while a label moves to another commit: the label keeps its commit; a re-run equals a clean crawl', async () => {
    const copy = join(base, 'git');
    cpSync(repo, copy, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, env: env(), encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'one');
    const first = git('rev-parse', 'HEAD');
    for (const f of [2, 22]) writeFileSync(join(copy, f < 20 ? 'a' : 'b', 'src', `f${f}.ts`), `export function formatValue(value: number): string {\n  return String(value);\n}\nexport const moved${f} = ${f};\n`);
    git('commit', '-q', '-am', 'two');
    const second = git('rev-parse', 'HEAD');
    const db = join(base, 'label.db');
    expect(ca(['index', copy, '--db', db, '--label', 'rel', '--commit', first]).code).toBe(0);
    const killed = ca(['index', copy, '--db', db, '--label', 'rel', '--commit', second], { CA_FAULT_KILL_AT: 'write:1' });
    expect(killed.signal).toBe('SIGKILL');
    const labels = JSON.parse(ca(['labels', '--repo', copy, '--db', db, '--json']).stdout).labels.map((l: { name: string; commit: string }) => [l.name, l.commit]);
    expect(labels).toEqual([['rel', first]]);
    expect(ca(['index', copy, '--db', db, '--label', 'rel', '--commit', second]).code).toBe(0);
    const cleanDb = join(base, 'label-clean.db');
    expect(ca(['index', copy, '--db', cleanDb, '--label', 'rel', '--commit', second]).code).toBe(0);
    const recovered = await fingerprint(copy, db, 'rel', LABEL_QUERIES);
    const fresh = await fingerprint(copy, cleanDb, 'rel', LABEL_QUERIES);
    expect(recovered).toEqual(fresh);
  }, 600_000);
});
