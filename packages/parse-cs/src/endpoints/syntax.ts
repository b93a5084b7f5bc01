import type { EndpointParam, EndpointParamSource } from '@ca/schema';
import type { Node as TsNode } from 'web-tree-sitter';
import type { Decl } from '../decl.js';

/** An attribute as the endpoint rules read it: simple name, positional and named arguments. */
export interface AttributeInfo {
  /** `HttpGet` for `[Microsoft.AspNetCore.Mvc.HttpGetAttribute(…)]`. */
  readonly name: string;
  readonly node: TsNode;
  readonly positional: readonly TsNode[];
  /** `Name = "x"` and `template: "x"` alike, by name. */
  readonly named: ReadonlyMap<string, TsNode>;
}

const BINDING_SOURCES: Readonly<Record<string, EndpointParamSource>> = {
  FromRoute: 'route',
  FromQuery: 'query',
  FromBody: 'body',
  FromHeader: 'header',
  FromForm: 'form',
};

/** The value expression of an `argument` or `attribute_argument` (without its `name:` part). */
export function argumentValue(arg: TsNode): TsNode | null {
  const name = arg.childForFieldName('name');
  const values = arg.namedChildren.filter((c): c is TsNode => c !== null && (name === null || c.startIndex !== name.startIndex));
  return values[values.length - 1] ?? null;
}

/** `A.B.HttpGetAttribute` → `HttpGet`. */
function simpleAttributeName(n: TsNode | null): string {
  const text = (n?.text ?? '').replace(/\s+/g, '').replace(/<[\s\S]*$/, '');
  return text.slice(text.lastIndexOf('.') + 1).replace(/Attribute$/, '');
}

/** The attributes written directly on a declaration or a parameter. */
export function attributesOf(decl: TsNode): AttributeInfo[] {
  const out: AttributeInfo[] = [];
  for (const list of decl.children) {
    if (list?.type !== 'attribute_list') continue;
    // `[return: X]` and `[assembly: X]` target something else.
    if (list.namedChildren.some((c) => c?.type === 'attribute_target_specifier')) continue;
    for (const a of list.namedChildren) {
      if (a?.type !== 'attribute') continue;
      const positional: TsNode[] = [];
      const named = new Map<string, TsNode>();
      const args = a.namedChildren.find((c) => c?.type === 'attribute_argument_list');
      for (const arg of args?.namedChildren ?? []) {
        if (arg?.type !== 'attribute_argument') continue;
        const value = argumentValue(arg);
        if (!value) continue;
        const name = arg.childForFieldName('name')?.text;
        if (name) named.set(name, value);
        else positional.push(value);
      }
      out.push({ name: simpleAttributeName(a.childForFieldName('name')), node: a, positional, named });
    }
  }
  return out;
}

/** The route parameter names of a normalised template (`{id}`, `{id?}`, `{*path}` → id, id, path). */
export function routeParameterNames(template: string): Set<string> {
  const out = new Set<string>();
  for (const m of template.matchAll(/\{\*?([^{}?]+)\??\}/g)) out.add(m[1]!.toLowerCase());
  return out;
}

/**
 * The parameters of a handler that are bound from the request: those with a `[FromX]` attribute,
 * and (as ASP.NET binds them by name) those named like a route parameter.
 */
export function boundParameters(parameterList: TsNode | null, template: string): EndpointParam[] {
  const out: EndpointParam[] = [];
  if (!parameterList) return out;
  const routeNames = routeParameterNames(template);
  for (const p of parameterList.namedChildren) {
    if (p?.type !== 'parameter') continue;
    const name = p.childForFieldName('name')?.text ?? '';
    const type = (p.childForFieldName('type')?.text ?? 'var').replace(/\s+/g, '');
    if (!name) continue;
    const explicit = attributesOf(p).map((a) => BINDING_SOURCES[a.name]).find((s) => s !== undefined);
    const source = explicit ?? (routeNames.has(name.toLowerCase()) ? 'route' : undefined);
    if (source) out.push({ source, type, name });
  }
  return out;
}

/** The arguments of an invocation, each with its `name:` when written. */
export function invocationArguments(call: TsNode): { name: string | null; value: TsNode }[] {
  const out: { name: string | null; value: TsNode }[] = [];
  for (const arg of call.childForFieldName('arguments')?.namedChildren ?? []) {
    if (arg?.type !== 'argument') continue;
    const value = argumentValue(arg);
    if (value) out.push({ name: arg.childForFieldName('name')?.text ?? null, value });
  }
  return out;
}

/** What a name used at `use` was declared as: a local with its initializer, or a parameter. */
export type LocalDeclaration = { kind: 'local'; init: TsNode | null } | { kind: 'parameter'; type: string };

interface LocalEntry {
  readonly owner: Decl | null;
  readonly start: number;
  readonly declaration: LocalDeclaration;
}

/**
 * The locals and parameters of the file, registered by the walk with the member owning them
 * (null in top-level statements). A name resolves to the last one declared before the use in
 * the same member. Block scopes are not told apart: route registration code rarely reuses a
 * name, and asking a node for its parent costs a scan from the root in tree-sitter, which a
 * file of thousands of `app.MapGet(…)` statements would pay once per call.
 */
export class LocalScopes {
  private readonly byName = new Map<string, LocalEntry[]>();

  private add(name: string, entry: LocalEntry): void {
    const list = this.byName.get(name);
    if (list) list.push(entry);
    else this.byName.set(name, [entry]);
  }

  /** `var a = …, b = …;` */
  addLocals(statement: TsNode, owner: Decl | null): void {
    const vars = statement.namedChildren.find((c) => c?.type === 'variable_declaration');
    for (const v of vars?.namedChildren ?? []) {
      if (v?.type !== 'variable_declarator') continue;
      const name = v.childForFieldName('name');
      if (!name) continue;
      const init = v.namedChildren.find((c) => c !== null && c.startIndex !== name.startIndex) ?? null;
      this.add(name.text, { owner, start: statement.startIndex, declaration: { kind: 'local', init } });
    }
  }

  /** A parameter of a method, a local function or a lambda (`parameter` or `implicit_parameter`). */
  addParameter(p: TsNode, owner: Decl | null): void {
    const name = p.type === 'implicit_parameter' ? p.text : (p.childForFieldName('name')?.text ?? '');
    const type = p.type === 'implicit_parameter' ? '' : (p.childForFieldName('type')?.text ?? '').replace(/\s+/g, '');
    if (name) this.add(name, { owner, start: p.startIndex, declaration: { kind: 'parameter', type } });
  }

  /** What `name` used at offset `at` inside `owner` refers to, or null (a field, a type …). */
  find(at: number, owner: Decl | null, name: string): LocalDeclaration | null {
    let found: LocalEntry | null = null;
    for (const e of this.byName.get(name) ?? []) if (e.owner === owner && e.start < at) found = e;
    return found?.declaration ?? null;
  }
}
