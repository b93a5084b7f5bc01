import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_ENV } from './gitEnv.js';
import { parseQuerySet, runEval, type EvalReport, type QuerySet } from '../src/index.js';

const BILLING_A = `export function chargeCustomer(amount: number): number {
  return Math.round(amount * 100) / 100;
}

export function formatAmount(amount: number): string {
  return amount.toFixed(2);
}
`;

// Commit B renames chargeCustomer and adds tax.ts; commit C (HEAD) deletes tax.ts again.
const BILLING_B = BILLING_A.replace('chargeCustomer', 'billCustomer');
const TAX_B = `export function computeVat(net: number): number {
  return net * 0.2;
}
`;

const UNKNOWN = 'deadbeef'.repeat(5);

describe('eval --at-commit: mined queries judged on an index of their own commit', () => {
  let dir: string;
  let repo: string;
  let marker: string;
  let shaA: string;
  let shaB: string;
  let set: QuerySet;
  let atHead: EvalReport;
  let first: EvalReport;
  let firstLog: string[];
  let secondLog: string[];

  const git = (args: string[], date?: string) =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      env: { ...GIT_ENV, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) },
    }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const commit = (message: string, date: string) => {
    git(['add', '-A']);
    git(['commit', '-q', '-m', message], date);
    return git(['rev-parse', 'HEAD']);
  };
  const run = async (atCommit: boolean, log: string[]) =>
    runEval([set], { db: join(dir, 'index.db'), coldSamples: 0, configurations: ['name', 'bm25'], split: 'all', env: {}, atCommit, onProgress: (m) => log.push(m) });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-eval-at-commit-'));
    repo = join(dir, 'repo');
    marker = join(dir, 'hook-ran');
    mkdirSync(repo);
    git(['init', '-q', '-b', 'main']);
    // A hook of the analysed repository must never run during the walk.
    writeFileSync(join(repo, '.git/hooks/post-checkout'), `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(join(repo, '.git/hooks/post-checkout'), 0o755);
    write('src/billing.ts', BILLING_A);
    write('assets/notes.txt', 'first notes\n');
    shaA = commit('Initial billing module', '2024-01-01T00:00:00Z');
    write('src/billing.ts', BILLING_B);
    write('src/tax.ts', TAX_B);
    write('assets/notes.txt', 'second notes\n');
    shaB = commit('Rename charging and add VAT', '2024-02-01T00:00:00Z');
    rmSync(join(repo, 'src/tax.ts'));
    commit('Drop VAT again', '2024-03-01T00:00:00Z');
    // A partial clone: one blob of commit A is absent from the object store.
    const blob = git(['rev-parse', `${shaA}:assets/notes.txt`]);
    rmSync(join(repo, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    set = parseQuerySet(
      [
        JSON.stringify({ header: { repo: 'test/billing', path: repo, language: 'ts' } }),
        JSON.stringify({ id: 'at-a', query: 'chargeCustomer', archetype: 'qualified_name', relevant: [{ symbol: 'src/billing.ts#chargeCustomer', grade: 3 }], split: 'train', commit: shaA, changedLines: [{ path: 'src/billing.ts', lines: [[1, 3], [5, 5]] }] }),
        JSON.stringify({ id: 'at-b', query: 'computeVat', archetype: 'qualified_name', relevant: [{ symbol: 'src/tax.ts#computeVat', grade: 3 }], split: 'train', commit: shaB, changedLines: [{ path: 'src/tax.ts', lines: [[2, 2]] }, { path: 'src/other.ts', lines: [[1, 1]] }] }),
        JSON.stringify({ id: 'head', query: 'formatAmount', archetype: 'qualified_name', relevant: [{ symbol: 'src/billing.ts#formatAmount', grade: 3 }], split: 'train', changedLines: [{ path: 'src/billing.ts', lines: [[5, 7]] }] }),
        JSON.stringify({ id: 'lost', query: 'formatAmount', archetype: 'qualified_name', relevant: [{ symbol: 'src/billing.ts#formatAmount', grade: 3 }], split: 'train', commit: UNKNOWN }),
      ].join('\n'),
      join(dir, 'set.jsonl'),
    );
    atHead = await run(false, []);
    firstLog = [];
    first = await run(true, firstLog);
    secondLog = [];
    await run(true, secondLog);
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without --at-commit, gold that HEAD no longer has excludes the query', () => {
    const s = atHead.sets[0]!;
    expect(s.evaluated).toBe(2);
    expect(s.excluded.map((e) => e.id).sort()).toEqual(['at-a', 'at-b']);
    expect(s.queries.map((q) => q.id).sort()).toEqual(['head', 'lost']);
  });

  it('with --at-commit, each query is scored on its own commit and HEAD queries on HEAD', () => {
    const s = first.sets[0]!;
    expect(s.evaluated).toBe(3);
    expect(s.queries.map((q) => q.id).sort()).toEqual(['at-a', 'at-b', 'head']);
    for (const id of ['at-a', 'at-b', 'head']) {
      expect(s.queries.find((q) => q.id === id)!.configs['name']!.metrics!.ndcg10).toBe(1);
    }
    expect(s.queries.find((q) => q.id === 'at-a')!.configs['name']!.top[0]).toBe('chargeCustomer src/billing.ts:1');
    expect(s.queries.find((q) => q.id === 'at-b')!.configs['name']!.top[0]).toBe('computeVat src/tax.ts:1');
    expect(s.notes.some((n) => n.startsWith('2 mined queries were evaluated on an index of their own commit') && n.includes(': 2 commits,'))).toBe(true);
  });

  it('line recall of changed lines: only for queries judged at their own commit', () => {
    const s = first.sets[0]!;
    const recall = (id: string) => s.queries.find((q) => q.id === id)!.configs['name']!.changedLineRecall;
    // at-a: the name channel returns chargeCustomer (lines 1–3), which covers 3 of the changed
    // lines 1–3 and 5 (5 is formatAmount's first line, not returned): 3/4.
    expect([recall('at-a'), s.queries.find((q) => q.id === 'at-a')!.configs['name']!.top]).toEqual([0.75, ['chargeCustomer src/billing.ts:1']]);
    // at-b: computeVat (tax.ts 1–3) covers tax.ts line 2; src/other.ts line 1 is not returned: 1/2.
    expect(recall('at-b')).toBe(0.5);
    // head is judged on HEAD's index, not at a commit of its own: its lines are not looked for.
    expect(recall('head')).toBeUndefined();
    const context = s.configs.find((c) => c.id === 'name')!.context!;
    expect([context.changedLineRecall10, context.changedLineQueries]).toEqual([0.625, 2]);
    // Without --at-commit the two queries with a commit are excluded; head still has no recall.
    expect(atHead.sets[0]!.configs.find((c) => c.id === 'name')!.context!.changedLineQueries).toBe(0);
  });

  it('a commit git does not know excludes its queries with the reason', () => {
    expect(first.sets[0]!.excluded).toEqual([{ id: 'lost', reason: `commit ${UNKNOWN} is not in ${repo}` }]);
  });

  it('walks from the end nearest the scratch checkout: newest first from a HEAD copy, then back', () => {
    const order = (log: string[]) => log.filter((m) => /^commit \d+\//.test(m)).map((m) => m.split(' ')[2]!.replace(':', ''));
    expect(order(firstLog)).toEqual([shaB.slice(0, 10), shaA.slice(0, 10)]);
    expect(order(secondLog)).toEqual([shaA.slice(0, 10), shaB.slice(0, 10)]);
    expect(firstLog.some((m) => m.startsWith('commit walk: new scratch index'))).toBe(true);
    expect(secondLog.some((m) => m.startsWith('commit walk: new scratch index'))).toBe(false);
  });

  it('leaves out blobs the repository lacks and says so', () => {
    const stepA = firstLog.find((m) => m.startsWith(`commit 2/2 ${shaA.slice(0, 10)}:`));
    expect(stepA).toMatch(/, 1 blobs absent from the repository,/);
    expect(firstLog.find((m) => m.startsWith(`commit 1/2 ${shaB.slice(0, 10)}:`))).not.toMatch(/absent/);
  });

  it('never runs the repository’s git hooks', () => {
    expect(existsSync(marker)).toBe(false);
  });
});
