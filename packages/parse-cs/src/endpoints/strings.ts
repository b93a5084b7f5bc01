import type { Node as TsNode } from 'web-tree-sitter';

/**
 * A string expression evaluated from syntax: its text, and why it is not exact when a part
 * could not be known (the part is then written `{name}` so the template keeps its shape).
 */
export interface StringValue {
  readonly text: string;
  readonly approximate: string | null;
}

/** Looks up a `const string` visible in the file: `Name` from inside `fromType`, or `Type.Name`. */
export interface ConstantLookup {
  (name: string, qualifier: string | null, fromType: string | null): StringValue | null;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v' };
const MAX_DEPTH = 32;

/** `\"`, `\\`, `\n`, `\u0041` … → their characters (an unknown escape keeps its letter). */
function unescape(seq: string): string {
  const c = seq[1] ?? '';
  if (c === 'u' || c === 'x' || c === 'U') {
    const code = Number.parseInt(seq.slice(2), 16);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
  }
  return SIMPLE_ESCAPES[c] ?? c;
}

/** The text of a regular, verbatim or raw string literal (null for any other node). */
export function literalText(n: TsNode): string | null {
  switch (n.type) {
    case 'string_literal': {
      let out = '';
      for (const c of n.namedChildren) {
        if (!c) continue;
        if (c.type === 'string_literal_content') out += c.text;
        else if (c.type === 'escape_sequence') out += unescape(c.text);
      }
      return out;
    }
    case 'verbatim_string_literal':
      return n.text.replace(/^@"/, '').replace(/"$/, '').replace(/""/g, '"');
    case 'raw_string_literal':
      return n.namedChildren.filter((c) => c?.type === 'raw_string_content').map((c) => c!.text).join('');
    default:
      return null;
  }
}

/** What a part that could not be evaluated looks like in the template: `{Name}` or `{expr}`. */
function placeholderOf(n: TsNode): string {
  const t = n.text.replace(/\s+/g, '');
  return /^[A-Za-z_][\w.]{0,60}$/.test(t) ? `{${t}}` : '{expr}';
}

/**
 * Evaluates a string expression the way the compiler folds constants: literals, `+`,
 * interpolation of constants, `nameof(X)`, parentheses and `const string` names the lookup
 * finds. Anything else (a variable, a call) becomes a placeholder and the value approximate.
 */
export class StringEvaluator {
  constructor(
    private readonly lookup: ConstantLookup,
    private readonly fromType: string | null,
  ) {}

  /** The value of `n`; never throws. */
  evaluate(n: TsNode, depth = 0): StringValue {
    if (depth > MAX_DEPTH) return { text: '{expr}', approximate: 'route expression nested too deeply' };
    const lit = literalText(n);
    if (lit !== null) return { text: lit, approximate: null };
    switch (n.type) {
      case 'parenthesized_expression':
        return n.namedChild(0) ? this.evaluate(n.namedChild(0)!, depth + 1) : this.unknown(n);
      case 'binary_expression':
        return this.concatenation(n, depth);
      case 'interpolated_string_expression':
        return this.interpolation(n, depth);
      case 'invocation_expression':
        return this.nameOf(n) ?? this.unknown(n, 'route built by a method call');
      case 'identifier':
        return this.lookup(n.text, null, this.fromType) ?? this.unknown(n, `route uses ${n.text}, not a constant declared in this file`);
      case 'member_access_expression':
        return this.memberConstant(n);
      default:
        return this.unknown(n, 'route built from an expression');
    }
  }

  private unknown(n: TsNode, reason = 'route built from an expression'): StringValue {
    return { text: placeholderOf(n), approximate: reason };
  }

  private concatenation(n: TsNode, depth: number): StringValue {
    const op = n.childForFieldName('operator')?.text;
    const left = n.childForFieldName('left');
    const right = n.childForFieldName('right');
    if (op !== '+' || !left || !right) return this.unknown(n);
    return join([this.evaluate(left, depth + 1), this.evaluate(right, depth + 1)]);
  }

  private interpolation(n: TsNode, depth: number): StringValue {
    const raw = n.children.some((c) => c?.type === 'interpolation_quote');
    const parts: StringValue[] = [];
    for (const c of n.namedChildren) {
      if (!c) continue;
      if (c.type === 'string_content') parts.push({ text: raw ? c.text : c.text.replace(/\{\{/g, '{').replace(/\}\}/g, '}'), approximate: null });
      else if (c.type === 'escape_sequence') parts.push({ text: unescape(c.text), approximate: null });
      else if (c.type === 'interpolation') {
        const inner = c.namedChildren.find((x) => x !== null && !x.type.startsWith('interpolation_'));
        const formatted = c.namedChildren.some((x) => x?.type === 'interpolation_alignment_clause' || x?.type === 'interpolation_format_clause');
        if (!inner) continue;
        const v = this.evaluate(inner, depth + 1);
        parts.push(formatted ? { text: v.text, approximate: v.approximate ?? 'interpolation with a format' } : v);
      }
    }
    return join(parts);
  }

  /** `nameof(X)`, `nameof(A.B)` → the last name; null when `n` is not `nameof`. */
  private nameOf(n: TsNode): StringValue | null {
    const fn = n.childForFieldName('function');
    if (fn?.type !== 'identifier' || fn.text !== 'nameof') return null;
    const arg = n.childForFieldName('arguments')?.namedChildren.find((c) => c?.type === 'argument')?.namedChild(0);
    if (!arg) return null;
    const text = arg.text.replace(/\s+/g, '').replace(/<[\s\S]*$/, '');
    return { text: text.slice(text.lastIndexOf('.') + 1), approximate: null };
  }

  private memberConstant(n: TsNode): StringValue {
    const expr = n.childForFieldName('expression');
    const name = n.childForFieldName('name')?.text ?? '';
    const qualifier = expr ? expr.text.replace(/\s+/g, '') : '';
    const simpleQualifier = qualifier.slice(qualifier.lastIndexOf('.') + 1);
    return this.lookup(name, simpleQualifier, this.fromType) ?? this.unknown(n, `route uses ${qualifier}.${name}, not a constant declared in this file`);
  }
}

/** Concatenates values; the first approximation reason wins. */
export function join(parts: readonly StringValue[]): StringValue {
  let text = '';
  let approximate: string | null = null;
  for (const p of parts) {
    text += p.text;
    approximate ??= p.approximate;
  }
  return { text, approximate };
}
