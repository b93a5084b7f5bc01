import type { Node as TsNode } from 'web-tree-sitter';
import type { Decl } from '../decl.js';
import type { FileContext, RouteFound } from './collector.js';
import type { StringValue } from './strings.js';
import { prefixFactKey, type ExtractedEdge } from '@ca/schema';
import { attributesOf, type AttributeInfo } from './syntax.js';
import { combineTemplates, isRootedTemplate, replaceTokens } from './template.js';

/** What the controller rules need of the file (the same as every rule). */
export type ControllerContext = FileContext;

const HTTP_ATTRIBUTES: Readonly<Record<string, string>> = {
  HttpGet: 'GET',
  HttpPost: 'POST',
  HttpPut: 'PUT',
  HttpDelete: 'DELETE',
  HttpPatch: 'PATCH',
  HttpHead: 'HEAD',
  HttpOptions: 'OPTIONS',
};
const FRAMEWORK_BASES: ReadonlySet<string> = new Set(['Controller', 'ControllerBase']);
const MAX_BASE_DEPTH = 16;

type TypeEntry = FileContext['types'][number];

/** A controller's route prefixes: its `[Route]` templates, or an inherited or unknown prefix. */
interface ClassPrefix {
  readonly templates: readonly StringValue[];
  /** Why a prefix may be missing (a base class declared elsewhere), or null. */
  readonly note: string | null;
  /** Where the missing prefix may be declared, for the label-wide resolution (decision 038); null when none may be missing. */
  readonly from: { readonly base: string | null; readonly attributes: readonly string[] } | null;
}

/** One (method, template) an action attribute declares; a null template takes the prefix alone. */
interface ActionRoute {
  readonly method: string;
  readonly template: StringValue | null;
  readonly spanNode: TsNode;
}

const simpleName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/** A class ASP.NET Core discovers as a controller (abstract classes only lend their prefix). */
function isController(t: TypeEntry, attrs: readonly AttributeInfo[]): boolean {
  if (t.decl.modifiers.includes('abstract') || t.decl.modifiers.includes('static')) return false;
  if (attrs.some((a) => a.name === 'NonController')) return false;
  if (attrs.some((a) => a.name === 'ApiController' || a.name === 'Controller')) return true;
  if (t.decl.name.endsWith('Controller')) return true;
  const base = t.decl.bases[0] ? simpleName(t.decl.bases[0].name) : '';
  return FRAMEWORK_BASES.has(base) || base.endsWith('Controller');
}

/**
 * Class attributes ASP.NET and common libraries define that give no route. Any other attribute on
 * a controller without `[Route]` may be a `RouteAttribute` subclass declared elsewhere
 * (`[ApiV1]` whose constructor passes `"api/v1/[controller]"`): its prefix is unknown here.
 */
const NON_ROUTE_CLASS_ATTRIBUTES: ReadonlySet<string> = new Set([
  'ApiController', 'Controller', 'NonController', 'Area', 'Authorize', 'AllowAnonymous', 'Produces', 'Consumes',
  'ProducesResponseType', 'ProducesDefaultResponseType', 'ProducesErrorResponseType', 'ApiExplorerSettings', 'ApiVersion',
  'ApiConventionType', 'ResponseCache', 'EnableCors', 'DisableCors', 'RequireHttps', 'ValidateAntiForgeryToken',
  'AutoValidateAntiforgeryToken', 'IgnoreAntiforgeryToken', 'FormatFilter', 'ServiceFilter', 'TypeFilter', 'MiddlewareFilter',
  'Obsolete', 'ExcludeFromCodeCoverage', 'GeneratedCode', 'RequestSizeLimit', 'DisableRequestSizeLimit', 'RequestFormLimits',
  'EnableRateLimiting', 'DisableRateLimiting', 'OutputCache', 'Tags', 'SuppressMessage', 'Description', 'DisplayName',
  'EditorBrowsable', 'Experimental', 'Serializable', 'DebuggerDisplay', 'SwaggerTag', 'ControllerName', 'Filter',
]);

/** The class's attributes that may be a route attribute declared in another file (`[A]`, `[B]`). */
function unknownClassAttributes(attrs: readonly AttributeInfo[]): string[] {
  return attrs.map((a) => a.name).filter((n) => !NON_ROUTE_CLASS_ATTRIBUTES.has(n) && n !== 'Route').map((n) => `[${n}]`);
}

/** `[Route]` templates of the class, else of its nearest base class declared in this file. */
function classPrefix(ctx: ControllerContext, t: TypeEntry, byName: ReadonlyMap<string, TypeEntry>): ClassPrefix {
  let cur: TypeEntry | undefined = t;
  const unknown: string[] = [];
  for (let depth = 0; cur && depth < MAX_BASE_DEPTH; depth++) {
    const attrs = attributesOf(cur.node);
    const routes = attrs.filter((a) => a.name === 'Route');
    const owner: TypeEntry = cur;
    const templates = routes.map((a) => (a.positional[0] ? ctx.evaluate(a.positional[0], owner.decl.name) : { text: '', approximate: null }));
    if (templates.length > 0) return { templates, note: null, from: null };
    unknown.push(...unknownClassAttributes(attrs));
    const base = cur.decl.bases[0] ? simpleName(cur.decl.bases[0].name) : null;
    const attributes = unknown.map((a) => a.slice(1, -1));
    if (!base || FRAMEWORK_BASES.has(base) || /^I[A-Z]/.test(base)) {
      const from = unknown.length === 1 ? `${unknown[0]}, an attribute` : `${unknown.join(' or ')}, attributes`;
      return unknown.length === 0
        ? { templates: [], note: null, from: null }
        : { templates: [], note: `the route prefix may come from ${from} declared in another file`, from: { base: null, attributes } };
    }
    cur = byName.get(base);
    if (!cur) return { templates: [], note: `the route prefix may be inherited from ${base}, declared in another file`, from: { base, attributes } };
  }
  return { templates: [], note: null, from: null };
}

/** The routes an action's attributes declare (`[HttpGet("x")]`, `[Route("x")]`, `[AcceptVerbs]`). */
function actionRoutes(ctx: ControllerContext, m: FileContext['methods'][number], attrs: readonly AttributeInfo[]): ActionRoute[] {
  const typeName = m.decl.parent?.name ?? null;
  const value = (n: TsNode | undefined): StringValue | null => (n ? ctx.evaluate(n, typeName) : null);
  const withTemplate: ActionRoute[] = [];
  const methodsOnly: { method: string; spanNode: TsNode }[] = [];
  const routeTemplates: { template: StringValue | null; spanNode: TsNode }[] = [];
  for (const a of attrs) {
    const http = HTTP_ATTRIBUTES[a.name];
    if (http) {
      const template = value(a.positional[0] ?? a.named.get('template'));
      if (template) withTemplate.push({ method: http, template, spanNode: a.node });
      else methodsOnly.push({ method: http, spanNode: a.node });
    } else if (a.name === 'AcceptVerbs') {
      const template = value(a.named.get('Route') ?? a.named.get('route'));
      for (const v of a.positional) {
        const method = value(v)?.text.toUpperCase() ?? '';
        if (!/^[A-Z]+$/.test(method)) continue;
        if (template) withTemplate.push({ method, template, spanNode: a.node });
        else methodsOnly.push({ method, spanNode: a.node });
      }
    } else if (a.name === 'Route') {
      routeTemplates.push({ template: value(a.positional[0] ?? a.named.get('template')), spanNode: a.node });
    }
  }
  const out = [...withTemplate];
  // `[Route("x")]` takes its methods from the template-less HTTP attributes (every method without).
  const methods = methodsOnly.length > 0 ? methodsOnly.map((x) => x.method) : ['ANY'];
  for (const r of routeTemplates) for (const method of methods) out.push({ method, template: r.template, spanNode: r.spanNode });
  if (routeTemplates.length === 0) for (const x of methodsOnly) out.push({ method: x.method, template: null, spanNode: x.spanNode });
  return out;
}

/** Whether ASP.NET treats a controller method as an action. */
function isAction(m: FileContext['methods'][number], attrs: readonly AttributeInfo[]): boolean {
  if (m.decl.access !== 'public' || m.decl.modifiers.includes('static') || m.decl.modifiers.includes('abstract')) return false;
  return !attrs.some((a) => a.name === 'NonAction');
}

/**
 * The endpoints of the file's controllers: each action route combined with each class prefix
 * (a rooted action template replaces it), tokens replaced. An action without route attributes in
 * an attribute-routed controller accepts every method (`ANY`); in a controller without any route
 * it is conventionally routed, and only reported (approximate) when an HTTP attribute marks it.
 */
export function controllerRoutes(ctx: ControllerContext): RouteFound[] {
  const out: RouteFound[] = [];
  const byName = new Map(ctx.types.map((t) => [t.decl.name, t] as const));
  for (const t of ctx.types) {
    const classAttrs = attributesOf(t.node);
    if (!isController(t, classAttrs)) continue;
    const prefix = classPrefix(ctx, t, byName);
    const areaAttr = classAttrs.find((a) => a.name === 'Area');
    const area = areaAttr?.positional[0] ? ctx.evaluate(areaAttr.positional[0], t.decl.name) : null;
    for (const m of ctx.methods) {
      if (m.decl.parent !== t.decl) continue;
      ctx.checkDeadline();
      const attrs = attributesOf(m.node);
      if (!isAction(m, attrs)) continue;
      const actionAttr = attrs.find((a) => a.name === 'ActionName');
      const action = actionAttr?.positional[0] ? ctx.evaluate(actionAttr.positional[0], t.decl.name).text : m.decl.name.replace(/Async$/, '');
      let routes = actionRoutes(ctx, m, attrs);
      if (routes.length === 0 && prefix.templates.length > 0) {
        routes = [{ method: 'ANY', template: null, spanNode: m.node.childForFieldName('name') ?? m.node }];
      }
      const tokens = { controller: t.decl.name.replace(/Controller$/, ''), action, area: area?.text ?? null };
      for (const r of routes) out.push(...combine(r, prefix, tokens, m));
    }
  }
  return out;
}

/** One action route under each class prefix, tokens replaced, with its approximation reason. */
function combine(r: ActionRoute, prefix: ClassPrefix, tokens: Record<string, string | null>, m: FileContext['methods'][number]): RouteFound[] {
  const handler = { decl: m.decl as Decl, confidence: 'exact' as const };
  const parameters = m.node.childForFieldName('parameters');
  const rooted = r.template !== null && isRootedTemplate(r.template.text);
  const prefixes: (StringValue | null)[] = rooted || prefix.templates.length === 0 ? [null] : [...prefix.templates];
  return prefixes.map((p) => {
    let combined: StringValue;
    let approximate: string | null = null;
    if (p === null && r.template === null) {
      // No attribute route anywhere: the conventional `{controller}/{action}` route is assumed.
      combined = { text: '[controller]/[action]', approximate: null };
      approximate = prefix.note ?? 'conventional routing assumed ({controller}/{action})';
    } else {
      combined = { text: combineTemplates(p?.text ?? '', r.template?.text ?? ''), approximate: p?.approximate ?? r.template?.approximate ?? null };
      if (!rooted) approximate = prefix.note;
    }
    const replaced = replaceTokens(combined.text, tokens);
    approximate = combined.approximate ?? approximate ?? (replaced.missing.length > 0 ? `no value for route token [${replaced.missing[0]}]` : null);
    // Only a prefix from another file is missing: the label-wide pass may find it (decision 038).
    const inherits =
      prefix.from !== null && !rooted && p === null && (r.template?.approximate ?? null) === null
        ? { ...prefix.from, template: r.template?.text ?? '', controller: tokens['controller'] ?? '', action: tokens['action'] ?? '', area: tokens['area'] ?? null }
        : undefined;
    return { method: r.method, template: replaced.text, approximate, spanNode: r.spanNode, handler, parameters, ...(inherits ? { inherits } : {}) };
  });
}

/** A prefix fact's edge (decision 038), from the class that declares it. */
export type PrefixFactEdge = Omit<ExtractedEdge, 'sourceLocalId'> & { source: Decl };

const ROUTE_ATTRIBUTE_BASES = /^(Route|Http(Get|Post|Put|Delete|Patch|Head|Options|Method))Attribute$/;

/**
 * The prefix facts of the file's classes for the label-wide resolution (decision 038): a class
 * that serves no action here and has its own `[Route]` (a base controller: `[Route("api/[controller]")]
 * class BaseApiController`) — or, named `…Controller`, class attributes that may be route
 * attributes (`[ApiV2] class V2Controller`) or a controller base — gives them and its base type; an attribute class deriving from
 * `RouteAttribute` (or an `Http*Attribute`) gives the constant its constructor passes to `base(…)`.
 * `served`: the classes that declared an endpoint in this file.
 */
export function prefixFacts(ctx: ControllerContext, served: ReadonlySet<Decl>): PrefixFactEdge[] {
  const out: PrefixFactEdge[] = [];
  for (const t of ctx.types) {
    const base = t.decl.bases[0] ? simpleName(t.decl.bases[0].name).replace(/<.*$/, '') : null;
    const line = t.decl.startRow + 1;
    const fact = (key: string): PrefixFactEdge => ({ source: t.decl, type: 'http_calls', target: { key, name: 'route prefix' }, confidence: 'approximate', line });
    if (base !== null && ROUTE_ATTRIBUTE_BASES.test(base)) {
      const template = baseTemplate(ctx, t);
      if (template !== null) out.push(fact(prefixFactKey({ kind: 'routeAttribute', class: t.decl.name.replace(/Attribute$/, ''), template })));
      continue;
    }
    if (served.has(t.decl)) continue;
    const attrs = attributesOf(t.node);
    const routes = attrs.filter((a) => a.name === 'Route' && a.positional[0] !== undefined);
    const attributes = routes.length > 0 ? [] : unknownClassAttributes(attrs).map((a) => a.slice(1, -1));
    // A base controller that declares no route itself may still pass one on: from an attribute, or from its own base.
    const passesOn = attributes.length > 0 || (base !== null && !FRAMEWORK_BASES.has(base) && base.endsWith('Controller'));
    if (routes.length === 0 && !(passesOn && t.decl.name.endsWith('Controller'))) continue;
    const values = routes.map((a) => ctx.evaluate(a.positional[0]!, t.decl.name));
    // A template computed at run time is no literal to resolve from.
    if (values.some((v) => v.approximate !== null)) continue;
    out.push(fact(prefixFactKey({ kind: 'route', class: t.decl.name, templates: values.map((v) => v.text), attributes, base })));
  }
  return out;
}

/** The constant template the attribute class's constructors pass to `base(…)`: one literal value, else null. */
function baseTemplate(ctx: ControllerContext, t: TypeEntry): string | null {
  const found = new Set<string>();
  const body = t.node.childForFieldName('body');
  for (const member of body?.namedChildren ?? []) {
    if (member?.type !== 'constructor_declaration') continue;
    const init = member.namedChildren.find((c) => c?.type === 'constructor_initializer');
    if (!init || !/^:\s*base\b/.test(init.text)) continue;
    const args = init.namedChildren.find((c) => c?.type === 'argument_list')?.namedChildren.filter((a) => a?.type === 'argument') ?? [];
    const first = args[0]?.namedChildren.find((c) => c !== null && c.type !== 'name_colon');
    if (!first) return null;
    const v = ctx.evaluate(first, t.decl.name);
    if (v.approximate !== null) return null;
    found.add(v.text);
  }
  // Two constructors passing different templates: which one applies depends on the use.
  return found.size === 1 ? [...found][0]! : null;
}
