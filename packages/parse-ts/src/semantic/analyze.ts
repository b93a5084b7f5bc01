/**
 * The semantic analysis of one project: builds a ts.Program (no LanguageService, no
 * ts.server, hence no plugin loading), walks every owned file iteratively and resolves use
 * sites with the TypeChecker. Positions are mapped to the syntactic adapter's nodes so every
 * edge is keyed exactly like the syntactic pass keys its nodes.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { gitBlobId, type Confidence, type EdgeType, type FileIndex, type LanguageAdapter, type NodeKind } from '@ca/schema';
import { classifyTsPath } from '../adapter.js';
import { ByteOffsets } from '../text.js';
import {
  isRepoSource,
  repoRelative,
  type LoadedProject,
  type RepoLayout,
  type WorkspacePackage,
} from './projects.js';
import type { FileError, KeyRefinement, ProjectResult, ReferenceCount, SemanticEdge, SyntacticSkeleton } from './types.js';
import { resolveWithWorkspaceFallback } from './merge.js';
import { compilerReadFile } from './safeSystem.js';
import { moduleLookups } from './lookups.js';

/** Thrown by a checkpoint to stop the pass (cancelled, deadline, memory ceiling). */
export class PassStopped extends Error {
  constructor(
    readonly code: 'timeout' | 'oom_restart' | 'cancelled',
    message: string,
  ) {
    super(message);
  }
}

export interface AnalyzeContext {
  readonly layout: RepoLayout;
  readonly adapter: LanguageAdapter;
  /** Absolute paths to report; null = every owned file. */
  readonly requested: ReadonlySet<string> | null;
  /** Called between files: yields to the event loop and throws PassStopped when the pass must stop. */
  readonly checkpoint: () => Promise<void>;
  /** Synchronous check used inside large files (deadline only). */
  readonly checkSync: () => void;
  /** Cache of syntactic indexes shared by all projects of one request. */
  readonly syntactic: Map<string, SyntacticFile>;
  /**
   * Syntactic nodes the caller sent, by absolute path: used instead of a tree-sitter parse when
   * the text's hash matches. Optional.
   */
  readonly skeletons?: ReadonlyMap<string, SyntacticSkeleton>;
  /**
   * Files analysed for some declarations only, by absolute path: the syntactic keys of the
   * sources whose uses are resolved (see `AnalysisRegion`). Absent or no entry: the whole file.
   */
  readonly regions?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Diagnostics sink (`CA_DEBUG_SEMANTIC_TIMING`). */
  readonly timing?: (line: string) => void;
  /**
   * Parsed (and, once a checker ran, bound) source files shared by the programs of one request,
   * keyed by file and source-file-affecting options (like a LanguageService DocumentRegistry):
   * overlapping projects and the lib files are parsed and bound once. Optional.
   */
  readonly sourceFiles?: Map<string, CachedSourceFile>;
  /** Files whose nesting overflows the binder, shared so later programs skip them up front. */
  readonly tooDeep?: Map<string, string>;
}

/**
 * A parsed (and, once a checker was created over it, bound) file shared by the programs of a
 * request and kept by a warm worker for the next one while its size and mtime are unchanged.
 */
export interface CachedSourceFile {
  readonly sf: ts.SourceFile;
  readonly mtimeMs: number;
  readonly size: number;
}

/** What the pass needs of a syntactic node (an `ExtractedNode` has all of it). */
export interface SyntacticNode {
  readonly localId: string;
  readonly parentLocalId: string | null;
  readonly kind: NodeKind;
  readonly name: string;
  readonly symbolKey: string;
  readonly span: { readonly startByte: number; readonly endByte: number };
}

/** A file's syntactic nodes with a containment lookup from UTF-8 byte offsets to nodes. */
export interface SyntacticFile {
  /** The text it was built from (the SourceFile's own string, not a copy). */
  readonly text: string;
  readonly rel: string;
  /** The file node first, as in a FileIndex. */
  readonly nodes: readonly SyntacticNode[];
  readonly offsets: ByteOffsets;
  readonly children: Map<string, SyntacticNode[]>;
  readonly textLength: number;
}

function buildSyntactic(adapter: LanguageAdapter, rel: string, text: string): SyntacticFile {
  const parsed = adapter.parse({ path: rel, text });
  // The TS adapter parses synchronously; a Promise here would mean a different adapter.
  if (parsed instanceof Promise) throw new Error('the semantic pass needs a synchronous syntactic adapter');
  const index: FileIndex = parsed;
  return syntacticFile(rel, text, index.nodes);
}

function syntacticFile(rel: string, text: string, nodes: readonly SyntacticNode[]): SyntacticFile {
  const children = new Map<string, SyntacticNode[]>();
  for (const n of nodes) {
    if (n.parentLocalId === null) continue;
    const list = children.get(n.parentLocalId) ?? [];
    list.push(n);
    children.set(n.parentLocalId, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.span.startByte - b.span.startByte);
  return { text, rel, nodes, offsets: new ByteOffsets(text), children, textLength: text.length };
}

/** A caller's skeleton as a SyntacticFile, or null when it was extracted from another text. */
function fromSkeleton(sk: SyntacticSkeleton, rel: string, text: string): SyntacticFile | null {
  if (sk.nodes.length === 0 || sk.nodes[0]![2] !== 'file' || gitBlobId(text) !== sk.contentHash) return null;
  const nodes = sk.nodes.map(
    ([localId, parentLocalId, kind, name, symbolKey, startByte, endByte]): SyntacticNode => ({ localId, parentLocalId, kind, name, symbolKey, span: { startByte, endByte } }),
  );
  return syntacticFile(rel, text, nodes);
}

/** Innermost node whose byte span contains `pos` (the file node at top level). */
function innermost(f: SyntacticFile, utf16Pos: number): SyntacticNode {
  const byte = f.offsets.at(Math.max(0, Math.min(utf16Pos, f.textLength)));
  let cur = f.nodes[0]!;
  for (;;) {
    const kids = f.children.get(cur.localId);
    if (!kids) return cur;
    let lo = 0;
    let hi = kids.length - 1;
    let hit = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (kids[mid]!.span.startByte <= byte) {
        hit = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Siblings may nest oddly after syntax errors: scan back for one that really contains pos.
    let next: SyntacticNode | null = null;
    for (let i = hit; i >= 0 && i >= hit - 4; i--) {
      const k = kids[i]!;
      if (k.span.startByte <= byte && byte < k.span.endByte) {
        next = k;
        break;
      }
    }
    if (next === null) return cur;
    cur = next;
  }
}

export interface NodeRef {
  readonly path: string;
  readonly node: SyntacticNode;
  /** Reached through a default-exported wrapper call (see `wrappedIdentifier`). */
  readonly wrapped?: boolean;
}

/**
 * The declaration a default-exported wrapper call stands for: the first argument of
 * `memo(Panel, areEqual)`, `forwardRef(Render)`, `memo(forwardRef(Render))` or
 * `connect(mapState)(Toolbar)` when it is an identifier; null for anything else (an inline
 * arrow function, a literal).
 */
function wrappedIdentifier(expr: ts.Expression): ts.Identifier | null {
  let e = skipTypeWrappers(expr);
  while (ts.isCallExpression(e)) {
    const first = e.arguments[0] === undefined ? undefined : skipTypeWrappers(e.arguments[0]);
    if (first === undefined) return null;
    if (ts.isIdentifier(first)) return first;
    e = first;
  }
  return null;
}

/** The property `name` of a type; of a union, of each constituent that has it (each once). */
function propertiesNamed(type: ts.Type, name: string): ts.Symbol[] {
  const out: ts.Symbol[] = [];
  for (const t of type.isUnion() ? type.types : [type]) {
    const prop = t.getProperty(name);
    if (prop !== undefined && !out.includes(prop)) out.push(prop);
  }
  return out;
}

function skipParens(expr: ts.Expression): ts.Expression {
  let e = expr;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/** Kinds of nodes an object literal can implement (`literalImplements`). */
const IMPLEMENTABLE_KINDS: ReadonlySet<string> = new Set(['interface', 'type_alias', 'class']);

/** The expression inside parentheses, `!`, `as T`, `<T>x` and `satisfies T`. */
function skipTypeWrappers(expr: ts.Expression): ts.Expression {
  let e = expr;
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) {
    e = e.expression;
  }
  return e;
}

const CALL_EDGE: EdgeType = 'calls';

/** Follows import/export aliases to the real symbol (barrels, `as` renames, default re-exports). */
function realSymbol(checker: ts.TypeChecker, sym: ts.Symbol | undefined): ts.Symbol | undefined {
  if (sym === undefined) return undefined;
  if (sym.flags & ts.SymbolFlags.Alias) {
    try {
      const aliased = checker.getAliasedSymbol(sym);
      // An unresolvable alias yields the `unknown` symbol, which has no declarations.
      return aliased.declarations && aliased.declarations.length > 0 ? aliased : undefined;
    } catch {
      // A symbol the checker cannot follow (a broken alias) has no repository target.
      return undefined;
    }
  }
  return sym;
}

const namesCache = new WeakMap<ts.SourceFile, readonly string[]>();

/**
 * Every name a declaration of this file may carry (a superset: any node's `name`, plus
 * `x.name = …` expando assignments of JS files). Cached per SourceFile, which programs of one
 * request share.
 */
function declaredNames(sf: ts.SourceFile): readonly string[] {
  const cached = namesCache.get(sf);
  if (cached !== undefined) return cached;
  const out = new Set<string>();
  const stack: ts.Node[] = [sf];
  while (stack.length > 0) {
    const n = stack.pop()!;
    const name = (n as { name?: ts.Node }).name;
    if (name !== undefined && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))) {
      out.add(name.text);
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const l = n.left;
      if (ts.isPropertyAccessExpression(l)) out.add(l.name.text);
      else if (ts.isElementAccessExpression(l) && ts.isStringLiteralLike(l.argumentExpression)) out.add(l.argumentExpression.text);
    }
    ts.forEachChild(n, (c) => {
      stack.push(c);
    });
  }
  const list = [...out];
  namesCache.set(sf, list);
  return list;
}

/** True when a symbol has several signature declarations (overloads) to choose from. */
function isOverloaded(sym: ts.Symbol): boolean {
  // Same container = overloads; declarations in different containers (union/intersection
  // members, merged interfaces) are distinct targets that all get an edge.
  const parents = new Set<ts.Node>();
  for (const d of sym.declarations ?? []) {
    if (!ts.isFunctionLike(d)) continue;
    if (parents.has(d.parent)) return true;
    parents.add(d.parent);
  }
  return false;
}

/** The name a syntactic node of this declaration carries. */
function declName(decl: ts.Declaration): string | null {
  if (ts.isConstructorDeclaration(decl)) return 'constructor';
  const name = ts.getNameOfDeclaration(decl);
  if (name === undefined) return 'default';
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) {
    return name.text;
  }
  return null;
}

/** True when `id` is the name being declared (not a use). */
function isDeclarationName(id: ts.Node): boolean {
  const p = id.parent;
  if (p === undefined) return false;
  if ((p as { name?: ts.Node }).name !== id) return false;
  switch (p.kind) {
    case ts.SyntaxKind.VariableDeclaration:
    case ts.SyntaxKind.FunctionDeclaration:
    case ts.SyntaxKind.FunctionExpression:
    case ts.SyntaxKind.ClassDeclaration:
    case ts.SyntaxKind.ClassExpression:
    case ts.SyntaxKind.InterfaceDeclaration:
    case ts.SyntaxKind.TypeAliasDeclaration:
    case ts.SyntaxKind.EnumDeclaration:
    case ts.SyntaxKind.EnumMember:
    case ts.SyntaxKind.ModuleDeclaration:
    case ts.SyntaxKind.MethodDeclaration:
    case ts.SyntaxKind.MethodSignature:
    case ts.SyntaxKind.PropertyDeclaration:
    case ts.SyntaxKind.PropertySignature:
    case ts.SyntaxKind.GetAccessor:
    case ts.SyntaxKind.SetAccessor:
    case ts.SyntaxKind.Parameter:
    case ts.SyntaxKind.TypeParameter:
    case ts.SyntaxKind.PropertyAssignment:
    case ts.SyntaxKind.BindingElement:
    case ts.SyntaxKind.ImportSpecifier:
    case ts.SyntaxKind.ExportSpecifier:
    case ts.SyntaxKind.ImportClause:
    case ts.SyntaxKind.NamespaceImport:
    case ts.SyntaxKind.NamespaceExport:
    case ts.SyntaxKind.ImportEqualsDeclaration:
    case ts.SyntaxKind.LabeledStatement:
    case ts.SyntaxKind.BreakStatement:
    case ts.SyntaxKind.ContinueStatement:
    case ts.SyntaxKind.JsxNamespacedName:
      return true;
    default:
      return false;
  }
}

/** The identifier that names a callee / tag / heritage expression (`a.b.c` → `c`). */
function nameNodeOf(expr: ts.Node): ts.Node | null {
  const e = ts.isExpression(expr) ? skipTypeWrappers(expr) : expr;
  if (ts.isIdentifier(e) || ts.isPrivateIdentifier(e)) return e;
  if (ts.isPropertyAccessExpression(e)) return e.name;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression;
  if (ts.isJsxNamespacedName(e)) return e.name;
  return null;
}

/**
 * The options that change how a file parses and binds, as a cache key. Unlike the
 * DocumentRegistry key it leaves out options that only change binder diagnostics
 * (`noFallthroughCasesInSwitch`, `allowUnreachableCode`, `allowUnusedLabels`; never asked for
 * here) and the `paths` base directory (resolution lives in the program, not in the file), so
 * a workspace's per-package configs and its root config share their parsed files.
 */
export function sourceFileKey(o: ts.CompilerOptions): string {
  return JSON.stringify([o.target, o.module, o.jsx, o.importHelpers, o.alwaysStrict ?? o.strict, o.moduleResolution, o.jsxImportSource, o.moduleDetection]);
}

/**
 * Drops the shared parsed files of one parse key (`sourceFileKey`) once no program of the
 * request needs them any more: a smaller live heap makes every later scavenge cheaper.
 */
export function releaseSourceFiles(ctx: AnalyzeContext, options: ts.CompilerOptions): void {
  if (ctx.sourceFiles === undefined) return;
  const prefix = `${sourceFileKey({ ...options, noEmit: true })}\0`;
  for (const k of [...ctx.sourceFiles.keys()]) if (k.startsWith(prefix)) ctx.sourceFiles.delete(k);
}

/** Creates the compiler host: plain file reads plus workspace-package → source resolution. */
function createHost(
  options: ts.CompilerOptions,
  root: string,
  packages: readonly WorkspacePackage[],
  sourceFiles: Map<string, CachedSourceFile> | undefined,
  tooDeep: Map<string, string>,
  used: string[],
): ts.CompilerHost {
  // No parent pointers from the parser: the binder sets them on every node (and the program on
  // the import nodes it resolves before binding), as for tsc; a second walk of every file is spared.
  const host = ts.createCompilerHost(options, false);
  // Every read (sources, package.json files during resolution, lib files) goes through the safe
  // reader: the host's getSourceFile reads through host.readFile.
  host.readFile = compilerReadFile(root);
  // JSDoc of TS files is never walked here: skip parsing it (JS files keep their JSDoc types).
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeInfo;
  const base = host.getSourceFile.bind(host);
  const optionsKey = sourceFileKey(options);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    // Files that overflow the binder are replaced by empty ones (reported in fileErrors).
    if (tooDeep.has(resolve(fileName))) return ts.createSourceFile(fileName, '', languageVersionOrOptions);
    if (sourceFiles === undefined) return base(fileName, languageVersionOrOptions, onError, shouldCreate);
    const lv = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
    const key = `${optionsKey}\0${lv.languageVersion}\0${lv.impliedNodeFormat ?? ''}\0${lv.jsDocParsingMode ?? ''}\0${fileName}`;
    const st = statSync(fileName, { throwIfNoEntry: false });
    const cached = sourceFiles.get(key);
    if (cached !== undefined && st !== undefined && cached.mtimeMs === st.mtimeMs && cached.size === st.size) {
      used.push(key);
      return cached.sf;
    }
    const sf = base(fileName, languageVersionOrOptions, onError, shouldCreate);
    if (sf !== undefined && st !== undefined) {
      sourceFiles.set(key, { sf, mtimeMs: st.mtimeMs, size: st.size });
      used.push(key);
    } else sourceFiles.delete(key);
    return sf;
  };
  const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (f) => host.getCanonicalFileName(f), options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, opts, containingSourceFile) =>
    literals.map((lit) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, lit, opts);
      const r = ts.resolveModuleName(lit.text, containingFile, opts, host, cache, redirected, mode);
      return resolveWithWorkspaceFallback(r, lit.text, packages);
    });
  return host;
}

/** Nesting depth past which TypeScript's recursive binder/checker may overflow the stack. */
const MAX_SAFE_DEPTH = 1000;

/** Maximum AST depth of a file, computed iteratively. */
function maxDepth(sf: ts.SourceFile): number {
  let max = 0;
  const stack: [ts.Node, number][] = [[sf, 0]];
  while (stack.length > 0) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    ts.forEachChild(n, (c) => {
      stack.push([c, d + 1]);
    });
  }
  return max;
}

/**
 * One program with its checker and the lookups every project analysed in it shares
 * (declaration → syntactic node, the member-name filter). Several projects whose options are
 * equal for parsing, binding, resolution and checking (`programKey`) share one.
 */
export interface ProgramState {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  /** Files replaced by empty ones because they overflow the binder (shared across the request). */
  readonly excluded: Map<string, string>;
  readonly syntacticCandidate: (sf: ts.SourceFile) => boolean;
  readonly syntacticOf: (sf: ts.SourceFile) => SyntacticFile | null;
  readonly nodeOfDecl: (decl: ts.Node) => NodeRef | null;
  readonly mayNameRepoSymbol: (id: ts.Node) => boolean;
  /** False when no repository declaration carries this name. */
  readonly isRepoName: (name: string) => boolean;
}

/**
 * A program with its checker, built (parsed, resolved, bound) and not yet asked anything: what
 * a worker's `prepare` keeps for the request that follows (`programState` adds that request's
 * lookups). `files` are the cache keys of the shared parsed files it holds, for `stillCurrent`.
 */
export interface BuiltProgram {
  readonly key: string;
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  readonly excluded: Map<string, string>;
  readonly files: readonly string[];
  /** Names declared by the repository's files of the program (see `mayNameRepoSymbol`). */
  readonly repoNames: ReadonlySet<string>;
}

/** Identity of a program: its options and root files (a prepared program serves a request with the same). */
export function programKey(options: ts.CompilerOptions, rootNames: readonly string[]): string {
  return JSON.stringify([options, [...rootNames].sort()]);
}

/** Builds a program over `rootNames` (the union of the root files of the projects sharing it). */
export function buildProgram(ctx: AnalyzeContext, projectOptions: ts.CompilerOptions, rootNames: readonly string[]): ProgramState {
  return programState(ctx, createBuiltProgram(ctx, projectOptions, rootNames));
}

/** Parses, resolves and binds a program over `rootNames`; see `BuiltProgram`. */
export function createBuiltProgram(
  ctx: Pick<AnalyzeContext, 'layout' | 'tooDeep' | 'sourceFiles' | 'timing'>,
  projectOptions: ts.CompilerOptions,
  rootNames: readonly string[],
): BuiltProgram {
  const root = ctx.layout.root;
  const options: ts.CompilerOptions = { ...projectOptions, noEmit: true };
  delete options.plugins;
  const excluded = ctx.tooDeep ?? new Map<string, string>();
  const files: string[] = [];
  const host = createHost(options, root, ctx.layout.packages, ctx.sourceFiles, excluded, files);
  // Project references are deliberately not passed: imports of referenced projects then resolve
  // to their sources (as an editor does) instead of to possibly unbuilt output .d.ts files.
  const tp = process.cpuUsage();
  let program = ts.createProgram({ rootNames: [...rootNames], options, host });
  const tc = process.cpuUsage();
  let checker: ts.TypeChecker;
  try {
    checker = program.getTypeChecker();
    const cpu = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1e6).toFixed(2);
    ctx.timing?.(`createProgram cpu=${cpu(process.cpuUsage(tp))} (checker ${cpu(process.cpuUsage(tc))})`);
  } catch (e) {
    // TypeScript's binder recurses on long `a || b || …` chains and deep nesting: find the
    // culprits, replace them by empty files and bind again, so only they lose their edges.
    if (!(e instanceof RangeError)) throw e;
    let found = 0;
    for (const sf of program.getSourceFiles()) {
      const depth = maxDepth(sf);
      if (depth > MAX_SAFE_DEPTH) {
        excluded.set(resolve(sf.fileName), `stack overflow: syntax nested ${depth} levels deep`);
        found++;
      }
    }
    if (found === 0) throw e;
    // The culprits may be half bound: never reuse them from the shared cache.
    if (ctx.sourceFiles !== undefined) {
      for (const [k, c] of ctx.sourceFiles) if (excluded.has(resolve(c.sf.fileName))) ctx.sourceFiles.delete(k);
    }
    files.length = 0;
    program = ts.createProgram({ rootNames: [...rootNames], options, host });
    checker = program.getTypeChecker();
  }
  // Names declared anywhere in the repository's files of this program: a member access whose
  // name is not among them cannot resolve to a repository symbol, so its receiver need not be
  // type-checked (most `.map`, `.length`, `Math.max` … of a typical file).
  const repoNames = new Set<string>(['default', 'constructor']);
  for (const sf of program.getSourceFiles()) {
    if (isSyntacticCandidate(root, sf)) for (const n of declaredNames(sf)) repoNames.add(n);
  }
  return { key: programKey(projectOptions, rootNames), program, checker, excluded, files, repoNames };
}

/**
 * True while every parsed file `built` holds is still the shared cache's current version of
 * that file (same object, size and mtime unchanged on disk): a prepared program then serves
 * the request as if the request had built it.
 */
export function stillCurrent(built: BuiltProgram, sourceFiles: ReadonlyMap<string, CachedSourceFile>): boolean {
  // Built without the shared cache: nothing to compare with.
  if (built.files.length === 0) return false;
  for (const key of built.files) {
    const cached = sourceFiles.get(key);
    if (cached === undefined) return false;
    const fileName = key.slice(key.lastIndexOf('\0') + 1);
    if (built.program.getSourceFile(fileName) !== cached.sf) return false;
    const st = statSync(fileName, { throwIfNoEntry: false });
    if (st === undefined || st.mtimeMs !== cached.mtimeMs || st.size !== cached.size) return false;
  }
  return true;
}

/** True for repository source files (the only files that can hold targets). */
function isSyntacticCandidate(root: string, sf: ts.SourceFile): boolean {
  const abs = resolve(sf.fileName);
  return isRepoSource(root, abs) && classifyTsPath(abs) !== null;
}

/** The lookups of one request over a built program (they read the request's skeletons and syntactic cache). */
export function programState(ctx: AnalyzeContext, built: BuiltProgram): ProgramState {
  const root = ctx.layout.root;
  const { program, checker, excluded, repoNames } = built;
  const candidateBySf = new Map<ts.SourceFile, boolean>();
  /** True for repository source files (the only files that can hold targets). */
  const syntacticCandidate = (sf: ts.SourceFile): boolean => {
    let c = candidateBySf.get(sf);
    if (c === undefined) {
      c = isSyntacticCandidate(root, sf);
      candidateBySf.set(sf, c);
    }
    return c;
  };
  const syntacticBySf = new Map<ts.SourceFile, SyntacticFile | null>();
  const syntacticOf = (sf: ts.SourceFile): SyntacticFile | null => {
    let f = syntacticBySf.get(sf);
    if (f !== undefined) return f;
    const abs = resolve(sf.fileName);
    if (!syntacticCandidate(sf)) f = null;
    else {
      f = ctx.syntactic.get(abs) ?? null;
      // A warm worker's index of an older version of the file is rebuilt.
      if (f !== null && f.text !== sf.text) f = null;
      if (f === null) {
        const rel = repoRelative(root, abs);
        const sk = ctx.skeletons?.get(abs);
        f = (sk !== undefined ? fromSkeleton(sk, rel, sf.text) : null) ?? buildSyntactic(ctx.adapter, rel, sf.text);
        ctx.syntactic.set(abs, f);
      }
    }
    syntacticBySf.set(sf, f);
    return f;
  };

  const declCache = new Map<ts.Node, NodeRef | null>();
  /** The syntactic node of a target declaration, or null when it is not a repo symbol. */
  const nodeOfDecl = (decl: ts.Node): NodeRef | null => {
    let r = declCache.get(decl);
    if (r === undefined) {
      r = nodeOfDeclUncached(decl);
      declCache.set(decl, r);
    }
    return r;
  };
  const nodeOfDeclUncached = (decl: ts.Node): NodeRef | null => {
    const sf = decl.getSourceFile();
    const f = syntacticOf(sf);
    if (f === null) return null;
    if (ts.isSourceFile(decl)) return { path: f.rel, node: f.nodes[0]! };
    const d = decl as ts.Declaration;
    const expected = declName(d);
    if (expected === null) return null;
    const nameNode = ts.getNameOfDeclaration(d);
    const pos = ts.isConstructorDeclaration(d) || nameNode === undefined ? d.getStart(sf) : nameNode.getStart(sf);
    const n = innermost(f, pos);
    // Locals, parameters and object-literal members have no syntactic node: the innermost
    // container then carries another name and the target is dropped.
    if (n.kind === 'file' || n.name !== expected) return null;
    return { path: f.rel, node: n };
  };

  /** False when `id` is a member name (`a.b`, `a['b']`, JSX attribute) no repository declaration carries. */
  const mayNameRepoSymbol = (id: ts.Node): boolean => {
    const p = id.parent;
    if (p === undefined) return true;
    const member =
      (ts.isPropertyAccessExpression(p) && p.name === id) ||
      (ts.isElementAccessExpression(p) && p.argumentExpression === id) ||
      (ts.isJsxAttribute(p) && p.name === id);
    if (!member) return true;
    return repoNames.has((id as ts.Identifier | ts.PrivateIdentifier | ts.StringLiteral).text);
  };
  const isRepoName = (name: string): boolean => repoNames.has(name);
  return { program, checker, excluded, syntacticCandidate, syntacticOf, nodeOfDecl, mayNameRepoSymbol, isRepoName };
}

/**
 * What the rules that turn one file's use sites into edges share: the program's lookups, the
 * file, and where its edges and reference counts collect (`pending`, kept only when the whole
 * file is checked without an error).
 */
interface FileScope extends ProgramState {
  readonly ctx: AnalyzeContext;
  readonly sf: ts.SourceFile;
  readonly f: SyntacticFile;
  readonly rel: string;
  readonly pending: SemanticEdge[];
  readonly pendingCounts: { path: string; key: string }[];
  /** Name nodes a rule already resolved (a callee, a heritage name): not a plain reference again. */
  readonly consumed: Set<ts.Node>;
  /** Whether uses inside `n` are resolved (a region analyses some declarations only). */
  readonly analysed: (n: SyntacticNode) => boolean;
  readonly emit: (source: SyntacticNode, target: NodeRef, type: EdgeType, at: number, confidence?: Confidence, module?: string) => void;
  /** Repo declarations of a symbol; modules (SourceFile) only for import edges. */
  readonly targetsOf: (sym: ts.Symbol | undefined, allowModule?: boolean, depth?: number) => NodeRef[];
  readonly sourceAt: (pos: number) => SyntacticNode;
  /** The syntactic node declared by a TS declaration of this file (null for anonymous/locals). */
  readonly ownNode: (decl: ts.Declaration) => SyntacticNode | null;
  readonly contextualTypeOf: (literal: ts.ObjectLiteralExpression | ts.JsxAttributes) => ts.Type | undefined;
}

/**
 * Extracts the exact edges of one project's owned files from `state` (a program holding at
 * least the project's root files with options equal to the project's; built here when absent).
 */
export async function analyzeProject(ctx: AnalyzeContext, project: LoadedProject, state?: ProgramState): Promise<ProjectResult> {
  const root = ctx.layout.root;
  const st = state ?? buildProgram(ctx, project.options, project.rootNames);
  const { program, checker, excluded, syntacticOf, nodeOfDecl } = st;
  const targets = project.owned.filter((f) => ctx.requested === null || ctx.requested.has(f));

  const edges: SemanticEdge[] = [];
  const edgeSeen = new Set<string>();
  const counts = new Map<string, { path: string; symbolKey: string; count: number }>();
  const fileErrors: FileError[] = [];
  const lookups: { path: string; modules: string[] }[] = [];

  for (const abs of targets) {
    await ctx.checkpoint();
    const tf = ctx.timing ? process.cpuUsage() : null;
    const sf = program.getSourceFile(abs);
    const rel = repoRelative(root, abs);
    const excludedReason = excluded.get(abs);
    if (excludedReason !== undefined) {
      fileErrors.push({ path: rel, reason: `semantic_unavailable: ${excludedReason}` });
      continue;
    }
    if (sf === undefined) {
      fileErrors.push({ path: rel, reason: 'semantic_unavailable: file is not part of the program' });
      continue;
    }
    // A region: only uses inside these declarations are resolved (the checker never sees the others).
    const only = ctx.regions?.get(abs) ?? null;
    let scope: FileScope;
    try {
      scope = fileScope(ctx, st, sf, syntacticOf(sf)!, rel, only);
      walkFile(scope);
    } catch (e) {
      if (e instanceof PassStopped) throw e;
      const reason = e instanceof RangeError ? `stack overflow: ${e.message}` : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      fileErrors.push({ path: rel, reason: `semantic_unavailable: ${reason}` });
      continue; // no partial edges for a file whose checking failed
    }
    const { pending, pendingCounts } = scope;
    const modules = moduleLookups(sf, checker, project.options, project.dir, root);
    if (modules.length > 0) lookups.push({ path: rel, modules });
    for (const e of pending) {
      const k = `${e.sourceKey}\0${e.targetPath}\0${e.targetKey}\0${e.type}\0${e.line}`;
      if (edgeSeen.has(k)) continue;
      edgeSeen.add(k);
      edges.push(e);
    }
    for (const c of pendingCounts) {
      const k = `${c.path}\0${c.key}`;
      const cur = counts.get(k);
      if (cur) cur.count++;
      else counts.set(k, { path: c.path, symbolKey: c.key, count: 1 });
    }
    if (tf !== null) {
      const u = process.cpuUsage(tf);
      const region = ctx.regions?.get(abs);
      ctx.timing!(`file ${rel} ${region ? `region=${region.size}` : 'whole'} edges=${pending.length} cpu=${((u.user + u.system) / 1e6).toFixed(2)}`);
    }
  }

  await ctx.checkpoint();
  const tr = process.cpuUsage();
  const keyRefinements = refineKeys(ctx, program, checker, new Set(project.owned), nodeOfDecl);
  ctx.timing?.(`refinements cpu=${((process.cpuUsage(tr).user + process.cpuUsage(tr).system) / 1e6).toFixed(2)}`);
  const referenceCounts: ReferenceCount[] = [...counts.values()].sort((a, b) =>
    a.path === b.path ? (a.symbolKey < b.symbolKey ? -1 : 1) : a.path < b.path ? -1 : 1,
  );
  return {
    tsconfig: project.tsconfig,
    packageName: project.packageName,
    status: 'ok',
    files: targets.map((t) => repoRelative(root, t)),
    edges,
    referenceCounts,
    keyRefinements,
    keyScope: project.owned.map((f) => repoRelative(root, f)),
    fileErrors,
    moduleLookups: lookups,
  };
}

/** The lookups and sinks of one file (see `FileScope`). */
function fileScope(ctx: AnalyzeContext, state: ProgramState, sf: ts.SourceFile, f: SyntacticFile, rel: string, only: ReadonlySet<string> | null): FileScope {
  const { checker, nodeOfDecl } = state;
  const pending: SemanticEdge[] = [];
  const pendingCounts: { path: string; key: string }[] = [];
  const analysed = (n: SyntacticNode): boolean => only === null || only.has(n.symbolKey);
  const lineOf = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const emit = (source: SyntacticNode, target: NodeRef, type: EdgeType, at: number, confidence: Confidence = 'exact', module?: string): void => {
    const e: SemanticEdge = {
      sourcePath: rel,
      sourceKey: source.symbolKey,
      targetPath: target.path,
      targetKey: target.node.symbolKey,
      type,
      confidence: target.wrapped === true && confidence === 'exact' ? 'probable' : confidence,
      line: lineOf(at),
      ...(module !== undefined ? { module } : {}),
    };
    pending.push(e);
    if (type === 'calls' || type === 'references') pendingCounts.push({ path: target.path, key: target.node.symbolKey });
  };
  /**
   * Repo declarations of a symbol; modules (SourceFile) only for import edges. A default
   * export that wraps a component (`export default memo(Panel, areEqual)`) has no node of its
   * own: its uses go to the wrapped declaration, as `probable` (a naming convention, not a fact
   * the checker states).
   */
  const targetsOf = (sym: ts.Symbol | undefined, allowModule = false, depth = 0): NodeRef[] => {
    const real = realSymbol(checker, sym);
    const out: NodeRef[] = [];
    const add = (n: NodeRef): void => {
      if (!out.some((o) => o.path === n.path && o.node === n.node)) out.push(n);
    };
    for (const d of real?.declarations ?? []) {
      if (!allowModule && ts.isSourceFile(d)) continue;
      const n = nodeOfDecl(d);
      if (n !== null) add(n);
      else if (ts.isExportAssignment(d) && !d.isExportEquals && depth < 3) {
        const wrapped = wrappedIdentifier(d.expression);
        if (wrapped !== null) for (const w of targetsOf(checker.getSymbolAtLocation(wrapped), false, depth + 1)) add({ ...w, wrapped: true });
      }
    }
    return out;
  };
  const sourceAt = (pos: number): SyntacticNode => innermost(f, pos);
  const ownNode = (decl: ts.Declaration): SyntacticNode | null => {
    const r = nodeOfDecl(decl);
    return r !== null && r.path === rel ? r.node : null;
  };
  const contextual = new Map<ts.Node, ts.Type | undefined>();
  const contextualTypeOf = (literal: ts.ObjectLiteralExpression | ts.JsxAttributes): ts.Type | undefined => {
    if (!contextual.has(literal)) contextual.set(literal, checker.getContextualType(literal));
    return contextual.get(literal);
  };
  return { ...state, ctx, sf, f, rel, pending, pendingCounts, consumed: new Set(), analysed, emit, targetsOf, sourceAt, ownNode, contextualTypeOf };
}

/** `implements` / `inherits` edges of a class or interface, and `overrides` / `implements` of its members. */
function heritage(s: FileScope, decl: ts.ClassLikeDeclaration | ts.InterfaceDeclaration): void {
  const { checker, sf, consumed, analysed, emit, targetsOf, sourceAt, ownNode, nodeOfDecl } = s;
  const owner = ownNode(decl) ?? sourceAt(decl.getStart(sf));
  const isClass = !ts.isInterfaceDeclaration(decl);
  const memberAnalysed = (m: ts.ClassElement | ts.TypeElement): boolean => {
    const n = ownNode(m as ts.Declaration);
    return n !== null && analysed(n);
  };
  const ownerAnalysed = analysed(owner);
  if (!ownerAnalysed && !(isClass && (decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>).some(memberAnalysed))) {
    // Nothing of this declaration is analysed: its heritage names are still not uses.
    for (const clause of decl.heritageClauses ?? []) for (const t of clause.types) {
      const nameNode = nameNodeOf(t.expression);
      if (nameNode !== null) consumed.add(nameNode);
    }
    return;
  }
  const implemented: ts.Type[] = [];
  const bases: ts.Type[] = [];
  for (const clause of decl.heritageClauses ?? []) {
    const isImpl = clause.token === ts.SyntaxKind.ImplementsKeyword;
    for (const t of clause.types) {
      const nameNode = nameNodeOf(t.expression);
      if (nameNode === null) continue;
      consumed.add(nameNode);
      if (ownerAnalysed) {
        for (const tgt of targetsOf(checker.getSymbolAtLocation(nameNode))) {
          emit(owner, tgt, isImpl ? 'implements' : 'inherits', t.getStart(sf));
        }
      }
      const type = checker.getTypeAtLocation(t);
      if (isImpl) implemented.push(type);
      else if (isClass) bases.push(type);
    }
  }
  if (!isClass || (implemented.length === 0 && bases.length === 0)) return;
  for (const m of decl.members) {
    if (!(ts.isMethodDeclaration(m) || ts.isPropertyDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m))) continue;
    if (ts.getCombinedModifierFlags(m) & ts.ModifierFlags.Static) continue;
    const name = declName(m);
    const memberNode = ownNode(m);
    if (name === null || memberNode === null || !analysed(memberNode)) continue;
    const at = m.name.getStart(sf);
    for (const [types, type] of [
      [bases, 'overrides'],
      [implemented, 'implements'],
    ] as const) {
      for (const t of types) {
        const prop = t.getProperty(name);
        for (const d of prop?.declarations ?? []) {
          if (d === m) continue;
          const tgt = nodeOfDecl(d);
          if (tgt !== null) emit(memberNode, tgt, type, at);
        }
      }
    }
  }
}

/** The type nodes of a component's props: its first parameter, `FC<Props>`, `extends Component<Props>`. */
function propsTypeNodes(decl: ts.Node): ts.TypeNode[] {
  let typeNode: ts.TypeNode | undefined;
  const fromFn = (fn: ts.Node | undefined): ts.TypeNode | undefined => {
    let e = fn !== undefined && ts.isExpression(fn) ? skipTypeWrappers(fn) : fn;
    // memo(fn) / forwardRef(fn): the wrapped function carries the props.
    while (e !== undefined && ts.isCallExpression(e)) e = e.arguments[0];
    if (e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isFunctionDeclaration(e))) {
      return e.parameters[0]?.type;
    }
    return undefined;
  };
  if (ts.isFunctionDeclaration(decl)) typeNode = decl.parameters[0]?.type;
  else if (ts.isVariableDeclaration(decl)) {
    if (decl.type && ts.isTypeReferenceNode(decl.type) && decl.type.typeArguments?.[0]) typeNode = decl.type.typeArguments[0];
    else typeNode = fromFn(decl.initializer);
  } else if (ts.isClassDeclaration(decl)) {
    const ext = decl.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
    typeNode = ext?.typeArguments?.[0];
  }
  if (typeNode === undefined) return [];
  if (ts.isIntersectionTypeNode(typeNode) || ts.isUnionTypeNode(typeNode)) return [...typeNode.types];
  return [typeNode];
}

/** `accepts` edges of a component to the repository types of its props. */
function accepts(s: FileScope, decl: ts.Declaration): void {
  const { checker, sf, analysed, emit, targetsOf, ownNode } = s;
  const own = ownNode(decl);
  if (own === null || own.kind !== 'component' || !analysed(own)) return;
  for (const t of propsTypeNodes(decl)) {
    if (!ts.isTypeReferenceNode(t)) continue;
    const nameNode = ts.isQualifiedName(t.typeName) ? t.typeName.right : t.typeName;
    for (const tgt of targetsOf(checker.getSymbolAtLocation(nameNode))) emit(own, tgt, 'accepts', t.getStart(sf));
  }
}

/**
 * An object literal bound to a declaration is an implementation of the type it is held to:
 * `const a: Action = {…}` and `const a = {…} satisfies Action` (exact: the checker holds
 * the object to that type), and `const a = register({…})` where the parameter's type (or a
 * type parameter's constraint, `register<T extends Action>(a: T)`) is a repository type
 * (probable: the declaration holds what the call returns). Interfaces, type aliases and
 * classes only; a union (the object is one of its members), a parameter typed by an
 * intersection and library types (`Partial<T>`) give no edge.
 */
function literalImplements(s: FileScope, decl: ts.VariableDeclaration): void {
  const { checker, analysed, emit, targetsOf, ownNode } = s;
  if (decl.initializer === undefined) return;
  const own = ownNode(decl);
  if (own === null || !analysed(own)) return;
  const at = decl.name.getStart(s.sf);
  const toTypeName = (typeNode: ts.TypeNode | undefined, confidence: Confidence): void => {
    if (typeNode === undefined || !ts.isTypeReferenceNode(typeNode)) return;
    if (checker.getTypeAtLocation(typeNode).flags & ts.TypeFlags.Union) return; // the object is one of the members
    const nameNode = ts.isQualifiedName(typeNode.typeName) ? typeNode.typeName.right : typeNode.typeName;
    for (const tgt of targetsOf(checker.getSymbolAtLocation(nameNode))) {
      if (IMPLEMENTABLE_KINDS.has(tgt.node.kind)) emit(own, tgt, 'implements', at, confidence);
    }
  };
  const init = skipParens(decl.initializer);
  if (ts.isObjectLiteralExpression(init)) {
    toTypeName(decl.type, 'exact');
    return;
  }
  if (ts.isSatisfiesExpression(init)) {
    if (ts.isObjectLiteralExpression(skipParens(init.expression))) toTypeName(init.type, 'exact');
    return;
  }
  if (!ts.isCallExpression(init) && !ts.isNewExpression(init)) return;
  const args = init.arguments ?? [];
  if (!args.some((a) => ts.isObjectLiteralExpression(skipParens(a)))) return;
  // The parameter as declared: a generic call's contextual type is the inferred argument type.
  const resolved = checker.getResolvedSignature(init)?.declaration;
  const declared = resolved !== undefined && !ts.isJSDocSignature(resolved) ? checker.getSignatureFromDeclaration(resolved) : undefined;
  if (declared === undefined) return;
  for (const [i, arg] of args.entries()) {
    if (!ts.isObjectLiteralExpression(skipParens(arg))) continue;
    // `getParameterType` is on the checker at run time but not in TypeScript 6's public typings.
    let type: ts.Type | undefined = (checker as ts.TypeChecker & { getParameterType(signature: ts.Signature, index: number): ts.Type }).getParameterType(declared, i);
    if (type.flags & ts.TypeFlags.TypeParameter) type = checker.getBaseConstraintOfType(type);
    if (type === undefined || type.flags & (ts.TypeFlags.Union | ts.TypeFlags.Intersection | ts.TypeFlags.TypeParameter)) continue;
    const sym = type.aliasSymbol ?? type.getSymbol();
    if (sym === undefined || sym.flags & (ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.TypeLiteral)) continue;
    for (const tgt of targetsOf(sym)) {
      if (IMPLEMENTABLE_KINDS.has(tgt.node.kind)) emit(own, tgt, 'implements', at, 'probable');
    }
  }
}

/**
 * The properties a name writes or reads without a member access: an object literal's
 * member (`{ centerAngle: 0 }`, `{ element }`, `{ perform() {} }`) names the property of
 * the type the literal is held to (its contextual type), a JSX attribute the prop of the
 * component's props type (`<Button className="x">` → `ButtonProps.className`), and a shorthand destructuring
 * (`const { elementId } = editor`, `({ id }: Props) =>`) the property of the destructured
 * type. Properties the literal declares itself are not uses. Only for names some
 * repository declaration carries (the checker is not asked about the others).
 */
function heldProperties(s: FileScope, name: ts.Identifier): ts.Symbol[] {
  const { checker, isRepoName, contextualTypeOf } = s;
  const p = name.parent;
  if (p === undefined || (p as { name?: ts.Node }).name !== name) return [];
  const member =
    ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p)) &&
      ts.isObjectLiteralExpression(p.parent)) ||
    ts.isJsxAttribute(p);
  const destructured = !member && ts.isBindingElement(p) && p.propertyName === undefined && ts.isObjectBindingPattern(p.parent);
  if ((!member && !destructured) || !isRepoName(name.text)) return [];
  // The literal's (the JSX attributes') contextual type, once per literal (each attribute
  // would resolve the element's props again); the destructured value's type.
  const type = member ? contextualTypeOf(p.parent as ts.ObjectLiteralExpression | ts.JsxAttributes) : checker.getTypeAtLocation(p.parent);
  if (type === undefined) return [];
  return propertiesNamed(type, name.text).filter((prop) => !(prop.declarations ?? []).includes(p as ts.Declaration));
}

/** The declarations a call or tagged template invokes. */
function callTarget(s: FileScope, node: ts.CallExpression | ts.TaggedTemplateExpression, nameNode: ts.Node | null): NodeRef[] {
  const { checker, mayNameRepoSymbol, targetsOf, syntacticCandidate, nodeOfDecl } = s;
  // The callee's symbol suffices unless it is overloaded: resolving the signature checks
  // every argument against every candidate (about half of the whole pass when done for
  // every call), so it runs only to pick among overloads or when there is no symbol.
  // A callee without a symbol (`any`, missing member) has no declaration to find either.
  // A repository symbol without a syntactic node (a destructured `const { t } = useI18n()`,
  // a local alias, a parameter) is followed through its signature to the function it holds.
  if (nameNode !== null) {
    if (!mayNameRepoSymbol(nameNode)) return [];
    const sym = checker.getSymbolAtLocation(nameNode);
    const real = realSymbol(checker, sym);
    if (real === undefined) return [];
    if (!isOverloaded(real)) {
      const direct = targetsOf(sym);
      const local = direct.length === 0 && (real.declarations ?? []).some((d) => syntacticCandidate(d.getSourceFile()));
      if (!local) return direct;
    }
  }
  const sig = checker.getResolvedSignature(node);
  const decl = sig?.declaration;
  if (decl !== undefined && !ts.isJSDocSignature(decl)) {
    const n = nodeOfDecl(decl);
    if (n !== null) return [n];
  }
  return nameNode === null ? [] : targetsOf(checker.getSymbolAtLocation(nameNode));
}

/** Walks the file iteratively (deep files overflow a recursive walk), dispatching each node to its rule. */
function walkFile(s: FileScope): void {
  const stack: ts.Node[] = [s.sf];
  let visited = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (++visited % 1024 === 0) s.ctx.checkSync();
    if (visitNode(s, node) === 'skip') continue;
    const kids: ts.Node[] = [];
    ts.forEachChild(node, (c) => {
      kids.push(c);
    });
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** Emits the edges of one node; `skip` when nothing below it is a use. */
function visitNode(s: FileScope, node: ts.Node): 'skip' | 'descend' {
  const { checker, sf, consumed, analysed, emit, targetsOf, sourceAt, mayNameRepoSymbol, isRepoName } = s;
  switch (node.kind) {
    case ts.SyntaxKind.ImportDeclaration:
      importEdges(s, node as ts.ImportDeclaration);
      return 'skip'; // nothing inside an import is a use
    case ts.SyntaxKind.ExportDeclaration:
      exportEdges(s, node as ts.ExportDeclaration);
      return 'skip'; // local `export { a }` names are not uses either
    case ts.SyntaxKind.ImportEqualsDeclaration:
      return 'skip';
    case ts.SyntaxKind.ClassDeclaration:
    case ts.SyntaxKind.ClassExpression:
    case ts.SyntaxKind.InterfaceDeclaration:
      heritage(s, node as ts.ClassLikeDeclaration | ts.InterfaceDeclaration);
      if (ts.isClassDeclaration(node)) accepts(s, node);
      break;
    case ts.SyntaxKind.FunctionDeclaration:
      accepts(s, node as ts.Declaration);
      break;
    case ts.SyntaxKind.VariableDeclaration:
      accepts(s, node as ts.Declaration);
      literalImplements(s, node as ts.VariableDeclaration);
      break;
    case ts.SyntaxKind.CallExpression:
    case ts.SyntaxKind.TaggedTemplateExpression: {
      const call = node as ts.CallExpression | ts.TaggedTemplateExpression;
      const callee = ts.isCallExpression(call) ? call.expression : call.tag;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) break;
      const nameNode = nameNodeOf(callee);
      if (nameNode !== null) consumed.add(nameNode);
      const src = sourceAt(call.getStart(sf));
      if (!analysed(src)) break;
      const at = nameNode?.getStart(sf) ?? call.getStart(sf);
      for (const tgt of callTarget(s, call, nameNode)) emit(src, tgt, CALL_EDGE, at);
      break;
    }
    case ts.SyntaxKind.NewExpression:
    case ts.SyntaxKind.JsxOpeningElement:
    case ts.SyntaxKind.JsxSelfClosingElement: {
      const expr = ts.isNewExpression(node) ? node.expression : (node as ts.JsxOpeningLikeElement).tagName;
      const nameNode = nameNodeOf(expr);
      if (nameNode === null) break;
      consumed.add(nameNode);
      const src = sourceAt(node.getStart(sf));
      if (!analysed(src) || !mayNameRepoSymbol(nameNode)) break;
      // Intrinsic elements (<div>) resolve into JSX.IntrinsicElements (a .d.ts): dropped below.
      for (const tgt of targetsOf(checker.getSymbolAtLocation(nameNode))) {
        emit(src, tgt, CALL_EDGE, nameNode.getStart(sf));
      }
      break;
    }
    case ts.SyntaxKind.JsxClosingElement:
      return 'skip'; // the opening element already counted this use
    case ts.SyntaxKind.IndexedAccessType: {
      // `AppState["zoom"]`, `InstanceType<typeof App>["files"]`: the string names a property.
      const ia = node as ts.IndexedAccessTypeNode;
      const lit = ts.isLiteralTypeNode(ia.indexType) && ts.isStringLiteral(ia.indexType.literal) ? ia.indexType.literal : undefined;
      if (lit === undefined || !isRepoName(lit.text)) break;
      const src = sourceAt(lit.getStart(sf));
      if (!analysed(src)) break;
      for (const prop of propertiesNamed(checker.getTypeFromTypeNode(ia.objectType), lit.text)) {
        for (const tgt of targetsOf(prop)) emit(src, tgt, 'references', lit.getStart(sf));
      }
      break;
    }
    case ts.SyntaxKind.Identifier:
    case ts.SyntaxKind.PrivateIdentifier:
      identifierEdges(s, node as ts.Identifier);
      break;
    default:
      break;
  }
  return 'descend';
}

/** `imports` edges of an import declaration (a side-effect import names its module). */
function importEdges(s: FileScope, imp: ts.ImportDeclaration): void {
  const { checker, sf, f, analysed, emit, targetsOf } = s;
  const file = f.nodes[0]!;
  const clause = imp.importClause;
  const names: ts.Node[] = [];
  if (clause?.name) names.push(clause.name);
  const nb = clause?.namedBindings;
  if (nb && ts.isNamespaceImport(nb)) names.push(nb.name);
  if (nb && ts.isNamedImports(nb)) for (const el of nb.elements) names.push(el.name);
  if (clause === undefined) names.push(imp.moduleSpecifier);
  if (!analysed(file)) return;
  const module = resolvedModule(s, imp.moduleSpecifier);
  for (const n of names) {
    for (const tgt of targetsOf(checker.getSymbolAtLocation(n), true)) emit(file, tgt, 'imports', n.getStart(sf), 'exact', module);
  }
}

const MODULE_EXTENSION = /\.(d\.ts|d\.mts|d\.cts|tsx|ts|mts|cts|jsx|js|mjs|cjs)$/;

/**
 * The repository module a specifier resolved to, as a path without its extension (the form of
 * syntactic edges' `target_module`), or undefined outside the repository. Recorded on `imports`
 * edges so that importers by any specifier form (a package name, a `paths` alias) are found
 * when that module disappears or changes its exports, as relative importers are.
 */
function resolvedModule(s: FileScope, specifier: ts.Expression): string | undefined {
  const decl = s.checker.getSymbolAtLocation(specifier)?.declarations?.find(ts.isSourceFile);
  if (decl === undefined) return undefined;
  const abs = resolve(decl.fileName);
  const root = s.ctx.layout.root;
  if (!isRepoSource(root, abs)) return undefined;
  return repoRelative(root, abs).replace(MODULE_EXTENSION, '');
}

/** `imports` edges of a re-export (`export { a } from`, `export * from`). */
function exportEdges(s: FileScope, exp: ts.ExportDeclaration): void {
  const { checker, sf, f, analysed, emit, targetsOf } = s;
  if (exp.moduleSpecifier === undefined || !analysed(f.nodes[0]!)) return;
  const file = f.nodes[0]!;
  const module = resolvedModule(s, exp.moduleSpecifier);
  if (exp.exportClause && ts.isNamedExports(exp.exportClause)) {
    for (const el of exp.exportClause.elements) {
      for (const tgt of targetsOf(checker.getSymbolAtLocation(el.name), true)) emit(file, tgt, 'imports', el.getStart(sf), 'exact', module);
    }
  } else {
    for (const tgt of targetsOf(checker.getSymbolAtLocation(exp.moduleSpecifier), true)) {
      emit(file, tgt, 'imports', exp.moduleSpecifier.getStart(sf), 'exact', module);
    }
  }
}

/** `references` edges of a name: the properties it writes or reads (`heldProperties`) and its own symbol. */
function identifierEdges(s: FileScope, node: ts.Identifier): void {
  const { checker, sf, consumed, analysed, emit, targetsOf, sourceAt, mayNameRepoSymbol } = s;
  if (consumed.has(node)) return;
  const src = sourceAt(node.getStart(sf));
  if (!analysed(src)) return;
  const held = heldProperties(s, node);
  if (held.length > 0) {
    for (const prop of held) for (const tgt of targetsOf(prop)) emit(src, tgt, 'references', node.getStart(sf));
  }
  // A JSX attribute's own symbol is the attribute (its prop came from heldProperties).
  if (isDeclarationName(node) || (node.parent !== undefined && ts.isJsxAttribute(node.parent)) || !mayNameRepoSymbol(node)) return;
  const parent = node.parent;
  let sym: ts.Symbol | undefined;
  if (parent !== undefined && ts.isShorthandPropertyAssignment(parent) && parent.name === node) {
    sym = checker.getShorthandAssignmentValueSymbol(parent);
  } else {
    sym = checker.getSymbolAtLocation(node);
  }
  if (sym === undefined) return;
  for (const tgt of targetsOf(sym)) {
    // A declaration referring to itself (recursive types, `this` members) is still a use.
    emit(src, tgt, 'references', node.getStart(sf));
  }
}

/**
 * Package-scoped keys for symbols exported from a package entry point (directly or through
 * barrels), and for their members; for declarations in this project's owned files (analysed in
 * this request or not) inside the package's directory. Keys that would collide are left
 * file-scoped. All owned files, not only the analysed ones: a partial pass then keys every file
 * as a full pass does — module augmentations (`declare module '../vanilla' { interface
 * StoreMutators … }`) in several files share one qualified name, which a pass over one of them
 * alone saw as no collision — and an unchanged file whose symbols are no longer exported
 * (its entry point gone) gets its file-scoped keys back (`ProjectResult.keyScope`).
 */
function refineKeys(
  ctx: AnalyzeContext,
  program: ts.Program,
  checker: ts.TypeChecker,
  owned: ReadonlySet<string>,
  nodeOfDecl: (d: ts.Node) => NodeRef | null,
): KeyRefinement[] {
  const byNew = new Map<string, KeyRefinement[]>();
  const seen = new Set<string>();
  for (const pkg of ctx.layout.packages) {
    for (const entry of pkg.entries) {
      const sf = program.getSourceFile(entry);
      if (sf === undefined) continue;
      const moduleSym = checker.getSymbolAtLocation(sf);
      if (moduleSym === undefined) continue;
      for (const exp of checker.getExportsOfModule(moduleSym)) {
        const real = realSymbol(checker, exp);
        for (const d of real?.declarations ?? []) {
          if (ts.isSourceFile(d)) continue;
          const abs = resolve(d.getSourceFile().fileName);
          if (!owned.has(abs) || !isRepoSource(pkg.dir, abs)) continue;
          const ref = nodeOfDecl(d);
          if (ref === null) continue;
          const f = ctx.syntactic.get(abs)!;
          const stack = [ref.node];
          while (stack.length > 0) {
            const n = stack.pop()!;
            const id = `${ref.path}\0${n.localId}`;
            if (seen.has(id)) continue;
            seen.add(id);
            const prefix = `:file:${ref.path}#`;
            const at = n.symbolKey.indexOf(prefix);
            if (at < 0) continue;
            const newKey = `${n.symbolKey.slice(0, at)}:pkg:${pkg.name}#${n.symbolKey.slice(at + prefix.length)}`;
            const list = byNew.get(newKey) ?? [];
            if (!list.some((r) => r.path === ref.path && r.oldKey === n.symbolKey)) {
              list.push({ path: ref.path, oldKey: n.symbolKey, newKey });
            }
            byNew.set(newKey, list);
            for (const c of f.children.get(n.localId) ?? []) stack.push(c);
          }
        }
      }
    }
  }
  const out: KeyRefinement[] = [];
  for (const list of byNew.values()) if (list.length === 1) out.push(list[0]!);
  return out.sort((a, b) => (a.path === b.path ? (a.oldKey < b.oldKey ? -1 : 1) : a.path < b.path ? -1 : 1));
}
