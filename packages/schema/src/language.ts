/**
 * What a language brings to the index, in one descriptor its adapter package exports
 * (`typescriptLanguage` in @ca/parse-ts, `csharpLanguage` in @ca/parse-cs). The engine takes a
 * list of them (`Engine.open(root, { languages })`) and hands the store the strategies it needs
 * (module resolution, declared-type parsing): neither the engine nor the store names a language.
 * Types and pure helpers only: no I/O.
 */
import type { Language, LanguageAdapter } from './model.js';

/** A repository project file (`.csproj` …) an adapter reads: its repo path and text. */
export interface ProjectFile {
  readonly path: string;
  readonly text: string;
}

/** Whether a project file declares a test project, and the reason (what decided it, or why it could not be read). */
export interface ProjectTestFact {
  readonly test: boolean;
  readonly reason: string;
  /** Set when the project file could not be read (malformed): not a test project, `reason` says why. */
  readonly unreadable?: true;
}

/** The project file of a directory (repo-relative, '' for the root), or null without one. */
export type ProjectReader = (dir: string) => ProjectFile | null;

/** What an adapter is created with. */
export interface AdapterContext {
  /**
   * The reader of the project files the language claims (`LanguageSupport.isProjectFile`) in the
   * tree being indexed. It changes between index runs: an adapter asks for it again on each use.
   */
  projects(): ProjectReader;
}

/**
 * How a module path an import names (repo-relative, as the extractor wrote it: `src/util`,
 * `src/util.js`) becomes a file: the candidate paths, tried in order; the first one the label
 * holds is the module's file.
 */
export interface ModuleResolution {
  candidates(modulePath: string): readonly string[];
}

/**
 * How declared types are read from a declaration's signature (what `type:` filters match).
 * Kinds are the store's business: it asks for parameter types of callables and for the declared
 * type of a value that carries no `returnType`.
 */
export interface DeclaredTypeSyntax {
  /** The type of one parameter as written between a callable's parentheses, or null when untyped. */
  parameterType(parameter: string): string | null;
  /** The declared type of a property or variable from its signature, or null. */
  valueType(name: string, signature: string): string | null;
}

/** Where a parse worker thread imports a language descriptor from (functions do not cross threads). */
export interface WorkerEntry {
  /** A module specifier resolvable from @ca/engine (a package name or a file URL). */
  readonly module: string;
  /** The named export holding the `LanguageSupport`. */
  readonly export: string;
}

/** One language (or family of languages sharing an adapter: TS covers `ts` and `js`). */
export interface LanguageSupport {
  /** Stable id of the descriptor (`typescript`, `csharp`). */
  readonly id: string;
  /** The language ids its files carry (`Language` values stored with files and nodes). */
  readonly languages: readonly Language[];
  /** Extensions handled, lower case with dot. */
  readonly extensions: readonly string[];
  /**
   * Whole file names handled, lower case (`openapi.json`): a language that owns only some files
   * of an extension. A name claimed here wins over another language's claim of its extension.
   */
  readonly fileNames?: readonly string[];
  /** The language of a path, without loading a grammar; null when the path is not this language's. */
  languageOf(path: string): Language | null;
  /** Creates the syntactic adapter (loads its grammar). */
  createAdapter(context: AdapterContext): Promise<LanguageAdapter>;
  /** Where parse worker threads load this descriptor; without it the language parses on the main thread. */
  readonly worker?: WorkerEntry;
  /** Module resolution of its import edges; without it a module path resolves only as written. */
  readonly moduleResolution?: ModuleResolution;
  /** Declared-type parsing; without it `type:` matches only `returnType` of values. */
  readonly declaredTypes?: DeclaredTypeSyntax;
  /** Whether a repo path is one of the project files its adapter reads (`.csproj`). */
  isProjectFile?(path: string): boolean;
  /** Whether one of its project files (`isProjectFile`) is a test project: its nodes are test code for ranking and `is:test`. */
  testProject?(file: ProjectFile): ProjectTestFact;
  /** Whether a module can export a symbol under another name (`export { a as b }`): a text search for its name may miss uses. */
  readonly exportAliases?: boolean;
  /** Other names a symbol is used by (C# `FooAttribute` is used as `Foo`), for text-based navigation. */
  nameEquivalents?(name: string): readonly string[];
}

/** What the store needs of the languages: module resolution and declared types, by language id. */
export type LanguageSyntax = Pick<LanguageSupport, 'languages' | 'moduleResolution' | 'declaredTypes'>;

/** Lower-case extension of a path's last segment (`.ts`; `.d.ts` counts as `.ts`), or ''. */
export function extensionOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash ? path.slice(dot).toLowerCase() : '';
}

/**
 * Splits `text` at top-level occurrences of `sep` (outside <>, (), [], {} and quotes; `=>`, `==`
 * are not an `=`). Declared-type parsers of several languages share it.
 */
export function splitTopLevel(text: string, sep: string): string[] {
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

const CALLABLE = new Set(['function', 'method', 'constructor', 'destructor', 'operator', 'indexer', 'getter', 'setter', 'component', 'delegate']);
const VALUE = new Set(['property', 'field', 'constant', 'variable', 'event']);

/**
 * The type texts `type:` matches for a symbol: its parameter types when it is callable, its
 * declared type when it holds a value; empty when the declaration writes none, or when its
 * language has no declared-type syntax (`syntax` undefined) and it carries no `returnType`.
 */
export function declaredTypes(kind: string, syntax: DeclaredTypeSyntax | undefined, name: string, signature: string, returnType: string | null): string[] {
  if (CALLABLE.has(kind)) {
    if (syntax === undefined) return [];
    const list = parameterList(name, signature);
    if (list === null || list.trim() === '') return [];
    return splitTopLevel(list, ',')
      .map((p) => syntax.parameterType(p))
      .filter((t): t is string => t !== null);
  }
  if (VALUE.has(kind)) {
    if (returnType) return [returnType];
    const t = syntax?.valueType(name, signature) ?? null;
    return t ? [t] : [];
  }
  return [];
}
