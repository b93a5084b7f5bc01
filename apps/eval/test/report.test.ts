import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGate, baselineFromReport, parseQuerySet, renderHtmlReport, renderReportTable, runEval, type EvalReport } from '../src/index.js';

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/ts-app');

// Two train queries and one held-out query over fixtures/ts-app, judged by hand from its source.
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
    negative: { mustNotDominate: ['formatDate'] },
  }),
  JSON.stringify({ id: 'held', query: 'truncate', archetype: 'qualified_name', relevant: [{ symbol: 'truncate', grade: 3 }], split: 'holdout' }),
].join('\n');

describe('run over fixtures/ts-app, table, HTML and gate', () => {
  let dir: string;
  let report: EvalReport;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ca-eval-run-'));
    report = await runEval([parseQuerySet(SET, join(dir, 'fixture.jsonl'))], { db: join(dir, 'index.db'), coldSamples: 1, env: {} });
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports only the train split by default', () => {
    expect(report.split).toBe('train');
    const s = report.sets[0]!;
    expect(s.evaluated).toBe(2);
    expect(s.queries.map((q) => q.id).sort()).toEqual(['qn', 'set']);
  });

  it('scores the exact qualified-name query perfectly under the name channel', () => {
    const name = report.sets[0]!.configs.find((c) => c.id === 'name')!;
    expect(report.sets[0]!.queries.find((q) => q.id === 'qn')!.configs['name']!.metrics).toEqual({
      ndcg10: 1, p5: 0.2, r20: 1, mrr: 1, s1: 1, s5: 1, allInTop10: null,
    });
    expect(name.status).toBe('ok');
    expect(name.negative.queries).toBe(1);
  });

  it('reports an unavailable vector channel instead of scoring it zero', () => {
    const vector = report.sets[0]!.configs.find((c) => c.id === 'vector')!;
    if (vector.status === 'unavailable') {
      expect(vector.overall).toBeNull();
      expect(vector.notices.some((n) => /vector channel off/.test(n))).toBe(true);
    } else {
      // Once embeddings land, the vector channel is scored like the others.
      expect(vector.overall?.n).toBe(2);
    }
  });

  it('renders a table that names the split', () => {
    expect(renderReportTable(report)).toMatch(/^ca eval — split: train/);
  });

  it('writes a self-contained HTML report: no external URLs, one SVG per chart', () => {
    const html = renderHtmlReport(report);
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?https?:/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    const charts = html.match(/<figure>/g) ?? [];
    const svgs = html.match(/<svg\b/g) ?? [];
    expect(charts.length).toBe(2);
    expect(svgs.length).toBe(charts.length);
    expect(html.match(/data-chart="archetypes"/g)).toHaveLength(1);
    expect(html.match(/data-chart="latency"/g)).toHaveLength(1);
  });

  it('gates against a baseline: passes on its own figures, fails when the baseline is 0.03 higher', () => {
    const baseline = baselineFromReport(report);
    expect(checkGate(report, baseline).ok).toBe(true);
    const hybrid = baseline.sets['fixture']!['hybrid']!;
    const higher = { ...baseline, sets: { fixture: { ...baseline.sets['fixture'], hybrid: hybrid + 0.03 } } };
    const gate = checkGate(report, higher);
    expect(gate.ok).toBe(false);
    expect(gate.failures[0]).toMatch(/^fixture: hybrid NDCG@10 [\d.]+ is more than 0.02 below the baseline/);
  });

  it('holds the learned ranker to its own baseline, and fails a run of it without one', () => {
    const baseline = baselineFromReport(report);
    const learned = baseline.sets['fixture']!['learned']!;
    expect(typeof learned).toBe('number');
    const higher = checkGate(report, { ...baseline, sets: { fixture: { ...baseline.sets['fixture'], learned: learned + 0.03 } } });
    expect(higher.failures).toEqual([
      `fixture: hybrid, learned ranker NDCG@10 ${learned.toFixed(4)} is more than 0.02 below the baseline ${(learned + 0.03).toFixed(4)}`,
    ]);
    // Within the tolerance it passes.
    expect(checkGate(report, { ...baseline, sets: { fixture: { ...baseline.sets['fixture'], learned: learned + 0.019 } } }).ok).toBe(true);
    const { learned: _dropped, ...without } = baseline.sets['fixture']!;
    const missing = checkGate(report, { ...baseline, sets: { fixture: without } });
    expect(missing.failures).toEqual(['fixture: no baseline for hybrid, learned ranker (write one with --write-baseline)']);
    // A set without any baseline is new: hybrid is skipped and reported, the learned ranker fails.
    const none = checkGate(report, { ...baseline, sets: {} });
    expect(none.lines).toContain('skip fixture: no baseline for hybrid (write one with --write-baseline)');
    expect(none.failures).toEqual(['fixture: no baseline for hybrid, learned ranker (write one with --write-baseline)']);
  });
});
