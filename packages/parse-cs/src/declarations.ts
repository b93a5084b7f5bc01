import { symbolKey, type Modifier, type NodeKind } from '@ca/schema';
import type { Node as TsNode } from 'web-tree-sitter';
import {
  childOfType,
  enclosingType,
  isTypeParam,
  memberKey,
  qualify,
  span,
  TYPE_KIND_SET,
  type Decl,
  type DeclTable,
  type Sites,
} from './decl.js';
import { docCommentToText } from './docComment.js';
import { collapseWs } from './text.js';

const ALLOWED_MODIFIERS: ReadonlySet<string> = new Set([
  'public',
  'private',
  'protected',
  'internal',
  'static',
  'abstract',
  'virtual',
  'override',
  'sealed',
  'async',
  'partial',
  'readonly',
  'extern',
  'const',
]);

const OPERATOR_NAMES: Readonly<Record<string, readonly [string, string]>> = {
  // token → [binary metadata name, unary metadata name]
  '+': ['op_Addition', 'op_UnaryPlus'],
  '-': ['op_Subtraction', 'op_UnaryNegation'],
  '*': ['op_Multiply', 'op_Multiply'],
  '/': ['op_Division', 'op_Division'],
  '%': ['op_Modulus', 'op_Modulus'],
  '!': ['op_LogicalNot', 'op_LogicalNot'],
  '~': ['op_OnesComplement', 'op_OnesComplement'],
  '++': ['op_Increment', 'op_Increment'],
  '--': ['op_Decrement', 'op_Decrement'],
  true: ['op_True', 'op_True'],
  false: ['op_False', 'op_False'],
  '&': ['op_BitwiseAnd', 'op_BitwiseAnd'],
  '|': ['op_BitwiseOr', 'op_BitwiseOr'],
  '^': ['op_ExclusiveOr', 'op_ExclusiveOr'],
  '<<': ['op_LeftShift', 'op_LeftShift'],
  '>>': ['op_RightShift', 'op_RightShift'],
  '>>>': ['op_UnsignedRightShift', 'op_UnsignedRightShift'],
  '==': ['op_Equality', 'op_Equality'],
  '!=': ['op_Inequality', 'op_Inequality'],
  '<': ['op_LessThan', 'op_LessThan'],
  '>': ['op_GreaterThan', 'op_GreaterThan'],
  '<=': ['op_LessThanOrEqual', 'op_LessThanOrEqual'],
  '>=': ['op_GreaterThanOrEqual', 'op_GreaterThanOrEqual'],
};

/** A parameter of a parameter list, as declarations and keys need it. */
interface Param {
  type: string;
  typeNode: TsNode | null;
  name: string;
  isThis: boolean;
  node: TsNode;
}

/** What the kind of a callable declaration decides: its kind, names and return type node. */
interface CallableShape {
  kind: NodeKind;
  name: string;
  keyName: string;
  returnNode: TsNode | null;
}

/** `List<T>` → `List`, `A.B<T>` → `A.B`: the type name without type arguments. */
export function simpleTypeName(n: TsNode, text: string): string {
  if (n.type === 'generic_name') return childOfType(n, 'identifier')?.text ?? n.text;
  return collapseWs(text.slice(n.startIndex, n.endIndex)).replace(/<[\s\S]*$/, '');
}

/** Whether a declaration is visible outside its assembly (by its access and its parent type's). */
function computePublicApi(d: Decl): boolean {
  const parentType = d.parent && TYPE_KIND_SET.has(d.parent.kind) ? d.parent : null;
  if (TYPE_KIND_SET.has(d.kind)) {
    if (!parentType) return d.access === 'public';
    return parentType.isPublicApi && (d.access === 'public' || d.access === 'protected');
  }
  if (!parentType) return false;
  if (!parentType.isPublicApi) return false;
  if (parentType.kind === 'interface') return d.access !== 'private';
  return d.access === 'public' || d.access === 'protected';
}

function setBody(d: Decl, body: TsNode | null): void {
  if (!body) return;
  d.bodyStart = body.startIndex;
  d.bodyStartRow = body.startPosition.row;
}

/**
 * Builds declarations from their syntax nodes: names, keys, modifiers, attributes, doc
 * comments, parameters, signatures, and the type references their headers make (into `sites`).
 * Uses the node API: declarations are few compared to all nodes the walk passes.
 */
export class DeclarationBuilder {
  constructor(
    private readonly text: string,
    private readonly original: string,
    private readonly lastRow: number,
    private readonly table: DeclTable,
    private readonly sites: Sites,
  ) {}

  private textOf(n: TsNode): string {
    return this.text.slice(n.startIndex, n.endIndex);
  }

  /** Modifiers kept on nodes and the declared accessibility (null when none is written). */
  private modifiersOf(n: TsNode): { mods: Modifier[]; access: Decl['access'] } {
    const mods: Modifier[] = [];
    let access: Decl['access'] = null;
    for (let i = 0; i < n.childCount; i++) {
      const c = n.child(i);
      if (!c || c.type !== 'modifier') continue;
      const m = c.text.trim();
      if (ALLOWED_MODIFIERS.has(m) && !mods.includes(m as Modifier)) mods.push(m as Modifier);
      if (m === 'public') access = 'public';
      else if (m === 'protected' && access !== 'public') access = 'protected';
      else if (m === 'internal' && access === null) access = 'internal';
      else if (m === 'private' && access === null) access = 'private';
    }
    // `private protected` is narrower than protected for outside callers.
    if (mods.includes('private') && mods.includes('protected')) access = 'private';
    return { mods, access };
  }

  private attributesOf(n: TsNode): string[] {
    const out: string[] = [];
    for (let i = 0; i < n.childCount; i++) {
      const list = n.child(i);
      if (!list || list.type !== 'attribute_list') continue;
      for (let k = 0; k < list.namedChildCount; k++) {
        const a = list.namedChild(k);
        if (a && a.type === 'attribute') out.push(collapseWs(this.textOf(a)));
      }
    }
    return out;
  }

  private docOf(n: TsNode): string | null {
    const parts: string[] = [];
    let prev = n.previousNamedSibling;
    let expectRow = n.startPosition.row - 1;
    while (prev && prev.type === 'comment') {
      const t = this.textOf(prev);
      if (!(t.startsWith('///') || t.startsWith('/**')) || prev.endPosition.row < expectRow) break;
      parts.unshift(t);
      expectRow = prev.startPosition.row - 1;
      prev = prev.previousNamedSibling;
    }
    return parts.length > 0 ? docCommentToText(parts.join('\n')) : null;
  }

  private typeParamsOf(n: TsNode): string[] {
    const list = n.childForFieldName('type_parameters') ?? childOfType(n, 'type_parameter_list');
    if (!list) return [];
    const out: string[] = [];
    for (let k = 0; k < list.namedChildCount; k++) {
      const tp = list.namedChild(k);
      if (tp?.type === 'type_parameter') out.push((tp.childForFieldName('name') ?? tp).text);
    }
    return out;
  }

  private paramsOf(list: TsNode | null): Param[] {
    if (!list) return [];
    const out: Param[] = [];
    let pendingParams: { type: TsNode | null; start: TsNode } | null = null;
    for (let i = 0; i < list.childCount; i++) {
      const c = list.child(i);
      if (!c) continue;
      const field = list.fieldNameForChild(i);
      if (c.type === 'parameter') {
        out.push(this.param(c));
      } else if (c.type === 'params') {
        pendingParams = { type: null, start: c };
      } else if (pendingParams && field === 'type') {
        pendingParams.type = c;
      } else if (pendingParams && field === 'name') {
        const typeNode = pendingParams.type;
        out.push({
          type: `params ${typeNode ? collapseWs(this.textOf(typeNode)) : ''}`.trim(),
          typeNode,
          name: c.text,
          isThis: false,
          node: c,
        });
        pendingParams = null;
      }
    }
    return out;
  }

  private param(c: TsNode): Param {
    const typeNode = c.childForFieldName('type');
    const mods: string[] = [];
    let isThis = false;
    for (let k = 0; k < c.childCount; k++) {
      const m = c.child(k);
      if (m?.type !== 'modifier') continue;
      const t = m.text.trim();
      if (t === 'this') isThis = true;
      else mods.push(t);
    }
    const typeText = typeNode ? collapseWs(this.textOf(typeNode)) : '';
    return {
      type: [...mods, typeText].filter(Boolean).join(' '),
      typeNode,
      name: c.childForFieldName('name')?.text ?? '',
      isThis,
      node: c,
    };
  }

  /** Type names inside a type expression: `List<Customer>` → List, Customer. Iterative. */
  typeNamesIn(typeNode: TsNode | null, owner: Decl): void {
    if (!typeNode) return;
    const stack: TsNode[] = [typeNode];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === 'identifier') {
        this.addTypeRef(owner, n.text, n.startPosition.row);
      } else if (n.type === 'qualified_name') {
        const full = collapseWs(this.textOf(n)).replace(/<.*$/, '');
        this.addTypeRef(owner, full, n.startPosition.row);
        const args = n.descendantsOfType('type_argument_list');
        for (const a of args) stack.push(a);
      } else if (n.type === 'generic_name') {
        const id = childOfType(n, 'identifier');
        if (id) this.addTypeRef(owner, id.text, id.startPosition.row);
        const args = childOfType(n, 'type_argument_list');
        if (args) for (let k = args.namedChildCount - 1; k >= 0; k--) stack.push(args.namedChild(k)!);
      } else if (n.type !== 'predefined_type' && n.type !== 'implicit_type') {
        for (let k = n.namedChildCount - 1; k >= 0; k--) stack.push(n.namedChild(k)!);
      }
    }
  }

  private addTypeRef(owner: Decl, name: string, row: number): void {
    const member = name.slice(name.lastIndexOf('.') + 1);
    if (isTypeParam(owner, member)) return;
    this.sites.refs.push({ owner, name, member, receiver: 'none', receiverName: null, typeRef: true, row });
  }

  /** Header text between the first non-attribute token and `end`, whitespace collapsed. */
  private headerText(n: TsNode, end: number): string {
    let start = n.startIndex;
    for (let i = 0; i < n.childCount; i++) {
      const c = n.child(i);
      if (!c || c.type === 'attribute_list' || c.type === 'comment') continue;
      start = c.startIndex;
      break;
    }
    return collapseWs(this.text.slice(start, Math.max(start, end))).replace(/\s*;$/, '');
  }

  private setCommon(d: Decl, n: TsNode): void {
    const { mods, access } = this.modifiersOf(n);
    d.attributes = this.attributesOf(n);
    if (d.attributes.some((a) => /^(?:System\.)?Obsolete(?:Attribute)?\b/.test(a))) mods.push('deprecated');
    d.modifiers = mods;
    d.access = access;
    d.doc = this.docOf(n);
    d.isPublicApi = computePublicApi(d);
  }

  /** A member declaration of `owner` named `name` whose children share `owner`'s containers. */
  private member(n: TsNode, owner: Decl, kind: NodeKind, name: string, key: string): Decl {
    return this.table.add({
      kind,
      name,
      qualifiedName: qualify(owner.childQualified, name),
      key,
      parent: owner,
      childContainers: owner.childContainers,
      childQualified: qualify(owner.childQualified, name),
      ...span(n),
      typeParams: [],
    });
  }

  /** `namespace A.B { … }` or `namespace A.B;` (which extends to the end of the file). */
  namespace(n: TsNode, owner: Decl, fileScoped: boolean): Decl {
    const nameNode = n.childForFieldName('name');
    const written = nameNode ? collapseWs(this.textOf(nameNode)) : '';
    const parts = written.split('.').filter(Boolean);
    const containers = [...owner.childContainers, ...parts.slice(0, -1)];
    const last = parts[parts.length - 1] ?? '';
    const qn = qualify(owner.childQualified, written);
    const s = span(n);
    const d = this.table.add({
      kind: 'namespace',
      name: written,
      qualifiedName: qn,
      key: symbolKey({ language: 'cs', scope: { kind: 'global' }, containers, name: last, kind: 'namespace' }),
      parent: owner,
      childContainers: [...owner.childContainers, ...parts],
      childQualified: qn,
      ...s,
      // A file-scoped namespace extends to the end of the file.
      end: fileScoped ? this.original.length : s.end,
      endRow: fileScoped ? Math.max(s.endRow, this.lastRow) : s.endRow,
      typeParams: [],
    });
    d.signature = `namespace ${written}`;
    d.doc = this.docOf(n);
    // No body on purpose: namespaces are transparent in chunks (their types are collapsed).
    return d;
  }

  /** A class, struct, interface, enum, record or delegate, with its bases and record properties. */
  type(n: TsNode, owner: Decl, kind: NodeKind): Decl {
    const name = n.childForFieldName('name')?.text ?? '';
    const typeParams = this.typeParamsOf(n);
    const d = this.table.add({
      kind,
      name,
      qualifiedName: qualify(owner.childQualified, name),
      key: memberKey(owner, name, kind, null, typeParams.length),
      parent: owner,
      childContainers: [...owner.childContainers, typeParams.length > 0 ? `${name}\`${typeParams.length}` : name],
      childQualified: qualify(owner.childQualified, name),
      ...span(n),
      typeParams,
    });
    this.setCommon(d, n);
    const body = n.childForFieldName('body');
    setBody(d, body);
    d.signature = this.headerText(n, body ? body.startIndex : n.endIndex);
    if (kind === 'record') d.recordStruct = childOfType(n, 'struct') !== null;
    if (kind === 'delegate') this.delegateShape(n, d);
    const baseList = childOfType(n, 'base_list');
    if (baseList && kind !== 'enum') this.bases(baseList, d);
    if (kind === 'record' || kind === 'class' || kind === 'struct') {
      // Positional record parameters are public properties; class/struct primary constructor
      // parameters are not members, so only records get nodes.
      const plist = n.childForFieldName('parameters') ?? childOfType(n, 'parameter_list');
      const params = this.paramsOf(plist);
      if (kind === 'record') for (const p of params) this.recordProperty(d, p);
      else for (const p of params) this.typeNamesIn(p.typeNode, d);
    }
    return d;
  }

  private delegateShape(n: TsNode, d: Decl): void {
    const params = this.paramsOf(n.childForFieldName('parameters'));
    d.parameterCount = params.length;
    const rt = n.childForFieldName('type');
    d.returnType = rt ? collapseWs(this.textOf(rt)) : null;
    for (const p of params) this.typeNamesIn(p.typeNode, d);
    this.typeNamesIn(rt, d);
  }

  private bases(baseList: TsNode, d: Decl): void {
    for (let k = 0; k < baseList.namedChildCount; k++) {
      let b = baseList.namedChild(k)!;
      if (b.type === 'argument_list') continue;
      if (b.type === 'primary_constructor_base_type') b = b.childForFieldName('type') ?? b.namedChild(0) ?? b;
      d.bases.push({ name: simpleTypeName(b, this.text), row: b.startPosition.row });
    }
  }

  private recordProperty(d: Decl, p: Param): void {
    const prop = this.table.add({
      kind: 'property',
      name: p.name,
      qualifiedName: qualify(d.childQualified, p.name),
      key: memberKey(d, p.name, 'property', null, 0),
      parent: d,
      childContainers: d.childContainers,
      childQualified: d.childQualified,
      ...span(p.node),
      typeParams: [],
    });
    prop.modifiers = ['public'];
    prop.access = 'public';
    prop.attributes = this.attributesOf(p.node);
    prop.returnType = p.type;
    prop.isPublicApi = d.isPublicApi;
    const mutable = d.recordStruct && !d.modifiers.includes('readonly');
    prop.signature = `public ${p.type} ${p.name} { get; ${mutable ? 'set' : 'init'}; }`;
    this.typeNamesIn(p.typeNode, prop);
  }

  /** Kind, display name and key name of a callable declaration node; null for other nodes. */
  private callableShape(n: TsNode, owner: Decl, paramCount: number): CallableShape | null {
    const typeName = enclosingType(owner)?.name ?? '';
    switch (n.type) {
      case 'method_declaration': {
        const name = n.childForFieldName('name')?.text ?? '';
        return { kind: 'method', name, keyName: name, returnNode: n.childForFieldName('returns') ?? n.childForFieldName('type') };
      }
      case 'local_function_statement': {
        const name = n.childForFieldName('name')?.text ?? '';
        return { kind: 'function', name, keyName: name, returnNode: n.childForFieldName('type') };
      }
      case 'constructor_declaration': {
        const isStatic = this.modifiersOf(n).mods.includes('static');
        // Roslyn's metadata names, so the semantic pass can produce the same keys.
        return { kind: 'constructor', name: n.childForFieldName('name')?.text ?? typeName, keyName: isStatic ? '.cctor' : '.ctor', returnNode: null };
      }
      case 'destructor_declaration':
        return { kind: 'destructor', name: `~${n.childForFieldName('name')?.text ?? typeName}`, keyName: 'Finalize', returnNode: null };
      case 'operator_declaration': {
        const op = n.childForFieldName('operator')?.text ?? '';
        const names = OPERATOR_NAMES[op];
        const keyName = names ? names[paramCount === 1 ? 1 : 0] : `op_${op}`;
        return { kind: 'operator', name: `operator ${op}`, keyName, returnNode: n.childForFieldName('type') };
      }
      case 'conversion_operator_declaration': {
        const implicit = childOfType(n, 'implicit') !== null;
        const returnNode = n.childForFieldName('type');
        const name = `${implicit ? 'implicit' : 'explicit'} operator ${returnNode ? collapseWs(this.textOf(returnNode)) : ''}`;
        return { kind: 'operator', name, keyName: implicit ? 'op_Implicit' : 'op_Explicit', returnNode };
      }
      default:
        return null;
    }
  }

  /** A method, local function, constructor, destructor or operator; null for other nodes. */
  callable(n: TsNode, owner: Decl): Decl | null {
    const params = this.paramsOf(n.childForFieldName('parameters'));
    const shape = this.callableShape(n, owner, params.length);
    if (!shape) return null;
    const { kind, name, keyName, returnNode } = shape;
    const typeParams = this.typeParamsOf(n);
    const containers = kind === 'function' ? [...owner.childContainers] : owner.childContainers;
    const d = this.table.add({
      kind,
      name,
      qualifiedName: qualify(owner.childQualified, name),
      key: memberKey(
        owner,
        keyName,
        kind,
        params.map((p) => p.type),
        typeParams.length,
        containers,
      ),
      parent: owner,
      childContainers: [...owner.childContainers, keyName],
      childQualified: qualify(owner.childQualified, name),
      ...span(n),
      typeParams,
    });
    this.setCommon(d, n);
    if (kind === 'function') d.isPublicApi = false;
    const body = n.childForFieldName('body');
    setBody(d, body);
    d.signature = this.headerText(n, body ? body.startIndex : n.endIndex);
    d.parameterCount = params.length;
    d.returnType = returnNode ? collapseWs(this.textOf(returnNode)) : null;
    for (const p of params) {
      this.typeNamesIn(p.typeNode, d);
      if (p.name) d.locals.add(p.name);
    }
    this.typeNamesIn(returnNode, d);
    const first = params[0];
    if (kind === 'method' && first?.isThis) {
      this.sites.extendsSites.push({ owner: d, name: first.typeNode ? simpleTypeName(first.typeNode, this.text) : first.type, row: first.node.startPosition.row });
    }
    return d;
  }

  /** A property or an indexer, with a getter/setter node for each accessor that has a body. */
  property(n: TsNode, owner: Decl, indexer: boolean): Decl {
    const name = indexer ? 'this[]' : (n.childForFieldName('name')?.text ?? '');
    const params = indexer ? this.paramsOf(n.childForFieldName('parameters')) : [];
    const typeNode = n.childForFieldName('type');
    const typeText = typeNode ? collapseWs(this.textOf(typeNode)) : null;
    const kind: NodeKind = indexer ? 'indexer' : 'property';
    const paramTypes = indexer ? params.map((p) => p.type) : null;
    const d = this.member(n, owner, kind, name, memberKey(owner, name, kind, paramTypes, 0));
    this.setCommon(d, n);
    d.returnType = typeText;
    if (indexer) d.parameterCount = params.length;
    for (const p of params) {
      this.typeNamesIn(p.typeNode, d);
      if (p.name) d.locals.add(p.name);
    }
    this.typeNamesIn(typeNode, d);
    const accessors = n.childForFieldName('accessors');
    const value = n.childForFieldName('value');
    const arrow = value?.type === 'arrow_expression_clause' ? value : null;
    const header = this.headerText(n, accessors ? accessors.startIndex : arrow ? arrow.startIndex : n.endIndex);
    if (arrow) {
      setBody(d, arrow);
      d.signature = header;
    }
    if (accessors) {
      const summaries: string[] = [];
      for (let k = 0; k < accessors.namedChildCount; k++) {
        const acc = accessors.namedChild(k);
        if (acc?.type !== 'accessor_declaration') continue;
        summaries.push(this.accessor(acc, owner, d, { header, typeText, params, paramTypes }));
      }
      d.signature = `${header} { ${summaries.join('; ')}; }`;
    }
    if (!arrow && !accessors) d.signature = header;
    return d;
  }

  /** One accessor of property `d`: its summary (`private set`) and, with a body, its node. */
  private accessor(
    acc: TsNode,
    owner: Decl,
    d: Decl,
    p: { header: string; typeText: string | null; params: Param[]; paramTypes: string[] | null },
  ): string {
    const indexer = d.kind === 'indexer';
    const keyword = acc.childForFieldName('name')?.text ?? '';
    const accMods = this.modifiersOf(acc);
    const note = [...accMods.mods.filter((m) => m !== 'readonly'), keyword].join(' ');
    const body = acc.childForFieldName('body');
    if (!body || (keyword !== 'get' && keyword !== 'set' && keyword !== 'init')) return note;
    const accKind: NodeKind = keyword === 'get' ? 'getter' : 'setter';
    const a = this.table.add({
      kind: accKind,
      name: d.name,
      qualifiedName: qualify(d.qualifiedName, keyword),
      key: memberKey(owner, d.name, accKind, p.paramTypes, 0),
      parent: d,
      childContainers: [...owner.childContainers, `${d.name}@${keyword}`],
      childQualified: qualify(d.qualifiedName, keyword),
      ...span(acc),
      typeParams: [],
    });
    a.attributes = this.attributesOf(acc);
    a.modifiers = accMods.mods;
    a.access = accMods.access ?? d.access;
    a.doc = null;
    a.isPublicApi = d.isPublicApi && (accMods.access === null || accMods.access === 'public' || accMods.access === 'protected');
    a.returnType = accKind === 'getter' ? p.typeText : null;
    a.parameterCount = indexer ? p.params.length : null;
    a.signature = `${p.header} { ${note}; }`;
    for (const q of p.params) if (q.name) a.locals.add(q.name);
    if (accKind === 'setter') a.locals.add('value');
    setBody(a, body);
    return note;
  }

  /**
   * Fields, constants and field-like events: one node per declarator when visible outside the
   * type (or in an interface). A private field is no node, its type still a reference of the type.
   */
  field(n: TsNode, owner: Decl, isEvent: boolean): Decl[] {
    const { mods, access } = this.modifiersOf(n);
    const typeDecl = enclosingType(owner);
    const inInterface = typeDecl?.kind === 'interface';
    const isConst = mods.includes('const');
    const varDecl = childOfType(n, 'variable_declaration');
    const typeNode = varDecl?.childForFieldName('type') ?? null;
    if (!isEvent && !(access === 'public' || access === 'protected' || access === 'internal' || inInterface)) {
      if (typeDecl) this.typeNamesIn(typeNode, typeDecl);
      return [];
    }
    const out: Decl[] = [];
    if (!varDecl) return out;
    const prefix = this.headerText(n, varDecl.startIndex);
    const typeText = typeNode ? collapseWs(this.textOf(typeNode)) : '';
    for (let k = 0; k < varDecl.namedChildCount; k++) {
      const v = varDecl.namedChild(k);
      if (v?.type !== 'variable_declarator') continue;
      const name = v.childForFieldName('name')?.text ?? v.namedChild(0)?.text ?? '';
      const kind: NodeKind = isEvent ? 'event' : isConst ? 'constant' : 'field';
      const d = this.member(n, owner, kind, name, memberKey(owner, name, kind, null, 0));
      this.setCommon(d, n);
      d.returnType = typeText || null;
      d.signature = collapseWs(`${prefix} ${typeText} ${isConst ? this.textOf(v) : name}`);
      this.typeNamesIn(typeNode, d);
      out.push(d);
    }
    return out;
  }

  /** An event with accessors (`event E { add …; remove …; }`). */
  event(n: TsNode, owner: Decl): Decl {
    const name = n.childForFieldName('name')?.text ?? '';
    const typeNode = n.childForFieldName('type');
    const d = this.member(n, owner, 'event', name, memberKey(owner, name, 'event', null, 0));
    this.setCommon(d, n);
    d.returnType = typeNode ? collapseWs(this.textOf(typeNode)) : null;
    const accessors = n.childForFieldName('accessors');
    setBody(d, accessors);
    d.signature = this.headerText(n, accessors ? accessors.startIndex : n.endIndex);
    this.typeNamesIn(typeNode, d);
    return d;
  }
}
