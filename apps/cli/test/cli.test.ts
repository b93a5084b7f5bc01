import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');

function ca(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('ca CLI', () => {
  let repo: string;
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
  });

  it('index --json prints the documented shape', () => {
    const r = ca(['index', repo, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report).slice(0, 6)).toEqual(['files', 'symbols', 'edges', 'skipped', 'parseStatus', 'ms']);
    expect(Object.keys(report.parseStatus)).toEqual(['ok', 'partial', 'error', 'no_grammar', 'skipped']);
    // fixtures/ts-app: 13 code files + README.md, package.json, tsconfig.json (decision 039).
    expect(report.files).toBe(16);
    expect(r.stderr).toBe(''); // no progress bar when not a TTY
  });

  it('search --json prints results with the documented fields', () => {
    const r = ca(['search', 'BillingAccount.terminatePlan', '--repo', repo, '--json', '--limit', '3']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.query).toBe('BillingAccount.terminatePlan');
    expect(body.intent).toBe('targeted');
    expect(body.results.length).toBeLessThanOrEqual(3);
    const top = body.results[0];
    expect(Object.keys(top)).toEqual([
      'id',
      'qualifiedName',
      'name',
      'kind',
      'language',
      'path',
      'startLine',
      'endLine',
      'score',
      'matchedBy',
      'package',
      'isPublicApi',
      'callerCount',
      'callers',
      'callees',
      'code',
    ]);
    expect([top.qualifiedName, top.kind, top.language, top.path]).toEqual(['BillingAccount.terminatePlan', 'method', 'ts', 'src/billing/billingAccount.ts']);
    expect(typeof body.tookMs).toBe('number');
  });

  it('symbol, outline and source work in human and JSON form', () => {
    const sym = ca(['symbol', 'AuthService', '--repo', repo, '--json']);
    expect(sym.code).toBe(0);
    expect(JSON.parse(sym.stdout).symbols.map((s: { qualifiedName: string }) => s.qualifiedName)).toEqual(['AuthService']);
    const outline = ca(['outline', 'src/components/Button.tsx', '--repo', repo]);
    expect(outline.code).toBe(0);
    expect(outline.stdout.split('\n')[0]).toBe('src/components/Button.tsx (file, 17 lines)');
    const source = ca(['source', 'AuthService.login', '--repo', repo]);
    expect(source.code).toBe(0);
    expect(source.stdout.split('\n')[0]).toBe('// AuthService.login — src/auth/authService.ts:22-36');
  });

  it('status and health report', () => {
    const status = ca(['status', '--repo', repo, '--json']);
    expect(status.code).toBe(0);
    // 13 code files and 3 documentation files, counted apart in `docs` (decision 039).
    expect([JSON.parse(status.stdout).files, JSON.parse(status.stdout).docs]).toEqual([16, { files: { json: 2, markdown: 1 }, sections: 1, keys: 7 }]);
    const health = ca(['health', '--repo', repo]);
    expect(health.code).toBe(0);
    expect(health.stdout).toContain('ok   index integrity: PRAGMA quick_check: ok');
  });

  it('usage errors exit 2 with one line on stderr; --json adds the error object', () => {
    const missing = ca(['index', '/nonexistent/path/xyz']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('ca: repository path does not exist: /nonexistent/path/xyz\n');
    const file = join(repo, 'package.json');
    const notDir = ca(['index', file, '--json']);
    expect(notDir.code).toBe(2);
    expect(JSON.parse(notDir.stdout)).toEqual({ error: { code: 'invalid_path', message: `repository path is not a directory: ${file}` } });
    expect(ca(['search', 'x', '--repo', repo, '--limit', '-1']).code).toBe(2);
    expect(ca(['search', 'x', '--repo', repo, '--limit', 'ten']).stderr).toBe('ca: --limit must be an integer from 1 to 1,000 (got "ten")\n');
    expect(ca(['search', 'x', '--repo', repo, '--lang', 'py']).code).toBe(2);
    expect(ca(['frobnicate']).code).toBe(2);
    expect(ca(['search', '--bogus']).code).toBe(2);
    const ambiguous = ca(['source', 'AuthService.activeUser', '--repo', repo]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^ca: "AuthService.activeUser" matches 2 symbols: /);
    expect(ca(['symbol', 'NoSuchThing', '--repo', repo]).code).toBe(1);
    expect(ca(['impact', 'AuthService.login', '--repo', repo, '--max-nodes', '0']).stderr).toBe('ca: --max-nodes must be a positive integer (got "0")\n');
  });

  it('impact --max-nodes keeps the nearest dependents and says it cut', () => {
    const full = JSON.parse(ca(['impact', 'TokenStore.save', '--repo', repo, '--depth', '5', '--json']).stdout);
    expect(full.truncated).toBe(false);
    expect(full.totalReached).toBe(4);
    expect(full.nodes.map((n: { qualifiedName: string }) => n.qualifiedName)).toEqual(['AuthService.login', 'AuthService.refresh', 'MemoryTokenStore.save', 'App']);
    const cut = ca(['impact', 'TokenStore.save', '--repo', repo, '--depth', '5', '--max-nodes', '1', '--json']);
    expect(cut.code).toBe(0);
    const r = JSON.parse(cut.stdout);
    expect(r.truncated).toBe(true);
    expect(r.complete).toBe(false);
    // Nearest first: one of the three depth-1 dependents; the lower bound counts what depth 1 saw.
    expect(r.nodes.map((n: { qualifiedName: string }) => n.qualifiedName)).toEqual(['AuthService.login']);
    expect(r.totalReached).toBe(3);
    const text = ca(['impact', 'TokenStore.save', '--repo', repo, '--depth', '5', '--max-nodes', '1']).stdout;
    expect(text).toContain(`kept the nearest 1 of at least ${r.totalReached} reached nodes (--max-nodes)`);
  });

  it('a navigation answer lists one row per caller and file, with every site of it', () => {
    // fixtures/ts-app/src/auth/authService.ts: AuthService.login reads this.failedAttempts on lines 23, 28 and 31.
    const r = ca(['refs', 'AuthService.failedAttempts', '--repo', repo]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'refs of AuthService.failedAttempts (property) src/auth/authService.ts:16-16',
        '  references AuthService.login (method) src/auth/authService.ts:22  at src/auth/authService.ts:23, 28, 31  [exact]',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(ca(['refs', 'AuthService.failedAttempts', '--repo', repo, '--json']).stdout).edges.map((e: { line: number }) => e.line)).toEqual([23, 28, 31]);
  });

  it('hostile queries never crash', () => {
    for (const q of ['""', '*', 'NEAR(', 'OR', ':', '😀 认证', 'x'.repeat(100_000)]) {
      const r = ca(['search', q, '--repo', repo, '--json']);
      expect(r.code).toBe(0);
      expect(Array.isArray(JSON.parse(r.stdout).results)).toBe(true);
    }
  });

  it('index names a changed tsconfig and the files it re-analysed', () => {
    const config = join(repo, 'tsconfig.json');
    writeFileSync(config, readFileSync(config, 'utf8').replace('"strict": true', '"strict": false'));
    const r = ca(['index', repo]);
    expect(r.code).toBe(0);
    // All 13 source files of fixtures/ts-app sit under the root config.
    expect(r.stdout.split('\n')[2]).toBe('  tsconfig.json changed: 13 files re-analysed');
  });

  it('a corrupt index is reported as a failure (exit 1)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-cli-'));
    // An SQLite file whose pages are garbage (a file without the SQLite header is not taken for an index: see below).
    writeFileSync(join(dir, 'bad.db'), Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.from('not a database'.repeat(100))]));
    const r = ca(['status', '--repo', repo, '--db', join(dir, 'bad.db')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ca: .*bad\.db is not a valid index database/);
    // `ca index` moves the damaged file aside and rebuilds from source.
    const rebuilt = ca(['index', repo, '--db', join(dir, 'bad.db'), '--json']);
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout).files).toBe(16); // 13 code files + 3 documentation files
    expect(readdirSync(dir).filter((f) => f.startsWith('bad.db.corrupt-')).length).toBe(1);
    expect(ca(['status', '--repo', repo, '--db', join(dir, 'bad.db')]).code).toBe(0);
  });

  it('--db at a file that is not an SQLite database is refused (exit 2) and left as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-cli-'));
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes, not an index\n');
    for (const args of [['status', '--repo', repo], ['index', repo]]) {
      const r = ca([...args, '--db', notes]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`ca: ${notes} is not a Code Agent index (not an SQLite database); refusing to use or replace it\n`);
    }
    expect(readFileSync(notes, 'utf8')).toBe('my notes, not an index\n');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });
});
