import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { Config } from '@ca/schema';

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
  '.vue', '.svelte', '.scala', '.dart', '.lua',
]);

export interface DiscoveredFile {
  /** Repo-relative POSIX path. */
  readonly path: string;
  readonly absPath: string;
  readonly size: number;
  readonly mtimeMs: number;
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
 * Files whose change alters how a compiler sees the code around them (INVALIDATION.md, second
 * class): TS/JS project and workspace configs and lockfiles, C# projects, solutions, MSBuild
 * props/targets and NuGet configuration. Matched on the file name, case-insensitively.
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
  readonly abs: string;
  readonly rel: string;
  readonly scopes: readonly IgnoreScope[];
  readonly project: string;
  /** Inside a built-in-excluded or ignored dir that a keep pattern reaches into. */
  readonly keptOnly: boolean;
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
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

function projectNameFromPackageJson(abs: string, rel: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8')) as { name?: unknown };
    return typeof pkg.name === 'string' && pkg.name ? pkg.name : rel || '.';
  } catch {
    return rel || '.';
  }
}

/**
 * Walks the working tree (iteratively): honours nested .gitignore files, the built-in
 * excludes and the config's include/exclude/keep patterns; never follows a symbolic link;
 * records every skipped source file with its reason. `extensions` are the handled ones.
 */
export function discoverFiles(root: string, config: Config['indexing'], extensions: ReadonlySet<string>): DiscoveryResult {
  const files: DiscoveredFile[] = [];
  const skipped: SkippedFile[] = [];
  const contextFiles: DiscoveredFile[] = [];
  const exclude = ignore().add(config.exclude);
  const keep = ignore().add(config.keep);
  const include = config.include.length > 0 ? ignore().add(config.include) : null;
  const keepPrefixes = config.keep.map(literalPrefix);
  const keepReaches = (dirRel: string) =>
    keepPrefixes.some((p) => p === '' || p.startsWith(`${dirRel}/`) || `${dirRel}/`.startsWith(p) || p === dirRel);
  const rootReal = realpathSync(root);

  const stack: DirTask[] = [{ abs: root, rel: '', scopes: [], project: '', keptOnly: false }];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let scopes = dir.scopes;
    let project = dir.project;
    let entries: string[];
    try {
      entries = readdirSync(dir.abs).sort();
    } catch (e) {
      skipped.push({ path: dir.rel || '.', reason: `cannot read directory: ${(e as Error).message}`, status: 'skipped', size: 0, mtimeMs: 0, project });
      continue;
    }
    if (entries.includes('.gitignore')) {
      try {
        const text = readFileSync(join(dir.abs, '.gitignore'), 'utf8');
        scopes = [...scopes, { base: dir.rel, rules: ignore().add(text) }];
      } catch {
        // An unreadable .gitignore ignores nothing; the files themselves still get their checks.
      }
    }
    if (entries.includes('package.json')) project = projectNameFromPackageJson(dir.abs, dir.rel) ?? project;
    const csproj = entries.find((e) => e.endsWith('.csproj'));
    if (csproj) project = dir.rel ? `${dir.rel}/${csproj}` : csproj;

    const subdirs: DirTask[] = [];
    for (const name of entries) {
      const abs = join(dir.abs, name);
      const rel = dir.rel ? `${dir.rel}/${name}` : name;
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch (e) {
        skipped.push({ path: rel, reason: `cannot stat: ${(e as Error).message}`, status: 'skipped', size: 0, mtimeMs: 0, project });
        continue;
      }
      const ext = extensionOf(name);
      if (st.isSymbolicLink()) {
        if (!extensions.has(ext) && !isDirLink(abs)) continue;
        skipped.push({ path: rel, reason: symlinkReason(abs, rootReal), status: 'skipped', size: 0, mtimeMs: st.mtimeMs, project });
        continue;
      }
      if (st.isDirectory()) {
        const kept = keep.ignores(`${rel}/`) || keepReaches(rel);
        const excluded =
          BUILTIN_EXCLUDED_DIRS.has(name) || isIgnoredBy(scopes, rel, true) || exclude.ignores(`${rel}/`);
        if (excluded && !kept) continue;
        subdirs.push({ abs, rel, scopes, project, keptOnly: dir.keptOnly || excluded });
        continue;
      }
      if (!st.isFile()) continue;
      const handled = extensions.has(ext) || (ext === '.ts' && name.endsWith('.d.ts'));
      const known = handled || NO_GRAMMAR_EXTENSIONS.has(ext);
      const context = isSemanticContextFile(name);
      if (!known && !context) continue;
      const isKept = keep.ignores(rel);
      if (dir.keptOnly && !isKept) continue;
      if (!isKept && (isIgnoredBy(scopes, rel, false) || exclude.ignores(rel))) continue;
      if (context) {
        // `include` narrows the source files only: a config outside it still shapes them.
        contextFiles.push({ path: toPosix(rel), absPath: abs, size: st.size, mtimeMs: Math.floor(st.mtimeMs), project });
        if (!known) continue;
      }
      if (include && !include.ignores(rel) && !isKept) continue;
      if (!handled) {
        skipped.push({ path: rel, reason: `no grammar for ${ext} files`, status: 'no_grammar', size: st.size, mtimeMs: st.mtimeMs, project });
        continue;
      }
      if (st.size > config.max_file_bytes) {
        skipped.push({
          path: rel,
          reason: `file is ${st.size} bytes, over indexing.max_file_bytes (${config.max_file_bytes})`,
          status: 'skipped',
          size: st.size,
          mtimeMs: st.mtimeMs,
          project,
        });
        continue;
      }
      if (/\.min\.[cm]?js$/.test(name)) {
        skipped.push({ path: rel, reason: 'minified bundle (.min.js)', status: 'skipped', size: st.size, mtimeMs: st.mtimeMs, project });
        continue;
      }
      files.push({ path: toPosix(rel), absPath: abs, size: st.size, mtimeMs: Math.floor(st.mtimeMs), project });
    }
    // Depth-first in sorted order: push in reverse so the first entry is visited first.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
  const byPath = (a: DiscoveredFile, b: DiscoveredFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  files.sort(byPath);
  contextFiles.sort(byPath);
  return { files, skipped, contextFiles };
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

function isDirLink(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return true; // broken or looping links are reported
  }
}

function symlinkReason(abs: string, rootReal: string): string {
  let target: string;
  try {
    target = realpathSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ELOOP' ? 'symbolic link loop' : `broken symbolic link (${code ?? 'unknown'})`;
  }
  const relTarget = relative(rootReal, target);
  if (relTarget.startsWith('..') || isAbsolute(relTarget)) return 'symbolic link to a path outside the repository';
  return `symbolic link (not followed; target ${toPosix(relTarget)} is indexed at its own path)`;
}
