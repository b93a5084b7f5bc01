/**
 * HTTP client calls (extract/http.ts): each client form as the `http_calls` edges it records —
 * source symbol, line and request key (`http:<METHOD> <pattern>`). The expected keys are derived
 * by hand from the snippets: literal path segments kept as written, each unknown part a `{}`
 * segment, an unknown base URL a leading `~`, origin and query string dropped.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapter, parseText } from './helpers.js';

const CLIENT = fileURLToPath(new URL('../../../fixtures/fullstack/client/', import.meta.url));

/** `source@line key` rows of a file's `http_calls` edges. */
async function calls(path: string, text: string): Promise<string[]> {
  const index = await parseText(path, text);
  const names = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
  return index.edges.filter((e) => e.type === 'http_calls').map((e) => `${names.get(e.sourceLocalId)}@${e.line} ${e.target.key}`);
}

describe('HTTP client calls', () => {
  // Loading the grammars is slow on a busy machine: once, outside the first test's time.
  beforeAll(() => adapter(), 120_000);

  it('fetch: literal, template literal, same-file constants, the method in the options, origin and query dropped', async () => {
    const text = [
      "const API = 'https://shop.example.com/api';", // 1
      "const ORDERS = API + '/orders';", // 2
      'export function a(id: number) { return fetch(`${ORDERS}/${id}?x=1`); }', // 3: /api/orders/{}
      "export function b() { return fetch('/api/orders', { method: 'post' }); }", // 4: POST
      'export function c(init: RequestInit) { return window.fetch(ORDERS, init); }', // 5: init unknown → ?
      "export function d() { const opts = { method: 'DELETE' }; return fetch(ORDERS + '/7', opts); }", // 6
      "export function e() { return fetch(ORDERS, { ...base, headers: {} }); }", // 7: a spread may bring the method → ?
    ].join('\n');
    expect(await calls('src/a.ts', text)).toEqual([
      'a@3 http:GET /api/orders/{}',
      'b@4 http:POST /api/orders',
      'c@5 http:? /api/orders',
      'd@6 http:DELETE /api/orders/7',
      'e@7 http:? /api/orders',
    ]);
  });

  it('axios: verbs, config objects, an instance with a baseURL joined, an imported instance is no client', async () => {
    const text = [
      "import axios from 'axios';", // 1
      "import api2 from './api';", // 2
      "const api = axios.create({ baseURL: '/api/v1/' });", // 3
      "export const f = (id: string) => axios.get(`/api/items/${id}`);", // 4
      "export const g = () => axios({ url: '/api/items', method: 'patch' });", // 5
      "export const h = () => api.post('items', { name: 'x' });", // 6: base joined with one slash
      "export const i = () => api.request({ url: '/items/7' });", // 7: no method → GET
      "export const j = () => api2.get('/unknown');", // 8: not a client of this file
      "export const k = () => axios.get('/api/x', { baseURL: cfg.base });", // 9: a base from elsewhere → unknown prefix
    ].join('\n');
    expect(await calls('src/b.ts', text)).toEqual([
      'f@4 http:GET /api/items/{}',
      'g@5 http:PATCH /api/items',
      'h@6 http:POST /api/v1/items',
      'i@7 http:GET /api/v1/items/7',
      'k@9 http:GET ~/api/x',
    ]);
  });

  it('ky: verbs, options with a method, an instance with a prefixUrl', async () => {
    const text = [
      "import ky from 'ky';", // 1
      "const client = ky.create({ prefixUrl: 'https://h.example/api' });", // 2
      "export const a = () => ky.get('api/carts').json();", // 3: relative → leading slash
      "export const b = (id: string) => ky('/api/carts/' + id, { method: 'put' });", // 4
      "export const c = () => client.delete('carts/1');", // 5
    ].join('\n');
    expect(await calls('src/c.ts', text)).toEqual(['a@3 http:GET /api/carts', 'b@4 http:PUT /api/carts/{}', 'c@5 http:DELETE /api/carts/1']);
  });

  it('Angular HttpClient: this.http.get<T>(url), request(method, url), an environment base URL as an unknown prefix', async () => {
    const text = [
      '@Injectable()', // 1
      'export class OrdersService {', // 2
      '  constructor(private http: HttpClient) {}', // 3
      '  list() { return this.http.get<Order[]>(`${environment.apiUrl}/orders`); }', // 4
      "  one(id: number) { return this.http.get<Order>('/api/orders/' + id); }", // 5
      "  save(o: Order) { return this.http.put('/api/orders/' + o.id, o); }", // 6
      "  raw() { return this.http.request('delete', '/api/orders/1'); }", // 7
      "  other() { return this.cache.get('/api/orders'); }", // 8: not an HTTP client by name
      '}',
    ].join('\n');
    expect(await calls('src/orders.service.ts', text)).toEqual([
      'OrdersService.list@4 http:GET ~/orders',
      'OrdersService.one@5 http:GET /api/orders/{}',
      'OrdersService.save@6 http:PUT /api/orders/{}',
      'OrdersService.raw@7 http:DELETE /api/orders/1',
    ]);
  });

  it('Angular HttpClient: an options argument read from elsewhere leaves the path known (its options carry no base URL)', async () => {
    // Kavita's `this.http.post<string>(this.apiUrl + 'filter/encode', filter, TextResonse)`: the
    // third argument is an imported options object. Read as an axios config it made the base
    // unknown (`~/{}/encode`: the unknown base then the unknown `this.apiUrl`), a literal path `~/api/…`.
    const text = [
      "import { TextResponse } from './types';", // 1
      'export class FilterService {', // 2
      '  constructor(private http: HttpClient) {}', // 3
      "  a(f: F) { return this.http.post<string>('/api/filter/encode', f, TextResponse); }", // 4: literal path, options unknown
      "  b(f: F) { return this.http.post<string>(this.apiUrl + 'filter/decode', f, TextResponse); }", // 5: unknown base only
      "  c() { return this.http.get('/api/filter', opts); }", // 6: GET options second
      '}',
    ].join('\n');
    expect(await calls('src/filter.service.ts', text)).toEqual([
      'FilterService.a@4 http:POST /api/filter/encode',
      'FilterService.b@5 http:POST ~/filter/decode',
      'FilterService.c@6 http:GET /api/filter',
    ]);
  });

  it('a base URL in a class field of the same class: its initialiser, unless the class assigns it again, it is static, decorated or from elsewhere', async () => {
    const text = [
      'export class OrdersService {', // 1
      "  private readonly apiUrl = '/api/orders/';", // 2
      "  private base = '/api/';", // 3: assigned again in setBase → unknown
      '  baseUrl = environment.apiUrl;', // 4: an import's property → unknown (Kavita's shape)
      "  @Input() endpoint = '/api/input';", // 5: set by the parent component → unknown
      "  static root = '/api/static';", // 6: `this.root` is no static field
      '  constructor(private http: HttpClient) {}', // 7
      '  setBase(b: string) { this.base = b; }', // 8
      "  a(id: number) { return this.http.get(this.apiUrl + id + '/lines'); }", // 9: /api/orders/{}/lines
      "  b() { return this.http.get(this.base + 'items'); }", // 10: ~/items
      "  c() { return this.http.get(this.baseUrl + 'series/v2'); }", // 11: ~/series/v2
      '  d() { return this.http.get(this.endpoint); }', // 12: ~
      '  e() { return this.http.get(this.root); }', // 13: ~
      '}',
    ].join('\n');
    expect(await calls('src/orders.service.ts', text)).toEqual([
      'OrdersService.a@9 http:GET /api/orders/{}/lines',
      'OrdersService.b@10 http:GET ~/items',
      'OrdersService.c@11 http:GET ~/series/v2',
      'OrdersService.d@12 http:GET ~',
      'OrdersService.e@13 http:GET ~',
    ]);
  });

  it('axios: a config read from elsewhere may still carry a baseURL (unknown prefix)', async () => {
    const text = ["import axios from 'axios';", "export const a = () => axios.get('/api/x', shared);"].join('\n');
    expect(await calls('src/g.ts', text)).toEqual(['a@2 http:GET ~/api/x']);
  });

  it('`await this.http.post<T>(url)`: the call tree-sitter parses around the await is still a client call', async () => {
    // Ombi's `return await this.http.post<IVoteEngineResult>(`${this.url}up/movie/${requestId}`, …).toPromise()`:
    // tree-sitter-typescript parses `await f<T>(x)` as a call of `(await f)`; no edge was recorded.
    const text = [
      'export class VoteService {', // 1
      '  async up(id: number) { return await this.http.post<R>(`/api/v1/Vote/up/movie/${id}`, {}).toPromise(); }', // 2
      "  async list() { const r = await this.http.get<R[]>('/api/v1/Vote'); return r; }", // 3
      '  async plain() { return await fetch<R>(`/api/v1/Vote`); }', // 4: fetch takes no type argument, but the syntax is the same
      '}',
    ].join('\n');
    expect(await calls('src/vote.service.ts', text)).toEqual([
      'VoteService.up@2 http:POST /api/v1/Vote/up/movie/{}',
      'VoteService.list@3 http:GET /api/v1/Vote',
      'VoteService.plain@4 http:GET /api/v1/Vote',
    ]);
    // The ordinary call graph gets the call too.
    const index = await parseText('src/vote.service.ts', text);
    expect(index.edges.filter((e) => e.type === 'calls').map((e) => `${e.line} ${e.target.name}`)).toEqual(['2 toPromise', '2 this.http.post', '3 this.http.get', '4 fetch']);
  });

  it("NSwag's Angular template: url_ built from this.baseUrl, placeholders replaced, request(method, url_, options_)", async () => {
    const text = [
      'export class TodoItemsClient {', // 1
      '  getTodoItemsWithPagination(listId: number | undefined): Observable<PaginatedList> {', // 2
      '    let url_ = this.baseUrl + "/api/TodoItems?";', // 3
      '    if (listId !== undefined && listId !== null) url_ += "ListId=" + encodeURIComponent("" + listId) + "&";', // 4
      '    url_ = url_.replace(/[?&]$/, "");', // 5
      '    let options_: any = { observe: "response", responseType: "blob" };', // 6
      '    return this.http.request("get", url_, options_).pipe();', // 7
      '  }', // 8
      '  deleteTodoItem(id: number): Observable<void> {', // 9
      '    let url_ = this.baseUrl + "/api/TodoItems/{id}";', // 10
      '    url_ = url_.replace("{id}", encodeURIComponent("" + id));', // 11
      '    return this.http.request("delete", url_, {}).pipe();', // 12
      '  }', // 13
      '}',
    ].join('\n');
    // Line 4's `+=` is not followed (the query string it adds is dropped anyway).
    expect(await calls('src/web-api-client.ts', text)).toEqual([
      'TodoItemsClient.getTodoItemsWithPagination@7 http:GET ~/api/TodoItems',
      'TodoItemsClient.deleteTodoItem@12 http:DELETE ~/api/TodoItems/{}',
    ]);
  });

  it('URLs from user input are unknown, never a literal path', async () => {
    const text = [
      'export function a(link: string) { return fetch(link); }', // 1: nothing known
      'export function b(section: string) { return fetch(`/api/${section}/items`); }', // 2
      'export function c(q: string) { return fetch(`/api/search?q=${q}`); }', // 3: only the query is unknown
      "export function d(path: string) { return fetch('/api/' + path.trim()); }", // 4
    ].join('\n');
    expect(await calls('src/d.ts', text)).toEqual(['a@1 http:GET ~', 'b@2 http:GET /api/{}/items', 'c@3 http:GET /api/search', 'd@4 http:GET /api/{}']);
  });

  it('generated OpenAPI clients: openapi-fetch client.GET(path), openapi-typescript-codegen __request(OpenAPI, { method, url }) (decision 049)', async () => {
    const text = [
      "export const api = createClient<paths>({ baseUrl: 'https://shop.example.com' });", // 1
      "export function a(id: number) { return api.GET('/api/orders/{id}', { params: { path: { id } } }); }", // 2: {id} is a parameter → {}
      "export function b() { return api.POST('/api/orders', { body: {} }); }", // 3
      "export function c(id: number) { return __request(OpenAPI, { method: 'DELETE', url: '/api/orders/{id}', path: { id } }); }", // 4
      "export function d() { return request(OpenAPI, { method: 'GET', url: '/api/catalog/items' }); }", // 5
      "export function e(m: string) { return __request(OpenAPI, { method: m, url: '/api/x' }); }", // 6: method unknown → ?
      'export function f() { return api.GET(); }', // 7: no path: nothing
      "export function g() { return request(other, { method: 'GET', url: '/api/y' }); }", // 8: not the OpenAPI config: nothing
    ].join('\n');
    expect(await calls('src/g.ts', text)).toEqual([
      'a@2 http:GET /api/orders/{}',
      'b@3 http:POST /api/orders',
      'c@4 http:DELETE /api/orders/{}',
      'd@5 http:GET /api/catalog/items',
      'e@6 http:? /api/x',
    ]);
  });

  it('calls that are not HTTP requests record nothing', async () => {
    const text = [
      "const m = new Map<string, number>(); m.get('/api/x');", // a Map
      "router.get('/api/x', handler);", // a server route, not a client
      'fetchData(); api.fetch();', // not fetch
    ].join('\n');
    expect(await calls('src/e.ts', text)).toEqual([]);
  });

  it('the full-stack fixture client: every call with its key', async () => {
    const files = ['src/api/orders.ts', 'src/api/catalog.ts', 'src/api/carts.ts', 'src/generated/client.ts', 'src/generated/shopApi.ts', 'src/components/Search.tsx', 'src/components/OrderPage.tsx', 'src/components/Invoice.tsx'];
    const rows: string[] = [];
    for (const f of files) rows.push(...(await calls(f, readFileSync(CLIENT + f, 'utf8'))).map((r) => `${f} ${r}`));
    expect(rows).toEqual([
      'src/api/orders.ts getOrder@8 http:GET /api/orders/{}',
      'src/api/orders.ts createOrder@13 http:POST /api/orders',
      // API_ORIGIN + ORDERS + '?page=' + page: origin and query dropped.
      'src/api/orders.ts listOrders@17 http:GET /api/orders',
      'src/api/orders.ts secondLine@22 http:GET /api/orders/{}/lines/2',
      // baseURL https://shop.example.com/api/catalog joined with /items.
      'src/api/catalog.ts listItems@8 http:GET /api/catalog/items',
      'src/api/catalog.ts getItem@12 http:GET /api/catalog/items/{}',
      'src/api/catalog.ts deleteItem@16 http:DELETE /api/admin/catalog/items/{}',
      'src/api/catalog.ts renameItem@20 http:PUT /api/catalog/items/{}/name',
      'src/api/carts.ts getCustomer@5 http:GET /api/v2/customers/{}',
      'src/api/carts.ts checkout@9 http:POST /api/v2/carts/{}/checkout',
      // this.baseUrl is unknown: the prefix is `~`.
      'src/generated/client.ts OrdersClient.getOrder@27 http:GET ~/api/Orders/{}',
      'src/generated/client.ts OrdersClient.deleteOrder@41 http:DELETE ~/api/Orders/{}',
      // openapi-fetch: the path as the document writes it, `{id}` an unknown segment (createClient's baseUrl is an origin).
      'src/generated/shopApi.ts getInvoice@9 http:GET /api/orders/{}/invoice',
      'src/generated/shopApi.ts getCatalogItem@13 http:GET /api/Catalog/items/{}',
      'src/components/Search.tsx Search@6 http:GET /api/{}/items',
      'src/components/Search.tsx Search@7 http:DELETE ~',
    ]);
  });
  it('a base URL declared in another file: the call names it (an import, a base class field set by super(...)) instead of an opaque `~` (decision 038)', async () => {
    const text = [
      "import { environment as env } from 'src/environments/environment';", // 1
      "import { ServiceHelpers } from './service.helpers';", // 2
      'export class A {', // 3
      '  baseUrl = env.apiUrl;', // 4
      '  constructor(private http: HttpClient) {}', // 5
      "  one(id: number) { return this.http.get(this.baseUrl + 'series/' + id); }", // 6: rest series/{} after the import
      "  two() { return this.http.get(env.api.reports + '/daily'); }", // 7: nested property path, rest starts with `/`
      '}', // 8
      'export class B extends ServiceHelpers {', // 9
      "  constructor(http: HttpClient, @Inject(APP_BASE_HREF) href: string, other: string) { super(http, '/api/v1/Things/', href, other); }", // 10
      '  three(id: number) { return this.http.delete(`${this.url}${id}`); }', // 11: rest {} (an unknown right after the reference)
      '  four() { return this.http.get(this.headers + "x"); }', // 12: `headers` is declared below → unknown, no reference
      '  headers = make();', // 13
      '}', // 14
    ].join('\n');
    const ENV = '{"kind":"import","from":"src/environments/environment","name":"environment"';
    const SUPER = '{"kind":"super","base":"ServiceHelpers","field":"url","args":[null,"/api/v1/Things/",{"baseHref":true},null]}';
    expect(await calls('src/a.ts', text)).toEqual([
      `A.one@6 http:GET ~/series/{} @{"ref":${ENV},"path":"apiUrl"},"slash":false,"rest":["series","{}"]}`,
      `A.two@7 http:GET ~/daily @{"ref":${ENV},"path":"api.reports"},"slash":true,"rest":["daily"]}`,
      // http is unknown (no literal), href the app's base href (its parameter is injected with APP_BASE_HREF), other unknown.
      `B.three@11 http:DELETE ~ @{"ref":${SUPER},"slash":false,"rest":["{}"]}`,
      'B.four@12 http:GET ~/x',
    ]);
  });

  it('prefix facts: exported consts with literal URL values (nested properties too) and constructors storing a string parameter in a field (decision 038)', async () => {
    const text = [
      "const HOST = 'localhost';", // 1
      'export const environment = {', // 2
      "  apiUrl: 'http://' + HOST + ':5000/api/',", // 3: literal through a const of the file
      "  hubUrl: location.origin + '/hubs/',", // 4: computed → no fact
      "  api: { reports: '/api/reports/' },", // 5: nested
      '  production: false,', // 6: not a path → no fact
      '};', // 7
      "export const API_ROOT = '/api';", // 8
      'export class Helpers {', // 9
      '  constructor(protected http: HttpClient, protected url: string, protected href: string, private count: number) {', // 10
      '    const base = href;', // 11
      '    if (base.length > 1) this.url = base + this.url;', // 12: a prefix from parameter 2 (through the local `base`)
      '  }', // 13
      '}', // 14
      'export class Other {', // 15
      '  constructor(protected url: string) { this.url = compute(); }', // 16: reassigned from something else → no fact
      '}', // 17
    ].join('\n');
    const facts = (await parseText('src/env.ts', text)).edges.filter((e) => e.target.key.startsWith('httpfact:')).map((e) => `${e.line} ${e.target.key}`);
    expect(facts).toEqual([
      '3 httpfact:{"kind":"const","name":"environment","path":"apiUrl","value":"http://localhost:5000/api/"}',
      '5 httpfact:{"kind":"const","name":"environment","path":"api.reports","value":"/api/reports/"}',
      '8 httpfact:{"kind":"const","name":"API_ROOT","path":"","value":"/api"}',
      // http is typed HttpClient and count a number: only string parameters; href is not named like a URL
      // field (…url, …path, …base …), so url alone, with href's prefix.
      '10 httpfact:{"kind":"ctor","class":"Helpers","field":"url","param":1,"hrefParam":2}',
    ]);
  });
});
