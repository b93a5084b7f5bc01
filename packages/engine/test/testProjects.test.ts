import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { copyFixture, REPO_ROOT } from './helpers.js';

// fixtures/cs-testproj (see its README): no path there is a test path, so only the project files
// say which code is test code. Lexical channels only: the order below is the name and BM25
// channels' fusion with the rescoring penalties, no vector neighbours.
const FIXTURE = join(REPO_ROOT, 'fixtures', 'cs-testproj');
const options = { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } } as const;

// Every symbol of the two test projects (ShopChecks by its xunit reference, ShopVerification by
// IsTestProject), namespaces included, in `find`'s path order; Shop and the malformed
// broken/Broken.csproj contribute none.
const TEST_SYMBOLS = [
  'ShopChecks',
  'ShopChecks.DiscountChecks',
  'ShopChecks.DiscountChecks.ApplyDiscountTakesPercentOff',
  'ShopVerification',
  'ShopVerification.RoundingVerification',
  'ShopVerification.RoundingVerification.DiscountRoundsToCents',
];

type Results = { results: readonly { qualifiedName: string; testCode?: true }[] };
const ranked = (r: Results): string[] => r.results.map((x) => `${x.qualifiedName}${x.testCode ? ' [test]' : ''}`);
const names = (page: { results: readonly { qualifiedName: string }[] }): string[] => page.results.map((x) => x.qualifiedName);

describe('C# test projects by what they reference (fixtures/cs-testproj)', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = copyFixture(FIXTURE);
    engine = Engine.open(repo, options);
    await engine.index();
  }, 120_000);
  afterAll(async () => {
    await engine.dispose();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('is:test selects the nodes of both test projects and nothing of the product or the malformed project', () => {
    expect(names(engine.find('is:test'))).toEqual(TEST_SYMBOLS);
    expect(names(engine.find('is:test path:broken/**'))).toEqual([]);
  });

  it('a product query ranks the product class above the check that calls it', async () => {
    // The check's name holds every query word (Apply, Discount, Percent, Off), the product method
    // only three, so unpenalised the check outscores PriceCalculator (main's order:
    // ApplyDiscountTakesPercentOff, PriceCalculator, ShopChecks, …). Test code is halved
    // (TEST_PENALTY): the product class, with ApplyDiscount merged into it, comes first and the
    // test results keep their order among themselves.
    const r = await engine.search('apply discount percent off', { limit: 10 });
    expect(ranked(r)).toEqual([
      'Shop.PriceCalculator',
      'ShopChecks.DiscountChecks.ApplyDiscountTakesPercentOff [test]',
      'ShopChecks [test]',
      'ShopVerification.RoundingVerification [test]',
      'qa/ShopChecks/DiscountChecks.cs [test]',
    ]);
  });

  it('a query about tests does not rank test code down', async () => {
    // "tests" makes the query about tests: no penalty, so the check (every word in its name) leads.
    const r = await engine.search('tests apply discount percent off', { limit: 10 });
    // Unpenalised scores: the check first, then the product class, then the rest in the product
    // query's order (the same channel ranks, no halving).
    expect(ranked(r)).toEqual([
      'ShopChecks.DiscountChecks.ApplyDiscountTakesPercentOff [test]',
      'Shop.PriceCalculator',
      'ShopChecks [test]',
      'ShopVerification.RoundingVerification [test]',
      'qa/ShopChecks/DiscountChecks.cs [test]',
    ]);
  });
});

describe('an edited project file flips its nodes on the next index run', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = copyFixture(FIXTURE);
    engine = Engine.open(repo, options);
    await engine.index();
  }, 120_000);
  afterAll(async () => {
    await engine.dispose();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  /** `is:test` and a product query's ranking of a clean index of the same tree. */
  async function clean(): Promise<{ tests: string[]; ranking: string[] }> {
    const copy = copyFixture(repo);
    const fresh = Engine.open(copy, options);
    try {
      await fresh.index();
      return { tests: names(fresh.find('is:test')), ranking: ranked(await fresh.search('ledger balance', { limit: 10 })) };
    } finally {
      await fresh.dispose();
      rmSync(join(copy, '..'), { recursive: true, force: true });
    }
  }

  it('the malformed project repaired with IsTestProject makes Ledger test code (a run over that path)', async () => {
    // Ledger (Balance merged into it), its namespace and its file: all product code for now.
    expect(ranked(await engine.search('ledger balance', { limit: 10 }))).toEqual(['Broken.Ledger', 'Broken', 'broken/Ledger.cs']);
    writeFileSync(join(repo, 'broken/Broken.csproj'), '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <IsTestProject>true</IsTestProject>\n  </PropertyGroup>\n</Project>\n');
    await engine.index({ paths: ['broken/Broken.csproj'] });
    // Broken's namespace, Ledger and its property join the six symbols of the two test projects.
    const tests = ['Broken', 'Broken.Ledger', 'Broken.Ledger.Balance', ...TEST_SYMBOLS];
    expect(names(engine.find('is:test'))).toEqual(tests);
    // All three halved alike: the same order, now marked test code.
    const ranking = ['Broken.Ledger [test]', 'Broken [test]', 'broken/Ledger.cs [test]'];
    expect(ranked(await engine.search('ledger balance', { limit: 10 }))).toEqual(ranking);
    expect(await clean()).toEqual({ tests, ranking });
  });

  it('IsTestProject false overrides the xunit reference (a full run)', async () => {
    const csproj = join(repo, 'qa/ShopChecks/ShopChecks.csproj');
    writeFileSync(csproj, '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <IsTestProject>false</IsTestProject>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include="xunit" Version="2.9.2" />\n  </ItemGroup>\n</Project>\n');
    await engine.index();
    // ShopChecks' three symbols leave; Broken (previous step) and ShopVerification stay.
    const tests = ['Broken', 'Broken.Ledger', 'Broken.Ledger.Balance', ...TEST_SYMBOLS.slice(3)];
    expect(names(engine.find('is:test'))).toEqual(tests);
    expect(await clean()).toEqual({ tests, ranking: ['Broken.Ledger [test]', 'Broken [test]', 'broken/Ledger.cs [test]'] });
  });
});
