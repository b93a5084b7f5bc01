import { endpointInheritsKey, endpointKey, endpointName, formatEndpointSignature, unresolvedKey, type EndpointInherits, type EndpointParam, type ExtractedEdge } from '@ca/schema';
import type { Node as TsNode } from 'web-tree-sitter';
import { span, type Decl, type DeclTable } from '../decl.js';
import { DeadlineExceeded } from '../walker.js';
import { controllerRoutes, prefixFacts, type ControllerContext } from './controllers.js';
import { minimalApiRoutes } from './minimalApis.js';
import { StringEvaluator, type ConstantLookup, type StringValue } from './strings.js';
import { boundParameters, LocalScopes } from './syntax.js';
import { normalizeTemplate } from './template.js';

/** One route a handler serves, before it becomes a node: method, raw template and provenance. */
export interface RouteFound {
  readonly method: string;
  /** The combined template, not normalised yet. */
  readonly template: string;
  /** Why the template is not exact, or null. */
  readonly approximate: string | null;
  /** The attribute or Map call the endpoint's span covers. */
  readonly spanNode: TsNode;
  readonly handler: HandlerRef;
  /** The handler's parameter list (for the bound parameters), when known. */
  readonly parameters: TsNode | null;
  /** The controller's prefix is declared in another file: where to look (decision 038). */
  readonly inherits?: EndpointInherits;
}

/** What serves a route: a declaration of this file, or a name resolved elsewhere. */
export type HandlerRef = { readonly decl: Decl; readonly confidence: ExtractedEdge['confidence'] } | { readonly name: string };

/** The minimal-API calls recognised by name (`Map` only with a pattern and a handler). */
export const MAP_METHODS: ReadonlyMap<string, string> = new Map([
  ['MapGet', 'GET'],
  ['MapPost', 'POST'],
  ['MapPut', 'PUT'],
  ['MapDelete', 'DELETE'],
  ['MapPatch', 'PATCH'],
  ['MapMethods', ''],
  ['Map', 'ANY'],
]);

/** A `Map*` call met by the walk: the invocation, the declaration around it, the called name. */
export interface MapCall {
  readonly node: TsNode;
  readonly owner: Decl | null;
  readonly member: string;
}

/** Shared by the controller and minimal-API rules: constants, types and methods of the file. */
export interface FileContext {
  readonly evaluate: (n: TsNode, fromType: string | null) => StringValue;
  readonly types: readonly { readonly node: TsNode; readonly decl: Decl }[];
  readonly methods: readonly { readonly node: TsNode; readonly decl: Decl }[];
  readonly fileDecl: Decl;
  readonly locals: LocalScopes;
  /** Throws `DeadlineExceeded` once the file's parse deadline has passed. */
  readonly checkDeadline: () => void;
}

/**
 * Collects what declares HTTP endpoints while the walker passes (types, methods, `const string`
 * fields, `Map*` calls), then turns it into endpoint declarations and their `handles` edges.
 * The syntax nodes stay valid until the tree is deleted, after {@link finish}.
 */
export class EndpointCollector {
  /** The file may declare endpoints at all (most files name no controller and call no `Map*`). */
  private readonly enabled: boolean;
  /** The file may call `Map*`: only then are locals and parameters worth registering. */
  private readonly mapping: boolean;
  private readonly types: { node: TsNode; decl: Decl }[] = [];
  private readonly methods: { node: TsNode; decl: Decl }[] = [];
  private readonly constants = new Map<string, { typeName: string | null; value: TsNode }[]>();
  private readonly mapCalls: MapCall[] = [];
  private readonly locals = new LocalScopes();

  /**
   * `text` is the file's text: a cheap look at it decides whether the hooks do anything, so files
   * that cannot declare an endpoint pay for no syntax-node reads.
   */
  constructor(text: string) {
    this.mapping = /\bMap\w*\s*\(/.test(text);
    this.enabled = this.mapping || /Controller|Route|Http(?:Get|Post|Put|Delete|Patch|Head|Options)|AcceptVerbs/.test(text);
  }

  /** Whether the walker should hand over locals, parameters and calls (reading a node costs). */
  get mayMap(): boolean {
    return this.mapping;
  }

  /** A local declaration statement in `owner` (null: top-level statements). */
  onLocals(node: TsNode, owner: Decl | null): void {
    if (this.mapping) this.locals.addLocals(node, owner);
  }

  /** A parameter (of a member or a lambda) inside `owner`. */
  onParameter(node: TsNode, owner: Decl | null): void {
    if (this.mapping) this.locals.addParameter(node, owner);
  }

  /** A class (controllers are classes). */
  onType(node: TsNode, decl: Decl): void {
    if (this.enabled && decl.kind === 'class') this.types.push({ node, decl });
  }

  /** A method (actions, method-group handlers). */
  onMethod(node: TsNode, decl: Decl): void {
    if (this.enabled && decl.kind === 'method') this.methods.push({ node, decl });
  }

  /** A field declaration: its `const` declarators are the constants routes may use. */
  onField(node: TsNode, owner: Decl): void {
    if (!this.enabled || !node.children.some((c) => c?.type === 'modifier' && c.text === 'const')) return;
    const vars = node.namedChildren.find((c) => c?.type === 'variable_declaration');
    const typeName = owner.kind === 'file' || owner.kind === 'namespace' ? null : owner.name;
    for (const v of vars?.namedChildren ?? []) {
      if (v?.type !== 'variable_declarator') continue;
      const name = v.childForFieldName('name');
      const value = v.namedChildren.find((c) => c !== null && c.startIndex !== name?.startIndex);
      if (!name || !value) continue;
      const list = this.constants.get(name.text) ?? [];
      list.push({ typeName, value });
      this.constants.set(name.text, list);
    }
  }

  /** A call named like a minimal-API mapping (`MapGet`, `MapGroup(…).MapPost` …). */
  onMapCall(node: TsNode, owner: Decl | null, member: string): void {
    if (this.mapping && MAP_METHODS.has(member)) this.mapCalls.push({ node, owner, member });
  }

  /**
   * Endpoint declarations (children of the file) and their `handles` edges, in source order.
   * Throws `DeadlineExceeded` past `deadline` (the walk's deadline: one budget per file).
   */
  finish(table: DeclTable, fileDecl: Decl, deadline: number): { endpoints: Decl[]; edges: (Omit<ExtractedEdge, 'sourceLocalId'> & { source: Decl })[] } {
    if (this.mapCalls.length === 0 && this.types.length === 0) return { endpoints: [], edges: [] };
    const ctx: FileContext & ControllerContext = {
      evaluate: (n, fromType) => new StringEvaluator(this.lookup, fromType).evaluate(n),
      types: this.types,
      methods: this.methods,
      fileDecl,
      locals: this.locals,
      checkDeadline: () => {
        if (performance.now() > deadline) throw new DeadlineExceeded();
      },
    };
    const routes = [...controllerRoutes(ctx), ...minimalApiRoutes(ctx, this.mapCalls)];
    routes.sort((a, b) => a.spanNode.startIndex - b.spanNode.startIndex);
    const endpoints: Decl[] = [];
    const edges: (Omit<ExtractedEdge, 'sourceLocalId'> & { source: Decl })[] = [];
    for (const r of routes) {
      const d = endpointDecl(table, fileDecl, r);
      endpoints.push(d);
      edges.push({ source: d, type: 'handles', ...handlesTarget(r.handler), line: d.startRow + 1 });
      // Where the route prefix may come from, resolved label-wide before linking (never linked itself).
      if (r.inherits) edges.push({ source: d, type: 'http_calls', target: { key: endpointInheritsKey(r.inherits), name: 'route prefix' }, confidence: 'approximate', line: d.startRow + 1 });
    }
    const served = new Set(routes.flatMap((r) => ('decl' in r.handler && r.handler.decl.parent ? [r.handler.decl.parent] : [])));
    edges.push(...prefixFacts(ctx, served));
    return { endpoints, edges };
  }

  /** Constants by name: the one declared in `fromType` first, then the only one in the file. */
  private readonly lookup: ConstantLookup = (name, qualifier, fromType) => {
    const found = this.constants.get(name);
    if (!found) return null;
    const scope = qualifier ?? fromType;
    const match = found.find((c) => c.typeName === scope) ?? (qualifier === null && found.length === 1 ? found[0] : undefined);
    if (!match) return null;
    // A constant defined from another constant: evaluated in its own type, with a depth guard there.
    this.constants.delete(name);
    try {
      return new StringEvaluator(this.lookup, match.typeName).evaluate(match.value);
    } finally {
      this.constants.set(name, found);
    }
  };
}

function handlesTarget(h: HandlerRef): Pick<ExtractedEdge, 'target' | 'confidence'> {
  if ('decl' in h) return { target: { key: h.decl.symbolKey, name: h.decl.name, localId: h.decl.localId }, confidence: h.confidence };
  return { target: { key: unresolvedKey(h.name), name: h.name }, confidence: 'approximate' };
}

/** The endpoint node of a route: named by its normalised template, spanning its attribute or call. */
function endpointDecl(table: DeclTable, fileDecl: Decl, r: RouteFound): Decl {
  const normalized = normalizeTemplate(r.template);
  const method = r.method;
  const template = normalized.template;
  const name = endpointName(method, template);
  const d = table.add({
    kind: 'endpoint',
    name,
    qualifiedName: name,
    key: endpointKey(method, template),
    parent: fileDecl,
    childContainers: [],
    childQualified: name,
    ...span(r.spanNode),
    typeParams: [],
  });
  const params: EndpointParam[] = boundParameters(r.parameters, template);
  d.signature = formatEndpointSignature({ method, template, params, approximate: r.approximate ?? normalized.problem });
  return d;
}
