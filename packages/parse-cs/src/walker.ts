import type { Diagnostic, NodeKind } from '@ca/schema';
import type { Node as TsNode, Tree, TreeCursor } from 'web-tree-sitter';
import { BODY_OWNER_KINDS, childOfType, TYPE_KIND_SET, type Decl, type Receiver, type Sites } from './decl.js';
import { simpleTypeName, type DeclarationBuilder } from './declarations.js';
import type { ConfigReadCollector } from './configReads.js';
import type { EndpointCollector } from './endpoints/collector.js';
import { collapseWs } from './text.js';

/** Thrown by the walker when the per-file deadline passes. */
export class DeadlineExceeded extends Error {}

const MAX_SYNTAX_DIAGNOSTICS = 20;

const TYPE_DECLS: Readonly<Record<string, NodeKind>> = {
  class_declaration: 'class',
  struct_declaration: 'struct',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'record',
  record_struct_declaration: 'record',
  delegate_declaration: 'delegate',
};

const MEMBER_DECLS: readonly string[] = [
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
];

/** Subtrees whose identifiers are never use sites (or are handled by the declaration). */
const SKIP_SUBTREES: readonly string[] = [
  'using_directive',
  'attribute_list',
  'base_list',
  'type_parameter_constraints_clause',
  'type_parameter_list',
  'explicit_interface_specifier',
  'alias_qualified_name',
  'preproc_if',
  'preproc_region',
];

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

interface Scope {
  readonly depth: number;
  readonly decl: Decl;
  readonly sticky: boolean;
}

/** A node kind's handler: runs at the cursor's node, returns whether to descend into it. */
type Handler = (w: CsFileWalker) => boolean;

/** The handler of each node type the walk acts on; any other node is descended into. */
const HANDLERS: ReadonlyMap<string, Handler> = (() => {
  const m = new Map<string, Handler>();
  for (const type of SKIP_SUBTREES) m.set(type, () => false);
  m.set('comment', () => false);
  m.set('identifier', (w) => w.onIdentifier());
  m.set('using_directive', (w) => w.onUsing());
  m.set('namespace_declaration', (w) => w.onNamespace(false));
  m.set('file_scoped_namespace_declaration', (w) => w.onNamespace(true));
  for (const [type, kind] of Object.entries(TYPE_DECLS)) m.set(type, (w) => w.onType(kind));
  for (const type of MEMBER_DECLS) m.set(type, (w) => w.onMember());
  m.set('accessor_declaration', (w) => w.onAccessor());
  m.set('invocation_expression', (w) => w.onInvocation());
  m.set('element_access_expression', (w) => w.onElementAccess());
  m.set('generic_name', (w) => w.onGenericName());
  m.set('object_creation_expression', (w) => w.onCreation());
  m.set('qualified_name', (w) => w.onQualifiedName());
  m.set('local_declaration_statement', (w) => w.onLocalsOrParameter(false));
  m.set('parameter', (w) => w.onLocalsOrParameter(true));
  m.set('implicit_parameter', (w) => w.onLocalsOrParameter(true));
  return m;
})();

/**
 * One TreeCursor pass over a C# parse tree, no recursion: an explicit scope stack of the
 * declarations the cursor is inside, the node type and field name at each depth (parents are
 * looked up there instead of through the node API). Declarations are built by the
 * {@link DeclarationBuilder}; use sites (names, calls, creations) are collected into `sites`
 * for the resolver. Syntax errors become diagnostics (the first {@link MAX_SYNTAX_DIAGNOSTICS}).
 */
export class CsFileWalker {
  readonly diagnostics: Diagnostic[] = [];
  hasError = false;
  private readonly scopes: Scope[];
  private readonly typeAt: string[] = [];
  private readonly fieldAt: (string | null)[] = [];
  private readonly cursor: TreeCursor;
  private depth = 0;
  private visited = 0;
  private syntaxErrors = 0;

  constructor(
    tree: Tree,
    fileDecl: Decl,
    private readonly text: string,
    private readonly deadline: number,
    private readonly build: DeclarationBuilder,
    private readonly sites: Sites,
    private readonly endpoints: EndpointCollector,
    private readonly config: ConfigReadCollector,
  ) {
    this.scopes = [{ depth: -1, decl: fileDecl, sticky: true }];
    this.cursor = tree.walk();
  }

  /** Walks the whole tree (once); throws {@link DeadlineExceeded} past the deadline. */
  run(): void {
    const cursor = this.cursor;
    try {
      let descend = this.visit();
      for (;;) {
        if (descend && cursor.gotoFirstChild()) {
          this.depth++;
          descend = this.visit();
          continue;
        }
        let done = false;
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) {
            done = true;
            break;
          }
          this.depth--;
          this.popScopes(this.depth + 1);
        }
        if (done) break;
        this.popScopes(this.depth);
        descend = this.visit();
      }
    } finally {
      cursor.delete();
    }
  }

  private current(): Decl {
    return this.scopes[this.scopes.length - 1]!.decl;
  }

  /** The declaration owning use sites here: a member or a type, null at namespace level. */
  private bodyOwner(): Decl | null {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const d = this.scopes[k]!.decl;
      if (BODY_OWNER_KINDS.has(d.kind) || d.kind === 'field' || d.kind === 'constant' || d.kind === 'event') return d;
      if (TYPE_KIND_SET.has(d.kind)) return d;
      if (d.kind === 'namespace' || d.kind === 'file') return null;
    }
    return null;
  }

  private callableOwner(): Decl | null {
    const d = this.current();
    return BODY_OWNER_KINDS.has(d.kind) ? d : null;
  }

  private nearestCallable(): Decl | null {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const d = this.scopes[k]!.decl;
      if (BODY_OWNER_KINDS.has(d.kind)) return d;
      if (TYPE_KIND_SET.has(d.kind)) return null;
    }
    return null;
  }

  private popScopes(d: number): void {
    const scopes = this.scopes;
    while (scopes.length > 1) {
      const top = scopes[scopes.length - 1]!;
      if (top.sticky || top.depth < d) break;
      scopes.pop();
    }
  }

  private enter(decl: Decl, sticky = false): void {
    this.scopes.push({ depth: this.depth, decl, sticky });
  }

  /** Returns false when the walker must not descend into the current node. */
  private visit(): boolean {
    if ((++this.visited & 2047) === 0 && performance.now() > this.deadline) throw new DeadlineExceeded();
    const cursor = this.cursor;
    const type = cursor.nodeType;
    this.typeAt[this.depth] = type;
    this.fieldAt[this.depth] = cursor.currentFieldName;
    if (type === 'ERROR' || cursor.nodeIsMissing) return this.onSyntaxError(type);
    const handler = HANDLERS.get(type);
    return handler ? handler(this) : true;
  }

  private onSyntaxError(type: string): boolean {
    this.hasError = true;
    if (this.syntaxErrors++ < MAX_SYNTAX_DIAGNOSTICS) {
      this.diagnostics.push({
        severity: 'error',
        code: 'syntax_error',
        message: type === 'ERROR' ? 'syntax error' : `missing ${type}`,
        line: this.cursor.startPosition.row + 1,
      });
    }
    return type === 'ERROR';
  }

  /** `using X.Y;` → an import of the namespace (or the alias target). */
  onUsing(): boolean {
    const n = this.cursor.currentNode;
    const target = n.namedChild(n.namedChildCount - 1);
    if (target) this.sites.imports.push({ name: collapseWs(this.textOf(target)).replace(/^global::/, ''), row: n.startPosition.row });
    return false;
  }

  /** A block or file-scoped namespace; a file-scoped one stays in scope to the end of the file. */
  onNamespace(fileScoped: boolean): boolean {
    this.enter(this.build.namespace(this.cursor.currentNode, this.current(), fileScoped), fileScoped);
    return true;
  }

  /** A type declaration: built, then the scope of what the walk finds inside it. */
  onType(kind: NodeKind): boolean {
    const n = this.cursor.currentNode;
    const d = this.build.type(n, this.current(), kind);
    this.endpoints.onType(n, d);
    this.enter(d);
    return true;
  }

  /** A member declaration; a field declaration's first declarator owns its initializers' uses. */
  onMember(): boolean {
    const n = this.cursor.currentNode;
    const owner = this.current();
    let d: Decl | null = null;
    switch (n.type) {
      case 'property_declaration':
        d = this.build.property(n, owner, false);
        break;
      case 'indexer_declaration':
        d = this.build.property(n, owner, true);
        break;
      case 'event_declaration':
        d = this.build.event(n, owner);
        break;
      case 'field_declaration':
      case 'event_field_declaration':
        d = this.build.field(n, owner, n.type === 'event_field_declaration')[0] ?? null;
        if (n.type === 'field_declaration') {
          this.endpoints.onField(n, owner);
          this.config.onField(n, owner);
        }
        break;
      default:
        d = this.build.callable(n, owner);
        if (d && n.type === 'method_declaration') this.endpoints.onMethod(n, d);
    }
    if (d) this.enter(d);
    return true;
  }

  /** Enters the accessor node the property's builder created (same start offset), if any. */
  onAccessor(): boolean {
    const start = this.cursor.startIndex;
    const acc = this.current().children.find((c) => (c.kind === 'getter' || c.kind === 'setter') && c.start === start);
    if (acc) this.enter(acc);
    return true;
  }

  /** Locals and parameters: the endpoint rules follow `var g = app.MapGroup(…)` to its value. */
  onLocalsOrParameter(parameter: boolean): boolean {
    if (!this.endpoints.mayMap) return true;
    const n = this.cursor.currentNode;
    if (parameter) this.endpoints.onParameter(n, this.bodyOwner());
    else this.endpoints.onLocals(n, this.bodyOwner());
    return true;
  }

  /** `A.B` outside declarations' names and creations: a reference to the whole name. */
  onQualifiedName(): boolean {
    const owner = this.bodyOwner();
    const parentType = this.typeAt[this.depth - 1];
    if (owner && parentType !== 'object_creation_expression' && this.fieldAt[this.depth] !== 'name') {
      const full = collapseWs(this.cursor.nodeText).replace(/<[\s\S]*$/, '');
      const member = full.slice(full.lastIndexOf('.') + 1);
      this.sites.refs.push({ owner, name: full, member, receiver: 'none', receiverName: null, typeRef: false, row: this.cursor.startPosition.row });
    }
    return false;
  }

  /** An identifier declares a local, is a use site, or is a name a declaration or call handles. */
  onIdentifier(): boolean {
    const parentType = this.typeAt[this.depth - 1] ?? '';
    const field = this.fieldAt[this.depth];
    const name = this.cursor.nodeText;
    if (this.declaresLocal(parentType, field, name)) return false;
    const owner = this.bodyOwner();
    if (!owner) return false;
    const row = this.cursor.startPosition.row;
    if (parentType === 'member_access_expression') {
      this.memberAccessName(owner, field, name, row);
      return false;
    }
    if (!this.isNameOfSomethingElse(parentType, field)) {
      this.sites.refs.push({ owner, name, member: name, receiver: 'none', receiverName: null, typeRef: false, row });
    }
    return false;
  }

  /** Records `name` as a local of the enclosing callable when the identifier declares one. */
  private declaresLocal(parentType: string, field: string | null | undefined, name: string): boolean {
    if (field === 'name' && LOCAL_DECLARERS.has(parentType)) {
      const callable = this.callableOwner() ?? this.nearestCallable();
      callable?.locals.add(name);
      return true;
    }
    if (parentType === 'single_variable_designation' || parentType === 'parenthesized_variable_designation' || parentType === 'implicit_parameter') {
      this.nearestCallable()?.locals.add(name);
      return true;
    }
    if (parentType === 'lambda_expression' && field === 'parameters') {
      this.nearestCallable()?.locals.add(name);
      return true;
    }
    return false;
  }

  /** `x.Name`: the receiver is a plain reference; the member name a reference with its receiver. */
  private memberAccessName(owner: Decl, field: string | null | undefined, name: string, row: number): void {
    if (field !== 'name') {
      this.sites.refs.push({ owner, name, member: name, receiver: 'none', receiverName: null, typeRef: false, row });
      return;
    }
    // The member name: skip when the access is itself being invoked (a call site).
    if (this.typeAt[this.depth - 2] === 'invocation_expression' && this.fieldAt[this.depth - 1] === 'function') return;
    const n = this.cursor.currentNode;
    const recv = this.receiverOf(n.parent?.childForFieldName('expression') ?? null);
    const shown = recv.receiver === 'other' && recv.receiverName ? `${recv.receiverName}.${name}` : name;
    this.sites.refs.push({ owner, name: shown, member: name, receiver: recv.receiver, receiverName: recv.receiverName, typeRef: false, row });
  }

  /** Identifiers that name a declaration, a called function, a created type, an argument … */
  private isNameOfSomethingElse(parentType: string, field: string | null | undefined): boolean {
    if (field === 'name' || field === 'function' || parentType === 'member_binding_expression') return true;
    if (parentType === 'object_creation_expression' && field === 'type') return true;
    if (parentType === 'generic_name') {
      const gpType = this.typeAt[this.depth - 2];
      const gpField = this.fieldAt[this.depth - 1];
      if (gpField === 'function' || (gpType === 'member_access_expression' && gpField === 'name')) return true;
      if (gpType === 'object_creation_expression' && gpField === 'type') return true;
    }
    if (parentType === 'argument' && field === 'name') return true;
    return parentType === 'name_colon' || parentType === 'name_equals' || parentType === 'labeled_statement';
  }

  private receiverOf(expr: TsNode | null): { receiver: Receiver; receiverName: string | null } {
    if (!expr) return { receiver: 'none', receiverName: null };
    if (expr.type === 'this' || expr.type === 'this_expression') return { receiver: 'this', receiverName: null };
    if (expr.type === 'base' || expr.type === 'base_expression') return { receiver: 'base', receiverName: null };
    const t = collapseWs(this.textOf(expr));
    if (/^[A-Za-z_@][\w@]*(?:\s*\.\s*[A-Za-z_@][\w@]*)*$/.test(t)) return { receiver: 'other', receiverName: t.replace(/\s+/g, '') };
    if (expr.type === 'generic_name') return { receiver: 'other', receiverName: simpleTypeName(expr, this.text) };
    return { receiver: 'other', receiverName: null };
  }

  /** `X()`, `X<T>()`, `a.X()`, `a?.X()` → a call site (not `nameof(x)`). */
  onInvocation(): boolean {
    const n = this.cursor.currentNode;
    const owner = this.bodyOwner();
    const fn = n.childForFieldName('function');
    // Minimal APIs are mapped in top-level statements too, where no declaration owns the call.
    if (fn?.type === 'member_access_expression' && this.endpoints.mayMap) this.endpoints.onMapCall(n, owner, fn.childForFieldName('name')?.text ?? '');
    // Configuration is read in top-level statements too (`builder.Configuration["X"]`): the file owns those reads.
    if (fn?.type === 'member_access_expression' && this.config.active) this.config.onInvocation(n, owner);
    if (!owner) return true;
    const args = n.childForFieldName('arguments');
    const argCount = args ? args.namedChildren.filter((c) => c?.type === 'argument').length : 0;
    if (!fn) return true;
    let member: { name: string | null; typeArgCount: number } = { name: null, typeArgCount: 0 };
    let recv: { receiver: Receiver; receiverName: string | null } = { receiver: 'none', receiverName: null };
    if (fn.type === 'identifier' || fn.type === 'generic_name') {
      member = calledName(fn);
    } else if (fn.type === 'member_access_expression') {
      member = calledName(fn.childForFieldName('name'));
      recv = this.receiverOf(fn.childForFieldName('expression'));
    } else if (fn.type === 'conditional_access_expression') {
      const binding = childOfType(fn, 'member_binding_expression');
      member = calledName(binding?.childForFieldName('name') ?? null);
      recv = this.receiverOf(fn.childForFieldName('condition'));
    }
    const m = member.name;
    // `nameof(x)` is an operator, not a call.
    if (!m || (m === 'nameof' && recv.receiver === 'none')) return true;
    const name = recv.receiver === 'other' && recv.receiverName ? `${recv.receiverName}.${m}` : m;
    this.sites.calls.push({ owner, name, member: m, ...recv, argCount, typeArgCount: member.typeArgCount, isNew: false, row: n.startPosition.row });
    return true;
  }

  /** `x["A:B"]`: maybe a configuration read (decided by the collector). */
  onElementAccess(): boolean {
    if (this.config.active) this.config.onElementAccess(this.cursor.currentNode, this.bodyOwner());
    return true;
  }

  /** `IOptions<T>` and other generic names: maybe a use of options bound to configuration. */
  onGenericName(): boolean {
    if (this.config.active) this.config.onGenericName(this.cursor.currentNode, this.bodyOwner());
    return true;
  }

  /** `new X(…)` → a call site of the type. */
  onCreation(): boolean {
    const n = this.cursor.currentNode;
    const owner = this.bodyOwner();
    if (!owner) return true;
    const t = n.childForFieldName('type');
    if (!t) return true;
    const name = simpleTypeName(t, this.text);
    const member = name.slice(name.lastIndexOf('.') + 1);
    const args = n.childForFieldName('arguments');
    const argCount = args ? args.namedChildren.filter((c) => c?.type === 'argument').length : 0;
    this.sites.calls.push({ owner, name, member, receiver: 'none', receiverName: null, argCount, typeArgCount: 0, isNew: true, row: n.startPosition.row });
    return true;
  }

  private textOf(n: TsNode): string {
    return this.text.slice(n.startIndex, n.endIndex);
  }
}

/** The called name of an invocation's function part and its type argument count. */
function calledName(x: TsNode | null): { name: string | null; typeArgCount: number } {
  if (!x) return { name: null, typeArgCount: 0 };
  if (x.type === 'identifier') return { name: x.text, typeArgCount: 0 };
  if (x.type === 'generic_name') {
    return { name: childOfType(x, 'identifier')?.text ?? null, typeArgCount: childOfType(x, 'type_argument_list')?.namedChildCount ?? 0 };
  }
  return { name: null, typeArgCount: 0 };
}
