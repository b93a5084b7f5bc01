import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');

/**
 * Freshness at query time (docs/decisions/026): every answer compares the files it comes from
 * with the tree now, and HEAD with the commit indexed. The fixture is a git copy of
 * fixtures/ts-app; the steps run in order (edit, then commit, then re-index).
 */
describe('ca answers say when the index is stale', () => {
  let repo: string;
  const env = () => ({
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
    CA_EMBEDDING_ENABLED: 'false',
    CA_CONTEXT_FILE: join(repo, '..', 'context.json'),
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  });
  const ca = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: repo, encoding: 'utf8', env: env() });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const json = (...args: string[]) => {
    const r = ca(...args, '--json');
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: env() }).trim();
  const FORMAT = 'src/utils/format.ts';
  const STALE_LINE = `warning: index is stale: ${FORMAT} changed since it was indexed (run ca index)`;
  let indexed: string;

  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-fresh-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    indexed = git('rev-parse', 'HEAD');
    expect(ca('index').code).toBe(0);
  }, 120_000);

  it('an untouched tree: answers are fresh and print no warning', () => {
    const r = ca('source', 'formatCurrency');
    expect([r.code, r.stderr]).toEqual([0, '']);
    // One file compared: the symbol's own.
    expect(json('source', 'formatCurrency').freshness).toMatchObject({ stale: false, staleFiles: [], staleCount: 0, checkedFiles: 1, headMoved: false });
  });

  it('an edited file: source, search, callers and outline answers say stale with its path; text prints one warning line', () => {
    const path = join(repo, FORMAT);
    writeFileSync(path, readFileSync(path, 'utf8').replace("currency = 'USD'", "currency = 'EUR'"));
    const source = json('source', 'formatCurrency');
    // The answer still shows the indexed code (the index's stored copy), and now says so.
    expect(source.code).toContain("currency = 'USD'");
    expect(source.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1, checkedFiles: 1, uncommittedChanges: false });
    const text = ca('source', 'formatCurrency');
    expect([text.code, text.stderr]).toEqual([0, `${STALE_LINE}\n`]);
    expect(json('search', 'formatCurrency').freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1 });
    expect(json('outline', FORMAT).freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1, checkedFiles: 1 });
    // callers of formatCurrency: the edge sits in billingAccount.ts (unchanged), the symbol in format.ts (changed).
    const callers = json('callers', 'formatCurrency');
    expect(callers.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1, checkedFiles: 2 });
    expect(ca('callers', 'formatCurrency').stderr).toBe(`${STALE_LINE}\n`);
    expect(ca('find', 'name:formatCurrency').stderr).toBe(`${STALE_LINE}\n`);
    expect(ca('view', FORMAT).stderr).toBe(`${STALE_LINE}\n`);
  });

  it('answers from untouched files stay fresh beside an edited one', () => {
    expect(json('source', 'BillingAccount').freshness).toMatchObject({ stale: false, staleFiles: [], staleCount: 0, checkedFiles: 1 });
    const r = ca('source', 'BillingAccount');
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it('ca status lists the files changed since they were indexed', () => {
    const status = json('status');
    // Every indexed file is compared (14 in the fixture); one differs.
    expect(status.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1 });
    expect(status.freshness.checkedFiles).toBe(status.files);
    const text = ca('status').stdout;
    expect(text).toContain(`changed since indexed (1 file; run ca index):\n  ${FORMAT}\n`);
  });

  it('a commit: the text output warns that HEAD moved', () => {
    git('commit', '-q', '-am', 'euros');
    const head = git('rev-parse', 'HEAD');
    const r = ca('source', 'BillingAccount');
    expect([r.code, r.stderr]).toEqual([0, `warning: HEAD moved since working was indexed (${indexed.slice(0, 12)} → ${head.slice(0, 12)}); run ca index\n`]);
    expect(json('source', 'BillingAccount').freshness).toMatchObject({ headMoved: true, stale: false, commit: indexed, head });
    expect(ca('source', 'formatCurrency').stderr).toBe(`${STALE_LINE}\nwarning: HEAD moved since working was indexed (${indexed.slice(0, 12)} → ${head.slice(0, 12)}); run ca index\n`);
  });

  it('after ca index: fresh again, no warning', () => {
    expect(ca('index').code).toBe(0);
    const r = ca('source', 'formatCurrency');
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(json('source', 'formatCurrency')).toMatchObject({ code: expect.stringContaining("currency = 'EUR'"), freshness: { stale: false, staleCount: 0, headMoved: false } });
    expect(json('status').freshness).toMatchObject({ stale: false, staleFiles: [], staleCount: 0 });
  }, 60_000);
});
