/**
 * Client calls linked to endpoints across the full-stack fixture (fixtures/fullstack: the C#
 * backend and the React client), end to end through `Engine.index()`: every `http_calls` edge
 * with its confidence (derived by hand in the comments), callers of an action reaching the TS
 * callers across HTTP, callees of a component reaching the action, impact of an action reaching
 * the client, the unmatched lists, and generated edits of both halves indexed incrementally
 * against a clean index of the same tree (the differential comparator).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, snapshot } from './differential/lib.mjs';
import { Engine, unmatchedHttp, type NavigationResult } from '../src/index.js';
import { REPO_ROOT } from './helpers.js';

const FULLSTACK = join(REPO_ROOT, 'fixtures', 'fullstack');
const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

function copy(): string {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-http-')), 'repo');
  cpSync(FULLSTACK, target, { recursive: true });
  return target;
}

/** `client path:line source → endpoint confidence` rows of the label's http_calls edges (unlinked: `→ (request) unlinked`). */
function httpRows(engine: Engine): string[] {
  const rows: string[] = [];
  for (const key of engine.store.canonicalDump('working').edges.keys()) {
    // A call linked to a contract operation (decision 049) shows `contract` before the operation's name.
    const m = /^([^|]+)\|[^#]+#([^|(]+)[^|]*\|\d+ -http_calls\/(\w+)\/[^>]*-> (?:node [^|]+\|(endpoint|contract):([^|]+)\|\d+|unresolved http:(\S+ \S+)) .*@(\d+) /.exec(key);
    if (m) rows.push(m[5] !== undefined ? `${m[1]}:${m[7]} ${m[2]} → ${m[4] === 'contract' ? 'contract ' : ''}${m[5]} ${m[3]}` : `${m[1]}:${m[7]} ${m[2]} → (${m[6]}) unlinked`);
  }
  return rows.sort();
}

function names(r: NavigationResult): string[] {
  const byId = new Map(r.nodes.map((n) => [n.id, n.qualifiedName]));
  byId.set(r.symbol.id, r.symbol.qualifiedName);
  return r.edges.map((e) => `${byId.get(e.from)} -${e.type}/${e.confidence}-> ${e.to === null ? e.targetName : byId.get(e.to)}`);
}

describe('HTTP links across fixtures/fullstack', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copy(), OPTIONS);
    await engine.index();
  }, 180_000);
  afterAll(() => engine.close());

  it('links every client call to its endpoint with the confidence derived by hand', () => {
    expect(httpRows(engine)).toEqual([
      // POST /api/v2/carts/{} /checkout vs Program.cs MapGroup("/api").MapGroup("/v2").MapGroup("carts").MapPost("/{cartId}/checkout"): literals equal, {} in {cartId}.
      'client/src/api/carts.ts:9 checkout → POST /api/v2/carts/{cartId}/checkout exact',
      // GET /api/v2/customers/{}: the only customers endpoint is `GET /{id}`, its prefix inherited from
      // ApiControllerBase in another file ([Route("api/v2/[controller]")]): the label-wide pass gives it
      // GET /api/v2/customers/{id} (decision 038), {} in {id}: exact, so the code endpoint, not the contract operation.
      'client/src/api/carts.ts:5 getCustomer → GET /{id} exact',
      // axios.delete(`/api/admin/catalog/items/${id}`) vs MapGroup(AdminPrefix).MapDelete("/items/{id:guid}").
      'client/src/api/catalog.ts:16 deleteItem → DELETE /api/admin/catalog/items/{id} exact',
      // catalog instance baseURL …/api/catalog + `/items/${id}` vs catalog.MapGet("/items/{id:guid}").
      'client/src/api/catalog.ts:12 getItem → GET /api/catalog/items/{id} exact',
      'client/src/api/catalog.ts:8 listItems → GET /api/catalog/items exact',
      // PUT /api/catalog/items/{}/name: no endpoint has four segments ending in `name`.
      'client/src/api/catalog.ts:20 renameItem → (PUT /api/catalog/items/{}/name) unlinked',
      // POST /api/orders: `POST /api/orders` names the method, `ANY /api/orders` (Status) does not: the first alone.
      'client/src/api/orders.ts:13 createOrder → POST /api/orders exact',
      // GET /api/orders/{}: {} in {id} (score 8) beats the literal `export` (score 6 — an unknown for a literal).
      'client/src/api/orders.ts:8 getOrder → GET /api/orders/{id} exact',
      // Origin and query dropped: GET /api/orders vs `GET /api/orders` (List) over `ANY /api/orders` (Status).
      'client/src/api/orders.ts:17 listOrders → GET /api/orders exact',
      // The literal 2 stands in {lineNo}: probable.
      'client/src/api/orders.ts:22 secondLine → GET /api/orders/{id}/lines/{lineNo} probable',
      // section is user input: GET /api/{}/items; {} stands for the literal `catalog`: approximate, never exact.
      'client/src/components/Search.tsx:6 Search → GET /api/catalog/items approximate',
      // fetch(link, { method: 'DELETE' }): nothing of the path is known.
      'client/src/components/Search.tsx:7 Search → (DELETE ~) unlinked',
      // NSwag: this.baseUrl is unknown, so the known suffix /api/Orders/{} matches: approximate.
      'client/src/generated/client.ts:41 OrdersClient.deleteOrder → DELETE /api/orders/{id} approximate',
      'client/src/generated/client.ts:27 OrdersClient.getOrder → GET /api/orders/{id} approximate',
      // openapi-fetch: GET /api/orders/{}/invoice — no C# endpoint has it; the document's operation does: exact.
      'client/src/generated/shopApi.ts:9 getInvoice → contract GET /api/orders/{id}/invoice exact',
      // GET /api/Catalog/items/{}: the C# endpoint first (literals compared case-insensitively), the operation not used.
      'client/src/generated/shopApi.ts:13 getCatalogItem → GET /api/catalog/items/{id} exact',
    ].sort());
  });

  it('links every contract operation to the C# endpoint serving it, with the confidence derived by hand (decision 049)', () => {
    const ops = engine.routes().routes.filter((r) => r.contract !== null);
    const rows = ops.map((r) => `${r.name} [${r.contract!.operationId}] ${r.path}:${r.line} → ${r.handlers.map((h) => `${h.qualifiedName} ${h.path}:${h.line} ${h.confidence}`).join(', ') || '(none)'}`);
    const O = 'backend/Controllers/OrdersController.cs';
    const R = 'backend/Controllers/Admin/ReportsController.cs';
    expect(rows).toEqual([
      // Same method, same normalised path: exact.
      `GET /admin/reports/{year} [Reports_ByYear] backend/openapi.json:7 → GET /admin/reports/{year} ${R}:13 exact`,
      `GET /reports/latest [Reports_Latest] backend/openapi.json:10 → GET /reports/latest ${R}:16 exact`,
      `GET /admin/reports/summary [Reports_Summary] backend/openapi.json:13 → GET /admin/reports/summary ${R}:19 exact`,
      `HEAD /admin/reports/summary [Reports_SummaryHead] backend/openapi.json:14 → HEAD /admin/reports/summary ${R}:19 exact`,
      // The C# route `GET /{id}` has its prefix in another file (ApiControllerBase): resolved label-wide to
      // GET /api/v2/customers/{id} (decision 038), the same method and path: exact.
      'GET /api/v2/customers/{id} [Customers_Get] backend/openapi.json:17 → GET /{id} backend/Controllers/CustomersController.cs:7 exact',
      // GET /api/orders: List names the method, Status (`ANY /api/orders`) does not: List alone.
      `GET /api/orders [Orders_List] backend/openapi.json:20 → GET /api/orders ${O}:12 exact`,
      `POST /api/orders [Orders_Create] backend/openapi.json:21 → POST /api/orders ${O}:18 exact`,
      `GET /api/orders/{id} [Orders_GetById] backend/openapi.json:24 → GET /api/orders/{id} ${O}:15 exact`,
      `PUT /api/orders/{id} [Orders_Update] backend/openapi.json:25 → PUT /api/orders/{id} ${O}:21 exact`,
      `PATCH /api/orders/{id} [Orders_Patch] backend/openapi.json:26 → PATCH /api/orders/{id} ${O}:21 exact`,
      // {orderId} vs {id}: parameter names may differ.
      `DELETE /api/orders/{orderId} [Orders_Delete] backend/openapi.json:29 → DELETE /api/orders/{id} ${O}:24 exact`,
      // The document lacks {lineNo} (drift): no path match; Orders_Line names OrdersController.Line: probable.
      `GET /api/orders/{id}/lines [Orders_Line] backend/openapi.json:32 → GET /api/orders/{id}/lines/{lineNo} ${O}:27 probable`,
      // Deliberately missing from the C# side: no path, and no handler named GetInvoice.
      'GET /api/orders/{id}/invoice [Orders_GetInvoice] backend/openapi.json:35 → (none)',
      // {query} in the catch-all {*query}.
      `GET /api/order-search/{query} [Orders_Search] backend/openapi.json:38 → GET /api/order-search/{*query} ${O}:30 exact`,
      // ANY /api/orders/ping (Ping): the literal `ping` equal beats GetById's {id} (a literal in a parameter, probable).
      `GET /api/orders/ping [Orders_Ping] backend/openapi.json:41 → ANY /api/orders/ping ${O}:36 exact`,
      'DELETE /api/admin/catalog/items/{id} [DeleteItem] backend/openapi.json:44 → DELETE /api/admin/catalog/items/{id} backend/Endpoints/CatalogEndpoints.cs:12 exact',
      // `Reindex` in the document, `reindex` in the name: literals compare lower-cased.
      'POST /api/admin/catalog/reindex [Reindex] backend/openapi.json:47 → POST /api/admin/catalog/reindex backend/Endpoints/CatalogEndpoints.cs:13 exact',
      // The C# route is approximate (`/{carts}/…`, its group built by the caller): matched on its last four segments, approximate.
      'DELETE /api/carts/{cartId}/items/{itemId} [RemoveCartItem] backend/openapi.json:50 → DELETE /{carts}/{cartId}/items/{itemId} backend/Endpoints/CatalogEndpoints.cs:19 approximate',
      'GET /health [Health] backend/openapi.json:53 → GET /health backend/Program.cs:10 exact',
      'GET /api/catalog/items [ListItems] backend/openapi.json:56 → GET /api/catalog/items backend/Program.cs:14 exact',
      'GET /api/catalog/items/{id} [GetItem] backend/openapi.json:59 → GET /api/catalog/items/{id} backend/Program.cs:15 exact',
      'GET /api/ping [Ping] backend/openapi.json:63 → GET /api/ping backend/Program.cs:17 exact',
      'HEAD /api/ping [PingHead] backend/openapi.json:64 → HEAD /api/ping backend/Program.cs:17 exact',
      // The C# route interpolates a variable: approximate caps the link.
      'GET /tenants/{tenant}/status [TenantStatus] backend/openapi.json:67 → GET /tenants/{tenant}/status backend/Program.cs:22 approximate',
      // Reached through the path item's $ref: the operation's span is its definition under components (line 73), so it lists last.
      'POST /api/v2/carts/{cartId}/checkout [Carts_Checkout] backend/openapi.json:73 → POST /api/v2/carts/{cartId}/checkout backend/Program.cs:16 exact',
    ]);
    // And the C# side counts the operations describing it.
    const byName = new Map(engine.routes().routes.filter((r) => r.contract === null).map((r) => [`${r.name} ${r.path}`, r.operations]));
    expect(byName.get('GET /api/orders/{id} backend/Controllers/OrdersController.cs')).toBe(1);
    expect(byName.get('GET /api/orders/export backend/Controllers/OrdersController.cs')).toBe(0);
  });

  it('callers of an action include the TS callers, crossing HTTP through its endpoint', () => {
    const r = engine.navigate('callers', 'Shop.Api.Controllers.OrdersController.GetById');
    expect(names(r)).toEqual([
      'GET /api/orders/{id} -handles/exact-> Shop.Api.Controllers.OrdersController.GetById',
      // The contract operation describing the endpoint (backend/openapi.json:24, decision 049), same method and path: exact.
      'GET /api/orders/{id} -handles/exact-> GET /api/orders/{id}',
      'getOrder -http_calls/exact-> GET /api/orders/{id}',
      'OrdersClient.getOrder -http_calls/approximate-> GET /api/orders/{id}',
    ]);
    // The endpoint is crossed within the hop: the TS callers are one hop away, like a direct caller.
    expect(r.nodes.map((n) => [n.qualifiedName, n.depth])).toEqual([
      ['GET /api/orders/{id}', 1],
      // The operation (backend/openapi.json) is crossed within the hop too: it describes the endpoint.
      ['GET /api/orders/{id}', 1],
      ['getOrder', 1],
      ['OrdersClient.getOrder', 1],
    ]);
  });

  it('callees of a component reach the action through the client function and the endpoint', () => {
    const r = engine.navigate('callees', 'OrderPage', { depth: 2 });
    const reached = r.nodes.map((n) => [n.qualifiedName, n.depth]);
    // OrderPage → getOrder (hop 1) → GET /api/orders/{id} → GetById (hop 2, the endpoint crossed within it).
    expect(reached).toContainEqual(['getOrder', 1]);
    expect(reached).toContainEqual(['GET /api/orders/{id}', 2]);
    expect(reached).toContainEqual(['Shop.Api.Controllers.OrdersController.GetById', 2]);
  });

  it('impact of an action reaches the client functions and the component that uses them, each hop with its confidence', () => {
    const r = engine.navigate('impact', 'Shop.Api.Controllers.OrdersController.GetById', { depth: 2 });
    const files = r.byFile!.map((f) => [f.path, f.symbols.map((s) => `${s.qualifiedName}@${s.depth} via ${s.via.join(' → ')}`)]);
    expect(files).toEqual([
      ['backend/Controllers/OrdersController.cs', ['GET /api/orders/{id}@1 via Shop.Api.Controllers.OrdersController.GetById']],
      // The contract operation describing the endpoint, reached within the same hop (decision 049).
      ['backend/openapi.json', ['GET /api/orders/{id}@1 via GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById']],
      ['client/src/api/orders.ts', ['getOrder@1 via GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById']],
      ['client/src/generated/client.ts', ['OrdersClient.getOrder@1 via GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById']],
      // The component calls getOrder; its file imports it (the file node, named by its path).
      [
        'client/src/components/OrderPage.tsx',
        [
          'client/src/components/OrderPage.tsx@2 via getOrder → GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById',
          'OrderPage@2 via getOrder → GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById',
        ],
      ],
    ]);
    const crossing = r.edges.filter((e) => e.type === 'http_calls').map((e) => [e.path, e.line, e.confidence]);
    expect(crossing).toEqual([
      ['client/src/api/orders.ts', 8, 'exact'],
      ['client/src/generated/client.ts', 27, 'approximate'],
    ]);
  });

  it('lists the client calls no endpoint serves and the endpoints no client calls', () => {
    const u = unmatchedHttp(engine.store, 'working');
    // carts.ts:5 GET /api/v2/customers/{} is served by CustomersController's GET /{id} (its prefix resolved, decision 038).
    expect(u.calls.map((c) => `${c.path}:${c.line} ${c.request}`)).toEqual([
      'client/src/api/catalog.ts:20 PUT /api/catalog/items/{}/name',
      'client/src/components/Search.tsx:7 DELETE ~',
    ]);
    // 26 endpoints in the backend's C# (packages/parse-cs/test/endpoints.test.ts) and 2 @page routes
    // (packages/parse-cs/test/razor.test.ts); the 10 linked above leave 18, in path and line order.
    expect(u.endpoints.map((e) => e.name)).toEqual([
      'GET /board/{customerId}',
      'GET /admin/reports/{year}',
      'GET /reports/latest',
      'GET /admin/reports/summary',
      'HEAD /admin/reports/summary',
      'PUT /api/orders/{id}',
      'PATCH /api/orders/{id}',
      'GET /api/order-search/{*query}',
      'GET /api/orders/export',
      'ANY /api/orders/ping',
      'ANY /api/orders',
      'POST /api/admin/catalog/reindex',
      'DELETE /{carts}/{cartId}/items/{itemId}',
      'ANY /checkout/{step?}',
      'GET /health',
      'GET /api/ping',
      'HEAD /api/ping',
      'GET /tenants/{tenant}/status',
    ]);
    // The contract drift: the one operation the backend lacks, and the two code endpoints the document lacks
    // (export deliberately, Status because an action without a method has none to describe); the @page routes serve HTML.
    expect(u.contract).toEqual({
      operations: [{ path: 'backend/openapi.json', line: 35, name: 'GET /api/orders/{id}/invoice' }],
      endpoints: [
        { path: 'backend/Controllers/OrdersController.cs', line: 33, name: 'GET /api/orders/export' },
        { path: 'backend/Controllers/OrdersController.cs', line: 39, name: 'ANY /api/orders' },
      ],
    });
  });
});

/** One generated edit of either half of the fixture (a small, deterministic set of edits to draw from). */
const EDITS: readonly { readonly name: string; readonly path: string; readonly apply: (text: string) => string }[] = [
  { name: 'client constant renamed path', path: 'client/src/api/orders.ts', apply: (t) => t.replace("const ORDERS = '/api/orders';", "const ORDERS = '/api/order';") },
  { name: 'client constant restored', path: 'client/src/api/orders.ts', apply: (t) => t.replace("const ORDERS = '/api/order';", "const ORDERS = '/api/orders';") },
  { name: 'endpoint attribute removed', path: 'backend/Controllers/OrdersController.cs', apply: (t) => t.replace('    [HttpGet(ById)]\n', '') },
  { name: 'endpoint attribute restored', path: 'backend/Controllers/OrdersController.cs', apply: (t) => (t.includes('[HttpGet(ById)]') ? t : t.replace('    public ActionResult<OrderDto> GetById', '    [HttpGet(ById)]\n    public ActionResult<OrderDto> GetById')) },
  { name: 'controller prefix changed', path: 'backend/Controllers/OrdersController.cs', apply: (t) => t.replace('[Route("api/[controller]")]', '[Route("api/v1/[controller]")]') },
  { name: 'controller prefix restored', path: 'backend/Controllers/OrdersController.cs', apply: (t) => t.replace('[Route("api/v1/[controller]")]', '[Route("api/[controller]")]') },
  { name: 'client file removed', path: 'client/src/api/catalog.ts', apply: () => '' },
  { name: 'client file added', path: 'client/src/api/ping.ts', apply: () => "export function ping() { return fetch('/api/ping', { method: 'HEAD' }); }\n" },
  { name: 'minimal API route changed', path: 'backend/Program.cs', apply: (t) => t.replace('catalog.MapGet("/items", CatalogEndpoints.ListItems);', 'catalog.MapGet("/items/all", CatalogEndpoints.ListItems);') },
];

describe('HTTP links: incremental equals clean over generated edits of both halves', () => {
  it('after each edit, the incremental index equals a clean index of the same tree', async () => {
    const repo = copy();
    const engine = Engine.open(repo, OPTIONS);
    await engine.index();
    let x = 20261127;
    const next = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
    try {
      for (let step = 1; step <= 5; step++) {
        const edit = EDITS[Math.floor(next() * EDITS.length)]!;
        const file = join(repo, edit.path);
        let text = '';
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          // why: an edit that adds a file starts from nothing
        }
        const after = edit.apply(text);
        if (after === '') rmSync(file, { force: true });
        else writeFileSync(file, after);
        await engine.index();
        const cleanRepo = join(mkdtempSync(join(tmpdir(), 'ca-http-clean-')), 'repo');
        cpSync(repo, cleanRepo, { recursive: true, filter: (p) => !p.includes('.codeagent') });
        const clean = Engine.open(cleanRepo, OPTIONS);
        await clean.index();
        const differences = compare(snapshot(clean, [], { fts: false }), snapshot(engine, [], { fts: false }));
        expect(differences, `step ${step}: ${edit.name}`).toEqual([]);
        expect(httpRows(engine), `step ${step}: ${edit.name}`).toEqual(httpRows(clean));
        clean.close();
      }
    } finally {
      engine.close();
    }
  }, 600_000);
});
