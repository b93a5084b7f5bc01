import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport } from '../src/index.js';
import { copyFixture, REPO_ROOT, dbOf } from './helpers.js';

const MONO = join(REPO_ROOT, 'fixtures', 'ts-monorepo');

describe('TS semantic pass + navigation (fixtures/ts-monorepo)', () => {
  let engine: Engine;
  let report: IndexReport;
  let repo: string;
  beforeAll(async () => {
    repo = copyFixture(MONO);
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    report = await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  const q = (id: string | null) => (id === null ? null : engine.reader().nodeById(Number(id))!.qualifiedName);
  const rows = (r: ReturnType<Engine['navigate']>, end: 'from' | 'to') =>
    r.edges.map((e) => [q(e[end]), e.type, e.confidence, e.path, e.line]);

  it('runs one program per workspace package and refines package API keys', () => {
    expect(report.semantic?.ts?.projects).toBe(2);
    expect(report.semantic?.ts?.failedProjects).toEqual([]);
    expect(engine.findSymbols('formatMoney')[0]!.symbolKey).toBe('ts:pkg:@mono/core#formatMoney(Money)');
  });

  it('callers resolve through aliases and across packages, exact and complete', () => {
    const r = engine.navigate('callers', 'formatMoney');
    expect(r.complete).toBe(true);
    expect(rows(r, 'from')).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 8],
      ['StripeGateway.charge', 'calls', 'exact', 'packages/core/src/payments/stripeGateway.ts', 11],
      ['PriceTag', 'calls', 'exact', 'packages/web/src/PriceTag.tsx', 14],
    ]);
  });

  const referenceCount = (name: string) => engine.findSymbols(name)[0]!.referenceCount;

  it('reference counts add up the exact use sites of every project', () => {
    // formatMoney: checkout.ts:8 and stripeGateway.ts:11 (project core), PriceTag.tsx:14 through
    // the alias `fmt` (project web). PaymentGateway: the type of checkout's parameter (core,
    // checkout.ts:6) and of `gateway` (web, App.tsx:5); `implements` clauses are not references.
    // Before store migration 7 the project applied last overwrote the others: 1 and 1.
    expect(referenceCount('formatMoney')).toBe(3);
    expect(referenceCount('PaymentGateway')).toBe(2);
    expect(referenceCount('parseMoney')).toBeNull();
  });

  it('a call through an abstract member goes to that member; a call on a subclass instance to the override', () => {
    expect(rows(engine.navigate('callers', 'Shape.area'), 'from')).toEqual([['Shape.describe', 'calls', 'exact', 'packages/core/src/shapes.ts', 5]]);
    expect(rows(engine.navigate('callers', 'Circle.area'), 'from')).toEqual([['App', 'calls', 'exact', 'packages/web/src/App.tsx', 9]]);
  });

  it('impls: overrides of an abstract member, subclasses of an abstract class, implementations of an interface member', () => {
    expect(rows(engine.navigate('impls', 'Shape.area'), 'from')).toEqual([
      ['Circle.area', 'overrides', 'exact', 'packages/core/src/shapes.ts', 14],
      ['Square.area', 'overrides', 'exact', 'packages/core/src/shapes.ts', 24],
    ]);
    expect(rows(engine.navigate('impls', 'Shape'), 'from').map((r) => [r[0], r[1], r[2]])).toEqual([
      ['Circle', 'inherits', 'exact'],
      ['Square', 'inherits', 'exact'],
    ]);
    expect(rows(engine.navigate('impls', 'PaymentGateway.charge'), 'from').map((r) => [r[0], r[1], r[2]])).toEqual([
      ['PaypalGateway.charge', 'implements', 'exact'],
      ['StripeGateway.charge', 'implements', 'exact'],
    ]);
  });

  it('a dynamic call through an interface reaches implementations with --through-interfaces', () => {
    expect(rows(engine.navigate('callers', 'StripeGateway.charge'), 'from')).toEqual([]);
    const through = engine.navigate('callers', 'StripeGateway.charge', { throughInterfaces: true });
    expect(rows(through, 'from')).toEqual([['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 7]]);
  });

  it('callees of a component include JSX usage and constructor calls', () => {
    const r = engine.navigate('callees', 'App', { minConfidence: 'exact' });
    expect(rows(r, 'to').map((x) => [x[0], x[1], x[4]])).toEqual([
      ['Circle', 'calls', 8],
      ['checkout', 'calls', 9],
      ['Circle.area', 'calls', 9],
      ['PriceTag', 'calls', 12],
      ['Button', 'calls', 13],
      ['Shape.describe', 'calls', 13],
    ]);
  });

  it('a newer semantic extractor re-analyses every file; the same one analyses nothing again', async () => {
    const again = await engine.index();
    expect(again.semantic?.ts).toBeUndefined();
    // As if the index had been written by an older ca, before the metadata key existed: its
    // semantic edges name the old extractor.
    dbOf(engine).prepare(`DELETE FROM _metadata WHERE key = 'semantic_extractor:ts,js'`).run();
    dbOf(engine).prepare(`UPDATE edges SET extractor = 'semantic:ts-semantic-0' WHERE extractor LIKE 'semantic:ts-%'`).run();
    const upgraded = await engine.index();
    expect(upgraded.semantic?.ts?.projects).toBe(2);
    expect(upgraded.semantic?.ts?.files).toBe(report.semantic?.ts?.files);
    expect(engine.reader().metadata('semantic_extractor:ts,js')).toMatch(/^semantic:ts-semantic-\d+$/);
    expect(engine.reader().metadata('semantic_extractor:ts,js')).not.toBe('semantic:ts-semantic-0');
    expect(rows(engine.navigate('callers', 'StripeGateway.charge', { throughInterfaces: true }), 'from')).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 7],
    ]);
  }, 120_000);

  it('a partial pass after an edit still resolves calls into package-keyed symbols of unchanged files', async () => {
    const file = join(repo, 'packages/web/src/PriceTag.tsx');
    appendFileSync(file, '\n// touched\n');
    const r = await engine.index();
    expect(r.semantic?.ts?.files).toBe(1);
    // formatMoney (money.ts, unchanged) carries its package key from the first pass.
    expect(engine.findSymbols('formatMoney')[0]!.symbolKey).toBe('ts:pkg:@mono/core#formatMoney(Money)');
    const callers = rows(engine.navigate('callers', 'formatMoney'), 'from').filter((x) => x[3] === 'packages/web/src/PriceTag.tsx');
    expect(callers).toEqual([['PriceTag', 'calls', 'exact', 'packages/web/src/PriceTag.tsx', 14]]);
  }, 120_000);

  it('a second edit on the same engine (warm semantic worker) moves the call to its new target', async () => {
    const file = join(repo, 'packages/web/src/PriceTag.tsx');
    writeFileSync(file, readFileSync(file, 'utf8').replace('formatMoney as fmt', 'parseMoney as fmt'));
    const r = await engine.index();
    expect(r.semantic?.ts?.files).toBe(1);
    const fromPriceTag = (name: string) => rows(engine.navigate('callers', name), 'from').filter((x) => x[3] === 'packages/web/src/PriceTag.tsx');
    expect(fromPriceTag('parseMoney')).toEqual([['PriceTag', 'calls', 'exact', 'packages/web/src/PriceTag.tsx', 14]]);
    expect(fromPriceTag('formatMoney')).toEqual([]);
    // The partial pass of PriceTag.tsx moved one use: the counts of unchanged files stay.
    expect([referenceCount('formatMoney'), referenceCount('parseMoney')]).toEqual([2, 1]);
  }, 120_000);

  it('an edit of the file declaring a package-keyed symbol keeps its id: callers in unchanged files stay exact', async () => {
    const before = engine.findSymbols('formatMoney')[0]!;
    const callersBefore = rows(engine.navigate('callers', 'formatMoney'), 'from');
    expect(callersBefore).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 8],
      ['StripeGateway.charge', 'calls', 'exact', 'packages/core/src/payments/stripeGateway.ts', 11],
    ]);
    // Re-parsed, money.ts gives formatMoney its syntactic key again (ts:file:…); the node must be
    // the same one, or the exact edges checkout.ts and stripeGateway.ts hold lose their target.
    appendFileSync(join(repo, 'packages/core/src/money.ts'), '\nexport function addedLater(): number {\n  return 1;\n}\n');
    await engine.index();
    const after = engine.findSymbols('formatMoney')[0]!;
    expect([after.id, after.symbolKey]).toEqual([before.id, 'ts:pkg:@mono/core#formatMoney(Money)']);
    expect(rows(engine.navigate('callers', 'formatMoney'), 'from')).toEqual(callersBefore);
  }, 120_000);

  it('deleting a file takes its uses out of the counts', async () => {
    rmSync(join(repo, 'packages/core/src/checkout.ts'));
    await engine.index();
    expect([referenceCount('formatMoney'), referenceCount('PaymentGateway')]).toEqual([1, 1]);
  }, 120_000);
});

describe('which failed semantic passes a new run retries', () => {
  it('a deadline that cut the pass short is retried by the next run; a project that does not load is not, until asked', async () => {
    const repo = copyFixture(MONO);
    const OFF = { embedding: { enabled: false } };
    // A 1 ms deadline: every project of the pass times out.
    const hurried = Engine.open(repo, { env: {}, configOverrides: { ...OFF, semantic: { request_timeout_ms: 1 } } });
    const first = await hurried.index();
    hurried.close();
    expect(first.semantic?.ts?.failedProjects.every((p) => p.reason.startsWith('timeout'))).toBe(true);
    // ts-monorepo's 14 TS/JS files all failed for the run's own reason: the next run (a new engine, as a new `ca index`) analyses them.
    const engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    try {
      const next = await engine.index();
      expect([next.changed, next.semantic?.ts?.files, next.semantic?.ts?.failedProjects]).toEqual([0, 14, []]);
      // A project that cannot load (invalid JSON) fails for its own reason: a new engine does not start the compiler for it again…
      writeFileSync(join(repo, 'packages/web/tsconfig.json'), '{ oops');
      const broken = await engine.index();
      expect(broken.semantic?.ts?.failedProjects.map((p) => p.reason.split(':')[0])).toEqual(['project_load_failed']);
      engine.close();
      const later = Engine.open(repo, { env: {}, configOverrides: OFF });
      try {
        expect((await later.index()).semantic).toBeUndefined();
        // …unless asked to (the MCP index_files tool).
        expect((await later.index({ retryFailedSemantic: true })).semantic?.ts?.failedProjects.map((p) => p.reason.split(':')[0])).toEqual(['project_load_failed']);
      } finally {
        later.close();
      }
    } finally {
      engine.close();
    }
  }, 180_000);
});
