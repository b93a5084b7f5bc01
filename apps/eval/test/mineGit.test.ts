import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_ENV } from './gitEnv.js';
import { changedLineRanges, cleanCommitMessage, dropReason, isGoldCallable, isLeaky, isTestFile, mineGit, parseZeroContextDiff, touchedCallables, type MineResult } from '../src/index.js';

const ENV = GIT_ENV;

const BILLING_V1 = `export function chargeCustomer(amount: number): number {
  const fee = amount * 1.2;
  return fee;
}

export function refundCustomer(amount: number): number {
  return -amount;
}

export function formatAmount(amount: number): string {
  return amount.toFixed(2);
}
`;

// Edits the bodies of chargeCustomer and refundCustomer, and renames refundCustomer: the gold
// must still name refundCustomer, because symbols are located at the parent commit.
const BILLING_V2 = BILLING_V1.replace('const fee = amount * 1.2;', 'const fee = Math.round(amount * 120) / 100;')
  .replace('export function refundCustomer(', 'export function refundInCents(')
  .replace('return -amount;', 'return -Math.round(amount * 100) / 100;');

describe('mine-git on a repository built in the test', () => {
  let dir: string;
  let result: MineResult;
  let rootSha: string;
  let descriptiveSha: string;

  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env: ENV, encoding: 'utf8' }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-eval-mine-'));
    git('init', '-q', '-b', 'main');
    write('src/billing.ts', BILLING_V1);
    rootSha = commit('Initial import of the billing module');
    write('src/billing.ts', BILLING_V2);
    descriptiveSha = commit(
      'Round amounts to whole cents before sending them to the gateway\n\nAmounts were sent as floats and the gateway rejected them. Fixes #12\n\nSigned-off-by: Ann Example <ann@example.com>',
    );
    write('src/billing.ts', BILLING_V2.replace('toFixed(2)', 'toFixed(3)'));
    commit('chore: bump version to 1.2.0');
    git('revert', '--no-edit', descriptiveSha);
    write('test/billing.test.ts', "import { chargeCustomer } from '../src/billing';\nchargeCustomer(1);\n");
    commit('Add coverage for refunds of partial amounts');
    write('src/billing.ts', BILLING_V1.replace('toFixed(2)', 'toFixed(4)'));
    commit('Fix rounding bug');
    git('checkout', '-q', '-b', 'side');
    write('src/billing.ts', BILLING_V1.replace('toFixed(2)', 'toFixed(5)'));
    commit('style: align the amount formatting helper');
    git('checkout', '-q', 'main');
    git('merge', '-q', '--no-ff', 'side', '-m', 'Merge branch side with the formatting changes');
    result = await mineGit(dir, { max: 50 });
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns the one descriptive commit into one query with exactly its two gold symbols at the parent', () => {
    expect(result.queries).toHaveLength(1);
    const q = result.queries[0]!;
    expect(q.id).toBe(`mined-${descriptiveSha.slice(0, 10)}`);
    expect(q.commit).toBe(rootSha);
    expect(q.source).toBe(`mine-git:${descriptiveSha}`);
    expect(q.archetype).toBe('nl_behavioral');
    expect(q.label).toBe('mined');
    expect([...q.relevant].sort((a, b) => a.symbol.localeCompare(b.symbol))).toEqual([
      { symbol: 'src/billing.ts#chargeCustomer', grade: 3 },
      { symbol: 'src/billing.ts#refundCustomer', grade: 3 },
    ]);
    expect(q.leaky).toBe(false);
    expect(['train', 'holdout']).toContain(q.split);
    // BILLING_V1 → V2 rewrites line 2 (the fee) and lines 6–7 (refundCustomer's signature and
    // return): two -U0 hunks on the old side.
    expect(q.changedLines).toEqual([{ path: 'src/billing.ts', lines: [[2, 2], [6, 7]] }]);
  });

  it('cleans issue references and trailers from the query text', () => {
    expect(result.queries[0]!.query).toBe(
      'Round amounts to whole cents before sending them to the gateway. Amounts were sent as floats and the gateway rejected them.',
    );
  });

  it('drops the root, chore, style, revert, tests-only, short-message and merge commits with their reasons', () => {
    expect(result.examined).toBe(8);
    expect(result.dropped).toEqual({
      'root commit': 1,
      chore: 2,
      revert: 1,
      'tests only': 1,
      'short message': 1,
      merge: 1,
    });
  });

  it('writes a header naming the repository and its HEAD', () => {
    expect(result.header.commit).toBe(git('rev-parse', 'HEAD'));
    expect(result.header.language).toBe('ts');
  });
});

describe('mine-git on a clone that lacks some blobs', () => {
  // A size-capped snapshot or partial clone: blobs are absent. Commit 2 changes a source function
  // and an asset whose blob is deleted below (only source blobs are read: it is still mined);
  // commit 3 changes the function again, and its new source blob is deleted (dropped with a
  // reason; the run goes on). So: 3 examined, 1 query (commit 2), root + missing objects dropped.
  it('drops only the commits whose source blobs are absent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-eval-mine-partial-'));
    try {
      const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env: ENV, encoding: 'utf8' }).trim();
      const commit = (message: string) => {
        git('add', '-A');
        git('commit', '-q', '-m', message);
        return git('rev-parse', 'HEAD');
      };
      const dropObject = (sha: string) => rmSync(join(dir, '.git', 'objects', sha.slice(0, 2), sha.slice(2)));
      git('init', '-q', '-b', 'main');
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src/billing.ts'), BILLING_V1);
      writeFileSync(join(dir, 'logo.bin'), 'v1');
      commit('Initial import of the billing module');
      writeFileSync(join(dir, 'src/billing.ts'), BILLING_V2);
      writeFileSync(join(dir, 'logo.bin'), 'v2 of the large asset');
      const withAsset = commit('Round amounts to whole cents before sending them to the gateway');
      writeFileSync(join(dir, 'src/billing.ts'), BILLING_V2.replace('toFixed(2)', 'toFixed(3)'));
      const lost = commit('Show three decimals in formatted amounts for the ledger');
      dropObject(git('rev-parse', `${withAsset}:logo.bin`));
      dropObject(git('rev-parse', `${lost}:src/billing.ts`));
      const result = await mineGit(dir, { max: 50 });
      expect(result.queries.map((q) => q.source)).toEqual([`mine-git:${withAsset}`]);
      expect(result.examined).toBe(3);
      expect(result.dropped).toEqual({ 'root commit': 1, 'objects missing (partial clone)': 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('commit message rules', () => {
  it('classifies messages', () => {
    expect(dropReason('Bump lodash from 4.17.20 to 4.17.21', '', 'dependabot[bot]', '49699333+dependabot[bot]@users.noreply.github.com')).toBe('bot');
    expect(dropReason('Update translations from Crowdin', '', 'Renovate Bot', 'bot@renovateapp.com')).toBe('bot');
    expect(dropReason('Revert "Make the thing faster"', '', 'a', 'a@x')).toBe('revert');
    expect(dropReason('ci: cache the pnpm store between jobs', '', 'a', 'a@x')).toBe('chore');
    expect(dropReason('docs(readme): explain the config file', '', 'a', 'a@x')).toBe('chore');
    expect(dropReason('13.0.3', '', 'a', 'a@x')).toBe('version bump');
    expect(dropReason('Update version to 13.0.4 for the release', '', 'a', 'a@x')).toBe('version bump');
    expect(dropReason('Run prettier over the whole repository', '', 'a', 'a@x')).toBe('formatting');
    expect(dropReason('fix: crash (#123)', '', 'a', 'a@x')).toBe('short message');
    expect(dropReason('fix: arrow heads disappear when zoomed out (#123)', '', 'a', 'a@x')).toBeNull();
  });

  it('cleans references, URLs and trailers', () => {
    expect(
      cleanCommitMessage(
        'fix(editor): keep the selection when pasting images (#8123)',
        'See https://github.com/o/r/issues/1 for details.\nCloses GH-77\n\nCo-authored-by: Bob <bob@x.org>',
      ),
    ).toBe('keep the selection when pasting images. for details.');
  });

  it('drops a pull-request template: comments, checklists, process sections, label headings, emoji', () => {
    // A trpc-style squash body. Kept: the "Problem" paragraph (its label heading dropped), the
    // heading "Proxy coercion" as words; dropped: the HTML comment, the "Checklist" section with its
    // items, the emoji, and the "Screenshots" section up to the next heading.
    const body = [
      '## 🎯 Changes',
      'Add prefix parameter to mutation options.',
      '<!-- Note: once you create a Pull request, we will',
      'automatically fix lint issues -->',
      '## Proxy coercion',
      'React 19 calls valueOf on it.',
      '## ✅ Checklist',
      '- [x] I have followed the steps',
      '- [ ] I have added tests',
      'Any other remark about the process.',
      '### Screenshots',
      '![img](x.png)',
      '## Problem',
      'the keys collide',
    ].join('\n');
    expect(cleanCommitMessage('feat(react-query): add prefix support for mutation options', body)).toBe(
      'add prefix support for mutation options. Add prefix parameter to mutation options. Proxy coercion React 19 calls valueOf on it. the keys collide',
    );
  });

  it('tags leaky queries by name or split words', () => {
    expect(isLeaky('fix terminatePlan for trials', ['terminatePlan'])).toBe(true);
    expect(isLeaky('make terminate plan idempotent', ['terminatePlan'])).toBe(true);
    expect(isLeaky('stop charging this customer every month', ['terminatePlan'])).toBe(false);
    expect(isLeaky('the planner is slow', ['plan'])).toBe(false);
  });

  it('recognises test paths', () => {
    expect(isTestFile('packages/excalidraw/tests/history.test.tsx')).toBe(true);
    expect(isTestFile('src/__tests__/a.ts')).toBe(true);
    expect(isTestFile('Src/Newtonsoft.Json.Tests/Issues/Issue1.cs')).toBe(true);
    expect(isTestFile('Src/Newtonsoft.Json/JsonConvert.cs')).toBe(false);
    expect(isTestFile('packages/excalidraw/scene/Renderer.ts')).toBe(false);
  });

  it('parses zero-context diffs on the old side', () => {
    const diff = [
      'diff --git a/src/a.ts b/src/a.ts',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -2 +2 @@ x',
      '@@ -7,0 +8,2 @@',
      '@@ -10,3 +11,0 @@',
      'diff --git a/src/new.ts b/src/new.ts',
      '--- /dev/null',
      '+++ b/src/new.ts',
      '@@ -0,0 +1,4 @@',
    ].join('\n');
    const parsed = parseZeroContextDiff(diff);
    expect(parsed.get('src/a.ts')).toEqual({ ranges: [[2, 2], [10, 12]], insertionsAfter: [7], weights: [2, 3, 2], existed: true });
    expect(parsed.get('src/new.ts')?.existed).toBe(false);
  });

  it('changed line ranges: modified ranges and insertion anchors, sorted and merged', () => {
    // 2 alone; the insertion after 7 touches 8–9 and merges with it; 10–12 is adjacent to 9 and
    // joins too; an insertion at the top (after line 0) is line 1; a duplicate anchor counts once.
    expect(changedLineRanges({ ranges: [[10, 12], [2, 2], [8, 9]], insertionsAfter: [7, 0, 7], weights: [], existed: true })).toEqual([[1, 2], [7, 12]]);
    expect(changedLineRanges({ ranges: [[20, 25]], insertionsAfter: [22], weights: [], existed: true })).toEqual([[20, 25]]);
    expect(changedLineRanges({ ranges: [], insertionsAfter: [], weights: [], existed: true })).toEqual([]);
  });
});

describe('gold location', () => {
  const node = (qualifiedName: string, kind: string, startLine: number, endLine: number, signature = '') => ({
    name: qualifiedName.split('.').pop()!,
    qualifiedName,
    kind,
    startLine,
    endLine,
    signature,
  });
  const app = node('App', 'component', 1, 100, 'class App extends React.Component<AppProps, AppState>');
  const onKeyDown = node('App.onKeyDown', 'property', 10, 30, 'private onKeyDown = withBatchedUpdates((event: KeyboardEvent) => {');
  const state = node('App.state', 'property', 5, 5, 'state: AppState');
  const render = node('App.render', 'method', 40, 90);
  const Button = node('Button', 'component', 1, 7, 'export function Button({ label }: ButtonProps)');

  it('counts callables and function-valued fields, not class components or plain fields', () => {
    expect([app, onKeyDown, state, render, Button].map(isGoldCallable)).toEqual([false, true, false, true, true]);
  });

  it('maps modified lines and insertions to the innermost gold callable', () => {
    // line 12 → onKeyDown; insertion after 50 (50 and 51 inside render) → render; line 3 → App only (not gold).
    const t = touchedCallables([app, onKeyDown, state, render], { ranges: [[12, 12], [3, 3]], insertionsAfter: [50], weights: [2, 1, 4], existed: true });
    expect(t.symbols.map((s) => s.qualifiedName).sort()).toEqual(['App.onKeyDown', 'App.render']);
    expect(t).toMatchObject({ insideWeight: 6, totalWeight: 7 });
  });
});
