import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport } from '../src/index.js';
import { copyFixture, TS_APP, tempDir } from './helpers.js';

/**
 * Files of fixtures/ts-app: 13 source files (.ts .tsx .js .jsx) and 3 documentation files
 * (README.md, package.json, tsconfig.json: decision 039).
 */
const FIXTURE_FILES = 16;

describe('Engine on fixtures/ts-app', () => {
  let repo: string;
  let engine: Engine;
  let first: IndexReport;

  beforeAll(async () => {
    repo = copyFixture(TS_APP);
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    first = await engine.index();
  });
  afterAll(() => engine.close());

  it('indexes every source file and reports counts', () => {
    expect(first.files).toBe(FIXTURE_FILES);
    expect(first.parseStatus).toEqual({ ok: FIXTURE_FILES, partial: 0, error: 0, no_grammar: 0, skipped: 0 });
    expect(first.skipped).toBe(0);
    expect(first.changed).toBe(FIXTURE_FILES);
    expect(first.symbols).toBeGreaterThan(60);
    expect(first.edges).toBeGreaterThan(first.symbols);
    const gi = join(repo, '.codeagent', '.gitignore');
    expect(require('node:fs').readFileSync(gi, 'utf8')).toContain('\n*\n');
  });

  it('finds a symbol by exact qualified name first, and its definition before usages', async () => {
    const r = await engine.search('AuthService.login');
    expect([r.results[0]!.qualifiedName, r.results[0]!.kind, r.results[0]!.path, r.results[0]!.startLine]).toEqual([
      'AuthService.login',
      'method',
      'src/auth/authService.ts',
      22,
    ]);
    expect(r.results[0]!.matchedBy).toContain('name');
    expect(r.intent).toBe('targeted');
    const t = await engine.search('terminatePlan');
    expect(t.results[0]!.qualifiedName).toBe('BillingAccount.terminatePlan');
  });

  it('finds symbols by words from their body and comments', async () => {
    const r = await engine.search('rate limited failed logins');
    expect(r.results.slice(0, 3).map((x) => x.qualifiedName)).toContain('AuthService');
    expect(r.intent).toBe('exploratory');
  });

  it('applies language, kind and path filters before fusion', async () => {
    const js = await engine.search('retry', { languages: ['js'] });
    expect(js.results.length).toBeGreaterThan(0);
    expect(js.results.every((x) => x.language === 'js')).toBe(true);
    const onlyClasses = await engine.search('AuthService', { kinds: ['class'] });
    expect(onlyClasses.results[0]!.qualifiedName).toBe('AuthService');
    expect(onlyClasses.results.every((x) => x.kind === 'class')).toBe(true);
    const billing = await engine.search('account', { pathGlob: 'src/billing/**' });
    expect(billing.results.length).toBeGreaterThan(0);
    expect(billing.results.every((x) => x.path.startsWith('src/billing/'))).toBe(true);
  });

  it('outlines a file and prints a symbol source from disk', () => {
    const outline = engine.outline('src/components/Button.tsx').map((n) => [n.kind, n.qualifiedName]);
    expect(outline[0]).toEqual(['file', 'src/components/Button.tsx']);
    expect(outline.map((o) => o[1])).toContain('Button');
    const src = engine.source('AuthService.login');
    expect(src.stale).toBe(false);
    const lines = require('node:fs').readFileSync(join(repo, 'src/auth/authService.ts'), 'utf8').split('\n');
    expect(src.code).toBe(lines.slice(21, 36).join('\n').trimStart());
    // A getter/setter pair shares a name: asking for it by name is ambiguous (exit 2 in the CLI).
    expect(() => engine.source('AuthService.activeUser')).toThrowError(expect.objectContaining({ code: 'ambiguous_symbol' }));
  });

  it('re-indexes nothing when nothing changed, then only what changed', async () => {
    const again = await engine.index();
    expect([again.changed, again.removed, again.files]).toEqual([0, 0, FIXTURE_FILES]);
    const login = engine.findSymbols('AuthService.login')[0]!;
    appendFileSync(join(repo, 'src/auth/authService.ts'), '\nexport function addedLater(): number {\n  return 1;\n}\n');
    rmSync(join(repo, 'src/legacy/config.js'));
    const third = await engine.index();
    expect([third.changed, third.removed, third.files]).toEqual([1, 1, FIXTURE_FILES - 1]);
    // The edited file's surviving symbols keep their ids.
    expect(engine.findSymbols('AuthService.login')[0]!.id).toBe(login.id);
    expect(engine.findSymbols('addedLater').map((n) => n.startLine)).toEqual([engine.findSymbols('addedLater')[0]!.startLine]);
    expect(engine.reader().outline('src/legacy/config.js')).toEqual([]);
  });
});

describe('bad input', () => {
  it('rejects a missing path and a file path with invalid_path', () => {
    expect(() => Engine.open('/nonexistent/ca/repo')).toThrowError(expect.objectContaining({ code: 'invalid_path' }));
    const dir = tempDir();
    writeFileSync(join(dir, 'file.ts'), 'x');
    expect(() => Engine.open(join(dir, 'file.ts'))).toThrowError(/not a directory/);
  });

  it('indexes around invalid UTF-8, huge bundles, deep nesting and link loops, recording each reason', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src/good.ts'), 'export function good(): number {\n  return 1;\n}\n');
    // Latin-1 é (0xE9) is invalid UTF-8: read as Windows-1252, a clean parse (decision 025).
    writeFileSync(join(repo, 'src/latin1.ts'), Buffer.concat([Buffer.from('// caf'), Buffer.from([0xe9]), Buffer.from('\nexport const cafe = 1;\n')]));
    writeFileSync(join(repo, 'src/bundle.js'), `var a=${'1+'.repeat(2_600_000)}1;`);
    writeFileSync(join(repo, 'src/wide.js'), `var a=[${'1,'.repeat(150_000)}1];\n`);
    // One bracket per line, so the minified-code heuristic does not skip it: the parser must cope.
    writeFileSync(join(repo, 'src/deep.ts'), `export const deep = ${'[\n'.repeat(10_000)}${']\n'.repeat(10_000)};\n`);
    writeFileSync(join(repo, 'src/binary.ts'), Buffer.from([0x65, 0x00, 0x01, 0x02]));
    require('node:fs').symlinkSync(join(repo, 'src/l1.ts'), join(repo, 'src/l2.ts'));
    require('node:fs').symlinkSync(join(repo, 'src/l2.ts'), join(repo, 'src/l1.ts'));
    const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      const report = await engine.index();
      const status = engine.status();
      const reasons = Object.fromEntries(status.problems.map((p) => [p.path, [p.status, p.reason]]));
      expect(reasons['src/bundle.js']).toEqual(['skipped', 'file is 5200008 bytes, over indexing.max_file_bytes (1048576)']);
      expect(reasons['src/wide.js']).toEqual(['skipped', 'minified or bundled code (very long lines)']);
      expect(reasons['src/binary.ts']).toEqual(['skipped', 'binary file (NUL bytes)']);
      expect(reasons['src/latin1.ts']).toBeUndefined();
      expect(reasons['src/l1.ts']).toEqual(['skipped', 'symbolic link loop']);
      expect(reasons['src/l2.ts']).toEqual(['skipped', 'symbolic link loop']);
      expect(reasons['src/good.ts']).toBeUndefined();
      // Deep nesting parses (possibly partially) without crashing; its symbol is still found.
      expect(engine.findSymbols('deep').map((n) => n.path)).toEqual(['src/deep.ts']);
      expect(engine.findSymbols('good').map((n) => n.path)).toEqual(['src/good.ts']);
      expect(engine.findSymbols('cafe').map((n) => n.path)).toEqual(['src/latin1.ts']);
      expect(report.files).toBe(8);
    } finally {
      engine.close();
    }
  });
});
