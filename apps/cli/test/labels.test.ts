import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');

describe('ca labels, label rm, gc, use, --label', () => {
  let repo: string;
  let contextFile: string;
  let feature: string;
  const env = () => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
    CA_EMBEDDING_ENABLED: 'false',
    CA_CONTEXT_FILE: contextFile,
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  });
  const ca = (args: string[], cwd = ROOT) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: env() });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: env() }).trim();

  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-cli-labels-'));
    repo = join(dir, 'repo');
    contextFile = join(dir, 'context.json');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    git('checkout', '-q', '-b', 'feature');
    writeFileSync(join(repo, 'src/billing/refund.ts'), `export function refundLabel(cents: number): string {\n  return String(cents);\n}\n`);
    git('add', '-A');
    git('commit', '-q', '-m', 'refunds');
    feature = git('rev-parse', 'HEAD');
    git('checkout', '-q', 'main');
    expect(ca(['index', repo]).code).toBe(0);
  }, 120_000);

  it('index --label --commit indexes a commit; labels lists both; search --label answers from it', () => {
    const r = ca(['index', repo, '--label', 'feature', '--commit', 'feature', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    // main: fixtures/ts-app's 13 code files + README.md, package.json, tsconfig.json (decision 039)
    // = 16 files; feature adds src/billing/refund.ts (17), the one file parsed, the 16 others reused.
    expect([report.label, report.commit, report.files, report.blobs.parsed, report.blobs.reused]).toEqual(['feature', feature, 17, 1, 16]);
    const labels = JSON.parse(ca(['labels', '--repo', repo, '--json']).stdout).labels.map((l: { name: string; files: number }) => [l.name, l.files]);
    expect(labels).toEqual([
      ['feature', 17],
      ['working', 16],
    ]);
    const hit = JSON.parse(ca(['search', 'refundLabel', '--repo', repo, '--label', 'feature', '--json', '--limit', '1']).stdout);
    expect([hit.results[0].qualifiedName, hit.freshness.label, hit.freshness.commit]).toEqual(['refundLabel', 'feature', feature]);
    expect(JSON.parse(ca(['symbol', 'refundLabel', '--repo', repo, '--json']).stdout)).toEqual({ error: { code: 'not_found', message: 'no symbol matches "refundLabel"' } });
  }, 120_000);

  it('use --label makes it the default; use --clear forgets it', () => {
    expect(ca(['use', '--label', 'feature', '--repo', repo]).code).toBe(0);
    expect(JSON.parse(ca(['symbol', 'refundLabel', '--json']).stdout).symbols.map((s: { path: string }) => s.path)).toEqual(['src/billing/refund.ts']);
    expect(JSON.parse(ca(['use', '--json']).stdout)).toEqual({ context: { repo, label: 'feature' } });
    expect(ca(['use', '--clear']).code).toBe(0);
    expect(JSON.parse(ca(['use', '--json']).stdout)).toEqual({ context: {} });
  });

  it('label rm then gc reclaims the one version only that label held', () => {
    expect(ca(['label', 'rm', 'feature', '--repo', repo]).stdout).toBe('removed label feature (17 paths); run ca gc to reclaim what only it held\n');
    const gc = JSON.parse(ca(['gc', '--repo', repo, '--json']).stdout);
    expect([gc.versions, gc.contents]).toEqual([1, 1]);
    expect(gc.nodes).toBeGreaterThan(0);
  });

  it.each([
    [['index', '--label', 'a/b', '--commit', 'main'], 'invalid label name "a/b": contains "/"'],
    [['index', '--label', 'x', '--commit=-x'], 'invalid revision "-x": a revision cannot start with "-"'],
    [['index', '--label', 'x', '--commit', 'no-such-branch'], '"no-such-branch" is not a commit of'],
    [['index', '--label', 'x'], '--label and --commit go together: ca index --label NAME --commit REV'],
    [['search', 'x', '--label', 'nope'], 'no label "nope" in this index (labels: working)'],
    [['label', 'rm', 'working'], '"working" is the working tree\'s label; it is not removed (delete the index instead)'],
    [['use', '--label', 'nope'], 'no label "nope" in this index (labels: working)'],
  ])('%j → exit 2: %s', (args, message) => {
    const r = ca([...args, '--repo', repo]);
    expect([r.code, r.stderr.startsWith(`ca: ${message}`)]).toEqual([2, true]);
    expect(r.stderr.split('\n').length).toBe(2);
  });
});
