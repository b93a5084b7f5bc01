import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@ca/engine';
import { ARG_KINDS, FILE_KINDS, TINY_FILES, type CorpusEnv, type FileOutcome } from './badCorpus.js';
import { ca, cleanEnv } from './helpers.js';

/**
 * The bad-input corpus (badCorpus.ts) through the built CLI: one repository holding every file
 * kind is indexed once (embeddings off: they are measured elsewhere and would triple the cost),
 * then every argument kind runs against it. Each kind must end as stated — never a crash, a
 * hang (every run has a deadline) or an SQL error.
 */
const ENV: CorpusEnv = { root: process.getuid?.() === 0, maxFileBytes: 1024 * 1024 };
const RUN_ENV = cleanEnv({ CA_EMBEDDING_ENABLED: 'false' });
/** Signs of an internal failure leaking out: an SQLite error, a JavaScript stack trace. */
const LEAK = /SQLITE_|SqliteError|sqlite3|no such (table|column)|syntax error|\n\s+at .+:\d+:\d+/i;

describe('bad-input corpus', () => {
  let repo: string;
  const expected = new Map<string, { kind: string; outcome: FileOutcome }>();
  let index: ReturnType<typeof ca>;

  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-corpus-')), 'repo');
    mkdirSync(repo);
    for (const k of FILE_KINDS) for (const [path, outcome] of Object.entries(k.make(repo, ENV))) expected.set(path, { kind: k.kind, outcome });
    index = ca(['index', repo, '--json'], { env: RUN_ENV, timeoutMs: 900_000 });
  }, 1_000_000);

  it(`has at least 40 kinds (${FILE_KINDS.length} file kinds, ${ARG_KINDS.length} argument kinds)`, () => {
    expect(FILE_KINDS.length + ARG_KINDS.length).toBeGreaterThanOrEqual(40);
  });

  it('indexes the corpus repository without a crash or a hang', () => {
    expect(index.timedOut).toBe(false);
    expect(index.stderr).not.toMatch(LEAK);
    expect(index.code).toBe(0);
  });

  it('gives every file kind its stated outcome', () => {
    const engine = Engine.open(repo, { env: {}, requireIndex: true });
    try {
      const statuses = new Map(engine.reader().fileStatuses().map((f) => [f.path, f]));
      const mismatches: string[] = [];
      for (const [path, { kind, outcome }] of expected) {
        const got = statuses.get(path);
        const show = JSON.stringify(path);
        if (outcome.outcome === 'absent') {
          if (got) mismatches.push(`${kind}: ${show} should be absent, is ${got.parseStatus} (${got.reason})`);
          continue;
        }
        if (!got) {
          mismatches.push(`${kind}: ${show} is missing from the index`);
          continue;
        }
        const status = outcome.outcome === 'indexed' ? outcome.status : outcome.outcome;
        const reason = 'reason' in outcome ? outcome.reason : undefined;
        const reasonOk = reason === undefined ? got.reason === null : typeof reason === 'string' ? got.reason === reason : reason.test(got.reason ?? '');
        if (got.parseStatus !== status || !reasonOk) mismatches.push(`${kind}: ${show} is ${got.parseStatus} (${got.reason}), expected ${status} (${String(reason ?? null)})`);
      }
      expect(mismatches).toEqual([]);
      // Nothing else was indexed: every row of the index is one the corpus expects.
      const unexpected = [...statuses.keys()].filter((p) => !expected.has(p));
      expect(unexpected).toEqual([]);
      expect([...statuses.values()].filter((f) => f.path.startsWith('many/') && f.parseStatus === 'ok').length).toBe(TINY_FILES);
    } finally {
      engine.close();
    }
  });

  it('answers every argument kind as stated, through the CLI', { timeout: 900_000 }, () => {
    const mismatches: string[] = [];
    for (const k of ARG_KINDS) {
      // Options first: a `--` inside the arguments makes everything after it positional.
      const r = ca(['--repo', repo, '--json', ...k.args], { env: RUN_ENV, timeoutMs: 60_000 });
      const where = `${k.kind} (${JSON.stringify(k.args).slice(0, 80)})`;
      if (r.timedOut) {
        mismatches.push(`${where}: timed out`);
        continue;
      }
      if (LEAK.test(r.stdout) || LEAK.test(r.stderr)) mismatches.push(`${where}: internal error leaked: ${r.stderr.slice(0, 200)}`);
      if (r.code !== k.expect.exit) {
        mismatches.push(`${where}: exit ${r.code}, expected ${k.expect.exit}: ${r.stderr.slice(0, 200)}`);
        continue;
      }
      let body: { error?: { code: string } };
      try {
        body = JSON.parse(r.stdout) as { error?: { code: string } };
      } catch {
        mismatches.push(`${where}: stdout is not one JSON document`);
        continue;
      }
      if (k.expect.exit === 0 && body.error) mismatches.push(`${where}: error ${body.error.code}`);
      if (k.expect.exit !== 0 && body.error?.code !== k.expect.code) mismatches.push(`${where}: error code ${body.error?.code}, expected ${k.expect.code}`);
      // Errors are one line on stderr.
      if (k.expect.exit !== 0 && r.stderr.trimEnd().split('\n').length !== 1) mismatches.push(`${where}: stderr is not one line`);
    }
    expect(mismatches).toEqual([]);
    // The SQL-looking queries changed nothing: the index is intact.
    const health = ca(['health', '--repo', repo, '--json'], { env: RUN_ENV });
    expect(health.code).toBe(0);
    expect((JSON.parse(health.stdout) as { checks: { name: string; ok: boolean }[] }).checks.find((c) => c.name === 'index integrity')?.ok).toBe(true);
  });

  it('a NUL byte in a query (impossible in argv) is answered by the library, not an error', async () => {
    const engine = Engine.open(repo, { env: {}, requireIndex: true, configOverrides: { embedding: { enabled: false } } });
    try {
      const names = async (q: string) => (await engine.search(q)).results.map((r) => `${r.qualifiedName} ${r.path}`);
      // The NUL separates words like a space: the same answer, led by the constant v1 of many/d0/f1.ts.
      const withNul = await names('v1\0DROP');
      expect(withNul).toEqual(await names('v1 DROP'));
      expect(withNul[0]).toBe('v1 many/d0/f1.ts');
    } finally {
      engine.close();
    }
  });
});
