/**
 * roslyn-host's Razor pass on the wire (decision 052): the SDK's Razor generator over
 * fixtures/fullstack/backend, its status in `loadProject`, and the symbols and edges of a `.razor`
 * document mapped back to the Razor lines (expected values written by hand from the fixture); the
 * generator warmed up in the background (`prepareRazor`) gives the same results, and an edited
 * Razor file reloaded in the same host gives the edited file's edges.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoslynHost } from '../src/roslyn/index.js';
import type { AnalyzeResult, LoadProjectResult } from '../src/roslyn/index.js';
import { doc, ensureHostBuilt, hasDotnet, repoRoot } from './roslynHelpers.js';

const backend = join(repoRoot, 'fixtures', 'fullstack', 'backend');

describe.skipIf(!hasDotnet)('roslyn-host: the SDK Razor generator on fixtures/fullstack/backend', () => {
  let host: RoslynHost;
  let load: LoadProjectResult;
  let result: AnalyzeResult;

  beforeAll(async () => {
    ensureHostBuilt();
    host = new RoslynHost();
    load = await host.loadProject({ projectPath: 'Shop.Api.csproj', repoRoot: backend });
    result = await host.analyze({ paths: ['Components/Pages/OrderBoard.razor'], includeReferenceCounts: false });
  }, 600_000);
  afterAll(async () => {
    await host?.dispose();
  });

  it('reports the generator ran, with every Razor file of the project as a document', () => {
    const project = load.projects[0]!;
    expect(project.razor).toEqual({
      generatorRan: true,
      documents: ['Components/Pages/OrderBoard.razor', 'Components/Shared/OrderList.razor', 'Components/_Imports.razor', 'Pages/Checkout.cshtml'],
      errors: [],
    });
    expect(project.documents).toEqual(expect.arrayContaining(['Components/Pages/OrderBoard.razor', 'Pages/Checkout.cshtml', 'Program.cs']));
  });

  it('the component spans the file (25 lines); @code members and the @inject property keep their Razor lines', () => {
    const d = doc(result, 'Components/Pages/OrderBoard.razor');
    expect(d.lineCount).toBe(25);
    expect(d.generated).toBe(false);
    const rows = d.symbols.filter((s) => s.kind !== 'getter' && s.kind !== 'setter').map((s) => `${s.kind} ${s.key} ${s.startLine}-${s.endLine}`);
    expect(rows).toEqual([
      'component T:Shop.Api.Components.Pages.OrderBoard 1-25',
      'field F:Shop.Api.Components.Pages.OrderBoard.items 12-12',
      'field F:Shop.Api.Components.Pages.OrderBoard.selected 13-13',
      'property P:Shop.Api.Components.Pages.OrderBoard.CustomerId 15-15',
      'method M:Shop.Api.Components.Pages.OrderBoard.Refresh 17-17',
      'method M:Shop.Api.Components.Pages.OrderBoard.Select(Shop.Api.Models.OrderDto) 19-19',
      'method M:Shop.Api.Components.Pages.OrderBoard.Remove(Shop.Api.Models.OrderDto) 21-21',
      'method M:Shop.Api.Components.Pages.OrderBoard.Dispose 23-23',
      // `@inject IOrderService Orders` on line 2: the generator declares it after the @code block.
      'property P:Shop.Api.Components.Pages.OrderBoard.Orders 2-2',
    ]);
  });

  it('markup edges come from the component at their Razor lines; no generator plumbing (RenderTreeBuilder) is reported', () => {
    const d = doc(result, 'Components/Pages/OrderBoard.razor');
    const markup = d.edges
      .filter((e) => e.sourceKey === 'T:Shop.Api.Components.Pages.OrderBoard')
      .map((e) => `${e.line} ${e.type} ${e.targetKey} ${e.targetKind} ${e.targetPath ?? '-'}:${e.targetLine ?? '-'}`);
    expect(markup).toEqual([
      // @implements IDisposable (line 3).
      '3 implements T:System.IDisposable interface -:-',
      // <h1>Orders of @CustomerId</h1>
      '6 references P:Shop.Api.Components.Pages.OrderBoard.CustomerId property Components/Pages/OrderBoard.razor:15',
      // <OrderList Items="@items" Title="Open" OnSelect="Select" @key="CustomerId" />: the handler
      // method group is a call, the tag a reference to the component (line 1 of its file), each
      // parameter a reference to its [Parameter] property, @key a reference to CustomerId.
      '7 calls M:Shop.Api.Components.Pages.OrderBoard.Select(Shop.Api.Models.OrderDto) method Components/Pages/OrderBoard.razor:19',
      '7 references F:Shop.Api.Components.Pages.OrderBoard.items field Components/Pages/OrderBoard.razor:12',
      '7 references P:Shop.Api.Components.Pages.OrderBoard.CustomerId property Components/Pages/OrderBoard.razor:15',
      '7 references P:Shop.Api.Components.Shared.OrderList.Items property Components/Shared/OrderList.razor:10',
      '7 references P:Shop.Api.Components.Shared.OrderList.OnSelect property Components/Shared/OrderList.razor:12',
      '7 references P:Shop.Api.Components.Shared.OrderList.Title property Components/Shared/OrderList.razor:11',
      '7 references T:Shop.Api.Components.Shared.OrderList component Components/Shared/OrderList.razor:1',
      // <button @onclick="Refresh">
      '8 calls M:Shop.Api.Components.Pages.OrderBoard.Refresh method Components/Pages/OrderBoard.razor:17',
      // <button @onclick="() => Remove(selected)">
      '9 calls M:Shop.Api.Components.Pages.OrderBoard.Remove(Shop.Api.Models.OrderDto) method Components/Pages/OrderBoard.razor:21',
      '9 references F:Shop.Api.Components.Pages.OrderBoard.selected field Components/Pages/OrderBoard.razor:13',
    ]);
    expect(d.edges.some((e) => e.targetKey.includes('RenderTreeBuilder'))).toBe(false);
  });

  it('the @inject service call inside @code: Refresh calls IOrderService.ForCustomer (line 17)', () => {
    const d = doc(result, 'Components/Pages/OrderBoard.razor');
    expect(d.edges.filter((e) => e.targetKey === 'M:Shop.Api.Services.IOrderService.ForCustomer(System.Int32)')).toEqual([
      {
        type: 'calls',
        confidence: 'exact',
        sourceKey: 'M:Shop.Api.Components.Pages.OrderBoard.Refresh',
        targetKey: 'M:Shop.Api.Services.IOrderService.ForCustomer(System.Int32)',
        targetName: 'ForCustomer',
        targetKind: 'method',
        targetPath: 'Services/IOrderService.cs',
        targetLine: 8,
        line: 17,
      },
    ]);
  });
});

/** A repository holding a copy of the backend (edited by the second test). */
function copyOfBackend(): string {
  const root = mkdtempSync(join(tmpdir(), 'ca-razor-warm-'));
  cpSync(backend, join(root, 'backend'), { recursive: true });
  return root;
}

const RAZOR_DOCUMENTS = ['backend/Components/Pages/OrderBoard.razor', 'backend/Components/Shared/OrderList.razor', 'backend/Pages/Checkout.cshtml'];

describe.skipIf(!hasDotnet)('roslyn-host: the Razor generator warmed up in the background (prepareRazor), a Razor file edited between loads', () => {
  let root: string;
  let logFile: string;
  let warm: RoslynHost;
  let cold: RoslynHost;

  beforeAll(() => {
    ensureHostBuilt();
    root = copyOfBackend();
    logFile = join(root, 'host.log');
    // The host reads CA_ROSLYN_HOST_LOG at start: only the warmed host writes the debug log.
    process.env['CA_ROSLYN_HOST_LOG'] = logFile;
    warm = new RoslynHost();
  });
  afterAll(async () => {
    delete process.env['CA_ROSLYN_HOST_LOG'];
    await warm?.dispose();
    await cold?.dispose();
  });

  it('prepareRazor answers at once and warms up in the background; the Razor project then gives what a host without warm-up gives', async () => {
    await warm.start();
    delete process.env['CA_ROSLYN_HOST_LOG'];
    expect(await warm.prepareRazor({ projectPath: 'backend/Shop.Api.csproj', repoRoot: root })).toEqual({ started: true });
    // Once per process.
    expect(await warm.prepareRazor({ projectPath: 'backend/Shop.Api.csproj', repoRoot: root })).toEqual({ started: false });
    const warmLoad = await warm.loadProject({ projectPath: 'backend/Shop.Api.csproj', repoRoot: root });
    const warmResult = await warm.analyze({ paths: RAZOR_DOCUMENTS, includeReferenceCounts: false });

    cold = new RoslynHost();
    const coldLoad = await cold.loadProject({ projectPath: 'backend/Shop.Api.csproj', repoRoot: root });
    const coldResult = await cold.analyze({ paths: RAZOR_DOCUMENTS, includeReferenceCounts: false });

    // The warm-up ran (and ended) before the project's own generator run, which waited for it.
    const log = readFileSync(logFile, 'utf8').split('\n');
    const warmed = log.findIndex((l) => l.includes('razor generator: warmed up in'));
    const run = log.findIndex((l) => l.includes('razor generator: Shop.Api,'));
    expect(warmed).toBeGreaterThan(-1);
    expect(run).toBeGreaterThan(warmed);

    expect(warmLoad.projects[0]!.razor).toEqual(coldLoad.projects[0]!.razor);
    expect(warmLoad.projects[0]!.razor?.documents).toEqual([
      'backend/Components/Pages/OrderBoard.razor',
      'backend/Components/Shared/OrderList.razor',
      'backend/Components/_Imports.razor',
      'backend/Pages/Checkout.cshtml',
    ]);
    expect(warmResult.documents).toEqual(coldResult.documents);
    // Not an empty comparison: the board's markup edges are there (lines 6–9, as in the fixture's own test).
    const board = doc(warmResult, 'backend/Components/Pages/OrderBoard.razor');
    expect(board.edges.filter((e) => e.sourceKey === 'T:Shop.Api.Components.Pages.OrderBoard').map((e) => e.line)).toEqual([3, 6, 7, 7, 7, 7, 7, 7, 7, 8, 9, 9]);
  }, 600_000);

  it("a Razor file edited between two loads: the reload gives the edited file's edges", async () => {
    const path = join(root, 'backend', 'Components', 'Pages', 'OrderBoard.razor');
    const lines = readFileSync(path, 'utf8').split('\n');
    // A new markup line 10 reading `items`; the @code block moves down one line (items is declared on line 13).
    lines.splice(9, 0, '<p>@items.Count</p>');
    writeFileSync(path, lines.join('\n'));
    await warm.loadProject({ projectPath: 'backend/Shop.Api.csproj', repoRoot: root });
    const result = await warm.analyze({ paths: ['backend/Components/Pages/OrderBoard.razor'], includeReferenceCounts: false });
    const board = doc(result, 'backend/Components/Pages/OrderBoard.razor');
    expect(board.lineCount).toBe(26);
    expect(
      board.edges
        .filter((e) => e.targetKey === 'F:Shop.Api.Components.Pages.OrderBoard.items')
        .map((e) => `${e.line} ${e.type} ${e.sourceKey} ${e.targetPath}:${e.targetLine}`),
    ).toEqual([
      '7 references T:Shop.Api.Components.Pages.OrderBoard backend/Components/Pages/OrderBoard.razor:13',
      '10 references T:Shop.Api.Components.Pages.OrderBoard backend/Components/Pages/OrderBoard.razor:13',
      '18 references M:Shop.Api.Components.Pages.OrderBoard.Refresh backend/Components/Pages/OrderBoard.razor:13',
      '22 references M:Shop.Api.Components.Pages.OrderBoard.Remove(Shop.Api.Models.OrderDto) backend/Components/Pages/OrderBoard.razor:13',
    ]);
  }, 600_000);
});
