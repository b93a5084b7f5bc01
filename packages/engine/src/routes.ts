/**
 * `ca routes`: every HTTP endpoint of a label with its handler, where it is declared, its bound
 * parameters, why it is approximate, and how many client calls reach it.
 */
import { ENDPOINT_INHERITS_KEY_PREFIX, isContractKey, parseEndpointInheritsKey, parseEndpointSignature, parseOperationSignature, type Confidence, type EndpointInherits, type EndpointParam } from '@ca/schema';
import { FIND_MAX_LIMIT, type FindCursor, type IndexReader, type NodeRecord } from '@ca/store';
import type { LabelPrefixes } from './httpPrefixes.js';

/** The handler of an endpoint: a symbol of the index, or the name the extractor could not resolve. */
export interface RouteHandler {
  /** The qualified name (a file's path for top-level statements). */
  readonly qualifiedName: string;
  readonly kind: string | null;
  readonly path: string | null;
  readonly line: number | null;
  /**
   * `exact` (the attribute is on the method, the lambda is in it), `probable` (a method group
   * resolved by name), `approximate` (a name resolved when listing, or not at all).
   */
  readonly confidence: Confidence;
  /** False when no symbol of the index carries the name (declared outside the repository?). */
  readonly resolved: boolean;
}

/** One endpoint of `ca routes --json`. */
export interface RouteRecord {
  readonly id: number;
  /**
   * `GET /api/orders/{id}`: the endpoint's route — its node's name, or, when its controller's
   * prefix is declared in another file and the label resolves it (decision 038), the full route.
   */
  readonly name: string;
  /** The node's own name when `name` is the resolved route (its file alone gave this), else absent. */
  readonly declaredAs?: string;
  readonly method: string;
  readonly template: string;
  readonly language: string;
  readonly path: string;
  readonly line: number;
  readonly handlers: readonly RouteHandler[];
  readonly params: readonly EndpointParam[];
  /** Why the template is not exact, or null. */
  readonly approximate: string | null;
  /** Client call sites linked to the endpoint (`http_calls` edges into it). */
  readonly clients: number;
  /**
   * For an operation of an OpenAPI document (decision 049): its operationId and tags; its
   * `handlers` are the code endpoints serving it. Null for a code endpoint.
   */
  readonly contract: { readonly operationId: string | null; readonly tags: readonly string[] } | null;
  /** Contract operations describing this code endpoint (0 for an operation). */
  readonly operations: number;
}

/** The `ca routes` answer. */
export interface RoutesReport {
  readonly total: number;
  readonly routes: readonly RouteRecord[];
  /** Endpoints whose template is approximate. */
  readonly approximate: number;
}

/** Every endpoint node of the label, in path then position order. */
function endpointNodes(reader: IndexReader): NodeRecord[] {
  const out: NodeRecord[] = [];
  let after: FindCursor | null = null;
  for (;;) {
    const page = reader.find({ kinds: ['endpoint'] }, { limit: FIND_MAX_LIMIT, after });
    out.push(...page.nodes);
    if (!page.next) return out;
    after = page.next;
  }
}

/**
 * The handler an unresolved `handles` edge names (`CatalogEndpoints.ListItems`, declared in
 * another file): the only method of the label with that qualified-name suffix, else unresolved.
 */
function handlerByName(reader: IndexReader, name: string, cache: Map<string, NodeRecord | null>): NodeRecord | null {
  if (cache.has(name)) return cache.get(name)!;
  const found = reader.bySuffix(name, { kinds: ['method', 'function'] }, 2);
  const one = found.length === 1 ? found[0]! : null;
  cache.set(name, one);
  return one;
}

function handlersOf(reader: IndexReader, endpoint: NodeRecord, cache: Map<string, NodeRecord | null>): RouteHandler[] {
  // An operation's unlinked edge names no handler: no endpoint serves it (looking its name up would find none, or a wrong one).
  const edges = reader.edgesFrom(endpoint.id, ['handles']).filter((e) => e.targetId !== null || !isContractKey(endpoint.symbolKey));
  return edges.map((e) => {
    const target = e.targetId !== null ? reader.nodeById(e.targetId) : handlerByName(reader, e.targetName, cache);
    if (!target) return { qualifiedName: e.targetName, kind: null, path: null, line: null, confidence: e.confidence, resolved: false };
    // A handler found by name when listing is a guess at the listing's level of certainty.
    const confidence: Confidence = e.targetId !== null ? e.confidence : 'approximate';
    return { qualifiedName: target.qualifiedName, kind: target.kind, path: target.path, line: target.startLine, confidence, resolved: true };
  });
}

/** Where an endpoint's route prefix may come from (its inherited-prefix edge), or null: its route is its own. */
function inheritsOf(reader: IndexReader, endpointId: number): EndpointInherits | null {
  const edge = reader.edgesFrom(endpointId, ['http_calls']).find((e) => e.targetKey.startsWith(ENDPOINT_INHERITS_KEY_PREFIX));
  return edge === undefined ? null : parseEndpointInheritsKey(edge.targetKey);
}

/**
 * Every endpoint of the label reader's label, with its handlers and client count. `prefixes`: the
 * label's prefix facts — an endpoint whose route prefix is inherited from another file is listed
 * with the full route the HTTP linker matches (not approximate), its own name kept as `declaredAs`.
 */
export function listRoutes(reader: IndexReader, prefixes: LabelPrefixes | null = null): RoutesReport {
  const cache = new Map<string, NodeRecord | null>();
  const routes = endpointNodes(reader).map((n): RouteRecord => {
    const sig = parseEndpointSignature(n.signature);
    const op = isContractKey(n.symbolKey) ? parseOperationSignature(n.signature) : null;
    const space = n.name.indexOf(' ');
    const inherits = prefixes === null ? null : inheritsOf(reader, n.id);
    const inherited = inherits !== null ? prefixes!.resolveEndpoint(inherits) : null;
    const resolved = inherited === null ? null : { name: `${sig!.method} ${inherited}`, template: inherited };
    return {
      id: n.id,
      name: resolved?.name ?? n.name,
      ...(resolved && resolved.name !== n.name ? { declaredAs: n.name } : {}),
      method: sig?.method ?? n.name.slice(0, space),
      template: resolved?.template ?? sig?.template ?? n.name.slice(space + 1),
      language: n.language,
      path: n.path,
      line: n.startLine,
      handlers: handlersOf(reader, n, cache),
      params: sig?.params ?? [],
      approximate: resolved ? null : (sig?.approximate ?? null),
      clients: reader.edgesTo(n.id, ['http_calls']).length,
      contract: op === null ? null : { operationId: op.operationId, tags: op.tags },
      operations: op === null ? reader.edgesTo(n.id, ['handles']).length : 0,
    };
  });
  return { total: routes.length, routes, approximate: routes.filter((r) => r.approximate !== null).length };
}
