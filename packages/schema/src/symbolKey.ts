import type { Language, NodeKind } from './model.js';

/** Where a symbol's identity is anchored. */
export type KeyScope =
  /** File-scoped: non-exported TS/JS symbols, and every TS/JS symbol before the semantic pass. */
  | { readonly kind: 'file'; readonly path: string }
  /** Package-scoped: TS exports reachable from a package entry point; survives file moves. */
  | { readonly kind: 'package'; readonly name: string }
  /** Global namespace scope (C#): the qualified name is already unique per project. */
  | { readonly kind: 'global' };

export interface SymbolKeyInput {
  readonly language: Language;
  readonly scope: KeyScope;
  /** Container chain from outermost to innermost (namespaces, types), without the symbol itself. */
  readonly containers: readonly string[];
  readonly name: string;
  readonly kind: NodeKind;
  /** Parameter types as written, for callables; `null` for non-callables. */
  readonly parameterTypes?: readonly (string | null)[] | null;
  /** Number of generic type parameters of the symbol itself. */
  readonly typeParameterCount?: number;
}

const ACCESSOR_SUFFIX: ReadonlyMap<NodeKind, string> = new Map<NodeKind, string>([
  ['getter', '@get'],
  ['setter', '@set'],
]);

/** Collapses whitespace so formatting changes never change identity. */
function normalizeType(t: string | null): string {
  if (t === null || t.trim() === '') return '_';
  return t.replace(/\s+/g, '').replace(/,/g, ', ').replace(/, /g, ',');
}

function scopePrefix(scope: KeyScope): string {
  switch (scope.kind) {
    case 'file':
      return `file:${scope.path}`;
    case 'package':
      return `pkg:${scope.name}`;
    case 'global':
      return 'global';
  }
}

/**
 * Derives a symbol key: deterministic, independent of line numbers and formatting,
 * distinct for overloads (parameter types), generic overloads (arity) and accessors.
 *
 * Shape: `<lang>:<scope>#<Container>.<Container>.<name>[`arity][@get|@set][(T1,T2)]`.
 * Examples: `ts:file:src/auth.ts#AuthService.login(string,string)`,
 * `ts:pkg:@acme/ui#Button`, ``cs:global#MyApp.Repo`1.Find``1(int)``.
 */
export function symbolKey(input: SymbolKeyInput): string {
  let last = input.name;
  if (input.typeParameterCount && input.typeParameterCount > 0) last += `\`${input.typeParameterCount}`;
  last += ACCESSOR_SUFFIX.get(input.kind) ?? '';
  if (input.parameterTypes) last += `(${input.parameterTypes.map(normalizeType).join(',')})`;
  const path = [...input.containers, last].join('.');
  return `${input.language}:${scopePrefix(input.scope)}#${path}`;
}

/** Splits a key back into its scope and dotted path part. */
export function parseSymbolKey(key: string): { language: string; scope: string; path: string } | null {
  const m = /^([a-z]+):([^#]*)#(.*)$/.exec(key);
  if (!m) return null;
  return { language: m[1]!, scope: m[2]!, path: m[3]! };
}

/** A name-based placeholder key for a target the parser could not resolve. */
export function unresolvedKey(name: string): string {
  return `?${name}`;
}

/**
 * Assigns disambiguators to keys that repeat within one file, in order of appearance:
 * the first occurrence gets 0, the next 1, and so on.
 */
export function disambiguate<T extends { readonly symbolKey: string }>(items: readonly T[]): number[] {
  const seen = new Map<string, number>();
  return items.map((it) => {
    const n = seen.get(it.symbolKey) ?? 0;
    seen.set(it.symbolKey, n + 1);
    return n;
  });
}
