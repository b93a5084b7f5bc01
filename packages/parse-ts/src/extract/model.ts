/**
 * The records the TypeScript extractor's units share: the symbols the walk creates, the
 * context a wrapper node hands its declaration, the use sites and heritage clauses it collects,
 * and {@link FileFacts}, everything one file's walk gathers for the resolution and node-building
 * steps that follow it.
 */
import type { Modifier, NodeKind } from '@ca/schema';
import { resolveModulePath } from '../text.js';
import type { HttpSite } from './http.js';

/** Thrown inside the walk when the per-file deadline passes. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('deadline exceeded');
  }
}

/** A symbol found by the walk; its index in {@link FileFacts.syms} is its local id. */
export interface Sym {
  readonly idx: number;
  kind: NodeKind;
  readonly name: string;
  readonly containers: readonly string[];
  readonly parent: number;
  readonly children: number[];
  readonly start: number;
  readonly end: number;
  readonly startRow: number;
  readonly endRow: number;
  readonly signature: string;
  /** Collapsible body `{…}` as string indices, -1 when none. */
  readonly bodyStart: number;
  readonly bodyEnd: number;
  readonly bodyLines: number;
  readonly parameterTypes: (string | null)[] | null;
  readonly returnType: string | null;
  readonly modifiers: Set<Modifier>;
  readonly doc: string | null;
  readonly attributes: string[];
  /** Function-like declarations may become components. */
  readonly functionLike: boolean;
  returnsJsx: boolean;
  componentHint: boolean;
  exported: boolean;
}

/** Export / ambient / variable-statement context handed from a wrapper node to its declaration. */
export interface DeclCtx {
  readonly exported: boolean;
  readonly isDefault: boolean;
  readonly declare: boolean;
  readonly spanStart: number;
  readonly spanRow: number;
  /** Start and depth of the outermost wrapper, where a JSDoc comment would sit before. */
  readonly anchorStart: number;
  readonly anchorDepth: number;
  /** Where the declaration header (signature) starts: the `export`/`declare` keyword, after decorators. */
  readonly sigStart: number;
  /** Decorators written before `export` (`@Injectable() export class X`), without the at sign. */
  readonly decorators?: readonly string[];
  /** Set on lexical/variable declarations. */
  readonly varKind?: 'const' | 'let' | 'var';
  readonly singleDeclarator?: boolean;
  readonly stmtEnd?: number;
  readonly stmtEndRow?: number;
}

/** What an imported local name stands for. */
export interface ImportBinding {
  readonly specifier: string;
  readonly modulePath: string | null;
  readonly importedName: string;
}

/** One `imports` edge to emit, in the order the walk met it. */
export interface ImportEdge {
  readonly name: string;
  readonly binding: ImportBinding;
  readonly line: number;
}

/** What a use site is: a plain reference or call, or one through `this`. */
export const enum UseKind {
  Ref,
  Call,
  ThisRef,
  ThisCall,
}

/** A use site, resolved into a `calls` / `references` edge after the walk. */
export interface Use {
  readonly kind: UseKind;
  readonly src: number;
  readonly name: string;
  readonly line: number;
  /** Enclosing class symbol for `this.x` uses, else -1. */
  readonly cls: number;
}

/** An `extends` / `implements` clause, resolved into an `inherits` / `implements` edge. */
export interface Heritage {
  readonly type: 'inherits' | 'implements';
  readonly src: number;
  readonly name: string;
  readonly line: number;
}

/** Declaration modes: what the children of a node may declare. */
export const MODE_CODE = 0;
export const MODE_DECL = 1;
export const MODE_CLASS = 2; // class body: members
export const MODE_IFACE = 3; // interface body: members

export const REACT_COMPONENT_BASES: ReadonlySet<string> = new Set(['React.Component', 'Component', 'PureComponent', 'React.PureComponent']);
export const FC_TYPES: ReadonlySet<string> = new Set([
  'React.FC',
  'FC',
  'React.FunctionComponent',
  'FunctionComponent',
  'React.VFC',
  'VFC',
]);
export const COMPONENT_WRAPPERS: ReadonlySet<string> = new Set(['React.memo', 'memo', 'React.forwardRef', 'forwardRef']);
export const FUNCTION_VALUES: ReadonlySet<string> = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/**
 * Everything one file's walk collects, in the order met: the symbols (index 0 is the file),
 * imports and exports, raw use sites and heritage clauses, and the syntax error count.
 */
export class FileFacts {
  readonly syms: Sym[] = [];
  readonly imports = new Map<string, ImportBinding>();
  readonly importEdges: ImportEdge[] = [];
  readonly exportNames: string[] = [];
  /** Local names exported by `export { x }`, `export default x`, `export = x` or CommonJS. */
  readonly exportedLocals: string[] = [];
  readonly reExports: { modulePath: string; names: string[] | '*' }[] = [];
  readonly uses: Use[] = [];
  readonly heritage: Heritage[] = [];
  /** Calls that may be HTTP client calls (extract/http.ts decides after the walk). */
  readonly httpSites: HttpSite[] = [];
  /** Node ids already taken by a call, JSX tag or heritage clause: not plain references. */
  readonly consumed = new Set<number>();
  barrel: boolean;
  sawExport = false;
  syntaxErrors = 0;
  firstErrorLine = 0;

  constructor(
    readonly path: string,
    readonly text: string,
    fileName: string,
  ) {
    this.barrel = /^index\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/.test(fileName);
  }

  /** Records an import (edge always; local binding when `bind` and named). */
  addImport(name: string, specifier: string, importedName: string, line: number, bind = true): void {
    const binding: ImportBinding = { specifier, modulePath: resolveModulePath(this.path, specifier), importedName };
    if (bind && name !== '') this.imports.set(name, binding);
    this.importEdges.push({ name, binding, line });
  }

  /** Records an exported name once. */
  addExport(name: string): void {
    if (!this.exportNames.includes(name)) this.exportNames.push(name);
  }
}
