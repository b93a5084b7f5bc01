import {
  disambiguate,
  symbolKey,
  unresolvedKey,
  type Diagnostic,
  type EdgeTarget,
  type EdgeType,
  type ExtractedEdge,
  type ExtractedNode,
  type Modifier,
  type NodeKind,
} from '@ca/schema';
import type { Node as TsNode, Tree } from 'web-tree-sitter';
import { docCommentToText } from './docComment.js';
import { collapseWs, countLines, utf8Offsets } from './text.js';

/** Thrown by the walker when the per-file deadline passes. */
export class DeadlineExceeded extends Error {}

interface Decl {
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

interface CallSite {
  readonly owner: Decl;
  readonly name: string;
  readonly member: string;
  readonly receiver: 'none' | 'this' | 'base' | 'other';
  readonly receiverName: string | null;
  readonly argCount: number;
  readonly typeArgCount: number;
  readonly isNew: boolean;
  readonly row: number;
}

interface RefSite {
  readonly owner: Decl;
  /** Name as written (`X`, `Type.X`). */
  readonly name: string;
  readonly member: string;
  readonly receiver: 'none' | 'this' | 'base' | 'other';
  readonly receiverName: string | null;
  /** Type names in declarations are emitted even when they do not resolve in this file. */
  readonly typeRef: boolean;
  readonly row: number;
}

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

const TYPE_DECLS: Readonly<Record<string, NodeKind>> = {
  class_declaration: 'class',
  struct_declaration: 'struct',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'record',
  record_struct_declaration: 'record',
  delegate_declaration: 'delegate',
};

const MEMBER_DECLS: ReadonlySet<string> = new Set([
  'method_declaration',
  'constructor_declaration',
  'destructor_declaration',
  'operator_declaration',
  'conversion_operator_declaration',
  'indexer_declaration',
  'property_declaration',
  'event_declaration',
  'event_field_declaration',
  'field_declaration',
  'local_function_statement',
]);

const TYPE_KIND_SET: ReadonlySet<NodeKind> = new Set(['class', 'struct', 'record', 'interface', 'enum', 'delegate']);
const VALUE_MEMBER_KINDS: ReadonlySet<NodeKind> = new Set(['field', 'constant', 'property', 'event']);
const BODY_OWNER_KINDS: ReadonlySet<NodeKind> = new Set([
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

/** Subtrees whose identifiers are never use sites (or are handled by the declaration). */
const SKIP_SUBTREES: ReadonlySet<string> = new Set([
  'using_directive',
  'attribute_list',
  'base_list',
  'type_parameter_constraints_clause',
  'type_parameter_list',
  'explicit_interface_specifier',
  'alias_qualified_name',
  'preproc_if',
  'preproc_region',
]);

/** Parents whose `name` field declares a local (parameter, variable, range variable…). */
const LOCAL_DECLARERS: ReadonlySet<string> = new Set([
  'variable_declarator',
  'parameter',
  'foreach_statement',
  'from_clause',
  'let_clause',
  'join_clause',
  'join_into_clause',
  'query_continuation',
  'catch_declaration',
  'declaration_expression',
  'parameter_list',
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

export interface ExtractInput {
  readonly path: string;
  /** The original text (chunks are cut from it). */
  readonly original: string;
  /** The preprocessed text the tree was parsed from (same length as `original`). */
  readonly text: string;
  readonly tree: Tree;
  readonly deadline: number;
}

export interface ExtractResult {
  readonly nodes: ExtractedNode[];
  readonly edges: ExtractedEdge[];
  readonly diagnostics: Diagnostic[];
  readonly exports: string[];
  readonly hasError: boolean;
}

const MAX_SYNTAX_DIAGNOSTICS = 20;

/** Pass over one parse tree: declarations, use sites, then local resolution and chunks. */
export function extract(input: ExtractInput): ExtractResult {
  const { path, text, original, tree, deadline } = input;
  const decls: Decl[] = [];
  const calls: CallSite[] = [];
  const refs: RefSite[] = [];
  const edges: ExtractedEdge[] = [];
  const diagnostics: Diagnostic[] = [];
  const extendsSites: { owner: Decl; name: string; row: number }[] = [];
  const imports: { name: string; row: number }[] = [];
  const lineCount = countLines(original);
  const lastRow = Math.max(0, lineCount - 1);

  const fileDecl = newDecl({
    kind: 'file',
    name: path.slice(path.lastIndexOf('/') + 1),
    qualifiedName: path,
    key: symbolKey({ language: 'cs', scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
    parent: null,
    childContainers: [],
    childQualified: '',
    start: 0,
    end: original.length,
    startRow: 0,
    endRow: lastRow,
    typeParams: [],
  });

  function newDecl(a: {
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
  }): Decl {
    const d: Decl = {
      localId: `n${decls.length}`,
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
    decls.push(d);
    a.parent?.children.push(d);
    return d;
  }

  const qualify = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);
  const textOf = (n: TsNode): string => text.slice(n.startIndex, n.endIndex);

  // ---- declaration helpers (node API; declarations are few compared to all nodes) ----

  function childOfType(n: TsNode, type: string): TsNode | null {
    for (let i = 0; i < n.childCount; i++) {
      const c = n.child(i);
      if (c && c.type === type) return c;
    }
    return null;
  }

  function modifiersOf(n: TsNode): { mods: Modifier[]; access: Decl['access'] } {
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

  function attributesOf(n: TsNode): string[] {
    const out: string[] = [];
    for (let i = 0; i < n.childCount; i++) {
      const list = n.child(i);
      if (!list || list.type !== 'attribute_list') continue;
      for (let k = 0; k < list.namedChildCount; k++) {
        const a = list.namedChild(k);
        if (a && a.type === 'attribute') out.push(collapseWs(textOf(a)));
      }
    }
    return out;
  }

  function docOf(n: TsNode): string | null {
    const parts: string[] = [];
    let prev = n.previousNamedSibling;
    let expectRow = n.startPosition.row - 1;
    while (prev && prev.type === 'comment') {
      const t = textOf(prev);
      if (!(t.startsWith('///') || t.startsWith('/**')) || prev.endPosition.row < expectRow) break;
      parts.unshift(t);
      expectRow = prev.startPosition.row - 1;
      prev = prev.previousNamedSibling;
    }
    return parts.length > 0 ? docCommentToText(parts.join('\n')) : null;
  }

  function typeParamsOf(n: TsNode): string[] {
    const list = n.childForFieldName('type_parameters') ?? childOfType(n, 'type_parameter_list');
    if (!list) return [];
    const out: string[] = [];
    for (let k = 0; k < list.namedChildCount; k++) {
      const tp = list.namedChild(k);
      if (tp?.type === 'type_parameter') out.push((tp.childForFieldName('name') ?? tp).text);
    }
    return out;
  }

  interface Param {
    type: string;
    typeNode: TsNode | null;
    name: string;
    isThis: boolean;
    node: TsNode;
  }

  function paramsOf(list: TsNode | null): Param[] {
    if (!list) return [];
    const out: Param[] = [];
    let pendingParams: { type: TsNode | null; start: TsNode } | null = null;
    for (let i = 0; i < list.childCount; i++) {
      const c = list.child(i);
      if (!c) continue;
      const field = list.fieldNameForChild(i);
      if (c.type === 'parameter') {
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
        const typeText = typeNode ? collapseWs(textOf(typeNode)) : '';
        out.push({
          type: [...mods, typeText].filter(Boolean).join(' '),
          typeNode,
          name: c.childForFieldName('name')?.text ?? '',
          isThis,
          node: c,
        });
      } else if (c.type === 'params') {
        pendingParams = { type: null, start: c };
      } else if (pendingParams && field === 'type') {
        pendingParams.type = c;
      } else if (pendingParams && field === 'name') {
        const typeNode = pendingParams.type;
        out.push({
          type: `params ${typeNode ? collapseWs(textOf(typeNode)) : ''}`.trim(),
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

  /** Type names inside a type expression: `List<Customer>` → List, Customer. Iterative. */
  function typeNamesIn(typeNode: TsNode | null, owner: Decl): void {
    if (!typeNode) return;
    const stack: TsNode[] = [typeNode];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n.type === 'identifier') {
        addTypeRef(owner, n.text, n.startPosition.row);
      } else if (n.type === 'qualified_name') {
        const full = collapseWs(textOf(n)).replace(/<.*$/, '');
        addTypeRef(owner, full, n.startPosition.row);
        const args = n.descendantsOfType('type_argument_list');
        for (const a of args) stack.push(a);
      } else if (n.type === 'generic_name') {
        const id = childOfType(n, 'identifier');
        if (id) addTypeRef(owner, id.text, id.startPosition.row);
        const args = childOfType(n, 'type_argument_list');
        if (args) for (let k = args.namedChildCount - 1; k >= 0; k--) stack.push(args.namedChild(k)!);
      } else if (n.type !== 'predefined_type' && n.type !== 'implicit_type') {
        for (let k = n.namedChildCount - 1; k >= 0; k--) stack.push(n.namedChild(k)!);
      }
    }
  }

  function addTypeRef(owner: Decl, name: string, row: number): void {
    const member = name.slice(name.lastIndexOf('.') + 1);
    if (isTypeParam(owner, member)) return;
    refs.push({ owner, name, member, receiver: 'none', receiverName: null, typeRef: true, row });
  }

  function isTypeParam(d: Decl | null, name: string): boolean {
    for (let cur = d; cur; cur = cur.parent) if (cur.typeParams.includes(name)) return true;
    return false;
  }

  /** Header text between the first non-attribute token and `end`, whitespace collapsed. */
  function headerText(n: TsNode, end: number): string {
    let start = n.startIndex;
    for (let i = 0; i < n.childCount; i++) {
      const c = n.child(i);
      if (!c || c.type === 'attribute_list' || c.type === 'comment') continue;
      start = c.startIndex;
      break;
    }
    return collapseWs(text.slice(start, Math.max(start, end))).replace(/\s*;$/, '');
  }

  function enclosingType(d: Decl | null): Decl | null {
    for (let cur = d; cur; cur = cur.parent) if (TYPE_KIND_SET.has(cur.kind)) return cur;
    return null;
  }

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

  function setCommon(d: Decl, n: TsNode): void {
    const { mods, access } = modifiersOf(n);
    d.attributes = attributesOf(n);
    if (d.attributes.some((a) => /^(?:System\.)?Obsolete(?:Attribute)?\b/.test(a))) mods.push('deprecated');
    d.modifiers = mods;
    d.access = access;
    d.doc = docOf(n);
    d.isPublicApi = computePublicApi(d);
  }

  function setBody(d: Decl, body: TsNode | null): void {
    if (!body) return;
    d.bodyStart = body.startIndex;
    d.bodyStartRow = body.startPosition.row;
  }

  function memberKey(
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

  function span(n: TsNode): { start: number; end: number; startRow: number; endRow: number } {
    return { start: n.startIndex, end: n.endIndex, startRow: n.startPosition.row, endRow: n.endPosition.row };
  }

  // ---- declaration visitors ----

  function visitNamespace(n: TsNode, owner: Decl, fileScoped: boolean): Decl {
    const nameNode = n.childForFieldName('name');
    const written = nameNode ? collapseWs(textOf(nameNode)) : '';
    const parts = written.split('.').filter(Boolean);
    const containers = [...owner.childContainers, ...parts.slice(0, -1)];
    const last = parts[parts.length - 1] ?? '';
    const qn = qualify(owner.childQualified, written);
    const s = span(n);
    const d = newDecl({
      kind: 'namespace',
      name: written,
      qualifiedName: qn,
      key: symbolKey({ language: 'cs', scope: { kind: 'global' }, containers, name: last, kind: 'namespace' }),
      parent: owner,
      childContainers: [...owner.childContainers, ...parts],
      childQualified: qn,
      ...s,
      // A file-scoped namespace extends to the end of the file.
      end: fileScoped ? original.length : s.end,
      endRow: fileScoped ? Math.max(s.endRow, lastRow) : s.endRow,
      typeParams: [],
    });
    d.signature = `namespace ${written}`;
    d.doc = docOf(n);
    // No body on purpose: namespaces are transparent in chunks (their types are collapsed).
    return d;
  }

  function visitType(n: TsNode, owner: Decl, kind: NodeKind): Decl {
    const name = n.childForFieldName('name')?.text ?? '';
    const typeParams = typeParamsOf(n);
    const d = newDecl({
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
    setCommon(d, n);
    const body = n.childForFieldName('body');
    setBody(d, body);
    d.signature = headerText(n, body ? body.startIndex : n.endIndex);
    if (kind === 'record') d.recordStruct = childOfType(n, 'struct') !== null;
    if (kind === 'delegate') {
      const params = paramsOf(n.childForFieldName('parameters'));
      d.parameterCount = params.length;
      const rt = n.childForFieldName('type');
      d.returnType = rt ? collapseWs(textOf(rt)) : null;
      for (const p of params) typeNamesIn(p.typeNode, d);
      typeNamesIn(rt, d);
    }
    const baseList = childOfType(n, 'base_list');
    if (baseList && kind !== 'enum') {
      for (let k = 0; k < baseList.namedChildCount; k++) {
        let b = baseList.namedChild(k)!;
        if (b.type === 'argument_list') continue;
        if (b.type === 'primary_constructor_base_type') b = b.childForFieldName('type') ?? b.namedChild(0) ?? b;
        d.bases.push({ name: simpleTypeName(b), row: b.startPosition.row });
      }
    }
    if (kind === 'record' || kind === 'class' || kind === 'struct') {
      // Positional record parameters are public properties; class/struct primary constructor
      // parameters are not members, so only records get nodes.
      const plist = n.childForFieldName('parameters') ?? childOfType(n, 'parameter_list');
      const params = paramsOf(plist);
      if (kind === 'record') {
        for (const p of params) {
          const ps = span(p.node);
          const prop = newDecl({
            kind: 'property',
            name: p.name,
            qualifiedName: qualify(d.childQualified, p.name),
            key: memberKey(d, p.name, 'property', null, 0),
            parent: d,
            childContainers: d.childContainers,
            childQualified: d.childQualified,
            ...ps,
            typeParams: [],
          });
          prop.modifiers = ['public'];
          prop.access = 'public';
          prop.attributes = attributesOf(p.node);
          prop.returnType = p.type;
          prop.isPublicApi = d.isPublicApi;
          const mutable = d.recordStruct && !d.modifiers.includes('readonly');
          prop.signature = `public ${p.type} ${p.name} { get; ${mutable ? 'set' : 'init'}; }`;
          typeNamesIn(p.typeNode, prop);
        }
      } else {
        for (const p of params) typeNamesIn(p.typeNode, d);
      }
    }
    return d;
  }

  function simpleTypeName(n: TsNode): string {
    if (n.type === 'generic_name') return childOfType(n, 'identifier')?.text ?? n.text;
    if (n.type === 'qualified_name') return collapseWs(textOf(n)).replace(/<[\s\S]*$/, '');
    return collapseWs(textOf(n)).replace(/<[\s\S]*$/, '');
  }

  function visitCallable(n: TsNode, owner: Decl): Decl | null {
    const typeDecl = enclosingType(owner);
    const typeName = typeDecl?.name ?? '';
    let kind: NodeKind;
    let name: string;
    let keyName: string;
    let returnNode: TsNode | null = null;
    const params = paramsOf(n.childForFieldName('parameters'));
    switch (n.type) {
      case 'method_declaration':
        kind = 'method';
        name = keyName = n.childForFieldName('name')?.text ?? '';
        returnNode = n.childForFieldName('returns') ?? n.childForFieldName('type');
        break;
      case 'local_function_statement':
        kind = 'function';
        name = keyName = n.childForFieldName('name')?.text ?? '';
        returnNode = n.childForFieldName('type');
        break;
      case 'constructor_declaration': {
        kind = 'constructor';
        name = n.childForFieldName('name')?.text ?? typeName;
        const isStatic = modifiersOf(n).mods.includes('static');
        // Roslyn's metadata names, so the semantic pass can produce the same keys.
        keyName = isStatic ? '.cctor' : '.ctor';
        break;
      }
      case 'destructor_declaration':
        kind = 'destructor';
        name = `~${n.childForFieldName('name')?.text ?? typeName}`;
        keyName = 'Finalize';
        break;
      case 'operator_declaration': {
        kind = 'operator';
        const op = n.childForFieldName('operator')?.text ?? '';
        name = `operator ${op}`;
        const names = OPERATOR_NAMES[op];
        keyName = names ? names[params.length === 1 ? 1 : 0] : `op_${op}`;
        returnNode = n.childForFieldName('type');
        break;
      }
      case 'conversion_operator_declaration': {
        kind = 'operator';
        const implicit = childOfType(n, 'implicit') !== null;
        returnNode = n.childForFieldName('type');
        name = `${implicit ? 'implicit' : 'explicit'} operator ${returnNode ? collapseWs(textOf(returnNode)) : ''}`;
        keyName = implicit ? 'op_Implicit' : 'op_Explicit';
        break;
      }
      default:
        return null;
    }
    const typeParams = typeParamsOf(n);
    const containers = kind === 'function' ? [...owner.childContainers] : owner.childContainers;
    const d = newDecl({
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
    setCommon(d, n);
    if (kind === 'function') d.isPublicApi = false;
    const body = n.childForFieldName('body');
    setBody(d, body);
    d.signature = headerText(n, body ? body.startIndex : n.endIndex);
    d.parameterCount = params.length;
    d.returnType = returnNode ? collapseWs(textOf(returnNode)) : null;
    for (const p of params) {
      typeNamesIn(p.typeNode, d);
      if (p.name) d.locals.add(p.name);
    }
    typeNamesIn(returnNode, d);
    const first = params[0];
    if (kind === 'method' && first?.isThis) {
      extendsSites.push({ owner: d, name: first.typeNode ? simpleTypeName(first.typeNode) : first.type, row: first.node.startPosition.row });
    }
    return d;
  }

  function visitProperty(n: TsNode, owner: Decl, indexer: boolean): Decl {
    const name = indexer ? 'this[]' : (n.childForFieldName('name')?.text ?? '');
    const params = indexer ? paramsOf(n.childForFieldName('parameters')) : [];
    const typeNode = n.childForFieldName('type');
    const typeText = typeNode ? collapseWs(textOf(typeNode)) : null;
    const kind: NodeKind = indexer ? 'indexer' : 'property';
    const paramTypes = indexer ? params.map((p) => p.type) : null;
    const d = newDecl({
      kind,
      name,
      qualifiedName: qualify(owner.childQualified, name),
      key: memberKey(owner, name, kind, paramTypes, 0),
      parent: owner,
      childContainers: owner.childContainers,
      childQualified: qualify(owner.childQualified, name),
      ...span(n),
      typeParams: [],
    });
    setCommon(d, n);
    d.returnType = typeText;
    if (indexer) d.parameterCount = params.length;
    for (const p of params) {
      typeNamesIn(p.typeNode, d);
      if (p.name) d.locals.add(p.name);
    }
    typeNamesIn(typeNode, d);
    const accessors = n.childForFieldName('accessors');
    const value = n.childForFieldName('value');
    const arrow = value?.type === 'arrow_expression_clause' ? value : null;
    const header = headerText(n, accessors ? accessors.startIndex : arrow ? arrow.startIndex : n.endIndex);
    if (arrow) {
      setBody(d, arrow);
      d.signature = header;
    }
    if (accessors) {
      const summaries: string[] = [];
      for (let k = 0; k < accessors.namedChildCount; k++) {
        const acc = accessors.namedChild(k);
        if (acc?.type !== 'accessor_declaration') continue;
        const keyword = acc.childForFieldName('name')?.text ?? '';
        const accMods = modifiersOf(acc);
        const note = [...accMods.mods.filter((m) => m !== 'readonly'), keyword].join(' ');
        summaries.push(note);
        const body = acc.childForFieldName('body');
        if (!body || (keyword !== 'get' && keyword !== 'set' && keyword !== 'init')) continue;
        const accKind: NodeKind = keyword === 'get' ? 'getter' : 'setter';
        const a = newDecl({
          kind: accKind,
          name,
          qualifiedName: qualify(d.qualifiedName, keyword),
          key: memberKey(owner, name, accKind, paramTypes, 0),
          parent: d,
          childContainers: [...owner.childContainers, `${name}@${keyword}`],
          childQualified: qualify(d.qualifiedName, keyword),
          ...span(acc),
          typeParams: [],
        });
        a.attributes = attributesOf(acc);
        a.modifiers = accMods.mods;
        a.access = accMods.access ?? d.access;
        a.doc = null;
        a.isPublicApi = d.isPublicApi && (accMods.access === null || accMods.access === 'public' || accMods.access === 'protected');
        a.returnType = accKind === 'getter' ? typeText : null;
        a.parameterCount = indexer ? params.length : null;
        a.signature = `${header} { ${note}; }`;
        for (const p of params) if (p.name) a.locals.add(p.name);
        if (accKind === 'setter') a.locals.add('value');
        setBody(a, body);
      }
      d.signature = `${header} { ${summaries.join('; ')}; }`;
    }
    if (!arrow && !accessors) d.signature = header;
    return d;
  }

  function visitField(n: TsNode, owner: Decl, isEvent: boolean): Decl[] {
    const { mods, access } = modifiersOf(n);
    const typeDecl = enclosingType(owner);
    const inInterface = typeDecl?.kind === 'interface';
    const isConst = mods.includes('const');
    const varDecl = childOfType(n, 'variable_declaration');
    const typeNode = varDecl?.childForFieldName('type') ?? null;
    if (!isEvent && !(access === 'public' || access === 'protected' || access === 'internal' || inInterface)) {
      // Private fields are not nodes, but their types still count as references of the type.
      if (typeDecl) typeNamesIn(typeNode, typeDecl);
      return [];
    }
    const out: Decl[] = [];
    if (!varDecl) return out;
    const prefix = headerText(n, varDecl.startIndex);
    const typeText = typeNode ? collapseWs(textOf(typeNode)) : '';
    for (let k = 0; k < varDecl.namedChildCount; k++) {
      const v = varDecl.namedChild(k);
      if (v?.type !== 'variable_declarator') continue;
      const name = v.childForFieldName('name')?.text ?? v.namedChild(0)?.text ?? '';
      const kind: NodeKind = isEvent ? 'event' : isConst ? 'constant' : 'field';
      const d = newDecl({
        kind,
        name,
        qualifiedName: qualify(owner.childQualified, name),
        key: memberKey(owner, name, kind, null, 0),
        parent: owner,
        childContainers: owner.childContainers,
        childQualified: qualify(owner.childQualified, name),
        ...span(n),
        typeParams: [],
      });
      setCommon(d, n);
      d.returnType = typeText || null;
      d.signature = collapseWs(`${prefix} ${typeText} ${isConst ? textOf(v) : name}`);
      typeNamesIn(typeNode, d);
      out.push(d);
    }
    return out;
  }

  function visitEvent(n: TsNode, owner: Decl): Decl {
    const name = n.childForFieldName('name')?.text ?? '';
    const typeNode = n.childForFieldName('type');
    const d = newDecl({
      kind: 'event',
      name,
      qualifiedName: qualify(owner.childQualified, name),
      key: memberKey(owner, name, 'event', null, 0),
      parent: owner,
      childContainers: owner.childContainers,
      childQualified: qualify(owner.childQualified, name),
      ...span(n),
      typeParams: [],
    });
    setCommon(d, n);
    d.returnType = typeNode ? collapseWs(textOf(typeNode)) : null;
    const accessors = n.childForFieldName('accessors');
    setBody(d, accessors);
    d.signature = headerText(n, accessors ? accessors.startIndex : n.endIndex);
    typeNamesIn(typeNode, d);
    return d;
  }

  // ---- the walk: one TreeCursor pass, explicit scope stack, no recursion ----

  interface Scope {
    readonly depth: number;
    readonly decl: Decl;
    readonly sticky: boolean;
  }
  const scopes: Scope[] = [{ depth: -1, decl: fileDecl, sticky: true }];
  const typeAt: string[] = [];
  const fieldAt: (string | null)[] = [];
  const cursor = tree.walk();
  let depth = 0;
  let visited = 0;
  let syntaxErrors = 0;
  let hasError = false;
  const current = (): Decl => scopes[scopes.length - 1]!.decl;
  const bodyOwner = (): Decl | null => {
    for (let k = scopes.length - 1; k >= 0; k--) {
      const d = scopes[k]!.decl;
      if (BODY_OWNER_KINDS.has(d.kind) || d.kind === 'field' || d.kind === 'constant' || d.kind === 'event') return d;
      if (TYPE_KIND_SET.has(d.kind)) return d;
      if (d.kind === 'namespace' || d.kind === 'file') return null;
    }
    return null;
  };
  const callableOwner = (): Decl | null => {
    const d = current();
    return BODY_OWNER_KINDS.has(d.kind) ? d : null;
  };
  const popScopes = (d: number): void => {
    while (scopes.length > 1) {
      const top = scopes[scopes.length - 1]!;
      if (top.sticky || top.depth < d) break;
      scopes.pop();
    }
  };

  /** Returns false when the walker must not descend into the current node. */
  const visit = (): boolean => {
    if ((++visited & 2047) === 0 && performance.now() > deadline) throw new DeadlineExceeded();
    const type = cursor.nodeType;
    typeAt[depth] = type;
    fieldAt[depth] = cursor.currentFieldName;
    if (type === 'ERROR' || cursor.nodeIsMissing) {
      hasError = true;
      if (syntaxErrors++ < MAX_SYNTAX_DIAGNOSTICS) {
        diagnostics.push({
          severity: 'error',
          code: 'syntax_error',
          message: type === 'ERROR' ? 'syntax error' : `missing ${type}`,
          line: cursor.startPosition.row + 1,
        });
      }
      return type === 'ERROR';
    }
    if (type === 'comment') return false;
    if (type === 'identifier') {
      visitIdentifier();
      return false;
    }
    if (type === 'using_directive') {
      const n = cursor.currentNode;
      const target = n.namedChild(n.namedChildCount - 1);
      if (target) imports.push({ name: collapseWs(textOf(target)).replace(/^global::/, ''), row: n.startPosition.row });
      return false;
    }
    if (SKIP_SUBTREES.has(type)) return false;
    if (type === 'namespace_declaration' || type === 'file_scoped_namespace_declaration') {
      const fileScoped = type === 'file_scoped_namespace_declaration';
      const d = visitNamespace(cursor.currentNode, current(), fileScoped);
      scopes.push({ depth, decl: d, sticky: fileScoped });
      return true;
    }
    const typeKind = TYPE_DECLS[type];
    if (typeKind) {
      const d = visitType(cursor.currentNode, current(), typeKind);
      scopes.push({ depth, decl: d, sticky: false });
      return true;
    }
    if (MEMBER_DECLS.has(type)) {
      const n = cursor.currentNode;
      const owner = current();
      let d: Decl | null = null;
      if (type === 'property_declaration') d = visitProperty(n, owner, false);
      else if (type === 'indexer_declaration') d = visitProperty(n, owner, true);
      else if (type === 'event_declaration') d = visitEvent(n, owner);
      else if (type === 'field_declaration' || type === 'event_field_declaration') {
        const ds = visitField(n, owner, type === 'event_field_declaration');
        d = ds[0] ?? null;
      } else d = visitCallable(n, owner);
      if (d) scopes.push({ depth, decl: d, sticky: false });
      return true;
    }
    if (type === 'accessor_declaration') {
      // Enter the accessor node created by visitProperty (same start offset), if any.
      const prop = current();
      const start = cursor.startIndex;
      const acc = prop.children.find((c) => (c.kind === 'getter' || c.kind === 'setter') && c.start === start);
      if (acc) scopes.push({ depth, decl: acc, sticky: false });
      return true;
    }
    if (type === 'invocation_expression') {
      visitInvocation(cursor.currentNode);
      return true;
    }
    if (type === 'object_creation_expression') {
      visitCreation(cursor.currentNode);
      return true;
    }
    if (type === 'qualified_name') {
      const owner = bodyOwner();
      const parentType = typeAt[depth - 1];
      if (owner && parentType !== 'object_creation_expression' && fieldAt[depth] !== 'name') {
        const full = collapseWs(cursor.nodeText).replace(/<[\s\S]*$/, '');
        const member = full.slice(full.lastIndexOf('.') + 1);
        refs.push({ owner, name: full, member, receiver: 'none', receiverName: null, typeRef: false, row: cursor.startPosition.row });
      }
      return false;
    }
    return true;
  };

  function visitIdentifier(): void {
    const parentType = typeAt[depth - 1] ?? '';
    const field = fieldAt[depth];
    const name = cursor.nodeText;
    if (field === 'name' && LOCAL_DECLARERS.has(parentType)) {
      const callable = callableOwner() ?? nearestCallable();
      callable?.locals.add(name);
      return;
    }
    if (parentType === 'single_variable_designation' || parentType === 'parenthesized_variable_designation' || parentType === 'implicit_parameter') {
      nearestCallable()?.locals.add(name);
      return;
    }
    if (parentType === 'lambda_expression' && field === 'parameters') {
      nearestCallable()?.locals.add(name);
      return;
    }
    const owner = bodyOwner();
    if (!owner) return;
    const row = cursor.startPosition.row;
    if (parentType === 'member_access_expression') {
      if (field !== 'name') {
        refs.push({ owner, name, member: name, receiver: 'none', receiverName: null, typeRef: false, row });
        return;
      }
      // The member name: skip when the access is itself being invoked (a call site).
      if (typeAt[depth - 2] === 'invocation_expression' && fieldAt[depth - 1] === 'function') return;
      const n = cursor.currentNode;
      const recv = receiverOf(n.parent?.childForFieldName('expression') ?? null);
      const shown = recv.receiver === 'other' && recv.receiverName ? `${recv.receiverName}.${name}` : name;
      refs.push({ owner, name: shown, member: name, receiver: recv.receiver, receiverName: recv.receiverName, typeRef: false, row });
      return;
    }
    if (field === 'name' || field === 'function' || parentType === 'member_binding_expression') return;
    if (parentType === 'object_creation_expression' && field === 'type') return;
    if (parentType === 'generic_name') {
      const gpType = typeAt[depth - 2];
      const gpField = fieldAt[depth - 1];
      if (gpField === 'function' || (gpType === 'member_access_expression' && gpField === 'name')) return;
      if (gpType === 'object_creation_expression' && gpField === 'type') return;
    }
    if (parentType === 'argument' && field === 'name') return;
    if (parentType === 'name_colon' || parentType === 'name_equals' || parentType === 'labeled_statement') return;
    refs.push({ owner, name, member: name, receiver: 'none', receiverName: null, typeRef: false, row });
  }

  function nearestCallable(): Decl | null {
    for (let k = scopes.length - 1; k >= 0; k--) {
      const d = scopes[k]!.decl;
      if (BODY_OWNER_KINDS.has(d.kind)) return d;
      if (TYPE_KIND_SET.has(d.kind)) return null;
    }
    return null;
  }

  function receiverOf(expr: TsNode | null): { receiver: CallSite['receiver']; receiverName: string | null } {
    if (!expr) return { receiver: 'none', receiverName: null };
    if (expr.type === 'this' || expr.type === 'this_expression') return { receiver: 'this', receiverName: null };
    if (expr.type === 'base' || expr.type === 'base_expression') return { receiver: 'base', receiverName: null };
    const t = collapseWs(textOf(expr));
    if (/^[A-Za-z_@][\w@]*(?:\s*\.\s*[A-Za-z_@][\w@]*)*$/.test(t)) return { receiver: 'other', receiverName: t.replace(/\s+/g, '') };
    if (expr.type === 'generic_name') return { receiver: 'other', receiverName: simpleTypeName(expr) };
    return { receiver: 'other', receiverName: null };
  }

  function visitInvocation(n: TsNode): void {
    const owner = bodyOwner();
    if (!owner) return;
    const fn = n.childForFieldName('function');
    const args = n.childForFieldName('arguments');
    const argCount = args ? args.namedChildren.filter((c) => c?.type === 'argument').length : 0;
    if (!fn) return;
    let member: string | null = null;
    let typeArgCount = 0;
    let recv: { receiver: CallSite['receiver']; receiverName: string | null } = { receiver: 'none', receiverName: null };
    const nameOf = (x: TsNode | null): string | null => {
      if (!x) return null;
      if (x.type === 'identifier') return x.text;
      if (x.type === 'generic_name') {
        typeArgCount = childOfType(x, 'type_argument_list')?.namedChildCount ?? 0;
        return childOfType(x, 'identifier')?.text ?? null;
      }
      return null;
    };
    if (fn.type === 'identifier' || fn.type === 'generic_name') {
      member = nameOf(fn);
    } else if (fn.type === 'member_access_expression') {
      member = nameOf(fn.childForFieldName('name'));
      recv = receiverOf(fn.childForFieldName('expression'));
    } else if (fn.type === 'conditional_access_expression') {
      const binding = childOfType(fn, 'member_binding_expression');
      member = nameOf(binding?.childForFieldName('name') ?? null);
      recv = receiverOf(fn.childForFieldName('condition'));
    }
    // `nameof(x)` is an operator, not a call.
    if (!member || (member === 'nameof' && recv.receiver === 'none')) return;
    const name = recv.receiver === 'other' && recv.receiverName ? `${recv.receiverName}.${member}` : member;
    calls.push({ owner, name, member, ...recv, argCount, typeArgCount, isNew: false, row: n.startPosition.row });
  }

  function visitCreation(n: TsNode): void {
    const owner = bodyOwner();
    if (!owner) return;
    const t = n.childForFieldName('type');
    if (!t) return;
    const name = simpleTypeName(t);
    const member = name.slice(name.lastIndexOf('.') + 1);
    const args = n.childForFieldName('arguments');
    const argCount = args ? args.namedChildren.filter((c) => c?.type === 'argument').length : 0;
    calls.push({ owner, name, member, receiver: 'none', receiverName: null, argCount, typeArgCount: 0, isNew: true, row: n.startPosition.row });
  }

  try {
    let descend = visit();
    for (;;) {
      if (descend && cursor.gotoFirstChild()) {
        depth++;
        descend = visit();
        continue;
      }
      let done = false;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          done = true;
          break;
        }
        depth--;
        popScopes(depth + 1);
      }
      if (done) break;
      popScopes(depth);
      descend = visit();
    }
  } finally {
    cursor.delete();
  }

  // ---- local resolution ----

  const typesByName = new Map<string, Decl[]>();
  const typesByKey = new Map<string, Decl[]>();
  for (const d of decls) {
    if (!TYPE_KIND_SET.has(d.kind)) continue;
    push(typesByName, d.name, d);
    push(typesByKey, d.symbolKey, d);
  }

  function ownMembersNamed(type: Decl, name: string): Decl[] {
    const out: Decl[] = [];
    // Partial fragments in the same file share a key: their members are one type's members.
    for (const fragment of typesByKey.get(type.symbolKey) ?? [type]) {
      for (const c of fragment.children) if (c.name === name && c.kind !== 'getter' && c.kind !== 'setter') out.push(c);
    }
    return out;
  }

  /** The type followed by its base classes declared in this file (first base entry only). */
  function withSameFileBases(type: Decl): Decl[] {
    const out = [type];
    for (let cur: Decl | undefined = type; cur && out.length < 16; ) {
      const first: { name: string; row: number } | undefined = cur.bases[0];
      const base: Decl | null = first ? sameFileType(first.name) : null;
      if (!base || out.includes(base) || base.kind === 'interface') break;
      out.push(base);
      cur = base;
    }
    return out;
  }

  /** Members by name on the type or, failing that, its same-file base classes. */
  function membersNamed(type: Decl, name: string, skipSelf = false): Decl[] {
    const chain = withSameFileBases(type);
    for (const t of skipSelf ? chain.slice(1) : chain) {
      const found = ownMembersNamed(t, name);
      if (found.length > 0) return found;
    }
    return [];
  }

  function isShadowed(owner: Decl, name: string): boolean {
    for (let cur: Decl | null = owner; cur && !TYPE_KIND_SET.has(cur.kind); cur = cur.parent) {
      if (cur.locals.has(name)) return true;
    }
    return false;
  }

  function chainLookup(owner: Decl, name: string, want: (d: Decl) => boolean, includeLocalFunctions: boolean): Decl[] {
    for (let cur: Decl | null = owner; cur; cur = cur.parent) {
      if (includeLocalFunctions && BODY_OWNER_KINDS.has(cur.kind)) {
        const fns = cur.children.filter((c) => c.kind === 'function' && c.name === name);
        if (fns.length > 0) return fns;
      }
      if (TYPE_KIND_SET.has(cur.kind)) {
        const found = membersNamed(cur, name).filter(want);
        if (found.length > 0) return found;
      }
    }
    return [];
  }

  function sameFileType(name: string): Decl | null {
    const simple = name.slice(name.lastIndexOf('.') + 1);
    const found = typesByName.get(simple);
    return found?.[0] ?? null;
  }

  const isCallable = (d: Decl): boolean => d.kind === 'method' || d.kind === 'function';
  const isValueMember = (d: Decl): boolean => VALUE_MEMBER_KINDS.has(d.kind);

  function pickOverload(cands: Decl[], argCount: number, typeArgCount: number): Decl | null {
    if (cands.length === 0) return null;
    const byArity = cands.filter((c) => (typeArgCount > 0 ? c.typeParams.length === typeArgCount : true));
    const pool = byArity.length > 0 ? byArity : cands;
    return pool.find((c) => c.parameterCount === argCount) ?? pool[0]!;
  }

  const seen = new Set<string>();
  function addEdge(source: Decl, type: EdgeType, target: EdgeTarget, row: number, confidence: ExtractedEdge['confidence'] = 'approximate'): void {
    const sig = `${source.localId}|${type}|${target.key}|${target.name}|${row}`;
    if (seen.has(sig)) return;
    seen.add(sig);
    edges.push({ sourceLocalId: source.localId, type, confidence, target, line: row + 1 });
  }
  const targetOf = (name: string, resolved: Decl | null): EdgeTarget =>
    resolved ? { key: resolved.symbolKey, name, localId: resolved.localId } : { key: unresolvedKey(name), name };

  // Disambiguators first: edge keys must match node keys.
  const disamb = disambiguate(decls);

  for (const d of decls) {
    if (d.parent) {
      addEdge(d.parent, 'contains', { key: d.symbolKey, name: d.name, localId: d.localId }, d.startRow, 'exact');
    }
  }
  for (const imp of imports) {
    const parts = imp.name.split('.');
    const key = symbolKey({
      language: 'cs',
      scope: { kind: 'global' },
      containers: parts.slice(0, -1),
      name: parts[parts.length - 1] ?? '',
      kind: 'namespace',
    });
    addEdge(fileDecl, 'imports', { key, name: imp.name }, imp.row, 'exact');
  }
  for (const d of decls) {
    if (d.bases.length === 0) continue;
    d.bases.forEach((b, i) => {
      const resolved = sameFileType(b.name);
      const target = resolved && resolved !== d ? resolved : null;
      let type: EdgeType;
      if (d.kind === 'interface') type = 'inherits';
      else if (d.kind === 'struct' || (d.kind === 'record' && d.recordStruct)) type = 'implements';
      else if (i > 0) type = 'implements';
      else if (target) type = target.kind === 'interface' ? 'implements' : 'inherits';
      else type = looksLikeInterface(b.name) ? 'implements' : 'inherits';
      addEdge(d, type, targetOf(b.name, target), b.row);
    });
  }
  for (const e of extendsSites) {
    addEdge(e.owner, 'extends', targetOf(e.name, sameFileType(e.name)), e.row);
  }
  for (const c of calls) {
    let resolved: Decl | null = null;
    if (c.isNew) {
      resolved = sameFileType(c.member);
    } else if (c.receiver === 'none' || c.receiver === 'this') {
      resolved = pickOverload(chainLookup(c.owner, c.member, isCallable, c.receiver === 'none'), c.argCount, c.typeArgCount);
    } else if (c.receiver === 'base') {
      const type = enclosingType(c.owner);
      if (type) resolved = pickOverload(membersNamed(type, c.member, true).filter(isCallable), c.argCount, c.typeArgCount);
    } else if (c.receiver === 'other' && c.receiverName) {
      const recvType = sameFileType(c.receiverName);
      const firstSegment = c.receiverName.split('.')[0]!;
      if (recvType && !isShadowed(c.owner, firstSegment) && chainLookup(c.owner, firstSegment, isValueMember, false).length === 0) {
        resolved = pickOverload(membersNamed(recvType, c.member).filter(isCallable), c.argCount, c.typeArgCount);
      }
    }
    addEdge(c.owner, 'calls', targetOf(c.name, resolved), c.row);
  }
  for (const r of refs) {
    let resolved: Decl | null = null;
    if (r.typeRef) {
      resolved = sameFileType(r.name);
      addEdge(r.owner, 'references', targetOf(r.name, resolved), r.row);
      continue;
    }
    if (r.receiver === 'none') {
      if (isTypeParam(r.owner, r.member)) continue;
      if (!isShadowed(r.owner, r.member)) resolved = chainLookup(r.owner, r.member, isValueMember, false)[0] ?? null;
      if (!resolved && !isShadowed(r.owner, r.member)) resolved = sameFileType(r.name);
    } else if (r.receiver === 'this') {
      resolved = chainLookup(r.owner, r.member, isValueMember, false)[0] ?? null;
    } else if (r.receiver === 'other' && r.receiverName) {
      const recvType = sameFileType(r.receiverName);
      const firstSegment = r.receiverName.split('.')[0]!;
      if (recvType && !isShadowed(r.owner, firstSegment) && chainLookup(r.owner, firstSegment, isValueMember, false).length === 0) {
        resolved = membersNamed(recvType, r.member).filter(isValueMember)[0] ?? null;
      }
    }
    if (resolved && resolved !== r.owner) addEdge(r.owner, 'references', targetOf(r.name, resolved), r.row);
  }

  // ---- nodes with chunks ----

  const byteAt = utf8Offsets(original);
  const nodes: ExtractedNode[] = decls.map((d, i) => ({
    localId: d.localId,
    kind: d.kind,
    name: d.name,
    qualifiedName: d.qualifiedName,
    symbolKey: d.symbolKey,
    disambiguator: disamb[i]!,
    parentLocalId: d.parent?.localId ?? null,
    span: {
      startLine: d.startRow + 1,
      endLine: Math.max(d.startRow, d.endRow) + 1,
      startByte: byteAt(d.start),
      endByte: byteAt(d.end),
    },
    signature: d.signature,
    parameterCount: d.parameterCount,
    returnType: d.returnType,
    modifiers: d.modifiers,
    isPublicApi: d.isPublicApi,
    doc: d.doc,
    chunkText: chunkOf(d, original),
    ...(d.attributes.length > 0 ? { attributes: d.attributes } : {}),
  }));

  const exportsList = decls
    .filter((d) => TYPE_KIND_SET.has(d.kind) && !(d.parent && TYPE_KIND_SET.has(d.parent.kind)))
    .map((d) => d.qualifiedName);
  return { nodes, edges, diagnostics, exports: [...new Set(exportsList)], hasError: hasError || tree.rootNode.hasError };
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** `IPaymentGateway` → true; `Item`, `I`, `Io` → false. */
export function looksLikeInterface(name: string): boolean {
  const simple = name.slice(name.lastIndexOf('.') + 1);
  return /^I[A-Z]/.test(simple);
}

/**
 * The chunk text of a declaration: its source where each nearest descendant declaration that
 * has a body is collapsed to its header plus `{ /* N lines collapsed *\/ }`, N being the
 * lines from the body's first line (`{` or `=>`) to the member's last line. Declarations
 * without a body (namespaces, properties with accessors) are transparent: their own
 * descendants are collapsed instead. The declaration's own body is never collapsed.
 */
function chunkOf(d: Decl, source: string): string {
  let out = '';
  let pos = d.start;
  const stack: Decl[] = [...d.children].reverse();
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c.start < pos) continue;
    if (c.bodyStart !== null) {
      const header = source.slice(pos, c.bodyStart).replace(/\s+$/, '');
      const lines = Math.max(c.startRow, c.endRow) - c.bodyStartRow + 1;
      out += `${header} { /* ${lines} lines collapsed */ }`;
      pos = c.end;
    } else {
      for (let k = c.children.length - 1; k >= 0; k--) stack.push(c.children[k]!);
    }
  }
  return out + source.slice(pos, d.end);
}
