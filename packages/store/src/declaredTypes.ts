/**
 * The type texts a symbol declares, read from what the index holds: its signature (the
 * declaration's own text up to its body) and `return_type`. No type checker is involved, so a
 * type is what was written (`Money`, `Billing.Invoice[]`, `Task<IEnumerable<T>>`), never an
 * inferred one: `const x = new Map()` declares no type. This is what the filter fields read:
 * - `returns:` — the return type of callables (C# properties, fields and events carry their
 *   type there too);
 * - `type:` — the parameter types of callables, and the declared type of properties, fields,
 *   constants, variables and events.
 */

const CALLABLE = new Set(['function', 'method', 'constructor', 'destructor', 'operator', 'indexer', 'getter', 'setter', 'component', 'delegate']);
const VALUE = new Set(['property', 'field', 'constant', 'variable', 'event']);
const TS_PARAMETER_MODIFIERS = /^(?:(?:readonly|private|public|protected|override|declare)\s+)+/;
const CS_PARAMETER_MODIFIERS = /^(?:(?:this|ref|out|in|params|scoped|readonly)\s+)+/;
const TYPE_NAME = /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/g;

/**
 * True when `re` (an anchored glob) matches the type text whole, or one of the type names in it
 * (a dotted name, or its last part): `Task` matches `Task<int>`, `Invoice` matches
 * `Billing.Invoice[]`, `Promise<*>` matches `Promise<void>`.
 */
export function typeMatches(re: RegExp, text: string): boolean {
  if (re.test(text.trim())) return true;
  for (const m of text.matchAll(TYPE_NAME)) {
    const name = m[0];
    if (re.test(name)) return true;
    const dot = name.lastIndexOf('.');
    if (dot >= 0 && re.test(name.slice(dot + 1))) return true;
  }
  return false;
}

/** Splits `text` at top-level occurrences of `sep` (outside <>, (), [], {} and quotes; `=>`, `==` are not an `=`). */
function splitTopLevel(text: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '<' || c === '(' || c === '[' || c === '{') depth++;
    else if ((c === '>' && text[i - 1] !== '=') || c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0 && text.startsWith(sep, i) && !(sep === '=' && (text[i + 1] === '>' || text[i + 1] === '=' || /[=!<>]/.test(text[i - 1] ?? '')))) {
      out.push(text.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** The index of the `)` closing the `(` at `open`, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** The parameter list of a callable's signature (the parentheses after its name). */
function parameterList(name: string, signature: string): string | null {
  let from = 0;
  const at = name === '' ? -1 : signature.indexOf(name);
  if (at >= 0) from = at + name.length;
  const open = signature.indexOf('(', from);
  if (open < 0) return null;
  const close = closing(signature, open);
  return close < 0 ? signature.slice(open + 1) : signature.slice(open + 1, close);
}

/** The type of one TS/JS parameter (`a: T = x`, `{ a }: Props`, `...rest: T[]`), or null when untyped. */
function tsParameterType(param: string): string | null {
  const p = param.trim().replace(TS_PARAMETER_MODIFIERS, '').replace(/^\.\.\./, '');
  const parts = splitTopLevel(p, ':');
  if (parts.length < 2) return null;
  const type = splitTopLevel(parts.slice(1).join(':'), '=')[0]!.trim();
  return type === '' ? null : type;
}

/** The type of one C# parameter (`[Attr] ref T name = default`): everything before the name. */
function csParameterType(param: string): string | null {
  let p = splitTopLevel(param, '=')[0]!.trim();
  while (p.startsWith('[')) {
    const end = p.indexOf(']');
    if (end < 0) break;
    p = p.slice(end + 1).trim();
  }
  p = p.replace(CS_PARAMETER_MODIFIERS, '');
  const m = /^(.*\S)\s+@?[A-Za-z_][\w]*$/.exec(p);
  return m ? m[1]!.trim() : null;
}

/** The declared type of a TS/JS property or variable from its signature (`name?: T = x`), or null. */
function tsValueType(name: string, signature: string): string | null {
  const at = name === '' ? -1 : signature.indexOf(name);
  const rest = at >= 0 ? signature.slice(at + name.length) : signature;
  const m = /^\??!?\s*:/.exec(rest);
  if (!m) return null;
  const type = splitTopLevel(rest.slice(m[0].length), '=')[0]!.trim();
  return type === '' ? null : type;
}

/**
 * The type texts `type:` matches for a symbol: its parameter types when it is callable, its
 * declared type when it holds a value; empty when the declaration writes none.
 */
export function declaredTypes(kind: string, language: string, name: string, signature: string, returnType: string | null): string[] {
  if (CALLABLE.has(kind)) {
    const list = parameterList(name, signature);
    if (list === null || list.trim() === '') return [];
    const parameterType = language === 'cs' ? csParameterType : tsParameterType;
    return splitTopLevel(list, ',')
      .map(parameterType)
      .filter((t): t is string => t !== null);
  }
  if (VALUE.has(kind)) {
    if (returnType) return [returnType];
    if (language === 'cs') return [];
    const t = tsValueType(name, signature);
    return t ? [t] : [];
  }
  return [];
}
