import ignore, { type Ignore } from 'ignore';
import type { Config } from '@ca/schema';
import { secretFilter } from './secrets.js';
import { DiskTree, type TreeAccess, type TreeEntry } from './tree.js';

/** Directory names never descended into (unless a `keep` pattern reaches inside). */
export const BUILTIN_EXCLUDED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  'dist',
  'build',
  'out',
  'coverage',
  '.git',
  'bin',
  'obj',
  '.codeagent',
  '.turbo',
  '.next',
  '.nuxt',
  '.cache',
  '.vs',
  '.idea',
]);

/** Code extensions we recognise but have no grammar for (recorded as `no_grammar`). */
const NO_GRAMMAR_EXTENSIONS = new Set([
  '.py', '.go', '.java', '.rb', '.rs', '.kt', '.swift', '.php', '.vb', '.fs', '.c', '.h', '.cpp', '.hpp', '.cc',
  '.scala', '.dart', '.lua',
]);

export interface DiscoveredFile {
  /** Repo-relative POSIX path. */
  readonly path: string;
  readonly size: number;
  /** Modification time (ms); 0 where the source has none (a git tree). */
  readonly mtimeMs: number;
  /** The content's git blob id, when the source knows it without reading (a git tree). */
  readonly blobId?: string;
  /** Nearest project (package.json name or dir, .csproj path), '' for the root. */
  readonly project: string;
}

export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
  readonly status: 'skipped' | 'no_grammar';
  readonly size: number;
  readonly mtimeMs: number;
  readonly project: string;
}

export interface DiscoveryResult {
  readonly files: DiscoveredFile[];
  readonly skipped: SkippedFile[];
  /** Semantic-context files (`isSemanticContextFile`), same ignore rules, never through a link. */
  readonly contextFiles: DiscoveredFile[];
}

/**
 * Files whose change alters how a compiler sees the code around them (the second invalidation
 * class, docs/architecture.md): TS/JS project and workspace configs and lockfiles, C# projects,
 * solutions, MSBuild props/targets and NuGet configuration. Matched on the file name,
 * case-insensitively.
 */
export function isSemanticContextFile(name: string): boolean {
  const n = name.toLowerCase();
  return SEMANTIC_CONTEXT_NAMES.has(n) || /^tsconfig(\..*)?\.json$/.test(n) || /\.(csproj|sln|slnx)$/.test(n);
}

const SEMANTIC_CONTEXT_NAMES: ReadonlySet<string> = new Set([
  'jsconfig.json',
  'package.json',
  'pnpm-workspace.yaml',
  'lerna.json',
  'package-lock.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'npm-shrinkwrap.json',
  'bun.lock',
  'bun.lockb',
  'directory.build.props',
  'directory.build.targets',
  'directory.packages.props',
  'global.json',
  'nuget.config',
  'packages.lock.json',
]);

interface IgnoreScope {
  /** Repo-relative POSIX dir of the .gitignore ('' for root). */
  readonly base: string;
  readonly rules: Ignore;
}

interface DirTask {
  readonly rel: string;
  readonly scopes: readonly IgnoreScope[];
  readonly project: string;
  /** Inside a built-in-excluded or ignored dir that a keep pattern reaches into. */
  readonly keptOnly: boolean;
}

function relTo(base: string, path: string): string {
  return base === '' ? path : path.slice(base.length + 1);
}

function isIgnoredBy(scopes: readonly IgnoreScope[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const s of scopes) {
    if (s.base !== '' && !path.startsWith(`${s.base}/`)) continue;
    const r = relTo(s.base, path) + (isDir ? '/' : '');
    const t = s.rules.test(r);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

/** Literal prefix of a glob (up to its first wildcard), used to decide whether to descend. */
function literalPrefix(pattern: string): string {
  const p = pattern.replace(/^\//, '');
  const i = p.search(/[*?[{]/);
  return i < 0 ? p : p.slice(0, i);
}

/**
 * Whether the walk can descend into the directory `rel` (named `name`): false for the built-in
 * excludes unless a `keep` pattern reaches inside. Ignore files and `exclude` patterns are not
 * applied: for a watcher, an extra directory watched costs little, a missing one goes stale.
 */
export function mayHoldIndexedFiles(config: Config['indexing']): (rel: string, name: string) => boolean {
  const keep = ignore().add(config.keep);
  const prefixes = config.keep.map(literalPrefix);
  return (rel, name) =>
    !BUILTIN_EXCLUDED_DIRS.has(name) ||
    keep.ignores(`${rel}/`) ||
    prefixes.some((p) => p === '' || p.startsWith(`${rel}/`) || `${rel}/`.startsWith(p) || p === rel);
}

/** Dependency lockfiles: generated, large, and no one searches them; context files still (above). */
const LOCKFILES: ReadonlySet<string> = new Set(['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'packages.lock.json', 'yarn.lock', 'bun.lock', 'composer.lock', 'poetry.lock']);

const SECRET_REASON = 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow';

/** Largest .gitignore or package.json discovery reads (larger ones count as unreadable). */
export const DISCOVERY_READ_MAX_BYTES = 1 << 20;

function projectNameFromPackageJson(tree: TreeAccess, dirRel: string): string {
  const bytes = tree.readSmall(dirRel ? `${dirRel}/package.json` : 'package.json', DISCOVERY_READ_MAX_BYTES);
  try {
    const pkg = bytes === null ? null : (JSON.parse(bytes.toString('utf8')) as { name?: unknown } | null);
    return typeof pkg?.name === 'string' && pkg.name ? pkg.name : dirRel || '.';
  } catch {
    // A package.json that is not JSON only loses the project's display name; the directory names it instead.
    return dirRel || '.';
  }
}

/**
 * Walks the working tree (iteratively): honours nested .gitignore files, the built-in
 * excludes and the config's include/exclude/keep patterns; never follows a symbolic link;
 * records every skipped source file with its reason. `extensions` are the handled ones.
 */
export function discoverFiles(root: string, config: Config['indexing'], extensions: ReadonlySet<string>): DiscoveryResult {
  return discoverTree(new DiskTree(root), config, extensions);
}

/** Files to index in a tree (the working tree, a commit), by the rules of `discoverFiles`. */
export function discoverTree(tree: TreeAccess, config: Config['indexing'], extensions: ReadonlySet<string>): DiscoveryResult {
  const rules = new Rules(tree, config, extensions);
  const out: MutableResult = { files: [], skipped: [], contextFiles: [] };
  const stack: DirTask[] = [{ rel: '', scopes: [], project: '', keptOnly: false }];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const subdirs = rules.visitDir(dir, out);
    // Depth-first in sorted order: push in reverse so the first entry is visited first.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  out.skipped.push(...rules.refused);
  return sortResult(out);
}

/**
 * Discovery restricted to `paths` (a watcher's changed paths): each path is judged by the rules
 * `discoverTree` applies on its way down (the ignore files and projects of its directories), and
 * a path that is a directory is walked whole. A path that no longer exists is in `missing`.
 */
export function discoverPaths(
  tree: TreeAccess,
  config: Config['indexing'],
  extensions: ReadonlySet<string>,
  paths: readonly string[],
): DiscoveryResult & { readonly missing: readonly string[] } {
  const rules = new Rules(tree, config, extensions);
  const out: MutableResult = { files: [], skipped: [], contextFiles: [] };
  const missing: string[] = [];
  const dirTasks = new Map<string, DirTask | null>([['', { rel: '', scopes: [], project: '', keptOnly: false }]]);
  // The task of a directory as the full walk would reach it (null: the walk never enters it).
  const taskOf = (dir: string): DirTask | null => {
    if (dirTasks.has(dir)) return dirTasks.get(dir)!;
    const slash = dir.lastIndexOf('/');
    const parent = taskOf(slash < 0 ? '' : dir.slice(0, slash));
    let task: DirTask | null = null;
    if (parent !== null) {
      const entry = tree.entry(dir);
      if (entry?.kind === 'dir') task = rules.subdirTask(rules.enter(parent), entry.name, dir);
    }
    dirTasks.set(dir, task);
    return task;
  };
  const seen = new Set<string>();
  // Directories walked whole: a path below one was found by that walk (a watcher reports a new
  // directory and the files created in it), and listing it again would count its file twice.
  const walked = new Set<string>();
  const insideWalked = (path: string): boolean => {
    for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) if (walked.has(path.slice(0, i))) return true;
    return false;
  };
  // Sorted: a directory comes before every path below it.
  for (const raw of [...new Set(paths)].sort()) {
    const path = raw.replace(/^\.\/+/, '').replace(/\/+$/, '');
    if (path === '' || seen.has(path) || insideWalked(path)) continue;
    seen.add(path);
    const entry = tree.entry(path);
    if (!entry) {
      missing.push(path);
      continue;
    }
    const slash = path.lastIndexOf('/');
    const parent = taskOf(slash < 0 ? '' : path.slice(0, slash));
    if (parent === null) continue;
    const scope = rules.enter(parent);
    if (entry.kind === 'dir') {
      const task = rules.subdirTask(scope, entry.name, path);
      if (task === null) continue;
      walked.add(path);
      const stack = [task];
      while (stack.length > 0) {
        const subdirs = rules.visitDir(stack.pop()!, out);
        for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
      }
      continue;
    }
    rules.visitEntry(scope, entry, path, out);
  }
  out.skipped.push(...rules.refused);
  return { ...sortResult(out), missing };
}

interface MutableResult {
  files: DiscoveredFile[];
  skipped: SkippedFile[];
  contextFiles: DiscoveredFile[];
}

/** A directory entered: its ignore scopes and project, with what its task carried. */
interface EnteredDir extends DirTask {}

function sortResult(out: MutableResult): DiscoveryResult {
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  out.files.sort(byPath);
  out.contextFiles.sort(byPath);
  // A link named package.json is both a link and an unreadable package.json: one row.
  const unique = new Map<string, SkippedFile>();
  for (const s of out.skipped) if (!unique.has(s.path)) unique.set(s.path, s);
  out.skipped = [...unique.values()];
  return out;
}

/** The rules of discovery over one tree (ignore files read once per directory). */
class Rules {
  private readonly exclude: Ignore;
  private readonly keep: Ignore;
  private readonly include: Ignore | null;
  private readonly keepPrefixes: string[];
  private readonly entered = new Map<string, EnteredDir>();
  private readonly isSecret: (relPath: string) => boolean;
  /** `.gitignore` and `package.json` files that could not be read safely (recorded, never waited on). */
  readonly refused: SkippedFile[] = [];

  constructor(
    private readonly tree: TreeAccess,
    private readonly config: Config['indexing'],
    private readonly extensions: ReadonlySet<string>,
  ) {
    this.exclude = ignore().add(config.exclude);
    this.keep = ignore().add(config.keep);
    this.include = config.include.length > 0 ? ignore().add(config.include) : null;
    this.keepPrefixes = config.keep.map(literalPrefix);
    this.isSecret = secretFilter(config);
  }

  private keepReaches(dirRel: string): boolean {
    return this.keepPrefixes.some((p) => p === '' || p.startsWith(`${dirRel}/`) || `${dirRel}/`.startsWith(p) || p === dirRel);
  }

  /** The directory's own .gitignore and project applied over what its task carried. */
  enter(dir: DirTask): EnteredDir {
    const hit = this.entered.get(dir.rel);
    if (hit) return hit;
    let scopes = dir.scopes;
    let project = dir.project;
    const at = (name: string) => (dir.rel ? `${dir.rel}/${name}` : name);
    let entries: readonly TreeEntry[] = [];
    try {
      entries = this.list(dir.rel);
    } catch {
      // A directory removed or unreadable during the walk has no files to discover; the walk goes on.
      entries = [];
    }
    if (entries.some((e) => e.name === '.gitignore' && e.kind === 'file')) {
      // An unreadable (or oversized, or non-regular) .gitignore ignores nothing; the files
      // themselves still get their checks.
      const bytes = this.tree.readSmall(at('.gitignore'), DISCOVERY_READ_MAX_BYTES);
      if (bytes !== null) scopes = [...scopes, { base: dir.rel, rules: ignore().add(bytes.toString('utf8')) }];
      else this.noteRefused(at('.gitignore'), project);
    }
    if (entries.some((e) => e.name === 'package.json' && e.kind === 'file')) {
      project = projectNameFromPackageJson(this.tree, dir.rel);
      this.noteRefused(at('package.json'), dir.project);
    }
    const csproj = entries.find((e) => e.name.endsWith('.csproj'));
    if (csproj) project = at(csproj.name);
    const entered: EnteredDir = { ...dir, scopes, project };
    this.entered.set(dir.rel, entered);
    return entered;
  }

  /** Records why a small file (.gitignore, package.json) was not read, when the tree can tell and it was refused. */
  private noteRefused(rel: string, project: string): void {
    const why = this.tree.refusalOf?.(rel, DISCOVERY_READ_MAX_BYTES) ?? null;
    if (why !== null) this.refused.push({ path: rel, reason: `not read: ${why}`, status: 'skipped', size: 0, mtimeMs: 0, project });
  }

  /** A directory's entries, listed once per walk. */
  private list(dir: string): readonly TreeEntry[] {
    let list = this.listings.get(dir);
    if (!list) this.listings.set(dir, (list = this.tree.list(dir)));
    return list;
  }

  private readonly listings = new Map<string, readonly TreeEntry[]>();

  /** The task of a subdirectory, or null when the walk does not descend into it. */
  subdirTask(parent: EnteredDir, name: string, rel: string): DirTask | null {
    const kept = this.keep.ignores(`${rel}/`) || this.keepReaches(rel);
    const excluded = BUILTIN_EXCLUDED_DIRS.has(name) || isIgnoredBy(parent.scopes, rel, true) || this.exclude.ignores(`${rel}/`);
    if (excluded && !kept) return null;
    // A project (.csproj) is named by the directory holding it: found when the directory is entered.
    return { rel, scopes: parent.scopes, project: parent.project, keptOnly: parent.keptOnly || excluded };
  }

  /** Visits one directory: files into `out`, subdirectories returned in name order. */
  visitDir(task: DirTask, out: MutableResult): DirTask[] {
    let entries: readonly TreeEntry[];
    try {
      entries = this.list(task.rel);
    } catch (e) {
      out.skipped.push({ path: task.rel || '.', reason: `cannot read directory: ${(e as Error).message}`, status: 'skipped', size: 0, mtimeMs: 0, project: task.project });
      return [];
    }
    const dir = this.enter(task);
    const subdirs: DirTask[] = [];
    for (const e of entries) {
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      if (e.kind === 'dir') {
        const sub = this.subdirTask(dir, e.name, rel);
        if (sub) subdirs.push(sub);
        continue;
      }
      this.visitEntry(dir, e, rel, out);
    }
    return subdirs;
  }

  /** Judges one non-directory entry of an entered directory. */
  visitEntry(dir: EnteredDir, e: TreeEntry, rel: string, out: MutableResult): void {
    const project = dir.project;
    const mtimeMs = e.mtimeMs ?? 0;
    const ext = extensionOf(e.name);
    const name = e.name;
    // Never followed; reported when it stands for a file discovery would read (a source, a
    // .gitignore or package.json, a project config) or a directory.
    const readsAsConfig = name === '.gitignore' || isSemanticContextFile(name);
    // `extensions` may hold whole file names too (lower case, never with a leading dot): a
    // language claiming only some files of an extension. A name that is only an extension
    // (`.ts`) is not one of them.
    const claimedName = !name.startsWith('.') && this.extensions.has(name.toLowerCase());
    if (e.kind === 'symlink') {
      if (!this.extensions.has(ext) && !claimedName && !readsAsConfig && !this.tree.linkIsDir(rel)) return;
      out.skipped.push({ path: rel, reason: this.tree.linkReason(rel), status: 'skipped', size: 0, mtimeMs, project });
      return;
    }
    const handled = this.extensions.has(ext) || claimedName || (ext === '.ts' && name.endsWith('.d.ts'));
    const known = handled || NO_GRAMMAR_EXTENSIONS.has(ext);
    const context = isSemanticContextFile(name);
    const secret = this.isSecret(rel);
    if (!known && !context && !secret && name !== '.gitignore') return;
    const isKept = this.keep.ignores(rel);
    if (dir.keptOnly && !isKept) return;
    if (!isKept && (isIgnoredBy(dir.scopes, rel, false) || this.exclude.ignores(rel))) return;
    if (e.missing) {
      out.skipped.push({ path: rel, reason: 'git object missing from the repository (a partial or shallow clone)', status: 'skipped', size: 0, mtimeMs, project });
      return;
    }
    if (e.kind !== 'file') {
      // A FIFO or a device named like a source or config: reading it would block or never end.
      const what = `not a regular file (${e.detail ?? 'special file'})`;
      out.skipped.push({ path: rel, reason: readsAsConfig && (name === '.gitignore' || name === 'package.json') ? `not read: ${what}` : what, status: 'skipped', size: 0, mtimeMs, project });
      return;
    }
    if (name === '.gitignore') return;
    if (secret) {
      out.skipped.push({ path: rel, reason: SECRET_REASON, status: 'skipped', size: e.size, mtimeMs, project });
      return;
    }
    const found: DiscoveredFile = { path: rel, size: e.size, mtimeMs, project, ...(e.blobId ? { blobId: e.blobId } : {}) };
    if (context) {
      // `include` narrows the source files only: a config outside it still shapes them.
      out.contextFiles.push(found);
      if (!known) return;
    }
    if (this.include && !this.include.ignores(rel) && !isKept) return;
    if (!handled) {
      out.skipped.push({ path: rel, reason: `no grammar for ${ext} files`, status: 'no_grammar', size: e.size, mtimeMs, project });
      return;
    }
    if (e.size > this.config.max_file_bytes) {
      out.skipped.push({
        path: rel,
        reason: `file is ${e.size} bytes, over indexing.max_file_bytes (${this.config.max_file_bytes})`,
        status: 'skipped',
        size: e.size,
        mtimeMs,
        project,
      });
      return;
    }
    if (LOCKFILES.has(name.toLowerCase())) {
      out.skipped.push({ path: rel, reason: 'dependency lockfile (generated): not split into configuration keys', status: 'skipped', size: e.size, mtimeMs, project });
      return;
    }
    if (/\.min\.[cm]?js$/.test(name)) {
      out.skipped.push({ path: rel, reason: 'minified bundle (.min.js)', status: 'skipped', size: e.size, mtimeMs, project });
      return;
    }
    out.files.push(found);
  }
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}
