import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ca, cleanEnv } from './helpers.js';

interface Route {
  id: number;
  name: string;
  method: string;
  template: string;
  path: string;
  line: number;
  handlers: { qualifiedName: string; confidence: string; resolved: boolean; path: string | null; line: number | null; kind: string | null }[];
  params: { source: string; type: string; name: string }[];
  approximate: string | null;
  clients: number;
}

/**
 * `ca routes` end to end on fixtures/fullstack/backend (syntactic: semantic pass and embeddings
 * off). The endpoints are derived by hand in packages/parse-cs/test/endpoints.test.ts; here the
 * listing adds the order (path, then position), the handlers' locations, and the method groups
 * of Program.cs (declared in Endpoints/CatalogEndpoints.cs) resolved by name when listing.
 */
describe('ca routes', () => {
  let repo: string;
  const env = cleanEnv({ CA_EMBEDDING_ENABLED: 'false', CA_SEMANTIC_ENABLED: 'false' });
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-routes-')), 'repo');
    // The C# endpoints only: backend/openapi.json's operations are listed and linked in packages/engine/test/httpLinks.test.ts.
    cpSync(join(ROOT, 'fixtures/fullstack/backend'), repo, { recursive: true, filter: (p) => !p.endsWith('openapi.json') });
    expect(ca(['index', repo, '--json'], { env }).code).toBe(0);
  }, 180_000);
  afterAll(() => rmSync(join(repo, '..'), { recursive: true, force: true }));

  it('--json: every endpoint with its handler, file:line, parameters and approximation', () => {
    const r = ca(['routes', '--repo', repo, '--json'], { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout) as { total: number; approximate: number; routes: Route[] };
    // 26 from the controllers and minimal APIs, 2 @page directives (OrderBoard.razor, Checkout.cshtml; decision 041).
    // Approximate: the route group prefix from a parameter, the tenant route (CustomersController's
    // prefix, inherited from ApiControllerBase in another file, is resolved label-wide: decision 038).
    expect([report.total, report.approximate]).toEqual([28, 2]);
    const rows = report.routes.map(
      (x) =>
        `${x.name} | ${x.handlers.map((h) => `${h.qualifiedName} ${h.confidence}${h.path ? ` ${h.path}:${h.line}` : ''}`).join(', ')} | ${x.path}:${x.line}` +
        `${x.params.length > 0 ? ` | ${x.params.map((p) => `${p.source} ${p.type} ${p.name}`).join(', ')}` : ''}${x.approximate ? ` | approximate: ${x.approximate}` : ''}${x.clients > 0 ? ` | ${x.clients} clients` : ''}`,
    );
    const C = 'Shop.Api.Controllers';
    const O = 'Controllers/OrdersController.cs';
    expect(rows).toEqual([
      // Components/… sorts before Controllers/…: the Blazor page's route, handled by its component.
      'GET /board/{customerId} | Shop.Api.Components.Pages.OrderBoard exact Components/Pages/OrderBoard.razor:1 | Components/Pages/OrderBoard.razor:1',
      `GET /admin/reports/{year} | ${C}.Admin.ReportsController.ByYear exact Controllers/Admin/ReportsController.cs:13 | Controllers/Admin/ReportsController.cs:13 | route int year`,
      `GET /reports/latest | ${C}.Admin.ReportsController.Latest exact Controllers/Admin/ReportsController.cs:16 | Controllers/Admin/ReportsController.cs:16`,
      `GET /admin/reports/summary | ${C}.Admin.ReportsController.Summary exact Controllers/Admin/ReportsController.cs:19 | Controllers/Admin/ReportsController.cs:19`,
      `HEAD /admin/reports/summary | ${C}.Admin.ReportsController.Summary exact Controllers/Admin/ReportsController.cs:19 | Controllers/Admin/ReportsController.cs:19`,
      // ApiControllerBase's [Route("api/v2/[controller]")] with [controller] = Customers, + [HttpGet("{id}")].
      `GET /api/v2/customers/{id} | ${C}.CustomersController.Get exact Controllers/CustomersController.cs:7 | Controllers/CustomersController.cs:7 | route string id`,
      `GET /api/orders | ${C}.OrdersController.List exact ${O}:12 | ${O}:12 | query int page`,
      `GET /api/orders/{id} | ${C}.OrdersController.GetById exact ${O}:15 | ${O}:15 | route int id`,
      `POST /api/orders | ${C}.OrdersController.Create exact ${O}:18 | ${O}:18 | body CreateOrder order`,
      `PUT /api/orders/{id} | ${C}.OrdersController.Update exact ${O}:21 | ${O}:21 | route int id, body CreateOrder order`,
      `PATCH /api/orders/{id} | ${C}.OrdersController.Update exact ${O}:21 | ${O}:21 | route int id, body CreateOrder order`,
      `DELETE /api/orders/{id} | ${C}.OrdersController.Delete exact ${O}:24 | ${O}:24 | route int id`,
      `GET /api/orders/{id}/lines/{lineNo} | ${C}.OrdersController.Line exact ${O}:27 | ${O}:27 | route int id, route int lineNo`,
      `GET /api/order-search/{*query} | ${C}.OrdersController.Search exact ${O}:30 | ${O}:30 | route string query, header string tenant`,
      `GET /api/orders/export | ${C}.OrdersController.ExportAsync exact ${O}:33 | ${O}:33`,
      `ANY /api/orders/ping | ${C}.OrdersController.Ping exact ${O}:36 | ${O}:36`,
      `ANY /api/orders | ${C}.OrdersController.Status exact ${O}:39 | ${O}:39`,
      'DELETE /api/admin/catalog/items/{id} | Shop.Api.Endpoints.CatalogEndpoints.DeleteItem probable Endpoints/CatalogEndpoints.cs:26 | Endpoints/CatalogEndpoints.cs:12 | route Guid id',
      'POST /api/admin/catalog/reindex | Shop.Api.Endpoints.CatalogEndpoints.Reindex probable Endpoints/CatalogEndpoints.cs:28 | Endpoints/CatalogEndpoints.cs:13',
      'DELETE /{carts}/{cartId}/items/{itemId} | Shop.Api.Endpoints.CatalogEndpoints.MapCartItems exact Endpoints/CatalogEndpoints.cs:17 | Endpoints/CatalogEndpoints.cs:19 | route Guid cartId, route int itemId | approximate: the route group prefix comes from parameter carts (built by the caller)',
      // Pages/Checkout.cshtml: `@page "{step?}"` after the page path /checkout, every method (a Razor Page).
      'ANY /checkout/{step?} | Shop.Api.Pages.Checkout exact Pages/Checkout.cshtml:1 | Pages/Checkout.cshtml:1',
      'GET /health | Program.cs exact Program.cs:1 | Program.cs:10',
      // Resolved when listing, by the one method named CatalogEndpoints.ListItems: approximate.
      'GET /api/catalog/items | Shop.Api.Endpoints.CatalogEndpoints.ListItems approximate Endpoints/CatalogEndpoints.cs:22 | Program.cs:14',
      'GET /api/catalog/items/{id} | Shop.Api.Endpoints.CatalogEndpoints.GetItem approximate Endpoints/CatalogEndpoints.cs:24 | Program.cs:15',
      'POST /api/v2/carts/{cartId}/checkout | Program.cs exact Program.cs:1 | Program.cs:16 | route Guid cartId, body CheckoutRequest request',
      'GET /api/ping | Program.cs exact Program.cs:1 | Program.cs:17',
      'HEAD /api/ping | Program.cs exact Program.cs:1 | Program.cs:17',
      'GET /tenants/{tenant}/status | Program.cs exact Program.cs:1 | Program.cs:22 | approximate: route uses tenant, not a constant declared in this file',
    ]);
    // The name CustomersController.cs alone gives is kept beside the resolved route.
    expect([report.routes[5]!.name, (report.routes[5] as Route & { declaredAs?: string }).declaredAs]).toEqual(['GET /api/v2/customers/{id}', 'GET /{id}']);
    expect(report.routes.filter((x) => (x as Route & { declaredAs?: string }).declaredAs !== undefined).length).toBe(1);
    // One record in full: the JSON shape README.md documents.
    expect(report.routes[7]).toEqual({
      id: expect.any(Number),
      name: 'GET /api/orders/{id}',
      method: 'GET',
      template: '/api/orders/{id}',
      language: 'cs',
      path: O,
      line: 15,
      handlers: [{ qualifiedName: `${C}.OrdersController.GetById`, kind: 'method', path: O, line: 15, confidence: 'exact', resolved: true }],
      params: [{ source: 'route', type: 'int', name: 'id' }],
      approximate: null,
      clients: 0,
      // A code endpoint: no contract fields (decision 049; no openapi.json in this copy).
      contract: null,
      operations: 0,
    });
  }, 60_000);

  it('text: one line per endpoint, the approximation under it, a count at the end', () => {
    const r = ca(['routes', '--repo', repo], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('GET     /board/{customerId}               Shop.Api.Components.Pages.OrderBoard  Components/Pages/OrderBoard.razor:1');
    expect(lines[1]).toBe('GET     /admin/reports/{year}             Shop.Api.Controllers.Admin.ReportsController.ByYear  Controllers/Admin/ReportsController.cs:13');
    // Method column 6 wide (DELETE), template column 32 (/{carts}/{cartId}/items/{itemId}): the resolved route, no approximation under it.
    expect(lines[5]).toBe(`GET     ${'/api/v2/customers/{id}'.padEnd(32)}  Shop.Api.Controllers.CustomersController.Get  Controllers/CustomersController.cs:7`);
    expect(lines[6]).toBe(`GET     ${'/api/orders'.padEnd(32)}  Shop.Api.Controllers.OrdersController.List  Controllers/OrdersController.cs:12`);
    expect(lines[lines.length - 2]).toBe('28 endpoints, 2 approximate');
  }, 60_000);

  it('search finds endpoints by their name and by their words', () => {
    const byName = JSON.parse(ca(['search', 'GET /api/orders/{id}', '--repo', repo, '--json'], { env }).stdout) as { results: { qualifiedName: string; kind: string }[] };
    // The query is the endpoint's exact name: the name channel returns it first.
    expect(byName.results[0]).toMatchObject({ qualifiedName: 'GET /api/orders/{id}', kind: 'endpoint' });
    // "orders endpoint": the endpoint nodes' text holds the route words and the kind word. Since the
    // Razor files joined the fixture (OrderBoard.razor says "Orders" often, its @page is an endpoint
    // too), both words are in more documents and weigh less: the CatalogEndpoints members (path
    // `Endpoints/…`) ranked first, the first endpoint 5th. Since Config/ShopConfig.cs joined the
    // fixture (decision 048: its AddShopConfig reads the "Orders" connection string, 8 more code
    // symbols), the statistics moved again and `ANY /api/orders` ranks 1st (checked by indexing
    // the backend with and without Config/ and the appsettings files: 1st with, 5th without).
    const byWords = JSON.parse(ca(['search', 'orders endpoint', '--repo', repo, '--json'], { env }).stdout) as { results: { qualifiedName: string; kind: string }[] };
    const firstEndpoint = byWords.results.findIndex((r) => r.kind === 'endpoint');
    expect(firstEndpoint).toBe(0);
    expect(byWords.results[firstEndpoint]!.qualifiedName).toMatch(/^[A-Z]+ \/api\/orders/);
  }, 60_000);

  it('arguments are a usage error (exit 2)', () => {
    const r = ca(['routes', 'extra', '--repo', repo], { env });
    expect([r.code, r.stderr.trim()]).toEqual([2, 'ca: routes takes no arguments (ca routes [--unmatched] [--json] [--repo DIR] [--label NAME])']);
  }, 60_000);
});
