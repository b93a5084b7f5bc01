import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ca, cleanEnv, ROOT } from './helpers.js';

// `ca export` / `ca import` as a user runs them (decision 045): the JSON shapes, the exit codes
// and messages of the refusals. The engine's tests (packages/engine/test/artifact.test.ts) cover
// what the round trip keeps.
describe('ca export / ca import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ca-cli-export-'));
  const source = join(dir, 'a', 'ts-app');
  const teammate = join(dir, 'b', 'ts-app');
  const artifact = join(dir, 'ts-app.caindex');
  const env = cleanEnv({ CA_EMBEDDING_ENABLED: 'false', CA_CONTEXT_FILE: join(dir, 'context.json') });
  const run = (args: string[], cwd = ROOT) => ca(args, { env, cwd });

  beforeAll(() => {
    cpSync(join(ROOT, 'fixtures/ts-app'), source, { recursive: true });
    cpSync(join(ROOT, 'fixtures/ts-app'), teammate, { recursive: true });
    const r = run(['index', source]);
    if (r.code !== 0) throw new Error(r.stderr);
  }, 120_000);

  it('export --json: the file and its header; the default name is <repository>.caindex in the current directory', () => {
    const r = run(['export', '--repo', source, '--out', artifact, '--no-vectors', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { file: string; header: { repository: string; labels: { name: string; files: number }[]; vectors: unknown; contents: boolean } };
    expect(out.file).toBe(artifact);
    // 16 files in one label (the working tree): 13 source files + README.md, package.json and
    // tsconfig.json (documentation files, decision 039); no vectors (embedding is off and --no-vectors).
    expect([out.header.repository, out.header.labels.map((l) => [l.name, l.files]), out.header.vectors, out.header.contents]).toEqual(['ts-app', [['working', 16]], null, true]);
    const byDefault = run(['export'], source);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toMatch(/^Exported .* to .*ts-app\.caindex in \d+ ms\n {2}repository ts-app, schema \d+/);
    expect(existsSync(join(source, 'ts-app.caindex'))).toBe(true);
  }, 120_000);

  it('export of an unknown label: unknown_label, exit 2, no file', () => {
    const out = join(dir, 'nope.caindex');
    const r = run(['export', '--repo', source, '--label', 'nope', '--out', out]);
    expect([r.code, existsSync(out)]).toEqual([2, false]);
    expect(r.stderr).toMatch(/nope/);
  });

  it('import: installs, then an incremental index that parses nothing (the same tree)', () => {
    const r = run(['import', artifact, '--repo', teammate, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { db: string; index: { changed: number; removed: number; files: number } };
    expect(out.db).toBe(join(teammate, '.codeagent', 'index.db'));
    // 13 source files + README.md, package.json, tsconfig.json; none changed.
    expect([out.index.files, out.index.changed, out.index.removed]).toEqual([16, 0, 0]);
    const status = run(['status', '--repo', teammate]);
    expect(status.stdout).toMatch(/\nimported: {3}from an artifact of ts-app exported \S+ without vectors\n/);
  }, 120_000);

  it('a damaged artifact: artifact_corrupt (exit 1), and the index stays', () => {
    const bytes = readFileSync(artifact);
    const cut = join(dir, 'cut.caindex');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 10));
    const r = run(['import', cut, '--repo', teammate, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error.code).toBe('artifact_corrupt');
    expect(r.stderr).toMatch(/^ca: .*cut\.caindex is a damaged index artifact: it is truncated \(\d+ of \d+ bytes\)/);
    // The imported index is intact: 13 source files + README.md, package.json, tsconfig.json.
    expect(JSON.parse(run(['status', '--repo', teammate, '--json']).stdout).files).toBe(16);
  });

  it('not an artifact, another repository, no FILE: exit 2 with the reason', () => {
    const notOne = join(dir, 'readme.caindex');
    writeFileSync(notOne, 'hello\n');
    expect(run(['import', notOne, '--repo', teammate]).stderr).toMatch(/is not a ca index artifact/);
    const other = join(dir, 'c', 'other');
    cpSync(join(ROOT, 'fixtures/ts-app'), other, { recursive: true });
    const mismatch = run(['import', artifact, '--repo', other, '--no-index']);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/is an index of "ts-app", not of "other" .* pass --force/);
    expect(run(['import', artifact, '--repo', other, '--no-index', '--force']).code).toBe(0);
    expect(run(['import']).code).toBe(2);
  }, 120_000);
});
