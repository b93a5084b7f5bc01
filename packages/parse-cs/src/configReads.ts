/**
 * Configuration reads (decision 048): where C# reads `appsettings*.json` keys, found from syntax.
 * Each read becomes a `reads_config` edge from the declaration around it (the file node for
 * top-level statements) whose target key says what is read (`configReadKey` in @ca/schema); the
 * engine's configuration linker points it at the `config` nodes. Keys are constant strings:
 * literals, `+`, interpolation of constants, `const string` fields of the file. Anything else
 * is a `computed` read, never linked.
 */
import { configReadKey, type ConfigReadKind, type ExtractedEdge } from '@ca/schema';
import type { Node as TsNode } from 'web-tree-sitter';
import type { Decl } from './decl.js';
import { StringEvaluator, type ConstantLookup } from './endpoints/strings.js';
import { invocationArguments } from './endpoints/syntax.js';

/** A file names none of these: it reads no configuration, and the hooks do nothing. */
const HINT = /Configuration|GetSection|GetRequiredSection|GetValue|GetConnectionString|Configure\s*<|BindConfiguration|IOptions/;
/** Receivers whose indexer or `GetValue` reads configuration: `configuration`, `builder.Configuration`, `_config`, `section`. */
const CONFIG_RECEIVER = /(?:^|[._])(?:config|configuration|configurationRoot|settings|appSettings|section|\w*Section|\w*Configuration|\w*Config)$/i;
const SECTION_CALLS: ReadonlySet<string> = new Set(['GetSection', 'GetRequiredSection']);
const OPTIONS_TYPES: ReadonlySet<string> = new Set(['IOptions', 'IOptionsSnapshot', 'IOptionsMonitor']);
/** Keys longer than this are shown cut in a computed read's key. */
const MAX_EXPR_CHARS = 80;

/** An edge the collector found, with the declaration it starts from. */
export type ConfigReadEdge = Omit<ExtractedEdge, 'sourceLocalId'> & { readonly source: Decl };

/** A section path from syntax: its keys, or why it is not constant. */
type SectionPath = { readonly keys: readonly string[] } | { readonly computed: string };

interface Site {
  readonly node: TsNode;
  readonly owner: Decl | null;
}

/**
 * Collects configuration reads while the walker passes (calls, indexers, `IOptions<T>` types,
 * `const string` fields), then turns them into `reads_config` edges in {@link finish}.
 */
export class ConfigReadCollector {
  private readonly enabled: boolean;
  private readonly calls: Site[] = [];
  private readonly indexers: Site[] = [];
  private readonly options: Site[] = [];
  private readonly constants = new Map<string, { typeName: string | null; value: TsNode }[]>();

  /** `text` is the file's text: a file that names no configuration API pays for no node reads. */
  constructor(text: string) {
    this.enabled = HINT.test(text);
  }

  /** Whether the file may read configuration at all. */
  get active(): boolean {
    return this.enabled;
  }

  /** An invocation (any: the member is checked in {@link finish}). */
  onInvocation(node: TsNode, owner: Decl | null): void {
    if (this.enabled) this.calls.push({ node, owner });
  }

  /** `x["A:B"]`. */
  onElementAccess(node: TsNode, owner: Decl | null): void {
    if (this.enabled) this.indexers.push({ node, owner });
  }

  /** A generic name: `IOptions<T>` and its kin are reads of the sections `T` is bound to. */
  onGenericName(node: TsNode, owner: Decl | null): void {
    if (!this.enabled) return;
    const id = node.namedChildren.find((c) => c?.type === 'identifier');
    if (id && OPTIONS_TYPES.has(id.text)) this.options.push({ node, owner });
  }

  /** A field declaration: its `const` declarators are the constants keys may use. */
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

  /** The `reads_config` edges of the file, in source order (unlinked: `approximate`, no target). */
  finish(fileDecl: Decl): ConfigReadEdge[] {
    if (!this.enabled) return [];
    const out: { at: number; edge: ConfigReadEdge }[] = [];
    const seen = new Set<string>();
    const push = (site: Site, kind: ConfigReadKind, path: string, type: string | null = null, name = path): void => {
      const source = site.owner ?? fileDecl;
      const line = site.node.startPosition.row + 1;
      const key = configReadKey(kind, path, type);
      const id = `${source.localId}|${key}|${line}`;
      if (seen.has(id)) return;
      seen.add(id);
      out.push({ at: site.node.startIndex, edge: { source, type: 'reads_config', confidence: 'approximate', target: { key, name }, line } });
    };
    for (const site of this.calls) this.call(site, push);
    for (const site of this.indexers) this.indexer(site, push);
    for (const site of this.options) {
      const t = typeArguments(site.node);
      if (t.length === 1) push(site, 'options', '', t[0]!, t[0]!);
    }
    return out.sort((a, b) => a.at - b.at).map((f) => f.edge);
  }

  private call(site: Site, push: (site: Site, kind: ConfigReadKind, path: string, type?: string | null, name?: string) => void): void {
    const n = site.node;
    const fn = n.childForFieldName('function');
    if (fn?.type !== 'member_access_expression') return;
    const nameNode = fn.childForFieldName('name');
    const member = memberName(nameNode);
    const receiver = fn.childForFieldName('expression');
    if (!member || !receiver) return;
    const args = invocationArguments(n);
    const fromType = typeOf(site.owner);
    switch (member) {
      case 'GetSection':
      case 'GetRequiredSection': {
        if (consumedByOuter(n)) return;
        const path = this.sectionPath(n, fromType);
        if ('computed' in path) push(site, 'computed', path.computed);
        else if (isValueAccess(n)) push(site, 'value', path.keys.join(':'));
        else push(site, 'section', path.keys.join(':'));
        return;
      }
      case 'GetValue': {
        const generic = typeArguments(nameNode!).length > 0;
        if (args.length === 0 || (!generic && !this.isConfigReceiver(receiver))) return;
        this.keyRead(site, receiver, args[0]!.value, fromType, push);
        return;
      }
      case 'GetConnectionString': {
        if (args.length !== 1) return;
        const v = this.evaluate(args[0]!.value, fromType);
        if (v === null) push(site, 'computed', exprText(args[0]!.value));
        else push(site, 'value', `ConnectionStrings:${v}`);
        return;
      }
      case 'Get': {
        // `GetSection("X").Get<T>()`: T bound to X.
        const t = typeArguments(nameNode!);
        if (t.length !== 1 || !isSectionCall(receiver)) return;
        this.bind(site, receiver, t[0]!, fromType, push);
        return;
      }
      case 'Configure': {
        // `services.Configure<T>(configuration.GetSection("X"))` (a lambda or a name configures in code).
        const t = typeArguments(nameNode!);
        const section = args.map((a) => a.value).find(isSectionCall);
        if (t.length === 1 && section) this.bind(site, section, t[0]!, fromType, push);
        return;
      }
      case 'Bind':
      case 'BindConfiguration': {
        const t = optionsTypeOf(receiver);
        if (t === null || args.length === 0) return;
        if (member === 'Bind') {
          if (isSectionCall(args[0]!.value)) this.bind(site, args[0]!.value, t, fromType, push);
          return;
        }
        const v = this.evaluate(args[0]!.value, fromType);
        if (v === null) push(site, 'computed', exprText(args[0]!.value));
        else push(site, 'bind', v, t);
        return;
      }
      default:
    }
  }

  /** `configuration["A:B"]`, `GetSection("A")["B"]`. */
  private indexer(site: Site, push: (site: Site, kind: ConfigReadKind, path: string) => void): void {
    const n = site.node;
    const receiver = n.childForFieldName('expression') ?? n.namedChild(0);
    const subscript = n.namedChildren.find((c) => c?.type === 'bracketed_argument_list');
    const args = subscript?.namedChildren.filter((c) => c?.type === 'argument') ?? [];
    if (!receiver || args.length !== 1 || !this.isConfigReceiver(receiver)) return;
    const value = args[0]!.namedChild(args[0]!.namedChildCount - 1);
    if (value) this.keyRead(site, receiver, value, typeOf(site.owner), push);
  }

  /** A value read of `key` under the section `receiver` names (root when it is no section call). */
  private keyRead(site: Site, receiver: TsNode, key: TsNode, fromType: string | null, push: (site: Site, kind: ConfigReadKind, path: string) => void): void {
    const base = isSectionCall(receiver) ? this.sectionPath(receiver, fromType) : { keys: [] };
    const v = this.evaluate(key, fromType);
    if ('computed' in base) push(site, 'computed', base.computed);
    else if (v === null) push(site, 'computed', exprText(key));
    else push(site, 'value', [...base.keys, v].join(':'));
  }

  private bind(site: Site, section: TsNode, type: string, fromType: string | null, push: (site: Site, kind: ConfigReadKind, path: string, type?: string | null, name?: string) => void): void {
    const path = this.sectionPath(section, fromType);
    if ('computed' in path) push(site, 'computed', path.computed);
    else push(site, 'bind', path.keys.join(':'), type, path.keys.join(':'));
  }

  /** The keys of a `GetSection(…)` chain (`GetSection("A").GetSection("B")` → A, B). */
  private sectionPath(n: TsNode, fromType: string | null): SectionPath {
    const keys: string[] = [];
    let cur: TsNode | null = n;
    while (cur !== null && isSectionCall(cur)) {
      const arg = invocationArguments(cur)[0]?.value;
      if (!arg) return { computed: exprText(cur) };
      const v = this.evaluate(arg, fromType);
      if (v === null) return { computed: exprText(arg) };
      keys.unshift(v);
      cur = cur.childForFieldName('function')?.childForFieldName('expression') ?? null;
    }
    return { keys };
  }

  private isConfigReceiver(receiver: TsNode): boolean {
    if (isSectionCall(receiver)) return true;
    const text = receiver.text.replace(/\s+/g, '');
    return /^[A-Za-z_@][\w@.]*$/.test(text) && CONFIG_RECEIVER.test(text.replace(/^@/, ''));
  }

  /** A constant string's value, or null when it is not constant. */
  private evaluate(n: TsNode, fromType: string | null): string | null {
    const v = new StringEvaluator(this.lookup, fromType).evaluate(n);
    return v.approximate === null ? v.text : null;
  }

  /** Constants by name: the one declared in `fromType` first, then the only one in the file. */
  private readonly lookup: ConstantLookup = (name, qualifier, fromType) => {
    const found = this.constants.get(name);
    if (!found) return null;
    const scope = qualifier ?? fromType;
    const match = found.find((c) => c.typeName === scope) ?? (qualifier === null && found.length === 1 ? found[0] : undefined);
    if (!match) return null;
    this.constants.delete(name);
    try {
      return new StringEvaluator(this.lookup, match.typeName).evaluate(match.value);
    } finally {
      this.constants.set(name, found);
    }
  };
}

/** `GetSection`, `Get`, `GetValue<T>` → the called member's simple name. */
function memberName(n: TsNode | null): string | null {
  if (!n) return null;
  if (n.type === 'identifier') return n.text;
  if (n.type === 'generic_name') return n.namedChildren.find((c) => c?.type === 'identifier')?.text ?? null;
  return null;
}

/** The simple names of a generic name's type arguments (`IOptions<Shop.SearchOptions>` → SearchOptions). */
function typeArguments(n: TsNode): string[] {
  if (n.type !== 'generic_name') return [];
  const list = n.namedChildren.find((c) => c?.type === 'type_argument_list');
  return (list?.namedChildren ?? []).flatMap((t) => {
    if (!t) return [];
    const text = t.text.replace(/\s+/g, '').replace(/<[\s\S]*$/, '').replace(/\?$/, '');
    return [text.slice(text.lastIndexOf('.') + 1)];
  });
}

function isSectionCall(n: TsNode): boolean {
  if (n.type !== 'invocation_expression') return false;
  const fn = n.childForFieldName('function');
  return fn?.type === 'member_access_expression' && SECTION_CALLS.has(memberName(fn.childForFieldName('name')) ?? '');
}

/** A `GetSection` call an outer read takes in: a deeper `GetSection`, `GetValue`, `Get<T>`, an indexer, `Configure`, `Bind`. */
function consumedByOuter(n: TsNode): boolean {
  const parent = n.parent;
  if (!parent) return false;
  if (parent.type === 'element_access_expression') return true;
  if (parent.type === 'member_access_expression' && parent.childForFieldName('expression')?.startIndex === n.startIndex) {
    const member = memberName(parent.childForFieldName('name'));
    return member === 'GetSection' || member === 'GetRequiredSection' || member === 'GetValue' || member === 'Get';
  }
  if (parent.type === 'argument') {
    const call = parent.parent?.parent;
    const fn = call?.type === 'invocation_expression' ? call.childForFieldName('function') : null;
    const member = fn?.type === 'member_access_expression' ? memberName(fn.childForFieldName('name')) : null;
    return member === 'Configure' || member === 'Bind';
  }
  return false;
}

/** `GetSection("A:B").Value`: a value read, not a section read. */
function isValueAccess(n: TsNode): boolean {
  const parent = n.parent;
  return parent?.type === 'member_access_expression' && parent.childForFieldName('name')?.text === 'Value';
}

/** `services.AddOptions<T>()…` along a call chain → T; null when the chain starts elsewhere. */
function optionsTypeOf(receiver: TsNode): string | null {
  let cur: TsNode | null = receiver;
  for (let guard = 0; cur !== null && guard < 16; guard++) {
    if (cur.type !== 'invocation_expression') return null;
    const fn = cur.childForFieldName('function');
    if (fn?.type !== 'member_access_expression') return null;
    const name = fn.childForFieldName('name');
    if (memberName(name) === 'AddOptions') {
      const t = typeArguments(name!);
      return t.length === 1 ? t[0]! : null;
    }
    cur = fn.childForFieldName('expression');
  }
  return null;
}

/** The type a declaration belongs to (constants are looked up there first). */
function typeOf(d: Decl | null): string | null {
  for (let cur = d; cur !== null; cur = cur.parent) {
    if (cur.kind === 'class' || cur.kind === 'struct' || cur.kind === 'record' || cur.kind === 'interface') return cur.name;
  }
  return null;
}

function exprText(n: TsNode): string {
  const t = n.text.replace(/\s+/g, ' ');
  return t.length <= MAX_EXPR_CHARS ? t : `${t.slice(0, MAX_EXPR_CHARS)}…`;
}
