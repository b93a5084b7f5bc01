import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '@ca/engine';
import { changedLineRecall, contextMetrics, parseQuerySet, runEval, tokensToFirst, type ContextRow } from '../src/index.js';

describe('changedLineRecall', () => {
  const results = [
    { path: 'src/a.cs', startLine: 10, endLine: 20 },
    { path: 'src/b.cs', startLine: 1, endLine: 5 },
    { path: 'src/a.cs', startLine: 15, endLine: 30 },
  ];

  it('counts the changed lines inside some result of the same path, each once', () => {
    // a.cs 18–22: 18, 19, 20 in the first result, 21, 22 in the third (18–20 in both: once) → 5
    // of 5; a.cs 40: none; b.cs 5–6: 5 only; c.cs 1: no result → 6 covered of 5+1+2+1 = 9.
    const changed = [
      { path: 'src/a.cs', lines: [[18, 22], [40, 40]] as [number, number][] },
      { path: 'src/b.cs', lines: [[5, 6]] as [number, number][] },
      { path: 'src/c.cs', lines: [[1, 1]] as [number, number][] },
    ];
    expect(changedLineRecall(results, changed)).toBe(6 / 9);
  });

  it('looks at the first k results only', () => {
    // With k = 2 the third result (a.cs 15–30) is out: a.cs 21–22 are no longer covered → 3 of 5.
    expect(changedLineRecall(results, [{ path: 'src/a.cs', lines: [[18, 22]] }], 2)).toBe(3 / 5);
    expect(changedLineRecall(results, [{ path: 'src/a.cs', lines: [[18, 22]] }])).toBe(1);
  });

  it('is null when no line changed', () => {
    expect(changedLineRecall(results, [])).toBeNull();
    expect(changedLineRecall(results, [{ path: 'src/a.cs', lines: [] }])).toBeNull();
  });
});

describe('contextMetrics', () => {
  const row = (r: Partial<ContextRow>): ContextRow => ({ aboutTests: false, top10: 10, testsInTop10: 0, tokensToFirstRelevant: null, ...r });

  it('test share sums test results over the results of the queries not about tests', () => {
    // Product queries: 3 of 10 and 1 of 6 → 4 / 16; the query about tests (8 of 10) is left out.
    const m = contextMetrics([row({ testsInTop10: 3 }), row({ top10: 6, testsInTop10: 1 }), row({ aboutTests: true, testsInTop10: 8 })]);
    expect([m.testShareTop10, m.testShareQueries]).toEqual([0.25, 2]);
  });

  it('tokens to the first relevant: mean and median over queries with one, the others counted', () => {
    // 100, 300, 800 → mean 400, median 300; two queries found nothing relevant.
    const m = contextMetrics([row({ tokensToFirstRelevant: 800 }), row({}), row({ tokensToFirstRelevant: 100 }), row({}), row({ tokensToFirstRelevant: 300 })]);
    expect([m.tokensToFirstRelevant, m.withoutRelevant]).toEqual([{ mean: 400, median: 300, queries: 3 }, 2]);
  });

  it('line recall averages the queries that have one (null ones: no line recorded)', () => {
    const m = contextMetrics([row({ changedLineRecall: 0.5 }), row({ changedLineRecall: 1 }), row({ changedLineRecall: null }), row({})]);
    expect([m.changedLineRecall10, m.changedLineQueries]).toEqual([0.75, 2]);
  });

  it('without queries or results: no share, no tokens, no recall', () => {
    expect(contextMetrics([])).toEqual({
      testShareTop10: null,
      testShareQueries: 0,
      tokensToFirstRelevant: { mean: null, median: null, queries: 0 },
      withoutRelevant: 0,
      changedLineRecall10: null,
      changedLineQueries: 0,
    });
  });

  it('tokensToFirst sums estimates up to and including the first relevant result', () => {
    // estimateTokens = ceil(chars / 3.5): 35 characters are 10 tokens; the third result is the
    // first relevant one → 30; the fourth is not read.
    const code = 'x'.repeat(35);
    expect(tokensToFirst([{ code }, { code }, { code }, { code }], [0, 0, 2, 3])).toBe(30);
    expect(tokensToFirst([{ code }, { code }], [0, 0])).toBeNull();
  });
});

describe('context efficiency of a run over fixtures/cs-testproj (test projects by reference)', () => {
  it('counts test-project results in the test share of product queries only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-eval-context-'));
    const repo = join(dir, 'repo');
    cpSync(join(__dirname, '../../../fixtures/cs-testproj'), repo, { recursive: true });
    try {
      const set = parseQuerySet(
        [
          JSON.stringify({ header: { repo: 'fixtures/cs-testproj', path: repo, language: 'cs' } }),
          JSON.stringify({ id: 'product', query: 'apply discount percent off', archetype: 'nl_behavioral', relevant: [{ symbol: 'src/Shop/PriceCalculator.cs#Shop.PriceCalculator.ApplyDiscount', grade: 3 }], split: 'train' }),
          JSON.stringify({ id: 'about-tests', query: 'tests apply discount percent off', archetype: 'nl_behavioral', relevant: [{ symbol: 'qa/ShopChecks/DiscountChecks.cs#ShopChecks.DiscountChecks.ApplyDiscountTakesPercentOff', grade: 3 }], split: 'train' }),
        ].join('\n'),
        join(dir, 'set.jsonl'),
      );
      // The syntactic index alone: the ranking asserted does not depend on a Roslyn pass finishing within its deadline on a loaded machine.
      const report = await runEval([set], { db: join(dir, 'index.db'), coldSamples: 0, configurations: ['bm25'], split: 'all', env: { CA_SEMANTIC_ENABLED: 'false' } });
      const s = report.sets[0]!;
      const product = s.queries.find((q) => q.id === 'product')!.configs['bm25']!;
      // packages/engine/test/testProjects.test.ts: the product class (ApplyDiscount merged into
      // it) first, then four results of the test projects — none of them on a test path.
      expect(product.top.map((t) => t.split(' ')[0])).toEqual([
        'Shop.PriceCalculator',
        'ShopChecks.DiscountChecks.ApplyDiscountTakesPercentOff',
        'ShopChecks',
        'ShopVerification.RoundingVerification',
        'qa/ShopChecks/DiscountChecks.cs',
      ]);
      expect([product.testsInTop10, product.resultsInTop10]).toEqual([4, 5]);
      // The report lists hybrid first (always evaluated, the reference of every comparison), then bm25:
      // the aggregate is read from the configuration whose per-query figures are asserted above.
      expect(s.configs.map((c) => c.id)).toEqual(['hybrid', 'bm25']);
      const context = s.configs.find((c) => c.id === 'bm25')!.context!;
      // Only the product query counts towards the share (the other is about tests): 4 / 5.
      expect([context.testShareTop10, context.testShareQueries]).toEqual([0.8, 1]);
      // Both queries found their gold: the product one at rank 1, so its tokens are the first result's.
      expect([context.tokensToFirstRelevant.queries, context.withoutRelevant]).toEqual([2, 0]);
      expect(product.tokensToFirstRelevant).toBe(estimateTokens(readFileSync(join(repo, 'src/Shop/PriceCalculator.cs'), 'utf8').split('\n').slice(2, 9).join('\n')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
