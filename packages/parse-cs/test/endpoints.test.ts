import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEndpointSignature, type FileIndex, type LanguageAdapter } from '@ca/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsAdapter, RoutePrefixFacts } from '../src/index.js';

const BACKEND = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/fullstack/backend');

let cs: LanguageAdapter;
beforeAll(async () => {
  cs = await createCsAdapter();
});
afterAll(async () => {
  await cs.dispose?.();
});

async function parseBackend(path: string): Promise<FileIndex> {
  return cs.parse({ path, text: readFileSync(join(BACKEND, path), 'utf8') });
}

async function parseText(text: string, path = 'Api.cs', deadlineMs?: number): Promise<FileIndex> {
  return cs.parse({ path, text }, deadlineMs === undefined ? undefined : { deadlineMs });
}

/** `line signature -> confidence handler` per endpoint node (`#n` when the key repeats in the file). */
function endpointRows(index: FileIndex): string[] {
  const byId = new Map(index.nodes.map((n) => [n.localId, n]));
  return index.nodes
    .filter((n) => n.kind === 'endpoint')
    .map((n) => {
      const handles = index.edges.filter((e) => e.sourceLocalId === n.localId && e.type === 'handles');
      const targets = handles.map((e) => `${e.confidence} ${e.target.localId ? byId.get(e.target.localId)!.qualifiedName : e.target.key}`);
      // Where an inherited prefix may come from: the endpoint's `http_calls` edge to an `httpinherits:` key.
      const inherits = index.edges.filter((e) => e.sourceLocalId === n.localId && e.type === 'http_calls').map((e) => ` ${e.confidence} ${e.target.name} ${e.target.key}`);
      return `${n.span.startLine}${n.disambiguator > 0 ? `#${n.disambiguator}` : ''} ${n.signature} -> ${targets.join(', ')}${inherits.join('')}`;
    });
}

describe('endpoints of the full-stack fixture (fixtures/fullstack/backend)', () => {
  it('OrdersController: [Route("api/[controller]")] + action attributes, constants, tokens, constraints', async () => {
    const idx = await parseBackend('Controllers/OrdersController.cs');
    // Prefix "api/[controller]" with [controller] = Orders → literal segments lower-cased.
    // ById = "{id:int}" is a private const of the class → "{id}" after the constraint is stripped.
    // Update has two attributes → two endpoints at one span; ById + "/lines/{lineNo:int=1}" → default stripped.
    // "/api/order-search/{*query}" is rooted → the prefix is dropped, the catch-all kept.
    // ExportAsync: [action] = Export (ASP.NET drops the Async suffix).
    // Ping: [Route] without an HTTP attribute → ANY; Status: no attribute in an attribute-routed controller → ANY.
    // Audit is [NonAction], Log is private: no endpoint.
    // Parameters: [FromX] attributes, and route-named parameters bound from the route.
    expect(endpointRows(idx)).toEqual([
      '12 GET /api/orders [query int page] -> exact Shop.Api.Controllers.OrdersController.List',
      '15 GET /api/orders/{id} [route int id] -> exact Shop.Api.Controllers.OrdersController.GetById',
      '18 POST /api/orders [body CreateOrder order] -> exact Shop.Api.Controllers.OrdersController.Create',
      '21 PUT /api/orders/{id} [route int id, body CreateOrder order] -> exact Shop.Api.Controllers.OrdersController.Update',
      '21 PATCH /api/orders/{id} [route int id, body CreateOrder order] -> exact Shop.Api.Controllers.OrdersController.Update',
      '24 DELETE /api/orders/{id} [route int id] -> exact Shop.Api.Controllers.OrdersController.Delete',
      '27 GET /api/orders/{id}/lines/{lineNo} [route int id, route int lineNo] -> exact Shop.Api.Controllers.OrdersController.Line',
      '30 GET /api/order-search/{*query} [route string query, header string tenant] -> exact Shop.Api.Controllers.OrdersController.Search',
      '33 GET /api/orders/export -> exact Shop.Api.Controllers.OrdersController.ExportAsync',
      '36 ANY /api/orders/ping -> exact Shop.Api.Controllers.OrdersController.Ping',
      '39 ANY /api/orders -> exact Shop.Api.Controllers.OrdersController.Status',
    ]);
    const getById = idx.nodes.find((n) => n.kind === 'endpoint' && n.span.startLine === 15)!;
    expect(getById.name).toBe('GET /api/orders/{id}');
    expect(getById.qualifiedName).toBe('GET /api/orders/{id}');
    expect(getById.symbolKey).toBe('endpoint:GET /api/orders/{id}');
    // The span is the attribute `HttpGet(ById)`; the parent the file node.
    expect(getById.span.endLine).toBe(15);
    expect(getById.chunkText).toBe('HttpGet(ById)');
    expect(getById.parentLocalId).toBe(idx.nodes[0]!.localId);
  });

  it('ReportsController: [Area], a same-file base class prefix, ~/ override, AcceptVerbs', async () => {
    const idx = await parseBackend('Controllers/Admin/ReportsController.cs');
    // The abstract AdminControllerBase is no controller; its "[area]/[controller]" is inherited:
    // area = Admin, controller = Reports. "~/reports/latest" replaces the prefix.
    // AcceptVerbs("GET", "HEAD", Route = "Summary") → two endpoints, the literal lower-cased.
    expect(endpointRows(idx)).toEqual([
      '13 GET /admin/reports/{year} [route int year] -> exact Shop.Api.Controllers.Admin.ReportsController.ByYear',
      '16 GET /reports/latest -> exact Shop.Api.Controllers.Admin.ReportsController.Latest',
      '19 GET /admin/reports/summary -> exact Shop.Api.Controllers.Admin.ReportsController.Summary',
      '19 HEAD /admin/reports/summary -> exact Shop.Api.Controllers.Admin.ReportsController.Summary',
    ]);
  });

  it('CustomersController: a base class declared in another file → approximate with the reason', async () => {
    expect(endpointRows(await parseBackend('Controllers/CustomersController.cs'))).toEqual([
      // Where the prefix may come from rides in an edge (not in the signature users read): the label-wide pass resolves it (decision 038).
      '7 GET /{id} [route string id] (approximate: the route prefix may be inherited from ApiControllerBase, declared in another file) -> exact Shop.Api.Controllers.CustomersController.Get approximate route prefix httpinherits:{"base":"ApiControllerBase","attributes":[],"template":"{id}","controller":"Customers","action":"Get","area":null}',
    ]);
    // The abstract base itself declares no endpoint.
    expect(endpointRows(await parseBackend('Controllers/ApiControllerBase.cs'))).toEqual([]);
  });

  it('Program.cs: top-level minimal APIs, MapGroup chains through locals, method groups, MapMethods, a computed route', async () => {
    const idx = await parseBackend('Program.cs');
    // Lambdas at top level are handled by the file (no enclosing member).
    // catalog = api.MapGroup("Catalog").WithTags(…) and api = app.MapGroup("/api") → /api/catalog.
    // CatalogEndpoints.ListItems is declared in another file: an unresolved, approximate handles edge.
    // Line 16 chains MapGroup("/v2").MapGroup("carts") on api. Line 17: new[] { "GET", "HEAD" } → two.
    // Line 22 interpolates the variable `tenant` → approximate, the part written {tenant}.
    expect(endpointRows(idx)).toEqual([
      '10 GET /health -> exact Program.cs',
      '14 GET /api/catalog/items -> approximate ?CatalogEndpoints.ListItems',
      '15 GET /api/catalog/items/{id} -> approximate ?CatalogEndpoints.GetItem',
      '16 POST /api/v2/carts/{cartId}/checkout [route Guid cartId, body CheckoutRequest request] -> exact Program.cs',
      '17 GET /api/ping -> exact Program.cs',
      '17 HEAD /api/ping -> exact Program.cs',
      '22 GET /tenants/{tenant}/status (approximate: route uses tenant, not a constant declared in this file) -> exact Program.cs',
    ]);
  });

  it('CatalogEndpoints.cs: a const prefix, nameof, same-file method groups, a group from a parameter', async () => {
    const idx = await parseBackend('Endpoints/CatalogEndpoints.cs');
    // AdminPrefix = "/api/admin/catalog"; "/" + nameof(Reindex) → "/Reindex" → lower-cased.
    // MapCartItems(RouteGroupBuilder carts): the prefix is the caller's → {carts}, approximate.
    expect(endpointRows(idx)).toEqual([
      '12 DELETE /api/admin/catalog/items/{id} [route Guid id] -> probable Shop.Api.Endpoints.CatalogEndpoints.DeleteItem',
      '13 POST /api/admin/catalog/reindex -> probable Shop.Api.Endpoints.CatalogEndpoints.Reindex',
      '19 DELETE /{carts}/{cartId}/items/{itemId} [route Guid cartId, route int itemId] (approximate: the route group prefix comes from parameter carts (built by the caller)) -> exact Shop.Api.Endpoints.CatalogEndpoints.MapCartItems',
    ]);
  });

  it('every signature parses back with parseEndpointSignature', async () => {
    for (const path of ['Program.cs', 'Endpoints/CatalogEndpoints.cs', 'Controllers/OrdersController.cs', 'Controllers/CustomersController.cs']) {
      for (const n of (await parseBackend(path)).nodes.filter((x) => x.kind === 'endpoint')) {
        const s = parseEndpointSignature(n.signature);
        expect(s, n.signature).not.toBeNull();
        expect(`${s!.method} ${s!.template}`).toBe(n.name);
      }
    }
  });
});

describe('endpoint rules on small sources', () => {
  it('two handlers of one route are both kept, the second disambiguated', async () => {
    const idx = await parseText(`class P { void M() {
  app.MapGet("/a", () => 1);
  app.MapGet("/A/", () => 2);
} }`);
    expect(endpointRows(idx)).toEqual(['2 GET /a -> exact P.M', '3#1 GET /a -> exact P.M']);
  });

  it('a Map helper forwarding its own pattern parameter is no endpoint; mappers named Map are ignored', async () => {
    const idx = await parseText(`static class X {
  public static RouteHandlerBuilder MapGet(this IEndpointRouteBuilder b, Delegate handler, string pattern = "") => b.MapGet(pattern, handler);
  void M(IMapper mapper) { var dto = mapper.Map<Dto>(order); mapper.Map(order, dto); }
} `);
    expect(endpointRows(idx)).toEqual([]);
  });

  it('a project overload without a pattern (MapPost(handler), MapPut(handler, "{id}")) keeps the handler', async () => {
    const idx = await parseText(`class TodoItems { public static void Map(RouteGroupBuilder groupBuilder) {
  groupBuilder.MapPost(CreateTodoItem);
  groupBuilder.MapPut(UpdateTodoItem, "{id}");
}
  public static int CreateTodoItem() => 1;
  public static int UpdateTodoItem(int id) => 1;
}`);
    // The group comes from the parameter groupBuilder → {groupBuilder} and approximate; the first
    // call has no pattern at all, which the reason of the prefix (first met) already covers.
    expect(endpointRows(idx)).toEqual([
      '2 POST /{groupBuilder} (approximate: the route group prefix comes from parameter groupBuilder (built by the caller)) -> probable TodoItems.CreateTodoItem',
      '3 PUT /{groupBuilder}/{id} [route int id] (approximate: the route group prefix comes from parameter groupBuilder (built by the caller)) -> probable TodoItems.UpdateTodoItem',
    ]);
  });

  it('versioned groups: fluent calls on a group keep its prefix (eShop shape)', async () => {
    const idx = await parseText(`static class CatalogApi { public static void MapCatalogApi(this IEndpointRouteBuilder app) {
  var vApi = app.NewVersionedApi("Catalog");
  var api = vApi.MapGroup("api/catalog").HasApiVersion(1, 0).HasApiVersion(2, 0);
  api.MapGet("/items/{id:int}", GetItemById).WithName("GetItem");
  app.MapMethods("/check", [HttpMethods.Options], () => 1);
}
  public static int GetItemById(int id) => id;
}`);
    expect(endpointRows(idx)).toEqual([
      '4 GET /api/catalog/items/{id} [route int id] -> probable CatalogApi.GetItemById',
      '5 OPTIONS /check -> exact CatalogApi.MapCatalogApi',
    ]);
  });

  it('a conventionally routed controller: an HTTP attribute without any route → approximate {controller}/{action}', async () => {
    const idx = await parseText(`public class AccountController : Controller {
  [HttpGet] public IActionResult Login(string returnUrl) => View();
  public IActionResult Index() => View();
}`);
    expect(endpointRows(idx)).toEqual(['2 GET /account/login (approximate: conventional routing assumed ({controller}/{action})) -> exact AccountController.Login']);
  });
});

describe('a route prefix the file cannot see', () => {
  it('an attribute declared elsewhere on a controller without [Route] may be a RouteAttribute subclass: approximate, never a plain template', async () => {
    // Ombi's controllers carry `[ApiV1]`, declared in another file as `ApiV1Attribute : RouteAttribute`
    // whose constructor passes "api/v1/[controller]". Read without it, `GET /movie/total` was given
    // as the endpoint's whole route (not approximate); the real one is GET /api/v1/Request/movie/total.
    const idx = await parseText(`[ApiV1] [Authorize] [ApiController] public class RequestController : ControllerBase {
  [HttpGet("movie/total")] public int Total() => 1;
}
[Admin] [ApiV1] public class SettingsController : ControllerBase {
  [HttpGet("about")] public int About() => 1;
}
[Authorize] [ApiController] [Produces("application/json")] public class PlainController : ControllerBase {
  [HttpGet("plain")] public int Get() => 1;
}
[Route("api/[controller]")] [ApiV1] public class RoutedController : ControllerBase {
  [HttpGet("x")] public int X() => 1;
}`);
    expect(endpointRows(idx)).toEqual([
      '2 GET /movie/total (approximate: the route prefix may come from [ApiV1], an attribute declared in another file) -> exact RequestController.Total approximate route prefix httpinherits:{"base":null,"attributes":["ApiV1"],"template":"movie/total","controller":"Request","action":"Total","area":null}',
      // Only known attributes: the action's template is the whole route.
      // Ombi's [Admin] is an AuthorizeAttribute, but the file cannot tell: both are named.
      '5 GET /about (approximate: the route prefix may come from [Admin] or [ApiV1], attributes declared in another file) -> exact SettingsController.About approximate route prefix httpinherits:{"base":null,"attributes":["Admin","ApiV1"],"template":"about","controller":"Settings","action":"About","area":null}',
      '8 GET /plain -> exact PlainController.Get',
      // A [Route] of its own: that is the prefix (ASP.NET combines each route attribute; the known one is kept exact).
      '11 GET /api/routed/x -> exact RoutedController.X',
    ]);
  });
});

describe('bad input', () => {
  it('unbalanced braces: the endpoint is kept, approximate with the reason', async () => {
    const idx = await parseText(`[Route("api/items")] public class ItemsController : ControllerBase {
  [HttpGet("{id")] public int Get(int id) => id;
  [HttpGet("x}/y")] public int Other() => 1;
}
static class M { static void Map(WebApplication app) { app.MapGet("/a/{b", () => 1); } }`);
    expect(idx.parseStatus).toBe('ok');
    expect(endpointRows(idx)).toEqual([
      '2 GET /api/items/{id (approximate: unbalanced brace in route template "api/items/{id") -> exact ItemsController.Get',
      '3 GET /api/items/x}/y (approximate: unbalanced brace in route template "api/items/x}/y") -> exact ItemsController.Other',
      '5 GET /a/{b (approximate: unbalanced brace in route template "//a/{b") -> exact M.Map',
    ]);
  });

  it('a huge attribute string is cut to the template limit, approximate', async () => {
    const long = 'a'.repeat(100_000);
    const idx = await parseText(`[Route("api")] public class BigController : ControllerBase { [HttpGet("${long}")] public int Get() => 1; }`);
    const [endpoint] = idx.nodes.filter((n) => n.kind === 'endpoint');
    // "api/" + 100,000 a's cut at 2,048 characters: "/api/" then 2,044 a's.
    expect(endpoint!.name).toBe(`GET /api/${'a'.repeat(2044)}`);
    expect(parseEndpointSignature(endpoint!.signature)!.approximate).toBe('route template longer than 2048 characters, cut');
  });

  it('a file of 5,000 generated Map calls: one endpoint each, in order', { timeout: 600_000 }, async () => {
    const lines = Array.from({ length: 5000 }, (_, k) => `app.MapGet("/r${k}/{id:int}", () => ${k});`);
    // A generous deadline: the machine running the tests may be busy; the deadline is not under test.
    const idx = await parseText(`var app = WebApplication.Create();\n${lines.join('\n')}\n`, 'Program.cs', 600_000);
    expect(idx.parseStatus).toBe('ok');
    const endpoints = idx.nodes.filter((n) => n.kind === 'endpoint');
    expect(endpoints).toHaveLength(5000);
    expect(endpoints[0]!.name).toBe('GET /r0/{id}');
    expect(endpoints[4999]!.name).toBe('GET /r4999/{id}');
    expect(endpoints[4999]!.span.startLine).toBe(5001);
  });
});

describe('route prefix facts for the label-wide resolution (decision 038)', () => {
  /** The file's prefix facts: `line key`. */
  function facts(index: FileIndex): string[] {
    return index.edges.filter((e) => e.type === 'http_calls' && e.target.key.startsWith('httpfact:')).map((e) => `${e.line} ${e.target.key}`);
  }

  it('a base controller with its own [Route] and no action, and RouteAttribute subclasses, give their templates; computed or ambiguous ones none', async () => {
    const idx = await parseText(`[ApiController] [Route("api/[controller]")] public class BaseApiController : ControllerBase { }
public class ApiV1Attribute : RouteAttribute {
  protected const string ApiBase = "api/v1/[controller]";
  public ApiV1Attribute() : base(ApiBase) { }
}
public class GetV2Attribute : HttpGetAttribute { public GetV2Attribute(string t) : base("v2/" + t) { } }
public class TwoAttribute : RouteAttribute {
  public TwoAttribute() : base("a") { }
  public TwoAttribute(int x) : base("b") { }
}
[Route(Prefix.Value)] public class ComputedController : ControllerBase { }
[Route("api/orders")] public class OrdersController : ControllerBase { [HttpGet] public int List() => 1; }
[ApiV2] [Authorize] public class V2Controller : ControllerBase { public int P => 1; }
public class MiddleController : V2Controller { }`);
    expect(facts(idx)).toEqual([
      // Line 1: no action of its own, so its [Route] is a prefix others may inherit; its base's simple name follows.
      '1 httpfact:{"kind":"route","class":"BaseApiController","templates":["api/[controller]"],"attributes":[],"base":"ControllerBase"}',
      // Line 2: the constant ApiBase of the class, passed to base(...); the name without `Attribute` (as written in `[ApiV1]`).
      '2 httpfact:{"kind":"routeAttribute","class":"ApiV1","template":"api/v1/[controller]"}',
      // GetV2 passes "v2/" + a parameter: computed, no fact. Two passes "a" or "b" by constructor: no one value.
      // ComputedController's [Route] names a constant of another file: no literal. OrdersController serves its own actions.
      // Line 13: no [Route], but [ApiV2] may be a route attribute class ([Authorize] is known not to be one): Ombi's V2Controller.
      '13 httpfact:{"kind":"route","class":"V2Controller","templates":[],"attributes":["ApiV2"],"base":"ControllerBase"}',
      // Line 14: no route or attribute of its own, but a controller base that may pass one on.
      '14 httpfact:{"kind":"route","class":"MiddleController","templates":[],"attributes":[],"base":"V2Controller"}',
    ]);
  });

  it("RoutePrefixFacts: an endpoint takes its own attribute's template, else the nearest base that gives one; several values stay unknown", () => {
    const facts = new RoutePrefixFacts([
      { kind: 'routeAttribute', class: 'ApiV2', template: 'api/v2/[controller]' },
      { kind: 'routeAttribute', class: 'Twice', template: 'a/[controller]' },
      { kind: 'routeAttribute', class: 'Twice', template: 'b/[controller]' },
      { kind: 'route', class: 'V2Controller', templates: [], attributes: ['ApiV2'], base: 'ControllerBase' },
      { kind: 'route', class: 'MiddleController', templates: [], attributes: [], base: 'V2Controller' },
      { kind: 'route', class: 'BaseApiController', templates: ['api/[controller]'], attributes: [], base: 'ControllerBase' },
      { kind: 'route', class: 'MultiController', templates: ['x/[controller]', 'y/[controller]'], attributes: [], base: null },
    ]);
    const at = (base: string | null, attributes: string[], template = 'movie/{id:int}') => facts.resolve({ base, attributes, template, controller: 'Requests', action: 'Get', area: null });
    // RequestsController : MiddleController : V2Controller [ApiV2] → api/v2/Requests + movie/{id:int}, normalised.
    expect(at('MiddleController', [])).toBe('/api/v2/requests/movie/{id}');
    expect(at('BaseApiController', [])).toBe('/api/requests/movie/{id}');
    // Its own [ApiV2] wins over the base's [Route].
    expect(at('BaseApiController', ['Authorize', 'ApiV2'])).toBe('/api/v2/requests/movie/{id}');
    // [Twice]: two attribute classes of that name, two templates → unknown (no guess), even with a base that has one.
    expect(at('BaseApiController', ['Twice'])).toBeNull();
    // Two [Route]s on the base: the endpoint serves both; one template is not the answer.
    expect(at('MultiController', [])).toBeNull();
    // No fact for the base: unknown.
    expect(at('ElsewhereController', [])).toBeNull();
    // A token with no value ([area] without an [Area]) leaves it unknown.
    expect(at('BaseApiController', [], '[area]/x')).toBeNull();
  });
});
