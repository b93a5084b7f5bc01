/**
 * Declaration building: turns a declaration node (with the context its wrappers handed down)
 * into a {@link Sym} — name, span, signature, collapsible body, parameter and return types,
 * modifiers, JSDoc, decorators — and records the heritage clauses a class or interface header
 * makes. One method per declaration family; the walker decides when each applies.
 */
import type { Node as TsNode } from 'web-tree-sitter';
import type { Modifier, NodeKind } from '@ca/schema';
import type { CommonJsDefinition } from '../commonjs.js';
import { cleanJsDoc, collapseWhitespace, onlyWhitespaceBetween } from '../text.js';
import { FC_TYPES, FUNCTION_VALUES, MODE_CLASS, REACT_COMPONENT_BASES, type DeclCtx, type FileFacts, type Sym } from './model.js';
import {
  decoratorText,
  dottedName,
  functionValueModifiers,
  modifiersOf,
  paramsOf,
  sigStartOf,
  stripQuotes,
  typeText,
  unwrapComponent,
} from './syntax.js';

/** The last comment seen at a depth of the walk (a JSDoc candidate for the next declaration there). */
export type CommentAt = ({ start: number; end: number } | null)[];

/** Decorators met as siblings before a class member (`@Input() x`), collected by the walker. */
export interface PendingDecorators {
  readonly start: number;
  readonly row: number;
  readonly names: string[];
}

/** Where a declaration's span, JSDoc anchor and signature start when an outer node owns them. */
interface OuterSpan {
  readonly start: number;
  readonly row: number;
  readonly end: number;
  readonly endRow: number;
  readonly anchorStart: number;
  readonly anchorDepth: number;
  readonly sigStart: number;
}

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

/** Declaration kinds built by {@link DeclarationBuilder.declaration}, by node type. */
const DECLARATION_KINDS: ReadonlyMap<string, NodeKind> = new Map<string, NodeKind>([
  ['enum_declaration', 'enum'],
  ['type_alias_declaration', 'type_alias'],
  ['internal_module', 'namespace'],
  ['module', 'namespace'],
]);

const FIELD_TYPES: ReadonlySet<string> = new Set(['public_field_definition', 'field_definition', 'property_signature']);

/** Builds the symbols of one file into its {@link FileFacts}. */
export class DeclarationBuilder {
  private readonly syms: Sym[];
  private readonly text: string;

  constructor(
    private readonly facts: FileFacts,
    private readonly commentAt: CommentAt,
  ) {
    this.syms = facts.syms;
    this.text = facts.text;
  }

  /** The file node placeholder (index 0); its kind and exports are settled after the walk. */
  fileSymbol(fileName: string, lineCount: number): void {
    this.syms.push({
      idx: 0,
      kind: 'file',
      name: fileName,
      containers: [],
      parent: -1,
      children: [],
      start: 0,
      end: this.text.length,
      startRow: 0,
      endRow: Math.max(0, lineCount - 1),
      signature: this.facts.path,
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
  }

  /** The JSDoc right before `anchorStart` (the last comment at `anchorDepth`, only whitespace between). */
  docFor(anchorStart: number, anchorDepth: number): string | null {
    const c = this.commentAt[anchorDepth];
    if (!c || c.end > anchorStart || !onlyWhitespaceBetween(this.text, c.end, anchorStart)) return null;
    const raw = this.text.slice(c.start, c.end);
    return raw.startsWith('/**') ? cleanJsDoc(raw) : null;
  }

  /** Adds a symbol under `s.parent`; a top-level exported non-default symbol exports its name. */
  add(s: AddSpec): number {
    const text = this.text;
    const parent = this.syms[s.parent]!;
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
    const idx = this.syms.length;
    this.syms.push({
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
      parameterTypes: fn !== null ? paramsOf(fn, text) : null,
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
    if (s.parent === 0 && s.exported && !s.modifiers.has('default')) this.facts.addExport(s.name);
    return idx;
  }

  /** Class / abstract class / class expression → class or component symbol under `parent`. */
  classLike(node: TsNode, depth: number, parent: number, ctx: DeclCtx | null, explicitName: string | null, outer: OuterSpan | null): number {
    const text = this.text;
    const nameNode = node.childForFieldName('name');
    const name = explicitName ?? (nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default');
    const mods = contextModifiers(ctx);
    if (node.type === 'abstract_class_declaration') mods.add('abstract');
    const attributes: string[] = [...(ctx?.decorators ?? [])];
    let sigStart = -1;
    const bases: { name: string; line: number; type: 'inherits' | 'implements' }[] = [];
    for (const child of node.children) {
      if (child === null) continue;
      if (child.type === 'decorator') {
        attributes.push(decoratorText(child, text));
        continue;
      }
      if (child.type === 'comment') continue;
      if (sigStart < 0) sigStart = child.startIndex;
      if (child.type === 'class_heritage') this.classHeritage(child, bases);
    }
    const body = node.childForFieldName('body');
    const start = outer?.start ?? ctx?.spanStart ?? node.startIndex;
    const isComponent = bases.some((b) => b.type === 'inherits' && REACT_COMPONENT_BASES.has(b.name));
    const idx = this.add({
      kind: isComponent ? 'component' : 'class',
      name,
      parent,
      start,
      startRow: outer?.row ?? ctx?.spanRow ?? node.startPosition.row,
      end: outer?.end ?? node.endIndex,
      endRow: outer?.endRow ?? node.endPosition.row,
      sigStart: outer ? outer.sigStart : ctx ? ctx.sigStart : sigStart < 0 ? node.startIndex : sigStart,
      sigEnd: body ? body.startIndex : node.endIndex,
      body,
      fn: null,
      modifiers: mods,
      doc: this.docFor(outer?.anchorStart ?? ctx?.anchorStart ?? node.startIndex, outer?.anchorDepth ?? ctx?.anchorDepth ?? depth),
      attributes,
      exported: ctx?.exported ?? false,
    });
    for (const b of bases) this.facts.heritage.push({ type: b.type, src: idx, name: b.name, line: b.line });
    return idx;
  }

  /** The bases a `class_heritage` names; their name nodes are consumed (no plain reference). */
  private classHeritage(heritage: TsNode, bases: { name: string; line: number; type: 'inherits' | 'implements' }[]): void {
    const text = this.text;
    const consumed = this.facts.consumed;
    for (const h of heritage.namedChildren) {
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

  /** The function symbol of a CommonJS definition, spanning its `at` node; `docDepth`: where a JSDoc before it sits. */
  commonJsFunction(d: CommonJsDefinition, parent: number, docDepth: number): number {
    const fn = d.value;
    const body = fn.childForFieldName('body');
    const mods = new Set<Modifier>(['export']);
    if (d.isDefault) mods.add('default');
    functionValueModifiers(fn, mods);
    return this.add({
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
      doc: this.docFor(d.at.startIndex, docDepth),
      exported: true,
    });
  }

  /** The class symbol of `module.exports = class X {}` / `exports.X = class {}`, spanning the statement. */
  commonJsClass(d: CommonJsDefinition, depth: number, parent: number): number {
    const at = d.at;
    const ctx: DeclCtx = { exported: true, isDefault: d.isDefault, declare: false, spanStart: at.startIndex, spanRow: at.startPosition.row, anchorStart: at.startIndex, anchorDepth: 1, sigStart: at.startIndex };
    return this.classLike(d.value, depth, parent, ctx, d.name, { start: at.startIndex, row: at.startPosition.row, end: at.endIndex, endRow: at.endPosition.row, anchorStart: at.startIndex, anchorDepth: 1, sigStart: at.startIndex });
  }

  /**
   * A variable declarator of a lexical/variable statement (`ctx`): a function symbol for a
   * function value (possibly wrapped in memo/forwardRef), a class for a class expression
   * (`classExpr`: its node id, whose members the walk collects), an exported variable, or
   * nothing (`sym` = `parent`).
   */
  variable(node: TsNode, depth: number, parent: number, ctx: DeclCtx): { sym: number; classExpr: number } {
    const text = this.text;
    const nameNode = node.childForFieldName('name');
    if (nameNode === null || nameNode.type !== 'identifier') return { sym: parent, classExpr: -1 }; // destructuring: no symbol
    const name = text.slice(nameNode.startIndex, nameNode.endIndex);
    const { value, wrapped } = unwrapComponent(node.childForFieldName('value'), text);
    const single = ctx.singleDeclarator === true;
    const outer: OuterSpan = {
      start: single ? ctx.spanStart : node.startIndex,
      row: single ? ctx.spanRow : node.startPosition.row,
      end: single ? ctx.stmtEnd! : node.endIndex,
      endRow: single ? ctx.stmtEndRow! : node.endPosition.row,
      anchorStart: single ? ctx.anchorStart : node.startIndex,
      anchorDepth: single ? ctx.anchorDepth : depth,
      sigStart: single ? ctx.sigStart : node.startIndex,
    };
    if (value !== null && value.type === 'class') {
      return { sym: this.classLike(value, depth, parent, ctx, name, outer), classExpr: value.id };
    }
    const mods = new Set<Modifier>();
    if (ctx.exported) mods.add('export');
    if (ctx.declare) mods.add('declare');
    const typeAnn = typeText(node.childForFieldName('type'), text);
    const fcTyped = typeAnn !== null && FC_TYPES.has(typeAnn.replace(/<[\s\S]*$/, '').trim());
    const span = { parent, start: outer.start, startRow: outer.row, end: outer.end, endRow: outer.endRow, sigStart: outer.sigStart };
    if (value !== null && FUNCTION_VALUES.has(value.type)) {
      const fnBody = value.childForFieldName('body');
      functionValueModifiers(value, mods);
      const sym = this.add({
        kind: 'function',
        name,
        ...span,
        sigEnd: fnBody ? fnBody.startIndex : value.endIndex,
        body: fnBody,
        fn: value,
        modifiers: mods,
        doc: this.docFor(outer.anchorStart, outer.anchorDepth),
        exported: ctx.exported,
        componentHint: wrapped || (fcTyped && /^[A-Z]/.test(name)),
      });
      return { sym, classExpr: -1 };
    }
    if (!ctx.exported) return { sym: parent, classExpr: -1 };
    if (ctx.varKind === 'const') mods.add('const');
    const sym = this.add({
      kind: fcTyped && /^[A-Z]/.test(name) ? 'component' : 'variable',
      name,
      ...span,
      sigEnd: outer.end,
      body: null,
      fn: null,
      modifiers: mods,
      doc: this.docFor(outer.anchorStart, outer.anchorDepth),
      exported: true,
    });
    return { sym, classExpr: -1 };
  }

  /** An interface and the `extends` clauses of its header. */
  interface(node: TsNode, depth: number, parent: number, ctx: DeclCtx | null): number {
    const text = this.text;
    const nameNode = node.childForFieldName('name');
    const body = node.childForFieldName('body');
    const sym = this.add({
      kind: 'interface',
      name: nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default',
      parent,
      start: ctx?.spanStart ?? node.startIndex,
      startRow: ctx?.spanRow ?? node.startPosition.row,
      end: node.endIndex,
      endRow: node.endPosition.row,
      sigStart: ctx ? ctx.sigStart : node.startIndex,
      sigEnd: body ? body.startIndex : node.endIndex,
      body,
      fn: null,
      modifiers: contextModifiers(ctx),
      doc: this.docFor(ctx?.anchorStart ?? node.startIndex, ctx?.anchorDepth ?? depth),
      exported: ctx?.exported ?? false,
    });
    for (const c of node.namedChildren) {
      if (c?.type !== 'extends_type_clause') continue;
      for (const t of c.namedChildren) {
        const n = t ? dottedName(t, text) : null;
        if (t && n) {
          this.facts.heritage.push({ type: 'inherits', src: sym, name: n, line: t.startPosition.row + 1 });
          this.facts.consumed.add(t.type === 'generic_type' ? (t.childForFieldName('name')?.id ?? t.id) : t.id);
        }
      }
    }
    return sym;
  }

  /**
   * Enum, type alias, namespace/module, function declaration or signature, and the default
   * export's function value (`export default function`, `export default memo(function F() {})`).
   * Returns -1 when `node` declares nothing (a call that is no component wrapper).
   */
  declaration(type: string, node: TsNode, depth: number, parent: number, ctx: DeclCtx | null): number {
    let fnNode: TsNode = node;
    let wrapped = false;
    if (type === 'call_expression') {
      // export default memo(function Foo() {…})
      const unwrapped = unwrapComponent(node, this.text);
      wrapped = unwrapped.wrapped;
      if (!wrapped || unwrapped.value === null || !FUNCTION_VALUES.has(unwrapped.value.type)) return -1;
      fnNode = unwrapped.value;
    }
    const kind: NodeKind = DECLARATION_KINDS.get(type) ?? 'function';
    const nameNode = fnNode.childForFieldName('name');
    let name = nameNode ? this.text.slice(nameNode.startIndex, nameNode.endIndex) : 'default';
    if (kind === 'namespace') name = stripQuotes(name);
    const body = kind === 'type_alias' ? null : fnNode.childForFieldName('body');
    const mods = contextModifiers(ctx);
    if (kind === 'function' || kind === 'enum') modifiersOf(fnNode, this.text, mods);
    if (type === 'generator_function_declaration') mods.add('generator');
    return this.add({
      kind,
      name,
      parent,
      start: ctx?.spanStart ?? node.startIndex,
      startRow: ctx?.spanRow ?? node.startPosition.row,
      end: node.endIndex,
      endRow: node.endPosition.row,
      sigStart: ctx ? ctx.sigStart : node.startIndex,
      sigEnd: body ? body.startIndex : node.endIndex,
      body,
      fn: kind === 'function' ? fnNode : null,
      modifiers: mods,
      doc: this.docFor(ctx?.anchorStart ?? node.startIndex, ctx?.anchorDepth ?? depth),
      exported: ctx?.exported ?? false,
      componentHint: wrapped,
    });
  }

  /**
   * A class or interface member (`parentMode`: which body it is in); `pending`: decorators
   * written before it as siblings. Returns -1 for a member without a name.
   */
  member(type: string, node: TsNode, depth: number, parent: number, parentMode: number, pending: PendingDecorators | null): number {
    const text = this.text;
    const nameNode = node.childForFieldName('name') ?? node.childForFieldName('property');
    if (nameNode === null) return -1;
    let name = text.slice(nameNode.startIndex, nameNode.endIndex);
    if (nameNode.type === 'string') name = stripQuotes(name);
    const mods = new Set<Modifier>();
    modifiersOf(node, text, mods);
    if (name.startsWith('#')) mods.add('private');
    const attributes: string[] = [];
    for (const c of node.children) {
      if (c?.type === 'decorator') attributes.push(decoratorText(c, text));
    }
    if (pending) attributes.unshift(...pending.names);
    const isField = FIELD_TYPES.has(type);
    const kind = isField ? 'property' : memberKind(node, name, parentMode);
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
    return this.add({
      kind,
      name,
      parent,
      start,
      startRow: pending ? pending.row : node.startPosition.row,
      end: node.endIndex,
      endRow: node.endPosition.row,
      sigStart: sigStartOf(node),
      sigEnd: body ? body.startIndex : node.endIndex,
      body,
      fn,
      modifiers: mods,
      doc: this.docFor(start, depth),
      attributes,
      exported: false,
    });
  }
}

/** `export` / `default` / `declare` from the wrapper context. */
function contextModifiers(ctx: DeclCtx | null): Set<Modifier> {
  const mods = new Set<Modifier>();
  if (ctx?.exported) mods.add('export');
  if (ctx?.isDefault) mods.add('default');
  if (ctx?.declare) mods.add('declare');
  return mods;
}

/** A method-like member's kind: getter, setter, constructor (classes only) or method. */
function memberKind(node: TsNode, name: string, parentMode: number): NodeKind {
  let isGetter = false;
  let isSetter = false;
  for (const c of node.children) {
    if (c?.type === 'get') isGetter = true;
    else if (c?.type === 'set') isSetter = true;
  }
  if (isGetter) return 'getter';
  if (isSetter) return 'setter';
  if (name === 'constructor' && parentMode === MODE_CLASS) return 'constructor';
  return 'method';
}
