import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT } from './helpers.js';

/**
 * What a command loads (decision 027): `--help` loads nothing beyond the CLI's entry and its
 * usage text; `status`, `view` and `outline` never load the embedding runtime, transformers, the
 * TypeScript compiler or the tree-sitter runtime, nor zod's module files. A resolve hook (module.register) and a wrapped CommonJS loader write
 * every module the process loaded to a file at exit.
 */
const dir = mkdtempSync(join(tmpdir(), 'ca-lazy-'));
const repo = join(dir, 'repo');
cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
const hook = join(dir, 'trace.mjs');
writeFileSync(
  hook,
  `import { register } from 'node:module';
import Module from 'node:module';
import { writeFileSync } from 'node:fs';
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (u) => seen.add(u));
port1.unref();
register('data:text/javascript,' + encodeURIComponent('let p; export function initialize(d) { p = d.port; } export async function resolve(s, c, next) { const r = await next(s, c); p.postMessage(r.url); return r; }'), { data: { port: port2 }, transferList: [port2] });
const load = Module._load;
Module._load = function (request, parent) { const r = load.apply(this, arguments); try { seen.add(Module._resolveFilename(request, parent)); } catch { /* a builtin */ } return r; };
process.on('exit', () => writeFileSync(process.env.TRACE_OUT, [...seen].join('\\n')));
`,
);
// With a model folder configured, so a command that wanted the embedder could load it.
const env = cleanEnv({ CA_EMBEDDING_MODEL_DIR: join(ROOT, '../shared/models') });
const indexed = spawnSync(process.execPath, [BIN, 'index', repo], { env: { ...env, CA_EMBEDDING_ENABLED: 'false' }, encoding: 'utf8' });
if (indexed.status !== 0) throw new Error(`ca index failed: ${indexed.stderr}`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module files and URLs `ca args` loaded (the hook's own data: URL left out). */
function loaded(args: string[]): string[] {
  const out = join(dir, 'trace.txt');
  const r = spawnSync(process.execPath, ['--import', hook, BIN, ...args], { env: { ...env, TRACE_OUT: out }, encoding: 'utf8' });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('data:'));
}

// The embedding runtime, transformers, the TypeScript compiler, the tree-sitter runtime (only an
// adapter, i.e. indexing, loads it) and zod's own module files (bundled into @ca/schema's one file).
const HEAVY = /onnxruntime|@huggingface\/transformers|\/typescript\/lib\/|web-tree-sitter|\/zod[@/]/;

describe('commands load only what they use', () => {
  it('--help loads the entry and its usage chunk, nothing else (no engine, no SQLite)', () => {
    const files = loaded(['--help']);
    // main.js and the chunk holding usage.ts (tsup names it by a content hash).
    expect(files.length).toBe(2);
    expect(files.every((f) => f.startsWith(`file://${join(ROOT, 'apps/cli/dist')}/`))).toBe(true);
  });

  it.each([['status'], ['view', 'src/auth/authService.ts'], ['outline', 'src/auth/authService.ts']])('%s loads no embedding runtime, transformers, TypeScript compiler, tree-sitter or zod module', (...args) => {
    const files = loaded([...args, '--repo', repo]);
    // The engine did load (the command needs the index): the check below is not vacuous.
    expect(files.some((f) => f.includes('/packages/engine/dist/'))).toBe(true);
    expect(files.filter((f) => HEAVY.test(f))).toEqual([]);
  });
});
