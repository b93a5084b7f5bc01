import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '@ca/engine';
import { connect, copyFixture, NO_EMBEDDINGS, type Connected } from './helpers.js';

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const REFUND = `import { formatCurrency } from '../utils/format';\n\n/** The refund line shown to the customer. */\nexport function refundLabel(cents: number): string {\n  return 'Refund of ' + formatCurrency(cents);\n}\n`;

/**
 * ts-app as a git repository: `main` is the fixture, `feature` adds src/billing/refund.ts (a new
 * caller of formatCurrency). The working tree is on main; the label `feature` is indexed from git.
 */
describe('MCP tools answer per label; a checkout shows in the next answer', () => {
  let repo: string;
  let feature: string;
  let main: string;
  let mcp: Connected;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: GIT_ENV }).trim();

  beforeAll(async () => {
    repo = copyFixture('ts-app');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    main = git('rev-parse', 'HEAD');
    git('checkout', '-q', '-b', 'feature');
    writeFileSync(join(repo, 'src/billing/refund.ts'), REFUND);
    git('add', '-A');
    git('commit', '-q', '-m', 'refunds');
    feature = git('rev-parse', 'HEAD');
    git('checkout', '-q', 'main');
    const engine = Engine.open(repo, { env: {}, configOverrides: NO_EMBEDDINGS });
    await engine.index();
    await engine.indexCommit('feature', 'feature');
    engine.close();
    mcp = await connect({ repo });
  }, 120_000);
  afterAll(() => mcp.close());

  it('list_labels lists the working tree and the commit', async () => {
    const r = await mcp.call('list_labels');
    expect(r.json.labels.map((l: { name: string; commit: string; files: number }) => [l.name, l.commit, l.files])).toEqual([
      // fixtures/ts-app's 13 code files + README.md, package.json, tsconfig.json (decision 039); feature adds one.
      ['feature', feature, 17],
      ['working', main, 16],
    ]);
  });

  it('search_code, get_callers and read_file take label', async () => {
    const hit = await mcp.call('search_code', { query: 'refundLabel', label: 'feature', limit: 1 });
    expect([hit.json.results[0].qualifiedName, hit.json.freshness.label, hit.json.freshness.commit]).toEqual(['refundLabel', 'feature', feature]);
    const none = await mcp.call('search_code', { query: 'refundLabel', limit: 1 });
    expect(none.json.results.map((x: { qualifiedName: string }) => x.qualifiedName)).not.toContain('refundLabel');
    const callers = await mcp.call('get_callers', { symbol: 'formatCurrency', label: 'feature' });
    expect(callers.json.nodes.filter((n: { depth: number }) => n.depth > 0).map((n: { qualifiedName: string }) => n.qualifiedName).sort()).toEqual(['BillingAccount.outstanding', 'refundLabel']);
    // A file of a commit that is not checked out: the index's copy, the lines `git show` prints.
    const file = await mcp.call('read_file', { path: 'src/billing/refund.ts', label: 'feature' });
    expect(`${file.json.content}\n`).toBe(execFileSync('git', ['show', 'feature:src/billing/refund.ts'], { cwd: repo, encoding: 'utf8' }));
    expect([file.json.totalLines, `${file.json.content}\n`]).toEqual([6, REFUND]);
    const unknown = await mcp.call('get_callers', { symbol: 'formatCurrency', label: 'nope' });
    expect([unknown.isError, unknown.json.error.code]).toEqual([true, 'unknown_label']);
  });

  it('a checkout in the working tree: the next answer follows it and its freshness says so', async () => {
    const before = await mcp.call('get_status');
    expect([before.json.freshness.commit, before.json.freshness.headMoved]).toEqual([main, false]);
    git('checkout', '-q', 'feature');
    // The server refreshes before each answer: the working tree now has refund.ts.
    const after = await mcp.call('search_code', { query: 'refundLabel', limit: 1 });
    expect([after.json.results[0].path, after.json.freshness.commit, after.json.freshness.branch, after.json.freshness.headMoved]).toEqual([
      'src/billing/refund.ts',
      feature,
      'feature',
      false,
    ]);
    git('checkout', '-q', 'main');
  }, 60_000);
});
