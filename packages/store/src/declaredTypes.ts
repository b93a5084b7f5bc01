/**
 * The type texts a symbol declares, read from what the index holds: its signature (the
 * declaration's own text up to its body) and `return_type`. No type checker is involved, so a
 * type is what was written (`Money`, `Billing.Invoice[]`, `Task<IEnumerable<T>>`), never an
 * inferred one: `const x = new Map()` declares no type. This is what the filter fields read:
 * - `returns:` — the return type of callables (C# properties, fields and events carry their
 *   type there too);
 * - `type:` — the parameter types of callables, and the declared type of properties, fields,
 *   constants, variables and events.
 * How a parameter or a value writes its type is the language's (`DeclaredTypeSyntax` of its
 * `LanguageSupport`, handed to the store by the engine); `declaredTypes` (@ca/schema) applies it.
 */
export { declaredTypes } from '@ca/schema';

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
