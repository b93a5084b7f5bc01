/**
 * The graph model shared by every layer: node kinds, edge types, confidences, spans,
 * parse status and the parser output (`FileIndex`). Plain data, no I/O.
 */

export const LANGUAGES = ['ts', 'js', 'cs'] as const;
/** The languages this build ships (their descriptors live with their adapters). */
export type BuiltinLanguage = (typeof LANGUAGES)[number];
/**
 * Source language of a file or node. TSX counts as `ts`, JSX as `js`. Any language a registered
 * `LanguageSupport` names is one (a string), the built-in ones are spelled out for editors.
 */
export type Language = BuiltinLanguage | (string & {});

export const NODE_KINDS = [
  'file',
  'project',
  'module',
  'namespace',
  'class',
  'struct',
  'record',
  'interface',
  'enum',
  'type_alias',
  'delegate',
  'function',
  'method',
  'constructor',
  'destructor',
  'operator',
  'indexer',
  'getter',
  'setter',
  'property',
  'field',
  'constant',
  'event',
  'variable',
  'component',
  /** An HTTP endpoint (method + normalised route template), linked to its handler by `handles`. */
  'endpoint',
  /** A section of a documentation file (Markdown, by heading); kept out of code search unless asked. */
  'doc',
  /** A key of a configuration file (JSON, YAML); kept out of code search unless asked. */
  'config',
] as const;
/** Kinds of non-code chunks: search leaves them out unless asked (`include_docs`, `kind:doc`). */
export const DOC_KINDS: readonly NodeKind[] = ['doc', 'config'];
/**
 * Language ids of documentation and configuration files (Markdown, JSON, YAML). Every node of
 * such a file (its file node too) lives in the index's documentation partition: a full-text
 * table of its own, no vectors, out of the name channel — so a code search reads exactly what
 * it read before these files were indexed, with no filter.
 */
export const DOC_LANGUAGES: readonly string[] = ['markdown', 'json', 'yaml'];

/** Whether a file or node of this language belongs to the documentation partition. */
export function isDocLanguage(language: string | null | undefined): boolean {
  return language !== null && language !== undefined && DOC_LANGUAGES.includes(language);
}
export type NodeKind = (typeof NODE_KINDS)[number];

/** Kinds whose declaration has a body that chunk text collapses when it is a child. */
export const CALLABLE_KINDS: ReadonlySet<NodeKind> = new Set<NodeKind>([
  'function',
  'method',
  'constructor',
  'destructor',
  'operator',
  'indexer',
  'getter',
  'setter',
  'component',
]);

/** Kinds that define a type (used by the definition boost and `impls`). */
export const TYPE_KINDS: ReadonlySet<NodeKind> = new Set<NodeKind>([
  'class',
  'struct',
  'record',
  'interface',
  'enum',
  'type_alias',
  'delegate',
]);

export const EDGE_TYPES = [
  'contains',
  'imports',
  'calls',
  'references',
  'inherits',
  'implements',
  'overrides',
  'accepts',
  'extends',
  /** endpoint → the action, lambda or page that serves it. */
  'handles',
  /** client call site's symbol → the endpoint it requests (across languages). */
  'http_calls',
  /** C# symbol reading a configuration key or section → the `config` node of an appsettings file (decision 048). */
  'reads_config',
] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

/** Ordered from strongest to weakest. */
export const CONFIDENCES = ['exact', 'probable', 'approximate'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** True when `c` is at least as strong as `min`. */
export function confidenceAtLeast(c: Confidence, min: Confidence): boolean {
  return CONFIDENCES.indexOf(c) <= CONFIDENCES.indexOf(min);
}

export const PARSE_STATUSES = ['ok', 'partial', 'error', 'no_grammar', 'skipped'] as const;
export type ParseStatus = (typeof PARSE_STATUSES)[number];

/**
 * A source range. Lines are 1-based and inclusive; bytes are 0-based UTF-8 offsets,
 * `endByte` exclusive.
 */
export interface Span {
  readonly startLine: number;
  readonly endLine: number;
  readonly startByte: number;
  readonly endByte: number;
}

export const MODIFIERS = [
  'export',
  'default',
  'public',
  'private',
  'protected',
  'internal',
  'static',
  'abstract',
  'async',
  'override',
  'virtual',
  'readonly',
  'declare',
  'const',
  'sealed',
  'partial',
  'extern',
  'deprecated',
  'generator',
  'optional',
] as const;
export type Modifier = (typeof MODIFIERS)[number];

/** A symbol found by a parser, before it has a database id. */
export interface ExtractedNode {
  /** Unique within its FileIndex; edges refer to nodes of the same file through it. */
  readonly localId: string;
  readonly kind: NodeKind;
  readonly name: string;
  /** Container chain joined with `.` (TS: `AuthService.login`; C#: `MyApp.Auth.AuthService.Login`). */
  readonly qualifiedName: string;
  /** Deterministic identity, see `symbolKey()`. */
  readonly symbolKey: string;
  /** 0 unless an identical key already occurs earlier in the same file. */
  readonly disambiguator: number;
  readonly parentLocalId: string | null;
  readonly span: Span;
  readonly signature: string;
  readonly parameterCount: number | null;
  readonly returnType: string | null;
  readonly modifiers: readonly Modifier[];
  readonly isPublicApi: boolean;
  readonly doc: string | null;
  /** The symbol's source with body-bearing children collapsed to their signature. */
  readonly chunkText: string;
  /** Attributes / decorators as written (`[HttpGet]`, `@Injectable()`), without brackets/at sign. */
  readonly attributes?: readonly string[];
}

/**
 * Where an edge points before resolution. `key` is a symbol key when the parser knows it
 * exactly (contains, same-file targets); otherwise resolution uses `name` plus hints.
 */
export interface EdgeTarget {
  /** Symbol key when known, else a name-based key `?name`. */
  readonly key: string;
  /** Simple or dotted name as written at the use site (`save`, `repo.save`, `Base`). */
  readonly name: string;
  /** localId of a node in the same FileIndex, when the parser resolved it locally. */
  readonly localId?: string;
  /** Repo-relative module path (without extension) the name was imported from, if any. */
  readonly modulePath?: string;
  /** For imports: the external module specifier as written (`react`, `./util`). */
  readonly specifier?: string;
  /** For imports: the name exported by the target module (`default` for default imports). */
  readonly importedName?: string;
}

export interface ExtractedEdge {
  readonly sourceLocalId: string;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  readonly target: EdgeTarget;
  /** 1-based line of the use site. */
  readonly line: number;
}

export interface Diagnostic {
  readonly severity: 'error' | 'warning' | 'info';
  readonly code: string;
  readonly message: string;
  readonly line?: number;
}

/** Everything a language adapter produces for one file. Parsers never touch SQLite. */
export interface FileIndex {
  readonly path: string;
  readonly language: Language;
  readonly parseStatus: ParseStatus;
  readonly generated: boolean;
  readonly lineCount: number;
  readonly nodes: readonly ExtractedNode[];
  readonly edges: readonly ExtractedEdge[];
  readonly diagnostics: readonly Diagnostic[];
  /** Names this file exports (`default` included), for import resolution. */
  readonly exports: readonly string[];
  /** Module paths this file re-exports from (`export * from './x'`), repo-relative, no extension. */
  readonly reExports: readonly { readonly modulePath: string; readonly names: readonly string[] | '*' }[];
}

/** Input to a language adapter. */
export interface SourceFile {
  /** Repo-relative POSIX path. */
  readonly path: string;
  readonly text: string;
}

/** The interface every language plug-in implements (TS, C#, later others). */
export interface LanguageAdapter {
  readonly id: string;
  /** Extensions handled, lower case with dot (`.ts`). */
  readonly extensions: readonly string[];
  readonly extractorVersion: string;
  /**
   * The extractor identity of one file's result, when it depends on more than the file's text
   * (C#: the project's preprocessor symbols). A stored result whose identity differs is parsed
   * again even if the text did not change. Default `${id}@${extractorVersion}`.
   */
  extractorFor?(path: string): string;
  languageOf(path: string): Language | null;
  parse(file: SourceFile, options?: { readonly deadlineMs?: number }): Promise<FileIndex> | FileIndex;
  dispose?(): Promise<void> | void;
}

/** The extractor identity of `path`'s result under `adapter` (see `LanguageAdapter.extractorFor`). */
export function extractorOf(adapter: LanguageAdapter, path: string): string {
  return adapter.extractorFor?.(path) ?? `${adapter.id}@${adapter.extractorVersion}`;
}
