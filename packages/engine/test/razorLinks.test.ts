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
import { REPO_ROOT } from './helpers.js';

// The semantic pass stays on: it is what records the Razor files' reason (with or without dotnet).
const OPTIONS = { env: {}, configOverrides: { embedding: { enabled: false } } };

function names(r: NavigationResult): string[] {
  const byId = new Map(r.nodes.map((n) => [n.id, n.qualifiedName]));
  byId.set(r.symbol.id, r.symbol.qualifiedName);
  return r.edges.map((e) => `${byId.get(e.from)} -${e.type}/${e.confidence}-> ${e.to === null ? e.targetName : byId.get(e.to)} @${e.line}`);
}

describe('Razor components in an index of fixtures/fullstack/backend', () => {
  let engine: Engine;
  beforeAll(async () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'ca-razor-')), 'repo');
    cpSync(join(REPO_ROOT, 'fixtures', 'fullstack', 'backend'), repo, { recursive: true });
    engine = Engine.open(repo, OPTIONS);
    await engine.index();
  }, 300_000);
  afterAll(() => engine.close());

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

  it('the @page routes are endpoints handled by their components', () => {
    const board = engine.navigate('callees', 'GET /board/{customerId}');
    expect(names(board)).toEqual(['GET /board/{customerId} -handles/exact-> Shop.Api.Components.Pages.OrderBoard @1']);
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
