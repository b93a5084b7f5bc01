import { symbolKey, type Modifier, type NodeKind } from '@ca/schema';
import type { Node as TsNode } from 'web-tree-sitter';

/** A declaration found by the walk; becomes one node (its position in the table is its local id). */
export interface Decl {
  readonly localId: string;
  readonly kind: NodeKind;
  readonly name: string;
  readonly qualifiedName: string;
  symbolKey: string;
  readonly parent: Decl | null;
  /** Key containers for children (namespace parts, types with arity, method names). */
  readonly childContainers: readonly string[];
  /** Qualified-name prefix for children. */
  readonly childQualified: string;
  readonly start: number;
  readonly end: number;
  readonly startRow: number;
  readonly endRow: number;
  /** Where the collapsible body starts (block, `=>` clause, type body), or null. */
  bodyStart: number | null;
  bodyStartRow: number;
  signature: string;
  parameterCount: number | null;
  returnType: string | null;
  modifiers: Modifier[];
  access: 'public' | 'protected' | 'internal' | 'private' | null;
  isPublicApi: boolean;
  doc: string | null;
  attributes: string[];
  readonly typeParams: readonly string[];
  readonly children: Decl[];
  /** Parameter and local names declared inside a callable (shadow members for references). */
  readonly locals: Set<string>;
  /** For types: base list entries. For records: positional parameters. */
  bases: { name: string; row: number }[];
  recordStruct: boolean;
}

/** How a use site's receiver is written: none (`X()`), `this.X`, `base.X`, or anything else. */
export type Receiver = 'none' | 'this' | 'base' | 'other';

/** An invocation (`X()`, `a.X()`) or an object creation (`new X()`). */
export interface CallSite {
  readonly owner: Decl;
  readonly name: string;
  readonly member: string;
  readonly receiver: Receiver;
  readonly receiverName: string | null;
  readonly argCount: number;
  readonly typeArgCount: number;
  readonly isNew: boolean;
  readonly row: number;
}

/** A name used as a value or a type. */
export interface RefSite {
  readonly owner: Decl;
  /** Name as written (`X`, `Type.X`). */
  readonly name: string;
  readonly member: string;
  readonly receiver: Receiver;
  readonly receiverName: string | null;
  /** Type names in declarations are emitted even when they do not resolve in this file. */
  readonly typeRef: boolean;
  readonly row: number;
}

/** The use sites a walk collects, in the order it meets them (edges keep that order). */
export interface Sites {
  readonly calls: CallSite[];
  readonly refs: RefSite[];
  /** Extension methods: the method and the type of its `this` parameter. */
  readonly extendsSites: { owner: Decl; name: string; row: number }[];
  readonly imports: { name: string; row: number }[];
}

/** What {@link DeclTable.add} needs to create a declaration. */
export interface NewDecl {
  kind: NodeKind;
  name: string;
  qualifiedName: string;
  key: string;
  parent: Decl | null;
  childContainers: readonly string[];
  childQualified: string;
  start: number;
  end: number;
  startRow: number;
  endRow: number;
  typeParams: readonly string[];
}

/** Kinds that are types (members and nested types hang under them). */
export const TYPE_KIND_SET: ReadonlySet<NodeKind> = new Set(['class', 'struct', 'record', 'interface', 'enum', 'delegate']);
/** Members a name can refer to as a value (not called). */
export const VALUE_MEMBER_KINDS: ReadonlySet<NodeKind> = new Set(['field', 'constant', 'property', 'event']);
/** Kinds with a body of code: they own the use sites and locals inside it. */
export const BODY_OWNER_KINDS: ReadonlySet<NodeKind> = new Set([
  'method',
  'constructor',
  'destructor',
  'operator',
  'indexer',
  'getter',
  'setter',
  'function',
  'property',
]);

/** The declarations of one file in walk order; the order gives the local ids `n0`, `n1`, … */
export class DeclTable {
  readonly all: Decl[] = [];

  /** Creates a declaration with empty details and appends it to its parent's children. */
  add(a: NewDecl): Decl {
    const d: Decl = {
      localId: `n${this.all.length}`,
      kind: a.kind,
      name: a.name,
      qualifiedName: a.qualifiedName,
      symbolKey: a.key,
      parent: a.parent,
      childContainers: a.childContainers,
      childQualified: a.childQualified,
      start: a.start,
      end: a.end,
      startRow: a.startRow,
      endRow: a.endRow,
      bodyStart: null,
      bodyStartRow: 0,
      signature: '',
      parameterCount: null,
      returnType: null,
      modifiers: [],
      access: null,
      isPublicApi: false,
      doc: null,
      attributes: [],
      typeParams: a.typeParams,
      children: [],
      locals: new Set(),
      bases: [],
      recordStruct: false,
    };
    this.all.push(d);
    a.parent?.children.push(d);
    return d;
  }
}

/** `prefix.name`, or `name` at the top. */
export const qualify = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

/** Offsets and rows of a syntax node. */
export function span(n: TsNode): { start: number; end: number; startRow: number; endRow: number } {
  return { start: n.startIndex, end: n.endIndex, startRow: n.startPosition.row, endRow: n.endPosition.row };
}

/** The nearest type declaration at or above `d`. */
export function enclosingType(d: Decl | null): Decl | null {
  for (let cur = d; cur; cur = cur.parent) if (TYPE_KIND_SET.has(cur.kind)) return cur;
  return null;
}

/** Whether `name` is a type parameter of `d` or of a declaration around it. */
export function isTypeParam(d: Decl | null, name: string): boolean {
  for (let cur = d; cur; cur = cur.parent) if (cur.typeParams.includes(name)) return true;
  return false;
}

/** The first direct child of `n` of the given type. */
export function childOfType(n: TsNode, type: string): TsNode | null {
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (c && c.type === type) return c;
  }
  return null;
}

/** The symbol key of a member of `owner` (types, callables, properties, fields …). */
export function memberKey(
  owner: Decl,
  name: string,
  kind: NodeKind,
  parameterTypes: readonly string[] | null,
  typeParameterCount: number,
  containers = owner.childContainers,
): string {
  // symbolKey() looks the kind up in a plain object literal, where 'constructor' hits
  // Object.prototype.constructor; the kind only selects an accessor suffix, so constructors
  // are keyed as methods (their `.ctor`/`.cctor` names already set them apart).
  const keyKind: NodeKind = kind === 'constructor' ? 'method' : kind;
  return symbolKey({ language: 'cs', scope: { kind: 'global' }, containers, name, kind: keyKind, parameterTypes, typeParameterCount });
}
