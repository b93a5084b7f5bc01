/**
 * Merging program groups whose options differ but whose files resolve alike (ts-semantic-5).
 *
 * `groupProjects` puts projects with equal `programKey`s in one program. Projects whose options
 * differ only in what does not move a name to another declaration (`target`, `lib`, `strict*`,
 * `jsx` mode, `types`, `paths` spelled from another base …) would each build a program of their
 * own and parse, bind and check every shared package again: on excalidraw the two examples'
 * programs re-read all of `packages/excalidraw` for 12 owned files, a fifth of the pass.
 *
 * A group joins a larger one when every import of its root files resolves to the same file
 * under the larger group's options as under its own (checked, not assumed, with the pass's own
 * resolver: TypeScript's resolution plus the workspace-source fallback), when both detect
 * modules alike and neither resolves in node16/nodenext mode (import modes are not compared
 * here). A group with JavaScript roots may join one without `allowJs`: the merged program then
 * gets `allowJs`, only when every import of the larger group's roots still resolves as before.
 */
import { createHash } from 'node:crypto';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { safeReadFile } from '@ca/schema';
import { safeSystem } from './safeSystem.js';
import type { LoadedProject, ProgramGroup, WorkspacePackage } from './projects.js';
import { resolveWorkspaceSpecifier } from './projects.js';

const JS_FILE = /\.(c|m)?jsx?$/i;

/** `allowJs`, which `checkJs` implies when absent. */
function allowsJs(o: ts.CompilerOptions): boolean {
  return o.allowJs ?? Boolean(o.checkJs);
}

/** `resolvedFileName` of a TypeScript resolution, or the workspace package source it falls back to. */
export function resolveWithWorkspaceFallback(
  resolved: ts.ResolvedModuleWithFailedLookupLocations,
  specifier: string,
  packages: readonly WorkspacePackage[],
): ts.ResolvedModuleWithFailedLookupLocations {
  const rf = resolved.resolvedModule?.resolvedFileName;
  const isSourceHit = rf !== undefined && !resolved.resolvedModule!.isExternalLibraryImport && !/\.d\.[mc]?ts$/.test(rf);
  if (!isSourceHit && !specifier.startsWith('.')) {
    // Workspace packages resolve to their sources (not to unbuilt/stale dist .d.ts files).
    const ws = resolveWorkspaceSpecifier(packages, specifier);
    if (ws !== null) {
      return {
        resolvedModule: { resolvedFileName: ws, extension: extensionOf(ws), isExternalLibraryImport: false },
      } as ts.ResolvedModuleWithFailedLookupLocations;
    }
  }
  return resolved;
}

const EXTENSIONS: Readonly<Record<string, ts.Extension>> = {
  'd.ts': ts.Extension.Dts,
  tsx: ts.Extension.Tsx,
  mts: ts.Extension.Mts,
  cts: ts.Extension.Cts,
  jsx: ts.Extension.Jsx,
  js: ts.Extension.Js,
  mjs: ts.Extension.Mjs,
  cjs: ts.Extension.Cjs,
};

function extensionOf(f: string): ts.Extension {
  const m = /\.(d\.ts|tsx|ts|mts|cts|jsx|js|mjs|cjs)$/.exec(f);
  return (m !== null ? EXTENSIONS[m[1]!] : undefined) ?? ts.Extension.Ts;
}

/**
 * Module specifiers of a file: string literals after `from`, `import`, `import(`, `require(`
 * (comments between allowed). A superset of TypeScript's own list (`preProcessFile` finds the
 * same 4,660 imports on excalidraw, at 1/40 of the cost); a string that is not an import only
 * makes the check stricter.
 */
const SPECIFIER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*(?:\/\*[^]*?\*\/\s*|\/\/[^\n]*\n\s*)*(['"`])([^'"`\n]+)\1/g;

export function importSpecifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(SPECIFIER)) out.add(m[2]!);
  return [...out];
}

/** Import specifiers of one file, read once per version. */
interface FileImports {
  readonly mtimeMs: number;
  readonly size: number;
  readonly modules: readonly string[];
}

/** One program of a decision: the projects it holds and whether `allowJs` was added to its host group's options. */
interface DecidedHost {
  /** Key of the group whose options the program is built with (the largest of those merged). */
  readonly key: string;
  readonly projectIds: readonly string[];
  readonly widened: boolean;
}

/**
 * What resolution checks keep between requests of a warm worker, and between processes when
 * saved (`saveMergeCache`): the import list of each file read (re-read when its size or mtime
 * changes) and the last decision.
 */
export interface MergeCache {
  readonly imports: Map<string, FileImports>;
  /** Set when a re-read file's import list differs from the one kept. */
  importsChanged: boolean;
  /**
   * What `last` and `alike` hold for: the projects, their root files, the workspace and the
   * installed packages. Another fingerprint forgets both.
   */
  fingerprint: string | null;
  /** The last decision under `fingerprint`: which projects share a program. */
  last: readonly DecidedHost[] | null;
  /**
   * Per file, whether its imports resolve alike under a pair of option sets (`sameResolution`),
   * by pair: valid while the file's import list and `fingerprint` are unchanged. A decision
   * taken again after one import list changed re-resolves that file's imports only.
   */
  readonly alike: Map<string, Map<string, boolean>>;
  /** Set when the cache changed since it was loaded or saved. */
  dirty: boolean;
}

export function createMergeCache(): MergeCache {
  return { imports: new Map(), importsChanged: false, last: null, alike: new Map(), fingerprint: null, dirty: false };
}

/** Format of a saved cache; another one reads as empty. */
const SAVED_FORMAT = 3;
/** A saved cache larger than this is not read (a real one is a few hundred KB). */
const SAVED_MAX_BYTES = 64 * 1024 * 1024;

interface SavedCache {
  readonly format: number;
  readonly last: MergeCache['last'];
  readonly fingerprint: string | null;
  readonly alike: readonly (readonly [file: string, pairs: readonly (readonly [pair: string, alike: boolean])[]])[];
  readonly imports: readonly (readonly [file: string, mtimeMs: number, size: number, modules: readonly string[]])[];
}

/**
 * The cache a worker saved to `file`, or an empty one (missing, unreadable, another format).
 * A one-shot `ca index` thus replays the decision of the run before it: every file it relies
 * on is checked again (`mergeGroups`), so the saved file can make a decision cheaper, never
 * another one.
 */
export function loadMergeCache(file: string): MergeCache {
  const cache = createMergeCache();
  const read = safeReadFile(file, { maxBytes: SAVED_MAX_BYTES });
  if (!read.ok) return cache;
  try {
    const saved = JSON.parse(read.bytes.toString('utf8')) as SavedCache;
    if (saved.format !== SAVED_FORMAT || !Array.isArray(saved.imports)) return cache;
    for (const [f, mtimeMs, size, modules] of saved.imports) {
      if (typeof f === 'string' && typeof mtimeMs === 'number' && typeof size === 'number' && Array.isArray(modules)) {
        cache.imports.set(f, { mtimeMs, size, modules: modules.filter((m): m is string => typeof m === 'string') });
      }
    }
    if (typeof saved.fingerprint === 'string' && Array.isArray(saved.alike)) {
      cache.fingerprint = saved.fingerprint;
      for (const [f, pairs] of saved.alike) {
        if (typeof f !== 'string' || !Array.isArray(pairs)) continue;
        cache.alike.set(f, new Map(pairs.filter(([k, v]) => typeof k === 'string' && typeof v === 'boolean')));
      }
      if (Array.isArray(saved.last)) {
        cache.last = saved.last.map((h) => ({ key: String(h.key), projectIds: (h.projectIds ?? []).map(String), widened: h.widened === true }));
      }
    }
  } catch {
    // Missing, unreadable or foreign cache file: start empty (every decision is checked again anyway).
    return createMergeCache();
  }
  return cache;
}

/** Writes `cache` to `file` (atomically, by rename) when it changed; best effort. */
export function saveMergeCache(cache: MergeCache, file: string): void {
  if (!cache.dirty) return;
  const saved: SavedCache = {
    format: SAVED_FORMAT,
    last: cache.last,
    fingerprint: cache.fingerprint,
    alike: [...cache.alike].map(([f, pairs]) => [f, [...pairs]] as const),
    imports: [...cache.imports].map(([f, e]) => [f, e.mtimeMs, e.size, e.modules] as const),
  };
  const tmp = join(dirname(file), `.${process.pid}.${Date.now()}.tsprograms.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify(saved), { flag: 'wx', mode: 0o600 });
    renameSync(tmp, file);
    cache.dirty = false;
  } catch {
    // The cache is an optimisation: unsaved, the next process decides the merge again.
    rmSync(tmp, { force: true });
  }
}

function importsOf(cache: MergeCache, file: string, fresh: ReadonlySet<string> | null, sys: ts.System): FileImports | null {
  let st;
  try {
    st = statSync(file);
  } catch {
    // A file gone or unreadable since the walk has no imports to compare (null).
    return null;
  }
  const cached = cache.imports.get(file);
  if (cached !== undefined && cached.mtimeMs === st.mtimeMs && cached.size === st.size && (fresh === null || !fresh.has(file))) return cached;
  const text = sys.readFile(file);
  if (text === undefined) return null;
  const entry: FileImports = { mtimeMs: st.mtimeMs, size: st.size, modules: importSpecifiers(text) };
  if (cached !== undefined && cached.modules.join('\0') !== entry.modules.join('\0')) {
    cache.importsChanged = true;
    cache.alike.delete(file);
  }
  cache.imports.set(file, entry);
  cache.dirty = true;
  return entry;
}

/** Resolves specifiers under one option set, with TypeScript's cache for that set. */
class Resolver {
  private readonly cache: ts.ModuleResolutionCache;
  private readonly memo = new Map<string, string>();
  private readonly allowJs: boolean;
  /** Names the option set (in `MergeCache.alike` pairs). */
  readonly id: string;
  constructor(
    readonly options: ts.CompilerOptions,
    private readonly packages: readonly WorkspacePackage[],
    readonly sys: ts.System,
  ) {
    this.cache = ts.createModuleResolutionCache(ts.sys.getCurrentDirectory(), (f) => f, options);
    this.allowJs = allowsJs(options);
    this.id = createHash('sha1').update(JSON.stringify(options)).digest('hex').slice(0, 16);
  }

  /** Resolved file of `specifier` imported from `containingFile`, '' when it does not resolve. */
  resolve(specifier: string, containingFile: string): string {
    const k = `${dirname(containingFile)}\0${specifier}`;
    let r = this.memo.get(k);
    if (r === undefined) {
      const raw = ts.resolveModuleName(specifier, containingFile, this.options, this.sys, this.cache);
      r = resolveWithWorkspaceFallback(raw, specifier, this.packages).resolvedModule?.resolvedFileName ?? '';
      // TypeScript resolves to a .js/.json file even when the program will not load it (the
      // import is then `any`): that is no resolution here.
      if ((JS_FILE.test(r) && !this.allowJs) || (r.endsWith('.json') && !this.options.resolveJsonModule)) r = '';
      this.memo.set(k, r);
    }
    return r;
  }
}

const isRelative = (s: string): boolean => s.startsWith('.') || s.startsWith('/');

/**
 * The options that decide how a relative specifier resolves: equal keys resolve every
 * relative import alike, so only bare specifiers need comparing.
 */
function relativeKey(o: ts.CompilerOptions): string {
  return JSON.stringify([
    o.moduleResolution === ts.ModuleResolutionKind.Classic ? 'classic' : 'node',
    allowsJs(o),
    Boolean(o.resolveJsonModule),
    Boolean(o.allowArbitraryExtensions),
    o.moduleSuffixes ?? null,
    o.rootDirs ?? null,
  ]);
}

const TS_TARGET = /\.(d\.[mc]?ts|[mc]?tsx?)$/;

/**
 * True when every import of `files` resolves to the same file under `wider` as under `own`.
 * `widening` (only `allowJs` added): a specifier that already resolves to a TypeScript file
 * cannot change, because TypeScript extensions are tried before JavaScript ones.
 */
function sameResolution(files: readonly string[], own: Resolver, wider: Resolver, cache: MergeCache, fresh: ReadonlySet<string> | null, widening = false): boolean {
  const relativeAlike = relativeKey(own.options) === relativeKey(wider.options);
  const pair = `${own.id}:${wider.id}:${widening ? 1 : 0}`;
  const alike = (f: string, modules: readonly string[]): boolean => {
    for (const s of modules) {
      if (relativeAlike && isRelative(s)) continue;
      const a = own.resolve(s, f);
      if (widening && TS_TARGET.test(a)) continue;
      if (a !== wider.resolve(s, f)) return false;
    }
    return true;
  };
  for (const f of files) {
    const imps = importsOf(cache, f, fresh, own.sys);
    if (imps === null) continue;
    let pairs = cache.alike.get(f);
    let same = pairs?.get(pair);
    if (same === undefined) {
      same = alike(f, imps.modules);
      if (pairs === undefined) cache.alike.set(f, (pairs = new Map()));
      pairs.set(pair, same);
      cache.dirty = true;
    }
    if (!same) return false;
  }
  return true;
}

function usesImportModes(o: ts.CompilerOptions): boolean {
  const k = o.moduleResolution;
  if (k === ts.ModuleResolutionKind.Node16 || k === ts.ModuleResolutionKind.NodeNext) return true;
  // Without moduleResolution, module node16…nodenext implies it.
  return k === undefined && o.module !== undefined && o.module >= ts.ModuleKind.Node16 && o.module <= ts.ModuleKind.NodeNext;
}

function statically(a: ts.CompilerOptions, b: ts.CompilerOptions): boolean {
  if (usesImportModes(a) || usesImportModes(b)) return false;
  // Whether a file without imports is a global script decides what is global in the program.
  if ((a.moduleDetection ?? ts.ModuleDetectionKind.Auto) !== (b.moduleDetection ?? ts.ModuleDetectionKind.Auto)) return false;
  // Decorators under the legacy flag bind and check another way.
  return Boolean(a.experimentalDecorators) === Boolean(b.experimentalDecorators);
}

interface Host {
  readonly first: number;
  key: string;
  /** `allowJs` was added to the options of group `key`. */
  widened: boolean;
  options: ts.CompilerOptions;
  resolver: Resolver;
  projects: LoadedProject[];
  cost: number;
  roots: string[];
}

/**
 * Merges `groups` (from `groupProjects`) into as few programs as their resolution allows:
 * largest first, each group joins the first larger one it is compatible with. Returns the
 * groups in the order of their first project; a merged group's `options` are the options its
 * program is built with. `fresh` are files whose import lists must be re-read whatever their
 * size and mtime say (the files of a partial request).
 *
 * A partial request (`fresh` given) reuses the cache's last decision while the projects, their
 * root files and every root file's import list are unchanged (a stat per root file, a read of
 * the changed ones); a full request (`fresh` null) always decides again.
 */
export function mergeGroups(
  groups: readonly ProgramGroup[],
  packages: readonly WorkspacePackage[],
  cache: MergeCache = createMergeCache(),
  fresh: ReadonlySet<string> | null = null,
  root: string | null = null,
): ProgramGroup[] {
  // Files inside the repository are read through the safe reader (safeSystem.ts).
  const sys = safeSystem(root);
  const fingerprint = JSON.stringify([
    groups.map((g) => [g.key, g.projects.map((p) => [p.id, p.rootNames])]),
    packages.map((p) => [p.name, p.dir, p.entries]),
    root === null ? null : installStamp(root),
  ]);
  // The decision and what resolved alike stay so while the projects, packages and installs are the same.
  if (cache.fingerprint !== fingerprint) {
    cache.last = null;
    cache.alike.clear();
    cache.fingerprint = fingerprint;
    cache.dirty = true;
  }
  if (fresh !== null && cache.last !== null) {
    cache.importsChanged = false;
    // The decision read only some files' imports (those it compared): only they can change it.
    for (const g of groups) for (const p of g.projects) for (const f of p.rootNames) if (cache.imports.has(f)) importsOf(cache, f, fresh, sys);
    if (!cache.importsChanged) return replay(groups, cache.last);
  }
  const result = decide(groups, packages, cache, fresh, sys);
  cache.last = result.map((h) => ({ key: h.key, projectIds: h.projects.map((p) => p.id), widened: h.widened }));
  cache.dirty = true;
  return result.map(({ widened: _, ...g }) => g);
}

/**
 * What installed packages look like, cheaply: bare specifiers resolve into `node_modules`,
 * which an install rewrites (its folder's and the lockfiles' times and sizes move).
 */
function installStamp(root: string): (number | null)[] {
  return ['node_modules', 'node_modules/.modules.yaml', 'node_modules/.package-lock.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb'].flatMap(
    (f) => {
      const st = statSync(join(root, f), { throwIfNoEntry: false });
      return st === undefined ? [null, null] : [st.mtimeMs, st.size];
    },
  );
}

/** The groups of an earlier decision, rebuilt from this request's project objects. */
function replay(groups: readonly ProgramGroup[], hosts: readonly DecidedHost[]): ProgramGroup[] {
  const byId = new Map<string, { p: LoadedProject; g: ProgramGroup }>();
  for (const g of groups) for (const p of g.projects) byId.set(p.id, { p, g });
  const byKey = new Map(groups.map((g) => [g.key, g]));
  return hosts.map((h) => {
    const members = h.projectIds.map((id) => byId.get(id)!);
    const own = byKey.get(h.key)!.options;
    return {
      key: h.key,
      options: h.widened ? { ...own, allowJs: true } : own,
      projects: members.map((m) => m.p),
      cost: [...new Set(members.map((m) => m.g))].reduce((n, g) => n + g.cost, 0),
    };
  });
}

function decide(
  groups: readonly ProgramGroup[],
  packages: readonly WorkspacePackage[],
  cache: MergeCache,
  fresh: ReadonlySet<string> | null,
  sys: ts.System,
): (ProgramGroup & { readonly widened: boolean })[] {
  const order = groups.map((g, i) => ({ g, i })).sort((x, y) => y.g.cost - x.g.cost || x.i - y.i);
  const hosts: Host[] = [];
  for (const { g, i } of order) {
    const roots = [...new Set(g.projects.flatMap((p) => p.rootNames))];
    const own = new Resolver(g.options, packages, sys);
    const hasJs = roots.some((f) => JS_FILE.test(f));
    let placed = false;
    for (const h of hosts) {
      if (!statically(h.options, g.options)) continue;
      const widen = hasJs && !allowsJs(h.options);
      const merged = widen ? new Resolver({ ...h.options, allowJs: true }, packages, sys) : h.resolver;
      if (!sameResolution(roots, own, merged, cache, fresh)) continue;
      if (widen && !sameResolution(h.roots, h.resolver, merged, cache, fresh, true)) continue;
      h.options = merged.options;
      h.widened ||= widen;
      h.resolver = merged;
      h.projects.push(...g.projects);
      h.cost += g.cost;
      h.roots.push(...roots);
      placed = true;
      break;
    }
    if (!placed) hosts.push({ first: i, key: g.key, widened: false, options: g.options, resolver: own, projects: [...g.projects], cost: g.cost, roots });
  }
  return hosts
    .sort((a, b) => a.first - b.first)
    .map((h) => ({ key: h.key, options: h.options, projects: h.projects, cost: h.cost, widened: h.widened }));
}
