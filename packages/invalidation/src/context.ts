import { posix } from 'node:path';
import { readCsproj } from '@ca/parse-cs';
import type { DiscoveredFile } from './discovery.js';
import type { TreeAccess } from './tree.js';

/** One semantic-context file that was added, changed or removed since the previous index. */
export interface ContextChange {
  readonly path: string;
  readonly change: 'added' | 'changed' | 'removed';
  /** Source files whose semantic pass runs again because of it. */
  readonly files: number;
}

/** What the index remembers of one context file between runs (`_metadata.semantic_context`). */
export interface Recorded {
  readonly size: number;
  /** -1 when the file was modified too recently to trust size + mtime next time (racy). */
  readonly mtimeMs: number;
  /** sha1 of the bytes, or `unreadable: <code>`. */
  readonly hash: string;
  /** tsconfig/jsconfig (and configs they extend): the repo paths it extends; `*` = unknown (unreadable, invalid, too large). */
  readonly extends?: readonly string[];
  /**
   * tsconfig/jsconfig: the repo directories its `include`/`files` reach outside its own folder
   * (`../src/**` → `src`). Its `references` do not count: the pass resolves a referenced
   * project's modules from their sources, with the referencing program's own options.
   */
  readonly reach?: { readonly dirs: readonly string[] };
  /** package.json: its `name`; null = none; `*` = unknown. */
  readonly pkg?: string | null;
  /** MSBuild files (.csproj, .props, .targets): the repo files they `<Import>`; `*` = unknown. */
  readonly imports?: readonly string[];
  /** .csproj: the repo projects its `<ProjectReference>`s name (absent: unreadable). */
  readonly refs?: readonly string[];
}

/** Every context file's facts, by repo path. */
export type ContextFacts = Readonly<Record<string, Recorded>>;

/** A tree the context scan reads: discovery's, plus a content hash of any of its files. */
export interface ContextTree extends TreeAccess {
  /** A digest of the file's bytes (sha1, or its blob id), or `unreadable: <why>`. */
  hash(path: string): string;
}

/** `_metadata` key of the working label's facts (other labels: `semantic_context:<label>`). */
export const CONTEXT_METADATA_KEY = 'semantic_context';
/** A file modified this recently may change again within the file system's timestamp granularity. */
const RACY_MS = 2_000;
/** Configs larger than this are hashed but not read as JSON/XML (their facts count as unknown). */
export const CONTEXT_READ_MAX_BYTES = 1 << 20;
const UNKNOWN = '*';

const TS_CONFIG = /^(tsconfig(\..*)?|jsconfig)\.json$/i;
const MSBUILD = /\.(csproj|props|targets)$/i;
const C_SHARP_WIDE = /(^|\/)(directory\.build\.(props|targets)|directory\.packages\.props|global\.json|nuget\.config|packages\.lock\.json)$/i;

export interface Tracked {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * Why it is tracked: found by discovery, or reached from a tracked file — a config `extends` it
   * (a `base.json` is not named like a config), an MSBuild file `<Import>`s it.
   */
  readonly via: 'discovery' | 'extends' | 'import';
}

/** The context files of one run: their facts, where workspace packages live, and how each was found. */
export interface ContextScan {
  readonly facts: ContextFacts;
  readonly packageDirs: ReadonlyMap<string, string>;
  readonly tracked: ReadonlyMap<string, Tracked>;
}

/**
 * Reads the facts of the repository's semantic-context files (discovery's `contextFiles`, plus
 * the in-repo files their tsconfigs `extends` and their MSBuild files `<Import>`), reusing the
 * previous run's facts of a file whose size and mtime (or hash) did not move. Contents are
 * hashed only when size or mtime moved; an unreadable file hashes as its error, so it counts as
 * changed. Nothing is executed: configs are read as text.
 */
export function scanContext(tree: ContextTree, discovered: readonly DiscoveredFile[], previous: ContextFacts | null, now = Date.now()): ContextScan {
  const next: Record<string, Recorded> = {};
  const tracked = new Map<string, Tracked>(discovered.map((f) => [f.path, { path: f.path, size: f.size, mtimeMs: f.mtimeMs, via: 'discovery' as const }]));
  const packageDirs = new Map<string, string>();
  const record = (f: Tracked): Recorded => {
    const old = previous?.[f.path];
    const same = old !== undefined && old.mtimeMs >= 0 && old.size === f.size && old.mtimeMs === f.mtimeMs;
    const hash = same ? old.hash : tree.hash(f.path);
    const reuse = old !== undefined && old.hash === hash ? old : undefined;
    const isTsConfig = f.via === 'extends' || TS_CONFIG.test(posix.basename(f.path));
    const isMsBuild = f.via === 'import' || MSBUILD.test(f.path);
    const isCsproj = f.path.toLowerCase().endsWith('.csproj');
    const isPackage = posix.basename(f.path).toLowerCase() === 'package.json';
    // Facts recorded before `reach` (or `refs`) existed are read again.
    const config = !isTsConfig ? null : reuse?.extends !== undefined && reuse.reach !== undefined ? { extends: reuse.extends, reach: reuse.reach } : readTsConfig(tree, f.path);
    const msbuild = !isMsBuild ? null : reuse?.imports !== undefined && (!isCsproj || reuse.refs !== undefined) ? { imports: reuse.imports, ...(reuse.refs ? { refs: reuse.refs } : {}) } : readMsBuild(tree, f.path);
    const r: Recorded = {
      size: f.size,
      mtimeMs: f.mtimeMs <= 0 || now - f.mtimeMs < RACY_MS ? -1 : f.mtimeMs,
      hash,
      ...(config ?? {}),
      ...(isPackage ? { pkg: reuse?.pkg !== undefined ? reuse.pkg : readPackageName(tree, f.path) } : {}),
      ...(msbuild ?? {}),
    };
    next[f.path] = r;
    return r;
  };
  // Package names first: a tsconfig may extend `@acme/tsconfig/base.json`, a workspace package.
  for (const f of tracked.values()) {
    if (posix.basename(f.path).toLowerCase() !== 'package.json') continue;
    const pkg = record(f).pkg;
    if (typeof pkg === 'string' && pkg !== UNKNOWN && !packageDirs.has(pkg)) packageDirs.set(pkg, dirOf(f.path));
  }
  const queue = [...tracked.values()].filter((f) => !(f.path in next));
  while (queue.length > 0) {
    const f = queue.shift()!;
    if (f.path in next) continue;
    const r = record(f);
    const follow = (target: string | null, via: Tracked['via']): void => {
      if (target === null || tracked.has(target)) return;
      const extra = trackable(tree, target, via);
      if (extra === null) return;
      tracked.set(target, extra);
      queue.push(extra);
    };
    for (const spec of r.extends ?? []) if (spec !== UNKNOWN) follow(resolveExtends(spec, f.path, packageDirs, (p) => trackable(tree, p) !== null), 'extends');
    for (const target of r.imports ?? []) if (target !== UNKNOWN) follow(target, 'import');
  }
  return { facts: next, packageDirs, tracked };
}

/** Context files added, changed (by hash) or removed between two runs' facts, in path order. */
export function diffContext(previous: ContextFacts, next: ContextFacts): { path: string; change: ContextChange['change'] }[] {
  const changed: { path: string; change: ContextChange['change'] }[] = [];
  for (const [path, r] of Object.entries(next)) {
    const old = previous[path];
    if (!old || old.hash !== r.hash) changed.push({ path, change: old ? 'changed' : 'added' });
  }
  for (const path of Object.keys(previous)) if (!(path in next)) changed.push({ path, change: 'removed' });
  return changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What the scope computation asks of the index: the label's analysable files, and who imports a package. */
export interface ContextState {
  readonly files: readonly ScopeFile[];
  /** Files of the label with an import whose specifier is one of `names` or a subpath of one. */
  importersOf(names: readonly string[]): ReadonlySet<number>;
}

/**
 * The source files each changed context file shapes (the second invalidation class,
 * docs/architecture.md; decision 012): the config's directory and the folders its `include`/`files`
 * reach, projects whose tsconfig `extends` it, files importing a changed workspace package,
 * projects referencing a changed `.csproj`, projects that `<Import>` a changed MSBuild file.
 */
export function contextScopes(
  changed: readonly { path: string; change: ContextChange['change'] }[],
  scan: ContextScan,
  previous: ContextFacts,
  state: ContextState,
): { path: string; change: ContextChange['change']; files: ScopeFile[] }[] {
  if (changed.length === 0) return [];
  const graph = extendsGraph(scan.facts, previous, scan.packageDirs);
  const scopes = new ScopeFinder(state, graph, scan.facts, previous);
  return changed.map((c) => ({ ...c, files: scopes.of(c.path) }));
}

export interface ScopeFile {
  readonly id: number;
  readonly path: string;
  readonly language: string;
  readonly project: string;
}

/** The text of a config, or null when it cannot be read as a regular file of at most `CONTEXT_READ_MAX_BYTES`. */
function readSmallText(tree: TreeAccess, path: string): string | null {
  return tree.readSmall(path, CONTEXT_READ_MAX_BYTES)?.toString('utf8') ?? null;
}

/**
 * What a tsconfig says about its reach: the `extends` specifiers as written (`[*]` when the file
 * cannot be read as JSON) and the repo directories its `include`/`files` name outside its own
 * folder.
 */
function readTsConfig(tree: TreeAccess, path: string): Required<Pick<Recorded, 'extends' | 'reach'>> {
  const text = readSmallText(tree, path);
  let parsed: unknown = null;
  try {
    parsed = text === null ? null : parseJsonc(text);
  } catch {
    // A tsconfig that is not JSON(C) cannot be followed: its extends and reach are unknown, which widens invalidation.
    parsed = null;
  }
  if (parsed === null || typeof parsed !== 'object') return { extends: [UNKNOWN], reach: { dirs: [] } };
  const json = parsed as { extends?: unknown; include?: unknown; files?: unknown };
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x !== '');
  const own = dirOf(path);
  const dirs = new Set<string>();
  // The literal part of a pattern (up to its first wildcard segment); a `files` entry's folder.
  const reachDir = (entry: string, isFile: boolean): void => {
    const segments = entry.split(/[\\/]/);
    const wildcard = segments.findIndex((x) => /[*?{[]/.test(x));
    const literal = isFile ? segments.slice(0, -1) : wildcard < 0 ? segments : segments.slice(0, wildcard);
    const rel = inRepo(posix.join(own, ...literal));
    if (rel === null) return;
    const inside = own === '' || rel === own || rel.startsWith(`${own}/`);
    if (!inside) dirs.add(rel);
  };
  for (const entry of strings(json.include)) reachDir(entry, false);
  for (const entry of strings(json.files)) reachDir(entry, true);
  return { extends: strings(json.extends).filter((p) => p !== UNKNOWN), reach: { dirs: [...dirs].sort() } };
}

/** A repo-relative path normalised (`a/../b` → `b`, '' for the root), or null when it leads outside the repository. */
function inRepo(path: string): string | null {
  if (posix.isAbsolute(path)) return null;
  const rel = posix.normalize(path.split('\\').join('/'));
  if (rel === '.' || rel === './') return '';
  return rel === '..' || rel.startsWith('../') ? null : rel.replace(/\/$/, '');
}

/**
 * The repo files an MSBuild file imports (`[*]` when it cannot be read as a `<Project>`) and,
 * for a .csproj, the projects it references.
 */
function readMsBuild(tree: TreeAccess, path: string): Pick<Recorded, 'imports' | 'refs'> {
  const text = readSmallText(tree, path);
  if (text === null) return { imports: [UNKNOWN] };
  try {
    const project = readCsproj(text, path);
    const inside = (p: string) => inRepo(p) !== null;
    return {
      imports: project.imports.filter(inside),
      ...(path.toLowerCase().endsWith('.csproj') ? { refs: project.projectReferences.filter(inside) } : {}),
    };
  } catch {
    // A malformed project fails its own load (with the reason) in the C# pass.
    return { imports: [UNKNOWN], ...(path.toLowerCase().endsWith('.csproj') ? { refs: [] } : {}) };
  }
}

/** A package.json's `name`: null without one, `*` when it cannot be read as JSON. */
function readPackageName(tree: TreeAccess, path: string): string | null {
  const text = readSmallText(tree, path);
  if (text === null) return UNKNOWN;
  try {
    const name = (JSON.parse(text) as { name?: unknown } | null)?.name;
    return typeof name === 'string' && name !== '' ? name : null;
  } catch {
    // A package.json that is not JSON has an unknown name, which widens invalidation rather than narrowing it.
    return UNKNOWN;
  }
}

/**
 * The repo path an `extends` specifier of `from` names, or null when it is outside the
 * repository or in an installed package (node_modules is not tracked: installs change a
 * lockfile, which re-analyses every TS/JS file below it). Relative paths resolve as tsc does
 * (`p`, then `p.json`); a package name resolves to a workspace package's directory
 * (`@acme/tsconfig/base.json`, or its `tsconfig.json` for the bare name).
 */
function resolveExtends(spec: string, from: string, packageDirs: ReadonlyMap<string, string>, exists: (path: string) => boolean): string | null {
  const withJson = (p: string) => (exists(p) || p.endsWith('.json') ? p : `${p}.json`);
  let target: string;
  if (/^\.\.?(\/|$)/.test(spec) || posix.isAbsolute(spec)) {
    const rel = posix.isAbsolute(spec) ? null : inRepo(posix.join(dirOf(from), spec));
    if (rel === null || rel === '') return null;
    target = withJson(rel);
  } else {
    const parts = spec.split('/');
    const nameLen = spec.startsWith('@') ? 2 : 1;
    const dir = packageDirs.get(parts.slice(0, nameLen).join('/'));
    if (dir === undefined) return null;
    const sub = parts.slice(nameLen).join('/');
    target = sub === '' ? posix.join(dir, 'tsconfig.json') : withJson(posix.join(dir, sub));
  }
  return /(^|\/)node_modules(\/|$)/.test(target) ? null : target;
}

/** A repo file that can be tracked: a regular file (never through a symbolic link), outside node_modules. */
function trackable(tree: TreeAccess, path: string, via: Tracked['via'] = 'extends'): Tracked | null {
  if (/(^|\/)node_modules(\/|$)/.test(path)) return null;
  // Every directory on the way must be a real directory too: a link anywhere is not followed.
  const parts = path.split('/');
  try {
    for (let i = 1; i < parts.length; i++) if (tree.entry(parts.slice(0, i).join('/'))?.kind !== 'dir') return null;
    const e = tree.entry(path);
    if (e?.kind !== 'file') return null;
    return { path, size: e.size, mtimeMs: e.mtimeMs ?? 0, via };
  } catch {
    // An entry that cannot be stat'ed (removed meanwhile, permissions) is not a context file this run.
    return null;
  }
}

/**
 * Parent config → the configs that extend it, from this run's and the previous run's facts
 * (a config that stopped extending a changed base was still shaped by it). A config whose
 * `extends` is unknown (invalid JSON, unreadable) may extend anything: it is a child of every
 * config, so a change never misses it.
 */
function extendsGraph(
  next: ContextFacts,
  previous: ContextFacts,
  packageDirs: ReadonlyMap<string, string>,
): { children: Map<string, Set<string>>; unknown: Set<string> } {
  const children = new Map<string, Set<string>>();
  const unknown = new Set<string>();
  for (const facts of [previous, next]) {
    for (const [path, r] of Object.entries(facts)) {
      for (const spec of r.extends ?? []) {
        if (spec === UNKNOWN) {
          if (facts === next) unknown.add(path);
          continue;
        }
        // The configs the scans tracked are the ones that exist (or existed) as written.
        const target = resolveExtends(spec, path, packageDirs, (p) => p in next || p in previous);
        if (target === null) continue;
        const set = children.get(target) ?? new Set<string>();
        set.add(path);
        children.set(target, set);
      }
    }
  }
  return { children, unknown };
}

/** Maps a changed context file to the source files it shapes. */
class ScopeFinder {
  private csprojReferrers: Map<string, string[]> | null = null;
  private importedBy: Map<string, string[]> | null = null;

  private readonly files: readonly ScopeFile[];

  constructor(
    private readonly state: ContextState,
    private readonly graph: ReturnType<typeof extendsGraph>,
    private readonly next: ContextFacts,
    private readonly previous: ContextFacts,
  ) {
    this.files = state.files;
  }

  of(path: string): ScopeFile[] {
    const own = this.ownScope(path);
    // MSBuild files that import this one, transitively (a `.props` shared by several projects).
    const importers = reachable([path], (p) => this.importers().get(p) ?? []);
    importers.delete(path);
    if (importers.size === 0) return own;
    const out = new Map(own.map((f) => [f.id, f]));
    for (const importer of importers) for (const f of this.ownScope(importer)) out.set(f.id, f);
    return [...out.values()];
  }

  /** Imported MSBuild file → the files importing it, from this run's and the previous run's facts. */
  private importers(): Map<string, string[]> {
    if (this.importedBy !== null) return this.importedBy;
    const map = new Map<string, string[]>();
    for (const facts of [this.previous, this.next]) {
      for (const [path, r] of Object.entries(facts)) {
        for (const target of r.imports ?? []) {
          const list = map.get(target) ?? [];
          if (!list.includes(path)) list.push(path);
          map.set(target, list);
        }
      }
    }
    this.importedBy = map;
    return map;
  }

  private ownScope(path: string): ScopeFile[] {
    const lower = path.toLowerCase();
    const name = posix.basename(lower);
    if (lower.endsWith('.csproj')) {
      // The project and, transitively, the projects referencing it: they compile against it
      // (its packages, InternalsVisibleTo, target framework flow into them).
      const projects = reachable([path], (p) => this.referrers().get(p) ?? []);
      return this.files.filter((f) => f.language === 'cs' && projects.has(f.project));
    }
    if (/\.(sln|slnx)$/.test(lower)) return this.files.filter((f) => f.language === 'cs');
    if (C_SHARP_WIDE.test(lower)) {
      // MSBuild applies these to the projects below them; a project's files may sit elsewhere.
      const inDir = under(dirOf(path));
      return this.files.filter((f) => f.language === 'cs' && (inDir(f.path) || inDir(f.project)));
    }
    // Any other .props/.targets applies only where it is imported (see `of`).
    if (/\.(props|targets)$/.test(lower)) return [];
    const dirs = new Set([dirOf(path)]);
    const recorded = this.next[path] ?? this.previous[path];
    if (recorded?.extends !== undefined || TS_CONFIG.test(name)) {
      // Configs extending this one, transitively, and configs whose `extends` is unknown; each
      // with the folders its `include`/`files` reach outside its own.
      for (const config of reachable([path, ...this.graph.unknown], (c) => this.graph.children.get(c) ?? [])) {
        dirs.add(dirOf(config));
        for (const facts of [this.next[config], this.previous[config]]) for (const d of facts?.reach?.dirs ?? []) dirs.add(d);
      }
    }
    const tests = [...dirs].map(under);
    const scope = new Set(this.files.filter((f) => f.language !== 'cs' && tests.some((t) => t(f.path))));
    if (name === 'package.json' && dirOf(path) !== '') {
      // A workspace package's manifest (`name`, `exports`, `types`) decides how the other
      // packages' imports of it resolve: their importing files are re-analysed too. An unknown
      // name (unreadable, invalid, too large) re-analyses every TS/JS file.
      const names = new Set([this.next[path]?.pkg, this.previous[path]?.pkg].filter((n): n is string => typeof n === 'string'));
      if (names.has(UNKNOWN)) return this.files.filter((f) => f.language !== 'cs');
      const importers = this.state.importersOf([...names]);
      for (const f of this.files) if (f.language !== 'cs' && importers.has(f.id)) scope.add(f);
    }
    return [...scope];
  }

  /** Referenced .csproj → the projects referencing it (this run's facts). */
  private referrers(): Map<string, string[]> {
    if (this.csprojReferrers !== null) return this.csprojReferrers;
    const map = new Map<string, string[]>();
    for (const [path, facts] of Object.entries(this.next)) {
      for (const r of facts.refs ?? []) {
        const list = map.get(r) ?? [];
        list.push(path);
        map.set(r, list);
      }
    }
    this.csprojReferrers = map;
    return map;
  }
}

/** `starts` and everything reachable from them through `next` (each visited once). */
function reachable(starts: Iterable<string>, next: (from: string) => Iterable<string>): Set<string> {
  const seen = new Set(starts);
  const todo = [...seen];
  while (todo.length > 0) {
    for (const n of next(todo.pop()!)) {
      if (seen.has(n)) continue;
      seen.add(n);
      todo.push(n);
    }
  }
  return seen;
}

function under(dir: string): (p: string) => boolean {
  return (p: string) => dir === '' || p.startsWith(`${dir}/`);
}

function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

/** JSON with `//` and `/* *\/` comments and trailing commas (tsconfig's dialect); strings are left intact. */
export function parseJsonc(text: string): unknown {
  // Pass 1 drops comments, pass 2 drops commas before a closing bracket; both skip strings.
  const scan = (src: string, onChar: (src: string, i: number) => { emit: string; next: number }): string => {
    let out = '';
    for (let i = 0; i < src.length; ) {
      if (src[i] === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
        out += src.slice(i, j + 1);
        i = j + 1;
        continue;
      }
      const { emit, next } = onChar(src, i);
      out += emit;
      i = next;
    }
    return out;
  };
  const noComments = scan(text, (src, i) => {
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      return { emit: '\n', next: end < 0 ? src.length : end + 1 };
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      return { emit: ' ', next: end < 0 ? src.length : end + 2 };
    }
    return { emit: src[i]!, next: i + 1 };
  });
  const noTrailingCommas = scan(noComments, (src, i) => ({
    emit: src[i] === ',' && /^\s*[}\]]/.test(src.slice(i + 1, i + 200)) ? '' : src[i]!,
    next: i + 1,
  }));
  return JSON.parse(noTrailingCommas);
}
