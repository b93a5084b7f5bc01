/**
 * The walk: one iterative TreeCursor pass over a tree-sitter tree (no recursion, no explicit
 * leave handling). Walk state lives in arrays indexed by tree depth — declaration mode,
 * enclosing symbol and class, node type, wrapper context, last comment, pending decorators —
 * so a node's parent facts are read there instead of through the node API.
 *
 * Each node is visited in two stages, each dispatched through a table of node kinds: first the
 * declaration stage (only where the parent's mode allows declarations: file, namespace, class
 * and interface bodies), then the use-site stage (everywhere). Declarations are built by the
 * {@link DeclarationBuilder}; imports and exports go to the module handlers; use sites are
 * collected into {@link FileFacts} for resolution after the walk.
 */
import type { Node as TsNode, Tree, TreeCursor } from 'web-tree-sitter';
import { commonJsDefinitions, type CommonJsDefinition } from '../commonjs.js';
import { collapseWhitespace } from '../text.js';
import type { CommentAt, DeclarationBuilder, PendingDecorators } from './declarations.js';
import {
  DeadlineExceeded,
  FUNCTION_VALUES,
  MODE_CLASS,
  MODE_CODE,
  MODE_DECL,
  MODE_IFACE,
  UseKind,
  type DeclCtx,
  type FileFacts,
} from './model.js';
import { commonJsExport, exportWithoutDeclaration, importStatement, requireCall } from './modules.js';
import { isHttpCallee } from './http.js';
import { calleeName, sigStartOf, stripQuotes } from './syntax.js';

const DEADLINE_CHECK_INTERVAL = 2048;
/** Nodes that open a function body (a `return` inside belongs to the innermost of them). */
const FUNCTION_NODES: ReadonlySet<string> = new Set([...FUNCTION_VALUES, 'function_declaration', 'generator_function_declaration', 'method_definition']);
const JSX_NODES: ReadonlySet<string> = new Set(['jsx_element', 'jsx_self_closing_element', 'jsx_fragment']);
const JSX_RETURN_WRAPPERS: ReadonlySet<string> = new Set(['parenthesized_expression', 'ternary_expression', 'binary_expression']);
/** Field names under which an identifier declares rather than uses a name. */
const DECLARING_FIELDS: ReadonlySet<string> = new Set(['name', 'pattern', 'parameter', 'label', 'alias']);
/** Parents whose `name` field is a use, not a declaration. */
const NAME_FIELD_USE_PARENTS: ReadonlySet<string> = new Set(['generic_type', 'nested_type_identifier', 'jsx_opening_element', 'jsx_closing_element', 'jsx_self_closing_element']);
/** Top-level statements a barrel file (`index.*` re-exporting only) may hold. */
const BARREL_STATEMENTS: ReadonlySet<string> = new Set(['comment', 'import_statement', 'export_statement', 'empty_statement']);

/** A node kind's handler for one stage: reads the cursor, updates the walker's current frame. */
type Handler = (w: TsFileWalker) => void;

/** Declaration-stage handlers, run where the parent's mode allows declarations. */
const DECLARATIONS: ReadonlyMap<string, Handler> = (() => {
  const m = new Map<string, Handler>();
  m.set('import_statement', (w) => w.onImport());
  m.set('export_statement', (w) => w.onExport());
  m.set('ambient_declaration', (w) => w.onAmbient());
  // `namespace X {}` parses as an expression statement.
  m.set('expression_statement', (w) => w.setMode(MODE_DECL));
  m.set('assignment_expression', (w) => w.onCommonJsAssignment());
  m.set('lexical_declaration', (w) => w.onVariableStatement());
  m.set('variable_declaration', (w) => w.onVariableStatement());
  m.set('variable_declarator', (w) => w.onVariableDeclarator());
  m.set('class', (w) => w.onClassExpression());
  m.set('class_declaration', (w) => w.onClass());
  m.set('abstract_class_declaration', (w) => w.onClass());
  m.set('class_body', (w) => w.inheritMode(MODE_CLASS));
  m.set('statement_block', (w) => w.onStatementBlock());
  m.set('interface_declaration', (w) => w.onInterface());
  m.set('interface_body', (w) => w.inheritMode(MODE_IFACE));
  m.set('object_type', (w) => w.inheritMode(MODE_IFACE));
  for (const type of ['enum_declaration', 'type_alias_declaration', 'internal_module', 'module', 'function_declaration', 'generator_function_declaration', 'function_signature']) {
    m.set(type, (w) => w.onDeclaration());
  }
  // Function values declare only as the default export (`export default () => …`).
  for (const type of ['function_expression', 'arrow_function', 'call_expression']) m.set(type, (w) => w.onDefaultValue());
  m.set('decorator', (w) => w.onDecorator());
  for (const type of ['method_definition', 'method_signature', 'abstract_method_signature', 'public_field_definition', 'field_definition', 'property_signature']) {
    m.set(type, (w) => w.onClassMember());
  }
  return m;
})();

/** Use-site-stage handlers, run at every node the walk descends into. */
const USES: ReadonlyMap<string, Handler> = (() => {
  const m = new Map<string, Handler>();
  m.set('call_expression', (w) => w.onCall('function'));
  m.set('new_expression', (w) => w.onCall('constructor'));
  m.set('jsx_opening_element', (w) => w.onJsxTag());
  m.set('jsx_self_closing_element', (w) => w.onJsxTag());
  m.set('jsx_closing_element', (w) => w.onJsxTag());
  m.set('identifier', (w) => w.onIdentifier());
  m.set('type_identifier', (w) => w.onIdentifier());
  m.set('shorthand_property_identifier', (w) => w.onIdentifier());
  m.set('nested_type_identifier', (w) => w.onNestedType());
  m.set('member_expression', (w) => w.onThisMember());
  m.set('assignment_expression', (w) => w.onExportAssignment());
  return m;
})();

/**
 * One file's walk. The fields named like the frame of a visit (`type`, `parentMode`, `mode`,
 * `sym`, `cls`, `ctx`, `descend`) describe the node at the cursor while its handlers run; the
 * `…At` arrays hold the same facts for its ancestors.
 */
export class TsFileWalker {
  private readonly cursor: TreeCursor;
  private readonly hasErrors: boolean;
  private depth = 0;
  private visited = 0;
  private readonly modeAt: number[] = [MODE_DECL];
  private readonly symAt: number[] = [0];
  private readonly classAt: number[] = [-1];
  private readonly typeAt: string[] = ['program'];
  private readonly ctxAt: (DeclCtx | null)[] = [null];
  private readonly decoratorAt: (PendingDecorators | null)[] = [null];
  /** Node id of a class expression already registered by its variable declarator or assignment. */
  private pendingClassExpr = -1;
  /** CommonJS definitions met at their assignment, created when the walk reaches their member node. */
  private readonly pendingCommonJs = new Map<number, CommonJsDefinition>();
  // The current visit's frame.
  private type = '';
  private parentMode = MODE_DECL;
  private mode = MODE_CODE;
  private sym = 0;
  private cls = -1;
  private ctx: DeclCtx | null = null;
  private descend = true;

  constructor(
    tree: Tree,
    private readonly facts: FileFacts,
    private readonly build: DeclarationBuilder,
    /** Shared with the builder, which reads the JSDoc candidates from it. */
    private readonly commentAt: CommentAt,
    private readonly deadlineAt: number,
  ) {
    this.cursor = tree.walk();
    this.hasErrors = tree.rootNode.hasError;
  }

  /** Walks the whole tree once; throws {@link DeadlineExceeded} past the deadline. */
  run(): void {
    const cursor = this.cursor;
    try {
      // The root (program) is visited implicitly: start with its children.
      this.depth = cursor.gotoFirstChild() ? 1 : -1;
      while (this.depth > 0) {
        if (++this.visited % DEADLINE_CHECK_INTERVAL === 0 && performance.now() > this.deadlineAt) throw new DeadlineExceeded();
        if (this.visit() && cursor.gotoFirstChild()) {
          this.depth++;
          continue;
        }
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) {
            this.depth = 0;
            break;
          }
          this.depth--;
          if (this.depth === 0) break;
        }
      }
    } finally {
      cursor.delete();
    }
  }

  /** Visits the node at the cursor; returns whether to descend into it. */
  private visit(): boolean {
    const cursor = this.cursor;
    const depth = this.depth;
    const type = cursor.nodeType;
    const parentMode = this.modeAt[depth - 1]!;
    this.type = type;
    this.parentMode = parentMode;
    this.mode = MODE_CODE;
    this.sym = this.symAt[depth - 1]!;
    this.cls = this.classAt[depth - 1]!;
    this.ctx = null;
    this.descend = true;
    this.typeAt[depth] = type;
    this.commentAt[depth + 1] = null;
    this.decoratorAt[depth + 1] = null;

    if (type === 'comment') {
      this.commentAt[depth] = { start: cursor.startIndex, end: cursor.endIndex };
      this.descend = false;
    } else if (this.hasErrors && (type === 'ERROR' || cursor.nodeIsMissing)) {
      this.facts.syntaxErrors++;
      if (this.facts.firstErrorLine === 0) this.facts.firstErrorLine = cursor.startPosition.row + 1;
      this.mode = parentMode === MODE_CODE ? MODE_CODE : MODE_DECL;
    }
    if (depth === 1 && !BARREL_STATEMENTS.has(type)) this.facts.barrel = false;

    if (this.descend && parentMode !== MODE_CODE && type !== 'ERROR') DECLARATIONS.get(type)?.(this);
    if (this.descend && this.pendingCommonJs.size > 0) this.onCommonJsMember();
    if (this.descend) {
      USES.get(type)?.(this);
      if (JSX_NODES.has(type)) this.onJsx();
    }

    this.modeAt[depth] = this.mode;
    this.symAt[depth] = this.sym;
    this.classAt[depth] = this.cls;
    this.ctxAt[depth] = this.ctx;
    return this.descend;
  }

  // --- declaration stage ---

  /** Sets the mode of the current node's children. */
  setMode(mode: number): void {
    this.mode = mode;
  }

  /** Keeps a body's mode when its parent has it (class body in a class, object type in an interface). */
  inheritMode(mode: number): void {
    if (this.parentMode === mode) this.mode = mode;
  }

  onImport(): void {
    importStatement(this.facts, this.cursor.currentNode);
    this.descend = false;
  }

  onExport(): void {
    const node = this.cursor.currentNode;
    const facts = this.facts;
    facts.sawExport = true;
    const decl = node.childForFieldName('declaration');
    const value = node.childForFieldName('value');
    if (decl === null && value === null) {
      exportWithoutDeclaration(facts, node);
      this.descend = false;
      return;
    }
    if (this.depth === 1) facts.barrel = false;
    const isDefault = node.children.some((c) => c?.type === 'default');
    if (isDefault) facts.addExport('default');
    if (value !== null && value.type === 'identifier') facts.exportedLocals.push(facts.text.slice(value.startIndex, value.endIndex));
    this.ctx = {
      exported: true,
      isDefault,
      declare: false,
      spanStart: node.startIndex,
      spanRow: node.startPosition.row,
      anchorStart: node.startIndex,
      anchorDepth: this.depth,
      sigStart: sigStartOf(node),
      decorators: node.children
        .filter((c) => c?.type === 'decorator')
        .map((c) => collapseWhitespace(facts.text.slice(c!.startIndex + 1, c!.endIndex))),
    };
    this.mode = MODE_DECL;
  }

  onAmbient(): void {
    const cursor = this.cursor;
    const parentCtx = this.parentCtx();
    this.ctx = {
      exported: parentCtx?.exported ?? false,
      isDefault: false,
      declare: true,
      spanStart: parentCtx?.spanStart ?? cursor.startIndex,
      spanRow: parentCtx?.spanRow ?? cursor.startPosition.row,
      anchorStart: parentCtx?.anchorStart ?? cursor.startIndex,
      anchorDepth: parentCtx?.anchorDepth ?? this.depth,
      sigStart: parentCtx?.sigStart ?? cursor.startIndex,
    };
    this.mode = MODE_DECL;
  }

  /** CommonJS exports that define a function or class in place (commonjs.ts), at a top-level statement. */
  onCommonJsAssignment(): void {
    if (this.depth !== 2 || this.typeAt[1] !== 'expression_statement') return;
    const node = this.cursor.currentNode;
    for (const d of commonJsDefinitions(node, node.parent!, this.facts.text)) {
      if (d.at.id !== node.parent!.id) this.pendingCommonJs.set(d.at.id, d);
      else if (d.kind === 'function') this.sym = this.build.commonJsFunction(d, this.sym, 1);
      else {
        this.sym = this.build.commonJsClass(d, this.depth, this.symAt[this.depth - 1]!);
        this.cls = this.sym;
        this.mode = MODE_DECL;
        this.pendingClassExpr = d.value.id;
      }
    }
  }

  onVariableStatement(): void {
    const node = this.cursor.currentNode;
    const parentCtx = this.parentCtx();
    let declarators = 0;
    let kind: 'const' | 'let' | 'var' = 'var';
    for (const c of node.children) {
      if (c?.type === 'variable_declarator') declarators++;
      else if (c?.type === 'const' || c?.type === 'let' || c?.type === 'var') kind = c.type;
    }
    this.ctx = {
      exported: parentCtx?.exported ?? false,
      isDefault: false,
      declare: parentCtx?.declare ?? false,
      spanStart: parentCtx?.spanStart ?? node.startIndex,
      spanRow: parentCtx?.spanRow ?? node.startPosition.row,
      anchorStart: parentCtx?.anchorStart ?? node.startIndex,
      anchorDepth: parentCtx?.anchorDepth ?? this.depth,
      sigStart: parentCtx?.sigStart ?? node.startIndex,
      varKind: kind,
      singleDeclarator: declarators === 1,
      stmtEnd: node.endIndex,
      stmtEndRow: node.endPosition.row,
    };
    this.mode = MODE_DECL;
  }

  onVariableDeclarator(): void {
    const parentCtx = this.parentCtx();
    if (parentCtx?.varKind === undefined) return;
    const { sym, classExpr } = this.build.variable(this.cursor.currentNode, this.depth, this.sym, parentCtx);
    this.sym = sym;
    if (classExpr >= 0) {
      this.cls = sym;
      // Members are collected when the walk reaches the class expression below.
      this.mode = MODE_DECL;
      this.pendingClassExpr = classExpr;
    }
  }

  /** `class` node: the keyword token, a class expression registered above, or `export default class {}`. */
  onClassExpression(): void {
    const cursor = this.cursor;
    if (!cursor.nodeIsNamed) return; // the `class` keyword token
    if (this.pendingClassExpr === cursor.nodeId) {
      // Class expression already registered by its declarator.
      this.pendingClassExpr = -1;
      this.mode = MODE_CLASS;
      return;
    }
    if (this.parentCtx()?.isDefault) this.onClass();
  }

  onClass(): void {
    this.sym = this.build.classLike(this.cursor.currentNode, this.depth, this.symAt[this.depth - 1]!, this.parentCtx(), null, null);
    this.cls = this.sym;
    this.mode = MODE_CLASS;
  }

  /** The body of `namespace X {}` / `declare module 'x' {}` holds declarations. */
  onStatementBlock(): void {
    const parentType = this.typeAt[this.depth - 1];
    if (parentType === 'internal_module' || parentType === 'module') this.mode = MODE_DECL;
  }

  onInterface(): void {
    this.sym = this.build.interface(this.cursor.currentNode, this.depth, this.sym, this.parentCtx());
    this.mode = MODE_IFACE;
  }

  onDefaultValue(): void {
    if (this.parentCtx()?.isDefault) this.onDeclaration();
  }

  onDeclaration(): void {
    if (this.type === 'module' && !this.cursor.nodeIsNamed) return; // the `module` keyword token
    const sym = this.build.declaration(this.type, this.cursor.currentNode, this.depth, this.sym, this.parentCtx());
    if (sym < 0) return;
    this.sym = sym;
    if (this.type === 'internal_module' || this.type === 'module') this.mode = MODE_DECL;
  }

  /** A decorator before a class member, as a sibling: kept for the member that follows. */
  onDecorator(): void {
    if (this.parentMode !== MODE_CLASS) return;
    const cursor = this.cursor;
    const d = this.decoratorAt[this.depth];
    const name = collapseWhitespace(this.facts.text.slice(cursor.startIndex + 1, cursor.endIndex));
    if (d) d.names.push(name);
    else this.decoratorAt[this.depth] = { start: cursor.startIndex, row: cursor.startPosition.row, names: [name] };
  }

  onClassMember(): void {
    if (this.parentMode !== MODE_CLASS && this.parentMode !== MODE_IFACE) return;
    const depth = this.depth;
    const sym = this.build.member(this.type, this.cursor.currentNode, depth, this.sym, this.parentMode, this.decoratorAt[depth] ?? null);
    if (sym < 0) return;
    this.decoratorAt[depth] = null;
    this.sym = sym;
  }

  /** A CommonJS export member (`module.exports = { f: function … }`) found at its assignment. */
  private onCommonJsMember(): void {
    const d = this.pendingCommonJs.get(this.cursor.nodeId);
    if (d === undefined) return;
    this.pendingCommonJs.delete(this.cursor.nodeId);
    this.sym = this.build.commonJsFunction(d, this.sym, this.depth);
  }

  private parentCtx(): DeclCtx | null {
    return this.ctxAt[this.depth - 1] ?? null;
  }

  // --- use-site stage ---

  /** A call or `new`: a `require`, a `this.x()` call or a call of a name as written. */
  onCall(calleeField: 'function' | 'constructor'): void {
    const facts = this.facts;
    const text = facts.text;
    const node = this.cursor.currentNode;
    const callee = awaitedCallee(node.childForFieldName(calleeField));
    if (callee === null) return;
    if (calleeField === 'function' && callee.type === 'identifier' && text.slice(callee.startIndex, callee.endIndex) === 'require') {
      const arg = node.childForFieldName('arguments')?.namedChildren[0];
      if (arg && arg.type === 'string') {
        requireCall(facts, node, stripQuotes(text.slice(arg.startIndex, arg.endIndex)));
        facts.consumed.add(callee.id);
        return;
      }
    }
    const c = calleeName(callee, text);
    if (c === null || c.name === '') return;
    facts.consumed.add(callee.id);
    if (c.base) facts.consumed.add(c.base.id);
    const line = callee.startPosition.row + 1;
    const src = this.symAt[this.depth - 1]!;
    if (isHttpCallee(c.name)) facts.httpSites.push({ node, callee: c.name, src, line });
    if (c.thisMember !== null) facts.uses.push({ kind: UseKind.ThisCall, src, name: c.thisMember, line, cls: this.classAt[this.depth - 1]! });
    else facts.uses.push({ kind: UseKind.Call, src, name: c.name, line, cls: -1 });
  }

  /** A JSX tag: a component use (`<Button/>`, not `<div>`); closing tags only consume their name. */
  onJsxTag(): void {
    const facts = this.facts;
    const nameNode = this.cursor.currentNode.childForFieldName('name');
    if (nameNode === null) return;
    const c = calleeName(nameNode, facts.text);
    facts.consumed.add(nameNode.id);
    if (c?.base) facts.consumed.add(c.base.id);
    if (this.type === 'jsx_closing_element' || c === null) return;
    if (nameNode.type === 'identifier' && !/^[A-Z$_]/.test(c.name)) return; // intrinsic element (<div>)
    facts.uses.push({ kind: UseKind.Call, src: this.symAt[this.depth - 1]!, name: c.name, line: nameNode.startPosition.row + 1, cls: -1 });
  }

  /** An identifier that uses (not declares) a name and was not consumed by a call or heritage clause. */
  onIdentifier(): void {
    const cursor = this.cursor;
    if (this.facts.consumed.has(cursor.nodeId)) return;
    const parentType = this.typeAt[this.depth - 1]!;
    const field = cursor.currentFieldName;
    if (field !== null && DECLARING_FIELDS.has(field) && !NAME_FIELD_USE_PARENTS.has(parentType)) return;
    if (parentType === 'type_parameter' || parentType === 'import_specifier' || parentType === 'export_specifier') return;
    this.facts.uses.push({ kind: UseKind.Ref, src: this.symAt[this.depth - 1]!, name: this.facts.text.slice(cursor.startIndex, cursor.endIndex), line: cursor.startPosition.row + 1, cls: -1 });
  }

  /** `A.B` in a type: one reference to the dotted name; its parts are no uses of their own. */
  onNestedType(): void {
    const cursor = this.cursor;
    if (!this.facts.consumed.has(cursor.nodeId)) {
      const name = this.facts.text.slice(cursor.startIndex, cursor.endIndex).replace(/\s+/g, '');
      this.facts.uses.push({ kind: UseKind.Ref, src: this.symAt[this.depth - 1]!, name, line: cursor.startPosition.row + 1, cls: -1 });
    }
    this.descend = false;
  }

  /** `this.x` (not called): a reference to the enclosing class's member. */
  onThisMember(): void {
    if (this.facts.consumed.has(this.cursor.nodeId)) return;
    const node = this.cursor.currentNode;
    const obj = node.childForFieldName('object');
    const prop = node.childForFieldName('property');
    if (obj?.type === 'this' && prop !== null) {
      const name = this.facts.text.slice(prop.startIndex, prop.endIndex);
      this.facts.uses.push({ kind: UseKind.ThisRef, src: this.symAt[this.depth - 1]!, name, line: prop.startPosition.row + 1, cls: this.classAt[this.depth - 1]! });
    }
  }

  onExportAssignment(): void {
    if (this.depth <= 3) commonJsExport(this.facts, this.cursor.currentNode);
  }

  /**
   * A JSX element in return position (possibly parenthesised / conditional) marks the innermost
   * enclosing symbol as returning JSX.
   */
  private onJsx(): void {
    const typeAt = this.typeAt;
    let d = this.depth - 1;
    while (d > 0 && JSX_RETURN_WRAPPERS.has(typeAt[d]!)) d--;
    const t = typeAt[d];
    const sym = this.symAt[this.depth - 1]!;
    if ((t === 'return_statement' || t === 'arrow_function') && this.ownFunctionAt(sym, d, t === 'arrow_function')) {
      this.facts.syms[sym]!.returnsJsx = true;
    }
  }

  /**
   * Whether the return at depth `d` (or the expression-bodied arrow there, `arrow`) belongs to
   * symbol `sym`'s own function, not to a function nested in it that is no symbol (an
   * object-literal member, a callback): `createAction = () => ({ Panel: () => <Button/> })`
   * returns an object, not JSX.
   */
  private ownFunctionAt(sym: number, d: number, arrow: boolean): boolean {
    let k = d - 1;
    while (k > 0 && this.symAt[k - 1] === sym) k--;
    let functions = 0;
    for (let j = k; j <= (arrow ? d : d - 1); j++) if (FUNCTION_NODES.has(this.typeAt[j]!)) functions++;
    return functions <= 1;
  }
}

/**
 * The callee of a call, past the `await` tree-sitter-typescript puts around it: `await f<T>(x)`
 * (a call with type arguments) parses as a call of `(await f)` with the type arguments, where
 * TypeScript awaits the call of `f`. Without the unwrap such calls get no `calls` or
 * `http_calls` edge.
 */
function awaitedCallee(callee: TsNode | null): TsNode | null {
  if (callee?.type !== 'await_expression') return callee;
  return callee.namedChildren.find((c): c is TsNode => c !== null && c.type !== 'comment') ?? null;
}
