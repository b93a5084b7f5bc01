import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport } from '../src/index.js';
import { copyFixture, dbOf, dotnetMissing, REPO_ROOT } from './helpers.js';

const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
/** .cs files under src/Acme.Core of the fixture (counted by hand: 12). */
const CORE_CS_FILES = 12;
const hasDotnet = dotnetMissing() === null;

describe('C# syntactic index (fixtures/cs-solution)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(CS), { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  });
  afterAll(() => engine.close());

  it('merges the partial class over its files and keeps generated fragments', () => {
    const customer = engine.findSymbols('Acme.Core.Domain.Customer');
    expect(customer.map((n) => [n.kind, n.path, n.startLine])).toEqual([['class', 'src/Acme.Core/Domain/Customer.Billing.cs', 6]]);
    const spans = dbOf(engine)
      .prepare(`SELECT f.path FROM node_spans s JOIN files f ON f.id = s.file_id WHERE s.node_id = ? ORDER BY f.path`)
      .all(customer[0]!.id);
    expect(spans).toEqual([{ path: 'src/Acme.Core/Domain/Customer.cs' }]);
  });

  it('parses a project\'s files again when its preprocessor symbols change (text unchanged)', async () => {
    const snapshot = () => engine.findSymbols('Acme.Core.Billing.SubscriptionService.Snapshot').map((n) => n.returnType);
    expect(snapshot()).toEqual(['IReadOnlyList<Customer>']);
    const csproj = join(engine.repoRoot, 'src/Acme.Core/Acme.Core.csproj');
    writeFileSync(csproj, readFileSync(csproj, 'utf8').replace('<TargetFramework>net8.0</TargetFramework>', '<TargetFramework>net472</TargetFramework>'));
    const r = await engine.index();
    // Every .cs file of Acme.Core is parsed again (the .csproj itself is not a source file).
    expect(r.changed).toBe(CORE_CS_FILES);
    expect(snapshot()).toEqual(['IList<Customer>']);
    const again = await engine.index();
    expect(again.changed).toBe(0);
  });

  it('reports C# as syntactic-only when the semantic pass is disabled', () => {
    const r = engine.navigate('callers', 'Acme.Core.Text.StringExtensions.Slugify');
    expect(r.complete).toBe(false);
    expect(r.gaps.map((g) => g.scope)).toEqual(['project src/Acme.App/Acme.App.csproj (cs)', 'project src/Acme.Core/Acme.Core.csproj (cs)']);
  });
});

describe.skipIf(!hasDotnet)('C# semantic pass through roslyn-host', () => {
  let engine: Engine;
  let report: IndexReport;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(CS), { env: {}, configOverrides: { embedding: { enabled: false } } });
    report = await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  const name = (id: string | null) => (id === null ? null : engine.reader().nodeById(Number(id))!.qualifiedName);

  it('analyses both projects and replaces approximate edges with exact ones', () => {
    expect(report.semantic?.cs?.projects).toBe(2);
    expect(report.semantic?.cs?.failedProjects).toEqual([]);
    const r = engine.navigate('callers', 'Acme.Core.Text.StringExtensions.Slugify');
    expect(r.complete).toBe(true);
    expect(r.gaps).toEqual([]);
    expect(r.edges.map((e) => [name(e.from), e.type, e.confidence, e.path, e.line])).toEqual([
      ['Acme.App.Program.Main', 'calls', 'exact', 'src/Acme.App/Program.cs', 18],
    ]);
  });

  /** Every exact edge of the index as comparable text, by source file. */
  const exactEdges = (e: Engine) =>
    (
      dbOf(e)
        .prepare(
          `SELECT f.path, s.qualified_name AS source, e.type, e.target_key AS target, e.line FROM edges e
           JOIN nodes s ON s.id = e.source_id JOIN files f ON f.id = e.file_id WHERE e.confidence = 'exact' ORDER BY 1, 2, 3, 4, 5`,
        )
        .all() as { path: string; source: string; type: string; target: string; line: number }[]
    ).map((r) => `${r.path} ${r.source} ${r.type} ${r.target} L${r.line}`);

  it('an edit re-analyses only the edited file; counts and the other files\' edges stay right', async () => {
    const slugify = 'Acme.Core.Text.StringExtensions.Slugify';
    const count = () => engine.findSymbols(slugify)[0]!.referenceCount;
    expect(count()).toBe(1); // Program.cs:18
    const before = exactEdges(engine).filter((l) => !l.startsWith('src/Acme.Core/Text/StringExtensions.cs '));
    const file = join(engine.repoRoot, 'src/Acme.Core/Text/StringExtensions.cs');
    const text = readFileSync(file, 'utf8');
    // Line 17: two calls of Slugify on one line are one edge (one per using symbol and line).
    writeFileSync(file, text.replace(/}\s*$/, '    public static string SlugTwice(this string s) => s.Slugify().Slugify();\n}\n'));
    const r = await engine.index();
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents]).toEqual([1, 1]);
    expect(engine.navigate('callers', slugify).edges.map((e) => [name(e.from), e.type, e.confidence, e.path, e.line])).toEqual([
      ['Acme.App.Program.Main', 'calls', 'exact', 'src/Acme.App/Program.cs', 18],
      ['Acme.Core.Text.StringExtensions.SlugTwice', 'calls', 'exact', 'src/Acme.Core/Text/StringExtensions.cs', 17],
    ]);
    expect(count()).toBe(2);
    expect(exactEdges(engine).filter((l) => !l.startsWith('src/Acme.Core/Text/StringExtensions.cs '))).toEqual(before);
    // The partial pass gives what a fresh index of the same tree gives.
    const fresh = Engine.open(engine.repoRoot, { dbPath: join(engine.repoRoot, '..', `fresh-${Date.now()}.db`), env: {}, configOverrides: { embedding: { enabled: false } } });
    try {
      await fresh.index();
      expect(exactEdges(engine)).toEqual(exactEdges(fresh));
    } finally {
      fresh.close();
    }
  }, 180_000);

  it('lists both gateway implementations, exact', () => {
    const r = engine.navigate('impls', 'Acme.Core.Payments.IPaymentGateway');
    expect(r.edges.map((e) => [name(e.from), e.type, e.confidence])).toEqual([
      ['Acme.Core.Payments.StripeGateway', 'implements', 'exact'],
      ['Acme.Core.Payments.PayPalGateway', 'implements', 'exact'],
    ]);
  });
});
