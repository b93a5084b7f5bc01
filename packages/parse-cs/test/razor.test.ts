/**
 * The Razor pass (decision 041) over the Blazor and Razor Pages files of the full-stack fixture
 * (fixtures/fullstack/backend, project Shop.Api.csproj at the fixture's root, RootNamespace
 * Shop.Api) and over bad input generated here. Every node, span and edge is derived by hand from
 * the fixture's text in the comments.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileIndex, LanguageAdapter } from '@ca/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsAdapter, createRazorProjectLookup, csharpLanguage, isRazorPath, razorNamespace, razorPageRoute } from '../src/index.js';

const BACKEND = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/fullstack/backend');
const SHOP = { dir: '', rootNamespace: 'Shop.Api' };

let cs: LanguageAdapter;
beforeAll(async () => {
  cs = await createCsAdapter({ razorProject: () => SHOP });
});
afterAll(async () => {
  await cs.dispose?.();
});

function fixture(path: string): string {
  return readFileSync(join(BACKEND, path), 'utf8');
}

/** `kind qualifiedName lines bytes parent` per node. */
function nodeRows(index: FileIndex): string[] {
  return index.nodes.map((n) => `${n.kind} ${n.qualifiedName} ${n.span.startLine}-${n.span.endLine} ${n.span.startByte}-${n.span.endByte} ${n.parentLocalId ?? '-'}`);
}

/** `source type/confidence target @line`, the source and a local target by qualified name. */
function edgeRows(index: FileIndex): string[] {
  const byId = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  return index.edges.map((e) => `${byId.get(e.sourceLocalId)} ${e.type}/${e.confidence} ${e.target.localId !== undefined ? byId.get(e.target.localId) : e.target.key} @${e.line}`);
}

/** [start, end) of `decl` in `text` (ASCII fixtures: characters are bytes). */
function at(text: string, decl: string): string {
  const start = text.indexOf(decl);
  expect(start).toBeGreaterThanOrEqual(0);
  return `${start}-${start + decl.length}`;
}

describe('Blazor components of fixtures/fullstack/backend', () => {
  it('OrderBoard.razor: the component, @page, @inject, @code members with their spans', () => {
    const text = fixture('Components/Pages/OrderBoard.razor');
    const idx = cs.parse({ path: 'Components/Pages/OrderBoard.razor', text }) as FileIndex;
    expect([idx.language, idx.parseStatus, idx.lineCount, idx.diagnostics]).toEqual(['cs', 'ok', 24, []]);
    const C = 'Shop.Api.Components.Pages.OrderBoard';
    // The file is 763 bytes over 24 lines; the component spans it (Razor makes the file one class).
    // Namespace: root namespace Shop.Api + folders Components/Pages (no @namespace in the file).
    expect(nodeRows(idx)).toEqual([
      'file Components/Pages/OrderBoard.razor 1-24 0-763 -',
      `component ${C} 1-24 0-763 r0`,
      // Line 1 `@page "/board/{customerId:int}"` is 31 characters; the endpoint belongs to the file.
      'endpoint GET /board/{customerId} 1-1 0-31 r0',
      // Line 2 starts at 32: `@inject IOrderService Orders` is 28 characters.
      `property ${C}.Orders 2-2 32-60 r1`,
      `property ${C}.CustomerId 15-15 ${at(text, '[Parameter] public int CustomerId { get; set; }')} r1`,
      `method ${C}.Refresh 17-17 ${at(text, 'private void Refresh() { items = Orders.ForCustomer(CustomerId); }')} r1`,
      `method ${C}.Select 19-19 ${at(text, 'private void Select(OrderDto order) { selected = order; }')} r1`,
      `method ${C}.Remove 21-21 ${at(text, 'private void Remove(OrderDto? order) { if (order is not null) { items.Remove(order); Refresh(); } }')} r1`,
      `method ${C}.Dispose 23-23 ${at(text, 'public void Dispose() { }')} r1`,
    ]);
    const inject = idx.nodes.find((n) => n.name === 'Orders')!;
    expect([inject.signature, inject.returnType, inject.attributes]).toEqual(['[Inject] IOrderService Orders', 'IOrderService', ['Inject']]);
    expect(idx.nodes.find((n) => n.kind === 'endpoint')!.symbolKey).toBe('endpoint:GET /board/{customerId}');
    expect(idx.nodes[1]!.symbolKey).toBe(`cs:global#${C}`);
  });

  it('OrderBoard.razor: @page handles, @implements, component usage with parameters, @onclick handlers, @code edges', () => {
    const idx = cs.parse({ path: 'Components/Pages/OrderBoard.razor', text: fixture('Components/Pages/OrderBoard.razor') }) as FileIndex;
    const C = 'Shop.Api.Components.Pages.OrderBoard';
    expect(edgeRows(idx)).toEqual([
      // Directives, in file order: @page → the component (exact: the directive is the component's route).
      `GET /board/{customerId} handles/exact ${C} @1`,
      `${C}.Orders references/probable ?IOrderService @2`,
      `${C} implements/probable ?IDisposable @3`,
      // @code, from the C# pass: Refresh calls Orders.ForCustomer (the injected property's member,
      // unresolved), Remove calls items.Remove and Refresh (same component), the field types.
      `${C}.Refresh calls/approximate ?Orders.ForCustomer @17`,
      `${C}.Remove calls/approximate ?items.Remove @21`,
      `${C}.Remove calls/approximate ${C}.Refresh @21`,
      `${C} references/approximate ?List @12`,
      `${C} references/approximate ?OrderDto @12`,
      `${C} references/approximate ?OrderDto @13`,
      `${C}.Refresh references/approximate ${C}.Orders @17`,
      `${C}.Refresh references/approximate ${C}.CustomerId @17`,
      `${C}.Select references/approximate ?OrderDto @19`,
      `${C}.Remove references/approximate ?OrderDto @21`,
      // Markup line 7: <OrderList Items=… Title=… OnSelect="Select" @key=…/>: the component, its three
      // parameters (@key is the compiler's), OnSelect's method group Select (a member: probable).
      // Line 4's <OrderList> is inside a Razor comment: no usage.
      `${C} references/probable ?OrderList @7`,
      `${C} references/probable ?OrderList.Items @7`,
      `${C} references/probable ?OrderList.Title @7`,
      `${C} references/probable ?OrderList.OnSelect @7`,
      `${C} calls/probable ${C}.Select @7`,
      // Line 8 @onclick="Refresh", line 9 @onclick="() => Remove(selected)".
      `${C} calls/probable ${C}.Refresh @8`,
      `${C} calls/probable ${C}.Remove @9`,
    ]);
  });

  it('OrderList.razor: [Parameter] properties, a lambda handler on a member of a member', () => {
    const text = fixture('Components/Shared/OrderList.razor');
    const idx = cs.parse({ path: 'Components/Shared/OrderList.razor', text }) as FileIndex;
    const C = 'Shop.Api.Components.Shared.OrderList';
    expect(nodeRows(idx)).toEqual([
      'file Components/Shared/OrderList.razor 1-13 0-358 -',
      `component ${C} 1-13 0-358 r0`,
      `property ${C}.Items 10-10 ${at(text, '[Parameter] public IReadOnlyList<OrderDto> Items { get; set; } = [];')} r1`,
      `property ${C}.Title 11-11 ${at(text, '[Parameter] public string Title { get; set; } = "";')} r1`,
      `property ${C}.OnSelect 12-12 ${at(text, '[Parameter] public EventCallback<OrderDto> OnSelect { get; set; }')} r1`,
    ]);
    expect(edgeRows(idx)).toEqual([
      `${C}.Items references/approximate ?IReadOnlyList @10`,
      `${C}.Items references/approximate ?OrderDto @10`,
      `${C}.OnSelect references/approximate ?EventCallback @12`,
      `${C}.OnSelect references/approximate ?OrderDto @12`,
      // <li @onclick="@(() => OnSelect.InvokeAsync(order))">: the call inside the lambda; lower-case <li> is no component.
      `${C} calls/approximate ?OnSelect.InvokeAsync @5`,
    ]);
  });
});

describe('Razor Pages of fixtures/fullstack/backend', () => {
  it('Checkout.cshtml: @page "{step?}" appended to the page path, @model referenced', () => {
    const idx = cs.parse({ path: 'Pages/Checkout.cshtml', text: fixture('Pages/Checkout.cshtml') }) as FileIndex;
    expect(idx.parseStatus).toBe('ok');
    // Pages/Checkout.cshtml → /Checkout (path under Pages/), + "{step?}" → /checkout/{step?} (literals lower-cased).
    // `@page "{step?}"` is 15 characters; the file 182 bytes over 9 lines.
    expect(nodeRows(idx)).toEqual([
      'file Pages/Checkout.cshtml 1-9 0-182 -',
      'component Shop.Api.Pages.Checkout 1-9 0-182 r0',
      'endpoint ANY /checkout/{step?} 1-1 0-15 r0',
    ]);
    expect(edgeRows(idx)).toEqual(['ANY /checkout/{step?} handles/exact Shop.Api.Pages.Checkout @1', 'Shop.Api.Pages.Checkout references/probable ?CheckoutModel @2']);
  });
});

describe('names as the Razor SDK gives them', () => {
  it('namespaces: @namespace wins, else root namespace + folders from the project directory, sanitised', () => {
    expect(razorNamespace('src/Web/Components/Pages/Home.razor', { dir: 'src/Web', rootNamespace: 'eShop.WebApp' }, null)).toBe('eShop.WebApp.Components.Pages');
    expect(razorNamespace('src/Web/Home.razor', { dir: 'src/Web', rootNamespace: 'Web' }, null)).toBe('Web');
    expect(razorNamespace('src/Web/my-pages/2fa/X.razor', { dir: 'src/Web', rootNamespace: 'Web' }, null)).toBe('Web.my_pages._2fa');
    expect(razorNamespace('src/Web/Components/X.razor', { dir: 'src/Web', rootNamespace: 'Web' }, 'Other.Ns')).toBe('Other.Ns');
    expect(razorNamespace('X.razor', null, null)).toBe('');
  });

  it('Razor Page routes: Index dropped, Areas, rooted templates replace the path', () => {
    expect(razorPageRoute('Pages/Index.cshtml', SHOP, null)).toBe('/');
    expect(razorPageRoute('Pages/Orders/Index.cshtml', SHOP, '{id:int}')).toBe('/Orders/{id:int}');
    expect(razorPageRoute('Web/Areas/Admin/Pages/Users.cshtml', { dir: 'Web', rootNamespace: 'W' }, null)).toBe('/Admin/Users');
    expect(razorPageRoute('Pages/Privacy.cshtml', SHOP, '/about/privacy')).toBe('/about/privacy');
  });

  it('discovery: .razor and .cshtml are C# files of the descriptor; the project is the nearest .csproj', () => {
    expect(csharpLanguage.extensions).toEqual(['.cs', '.razor', '.cshtml']);
    expect(['A.razor', 'B.CSHTML', 'C.cs', 'D.razor.cs', 'E.razor.css'].map((p) => [csharpLanguage.languageOf(p), isRazorPath(p)])).toEqual([
      ['cs', true],
      ['cs', true],
      ['cs', false],
      ['cs', false],
      [null, false],
    ]);
    const projects = new Map([
      ['src/Web', { path: 'src/Web/WebApp.csproj', text: '<Project Sdk="Microsoft.NET.Sdk.Razor"></Project>' }],
      ['src/Api', { path: 'src/Api/Api.csproj', text: '<Project><PropertyGroup><RootNamespace>Shop.Api</RootNamespace></PropertyGroup></Project>' }],
    ]);
    const lookup = createRazorProjectLookup((dir) => projects.get(dir) ?? null);
    // No <RootNamespace>: MSBuild's default, the project file's name.
    expect(lookup('src/Web/Components/Pages/Home.razor')).toEqual({ dir: 'src/Web', rootNamespace: 'WebApp' });
    expect(lookup('src/Api/Pages/Index.cshtml')).toEqual({ dir: 'src/Api', rootNamespace: 'Shop.Api' });
    expect(lookup('docs/X.razor')).toBeNull();
  });
});

describe('bad Razor input: a clear per-file reason, the rest indexed', () => {
  it('a 10,000-line .razor: every @code member and every markup handler', () => {
    // 2,500 markup lines `<button @onclick="Handler{i}">…</button>` (i = 0…2499), then `@code {`,
    // 2,500 one-line methods `void Handler{i}() { }` with a blank line after each (5,000 lines),
    // `}`, and 2,498 paragraphs: 2,500 + 1 + 5,000 + 1 + 2,498 = 10,000 lines (the trailing newline starts none).
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++) lines.push(`<button @onclick="Handler${i}">Button ${i}</button>`);
    lines.push('@code {');
    for (let i = 0; i < 2500; i++) lines.push(`    void Handler${i}() { }`, '');
    lines.push('}');
    for (let i = 0; i < 2498; i++) lines.push(`<p>Paragraph ${i}</p>`);
    // A deadline far above its cost: timing is the benchmark's (tools/bench/razor.mjs), not this test's.
    const idx = cs.parse({ path: 'Big.razor', text: `${lines.join('\n')}\n` }, { deadlineMs: 300_000 }) as FileIndex;
    expect([idx.parseStatus, idx.lineCount, idx.diagnostics]).toEqual(['ok', 10000, []]);
    const methods = idx.nodes.filter((n) => n.kind === 'method');
    expect(methods).toHaveLength(2500);
    // Handler0 is on line 2,502 (after 2,500 markup lines and `@code {`), Handler2499 on 2,502 + 2 × 2,499.
    expect([methods[0]!.name, methods[0]!.span.startLine, methods[2499]!.name, methods[2499]!.span.startLine]).toEqual(['Handler0', 2502, 'Handler2499', 7500]);
    const calls = idx.edges.filter((e) => e.type === 'calls' && e.confidence === 'probable');
    expect(calls).toHaveLength(2500);
    expect([calls[2499]!.line, calls[2499]!.target.name]).toEqual([2500, 'Handler2499']);
  }, 300_000);

  it('an unbalanced `@code {`: the reason with its line, the directives and markup before it indexed', () => {
    const text = ['@page "/broken"', '<OrderList Items="@x" />', '@code {', '    void Save() { }', '    // no closing brace', ''].join('\n');
    const idx = cs.parse({ path: 'Broken.razor', text }) as FileIndex;
    expect(idx.parseStatus).toBe('partial');
    expect(idx.diagnostics).toEqual([
      { severity: 'error', code: 'razor_unbalanced_block', message: '@code block at line 3 has no closing "}": its members are not indexed, the markup before it is', line: 3 },
    ]);
    expect(idx.nodes.map((n) => `${n.kind} ${n.qualifiedName}`)).toEqual(['file Broken.razor', 'component Shop.Api.Broken', 'endpoint GET /broken']);
    expect(edgeRows(idx)).toEqual([
      'GET /broken handles/exact Shop.Api.Broken @1',
      'Shop.Api.Broken references/probable ?OrderList @2',
      'Shop.Api.Broken references/probable ?OrderList.Items @2',
    ]);
  });

  it('a .cshtml that does not compile: the C# error reported, the page, its route and its good members kept', () => {
    // `@functions` holds a method with a syntax error (`int Broken( { }`) between two good ones.
    const text = ['@page', '@model IndexModel', '@functions {', '    public string Title() => "t";', '    int Broken( { }', '    public int Count { get; set; }', '}', '<h1>@Title()</h1>', ''].join('\n');
    const idx = cs.parse({ path: 'Pages/Index.cshtml', text }) as FileIndex;
    expect(idx.parseStatus).toBe('partial');
    expect(idx.diagnostics.map((d) => d.code)).toEqual(['razor_code_syntax']);
    const rows = idx.nodes.map((n) => `${n.kind} ${n.qualifiedName}`);
    // The page keeps its route (Pages/Index.cshtml → /) and the members the parser recovered.
    expect(rows).toContain('endpoint ANY /');
    expect(rows).toContain('method Shop.Api.Pages.Index.Title');
    expect(rows).toContain('property Shop.Api.Pages.Index.Count');
    expect(edgeRows(idx)).toContain('Shop.Api.Pages.Index references/probable ?IndexModel @2');
  });

  it('a byte order mark before the first directive: the directive still read', () => {
    // eShop's components start with U+FEFF: `\uFEFF@page "/"` must still be a route.
    const idx = cs.parse({ path: 'Home.razor', text: '\uFEFF@page "/"\n<h1>Home</h1>\n' }) as FileIndex;
    expect(idx.nodes.filter((n) => n.kind === 'endpoint').map((n) => n.name)).toEqual(['GET /']);
  });

  it('non-ASCII markup before the code block: member byte spans stay those of the file', () => {
    // `<p>é</p>\n` is 10 bytes (é is 2 in UTF-8), `@code {\n` 8 more: `void A() { }` starts at byte 4 + 18 = 22.
    const text = '<p>é</p>\n@code {\n    void A() { }\n}\n';
    const idx = cs.parse({ path: 'U.razor', text }) as FileIndex;
    const a = idx.nodes.find((n) => n.name === 'A')!;
    expect([a.span.startLine, a.span.startByte, a.span.endByte]).toEqual([3, 22, 34]);
  });
});
