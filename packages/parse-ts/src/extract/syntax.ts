/**
 * Pure reads of tree-sitter nodes the extractor's units share: type annotations, names as
 * written (dotted chains, callees), modifiers and parameter types. No walk state.
 */
import type { Node as TsNode } from 'web-tree-sitter';
import type { Modifier } from '@ca/schema';
import { collapseWhitespace } from '../text.js';
import { COMPONENT_WRAPPERS } from './model.js';

/** A type annotation's text (without the leading colon), whitespace collapsed; null when absent or empty. */
export function typeText(annotation: TsNode | null, text: string): string | null {
  if (annotation === null) return null;
  const raw = text.slice(annotation.startIndex, annotation.endIndex);
  const t = collapseWhitespace(raw.startsWith(':') ? raw.slice(1) : raw);
  return t === '' ? null : t;
}

/** A string literal's content (quotes or backticks removed); other text unchanged. */
export function stripQuotes(s: string): string {
  return s.length >= 2 && (s[0] === '"' || s[0] === "'" || s[0] === '`') ? s.slice(1, -1) : s;
}

/** A decorator's text without the at sign, whitespace collapsed. */
export function decoratorText(decorator: TsNode, text: string): string {
  return collapseWhitespace(text.slice(decorator.startIndex + 1, decorator.endIndex));
}

const NAME_CHAIN_TYPES: ReadonlySet<string> = new Set([
  'identifier',
  'type_identifier',
  'this',
  'super',
  'property_identifier',
  'member_expression',
  'nested_type_identifier',
  'nested_identifier',
  'scoped_type_identifier',
]);

/** Dotted name of an identifier / member chain / nested type (`React.FC`), or null when not a plain chain. */
export function dottedName(node: TsNode, text: string): string | null {
  const t = node.type;
  if (NAME_CHAIN_TYPES.has(t)) {
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

/** A callee as written: its name, the base node to mark as consumed, and the member of a `this.x` call. */
export interface Callee {
  readonly name: string;
  readonly base: TsNode | null;
  readonly thisMember: string | null;
}

/** Callee name as written for a call/new/JSX target, plus the base node to mark as consumed. */
export function calleeName(node: TsNode, text: string): Callee | null {
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
 * Unwraps up to three component wrappers (`memo(forwardRef(fn))`) around `value`: the wrapped
 * value (null when a wrapper has no argument) and whether any wrapper was met.
 */
export function unwrapComponent(value: TsNode | null, text: string): { value: TsNode | null; wrapped: boolean } {
  let wrapped = false;
  for (let i = 0; i < 3 && value !== null && value.type === 'call_expression'; i++) {
    const fnNode = value.childForFieldName('function');
    const fnName = fnNode ? dottedName(fnNode, text) : null;
    if (fnName === null || !COMPONENT_WRAPPERS.has(fnName)) break;
    wrapped = true;
    value = value.childForFieldName('arguments')?.namedChildren.find((c) => c !== null && c.type !== 'comment') ?? null;
  }
  return { value, wrapped };
}

/** Start of a wrapper's signature: skip leading decorators and comments. */
export function sigStartOf(wrapper: TsNode): number {
  for (const c of wrapper.children) {
    if (c !== null && c.type !== 'decorator' && c.type !== 'comment') return c.startIndex;
  }
  return wrapper.startIndex;
}

const KEYWORD_MODIFIERS: ReadonlySet<string> = new Set(['static', 'readonly', 'abstract', 'async', 'declare', 'const']);

/** Adds the modifiers written as children of `node` (keywords, accessibility, `*`, `?`). */
export function modifiersOf(node: TsNode, text: string, into: Set<Modifier>): void {
  for (const child of node.children) {
    if (child === null) continue;
    const type = child.type;
    if (type === 'accessibility_modifier') into.add(text.slice(child.startIndex, child.endIndex) as Modifier);
    else if (KEYWORD_MODIFIERS.has(type)) into.add(type as Modifier);
    else if (type === 'override_modifier') into.add('override');
    else if (type === '*') into.add('generator');
    else if (type === '?') into.add('optional');
  }
}

/** Adds `async` / `generator` for a function value's keyword children. */
export function functionValueModifiers(fn: TsNode, into: Set<Modifier>): void {
  for (const c of fn.children) {
    if (c?.type === 'async') into.add('async');
    else if (c?.type === '*') into.add('generator');
  }
}

/** Parameter types as written (null when untyped); `[null]` for a bare arrow parameter. */
export function paramsOf(fn: TsNode, text: string): (string | null)[] {
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
}
