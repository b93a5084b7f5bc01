/**
 * CommonJS export forms that define a function or a class in place, so they become symbols like
 * their ES module counterparts (`export function f`, `export default class X`):
 *
 * - `module.exports.x = function () {}`, `exports.y = () => …` → a function `x` / `y` spanning
 *   the statement;
 * - `module.exports = function name() {}` → a function `name` (`default` when anonymous),
 *   `module.exports = class X {}` → a class `X` with its members, spanning the statement;
 * - `module.exports = { f: function () {}, g() {}, h: () => … }` → a function per member whose
 *   value is a function, named by its key and spanning the member.
 *
 * A member or assignment whose value is an identifier (`{ shorthand, renamed: local }`,
 * `exports.x = local`) defines nothing: the local declaration is the symbol, marked exported by
 * the export handling (no duplicate symbol). Pure syntax: the walk in extract.ts creates the
 * symbols when it reaches each definition's `at` node, so uses inside belong to them.
 */
import type { Node as TsNode } from 'web-tree-sitter';

/** A function or class value found in a CommonJS export; `at`'s visit creates its symbol. */
export interface CommonJsDefinition {
  readonly kind: 'function' | 'class';
  /** Symbol name: the export's key, or the value's own name for `module.exports = …`. */
  readonly name: string;
  /** `module.exports = …` itself (the module's default export). */
  readonly isDefault: boolean;
  /** The node whose visit creates the symbol; its range is the symbol's span. */
  readonly at: TsNode;
  /** The function or class node. */
  readonly value: TsNode;
}

const FUNCTION_VALUE_TYPES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const EXPORT_PROPERTY = /^(?:module\.)?exports\.([\p{L}$_][\p{L}\p{N}$_]*)$/u;

function unquote(s: string): string {
  return s.length >= 2 && (s[0] === '"' || s[0] === "'" || s[0] === '`') ? s.slice(1, -1) : s;
}

/** The definitions of a top-level `assign` statement (`statement` is its expression statement); empty when it defines none. */
export function commonJsDefinitions(assign: TsNode, statement: TsNode, text: string): CommonJsDefinition[] {
  const left = assign.childForFieldName('left');
  const right = assign.childForFieldName('right');
  if (left === null || right === null || left.type !== 'member_expression') return [];
  const target = text.slice(left.startIndex, left.endIndex).replace(/\s+/g, '');
  if (target === 'module.exports') {
    if (FUNCTION_VALUE_TYPES.has(right.type) || right.type === 'class') {
      const nameNode = right.childForFieldName('name');
      const name = nameNode ? text.slice(nameNode.startIndex, nameNode.endIndex) : 'default';
      return [{ kind: right.type === 'class' ? 'class' : 'function', name, isDefault: true, at: statement, value: right }];
    }
    if (right.type === 'object') return objectMembers(right, text);
    return [];
  }
  const m = EXPORT_PROPERTY.exec(target);
  if (m && (FUNCTION_VALUE_TYPES.has(right.type) || right.type === 'class')) {
    return [{ kind: right.type === 'class' ? 'class' : 'function', name: m[1]!, isDefault: false, at: statement, value: right }];
  }
  return [];
}

/** `{ f: function () {}, g() {}, h: () => … }`: a function per member whose value is one. */
function objectMembers(object: TsNode, text: string): CommonJsDefinition[] {
  const out: CommonJsDefinition[] = [];
  for (const p of object.namedChildren) {
    if (p === null) continue;
    if (p.type === 'method_definition') {
      const key = p.childForFieldName('name');
      if (key) out.push({ kind: 'function', name: unquote(text.slice(key.startIndex, key.endIndex)), isDefault: false, at: p, value: p });
    } else if (p.type === 'pair') {
      const key = p.childForFieldName('key');
      const value = p.childForFieldName('value');
      if (key && value && FUNCTION_VALUE_TYPES.has(value.type)) {
        out.push({ kind: 'function', name: unquote(text.slice(key.startIndex, key.endIndex)), isDefault: false, at: p, value });
      }
    }
  }
  return out;
}
