/**
 * HTTP client calls (issue 31): `fetch`, `axios` (and its instances made by `axios.create`),
 * `ky`, Angular's `HttpClient` (`this.http.get<T>(url)`) and NSwag's generated TypeScript
 * clients (`this.http.fetch(url_, options_)`, `this.http.request("get", url_, …)`). The walker
 * keeps each call whose callee looks like one ({@link isHttpCallee}); after the walk
 * {@link httpCallEdges} reads its method and URL ({@link ValueReader}) and records an
 * `http_calls` edge from the enclosing symbol with the request as its target key
 * (`http:GET /api/orders/{}`, see `clientCallKey` in @ca/schema). The engine's linker points
 * the edge at the endpoint it requests.
 *
 * A URL part the syntax does not give is unknown: inside the path it is a `{}` segment; before
 * the path (an unknown base URL) it makes the pattern start with `~`. A method that is not
 * written is `?`. So a URL built from user input is never recorded as a known path.
 */
import type { Node as TsNode, Tree } from 'web-tree-sitter';
import { clientCallKey, clientCallName, clientPath, type ClientCallPrefix, type ExtractedEdge, type PrefixRef } from '@ca/schema';
import { importBindings, leadingRef, prefixFactEdges, referenceOf, REF_CLOSE, REF_OPEN, withoutRefs } from './httpPrefixes.js';
import { UNKNOWN, ValueReader } from './httpValues.js';
import { localId } from './resolve.js';

/** A call the walker kept: the call node, its callee as written and the enclosing symbol. */
export interface HttpSite {
  readonly node: TsNode;
  readonly callee: string;
  readonly src: number;
  readonly line: number;
}

const VERBS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'delete', 'patch', 'head', 'options']);
/** openapi-fetch's methods (`client.GET('/api/orders/{id}', …)`): upper case, on any receiver. */
const OPENAPI_FETCH_VERBS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE']);
/** openapi-typescript-codegen / openapi-generator's request helper: `__request(OpenAPI, { method, url })`. */
const CODEGEN_REQUEST: ReadonlySet<string> = new Set(['request', '__request']);
/** Receivers that are an HTTP client by name: Angular's injected `HttpClient`, NSwag's `http`. */
const HTTP_RECEIVER = /^_?http(Client)?$/i;
const FETCH_NAMES: ReadonlySet<string> = new Set(['fetch', 'window.fetch', 'globalThis.fetch', 'self.fetch']);
/** Bodies of methods that carry no body (`axios.get(url, config)`) vs those that do (`axios.post(url, data, config)`). */
const BODY_VERBS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

/** Whether the walker should keep a call of `callee` (cheap: the decision is {@link httpCallEdges}'). */
export function isHttpCallee(callee: string): boolean {
  const dot = callee.lastIndexOf('.');
  const last = dot < 0 ? callee : callee.slice(dot + 1);
  return VERBS.has(last) || (dot > 0 && OPENAPI_FETCH_VERBS.has(last)) || last === 'fetch' || CODEGEN_REQUEST.has(last) || callee === 'axios' || callee === 'ky';
}

/** A client instance of the file: `const api = axios.create({ baseURL })` / `ky.create({ prefixUrl })`. */
interface Instance {
  readonly library: 'axios' | 'ky';
  /** The base URL (with {@link UNKNOWN} parts), '' when none is given. */
  readonly base: string;
}

/** What one call requests: the method (upper case or `?`) and the URL value. */
interface Request {
  readonly method: string;
  readonly url: string;
}

/**
 * The `http_calls` edges of the kept sites, in the order met, then the file's prefix facts
 * (decision 038: values other files' URLs may start with, for the label-wide resolution).
 */
export function httpCallEdges(tree: Tree, text: string, sites: readonly HttpSite[]): ExtractedEdge[] {
  const constants = topLevelConstants(tree, text);
  const imports = importBindings(tree, text);
  const refs: PrefixRef[] = [];
  const values: ValueReader = new ValueReader(text, constants, (node) => {
    const ref = imports.size === 0 && node.type === 'identifier' ? null : referenceOf(node, imports, values);
    if (ref === null) return null;
    refs.push(ref);
    return `${REF_OPEN}${refs.length - 1}${REF_CLOSE}`;
  });
  const facts = prefixFactEdges(tree, values);
  if (sites.length === 0) return facts;
  const instances = clientInstances(constants, values);
  const edges: ExtractedEdge[] = [];
  const seen = new Set<string>();
  for (const site of sites) {
    const request = requestOf(site, values, instances);
    if (request === null) continue;
    const pattern = urlPattern(withoutRefs(request.url));
    const prefix = prefixOf(request.url, refs, pattern);
    const key = clientCallKey(request.method, pattern, prefix);
    const dedupe = `${site.src}\u0001${site.line}\u0001${key}`;
    if (seen.has(dedupe)) continue;
    seen.add(dedupe);
    edges.push({
      sourceLocalId: localId(site.src),
      type: 'http_calls',
      // Unlinked: the linker sets the confidence of the match.
      confidence: 'approximate',
      target: { key, name: clientCallName(request.method, pattern) },
      line: site.line,
    });
  }
  return [...edges, ...facts];
}

/** The reference the URL starts with and the path after it (`${this.url}${id}`: rest `{}`). */
function prefixOf(url: string, refs: readonly PrefixRef[], pattern: string): ClientCallPrefix | undefined {
  const lead = leadingRef(url, refs);
  if (lead === null || !pattern.startsWith('~')) return undefined;
  const rest = withoutRefs(lead.rest);
  const slash = rest === '' || /^[/?#]/.test(rest);
  // Read as a path of its own: a leading unknown part is then a `{}` segment, not an unknown prefix.
  const segments = urlPattern(slash ? rest : `/${rest}`).split('/').filter((s) => s !== '');
  return { ref: lead.ref, slash, rest: segments };
}

/**
 * `/api/orders/{}`, or `~/orders` when the URL starts with an unknown part, or `~` when nothing
 * of the path is known. Query string and origin are dropped; a segment with an unknown part, or
 * written as a route parameter (`{id}`, NSwag's placeholders), is `{}`.
 */
export function urlPattern(url: string): string {
  const prefixUnknown = url.startsWith(UNKNOWN);
  let rest = url.replace(/^\u0000+/, '');
  if (prefixUnknown && /^[?#]/.test(rest)) rest = '';
  const path = rest === '' ? '' : clientPath(rest);
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (s.includes(UNKNOWN) || /^\{[^}]*\}$/.test(s) ? '{}' : s));
  const joined = segments.length > 0 ? `/${segments.join('/')}` : prefixUnknown ? '' : '/';
  return prefixUnknown ? `~${joined}` : joined;
}

function requestOf(site: HttpSite, values: ValueReader, instances: ReadonlyMap<string, Instance>): Request | null {
  const args = argumentsOf(site.node);
  const callee = site.callee;
  const dot = callee.lastIndexOf('.');
  const receiver = dot < 0 ? '' : callee.slice(0, dot);
  const member = dot < 0 ? callee : callee.slice(dot + 1);
  const receiverLast = receiver.slice(receiver.lastIndexOf('.') + 1);
  if (FETCH_NAMES.has(callee) || (member === 'fetch' && HTTP_RECEIVER.test(receiverLast))) return fetchRequest(args, values);
  if (callee === 'axios' || (receiver === 'axios' && member === 'request')) return axiosConfigRequest(args, values, '');
  if (callee === 'ky') return kyRequest(args, values, '', null);
  if (receiver === 'axios' && VERBS.has(member)) return verbRequest(member, args, values, '');
  if (receiver === 'ky' && VERBS.has(member)) return kyRequest(args, values, '', member);
  // Generated OpenAPI clients: the path is the document's, the base URL the generator's setting.
  if (CODEGEN_REQUEST.has(callee) && args.length >= 2 && values.source(args[0]!) === 'OpenAPI') return axiosConfigRequest([args[1]!], values, '');
  if (receiver !== '' && OPENAPI_FETCH_VERBS.has(member)) return args.length === 0 ? null : { method: member, url: values.value(args[0]!) };
  const instance = instances.get(receiver);
  if (instance !== undefined) {
    if (instance.library === 'axios' && VERBS.has(member)) return verbRequest(member, args, values, instance.base);
    if (instance.library === 'axios' && member === 'request') return axiosConfigRequest(args, values, instance.base);
    if (instance.library === 'ky' && VERBS.has(member)) return kyRequest(args, values, instance.base, member);
    return null;
  }
  if (HTTP_RECEIVER.test(receiverLast)) {
    // Angular's options carry no base URL: an options object read from elsewhere leaves the path known.
    if (VERBS.has(member)) return verbRequest(member, args, values, '', false);
    // Angular `request(method, url, options)`, NSwag's Angular template.
    if (member === 'request' && args.length >= 2) return { method: methodValue(args[0]!, values), url: values.value(args[1]!) };
  }
  return null;
}

function argumentsOf(call: TsNode): TsNode[] {
  return call.childForFieldName('arguments')?.namedChildren.filter((a): a is TsNode => a !== null && a.type !== 'comment') ?? [];
}

/** `fetch(url, init)`: GET unless `init.method` says otherwise; `?` when `init` cannot be read. */
function fetchRequest(args: readonly TsNode[], values: ValueReader): Request | null {
  if (args.length === 0) return null;
  const init = args[1];
  if (init === undefined) return { method: 'GET', url: values.value(args[0]!) };
  return { method: optionMethod(init, values, 'method'), url: values.value(args[0]!) };
}

/** `axios(config)`, `axios(url, config)`, `axios.request(config)`. */
function axiosConfigRequest(args: readonly TsNode[], values: ValueReader, base: string): Request | null {
  if (args.length === 0) return null;
  const first = args[0]!;
  const config = values.object(first);
  if (config !== null) {
    const url = values.property(config, 'url');
    const configBase = values.property(config, 'baseURL');
    const prefix = configBase === undefined ? base : configBase === null ? UNKNOWN : values.value(configBase);
    return { method: optionMethod(first, values, 'method'), url: joinBase(prefix, url === undefined ? '' : url === null ? UNKNOWN : values.value(url)) };
  }
  const method = args[1] === undefined ? 'GET' : optionMethod(args[1], values, 'method');
  return { method, url: joinBase(base, values.value(first)) };
}

/**
 * `axios.get(url, config)`, `http.post<T>(url, body, options)`, an instance's `api.put(url, data)`;
 * `readsBase`: whether the config may carry a `baseURL` (axios's does, Angular's options do not).
 */
function verbRequest(verb: string, args: readonly TsNode[], values: ValueReader, base: string, readsBase = true): Request | null {
  if (args.length === 0) return null;
  const config = args[BODY_VERBS.has(verb) ? 2 : 1];
  const configBase = config === undefined || !readsBase ? undefined : configProperty(config, values, 'baseURL');
  const prefix = configBase === undefined ? base : configBase === null ? UNKNOWN : values.value(configBase);
  return { method: verb.toUpperCase(), url: joinBase(prefix, values.value(args[0]!)) };
}

/** `ky(url, { method, prefixUrl })`, `ky.get(url)`, an instance's `api.post(url)`. */
function kyRequest(args: readonly TsNode[], values: ValueReader, base: string, verb: string | null): Request | null {
  if (args.length === 0) return null;
  const options = args[1];
  const optionBase = options === undefined ? undefined : configProperty(options, values, 'prefixUrl');
  const prefix = optionBase === undefined ? base : optionBase === null ? UNKNOWN : values.value(optionBase);
  const method = verb !== null ? verb.toUpperCase() : options === undefined ? 'GET' : optionMethod(options, values, 'method');
  return { method, url: joinBase(prefix, values.value(args[0]!)) };
}

/** An options object's property: its value, `undefined` when surely absent, null when unknown. */
function configProperty(options: TsNode, values: ValueReader, name: string): TsNode | null | undefined {
  const object = values.object(options);
  return object === null ? null : values.property(object, name);
}

/** The method an options object gives (`GET` when it surely gives none, `?` when unknown). */
function optionMethod(options: TsNode, values: ValueReader, name: string): string {
  const p = configProperty(options, values, name);
  if (p === undefined) return 'GET';
  return p === null ? '?' : methodValue(p, values);
}

function methodValue(node: TsNode, values: ValueReader): string {
  const v = values.value(node);
  return /^[a-z]+$/i.test(v) ? v.toUpperCase() : '?';
}

/** A base URL and a path, joined as the libraries do: one slash between them, an absolute URL replacing the base. */
function joinBase(base: string, url: string): string {
  if (base === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  if (url === '') return base;
  return `${base.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

/** The initialisers of the file's top-level `const` declarations (exported ones too), by name. */
function topLevelConstants(tree: Tree, text: string): Map<string, TsNode> {
  const constants = new Map<string, TsNode>();
  for (const statement of tree.rootNode.namedChildren) {
    if (statement === null) continue;
    const decl = statement.type === 'export_statement' ? statement.childForFieldName('declaration') : statement;
    if (decl?.type !== 'lexical_declaration' || !text.slice(decl.startIndex, decl.startIndex + 5).startsWith('const')) continue;
    for (const d of decl.namedChildren) {
      if (d?.type !== 'variable_declarator') continue;
      const name = d.childForFieldName('name');
      const value = d.childForFieldName('value');
      if (name?.type === 'identifier' && value !== null) constants.set(text.slice(name.startIndex, name.endIndex), value);
    }
  }
  return constants;
}

/** `const api = axios.create({ baseURL: … })`, `ky.create/extend({ prefixUrl: … })` among the constants. */
function clientInstances(constants: ReadonlyMap<string, TsNode>, values: ValueReader): Map<string, Instance> {
  const instances = new Map<string, Instance>();
  for (const [name, value] of constants) {
    if (value.type !== 'call_expression') continue;
    const fn = value.childForFieldName('function');
    const callee = fn === null ? '' : values.source(fn).replace(/\s+/g, '');
    const library = callee === 'axios.create' ? 'axios' : callee === 'ky.create' || callee === 'ky.extend' ? 'ky' : null;
    if (library === null) continue;
    const options = argumentsOf(value)[0];
    const p = options === undefined ? undefined : configProperty(options, values, library === 'axios' ? 'baseURL' : 'prefixUrl');
    instances.set(name, { library, base: p === undefined ? '' : p === null ? UNKNOWN : values.value(p) });
  }
  return instances;
}
