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
import { parseClientCallKey, parseEndpointSignature, type ClientCall, type Confidence } from '@ca/schema';
import type { ClientCallRow, EndpointRow, HttpLink, Store } from '@ca/store';

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

/** Every call's links against every endpoint (pure: what {@link linkHttpCalls} writes). */
export function computeHttpLinks(calls: readonly ClientCallRow[], endpoints: readonly EndpointRow[]): HttpLink[] {
  const routes = endpoints.flatMap((e) => {
    const route = parseEndpointRoute(e.name, (parseEndpointSignature(e.signature)?.approximate ?? null) !== null);
    return route === null ? [] : [{ id: e.id, route }];
  });
  const links: HttpLink[] = [];
  for (const c of calls) {
    const call = parseClientCallKey(c.targetKey);
    if (call === null) continue;
    for (const l of linkCall(call, routes)) links.push({ edgeId: c.edgeId, endpointId: l.id, confidence: l.confidence });
  }
  return links;
}

/** Recomputes the label's `http_calls` links in one transaction; see the module comment. */
export function linkHttpCalls(store: Store, label: string): HttpLinkReport {
  const started = performance.now();
  const calls = store.httpLinks.clientCalls(label);
  const endpoints = calls.length > 0 ? store.httpLinks.endpoints(label) : [];
  const links = calls.length > 0 ? computeHttpLinks(calls, endpoints) : [];
  const written = calls.length > 0 ? store.httpLinks.replaceLinks(label, links) : 0;
  return {
    clientCalls: calls.length,
    endpoints: endpoints.length,
    linkedCalls: new Set(links.map((l) => l.edgeId)).size,
    links: written,
    ms: performance.now() - started,
  };
}

/** Client calls that reach no endpoint and endpoints no client call reaches (`ca routes --unmatched`). */
export interface UnmatchedHttp {
  readonly calls: readonly { readonly path: string; readonly line: number; readonly request: string }[];
  readonly endpoints: readonly { readonly path: string; readonly line: number; readonly name: string }[];
}

/** The label's unmatched client calls and endpoints, by the same matching as the links. */
export function unmatchedHttp(store: Store, label: string): UnmatchedHttp {
  const calls = store.httpLinks.clientCalls(label);
  const endpoints = store.httpLinks.endpoints(label);
  const links = computeHttpLinks(calls, endpoints);
  const linkedCalls = new Set(links.map((l) => l.edgeId));
  const reached = new Set(links.map((l) => l.endpointId));
  return {
    calls: calls.filter((c) => !linkedCalls.has(c.edgeId)).map((c) => ({ path: c.path, line: c.line, request: c.targetName })),
    endpoints: endpoints.filter((e) => !reached.has(e.id)).map((e) => ({ path: e.path, line: e.line, name: e.name })),
  };
}
