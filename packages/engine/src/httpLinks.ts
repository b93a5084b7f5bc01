/**
 * The HTTP linker (issue 31, decision 038): points each client call of a label (an `http_calls`
 * edge the TypeScript extractor keyed by its request, `http:GET /api/orders/{}`) at the endpoint
 * nodes it may request (`GET /api/orders/{id}`, from the C# extractor), with a confidence:
 *
 * - `exact`: the method and the whole path match one endpoint, each literal segment equal
 *   (case-insensitively) and each unknown segment of the call in a route parameter;
 * - `probable`: a literal of the call in a route parameter (`/api/orders/5` → `{id}`), or one of
 *   several endpoints that match equally well;
 * - `approximate`: the call's prefix is unknown (matched on its known suffix), its method is
 *   unknown, or an unknown part of it stands where the endpoint has a literal (user input).
 *
 * It runs after the parse and semantic passes of a run that changed anything and recomputes the
 * label's links in one transaction: links depend on files of both languages, and one batched
 * pass over the label is the simplest rule that keeps incremental equal to clean.
 */
import { isContractKey, parseClientCallKey, parseEndpointInheritsKey, parseEndpointSignature, parseOperationSignature, type ClientCall, type Confidence } from '@ca/schema';
import type { ClientCallRow, EndpointRow, HttpLink, OperationEdgeRow, PrefixFactRow, Store } from '@ca/store';
import { LabelPrefixes } from './httpPrefixes.js';

/** An endpoint's route as the linker matches it. */
export interface EndpointRoute {
  /** Upper-case method or `ANY`. */
  readonly method: string;
  readonly segments: readonly RouteSegment[];
  /** The extractor could not give the whole template (a prefix it could not resolve …): links to it are approximate at best. */
  readonly approximate?: boolean;
}

/** One segment of a route template. */
export type RouteSegment = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'param'; readonly optional: boolean; readonly catchAll: boolean };

/** What a linking pass did. */
export interface HttpLinkReport {
  readonly clientCalls: number;
  readonly endpoints: number;
  /** Client calls linked to at least one endpoint. */
  readonly linkedCalls: number;
  /** `http_calls` edges written (one per call and endpoint). */
  readonly links: number;
  /** Contract operations (OpenAPI documents, decision 049) and those linked to a code endpoint; absent when the label has none. */
  readonly operations?: { readonly total: number; readonly linked: number };
  readonly ms: number;
}

const RANK: Readonly<Record<Confidence, number>> = { exact: 2, probable: 1, approximate: 0 };

/** `GET /api/orders/{id}` → its route; null when the name is no endpoint name. */
export function parseEndpointRoute(name: string, approximate = false): EndpointRoute | null {
  const m = /^([A-Z]+) (\/\S*)$/.exec(name);
  if (!m) return null;
  const segments: RouteSegment[] = [];
  for (const s of m[2]!.split('/')) {
    if (s === '') continue;
    const p = /^\{(\*{0,2})([^}]*?)(\?)?\}$/.exec(s);
    if (p) segments.push({ kind: 'param', optional: p[3] === '?', catchAll: p[1] !== '' });
    else segments.push({ kind: 'literal', text: s.toLowerCase() });
  }
  return approximate ? { method: m[1]!, segments, approximate } : { method: m[1]!, segments };
}

/** How well one call matches one route: the weakest segment's confidence, then the sum of segment scores, then whether the method was named. */
export interface RouteMatch {
  readonly confidence: Confidence;
  /** Per segment: 3 equal literals, 2 an unknown part in a parameter, 1 a literal in a parameter, 0 an unknown part for a literal. */
  readonly score: number;
  /** The endpoint names the method (not `ANY`): ASP.NET prefers it over an endpoint that takes any method. */
  readonly methodNamed: boolean;
}

/** How one call matches one route; null when it does not. */
export function matchRoute(call: ClientCall, route: EndpointRoute): RouteMatch | null {
  if (call.method !== '?' && route.method !== 'ANY' && route.method !== call.method) return null;
  const methodNamed = route.method !== 'ANY';
  if (!call.segments.some((s) => s !== '{}')) {
    // Nothing literal to match on: only the root path matches the root path.
    return call.prefixKnown && call.segments.length === 0 && route.segments.length === 0 && !route.approximate ? { confidence: call.method === '?' ? 'approximate' : 'exact', score: 0, methodNamed } : null;
  }
  let aligned = call.prefixKnown ? alignWhole(call.segments, route.segments) : alignSuffix(call.segments, route.segments);
  // An approximate endpoint may lack its prefix (one inherited from a base class in another file): its template may be the call's suffix.
  if (aligned === null && route.approximate && call.segments.length > route.segments.length) aligned = zipTail(call.segments.slice(call.segments.length - route.segments.length), route.segments);
  if (aligned === null) return null;
  let confidence: Confidence = call.prefixKnown && call.method !== '?' && !route.approximate ? 'exact' : 'approximate';
  let score = 0;
  let literals = 0;
  for (const [c, r] of aligned) {
    let step: Confidence;
    if (r.kind === 'literal') {
      if (c === '{}') step = 'approximate';
      else if (c.toLowerCase() === r.text) {
        step = 'exact';
        score += 3;
        literals++;
      } else return null;
    } else {
      step = c === '{}' ? 'exact' : 'probable';
      score += c === '{}' ? 2 : 1;
    }
    if (RANK[step] < RANK[confidence]) confidence = step;
  }
  // A suffix with no literal equal says nothing about which endpoint it is.
  if ((!call.prefixKnown || route.approximate) && literals === 0) return null;
  return { confidence, score, methodNamed };
}

/** Pairs each call segment with the route segment it stands for (the whole path); null when the lengths cannot agree. */
function alignWhole(call: readonly string[], route: readonly RouteSegment[]): [string, RouteSegment][] | null {
  const out: [string, RouteSegment][] = [];
  let i = 0;
  for (const r of route) {
    if (r.kind === 'param' && r.catchAll) {
      // A catch-all takes the rest of the call (none of it, or any number of segments).
      for (; i < call.length; i++) out.push([call[i]!, r]);
      return out;
    }
    if (i >= call.length) {
      if (r.kind === 'param' && r.optional) continue;
      return null;
    }
    out.push([call[i++]!, r]);
  }
  return i === call.length ? out : null;
}

/** Pairs the call's known suffix with the route's last segments; null when the route is shorter. */
function alignSuffix(call: readonly string[], route: readonly RouteSegment[]): [string, RouteSegment][] | null {
  if (route.some((r) => r.kind === 'param' && (r.optional || r.catchAll))) {
    // Try the route with its optional tail dropped too: `{id?}` may be absent.
    const required = route.filter((r) => !(r.kind === 'param' && (r.optional || r.catchAll)));
    return alignSuffix(call, required) ?? (route.length >= call.length ? zipTail(call, route) : null);
  }
  return route.length >= call.length ? zipTail(call, route) : null;
}

function zipTail(call: readonly string[], route: readonly RouteSegment[]): [string, RouteSegment][] {
  const offset = route.length - call.length;
  return call.map((c, i) => [c, route[offset + i]!]);
}

/**
 * The links of one call among `routes`: the best matches only (highest confidence, then the
 * segment score — ASP.NET prefers literal segments — then an endpoint that names the method over
 * `ANY`); several equally good ones are at most `probable` each.
 */
export function linkCall(call: ClientCall, routes: readonly { readonly id: number; readonly route: EndpointRoute }[]): { id: number; confidence: Confidence }[] {
  let best: ({ id: number } & RouteMatch)[] = [];
  for (const { id, route } of routes) {
    const m = matchRoute(call, route);
    if (m === null) continue;
    const top = best[0];
    const cmp = top === undefined ? 1 : RANK[m.confidence] - RANK[top.confidence] || m.score - top.score || Number(m.methodNamed) - Number(top.methodNamed);
    if (cmp > 0) best = [{ id, ...m }];
    else if (cmp === 0) best.push({ id, ...m });
  }
  if (best.length <= 1) return best.map(({ id, confidence }) => ({ id, confidence }));
  return best.map(({ id, confidence }) => ({ id, confidence: confidence === 'exact' ? 'probable' : confidence }));
}

type Routed = { readonly id: number; readonly route: EndpointRoute; readonly handler: string | null };

/** The endpoints' routes; an endpoint whose prefix is inherited from another file gets its full template when `prefixes` resolves it. */
function routesOf(endpoints: readonly EndpointRow[], prefixes: LabelPrefixes | null = null): Routed[] {
  return endpoints.flatMap((e) => {
    const sig = parseEndpointSignature(e.signature);
    const inherits = e.inheritsKey === null ? null : parseEndpointInheritsKey(e.inheritsKey);
    const inherited = inherits !== null && prefixes !== null ? prefixes.resolveEndpoint(inherits) : null;
    const route = inherited !== null ? parseEndpointRoute(`${sig!.method} ${inherited}`) : parseEndpointRoute(e.name, (sig?.approximate ?? null) !== null);
    return route === null ? [] : [{ id: e.id, route, handler: e.handler }];
  });
}

/**
 * Every call's links against every endpoint (pure: what {@link linkHttpCalls} writes). A call
 * links to the code's endpoints; only when none matches, to the contract operations that do
 * (a generated client whose server side is not in the index, decision 049). `facts`: the
 * label's prefix facts, which resolve prefixes declared in another file first (decision 038).
 */
export function computeHttpLinks(calls: readonly ClientCallRow[], endpoints: readonly EndpointRow[], facts: readonly PrefixFactRow[] = []): HttpLink[] {
  const prefixes = new LabelPrefixes(facts);
  const code = routesOf(endpoints.filter((e) => !isContractKey(e.symbolKey)), prefixes);
  const contract = routesOf(endpoints.filter((e) => isContractKey(e.symbolKey)));
  const links: HttpLink[] = [];
  for (const c of calls) {
    const parsed = parseClientCallKey(c.targetKey);
    if (parsed === null) continue;
    const call = prefixes.resolveCall(parsed, c.path);
    let found = linkCall(call, code);
    if (found.length === 0 && contract.length > 0) found = linkCall(call, contract);
    for (const l of found) links.push({ edgeId: c.edgeId, endpointId: l.id, confidence: l.confidence });
  }
  return links;
}

/** `GetTodoItemsAsync` → `gettodoitems`: an action's name as an operationId names it. */
function actionWord(name: string): string {
  const last = name.slice(name.lastIndexOf('.') + 1);
  return last.replace(/Async$/, '').toLowerCase();
}

/** Whether an operationId names the handler: equal, or its part after the last `_` (NSwag's `Controller_Action`) is. */
function namesHandler(operationId: string, handler: string | null): boolean {
  if (handler === null) return false;
  const want = actionWord(handler);
  const id = operationId.toLowerCase();
  return id === want || id.slice(id.lastIndexOf('_') + 1) === want || id.replace(/async$/, '') === want;
}

/**
 * Each contract operation's link to the code endpoint serving it (pure: what
 * {@link linkHttpCalls} writes on the operations' `handles` edges). The operation is matched as
 * a client call with its parameters unknown, so the same method and normalised path is `exact`;
 * among several equally good endpoints the one whose handler the operationId names is kept with
 * its confidence (the tie-breaker). An operation whose path matches nothing links `probable` to
 * the one endpoint of its method whose handler its operationId names (the path drifted).
 * `facts`: the label's prefix facts (an endpoint's route prefix declared in another file, decision 038).
 */
export function computeOperationLinks(operations: readonly OperationEdgeRow[], endpoints: readonly EndpointRow[], facts: readonly PrefixFactRow[] = []): HttpLink[] {
  const code = routesOf(endpoints.filter((e) => !isContractKey(e.symbolKey)), new LabelPrefixes(facts));
  const links: HttpLink[] = [];
  for (const op of operations) {
    const sig = parseOperationSignature(op.targetKey.slice(op.targetKey.indexOf(':') + 1));
    const operationId = parseOperationSignature(op.signature)?.operationId ?? null;
    if (sig === null) continue;
    const call: ClientCall = { method: sig.method, segments: sig.template.split('/').filter((s) => s !== '').map((s) => (s.startsWith('{') ? '{}' : s)), prefixKnown: true };
    let found = linkCall(call, code);
    if (found.length > 1 && operationId !== null) {
      const named = found.filter((l) => namesHandler(operationId, code.find((r) => r.id === l.id)!.handler));
      // The operationId breaks the tie: the path matched several endpoints equally, the name one of them.
      if (named.length === 1) found = [{ id: named[0]!.id, confidence: matchRoute(call, code.find((r) => r.id === named[0]!.id)!.route)!.confidence }];
    }
    if (found.length === 0 && operationId !== null) {
      const named = code.filter((r) => (r.route.method === sig.method || r.route.method === 'ANY') && namesHandler(operationId, r.handler));
      if (named.length === 1) found = [{ id: named[0]!.id, confidence: 'probable' }];
    }
    for (const l of found) links.push({ edgeId: op.edgeId, endpointId: l.id, confidence: l.confidence });
  }
  return links;
}

/** Recomputes the label's `http_calls` links and its contract operations' links in one pass; see the module comment. */
export function linkHttpCalls(store: Store, label: string): HttpLinkReport {
  const started = performance.now();
  const calls = store.httpLinks.clientCalls(label);
  const operations = store.httpLinks.operationEdges(label);
  const endpoints = calls.length > 0 || operations.length > 0 ? store.httpLinks.endpoints(label) : [];
  const facts = calls.length > 0 || operations.length > 0 ? store.httpLinks.prefixFacts(label) : [];
  const links = calls.length > 0 ? computeHttpLinks(calls, endpoints, facts) : [];
  const written = calls.length > 0 ? store.httpLinks.replaceLinks(label, links) : 0;
  const opLinks = operations.length > 0 ? computeOperationLinks(operations, endpoints, facts) : [];
  if (operations.length > 0) store.httpLinks.replaceOperationLinks(label, opLinks);
  return {
    clientCalls: calls.length,
    endpoints: endpoints.filter((e) => !isContractKey(e.symbolKey)).length,
    linkedCalls: new Set(links.map((l) => l.edgeId)).size,
    links: written,
    ...(operations.length > 0 ? { operations: { total: operations.length, linked: new Set(opLinks.map((l) => l.edgeId)).size } } : {}),
    ms: performance.now() - started,
  };
}

/** Client calls that reach no endpoint and endpoints no client call reaches (`ca routes --unmatched`); with a contract, its drift. */
export interface UnmatchedHttp {
  readonly calls: readonly { readonly path: string; readonly line: number; readonly request: string }[];
  /** Code endpoints no client call reaches. */
  readonly endpoints: readonly { readonly path: string; readonly line: number; readonly name: string }[];
  /**
   * When the label has contract operations (OpenAPI documents): the operations no code endpoint
   * serves, and the code endpoints no operation describes (the contract drift). Absent otherwise.
   */
  readonly contract?: {
    readonly operations: readonly { readonly path: string; readonly line: number; readonly name: string }[];
    readonly endpoints: readonly { readonly path: string; readonly line: number; readonly name: string }[];
  };
}

/** Razor Pages and Blazor `@page` routes serve HTML: an API document not describing them is no drift. */
const PAGE_FILE = /\.(razor|cshtml)$/i;

/** The label's unmatched client calls and endpoints, by the same matching as the links. */
export function unmatchedHttp(store: Store, label: string): UnmatchedHttp {
  const calls = store.httpLinks.clientCalls(label);
  const endpoints = store.httpLinks.endpoints(label);
  const facts = store.httpLinks.prefixFacts(label);
  const links = computeHttpLinks(calls, endpoints, facts);
  const linkedCalls = new Set(links.map((l) => l.edgeId));
  const reached = new Set(links.map((l) => l.endpointId));
  const at = (e: EndpointRow) => ({ path: e.path, line: e.line, name: e.name });
  const out = {
    calls: calls.filter((c) => !linkedCalls.has(c.edgeId)).map((c) => ({ path: c.path, line: c.line, request: c.targetName })),
    endpoints: endpoints.filter((e) => !isContractKey(e.symbolKey) && !reached.has(e.id)).map(at),
  };
  const operations = store.httpLinks.operationEdges(label);
  if (operations.length === 0) return out;
  const opLinks = computeOperationLinks(operations, endpoints, facts);
  const served = new Set(opLinks.map((l) => l.edgeId));
  const described = new Set(opLinks.map((l) => l.endpointId));
  const unserved = new Set(operations.filter((o) => !served.has(o.edgeId)).map((o) => o.sourceId));
  return {
    ...out,
    contract: {
      operations: endpoints.filter((e) => unserved.has(e.id)).map(at),
      endpoints: endpoints.filter((e) => !isContractKey(e.symbolKey) && !PAGE_FILE.test(e.path) && !described.has(e.id)).map(at),
    },
  };
}
