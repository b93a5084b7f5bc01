import type { Node as TsNode } from 'web-tree-sitter';
import { enclosingType, type Decl } from '../decl.js';
import { MAP_METHODS, type FileContext, type HandlerRef, type MapCall, type RouteFound } from './collector.js';
import { literalText, type StringValue } from './strings.js';
import { invocationArguments } from './syntax.js';

/** What an argument of a `Map*` call looks like it is. */
type ArgKind = 'pattern' | 'handler' | 'methods' | 'parameter' | 'unknown';
type Arg = { name: string | null; value: TsNode; kind: ArgKind };

const MAX_GROUP_DEPTH = 32;
const STRING_NODES: ReadonlySet<string> = new Set([
  'string_literal',
  'verbatim_string_literal',
  'raw_string_literal',
  'interpolated_string_expression',
  'binary_expression',
]);
const METHOD_LIST_NODES: ReadonlySet<string> = new Set(['collection_expression', 'implicit_array_creation_expression', 'array_creation_expression']);

const root: StringValue = { text: '', approximate: null };

function methodsNamed(ctx: FileContext, name: string, typeName: string | null): FileContext['methods'] {
  return ctx.methods.filter((m) => m.decl.name === name && (typeName === null || m.decl.parent?.name === typeName));
}

function classify(ctx: FileContext, call: MapCall, v: TsNode, fromType: string | null): ArgKind {
  if (v.type === 'lambda_expression' || v.type === 'anonymous_method_expression') return 'handler';
  if (STRING_NODES.has(v.type)) return 'pattern';
  if (METHOD_LIST_NODES.has(v.type)) return 'methods';
  if (v.type === 'invocation_expression') return v.childForFieldName('function')?.text === 'nameof' ? 'pattern' : 'unknown';
  if (v.type === 'identifier') {
    const local = ctx.locals.find(v.startIndex, call.owner, v.text);
    if (local?.kind === 'parameter') return 'parameter';
    if (local) return 'unknown';
    if (ctx.evaluate(v, fromType).approximate === null) return 'pattern';
    return methodsNamed(ctx, v.text, null).length > 0 ? 'handler' : 'unknown';
  }
  if (v.type === 'member_access_expression') return ctx.evaluate(v, fromType).approximate === null ? 'pattern' : 'unknown';
  return 'unknown';
}

/** The group prefix a receiver carries: `MapGroup` calls through locals and fluent calls. */
function prefixOf(ctx: FileContext, owner: Decl | null, expr: TsNode, fromType: string | null, depth = 0): StringValue {
  if (depth > MAX_GROUP_DEPTH) return { text: '', approximate: 'route group chain nested too deeply' };
  switch (expr.type) {
    case 'parenthesized_expression':
      return expr.namedChild(0) ? prefixOf(ctx, owner, expr.namedChild(0)!, fromType, depth + 1) : root;
    case 'invocation_expression': {
      const fn = expr.childForFieldName('function');
      if (fn?.type !== 'member_access_expression') return root;
      const recv = fn.childForFieldName('expression');
      const outer = recv ? prefixOf(ctx, owner, recv, fromType, depth + 1) : root;
      // Any other call on a builder (`WithTags`, `RequireAuthorization`, `HasApiVersion`) returns it.
      if (fn.childForFieldName('name')?.text !== 'MapGroup') return outer;
      const arg = invocationArguments(expr)[0];
      const v = arg ? ctx.evaluate(arg.value, fromType) : { text: '', approximate: 'MapGroup without a prefix argument' };
      return { text: `${outer.text}/${v.text}`, approximate: outer.approximate ?? v.approximate };
    }
    case 'identifier': {
      const local = ctx.locals.find(expr.startIndex, owner, expr.text);
      if (local?.kind === 'local') return local.init ? prefixOf(ctx, owner, local.init, fromType, depth + 1) : root;
      if (local?.kind === 'parameter' && /Group/.test(local.type)) {
        return { text: `{${expr.text}}`, approximate: `the route group prefix comes from parameter ${expr.text} (built by the caller)` };
      }
      return root;
    }
    default:
      return root;
  }
}

/** `MapMethods`' methods: string literals and `HttpMethods.X` names, upper-cased. */
function methodList(ctx: FileContext, n: TsNode | undefined, fromType: string | null): { methods: string[]; approximate: string | null } {
  const found: string[] = [];
  const stack: TsNode[] = n ? [n] : [];
  while (stack.length > 0) {
    const x = stack.pop()!;
    const lit = literalText(x);
    if (lit !== null) found.push(lit.toUpperCase());
    else if (x.type === 'member_access_expression' && /HttpMethods?$/.test(x.childForFieldName('expression')?.text ?? '')) {
      found.push((x.childForFieldName('name')?.text ?? '').toUpperCase());
    } else if (x.type === 'identifier' || x.type === 'member_access_expression') {
      const v = ctx.evaluate(x, fromType);
      if (v.approximate === null) found.push(v.text.toUpperCase());
    } else {
      for (let k = x.namedChildCount - 1; k >= 0; k--) if (x.namedChild(k)) stack.push(x.namedChild(k)!);
    }
  }
  const methods = [...new Set(found.filter((m) => /^[A-Z]+$/.test(m)))];
  return methods.length > 0 ? { methods, approximate: null } : { methods: ['ANY'], approximate: 'HTTP methods computed at run time' };
}

/** The handler of a mapping: the enclosing member for a lambda, the named method for a group. */
function handlerOf(ctx: FileContext, call: MapCall, h: TsNode): { ref: HandlerRef; parameters: TsNode | null } {
  if (h.type === 'lambda_expression' || h.type === 'anonymous_method_expression') {
    const params = h.childForFieldName('parameters') ?? h.namedChildren.find((c) => c?.type === 'parameter_list') ?? null;
    return { ref: { decl: call.owner ?? ctx.fileDecl, confidence: 'exact' }, parameters: params?.type === 'parameter_list' ? params : null };
  }
  let found: FileContext['methods'] = [];
  if (h.type === 'identifier') {
    const own = enclosingType(call.owner)?.name ?? null;
    found = methodsNamed(ctx, h.text, own);
    if (found.length === 0) found = methodsNamed(ctx, h.text, null);
  } else if (h.type === 'member_access_expression') {
    const qualifier = (h.childForFieldName('expression')?.text ?? '').replace(/\s+/g, '');
    found = methodsNamed(ctx, h.childForFieldName('name')?.text ?? '', qualifier.slice(qualifier.lastIndexOf('.') + 1));
  }
  const m = found[0];
  if (m) return { ref: { decl: m.decl, confidence: 'probable' }, parameters: m.node.childForFieldName('parameters') };
  return { ref: { name: h.text.replace(/\s+/g, '') }, parameters: null };
}

/** The pattern and the handler among a call's arguments; null when the call maps nothing. */
function patternAndHandler(member: string, args: readonly Arg[]): { pattern: Arg | null; handler: Arg } | null {
  if (args.some((a) => a.kind === 'parameter' && (a.name === 'pattern' || a === args[0]))) {
    // `MapGet(pattern, handler)` forwarding its own parameter: a project's helper, not an endpoint.
    return null;
  }
  const pattern = args.find((a) => a.name === 'pattern') ?? args.find((a) => a.kind === 'pattern') ?? (args.length >= 2 && args[0]!.kind === 'unknown' ? args[0]! : null);
  const rest = args.filter((a) => a !== pattern && a.kind !== 'methods');
  const handler = rest.find((a) => a.name === 'handler') ?? rest[rest.length - 1];
  if (!handler || handler.kind === 'pattern' || handler.kind === 'parameter') return null;
  // `Map` is a common name (mappers): only `Map("pattern", handler)` is a mapping.
  if (member === 'Map' && (args.length !== 2 || pattern !== args[0] || pattern.kind !== 'pattern')) return null;
  return { pattern, handler };
}

/** The endpoints of the file's `Map*` calls (the group prefixes of their receivers included). */
export function minimalApiRoutes(ctx: FileContext, calls: readonly MapCall[]): RouteFound[] {
  const out: RouteFound[] = [];
  for (const call of calls) {
    ctx.checkDeadline();
    const fn = call.node.childForFieldName('function');
    if (fn?.type !== 'member_access_expression' || fn.childForFieldName('name')?.type !== 'identifier') continue;
    const fromType = enclosingType(call.owner)?.name ?? null;
    const args: Arg[] = invocationArguments(call.node).map((a) => ({ ...a, kind: classify(ctx, call, a.value, fromType) }));
    const found = patternAndHandler(call.member, args);
    if (!found) continue;
    const receiver = fn.childForFieldName('expression');
    const prefix = receiver ? prefixOf(ctx, call.owner, receiver, fromType) : root;
    const pattern: StringValue = found.pattern
      ? ctx.evaluate(found.pattern.value, fromType)
      : { text: '', approximate: `${call.member} without a route pattern (a project's own overload)` };
    const listed = call.member === 'MapMethods' ? methodList(ctx, args.find((a) => a.kind === 'methods')?.value, fromType) : null;
    const methods = listed ? listed.methods : [MAP_METHODS.get(call.member)!];
    const { ref, parameters } = handlerOf(ctx, call, found.handler.value);
    const approximate = prefix.approximate ?? pattern.approximate ?? listed?.approximate ?? null;
    for (const method of methods) {
      out.push({ method, template: `${prefix.text}/${pattern.text}`, approximate, spanNode: call.node, handler: ref, parameters });
    }
  }
  return out;
}
