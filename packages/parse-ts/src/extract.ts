/**
 * The syntactic extractor: one iterative TreeCursor walk over a tree-sitter tree that
 * collects symbols, imports/exports, heritage and raw use sites, followed by a resolution
 * pass that turns use sites into approximate `calls`/`references` edges.
 *
 * Walk state is kept in arrays indexed by tree depth (enclosing symbol, declaration mode,
 * export context, last comment), so no recursion and no explicit leave handling is needed.
 */
import type { Node as TsNode, Tree, TreeCursor } from 'web-tree-sitter';
import { commonJsDefinitions, type CommonJsDefinition } from './commonjs.js';
import {
  disambiguate,
  symbolKey,
  unresolvedKey,
  type Diagnostic,
  type EdgeTarget,
  type ExtractedEdge,
  type ExtractedNode,
  type FileIndex,
  type Language,
  type Modifier,
  type NodeKind,
} from '@ca/schema';
import {
  ByteOffsets,
  cleanJsDoc,
  collapseWhitespace,
  countLines,
  isGeneratedFile,
  onlyWhitespaceBetween,
  resolveModulePath,
} from './text.js';

/** Thrown inside the walk when the per-file deadline passes. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('deadline exceeded');
  }
}

interface Sym {
  readonly idx: number;
  kind: NodeKind;
  readonly name: string;
  readonly containers: readonly string[];
  readonly parent: number;
  readonly children: number[];
  readonly start: number;
  readonly end: number;
  readonly startRow: number;
  readonly endRow: number;
  readonly signature: string;
  /** Collapsible body `{…}` as string indices, -1 when none. */
  readonly bodyStart: number;
  readonly bodyEnd: number;
  readonly bodyLines: number;
  readonly parameterTypes: (string | null)[] | null;
  readonly returnType: string | null;
  readonly modifiers: Set<Modifier>;
  readonly doc: string | null;
  readonly attributes: string[];
  /** Function-like declarations may become components. */
  readonly functionLike: boolean;
  returnsJsx: boolean;
  componentHint: boolean;
  exported: boolean;
}

/** Export / ambient / variable-statement context handed from a wrapper node to its declaration. */
interface DeclCtx {
  readonly exported: boolean;
  readonly isDefault: boolean;
  readonly declare: boolean;
  readonly spanStart: number;
  readonly spanRow: number;
  /** Start and depth of the outermost wrapper, where a JSDoc comment would sit before. */
  readonly anchorStart: number;
  readonly anchorDepth: number;
  /** Where the declaration header (signature) starts: the `export`/`declare` keyword, after decorators. */
  readonly sigStart: number;
  /** Decorators written before `export` (`@Injectable() export class X`), without the at sign. */
  readonly decorators?: readonly string[];
  /** Set on lexical/variable declarations. */
  readonly varKind?: 'const' | 'let' | 'var';
  readonly singleDeclarator?: boolean;
  readonly stmtEnd?: number;
  readonly stmtEndRow?: number;
}

interface ImportBinding {
  readonly specifier: string;
  readonly modulePath: string | null;
  readonly importedName: string;
}

const enum UseKind {
  Ref,
  Call,
  ThisRef,
  ThisCall,
}

interface Use {
  readonly kind: UseKind;
  readonly src: number;
  readonly name: string;
  readonly line: number;
  /** Enclosing class symbol for `this.x` uses, else -1. */
  readonly cls: number;
}

interface Heritage {
  readonly type: 'inherits' | 'implements';
  readonly src: number;
  readonly name: string;
  readonly line: number;
}

const MODE_CODE = 0;
const MODE_DECL = 1;
const MODE_CLASS = 2; // class body: members
const MODE_IFACE = 3; // interface body: members

const REACT_COMPONENT_BASES = new Set(['React.Component', 'Component', 'PureComponent', 'React.PureComponent']);
const FC_TYPES = new Set([
  'React.FC',
  'FC',
  'React.FunctionComponent',
  'FunctionComponent',
  'React.VFC',
  'VFC',
]);
const COMPONENT_WRAPPERS = new Set(['React.memo', 'memo', 'React.forwardRef', 'forwardRef']);
const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
/** Nodes that open a function body (a `return` inside belongs to the innermost of them). */
const FUNCTION_NODES = new Set([...FUNCTION_VALUES, 'function_declaration', 'generator_function_declaration', 'method_definition']);
const JSX_NODES = new Set(['jsx_element', 'jsx_self_closing_element', 'jsx_fragment']);
const JSX_RETURN_WRAPPERS = new Set(['parenthesized_expression', 'ternary_expression', 'binary_expression']);
/** Field names under which an identifier declares rather than uses a name. */
const DECLARING_FIELDS = new Set(['name', 'pattern', 'parameter', 'label', 'alias']);
/** Parents whose `name` field is a use, not a declaration. */
const NAME_FIELD_USE_PARENTS = new Set(['generic_type', 'nested_type_identifier', 'jsx_opening_element', 'jsx_closing_element', 'jsx_self_closing_element']);
const DEADLINE_CHECK_INTERVAL = 2048;

/** Options for `extractFile`. */
export interface ExtractOptions {
  readonly path: string;
  readonly text: string;
  readonly language: Language;
  /** `performance.now()` value after which extraction aborts, or Infinity. */
  readonly deadlineAt: number;
}

function typeText(annotation: TsNode | null, text: string): string | null {
  if (annotation === null) return null;
  const raw = text.slice(annotation.startIndex, annotation.endIndex);
  const t = collapseWhitespace(raw.startsWith(':') ? raw.slice(1) : raw);
  return t === '' ? null : t;
}

function stripQuotes(s: string): string {
  return s.length >= 2 && (s[0] === '"' || s[0] === "'" || s[0] === '`') ? s.slice(1, -1) : s;
}

/** Dotted name of an identifier / member chain / nested type (`React.FC`), or null when not a plain chain. */
function dottedName(node: TsNode, text: string): string | null {
  const t = node.type;
  if (
    t === 'identifier' ||
    t === 'type_identifier' ||
    t === 'this' ||
    t === 'super' ||
    t === 'property_identifier' ||
    t === 'member_expression' ||
    t === 'nested_type_identifier' ||
    t === 'nested_identifier' ||
    t === 'scoped_type_identifier'
  ) {
    const raw = text.slice(node.startIndex, node.endIndex);
    if (/^[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_]*(\s*\??\.\s*#?[\p{L}\p{Nl}$_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$_]*)*$/u.test(raw)) {
      return raw.replace(/\s+|\?/g, '');
    }
    return null;
  }
  if (t === 'generic_type') {
    const name = node.childForFieldName('name');
    return name ? dottedName(name, text) : null;
  }
  return null;
}

/** Callee name as written for a call/new/JSX target, plus the base node to mark as consumed. */
function calleeName(node: TsNode, text: string): { name: string; base: TsNode | null; thisMember: string | null } | null {
  if (node.type === 'identifier') return { name: text.slice(node.startIndex, node.endIndex), base: node, thisMember: null };
  if (node.type !== 'member_expression') return null;
  const segments: string[] = [];
  let cur: TsNode | null = node;
  // Walk down the object chain iteratively: `a.b.c` → [a, b, c].
  while (cur !== null && cur.type === 'member_expression') {
    const prop: TsNode | null = cur.childForFieldName('property');
    if (prop === null) return null;
    segments.push(text.slice(prop.startIndex, prop.endIndex));
    cur = cur.childForFieldName('object');
  }
  segments.reverse();
  if (cur !== null && (cur.type === 'identifier' || cur.type === 'this' || cur.type === 'super')) {
    const base = text.slice(cur.startIndex, cur.endIndex);
    if (cur.type === 'this' && segments.length === 1) return { name: segments[0]!, base: cur, thisMember: segments[0]! };
    return { name: [base, ...segments].join('.'), base: cur.type === 'identifier' ? cur : null, thisMember: null };
  }
  // Complex base (`fetch(x).then`, `a[0].b`): keep the trailing property chain only.
  return { name: segments.join('.'), base: null, thisMember: null };
}

/**
 * Extracts one file from an already parsed tree. Throws `DeadlineExceeded` when the
 * deadline passes during the walk.
 */
export function extractFile(tree: Tree, opts: ExtractOptions): FileIndex {
  const { path, text, language } = opts;
  const offsets = new ByteOffsets(text);
  const lineCount = countLines(text);
  const generated = isGeneratedFile(path, text);
  const fileName = path.slice(path.lastIndexOf('/') + 1);

  const syms: Sym[] = [];
  const imports = new Map<string, ImportBinding>();
  const importEdges: { name: string; binding: ImportBinding; line: number }[] = [];
  const exportNames: string[] = [];
  const exportedLocals: string[] = [];
  const reExports: { modulePath: string; names: string[] | '*' }[] = [];
  const uses: Use[] = [];
  const heritage: Heritage[] = [];
  const consumed = new Set<number>();
  let barrel = /^index\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/.test(fileName);
  let sawExport = false;
  let syntaxErrors = 0;
  /** Node id of a class expression already registered by its variable declarator. */
  let pendingClassExpr = -1;
  const hasErrors = tree.rootNode.hasError;
  let firstErrorLine = 0;

  // File node placeholder (index 0); its final fields are filled at the end.
  syms.push({
    idx: 0,
    kind: 'file',
    name: fileName,
    containers: [],
    parent: -1,
    children: [],
    start: 0,
    end: text.length,
    startRow: 0,
    endRow: Math.max(0, lineCount - 1),
    signature: path,
    bodyStart: -1,
    bodyEnd: -1,
    bodyLines: 0,
    parameterTypes: null,
    returnType: null,
    modifiers: new Set(),
    doc: null,
    attributes: [],
    functionLike: false,
    returnsJsx: false,
    componentHint: false,
    exported: false,
  });

  // Depth-indexed walk state.
  const modeAt: number[] = [MODE_DECL];
  const symAt: number[] = [0];
  const classAt: number[] = [-1];
  const typeAt: string[] = ['program'];
  const ctxAt: (DeclCtx | null)[] = [null];
  const commentAt: ({ start: number; end: number } | null)[] = [null];
  const decoratorAt: ({ start: number; row: number; names: string[] } | null)[] = [null];

  const docFor = (anchorStart: number, anchorDepth: number): string | null => {
    const c = commentAt[anchorDepth];
    if (!c || c.end > anchorStart || !onlyWhitespaceBetween(text, c.end, anchorStart)) return null;
    const raw = text.slice(c.start, c.end);
    return raw.startsWith('/**') ? cleanJsDoc(raw) : null;
  };

  const modifiersOf = (node: TsNode, into: Set<Modifier>): void => {
    for (const child of node.children) {
      if (child === null) continue;
      switch (child.type) {
        case 'accessibility_modifier': {
          const m = text.slice(child.startIndex, child.endIndex) as Modifier;
          into.add(m);
          break;
        }
        case 'static':
        case 'readonly':
        case 'abstract':
        case 'async':
        case 'declare':
        case 'const':
          into.add(child.type);
          break;
        case 'override_modifier':
          into.add('override');
          break;
        case '*':
          into.add('generator');
          break;
        case '?':
          into.add('optional');
          break;
        default:
          break;
      }
    }
  };

  const paramsOf = (fn: TsNode): (string | null)[] => {
    const single = fn.childForFieldName('parameter');
    if (single !== null) return [null];
    const params = fn.childForFieldName('parameters');
    if (params === null) return [];
    const out: (string | null)[] = [];
    for (const p of params.namedChildren) {
      if (p === null || p.type === 'comment') continue;
      out.push(typeText(p.childForFieldName('type'), text));
    }
    return out;
  };

  interface AddSpec {
    kind: NodeKind;
    name: string;
    parent: number;
    start: number;
    startRow: number;
    end: number;
    endRow: number;
    sigStart: number;
    sigEnd: number;
    body: TsNode | null;
    fn: TsNode | null;
    modifiers: Set<Modifier>;
    doc: string | null;
    attributes?: string[];
    exported: boolean;
    componentHint?: boolean;
  }

  const addSym = (s: AddSpec): number => {
    const parent = syms[s.parent]!;
    const containers = parent.idx === 0 ? [] : [...parent.containers, parent.name];
    let sigText = text.slice(s.sigStart, s.sigEnd);
    if (s.body === null) sigText = sigText.replace(/[;,]\s*$/, '');
    // Multi-line parameter lists read better without the padding inside the parentheses.
    let signature = collapseWhitespace(sigText).replace(/\(\s+/g, '(').replace(/,?\s+\)/g, ')');
    if (signature.length > 300) signature = `${signature.slice(0, 299)}…`;
    const body = s.body;
    const collapsible = body !== null && body.type !== 'expression' && text.charCodeAt(body.startIndex) === 123; // '{'
    if (s.doc !== null && /(^|\n)\s*@deprecated\b/.test(s.doc)) s.modifiers.add('deprecated');
    const fn = s.fn;
    const idx = syms.length;
    syms.push({
      idx,
      kind: s.kind,
      name: s.name,
      containers,
      parent: s.parent,
      children: [],
      start: s.start,
      end: s.end,
      startRow: s.startRow,
      endRow: s.endRow,
      signature,
      bodyStart: collapsible ? body.startIndex : -1,
      bodyEnd: collapsible ? body.endIndex : -1,
      bodyLines: collapsible ? body.endPosition.row - body.startPosition.row + 1 : 0,
      parameterTypes: fn !== null ? paramsOf(fn) : null,
      returnType: fn !== null ? typeText(fn.childForFieldName('return_type'), text) : null,
      modifiers: s.modifiers,
      doc: s.doc,
      attributes: s.attributes ?? [],
      functionLike: s.kind === 'function',
      returnsJsx: false,
      componentHint: s.componentHint ?? false,
      exported: s.exported,
    });
    parent.children.push(idx);
    if (s.parent === 0 && s.exported && !s.modifiers.has('default')) addExport(s.name);
    return idx;
  };

  const addImport = (name: string, specifier: string, importedName: string, line: number, bind = true): void => {
    const binding: ImportBinding = { specifier, modulePath: resolveModulePath(path, specifier), importedName };
    if (bind && name !== '') imports.set(name, binding);
    importEdges.push({ name, binding, line });
  };

  const addExport = (name: string): void => {
    if (!exportNames.includes(name)) exportNames.push(name);
  };

  const handleImportStatement = (node: TsNode): void => {
    const line = node.startPosition.row + 1;
    const source = node.childForFieldName('source');
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === 'import_require_clause') {
        const id = child.namedChildren.find((c) => c?.type === 'identifier');
        const src = child.childForFieldName('source');
        if (id && src) addImport(text.slice(id.startIndex, id.endIndex), stripQuotes(text.slice(src.startIndex, src.endIndex)), '*', line);
        return;
      }
    }
    if (source === null) return;
    const specifier = stripQuotes(text.slice(source.startIndex, source.endIndex));
    const clause = node.namedChildren.find((c) => c?.type === 'import_clause');
    if (!clause) {
      addImport('', specifier, '*', line); // side-effect import
      return;
    }
    for (const part of clause.namedChildren) {
      if (part === null) continue;
      if (part.type === 'identifier') addImport(text.slice(part.startIndex, part.endIndex), specifier, 'default', line);
      else if (part.type === 'namespace_import') {
        const id = part.namedChildren.find((c) => c?.type === 'identifier');
        if (id) addImport(text.slice(id.startIndex, id.endIndex), specifier, '*', line);
      } else if (part.type === 'named_imports') {
        for (const spec of part.namedChildren) {
          if (spec === null || spec.type !== 'import_specifier') continue;
          const nameNode = spec.childForFieldName('name');
          const alias = spec.childForFieldName('alias');
          if (nameNode === null) continue;
          const imported = stripQuotes(text.slice(nameNode.startIndex, nameNode.endIndex));
          const local = alias ? text.slice(alias.startIndex, alias.endIndex) : imported;
          addImport(local, specifier, imported, spec.startPosition.row + 1);
        }
      }
    }
  };

  /** `export … from` (re-export) and `export { a, b as c }`. Returns true when the subtree is fully handled. */
  const handleExportClause = (node: TsNode): boolean => {
    const source = node.childForFieldName('source');
    const specifier = source ? stripQuotes(text.slice(source.startIndex, source.endIndex)) : null;
    const modulePath = specifier !== null ? resolveModulePath(path, specifier) : null;
    const line = node.startPosition.row + 1;
    let clause: TsNode | null = null;
    let nsExport: TsNode | null = null;
    for (const c of node.namedChildren) {
      if (c?.type === 'export_clause') clause = c;
      else if (c?.type === 'namespace_export') nsExport = c;
    }
    if (specifier !== null) {
      if (clause === null && nsExport === null) {
        // export * from './x'
        addImport('*', specifier, '*', line, false);
        if (modulePath !== null) reExports.push({ modulePath, names: '*' });
        return true;
      }
      if (nsExport !== null) {
        const id = nsExport.namedChildren.find((c) => c !== null && (c.type === 'identifier' || c.type === 'string'));
        if (id) {
          const name = stripQuotes(text.slice(id.startIndex, id.endIndex));
          addImport(name, specifier, '*', line, false); // `export * as ns` binds no local name
          addExport(name);
        }
        return true;
      }
    }
    if (clause === null) return false;
    const names: string[] = [];
    for (const spec of clause.namedChildren) {
      if (spec === null || spec.type !== 'export_specifier') continue;
      const nameNode = spec.childForFieldName('name');
      const alias = spec.childForFieldName('alias');
      if (nameNode === null) continue;
      const local = stripQuotes(text.slice(nameNode.startIndex, nameNode.endIndex));
      const exported = alias ? stripQuotes(text.slice(alias.startIndex, alias.endIndex)) : local;
      addExport(exported);
      names.push(exported);
      if (specifier !== null) {
        addImport(exported, specifier, local, spec.startPosition.row + 1, false); // re-exports bind no local name
      } else exportedLocals.push(local);
    }
    if (specifier !== null && modulePath !== null && names.length > 0) reExports.push({ modulePath, names });
    return true;
  };

  /** Class / abstract class / class expression → class or component symbol. */
  const handleClass = (
    node: TsNode,
    depth: number,
    ctx: DeclCtx | null,
    explicitName: string | null,
    outer: { start: number; row: number; end: number; endRow: number; anchorStart: number; anchorDepth: number; sigStart: number } | null,
  ): number => {
    const nameNode = node.childForFieldName('name');
    const name = explicitName ?? (nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default');
    const mods = new Set<Modifier>();
    if (ctx?.exported) mods.add('export');
    if (ctx?.isDefault) mods.add('default');
    if (ctx?.declare) mods.add('declare');
    if (node.type === 'abstract_class_declaration') mods.add('abstract');
    const attributes: string[] = [...(ctx?.decorators ?? [])];
    let sigStart = -1;
    const bases: { name: string; line: number; type: 'inherits' | 'implements' }[] = [];
    for (const child of node.children) {
      if (child === null) continue;
      if (child.type === 'decorator') {
        attributes.push(collapseWhitespace(text.slice(child.startIndex + 1, child.endIndex)));
        continue;
      }
      if (child.type === 'comment') continue;
      if (sigStart < 0) sigStart = child.startIndex;
      if (child.type === 'class_heritage') {
        for (const h of child.namedChildren) {
          if (h === null) continue;
          if (h.type === 'extends_clause') {
            const v = h.childForFieldName('value');
            const n = v ? dottedName(v, text) : null;
            if (v && n) {
              bases.push({ name: n, line: v.startPosition.row + 1, type: 'inherits' });
              consumed.add(v.id);
            }
          } else if (h.type === 'implements_clause') {
            for (const t of h.namedChildren) {
              const n = t ? dottedName(t, text) : null;
              if (t && n) {
                bases.push({ name: n, line: t.startPosition.row + 1, type: 'implements' });
                consumed.add(t.type === 'generic_type' ? (t.childForFieldName('name')?.id ?? t.id) : t.id);
              }
            }
          } else if (h.type !== 'comment') {
            // JavaScript grammar: the heritage expression is a direct child.
            const n = dottedName(h, text);
            if (n) {
              bases.push({ name: n, line: h.startPosition.row + 1, type: 'inherits' });
              consumed.add(h.id);
            }
          }
        }
      }
    }
    const body = node.childForFieldName('body');
    const start = outer?.start ?? ctx?.spanStart ?? node.startIndex;
    const isComponent = bases.some((b) => b.type === 'inherits' && REACT_COMPONENT_BASES.has(b.name));
    const idx = addSym({
      kind: isComponent ? 'component' : 'class',
      name,
      parent: symAt[depth - 1]!,
      start,
      startRow: outer?.row ?? ctx?.spanRow ?? node.startPosition.row,
      end: outer?.end ?? node.endIndex,
      endRow: outer?.endRow ?? node.endPosition.row,
      sigStart: outer ? outer.sigStart : ctx ? ctx.sigStart : sigStart < 0 ? node.startIndex : sigStart,
      sigEnd: body ? body.startIndex : node.endIndex,
      body,
      fn: null,
      modifiers: mods,
      doc: docFor(outer?.anchorStart ?? ctx?.anchorStart ?? node.startIndex, outer?.anchorDepth ?? ctx?.anchorDepth ?? depth),
      attributes,
      exported: ctx?.exported ?? false,
    });
    for (const b of bases) heritage.push({ type: b.type, src: idx, name: b.name, line: b.line });
    return idx;
  };

  /** CommonJS definitions met at their assignment, created when the walk reaches their member node. */
  const pendingCommonJs = new Map<number, CommonJsDefinition>();

  /** The function symbol of a CommonJS definition, spanning its `at` node; `docDepth`: where a JSDoc before it sits. */
  const commonJsFunction = (d: CommonJsDefinition, parent: number, docDepth: number): number => {
    const fn = d.value;
    const body = fn.childForFieldName('body');
    const mods = new Set<Modifier>(['export']);
    if (d.isDefault) mods.add('default');
    for (const c of fn.children) {
      if (c?.type === 'async') mods.add('async');
      else if (c?.type === '*') mods.add('generator');
    }
    return addSym({
      kind: 'function',
      name: d.name,
      parent,
      start: d.at.startIndex,
      startRow: d.at.startPosition.row,
      end: d.at.endIndex,
      endRow: d.at.endPosition.row,
      sigStart: d.at.startIndex,
      sigEnd: body ? body.startIndex : fn.endIndex,
      body,
      fn,
      modifiers: mods,
      doc: docFor(d.at.startIndex, docDepth),
      exported: true,
    });
  };

  /** The class symbol of `module.exports = class X {}` / `exports.X = class {}`, spanning the statement. */
  const commonJsClass = (d: CommonJsDefinition, depth: number): number => {
    const at = d.at;
    const ctx: DeclCtx = { exported: true, isDefault: d.isDefault, declare: false, spanStart: at.startIndex, spanRow: at.startPosition.row, anchorStart: at.startIndex, anchorDepth: 1, sigStart: at.startIndex };
    return handleClass(d.value, depth, ctx, d.name, { start: at.startIndex, row: at.startPosition.row, end: at.endIndex, endRow: at.endPosition.row, anchorStart: at.startIndex, anchorDepth: 1, sigStart: at.startIndex });
  };

  /** Start of a wrapper's signature: skip leading decorators and comments. */
  const sigStartOf = (wrapper: TsNode): number => {
    for (const c of wrapper.children) {
      if (c !== null && c.type !== 'decorator' && c.type !== 'comment') return c.startIndex;
    }
    return wrapper.startIndex;
  };

  const cursor: TreeCursor = tree.walk();
  let depth = 0;
  let visited = 0;
  try {
    // The root (program) is visited implicitly: start with its children.
    if (!cursor.gotoFirstChild()) {
      depth = -1;
    } else depth = 1;
    while (depth > 0) {
      if (++visited % DEADLINE_CHECK_INTERVAL === 0 && performance.now() > opts.deadlineAt) throw new DeadlineExceeded();
      const type = cursor.nodeType;
      const parentMode = modeAt[depth - 1]!;
      let mode = MODE_CODE;
      let sym = symAt[depth - 1]!;
      let cls = classAt[depth - 1]!;
      let ctx: DeclCtx | null = null;
      let descend = true;
      typeAt[depth] = type;
      commentAt[depth + 1] = null;
      decoratorAt[depth + 1] = null;

      if (type === 'comment') {
        commentAt[depth] = { start: cursor.startIndex, end: cursor.endIndex };
        descend = false;
      } else if (hasErrors && (type === 'ERROR' || cursor.nodeIsMissing)) {
        syntaxErrors++;
        if (firstErrorLine === 0) firstErrorLine = cursor.startPosition.row + 1;
        mode = parentMode === MODE_CODE ? MODE_CODE : MODE_DECL;
      }

      if (depth === 1 && type !== 'comment' && type !== 'import_statement' && type !== 'export_statement' && type !== 'empty_statement') {
        barrel = false;
      }

      if (descend && parentMode !== MODE_CODE && type !== 'comment' && type !== 'ERROR') {
        const parentCtx = ctxAt[depth - 1] ?? null;
        switch (type) {
          case 'import_statement': {
            handleImportStatement(cursor.currentNode);
            descend = false;
            break;
          }
          case 'export_statement': {
            const node = cursor.currentNode;
            sawExport = true;
            const decl = node.childForFieldName('declaration');
            const value = node.childForFieldName('value');
            if (decl === null && value === null) {
              if (handleExportClause(node)) {
                descend = false;
                break;
              }
              // `export = X;`
              const id = node.namedChildren.find((c) => c?.type === 'identifier');
              if (id) {
                addExport('default');
                exportedLocals.push(text.slice(id.startIndex, id.endIndex));
              }
              descend = false;
              break;
            }
            if (depth === 1) barrel = false;
            const isDefault = node.children.some((c) => c?.type === 'default');
            if (isDefault) addExport('default');
            if (value !== null && value.type === 'identifier') {
              exportedLocals.push(text.slice(value.startIndex, value.endIndex));
            }
            ctx = {
              exported: true,
              isDefault,
              declare: false,
              spanStart: node.startIndex,
              spanRow: node.startPosition.row,
              anchorStart: node.startIndex,
              anchorDepth: depth,
              sigStart: sigStartOf(node),
              decorators: node.children
                .filter((c) => c?.type === 'decorator')
                .map((c) => collapseWhitespace(text.slice(c!.startIndex + 1, c!.endIndex))),
            };
            mode = MODE_DECL;
            break;
          }
          case 'ambient_declaration': {
            ctx = {
              exported: parentCtx?.exported ?? false,
              isDefault: false,
              declare: true,
              spanStart: parentCtx?.spanStart ?? cursor.startIndex,
              spanRow: parentCtx?.spanRow ?? cursor.startPosition.row,
              anchorStart: parentCtx?.anchorStart ?? cursor.startIndex,
              anchorDepth: parentCtx?.anchorDepth ?? depth,
              sigStart: parentCtx?.sigStart ?? cursor.startIndex,
            };
            mode = MODE_DECL;
            break;
          }
          case 'expression_statement':
            mode = MODE_DECL; // `namespace X {}` parses as an expression statement
            break;
          case 'assignment_expression': {
            // CommonJS exports that define a function or class in place (commonjs.ts).
            if (depth !== 2 || typeAt[1] !== 'expression_statement') break;
            const node = cursor.currentNode;
            for (const d of commonJsDefinitions(node, node.parent!, text)) {
              if (d.at.id !== node.parent!.id) pendingCommonJs.set(d.at.id, d);
              else if (d.kind === 'function') sym = commonJsFunction(d, sym, 1);
              else {
                sym = commonJsClass(d, depth);
                cls = sym;
                mode = MODE_DECL;
                pendingClassExpr = d.value.id;
              }
            }
            break;
          }
          case 'lexical_declaration':
          case 'variable_declaration': {
            const node = cursor.currentNode;
            let declarators = 0;
            let kind: 'const' | 'let' | 'var' = 'var';
            for (const c of node.children) {
              if (c?.type === 'variable_declarator') declarators++;
              else if (c?.type === 'const' || c?.type === 'let' || c?.type === 'var') kind = c.type;
            }
            ctx = {
              exported: parentCtx?.exported ?? false,
              isDefault: false,
              declare: parentCtx?.declare ?? false,
              spanStart: parentCtx?.spanStart ?? node.startIndex,
              spanRow: parentCtx?.spanRow ?? node.startPosition.row,
              anchorStart: parentCtx?.anchorStart ?? node.startIndex,
              anchorDepth: parentCtx?.anchorDepth ?? depth,
              sigStart: parentCtx?.sigStart ?? node.startIndex,
              varKind: kind,
              singleDeclarator: declarators === 1,
              stmtEnd: node.endIndex,
              stmtEndRow: node.endPosition.row,
            };
            mode = MODE_DECL;
            break;
          }
          case 'variable_declarator': {
            if (parentCtx?.varKind === undefined) break;
            const node = cursor.currentNode;
            const nameNode = node.childForFieldName('name');
            if (nameNode === null || nameNode.type !== 'identifier') break; // destructuring: no symbol
            const name = text.slice(nameNode.startIndex, nameNode.endIndex);
            let value = node.childForFieldName('value');
            let wrapped = false;
            for (let i = 0; i < 3 && value !== null && value.type === 'call_expression'; i++) {
              const fnNode = value.childForFieldName('function');
              const fnName = fnNode ? dottedName(fnNode, text) : null;
              if (fnName === null || !COMPONENT_WRAPPERS.has(fnName)) break;
              wrapped = true;
              value = value.childForFieldName('arguments')?.namedChildren.find((c) => c !== null && c.type !== 'comment') ?? null;
            }
            const single = parentCtx.singleDeclarator === true;
            const start = single ? parentCtx.spanStart : node.startIndex;
            const startRow = single ? parentCtx.spanRow : node.startPosition.row;
            const end = single ? parentCtx.stmtEnd! : node.endIndex;
            const endRow = single ? parentCtx.stmtEndRow! : node.endPosition.row;
            const anchorStart = single ? parentCtx.anchorStart : node.startIndex;
            const anchorDepth = single ? parentCtx.anchorDepth : depth;
            const mods = new Set<Modifier>();
            if (parentCtx.exported) mods.add('export');
            if (parentCtx.declare) mods.add('declare');
            const typeAnn = typeText(node.childForFieldName('type'), text);
            const fcTyped = typeAnn !== null && FC_TYPES.has(typeAnn.replace(/<[\s\S]*$/, '').trim());
            if (value !== null && FUNCTION_VALUES.has(value.type)) {
              const fnBody = value.childForFieldName('body');
              for (const c of value.children) {
                if (c?.type === 'async') mods.add('async');
                else if (c?.type === '*') mods.add('generator');
              }
              sym = addSym({
                kind: 'function',
                name,
                parent: sym,
                start,
                startRow,
                end,
                endRow,
                sigStart: single ? parentCtx.sigStart : node.startIndex,
                sigEnd: fnBody ? fnBody.startIndex : value.endIndex,
                body: fnBody,
                fn: value,
                modifiers: mods,
                doc: docFor(anchorStart, anchorDepth),
                exported: parentCtx.exported,
                componentHint: wrapped || (fcTyped && /^[A-Z]/.test(name)),
              });
            } else if (value !== null && value.type === 'class') {
              const sigStart = single ? parentCtx.sigStart : node.startIndex;
              sym = handleClass(value, depth, parentCtx, name, { start, row: startRow, end, endRow, anchorStart, anchorDepth, sigStart });
              cls = sym;
              // Members are collected when the walk reaches the class expression below.
              mode = MODE_DECL;
              pendingClassExpr = value.id;
              break;
            } else if (parentCtx.exported) {
              if (parentCtx.varKind === 'const') mods.add('const');
              sym = addSym({
                kind: fcTyped && /^[A-Z]/.test(name) ? 'component' : 'variable',
                name,
                parent: sym,
                start,
                startRow,
                end,
                endRow,
                sigStart: single ? parentCtx.sigStart : node.startIndex,
                sigEnd: end,
                body: null,
                fn: null,
                modifiers: mods,
                doc: docFor(anchorStart, anchorDepth),
                exported: true,
              });
            }
            break;
          }
          case 'class':
            if (!cursor.nodeIsNamed) break; // the `class` keyword token
            if (pendingClassExpr === cursor.nodeId) {
              // Class expression already registered by its declarator.
              pendingClassExpr = -1;
              mode = MODE_CLASS;
              break;
            }
            if (!parentCtx?.isDefault) break;
          // falls through: `export default class {}`
          case 'class_declaration':
          case 'abstract_class_declaration': {
            const node = cursor.currentNode;
            sym = handleClass(node, depth, parentCtx, null, null);
            cls = sym;
            mode = MODE_CLASS;
            break;
          }
          case 'class_body':
            if (parentMode === MODE_CLASS) mode = MODE_CLASS;
            break;
          case 'statement_block': {
            // The body of `namespace X {}` / `declare module 'x' {}` holds declarations.
            const parentType = typeAt[depth - 1];
            if (parentType === 'internal_module' || parentType === 'module') mode = MODE_DECL;
            break;
          }
          case 'interface_declaration': {
            const node = cursor.currentNode;
            const nameNode = node.childForFieldName('name');
            const body = node.childForFieldName('body');
            const mods = new Set<Modifier>();
            if (parentCtx?.exported) mods.add('export');
            if (parentCtx?.isDefault) mods.add('default');
            if (parentCtx?.declare) mods.add('declare');
            sym = addSym({
              kind: 'interface',
              name: nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default',
              parent: sym,
              start: parentCtx?.spanStart ?? node.startIndex,
              startRow: parentCtx?.spanRow ?? node.startPosition.row,
              end: node.endIndex,
              endRow: node.endPosition.row,
              sigStart: parentCtx ? parentCtx.sigStart : node.startIndex,
              sigEnd: body ? body.startIndex : node.endIndex,
              body,
              fn: null,
              modifiers: mods,
              doc: docFor(parentCtx?.anchorStart ?? node.startIndex, parentCtx?.anchorDepth ?? depth),
              exported: parentCtx?.exported ?? false,
            });
            for (const c of node.namedChildren) {
              if (c?.type !== 'extends_type_clause') continue;
              for (const t of c.namedChildren) {
                const n = t ? dottedName(t, text) : null;
                if (t && n) {
                  heritage.push({ type: 'inherits', src: sym, name: n, line: t.startPosition.row + 1 });
                  consumed.add(t.type === 'generic_type' ? (t.childForFieldName('name')?.id ?? t.id) : t.id);
                }
              }
            }
            mode = MODE_IFACE;
            break;
          }
          case 'interface_body':
          case 'object_type':
            if (parentMode === MODE_IFACE) mode = MODE_IFACE;
            break;
          case 'enum_declaration':
          case 'type_alias_declaration':
          case 'internal_module':
          case 'module':
          case 'function_declaration':
          case 'generator_function_declaration':
          case 'function_signature':
          case 'function_expression':
          case 'arrow_function':
          case 'call_expression': {
            const isFnValue = type === 'function_expression' || type === 'arrow_function' || type === 'call_expression';
            if (isFnValue && !parentCtx?.isDefault) break;
            if (type === 'module' && !cursor.nodeIsNamed) break; // the `module` keyword token
            const node = cursor.currentNode;
            let fnNode: TsNode = node;
            let wrapped = false;
            if (type === 'call_expression') {
              // export default memo(function Foo() {…})
              let value: TsNode | null = node;
              for (let i = 0; i < 3 && value !== null && value.type === 'call_expression'; i++) {
                const callee = value.childForFieldName('function');
                const fnName = callee ? dottedName(callee, text) : null;
                if (fnName === null || !COMPONENT_WRAPPERS.has(fnName)) break;
                wrapped = true;
                value = value.childForFieldName('arguments')?.namedChildren.find((c) => c !== null && c.type !== 'comment') ?? null;
              }
              if (!wrapped || value === null || !FUNCTION_VALUES.has(value.type)) break;
              fnNode = value;
            }
            const kind: NodeKind =
              type === 'enum_declaration'
                ? 'enum'
                : type === 'type_alias_declaration'
                  ? 'type_alias'
                  : type === 'internal_module' || type === 'module'
                    ? 'namespace'
                    : 'function';
            const nameNode = fnNode.childForFieldName('name');
            let name = nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default';
            if (kind === 'namespace') name = stripQuotes(name);
            const body = kind === 'type_alias' ? null : fnNode.childForFieldName('body');
            const mods = new Set<Modifier>();
            if (parentCtx?.exported) mods.add('export');
            if (parentCtx?.isDefault) mods.add('default');
            if (parentCtx?.declare) mods.add('declare');
            if (kind === 'function' || kind === 'enum') modifiersOf(fnNode, mods);
            if (type === 'generator_function_declaration') mods.add('generator');
            sym = addSym({
              kind,
              name,
              parent: sym,
              start: parentCtx?.spanStart ?? node.startIndex,
              startRow: parentCtx?.spanRow ?? node.startPosition.row,
              end: node.endIndex,
              endRow: node.endPosition.row,
              sigStart: parentCtx ? parentCtx.sigStart : node.startIndex,
              sigEnd: body ? body.startIndex : node.endIndex,
              body,
              fn: kind === 'function' ? fnNode : null,
              modifiers: mods,
              doc: docFor(parentCtx?.anchorStart ?? node.startIndex, parentCtx?.anchorDepth ?? depth),
              exported: parentCtx?.exported ?? false,
              componentHint: wrapped,
            });
            if (kind === 'namespace') mode = MODE_DECL;
            break;
          }
          case 'decorator': {
            if (parentMode === MODE_CLASS) {
              const d = decoratorAt[depth];
              const name = collapseWhitespace(text.slice(cursor.startIndex + 1, cursor.endIndex));
              if (d) d.names.push(name);
              else decoratorAt[depth] = { start: cursor.startIndex, row: cursor.startPosition.row, names: [name] };
            }
            break;
          }
          case 'method_definition':
          case 'method_signature':
          case 'abstract_method_signature':
          case 'public_field_definition':
          case 'field_definition':
          case 'property_signature': {
            if (parentMode !== MODE_CLASS && parentMode !== MODE_IFACE) break;
            const node = cursor.currentNode;
            const nameNode = node.childForFieldName('name') ?? node.childForFieldName('property');
            if (nameNode === null) break;
            let name = text.slice(nameNode.startIndex, nameNode.endIndex);
            if (nameNode.type === 'string') name = stripQuotes(name);
            const mods = new Set<Modifier>();
            modifiersOf(node, mods);
            if (name.startsWith('#')) mods.add('private');
            const attributes: string[] = [];
            for (const c of node.children) {
              if (c?.type === 'decorator') attributes.push(collapseWhitespace(text.slice(c.startIndex + 1, c.endIndex)));
            }
            const pending = decoratorAt[depth];
            if (pending) attributes.unshift(...pending.names);
            decoratorAt[depth] = null;
            const isField = type === 'public_field_definition' || type === 'field_definition' || type === 'property_signature';
            let kind: NodeKind = isField ? 'property' : 'method';
            let isGetter = false;
            let isSetter = false;
            if (!isField) {
              for (const c of node.children) {
                if (c?.type === 'get') isGetter = true;
                else if (c?.type === 'set') isSetter = true;
              }
              if (isGetter) kind = 'getter';
              else if (isSetter) kind = 'setter';
              else if (name === 'constructor' && parentMode === MODE_CLASS) kind = 'constructor';
            }
            let body: TsNode | null = null;
            let fn: TsNode | null = null;
            if (!isField) {
              body = node.childForFieldName('body');
              fn = node;
            } else {
              // A field initialised with a block-bodied arrow is collapsed like a method body.
              const value = node.childForFieldName('value');
              if (value !== null && FUNCTION_VALUES.has(value.type)) {
                const b = value.childForFieldName('body');
                if (b !== null && b.type === 'statement_block') body = b;
              }
            }
            const start = pending ? pending.start : node.startIndex;
            sym = addSym({
              kind,
              name,
              parent: sym,
              start,
              startRow: pending ? pending.row : node.startPosition.row,
              end: node.endIndex,
              endRow: node.endPosition.row,
              sigStart: sigStartOf(node),
              sigEnd: body ? body.startIndex : node.endIndex,
              body,
              fn,
              modifiers: mods,
              doc: docFor(start, depth),
              attributes,
              exported: false,
            });
            break;
          }
          default:
            break;
        }
      }

      // A CommonJS export member (`module.exports = { f: function … }`) found at its assignment.
      if (descend && pendingCommonJs.size > 0) {
        const d = pendingCommonJs.get(cursor.nodeId);
        if (d !== undefined) {
          pendingCommonJs.delete(cursor.nodeId);
          sym = commonJsFunction(d, sym, depth);
        }
      }

      // Use sites (any mode).
      if (descend) {
        switch (type) {
          case 'call_expression':
          case 'new_expression': {
            const node = cursor.currentNode;
            const callee = node.childForFieldName(type === 'call_expression' ? 'function' : 'constructor');
            if (callee === null) break;
            if (type === 'call_expression' && callee.type === 'identifier' && text.slice(callee.startIndex, callee.endIndex) === 'require') {
              const arg = node.childForFieldName('arguments')?.namedChildren[0];
              if (arg && arg.type === 'string') {
                handleRequire(node, stripQuotes(text.slice(arg.startIndex, arg.endIndex)));
                consumed.add(callee.id);
                break;
              }
            }
            const c = calleeName(callee, text);
            if (c === null || c.name === '') break;
            consumed.add(callee.id);
            if (c.base) consumed.add(c.base.id);
            const line = callee.startPosition.row + 1;
            if (c.thisMember !== null) uses.push({ kind: UseKind.ThisCall, src: symAt[depth - 1]!, name: c.thisMember, line, cls: classAt[depth - 1]! });
            else uses.push({ kind: UseKind.Call, src: symAt[depth - 1]!, name: c.name, line, cls: -1 });
            break;
          }
          case 'jsx_opening_element':
          case 'jsx_self_closing_element':
          case 'jsx_closing_element': {
            const node = cursor.currentNode;
            const nameNode = node.childForFieldName('name');
            if (nameNode === null) break;
            const c = calleeName(nameNode, text);
            consumed.add(nameNode.id);
            if (c?.base) consumed.add(c.base.id);
            if (type === 'jsx_closing_element' || c === null) break;
            if (nameNode.type === 'identifier' && !/^[A-Z$_]/.test(c.name)) break; // intrinsic element (<div>)
            uses.push({ kind: UseKind.Call, src: symAt[depth - 1]!, name: c.name, line: nameNode.startPosition.row + 1, cls: -1 });
            break;
          }
          case 'identifier':
          case 'type_identifier':
          case 'shorthand_property_identifier': {
            if (consumed.has(cursor.nodeId)) break;
            const field = cursor.currentFieldName;
            if (field !== null && DECLARING_FIELDS.has(field) && !NAME_FIELD_USE_PARENTS.has(typeAt[depth - 1]!)) break;
            const parentType = typeAt[depth - 1]!;
            if (parentType === 'type_parameter' || parentType === 'import_specifier' || parentType === 'export_specifier') break;
            uses.push({ kind: UseKind.Ref, src: symAt[depth - 1]!, name: text.slice(cursor.startIndex, cursor.endIndex), line: cursor.startPosition.row + 1, cls: -1 });
            break;
          }
          case 'nested_type_identifier': {
            if (!consumed.has(cursor.nodeId)) {
              const name = text.slice(cursor.startIndex, cursor.endIndex).replace(/\s+/g, '');
              uses.push({ kind: UseKind.Ref, src: symAt[depth - 1]!, name, line: cursor.startPosition.row + 1, cls: -1 });
            }
            descend = false;
            break;
          }
          case 'member_expression': {
            if (consumed.has(cursor.nodeId)) break;
            const node = cursor.currentNode;
            const obj = node.childForFieldName('object');
            const prop = node.childForFieldName('property');
            if (obj?.type === 'this' && prop !== null) {
              uses.push({ kind: UseKind.ThisRef, src: symAt[depth - 1]!, name: text.slice(prop.startIndex, prop.endIndex), line: prop.startPosition.row + 1, cls: classAt[depth - 1]! });
            }
            break;
          }
          case 'assignment_expression': {
            if (depth <= 3) handleCommonJsExport(cursor.currentNode);
            break;
          }
          default:
            break;
        }
        if (JSX_NODES.has(type)) {
          // A JSX element in return position (possibly parenthesised / conditional) marks the
          // innermost enclosing symbol as returning JSX.
          let d = depth - 1;
          while (d > 0 && JSX_RETURN_WRAPPERS.has(typeAt[d]!)) d--;
          const t = typeAt[d];
          if ((t === 'return_statement' || t === 'arrow_function') && ownFunctionAt(symAt[depth - 1]!, d, t === 'arrow_function')) {
            syms[symAt[depth - 1]!]!.returnsJsx = true;
          }
        }
      }

      modeAt[depth] = mode;
      symAt[depth] = sym;
      classAt[depth] = cls;
      ctxAt[depth] = ctx;

      if (descend && cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          depth = 0;
          break;
        }
        depth--;
        if (depth === 0) break;
      }
    }
  } finally {
    cursor.delete();
  }

  // --- helpers referenced from the walk (function declarations are hoisted) ---
  /**
   * Whether the return at depth `d` (or the expression-bodied arrow there, `arrow`) belongs to
   * symbol `sym`'s own function, not to a function nested in it that is no symbol (an
   * object-literal member, a callback): `createAction = () => ({ Panel: () => <Button/> })`
   * returns an object, not JSX.
   */
  function ownFunctionAt(sym: number, d: number, arrow: boolean): boolean {
    let k = d - 1;
    while (k > 0 && symAt[k - 1] === sym) k--;
    let functions = 0;
    for (let j = k; j <= (arrow ? d : d - 1); j++) if (FUNCTION_NODES.has(typeAt[j]!)) functions++;
    return functions <= 1;
  }

  function handleRequire(call: TsNode, specifier: string): void {
    const line = call.startPosition.row + 1;
    const parent = call.parent;
    if (parent !== null && parent.type === 'variable_declarator') {
      const nameNode = parent.childForFieldName('name');
      if (nameNode?.type === 'identifier') {
        addImport(text.slice(nameNode.startIndex, nameNode.endIndex), specifier, '*', line);
        return;
      }
      if (nameNode?.type === 'object_pattern') {
        for (const p of nameNode.namedChildren) {
          if (p === null) continue;
          if (p.type === 'shorthand_property_identifier_pattern') {
            const n = text.slice(p.startIndex, p.endIndex);
            addImport(n, specifier, n, line);
          } else if (p.type === 'pair_pattern') {
            const key = p.childForFieldName('key');
            const value = p.childForFieldName('value');
            if (key && value?.type === 'identifier') {
              addImport(text.slice(value.startIndex, value.endIndex), specifier, stripQuotes(text.slice(key.startIndex, key.endIndex)), line);
            }
          }
        }
        return;
      }
    }
    addImport('', specifier, '*', line);
  }

  function handleCommonJsExport(assign: TsNode): void {
    const left = assign.childForFieldName('left');
    const right = assign.childForFieldName('right');
    if (left === null || right === null || left.type !== 'member_expression') return;
    const target = text.slice(left.startIndex, left.endIndex).replace(/\s+/g, '');
    if (target === 'module.exports') {
      addExport('default');
      if (right.type === 'identifier') exportedLocals.push(text.slice(right.startIndex, right.endIndex));
      if (right.type === 'object') {
        for (const p of right.namedChildren) {
          if (p === null) continue;
          if (p.type === 'shorthand_property_identifier') {
            const n = text.slice(p.startIndex, p.endIndex);
            addExport(n);
            exportedLocals.push(n);
          } else if (p.type === 'pair' || p.type === 'method_definition') {
            const key = p.childForFieldName(p.type === 'pair' ? 'key' : 'name');
            if (key) addExport(stripQuotes(text.slice(key.startIndex, key.endIndex)));
            const value = p.type === 'pair' ? p.childForFieldName('value') : null;
            if (value?.type === 'identifier') exportedLocals.push(text.slice(value.startIndex, value.endIndex));
          }
        }
      }
    } else {
      const m = /^(?:module\.)?exports\.([\p{L}$_][\p{L}\p{N}$_]*)$/u.exec(target);
      if (m) {
        addExport(m[1]!);
        if (right.type === 'identifier') exportedLocals.push(text.slice(right.startIndex, right.endIndex));
      }
    }
  }

  return finish();

  function finish(): FileIndex {
    const fileSym = syms[0]!;
    if (barrel && sawExport) fileSym.kind = 'module';

    // Exports declared by declarations, then `export { x }` / `export default x` / CommonJS.
    for (const local of exportedLocals) {
      for (const childIdx of fileSym.children) {
        const s = syms[childIdx]!;
        if (s.name === local) {
          s.exported = true;
          s.modifiers.add('export');
        }
      }
    }

    // Components: function-like symbols returning JSX, typed FC or wrapped in memo/forwardRef.
    for (const s of syms) {
      if (s.functionLike && s.kind === 'function' && (s.returnsJsx || s.componentHint)) s.kind = 'component';
    }

    // Public API, pre-order so parents are decided first.
    const isPublic: boolean[] = new Array<boolean>(syms.length).fill(false);
    for (const s of syms) {
      if (s.idx === 0) continue;
      const p = syms[s.parent]!;
      if (p.idx === 0) isPublic[s.idx] = s.exported;
      else if (p.kind === 'namespace') isPublic[s.idx] = s.exported && isPublic[p.idx]!;
      else if (p.kind === 'class' || p.kind === 'interface' || p.kind === 'component') {
        isPublic[s.idx] = isPublic[p.idx]! && !s.modifiers.has('private') && !s.modifiers.has('protected');
      }
    }

    // Keys.
    const callable = (s: Sym): boolean =>
      s.kind === 'function' ||
      s.kind === 'method' ||
      s.kind === 'constructor' ||
      s.kind === 'getter' ||
      s.kind === 'setter' ||
      (s.kind === 'component' && s.parameterTypes !== null);
    const keyed = syms.map((s) => ({
      symbolKey:
        s.idx === 0
          ? symbolKey({ language, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' })
          : symbolKey({
              language,
              scope: { kind: 'file', path },
              containers: s.containers,
              name: s.name,
              // Workaround: @ca/schema's ACCESSOR_SUFFIX lookup is a plain object, so kind
              // 'constructor' hits Object.prototype.constructor. The kind only selects the
              // accessor suffix, so 'method' yields the intended key.
              kind: s.kind === 'constructor' ? 'method' : s.kind,
              parameterTypes: callable(s) ? (s.parameterTypes ?? []) : null,
            }),
    }));
    const dis = disambiguate(keyed);
    const localId = (i: number): string => `n${i}`;

    const nodes: ExtractedNode[] = syms.map((s, i) => {
      const isFile = i === 0;
      const modifiers = [...s.modifiers].sort((a, b) => MODIFIER_ORDER.indexOf(a) - MODIFIER_ORDER.indexOf(b));
      const node: ExtractedNode = {
        localId: localId(i),
        kind: s.kind,
        name: s.name,
        qualifiedName: isFile ? path : [...s.containers, s.name].join('.'),
        symbolKey: keyed[i]!.symbolKey,
        disambiguator: dis[i]!,
        parentLocalId: s.parent < 0 ? null : localId(s.parent),
        span: {
          startLine: s.startRow + 1,
          endLine: isFile ? Math.max(1, lineCount) : s.endRow + 1,
          startByte: offsets.at(s.start),
          endByte: offsets.at(s.end),
        },
        signature: s.signature,
        parameterCount: s.parameterTypes === null ? null : s.parameterTypes.length,
        returnType: s.returnType,
        modifiers,
        isPublicApi: isFile ? false : isPublic[i]!,
        doc: s.doc,
        chunkText: chunkTextOf(s),
        ...(s.attributes.length > 0 ? { attributes: s.attributes } : {}),
      };
      return node;
    });

    // Edges.
    const edges: ExtractedEdge[] = [];
    for (const s of syms) {
      if (s.parent < 0) continue;
      edges.push({
        sourceLocalId: localId(s.parent),
        type: 'contains',
        confidence: 'exact',
        target: { key: keyed[s.idx]!.symbolKey, name: s.name, localId: localId(s.idx) },
        line: s.startRow + 1,
      });
    }
    for (const imp of importEdges) {
      const target: EdgeTarget = {
        key: unresolvedKey(imp.name === '' ? imp.binding.specifier : imp.name),
        name: imp.name === '' ? imp.binding.specifier : imp.name,
        specifier: imp.binding.specifier,
        importedName: imp.binding.importedName,
        ...(imp.binding.modulePath !== null ? { modulePath: imp.binding.modulePath } : {}),
      };
      edges.push({ sourceLocalId: localId(0), type: 'imports', confidence: 'exact', target, line: imp.line });
    }

    // Name resolution tables.
    const byQName = new Map<string, number>();
    for (const s of syms) {
      if (s.idx === 0) continue;
      const q = [...s.containers, s.name].join('.');
      if (!byQName.has(q)) byQName.set(q, s.idx);
    }
    const resolveLocal = (name: string, src: number): number => {
      // Namespace scopes from the innermost outwards, then top level.
      for (let a = src; a > 0; a = syms[a]!.parent) {
        const s = syms[a]!;
        if (s.kind === 'namespace') {
          const hit = byQName.get(`${[...s.containers, s.name].join('.')}.${name}`);
          if (hit !== undefined) return hit;
        }
      }
      const top = byQName.get(name);
      if (top !== undefined) {
        const p = syms[top]!.parent;
        if (name.includes('.') || p === 0 || syms[p]!.kind === 'namespace') return top;
      }
      return -1;
    };
    const memberOf = (cls: number, name: string): number => {
      if (cls < 0) return -1;
      for (const c of syms[cls]!.children) if (syms[c]!.name === name) return c;
      return -1;
    };
    const targetFor = (name: string, local: number): EdgeTarget | null => {
      if (local >= 0) return { key: keyed[local]!.symbolKey, name, localId: localId(local) };
      const dot = name.indexOf('.');
      const first = dot < 0 ? name : name.slice(0, dot);
      const binding = imports.get(first);
      if (binding === undefined) return null;
      let importedName = binding.importedName;
      const rest = dot < 0 ? '' : name.slice(dot + 1);
      // `ns.foo` through `import * as ns`: the module's export `foo`.
      if (importedName === '*' && rest !== '' && !rest.includes('.')) importedName = rest;
      return {
        key: unresolvedKey(name),
        name,
        importedName,
        specifier: binding.specifier,
        ...(binding.modulePath !== null ? { modulePath: binding.modulePath } : {}),
      };
    };

    for (const h of heritage) {
      const local = resolveLocal(h.name, h.src);
      const target = targetFor(h.name, local === h.src ? -1 : local) ?? { key: unresolvedKey(h.name), name: h.name };
      edges.push({ sourceLocalId: localId(h.src), type: h.type, confidence: 'approximate', target, line: h.line });
    }

    const seen = new Set<string>();
    for (const u of uses) {
      let target: EdgeTarget | null;
      if (u.kind === UseKind.ThisCall || u.kind === UseKind.ThisRef) {
        const m = memberOf(u.cls, u.name);
        if (m >= 0) target = { key: keyed[m]!.symbolKey, name: u.name, localId: localId(m) };
        else target = u.kind === UseKind.ThisCall ? { key: unresolvedKey(u.name), name: u.name } : null;
      } else {
        target = targetFor(u.name, resolveLocal(u.name, u.src));
        // A whole module called or constructed (`const make = require('./make'); make()`,
        // `new Shape()`): CommonJS `module.exports = fn`, i.e. the module's default export.
        if (u.kind === UseKind.Call && target?.importedName === '*' && !target.name.includes('.')) target = { ...target, importedName: 'default' };
        if (target === null && u.kind === UseKind.Call) target = { key: unresolvedKey(u.name), name: u.name };
      }
      if (target === null) continue;
      const type = u.kind === UseKind.Call || u.kind === UseKind.ThisCall ? 'calls' : 'references';
      const dedupe = `${type}\u0000${u.src}\u0000${target.key}\u0000${target.name}\u0000${u.line}`;
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      edges.push({ sourceLocalId: localId(u.src), type, confidence: 'approximate', target, line: u.line });
    }

    const diagnostics: Diagnostic[] = [];
    if (syntaxErrors > 0) {
      diagnostics.push({
        severity: 'warning',
        code: 'syntax_error',
        message: `${syntaxErrors} syntax error${syntaxErrors === 1 ? '' : 's'} (ERROR/MISSING nodes); symbols may be incomplete`,
        line: firstErrorLine,
      });
    }

    return {
      path,
      language,
      parseStatus: syntaxErrors > 0 || tree.rootNode.hasError ? 'partial' : 'ok',
      generated,
      lineCount,
      nodes,
      edges,
      diagnostics,
      exports: exportNames,
      reExports,
    };
  }

  /** The symbol's span text with every child symbol's body collapsed (children are in source order). */
  function chunkTextOf(s: Sym): string {
    if (s.children.length === 0) return text.slice(s.start, s.end);
    let out = '';
    let pos = s.start;
    const stack: number[] = [...s.children].reverse();
    while (stack.length > 0) {
      const c = syms[stack.pop()!]!;
      if (c.bodyStart < 0) {
        // Bodiless child (property, overload, type alias): its own children may still have bodies.
        for (let k = c.children.length - 1; k >= 0; k--) stack.push(c.children[k]!);
        continue;
      }
      if (c.bodyStart < pos) continue;
      out += text.slice(pos, c.bodyStart);
      out += `{ /* ${c.bodyLines} ${c.bodyLines === 1 ? 'line' : 'lines'} collapsed */ }`;
      pos = c.bodyEnd;
    }
    out += text.slice(pos, s.end);
    return out;
  }
}

const MODIFIER_ORDER: readonly Modifier[] = [
  'export',
  'default',
  'declare',
  'public',
  'private',
  'protected',
  'internal',
  'static',
  'abstract',
  'override',
  'virtual',
  'readonly',
  'const',
  'async',
  'generator',
  'optional',
  'sealed',
  'partial',
  'extern',
  'deprecated',
];

/** The file-only result used when parsing failed or timed out. */
export function errorFileIndex(path: string, text: string, language: Language, diagnostic: Diagnostic): FileIndex {
  const lineCount = countLines(text);
  const offsets = new ByteOffsets(text);
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    path,
    language,
    parseStatus: 'error',
    generated: isGeneratedFile(path, text),
    lineCount,
    nodes: [
      {
        localId: 'n0',
        kind: 'file',
        name,
        qualifiedName: path,
        symbolKey: symbolKey({ language, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
        disambiguator: 0,
        parentLocalId: null,
        span: { startLine: 1, endLine: Math.max(1, lineCount), startByte: 0, endByte: offsets.byteLength },
        signature: path,
        parameterCount: null,
        returnType: null,
        modifiers: [],
        isPublicApi: false,
        doc: null,
        chunkText: text,
      },
    ],
    edges: [],
    diagnostics: [diagnostic],
    exports: [],
    reExports: [],
  };
}
