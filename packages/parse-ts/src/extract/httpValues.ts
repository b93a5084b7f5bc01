/**
 * Syntactic values of the expressions an HTTP client call is given: the URL (strings, template
 * literals, `+` concatenation, constants of the same file, variables assigned earlier in the same
 * function, NSwag's `url_.replace("{id}", …)`) and option objects (`{ method: 'POST' }`).
 *
 * A value is text in which {@link UNKNOWN} stands for each part whose value the syntax does not
 * give (a parameter, user input, a base URL read from a field). Nothing is guessed: a part that
 * is not a literal or a constant of this file is unknown.
 */
import type { Node as TsNode } from 'web-tree-sitter';
import { stripQuotes } from './syntax.js';

/** Stands for an unknown part of a value (a character no URL literal holds). */
export const UNKNOWN = '\u0000';
/** How many variables deep a value is followed (a constant made of constants …). */
const MAX_DEPTH = 6;
/**
 * Syntax levels one evaluation may descend (`((((x))))`, a long `+` chain): a generated file's
 * 10,000 nested parentheses must read as unknown, not overflow the stack.
 */
const MAX_NESTING = 500;
const FUNCTION_TYPES: ReadonlySet<string> = new Set([
  'function_declaration',
  'function_expression',
  'arrow_function',
  'method_definition',
  'generator_function_declaration',
  'function',
]);

/**
 * Names a value another file declares (an imported const, a field a base class constructor
 * sets): the text standing for it inside a value, or null when `node` is no such reference.
 */
export type ReferenceReader = (node: TsNode) => string | null;

/**
 * Evaluates expressions of one file; `constants` are its top-level `const` initialisers by name;
 * `reference` names what the file cannot give but another file may (decision 038).
 */
export class ValueReader {
  constructor(
    private readonly text: string,
    private readonly constants: ReadonlyMap<string, TsNode>,
    private readonly reference: ReferenceReader = () => null,
  ) {}

  /** The node's source text. */
  source(node: TsNode): string {
    return this.text.slice(node.startIndex, node.endIndex);
  }

  /** Syntax levels `value`/`object` are inside now (parentheses, `+`, templates nest without a binding hop). */
  private nesting = 0;

  /** The string value of `node` with {@link UNKNOWN} for unknown parts. */
  value(node: TsNode | null, depth = 0): string {
    if (node === null || depth > MAX_DEPTH || this.nesting >= MAX_NESTING) return UNKNOWN;
    this.nesting++;
    try {
      return this.valueOf(node, depth);
    } finally {
      this.nesting--;
    }
  }

  private valueOf(node: TsNode, depth: number): string {
    switch (node.type) {
      case 'string':
        return stripQuotes(this.source(node));
      case 'template_string':
        return this.template(node, depth);
      case 'parenthesized_expression':
      case 'as_expression':
      case 'non_null_expression':
      case 'satisfies_expression':
        return this.value(node.namedChildren[0] ?? null, depth);
      case 'binary_expression':
        return this.binary(node, depth);
      case 'identifier': {
        const bound = this.binding(node);
        return bound === null ? (this.reference(node) ?? UNKNOWN) : this.value(bound, depth + 1);
      }
      case 'call_expression':
        return this.call(node, depth);
      case 'member_expression': {
        const field = classFieldValue(node, this.text);
        return field === null ? (this.reference(node) ?? UNKNOWN) : this.value(field, depth + 1);
      }
      default:
        return UNKNOWN;
    }
  }

  /** The object literal `node` stands for (itself, or the initialiser of the variable it names), or null. */
  object(node: TsNode | null, depth = 0): TsNode | null {
    if (node === null || depth > MAX_DEPTH || this.nesting >= MAX_NESTING) return null;
    if (node.type === 'object') return node;
    this.nesting++;
    try {
      if (node.type === 'identifier') return this.object(this.binding(node), depth + 1);
      if (node.type === 'parenthesized_expression' || node.type === 'as_expression' || node.type === 'satisfies_expression') return this.object(node.namedChildren[0] ?? null, depth);
      return null;
    } finally {
      this.nesting--;
    }
  }

  /**
   * Property `name` of an object literal: its value node, `undefined` when the object surely has
   * no such property, `null` when it may (a spread or computed key could bring it).
   */
  property(object: TsNode, name: string): TsNode | null | undefined {
    let open = false;
    for (const p of object.namedChildren) {
      if (p === null) continue;
      if (p.type === 'spread_element') open = true;
      else if (p.type === 'pair') {
        const key = p.childForFieldName('key');
        if (key === null) continue;
        if (key.type === 'computed_property_name') open = true;
        else if (stripQuotes(this.source(key)) === name) return p.childForFieldName('value');
      } else if (p.type === 'shorthand_property_identifier' && this.source(p) === name) return p;
    }
    return open ? null : undefined;
  }

  private template(node: TsNode, depth: number): string {
    let out = '';
    for (const c of node.namedChildren) {
      if (c === null) continue;
      if (c.type === 'string_fragment' || c.type === 'escape_sequence') out += this.source(c);
      else if (c.type === 'template_substitution') out += this.value(c.namedChildren[0] ?? null, depth);
    }
    // A template with only fragments may have them as unnamed text between the backticks.
    return node.namedChildren.length === 0 ? stripQuotes(this.source(node)) : out;
  }

  private binary(node: TsNode, depth: number): string {
    const op = node.childForFieldName('operator');
    if (op === null || this.source(op) !== '+') return UNKNOWN;
    return this.value(node.childForFieldName('left'), depth) + this.value(node.childForFieldName('right'), depth);
  }

  /** `s.replace("{id}", x)` (NSwag fills its route parameters so) and `s.replace(/re/, "")` (its trailing `?`/`&` trim). */
  private call(node: TsNode, depth: number): string {
    const fn = node.childForFieldName('function');
    if (fn?.type !== 'member_expression') return UNKNOWN;
    const prop = fn.childForFieldName('property');
    if (prop === null || this.source(prop) !== 'replace') return UNKNOWN;
    const base = this.value(fn.childForFieldName('object'), depth);
    const args = node.childForFieldName('arguments')?.namedChildren.filter((a) => a !== null && a.type !== 'comment') ?? [];
    const pattern = args[0];
    if (pattern?.type === 'string') {
      const literal = stripQuotes(this.source(pattern));
      const by = this.value(args[1] ?? null, depth);
      return literal === '' ? base : base.replace(literal, by.includes(UNKNOWN) ? UNKNOWN : by);
    }
    // A regular expression replacement: only NSwag's trim of a trailing query separator is known.
    if (pattern?.type === 'regex' && /^\/\[\?&\]\$\/$/.test(this.source(pattern))) return base.replace(/[?&]$/, '');
    return UNKNOWN;
  }

  /**
   * The expression a name stands for at `use`: the last assignment or declaration of it before
   * `use` in the enclosing functions (innermost first), else a top-level constant of the file.
   */
  private binding(use: TsNode): TsNode | null {
    const name = this.source(use);
    for (let scope = enclosingFunction(use); scope !== null; scope = enclosingFunction(scope)) {
      const found = lastAssignmentBefore(scope, name, use.startIndex, this.text);
      if (found !== undefined) return found;
    }
    return this.constants.get(name) ?? null;
  }
}

function enclosingFunction(node: TsNode): TsNode | null {
  for (let p = node.parent; p !== null; p = p.parent) if (FUNCTION_TYPES.has(p.type)) return p;
  return null;
}

/**
 * The value last given to `name` in `scope`'s own body before `before`: a declarator's
 * initialiser or an assignment's right side; `undefined` when `scope` gives it none (a parameter
 * of `scope` is a value unknown here: null).
 */
function lastAssignmentBefore(scope: TsNode, name: string, before: number, text: string): TsNode | null | undefined {
  const params = scope.childForFieldName('parameters') ?? scope.childForFieldName('parameter');
  let found: TsNode | null | undefined = undefined;
  if (params !== null && new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}([^\\w$]|$)`).test(text.slice(params.startIndex, params.endIndex))) found = null;
  const body = scope.childForFieldName('body');
  if (body === null) return found;
  const stack: TsNode[] = [body];
  let bestAt = -1;
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.startIndex >= before) continue;
    if (n !== body && FUNCTION_TYPES.has(n.type)) continue;
    if (n.type === 'variable_declarator' || n.type === 'assignment_expression') {
      const left = n.childForFieldName(n.type === 'variable_declarator' ? 'name' : 'left');
      const right = n.childForFieldName('value') ?? n.childForFieldName('right');
      if (left?.type === 'identifier' && text.slice(left.startIndex, left.endIndex) === name && n.endIndex <= before && n.startIndex > bestAt) {
        bestAt = n.startIndex;
        found = right;
      }
    }
    for (const c of n.namedChildren) if (c !== null) stack.push(c);
  }
  return found;
}

/**
 * The initialiser of the class field `this.x` stands for (`private apiUrl = '/api/orders';` in the
 * enclosing class), or null: when the field has none, is static or decorated, or the class assigns
 * `this.x` anywhere else (a constructor or method may change it, so its value at the call is unknown).
 */
function classFieldValue(node: TsNode, text: string): TsNode | null {
  const object = node.childForFieldName('object');
  const property = node.childForFieldName('property');
  if (object?.type !== 'this' || property === null) return null;
  const name = text.slice(property.startIndex, property.endIndex);
  let body: TsNode | null = null;
  for (let p = node.parent; p !== null && body === null; p = p.parent) if (p.type === 'class_body') body = p;
  if (body === null) return null;
  let value: TsNode | null = null;
  for (const member of body.namedChildren) {
    if (member?.type !== 'public_field_definition') continue;
    const key = member.childForFieldName('name');
    // A static field is no `this.x`; a decorated one (`@Input() url = …`) is set from outside.
    if (key !== null && text.slice(key.startIndex, key.endIndex) === name && !/\bstatic\b|@/.test(text.slice(member.startIndex, key.startIndex))) {
      value = member.childForFieldName('value');
    }
  }
  if (value === null) return null;
  const assigned = new RegExp(`\\bthis\\s*\\.\\s*${name.replace(/\$/g, '\\$')}\\s*(?:[-+*/%&|^]|\\?\\?|&&|\\|\\|)?=(?!=)`);
  return assigned.test(text.slice(body.startIndex, body.endIndex)) ? null : value;
}
