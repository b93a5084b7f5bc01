/**
 * Project discovery for the semantic pass: finds tsconfig/jsconfig projects and workspace
 * packages, loads configs through a read-only ParseConfigHost with `plugins` stripped, assigns
 * every source file to exactly one project, and groups tsconfig-less files into inferred
 * projects (one per package). Never executes anything from the analysed repository.
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { compilerReadFile } from './safeSystem.js';
import { INFERRED_PROJECT_ID } from './types.js';

/** Directories never walked (build output, dependencies, VCS, our own index). */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'coverage', '.codeagent', '.next', '.turbo', 'bower_components']);
const SOURCE_EXT = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/i;
const MAX_WALK_FILES = 500_000;
/** Default of `AnalyzeRequestOptions.maxFileBytes` (the default `indexing.max_file_bytes`). */
export const ROOT_FILE_MAX_BYTES = 1024 * 1024;
const MINIFIED_NAME = /\.min\.[cm]?js$/i;

/**
 * True when `abs` may be a root file of a program: at most `maxBytes` and not a `*.min.js`
 * bundle (both are skipped by the syntactic index; parsing a multi-megabyte bundle is where the
 * pass's memory went). A file that cannot be statted is left to the compiler to report.
 */
function rootSized(abs: string, maxBytes: number): boolean {
  if (MINIFIED_NAME.test(abs)) return false;
  try {
    return statSync(abs).size <= maxBytes;
  } catch {
    // Not statable here: the compiler meets the file and reports it itself.
    return true;
  }
}

/** A workspace package (any package.json with a name inside the repo). */
export interface WorkspacePackage {
  readonly name: string;
  /** Absolute directory. */
  readonly dir: string;
  /** Absolute source files that are the package's entry points (`exports`/`types`/`main` mapped to sources). */
  readonly entries: readonly string[];
}

/** A project ready to build a program from. */
export interface LoadedProject {
  /** Wire id: repo-relative tsconfig path, or `<inferred>[:dir]`. */
  readonly id: string;
  readonly tsconfig: string | null;
  readonly packageName: string | null;
  /** Absolute project directory. */
  readonly dir: string;
  readonly status: 'ok' | 'failed';
  readonly reason?: string;
  readonly options: ts.CompilerOptions;
  /** Absolute root file names of the program. */
  readonly rootNames: readonly string[];
  /** Absolute files this project reports edges for (owned by no other project). */
  owned: string[];
  /** Compiler plugins that were configured and stripped (names only). */
  readonly strippedPlugins: readonly string[];
}

export interface RepoLayout {
  readonly root: string;
  readonly packages: readonly WorkspacePackage[];
  readonly projects: readonly LoadedProject[];
}

/** POSIX repo-relative path of an absolute path. */
export function repoRelative(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}

/** True when `abs` lies inside `root` and not inside a node_modules folder. */
export function isRepoSource(root: string, abs: string): boolean {
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..') || resolve(root, rel) !== resolve(abs)) return false;
  return !rel.split(sep).includes('node_modules');
}

interface WalkResult {
  configs: string[];
  packageJsons: string[];
  sources: string[];
}

/** Iterative walk; symbolic links are never followed (nothing outside the repo root is read). Sources over `maxBytes` are left out. */
function walk(root: string, maxBytes: number): WalkResult {
  const out: WalkResult = { configs: [], packageJsons: [], sources: [] };
  const stack = [root];
  let count = 0;
  while (stack.length > 0 && count < MAX_WALK_FILES) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // An unreadable directory (permissions, removed meanwhile) holds no projects we can read.
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      count++;
      const abs = join(dir, e.name);
      if (e.isSymbolicLink()) continue;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) stack.push(abs);
      } else if (e.isFile()) {
        if (e.name === 'tsconfig.json' || e.name === 'jsconfig.json') out.configs.push(abs);
        else if (e.name === 'package.json') out.packageJsons.push(abs);
        else if (SOURCE_EXT.test(e.name) && rootSized(abs, maxBytes)) out.sources.push(abs);
      }
    }
  }
  out.configs.sort();
  out.packageJsons.sort();
  out.sources.sort();
  return out;
}

function readJson(path: string, root: string): unknown {
  const text = compilerReadFile(root)(path);
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: no package (the file stays what the syntactic pass made of it).
    return null;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // Not statable (absent, no permission): not a file for discovery.
    return false;
  }
}

const TRY_EXT = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const STRIP_EXT = /\.(d\.ts|d\.mts|d\.cts|ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const OUT_DIR = /^(\.\/)?(dist|lib|build|out|esm|cjs|types)\//;

/** Maps a package.json entry (often a build output) to an existing source file. */
function sourceOf(pkgDir: string, entry: string): string | null {
  const clean = entry.replace(/^\.\//, '');
  const bases = [clean.replace(STRIP_EXT, '')];
  if (OUT_DIR.test(clean)) bases.push(clean.replace(OUT_DIR, 'src/').replace(STRIP_EXT, ''));
  for (const base of bases.reverse()) {
    for (const ext of TRY_EXT) {
      const f = join(pkgDir, base + ext);
      if (isFile(f)) return f;
    }
    for (const ext of TRY_EXT) {
      const f = join(pkgDir, base, 'index' + ext);
      if (isFile(f)) return f;
    }
  }
  return null;
}

/** String leaves of an `exports` value for the root subpath, in condition order. */
function exportLeaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(exportLeaves);
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    // Subpath map: only the root entry is an entry point of the package.
    if (keys.some((k) => k.startsWith('.'))) return '.' in obj ? exportLeaves(obj['.']) : [];
    return keys.flatMap((k) => exportLeaves(obj[k]));
  }
  return [];
}

function loadPackage(pkgJson: string, root: string): WorkspacePackage | null {
  const json = readJson(pkgJson, root) as Record<string, unknown> | null;
  if (json === null || typeof json.name !== 'string' || json.name === '') return null;
  const dir = dirname(pkgJson);
  const candidates: string[] = [...exportLeaves(json.exports)];
  for (const field of ['types', 'typings', 'module', 'main']) {
    if (typeof json[field] === 'string') candidates.push(json[field] as string);
  }
  const entries = new Set<string>();
  for (const c of candidates) {
    const s = sourceOf(dir, c);
    if (s !== null) entries.add(s);
  }
  if (entries.size === 0) {
    for (const base of ['src/index', 'index']) {
      const s = sourceOf(dir, base);
      if (s !== null) {
        entries.add(s);
        break;
      }
    }
  }
  return { name: json.name, dir, entries: [...entries] };
}

/** The nearest named package at or above `dir` (deepest package directory). */
export function packageOf(packages: readonly WorkspacePackage[], absPath: string): WorkspacePackage | null {
  let best: WorkspacePackage | null = null;
  for (const p of packages) {
    const rel = relative(p.dir, absPath);
    if (rel.startsWith('..') || resolve(p.dir, rel) !== resolve(absPath)) continue;
    if (best === null || p.dir.length > best.dir.length) best = p;
  }
  return best;
}

/** A host for reading configs: it can only list directories and read files through the safe reader. */
function readOnlyConfigHost(readFile: (p: string) => string | undefined): ts.ParseConfigHost {
  return {
    useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
    readDirectory: (rootDir, extensions, excludes, includes, depth) => ts.sys.readDirectory(rootDir, extensions, excludes, includes, depth),
    fileExists: (p) => ts.sys.fileExists(p),
    readFile,
  };
}

/** Config diagnostics that make a project unusable (everything else is tolerated). */
function isFatalConfigError(d: ts.Diagnostic): boolean {
  if (d.category !== ts.DiagnosticCategory.Error) return false;
  // 1xxx: JSON syntax; 5083/6053: cannot read / file not found (missing `extends`);
  // 18000: circular `extends`; 5092/5024/5025: invalid root value / wrong option types are tolerated.
  return d.code < 2000 || d.code === 5083 || d.code === 6053 || d.code === 18000;
}

function flatten(d: ts.Diagnostic): string {
  return `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
}

interface ParsedConfig {
  options: ts.CompilerOptions;
  fileNames: string[];
  references: string[];
  error: string | null;
  plugins: string[];
}

/**
 * Loads one config; `plugins` are removed from the raw JSON and from the merged options. Files
 * inside `root` (the config, what it `extends`) are read through the safe reader.
 */
export function parseConfig(configPath: string, root: string | null = null): ParsedConfig {
  const readFile = compilerReadFile(root);
  const read = ts.readConfigFile(configPath, readFile);
  if (read.error) {
    return { options: {}, fileNames: [], references: [], error: flatten(read.error), plugins: [] };
  }
  const raw = (read.config ?? {}) as { compilerOptions?: Record<string, unknown> };
  const plugins: string[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const p of value) plugins.push(typeof p === 'object' && p !== null && 'name' in p ? String((p as { name: unknown }).name) : String(p));
    }
  };
  if (raw.compilerOptions && typeof raw.compilerOptions === 'object' && 'plugins' in raw.compilerOptions) {
    collect(raw.compilerOptions.plugins);
    delete raw.compilerOptions.plugins;
  }
  const parsed = ts.parseJsonConfigFileContent(raw, readOnlyConfigHost(readFile), dirname(configPath), undefined, configPath);
  const fatal = parsed.errors.filter(isFatalConfigError);
  // Plugins inherited through `extends` land in the merged options: drop them too.
  if (parsed.options.plugins) {
    collect(parsed.options.plugins);
    delete parsed.options.plugins;
  }
  return {
    options: parsed.options,
    fileNames: parsed.fileNames.map((f) => resolve(f)),
    references: (parsed.projectReferences ?? []).map((r) => resolve(r.path)),
    error: fatal.length > 0 ? fatal.map(flatten).join('; ') : null,
    plugins,
  };
}

/** Options of an inferred (tsconfig-less) program: JS allowed, never type-checked for errors. */
export function inferredOptions(): ts.CompilerOptions {
  return {
    allowJs: true,
    checkJs: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    allowArbitraryExtensions: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    types: [],
  };
}

function isUnder(dir: string, abs: string): boolean {
  const rel = relative(dir, abs);
  return rel !== '' && !rel.startsWith('..') && resolve(dir, rel) === resolve(abs);
}

/**
 * Discovers packages and projects of a repository and assigns file ownership. Source files over
 * `maxFileBytes` (default `ROOT_FILE_MAX_BYTES`) and `*.min.js` bundles are no program's root files.
 */
export function discoverRepo(repoRoot: string, options: { maxFileBytes?: number } = {}): RepoLayout {
  const root = resolve(repoRoot);
  const st = lstatSync(root);
  if (!st.isDirectory()) throw new Error(`not a directory: ${root}`);
  const maxBytes = options.maxFileBytes ?? ROOT_FILE_MAX_BYTES;
  const w = walk(root, maxBytes);
  const packages = w.packageJsons.map((p) => loadPackage(p, root)).filter((p): p is WorkspacePackage => p !== null);

  // Load configs; follow references to configs that are not named tsconfig.json (tsconfig.lib.json …).
  const queue = [...w.configs];
  const seen = new Set<string>();
  const loaded: { path: string; cfg: ParsedConfig }[] = [];
  while (queue.length > 0) {
    const p = queue.shift()!;
    const path = !p.endsWith('.json') && isFile(join(p, 'tsconfig.json')) ? join(p, 'tsconfig.json') : p;
    if (seen.has(path) || !isRepoSource(root, path) || !isFile(path)) continue;
    seen.add(path);
    const cfg = parseConfig(path, root);
    loaded.push({ path, cfg });
    for (const r of cfg.references) queue.push(r);
  }
  loaded.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const projects: LoadedProject[] = [];
  for (const { path, cfg } of loaded) {
    const dir = dirname(path);
    // Solution-style configs (no root files, only references) are not programs of their own.
    if (cfg.error === null && cfg.fileNames.length === 0) continue;
    const rel = repoRelative(root, path);
    projects.push({
      id: rel,
      tsconfig: rel,
      packageName: packageOf(packages, path)?.name ?? null,
      dir,
      status: cfg.error === null ? 'ok' : 'failed',
      ...(cfg.error === null ? {} : { reason: `project_load_failed: ${cfg.error}` }),
      options: cfg.options,
      rootNames: cfg.fileNames.filter((f) => rootSized(f, maxBytes)),
      owned: [],
      strippedPlugins: cfg.plugins,
    });
  }

  // Ownership: the deepest project directory wins; ties go to the first config in path order.
  const owner = new Map<string, LoadedProject>();
  for (const p of projects) {
    if (p.status !== 'ok') continue;
    for (const f of p.rootNames) {
      if (!isRepoSource(root, f)) continue;
      const cur = owner.get(f);
      if (cur === undefined || p.dir.length > cur.dir.length) owner.set(f, p);
    }
  }
  for (const [f, p] of owner) p.owned.push(f);
  for (const p of projects) p.owned.sort();

  // Inferred projects for every source file no config lists. A file inside a project's
  // directory that its config excludes (tests, scripts, config files) is analysed with the
  // options of the deepest enclosing config, so its `paths`, `jsx` and `types` still resolve
  // (one group per enclosing config directory); files outside every project directory form
  // one group per package with default options. Files under a failed config stay unanalysed.
  const enclosing = (f: string): LoadedProject | null => {
    let best: LoadedProject | null = null;
    for (const p of projects) {
      if (!(p.dir === dirname(f) || isUnder(p.dir, f))) continue;
      if (best === null || p.dir.length > best.dir.length) best = p;
    }
    return best;
  };
  const groups = new Map<string, { files: string[]; base: LoadedProject | null }>();
  for (const f of w.sources) {
    if (owner.has(f)) continue;
    const base = enclosing(f);
    if (base !== null && base.status !== 'ok') continue;
    const dir = base?.dir ?? packageOf(packages, f)?.dir ?? root;
    const g = groups.get(dir) ?? { files: [], base };
    g.files.push(f);
    groups.set(dir, g);
  }
  for (const [dir, { files, base }] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const relDir = repoRelative(root, dir);
    projects.push({
      id: relDir === '' ? INFERRED_PROJECT_ID : `${INFERRED_PROJECT_ID}:${relDir}`,
      tsconfig: null,
      packageName: base !== null ? base.packageName : (packageOf(packages, join(dir, 'package.json'))?.name ?? null),
      dir,
      status: 'ok',
      options: base !== null ? { ...base.options, allowJs: true, checkJs: false, noEmit: true } : inferredOptions(),
      rootNames: files,
      owned: [...files],
      strippedPlugins: [],
    });
  }
  return { root, packages, projects };
}

/** Resolves a bare specifier naming a workspace package (or a subpath of it) to a source file. */
export function resolveWorkspaceSpecifier(packages: readonly WorkspacePackage[], specifier: string): string | null {
  for (const p of packages) {
    if (specifier === p.name) return p.entries[0] ?? null;
    if (specifier.startsWith(p.name + '/')) {
      const sub = specifier.slice(p.name.length + 1);
      return sourceOf(p.dir, posix.join('src', sub)) ?? sourceOf(p.dir, sub);
    }
  }
  return null;
}

/**
 * Options that only change emit, build bookkeeping or diagnostics the pass never asks for:
 * projects that differ only in them build the same program (same parse, bind, resolution and
 * types). Everything else (`paths` with its absolute base, `lib`, `types`, `strict*`, `jsx` …)
 * stays in the key.
 */
const PROGRAM_NEUTRAL_OPTIONS = [
  'configFilePath',
  'outDir',
  'outFile',
  'rootDir',
  'declaration',
  'declarationDir',
  'declarationMap',
  'emitDeclarationOnly',
  'sourceMap',
  'inlineSourceMap',
  'inlineSources',
  'sourceRoot',
  'mapRoot',
  'removeComments',
  'noEmit',
  'noEmitOnError',
  'composite',
  'incremental',
  'tsBuildInfoFile',
  'emitBOM',
  'newLine',
  'stripInternal',
  'skipLibCheck',
  'skipDefaultLibCheck',
  'forceConsistentCasingInFileNames',
  'noUnusedLocals',
  'noUnusedParameters',
  'noImplicitReturns',
  'noFallthroughCasesInSwitch',
  'allowUnreachableCode',
  'allowUnusedLabels',
  'listFiles',
  'listEmittedFiles',
  'diagnostics',
  'extendedDiagnostics',
  'pretty',
  'traceResolution',
  'explainFiles',
  'noErrorTruncation',
  'plugins',
] as const;

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Key of the program a project's options build: equal keys → one program can serve all those
 * projects (root files united), because emit-only and diagnostic-only options are left out and
 * `checkJs: false` equals an absent `checkJs`.
 */
export function programKey(options: ts.CompilerOptions): string {
  const o: Record<string, unknown> = { ...options };
  for (const k of PROGRAM_NEUTRAL_OPTIONS) delete o[k];
  if (o.checkJs === false) delete o.checkJs;
  return stableJson(o);
}

/** Projects analysed in one program, in request order. */
export interface ProgramGroup {
  readonly key: string;
  /** Options the group's program is built with (the first project's, or widened by `mergeGroups`). */
  readonly options: ts.CompilerOptions;
  readonly projects: readonly LoadedProject[];
  /** Cost estimate for balancing workers: bytes of the owned files to analyse. */
  readonly cost: number;
}

/**
 * Groups the loadable projects by `programKey` (failed projects are left out), ordered by the
 * first member's position in `projects`. `requested` restricts the cost to the files asked for.
 */
export function groupProjects(projects: readonly LoadedProject[], requested: ReadonlySet<string> | null = null): ProgramGroup[] {
  const byKey = new Map<string, { key: string; options: ts.CompilerOptions; projects: LoadedProject[]; cost: number }>();
  for (const p of projects) {
    if (p.status !== 'ok') continue;
    const key = programKey(p.options);
    let g = byKey.get(key);
    if (g === undefined) {
      g = { key, options: p.options, projects: [], cost: 0 };
      byKey.set(key, g);
    }
    g.projects.push(p);
    g.cost += costOf([p], requested);
  }
  return [...byKey.values()];
}

/**
 * The groups of `groups` cut down to the `wanted` projects (empty groups dropped), with their
 * cost counted over the `requested` files only (all owned files when null).
 */
export function restrictGroups(groups: readonly ProgramGroup[], wanted: readonly LoadedProject[], requested: ReadonlySet<string> | null): ProgramGroup[] {
  const want = new Set(wanted);
  const out: ProgramGroup[] = [];
  for (const g of groups) {
    const projects = g.projects.filter((p) => want.has(p));
    if (projects.length === 0) continue;
    out.push({ key: g.key, options: g.options, projects, cost: requested === null && projects.length === g.projects.length ? g.cost : costOf(projects, requested) });
  }
  return out;
}

function costOf(projects: readonly LoadedProject[], requested: ReadonlySet<string> | null): number {
  let cost = 0;
  for (const p of projects) {
    for (const f of p.owned) {
      if (requested !== null && !requested.has(f)) continue;
      try {
        cost += statSync(f).size;
      } catch {
        // vanished since the walk: costs nothing
      }
    }
  }
  return cost;
}

/**
 * Splits program groups between `count` workers, largest first onto the least loaded
 * (deterministic: ties go to the lower index). Returns the project ids per worker in request
 * order; `failedIds` (nothing to run) go to worker 0. Empty shards are dropped at the end, so
 * fewer workers are used when there are fewer groups.
 */
export function shardProjects(order: readonly string[], groups: readonly ProgramGroup[], count: number, failedIds: readonly string[] = []): string[][] {
  const n = Math.max(1, Math.floor(count));
  const load = new Array<number>(n).fill(0);
  const shardOf = new Map<string, number>();
  const sorted = groups.map((g, i) => ({ g, i })).sort((a, b) => b.g.cost - a.g.cost || a.i - b.i);
  for (const { g } of sorted) {
    let best = 0;
    for (let k = 1; k < n; k++) if (load[k]! < load[best]!) best = k;
    load[best] = load[best]! + g.cost;
    for (const p of g.projects) shardOf.set(p.id, best);
  }
  for (const id of failedIds) shardOf.set(id, 0);
  const shards: string[][] = Array.from({ length: n }, () => []);
  for (const id of order) {
    const k = shardOf.get(id);
    if (k !== undefined) shards[k]!.push(id);
  }
  // Worker 0 always runs (it planned the request); drop trailing empty shards only.
  while (shards.length > 1 && shards[shards.length - 1]!.length === 0) shards.pop();
  return shards;
}
