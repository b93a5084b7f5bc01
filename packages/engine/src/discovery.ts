import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { CONFIG_READ_MAX_BYTES, safeReadText, type Config } from '@ca/schema';
import { secretFilter } from './secrets.js';

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

/** A small repository text file (`.gitignore`, `package.json`) through the safe reader, or why it was not read. */
function readSmall(root: string, abs: string): { text: string } | { refused: string } | null {
  const r = safeReadText(abs, { root, maxBytes: CONFIG_READ_MAX_BYTES });
  if (r.ok) return { text: r.text };
  return r.refusal === 'missing' ? null : { refused: r.reason };
}

function projectNameFromPackageJson(text: string, rel: string): string {
  try {
    const pkg = JSON.parse(text) as { name?: unknown };
    return typeof pkg?.name === 'string' && pkg.name ? pkg.name : rel || '.';
  } catch {
    // Invalid JSON names no package: the directory stands for it.
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
  const isSecret = secretFilter(config);
  // A .gitignore or package.json that cannot be read safely (a FIFO, a link, over 1 MiB) is recorded, never waited on.
  const refusedRead = (rel: string, project: string, reason: string) =>
    skipped.push({ path: rel, reason: `not read: ${reason}`, status: 'skipped', size: 0, mtimeMs: 0, project });

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
    const childRel = (name: string) => (dir.rel ? `${dir.rel}/${name}` : name);
    if (entries.includes('.gitignore')) {
      // An unreadable .gitignore ignores nothing; the files themselves still get their checks.
      const read = readSmall(root, join(dir.abs, '.gitignore'));
      if (read !== null && 'text' in read) scopes = [...scopes, { base: dir.rel, rules: ignore().add(read.text) }];
      else if (read !== null) refusedRead(childRel('.gitignore'), project, read.refused);
    }
    if (entries.includes('package.json')) {
      const read = readSmall(root, join(dir.abs, 'package.json'));
      if (read !== null && 'text' in read) project = projectNameFromPackageJson(read.text, dir.rel);
      else if (read !== null) {
        refusedRead(childRel('package.json'), project, read.refused);
        project = dir.rel || '.';
      }
    }
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
      const handled = extensions.has(ext) || (ext === '.ts' && name.endsWith('.d.ts'));
      const known = handled || NO_GRAMMAR_EXTENSIONS.has(ext);
      const context = isSemanticContextFile(name);
      const secret = isSecret(rel);
      if (!known && !context && !secret) continue;
      const isKept = keep.ignores(rel);
      if (dir.keptOnly && !isKept) continue;
      if (!isKept && (isIgnoredBy(scopes, rel, false) || exclude.ignores(rel))) continue;
      if (!st.isFile()) {
        // A FIFO or a device named like a source file: reading it would block or never end.
        if (name !== '.gitignore' && name !== 'package.json') {
          skipped.push({ path: rel, reason: `not a regular file (${specialKind(st)})`, status: 'skipped', size: 0, mtimeMs: st.mtimeMs, project });
        }
        continue;
      }
      if (secret) {
        skipped.push({
          path: rel,
          reason: 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow',
          status: 'skipped',
          size: st.size,
          mtimeMs: st.mtimeMs,
          project,
        });
        continue;
      }
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
  // A broken link named package.json is both a link and an unreadable package.json: one row.
  const unique = new Map<string, SkippedFile>();
  for (const s of skipped) if (!unique.has(s.path)) unique.set(s.path, s);
  return { files, skipped: [...unique.values()], contextFiles };
}

/** `FIFO`, `character device` … of a non-regular, non-directory entry. */
function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'FIFO';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return 'special file';
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
  if (relTarget === '..' || relTarget.startsWith(`..${sep}`) || isAbsolute(relTarget)) return 'symbolic link to a path outside the repository';
  return `symbolic link (not followed; target ${toPosix(relTarget)} is indexed at its own path)`;
}
