/**
 * Razor and Blazor through `Engine.index()` on fixtures/fullstack/backend (decision 041): the
 * markup usage of OrderList in OrderBoard.razor linked across files to the component and its
 * parameters, the handlers as callers, the Razor files' semantic state (the gap answers report),
 * and the name matching of the linker.
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, razorUseTarget, type NavigationResult } from '../src/index.js';
import { dbOf, dotnetMissing, REPO_ROOT } from './helpers.js';

// The semantic pass stays on: it is what records the Razor files' reason (with or without dotnet).
const OPTIONS = { env: {}, configOverrides: { embedding: { enabled: false } } };

function names(r: NavigationResult): string[] {
  const byId = new Map(r.nodes.map((n) => [n.id, n.qualifiedName]));
  byId.set(r.symbol.id, r.symbol.qualifiedName);
  return r.edges.map((e) => `${byId.get(e.from)} -${e.type}/${e.confidence}-> ${e.to === null ? e.targetName : byId.get(e.to)} @${e.line}`);
}

function razorStates(engine: Engine): unknown[] {
  return dbOf(engine)
    .prepare(`SELECT path, semantic_state AS state, semantic_reason AS reason FROM files WHERE path LIKE '%.razor' OR path LIKE '%.cshtml' ORDER BY path`)
    .all();
}

async function indexCopy(): Promise<Engine> {
  const repo = join(mkdtempSync(join(tmpdir(), 'ca-razor-')), 'repo');
  cpSync(join(REPO_ROOT, 'fixtures', 'fullstack', 'backend'), repo, { recursive: true });
  const engine = Engine.open(repo, OPTIONS);
  await engine.index();
  return engine;
}

// With the SDK's Razor generator (decision 052): its C#, mapped back through #line, gives exact
// edges that replace the syntactic pass's probable/approximate ones at the same source and line.
// CA_REQUIRE_DOTNET=1 makes a missing SDK or host build fail instead of skipping.
describe.skipIf(dotnetMissing() !== null)('Razor components with the SDK Razor generator (fixtures/fullstack/backend)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await indexCopy();
  }, 300_000);
  afterAll(() => engine.close());

  it('the Razor files are analysed: state ok', () => {
    // Components/_Imports.razor (its @using lines make OrderList and @onclick known to the generator)
    // and Pages/Checkout.cshtml are generated too, so every Razor file of the project is ok.
    expect(razorStates(engine)).toEqual([
      { path: 'Components/Pages/OrderBoard.razor', state: 'ok', reason: null },
      { path: 'Components/Shared/OrderList.razor', state: 'ok', reason: null },
      { path: 'Components/_Imports.razor', state: 'ok', reason: null },
      { path: 'Pages/Checkout.cshtml', state: 'ok', reason: null },
    ]);
  });

  it('refs of OrderList: the component usage <OrderList …/> on OrderBoard.razor line 7, exact', () => {
    const r = engine.navigate('refs', 'Shop.Api.Components.Shared.OrderList');
    expect(names(r)).toEqual(['Shop.Api.Components.Pages.OrderBoard -references/exact-> Shop.Api.Components.Shared.OrderList @7']);
  });

  it('refs of the parameters: Items="@items" (line 7) and OrderList\'s own @foreach over Items (its line 3)', () => {
    const items = engine.navigate('refs', 'Shop.Api.Components.Shared.OrderList.Items');
    expect(names(items).sort()).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -references/exact-> Shop.Api.Components.Shared.OrderList.Items @7',
      'Shop.Api.Components.Shared.OrderList -references/exact-> Shop.Api.Components.Shared.OrderList.Items @3',
    ]);
    // Title="Open" on line 7; OrderList's <h2>@Title</h2> on its line 1.
    const title = engine.navigate('refs', 'Shop.Api.Components.Shared.OrderList.Title');
    expect(names(title).sort()).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -references/exact-> Shop.Api.Components.Shared.OrderList.Title @7',
      'Shop.Api.Components.Shared.OrderList -references/exact-> Shop.Api.Components.Shared.OrderList.Title @1',
    ]);
  });

  it('handlers: @onclick="Refresh" (line 8) and Remove\'s call (line 21); OnSelect="Select" (line 7); the lambda calling Remove (line 9)', () => {
    expect(names(engine.navigate('callers', 'Shop.Api.Components.Pages.OrderBoard.Refresh')).sort()).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -calls/exact-> Shop.Api.Components.Pages.OrderBoard.Refresh @8',
      'Shop.Api.Components.Pages.OrderBoard.Remove -calls/exact-> Shop.Api.Components.Pages.OrderBoard.Refresh @21',
    ]);
    expect(names(engine.navigate('callers', 'Shop.Api.Components.Pages.OrderBoard.Select'))).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -calls/exact-> Shop.Api.Components.Pages.OrderBoard.Select @7',
    ]);
    expect(names(engine.navigate('callers', 'Shop.Api.Components.Pages.OrderBoard.Remove'))).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -calls/exact-> Shop.Api.Components.Pages.OrderBoard.Remove @9',
    ]);
  });

  it('the @inject service: Orders.ForCustomer(CustomerId) in Refresh (line 17) calls IOrderService.ForCustomer', () => {
    const r = engine.navigate('callers', 'Shop.Api.Services.IOrderService.ForCustomer');
    expect(names(r)).toEqual(['Shop.Api.Components.Pages.OrderBoard.Refresh -calls/exact-> Shop.Api.Services.IOrderService.ForCustomer @17']);
  });
});

// Without the generator (CA_RAZOR_GENERATOR_DIR names a folder that lacks it): today's syntactic
// edges, the Razor files' state none with the reason, and the gap in answers.
describe('Razor components without the Razor generator (fixtures/fullstack/backend)', () => {
  let engine: Engine;
  const saved = process.env['CA_RAZOR_GENERATOR_DIR'];
  beforeAll(async () => {
    process.env['CA_RAZOR_GENERATOR_DIR'] = mkdtempSync(join(tmpdir(), 'ca-no-razor-gen-'));
    engine = await indexCopy();
  }, 300_000);
  afterAll(() => {
    engine.close();
    if (saved === undefined) delete process.env['CA_RAZOR_GENERATOR_DIR'];
    else process.env['CA_RAZOR_GENERATOR_DIR'] = saved;
  });

  it('refs of OrderList: the usage in OrderBoard.razor line 7, linked by name across files', () => {
    const r = engine.navigate('refs', 'Shop.Api.Components.Shared.OrderList');
    expect(names(r)).toEqual(['Shop.Api.Components.Pages.OrderBoard -references/probable-> Shop.Api.Components.Shared.OrderList @7']);
  });

  it('refs of the OrderList.Items parameter: the attribute Items="@items" on line 7', () => {
    const r = engine.navigate('refs', 'Shop.Api.Components.Shared.OrderList.Items');
    expect(names(r)).toEqual(['Shop.Api.Components.Pages.OrderBoard -references/probable-> Shop.Api.Components.Shared.OrderList.Items @7']);
  });

  it('callers of Refresh: the @onclick on line 8 and the call in Remove on line 21; the Razor gap reported', () => {
    const r = engine.navigate('callers', 'Shop.Api.Components.Pages.OrderBoard.Refresh');
    expect(names(r).sort()).toEqual([
      'Shop.Api.Components.Pages.OrderBoard -calls/probable-> Shop.Api.Components.Pages.OrderBoard.Refresh @8',
      'Shop.Api.Components.Pages.OrderBoard.Remove -calls/approximate-> Shop.Api.Components.Pages.OrderBoard.Refresh @21',
    ]);
    expect(r.complete).toBe(false);
    expect(r.gaps.some((g) => g.reason.includes('syntactic: Razor generator not run'))).toBe(true);
  });

  it('the Razor files say why: state none, the generator not found (with dotnet) or the semantic pass unavailable', () => {
    const missing = dotnetMissing();
    const reason = missing === null
      ? `syntactic: Razor generator not run (Razor generator not found: Microsoft.CodeAnalysis.Razor.Compiler.dll is not in ${process.env['CA_RAZOR_GENERATOR_DIR']} (CA_RAZOR_GENERATOR_DIR))`
      : `syntactic: Razor generator not run (C# semantic pass unavailable: ${missing})`;
    const states = razorStates(engine) as { state: string; reason: string }[];
    expect(states.map((s) => s.state)).toEqual(['none', 'none', 'none', 'none']);
    expect(new Set(states.map((s) => s.reason))).toEqual(new Set([reason]));
  });

  it('the @page routes are endpoints handled by their components', () => {
    const board = engine.navigate('callees', 'GET /board/{customerId}');
    expect(names(board)).toEqual(['GET /board/{customerId} -handles/exact-> Shop.Api.Components.Pages.OrderBoard @1']);
  });
});

// Without the C# semantic pass at all (CA_ROSLYN_HOST_DLL names a host that is not built): the
// Razor files say both things — syntactic, and why no pass ran.
describe('Razor components without the C# semantic pass (fixtures/fullstack/backend)', () => {
  let engine: Engine;
  const saved = process.env['CA_ROSLYN_HOST_DLL'];
  const dll = join(tmpdir(), 'ca-no-host', 'CodeAgent.RoslynHost.dll');
  beforeAll(async () => {
    process.env['CA_ROSLYN_HOST_DLL'] = dll;
    engine = await indexCopy();
  }, 300_000);
  afterAll(() => {
    engine.close();
    if (saved === undefined) delete process.env['CA_ROSLYN_HOST_DLL'];
    else process.env['CA_ROSLYN_HOST_DLL'] = saved;
  });

  it('the Razor files: state none, the generator not run because the pass is unavailable', () => {
    const states = razorStates(engine) as { state: string; reason: string }[];
    expect(states.map((s) => s.state)).toEqual(['none', 'none', 'none', 'none']);
    expect(new Set(states.map((s) => s.reason))).toEqual(
      new Set([`syntactic: Razor generator not run (C# semantic pass unavailable: roslyn-host is not built: ${dll} is missing (run \`dotnet build -c Release roslyn-host\`))`]),
    );
  });
});

describe('razorUseTarget', () => {
  const rows = [
    { id: 1, name: 'OrderList', qualifiedName: 'Shop.Web.OrderList', parentName: null, project: 'Web/Web.csproj' },
    { id: 2, name: 'Items', qualifiedName: 'Shop.Web.OrderList.Items', parentName: 'OrderList', project: 'Web/Web.csproj' },
    { id: 3, name: 'Grid', qualifiedName: 'A.Grid', parentName: null, project: 'A/A.csproj' },
    { id: 4, name: 'Grid', qualifiedName: 'B.Grid', parentName: null, project: 'B/B.csproj' },
    { id: 5, name: 'Grid', qualifiedName: 'B.Other.Grid', parentName: null, project: 'B/B.csproj' },
  ];
  it('one component or one member of that name links (or the one of the usage\'s project); none or several do not', () => {
    expect(razorUseTarget('OrderList', rows)).toBe(1);
    expect(razorUseTarget('Shop.Web.OrderList', rows)).toBe(1);
    expect(razorUseTarget('OrderList.Items', rows)).toBe(2);
    expect(razorUseTarget('OrderList.Missing', rows)).toBeNull();
    // A fully qualified tag's parameter (`<Shop.Web.OrderList Items=…>`, as eShop's HybridApp writes one).
    expect(razorUseTarget('Shop.Web.OrderList.Items', rows)).toBe(2);
    // Three components named Grid: ambiguous, left unresolved; a qualified tag picks one.
    expect(razorUseTarget('Grid', rows)).toBeNull();
    expect(razorUseTarget('B.Grid', rows)).toBe(4);
    // From a file of project A: A's only Grid. From B: B has two, still ambiguous.
    expect(razorUseTarget('Grid', rows, 'A/A.csproj')).toBe(3);
    expect(razorUseTarget('Grid', rows, 'B/B.csproj')).toBeNull();
    expect(razorUseTarget('PageTitle', rows)).toBeNull();
  });
});
