import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FEATURE_NAMES, type SearchResponse } from '@ca/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRow, parseQuerySet, runEval, tokensToFirst, type EvalReport, type FeatureRow } from '../src/index.js';

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/ts-app');

// Judged by hand from fixtures/ts-app (the same judgements as report.test.ts).
const SET = [
  JSON.stringify({ header: { repo: 'fixtures/ts-app', path: FIXTURE, language: 'ts' } }),
  JSON.stringify({ id: 'qn', query: 'AuthService.login', archetype: 'qualified_name', relevant: [{ symbol: 'AuthService.login', grade: 3 }], split: 'train' }),
  JSON.stringify({
    id: 'set',
    query: 'terminatePlan cancelSubscription',
    archetype: 'impact',
    relevant: [
      { symbol: 'BillingAccount.terminatePlan', grade: 3 },
      { symbol: 'src/billing/paymentProvider.ts#cancelSubscription', grade: 2 },
    ],
    split: 'train',
  }),
  JSON.stringify({ id: 'third', query: 'truncate', archetype: 'qualified_name', relevant: [{ symbol: 'truncate', grade: 3 }], split: 'train' }),
].join('\n');

describe('tokens to the first relevant result', () => {
  it('sums estimated tokens (ceil(chars / 3.5)) up to and including the first relevant result', () => {
    const results = [{ code: 'x'.repeat(7) }, { code: 'x'.repeat(14) }, { code: 'x'.repeat(35) }]; // 2, 4, 10 tokens
    expect(tokensToFirst(results, [0, 3, 2])).toBe(6);
    expect(tokensToFirst(results, [1, 0, 0])).toBe(2);
    expect(tokensToFirst(results, [0, 0, 0])).toBeNull();
  });
});

describe('training rows (--features-out)', () => {
  it('labels each candidate: a relevant symbol (its grade), in a relevant path#name judgement’s file, or none', () => {
    const set = parseQuerySet(SET, '/tmp/fixture.jsonl');
    const q = set.queries[1]!;
    const cand = (qualifiedName: string, name: string, path: string, f: number) => ({ id: String(f), qualifiedName, name, path, kind: 'method' as const, features: [f] });
    const response = {
      candidates: [
        cand('PaymentProvider.charge', 'charge', 'src/billing/paymentProvider.ts', 1),
        cand('BillingAccount.terminatePlan', 'terminatePlan', 'src/billing/account.ts', 2),
        cand('formatDate', 'formatDate', 'src/util/date.ts', 3),
        cand('PaymentProvider.cancelSubscription', 'cancelSubscription', 'src/billing/paymentProvider.ts', 4),
      ],
    } as unknown as SearchResponse;
    const row = featureRow(set, q, response, new Map([['BillingAccount.terminatePlan', true], ['src/billing/paymentProvider.ts#cancelSubscription', false]]));
    expect(row.candidates.map((c) => [c.qualifiedName, c.label, c.grade, c.features[0]])).toEqual([
      ['PaymentProvider.charge', 'file', 0, 1], // the file of the path#name judgement
      ['BillingAccount.terminatePlan', 'symbol', 3, 2],
      ['formatDate', 'none', 0, 3],
      ['PaymentProvider.cancelSubscription', 'symbol', 2, 4],
    ]);
    // Two positive judgements, one of them unresolved in the index.
    expect([row.set, row.id, row.language, row.identifiers, row.relevant]).toEqual(['fixture', 'set', 'ts', true, 1]);
  });

  describe('a run over fixtures/ts-app with --max-queries 2', () => {
    let dir: string;
    let report: EvalReport;
    const rows: FeatureRow[] = [];
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ca-eval-features-'));
      report = await runEval([parseQuerySet(SET, join(dir, 'fixture.jsonl'))], {
        db: join(dir, 'index.db'),
        coldSamples: 0,
        env: {},
        split: 'all',
        maxQueries: 2,
        configurations: ['learned'],
        onFeatures: (r) => rows.push(r),
      });
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('evaluates the first two queries only, and dumps one row per scored query of hybrid', () => {
      expect(report.sets[0]!.queries.map((q) => q.id)).toEqual(['qn', 'set']);
      expect(rows.map((r) => r.id)).toEqual(['qn', 'set']);
      expect(rows.every((r) => r.candidates.every((c) => c.features.length === FEATURE_NAMES.length))).toBe(true);
      const login = rows[0]!.candidates.filter((c) => c.label === 'symbol');
      expect(login.map((c) => [c.qualifiedName, c.grade])).toEqual([['AuthService.login', 3]]);
      // The learned configuration ran beside hybrid, with per-query tokens and test counts.
      const outcome = report.sets[0]!.queries[0]!.configs['learned']!;
      expect(outcome.metrics).not.toBeNull();
      expect(outcome.tokensToFirstRelevant).toBeGreaterThan(0);
      expect(outcome.testsInTop10).toBe(0);
    });
  });
});
