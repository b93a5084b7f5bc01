/**
 * URL prefixes declared in another file (issue 31, decision 038), TypeScript side:
 *
 * - references: a URL that starts with an imported const (`environment.apiUrl`) or with a field
 *   the class does not declare but its base class's constructor sets from a `super(…)` argument
 *   (`this.url` after `super(http, '/api/v1/Request/', href)`) gets a {@link PrefixRef} instead of
 *   an opaque unknown prefix;
 * - facts: the literal values other files' URLs may start with — exported consts (and their
 *   object literals' string properties, nested ones too) and base class constructors that store a
 *   string parameter in a field named like a URL ({@link URL_FIELD}).
 *
 * The engine resolves the references from the facts of the whole label before linking. Only
 * literal values become facts: anything computed stays unknown.
 */
import type { Node as TsNode, Tree } from 'web-tree-sitter';
import { prefixFactKey, type ExtractedEdge, type PrefixFact, type PrefixRef, type SuperArgument } from '@ca/schema';
import { UNKNOWN, type ValueReader } from './httpValues.js';
import { localId } from './resolve.js';
import { stripQuotes } from './syntax.js';

/** Opens and closes a reference's index inside a value (characters no URL literal holds). */
export const REF_OPEN = '\u0001';
export const REF_CLOSE = '\u0002';
const REF_TOKEN = /\u0001(\d+)\u0002/g;
/**
 * Fields whose name says they hold a URL (`url`, `baseUrl`, `apiBase`, `routePrefix`): only those
 * become constructor facts, so a class storing a name or an id records nothing.
 */
const URL_FIELD = /(?:url|uri|path|endpoint|prefix|route|base)$/i;
/** How deep nested object literals of an exported const are read. */
const MAX_PROPERTY_DEPTH = 4;

/** An imported binding: the module as written and the name it exports (`default` for a default import). */
export interface ImportBinding {
  readonly from: string;
  readonly name: string;
}

/** The file's imports by local name (`import { environment as env } from './env'` → env). */
export function importBindings(tree: Tree, text: string): Map<string, ImportBinding> {
  const out = new Map<string, ImportBinding>();
  for (const statement of tree.rootNode.namedChildren) {
    if (statement?.type !== 'import_statement') continue;
    const source = statement.childForFieldName('source');
    if (source === null) continue;
    const from = stripQuotes(text.slice(source.startIndex, source.endIndex));
    const clause = statement.namedChildren.find((c) => c?.type === 'import_clause');
    for (const c of clause?.namedChildren ?? []) {
      if (c?.type === 'identifier') out.set(c.text, { from, name: 'default' });
      else if (c?.type === 'named_imports') {
        for (const spec of c.namedChildren) {
          if (spec?.type !== 'import_specifier') continue;
          const name = spec.childForFieldName('name');
          const alias = spec.childForFieldName('alias');
          if (name !== null) out.set((alias ?? name).text, { from, name: name.text });
        }
      }
    }
  }
  return out;
}

/** Replaces every reference token by {@link UNKNOWN}: a reference only counts at the start of a URL. */
export function withoutRefs(value: string): string {
  return value.replace(REF_TOKEN, UNKNOWN);
}

/** The reference `url` starts with and the rest of it; null when it starts with none. */
export function leadingRef(url: string, refs: readonly PrefixRef[]): { ref: PrefixRef; rest: string } | null {
  const m = /^\u0001(\d+)\u0002/.exec(url);
  if (!m) return null;
  return { ref: refs[Number(m[1])]!, rest: url.slice(m[0].length) };
}

/** `environment.apiUrl` → root `environment`, path `apiUrl`; null when not a plain dotted name. */
export function dottedPath(node: TsNode): { root: string; path: string } | null {
  const parts: string[] = [];
  let cur: TsNode | null = node;
  while (cur?.type === 'member_expression') {
    const p = cur.childForFieldName('property');
    if (p === null || p.type !== 'property_identifier') return null;
    parts.unshift(p.text);
    cur = cur.childForFieldName('object');
  }
  if (cur?.type !== 'identifier') return null;
  return { root: cur.text, path: parts.join('.') };
}

function classOf(node: TsNode): TsNode | null {
  for (let p = node.parent; p !== null; p = p.parent) if (p.type === 'class_declaration' || p.type === 'class') return p;
  return null;
}

/** The simple name of the class `cls` extends, or null. */
function baseClassName(cls: TsNode): string | null {
  const heritage = cls.namedChildren.find((c) => c?.type === 'class_heritage');
  const ext = heritage?.namedChildren.find((c) => c?.type === 'extends_clause');
  const value = ext?.childForFieldName('value') ?? ext?.namedChildren[0] ?? null;
  if (value === null) return null;
  if (value.type === 'identifier') return value.text;
  if (value.type === 'member_expression') return value.childForFieldName('property')?.text ?? null;
  return null;
}

function constructorOf(body: TsNode): TsNode | null {
  for (const m of body.namedChildren) {
    if (m?.type !== 'method_definition') continue;
    if (m.childForFieldName('name')?.text === 'constructor') return m;
  }
  return null;
}

/** Whether the class body declares `name` as a field, accessor or parameter property, or assigns `this.name`. */
function declaresMember(body: TsNode, name: string): boolean {
  for (const m of body.namedChildren) {
    if (m === null) continue;
    if ((m.type === 'public_field_definition' || m.type === 'method_definition') && m.childForFieldName('name')?.text === name) return true;
  }
  const ctor = constructorOf(body);
  if (ctor !== null && parameterProperties(ctor).some((p) => p.name === name)) return true;
  return new RegExp(`\\bthis\\s*\\.\\s*${name.replace(/\$/g, '\\$')}\\s*(?:[-+*/%&|^]|\\?\\?|&&|\\|\\|)?=(?!=)`).test(body.text);
}

/** The constructor's parameters in order: name, whether it is a parameter property, its type text, its decorators' text. */
function parameterProperties(ctor: TsNode): { name: string; property: boolean; type: string | null; decorators: string; index: number }[] {
  const params = ctor.childForFieldName('parameters');
  const out: { name: string; property: boolean; type: string | null; decorators: string; index: number }[] = [];
  let index = 0;
  for (const p of params?.namedChildren ?? []) {
    if (p === null || (p.type !== 'required_parameter' && p.type !== 'optional_parameter')) continue;
    const pattern = p.childForFieldName('pattern');
    const type = p.childForFieldName('type');
    const property = p.namedChildren.some((c) => c?.type === 'accessibility_modifier' || c?.type === 'override_modifier') || /^\s*(?:@\S+\s+)*readonly\b/.test(p.text);
    const decorators = p.namedChildren.filter((c) => c?.type === 'decorator').map((c) => c!.text).join(' ');
    out.push({ name: pattern?.type === 'identifier' ? pattern.text : '', property, type: type === null ? null : type.text.replace(/^:\s*/, ''), decorators, index: index++ });
  }
  return out;
}

/** Angular's base href token: a constructor parameter injected with it is the app's deployment path. */
const BASE_HREF = /@Inject\(\s*APP_BASE_HREF\s*\)/;

/** `super(…)`'s arguments in `ctor` as a reference keeps them; null when the constructor calls no `super`. */
function superArguments(ctor: TsNode, values: ValueReader): SuperArgument[] | null {
  const body = ctor.childForFieldName('body');
  const params = parameterProperties(ctor);
  for (const statement of body?.namedChildren ?? []) {
    const call = statement?.type === 'expression_statement' ? statement.namedChildren[0] : null;
    if (call?.type !== 'call_expression' || call.childForFieldName('function')?.type !== 'super') continue;
    const args = call.childForFieldName('arguments')?.namedChildren.filter((a): a is TsNode => a !== null && a.type !== 'comment') ?? [];
    return args.map((a) => {
      if (a.type === 'identifier') {
        const param = params.find((p) => p.name === a.text);
        if (param !== undefined) return BASE_HREF.test(param.decorators) ? { baseHref: true } : null;
      }
      const v = values.value(a);
      return v.includes(UNKNOWN) || v.includes(REF_OPEN) ? null : v;
    });
  }
  return null;
}

/**
 * The reference `node` (a `this.x` or a dotted name the file does not give a value) stands for,
 * or null. `values` evaluates the `super(…)` arguments.
 */
export function referenceOf(node: TsNode, imports: ReadonlyMap<string, ImportBinding>, values: ValueReader): PrefixRef | null {
  if (node.type === 'identifier') {
    const imported = imports.get(node.text);
    return imported === undefined ? null : { kind: 'import', from: imported.from, name: imported.name, path: '' };
  }
  if (node.type !== 'member_expression') return null;
  const object = node.childForFieldName('object');
  const property = node.childForFieldName('property');
  if (object?.type === 'this' && property !== null) {
    const cls = classOf(node);
    const body = cls?.childForFieldName('body') ?? null;
    if (cls === null || body === null || declaresMember(body, property.text)) return null;
    const base = baseClassName(cls);
    const ctor = constructorOf(body);
    const args = ctor === null ? null : superArguments(ctor, values);
    return base === null || args === null ? null : { kind: 'super', base, field: property.text, args };
  }
  const dotted = dottedPath(node);
  const imported = dotted === null ? undefined : imports.get(dotted.root);
  return imported === undefined ? null : { kind: 'import', from: imported.from, name: imported.name, path: dotted!.path };
}

type FactEdge = ExtractedEdge;

function factEdge(fact: PrefixFact, line: number): FactEdge {
  // From the file's node: a fact belongs to the file that declares it, not to a symbol a caller walks from.
  return { sourceLocalId: localId(0), type: 'http_calls', confidence: 'approximate', target: { key: prefixFactKey(fact), name: 'url prefix' }, line };
}

/** A value another file's URL may start with: fully literal and path-like. */
function isPrefixValue(v: string): boolean {
  return !v.includes(UNKNOWN) && !v.includes(REF_OPEN) && v.includes('/');
}

/** The prefix facts of the file: exported consts' literal URL values and base constructors storing a string parameter. */
export function prefixFactEdges(tree: Tree, values: ValueReader): FactEdge[] {
  const out: FactEdge[] = [];
  for (const statement of tree.rootNode.namedChildren) {
    if (statement?.type !== 'export_statement') continue;
    const decl = statement.childForFieldName('declaration');
    if (decl?.type === 'lexical_declaration' && decl.text.startsWith('const')) {
      for (const d of decl.namedChildren) {
        const name = d?.type === 'variable_declarator' ? d.childForFieldName('name') : null;
        const value = d?.childForFieldName('value') ?? null;
        if (name?.type === 'identifier' && value !== null) constFacts(name.text, '', value, values, 0, out);
      }
    } else if (decl?.type === 'class_declaration' || decl?.type === 'abstract_class_declaration') {
      out.push(...ctorFacts(decl));
    }
  }
  return out;
}

function constFacts(name: string, path: string, value: TsNode, values: ValueReader, depth: number, out: FactEdge[]): void {
  const object = values.object(value);
  if (object !== null) {
    if (depth >= MAX_PROPERTY_DEPTH) return;
    for (const p of object.namedChildren) {
      if (p?.type !== 'pair') continue;
      const key = p.childForFieldName('key');
      const v = p.childForFieldName('value');
      if (key === null || v === null || key.type === 'computed_property_name') continue;
      constFacts(name, path === '' ? stripQuotes(key.text) : `${path}.${stripQuotes(key.text)}`, v, values, depth + 1, out);
    }
    return;
  }
  const v = values.value(value);
  if (isPrefixValue(v)) out.push(factEdge({ kind: 'const', name, path, value: v }, value.startPosition.row + 1));
}

/**
 * `constructor(protected url: string, …)` or `this.url = url` in the constructor: the field is
 * the parameter's value, unless the class assigns it elsewhere — except a prefix from another
 * parameter (`this.url = href + this.url`, the app's base href, through a local `const`).
 */
function ctorFacts(cls: TsNode): FactEdge[] {
  const name = cls.childForFieldName('name')?.text;
  const body = cls.childForFieldName('body');
  const ctor = body === null ? null : constructorOf(body);
  if (name === undefined || body === null || ctor === null) return [];
  const all = parameterProperties(ctor);
  const params = all.filter((p) => p.name !== '' && (p.type === null || p.type === 'string'));
  const out: FactEdge[] = [];
  const ctorBody = ctor.childForFieldName('body');
  const assignments = [...body.text.matchAll(/\bthis\s*\.\s*([\w$]+)\s*=(?!=)\s*([^;\n]*)/g)].map((m) => ({ field: m[1]!, right: m[2]!.trim() }));
  for (const p of params) {
    const field = p.property ? p.name : assignments.find((a) => a.right === p.name)?.field;
    if (field === undefined || !URL_FIELD.test(field)) continue;
    let hrefParam: number | null = null;
    let ok = true;
    for (const a of assignments.filter((x) => x.field === field)) {
      if (!p.property && a.right === p.name) continue;
      const prefixed = new RegExp(`^([\\w$]+)\\s*\\+\\s*this\\s*\\.\\s*${field.replace(/\$/g, '\\$')}$`).exec(a.right);
      const from = prefixed === null ? undefined : sourceParameter(prefixed[1]!, ctorBody?.text ?? '', all);
      if (from === undefined) ok = false;
      else hrefParam = from;
    }
    if (ok) out.push(factEdge({ kind: 'ctor', class: name, field, param: p.index, hrefParam }, ctor.startPosition.row + 1));
  }
  return out;
}

/** The index of the constructor parameter `name` is (or a `const` of the constructor set from). */
function sourceParameter(name: string, ctorText: string, params: readonly { name: string; index: number }[]): number | undefined {
  const direct = params.find((p) => p.name === name);
  if (direct !== undefined) return direct.index;
  const local = new RegExp(`\\bconst\\s+${name.replace(/\$/g, '\\$')}\\s*=\\s*([\\w$]+)\\s*;`).exec(ctorText);
  return local === null ? undefined : params.find((p) => p.name === local[1])?.index;
}
