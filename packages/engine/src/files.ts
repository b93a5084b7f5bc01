import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { BUILTIN_EXCLUDED_DIRS, isSecretPath } from '@ca/invalidation';
import { CaError, decodeFile } from '@ca/schema';

/** Bytes `readRepoFile` reads without being asked for more. */
export const READ_FILE_DEFAULT_MAX_BYTES = 1024 * 1024;
/** Bytes `readRepoFile` never reads past, even when asked (`allowLarge`). */
export const READ_FILE_HARD_MAX_BYTES = 16 * 1024 * 1024;
/** Bytes looked at to tell a binary file (a NUL byte among them), like git does. */
const BINARY_SNIFF_BYTES = 8000;
/** A .gitignore bigger than this is not read (it ignores nothing then). */
const GITIGNORE_MAX_BYTES = 1024 * 1024;
/** Directories never listed nor read, even when ignored files are asked for: the VCS and the index. */
const NEVER_SERVED_DIRS: ReadonlySet<string> = new Set(['.git', '.codeagent']);

/** Where the sandbox opens files: injectable so a test can act between the path check and the open. */
export interface SandboxHooks {
  /** Runs after the path was checked and before it is opened (tests swap a symlink here). */
  readonly afterCheck?: (abs: string) => void;
}

export interface ReadRepoFileOptions extends SandboxHooks {
  /** First line (1-based, default 1). */
  readonly startLine?: number;
  /** Last line, inclusive (default: the end of the file). */
  readonly endLine?: number;
  /** Read a file that .gitignore or the built-in excludes (node_modules, dist …) leave out. */
  readonly includeIgnored?: boolean;
  /** Return a binary file (base64) instead of refusing it. */
  readonly allowBinary?: boolean;
  /** Read a file over `maxBytes` (up to READ_FILE_HARD_MAX_BYTES). */
  readonly allowLarge?: boolean;
  /** Size above which a file is refused unless `allowLarge` (default READ_FILE_DEFAULT_MAX_BYTES). */
  readonly maxBytes?: number;
  /** Read a file named like a secret (`.env`, `*.pem`, `id_rsa` …, `isSecretPath`); refused by default. */
  readonly allowSecrets?: boolean;
}

export interface RepoFileText {
  /** Repository-relative POSIX path. */
  readonly path: string;
  readonly size: number;
  readonly totalLines: number;
  readonly startLine: number;
  readonly endLine: number;
  /** The lines asked for (decoded from the file's own encoding, decision 025), or the whole file in base64 when `encoding` is base64. */
  readonly content: string;
  readonly encoding: 'utf8' | 'base64';
}

export interface DirectoryEntry {
  readonly name: string;
  /** Repository-relative POSIX path. */
  readonly path: string;
  readonly type: 'dir' | 'file' | 'symlink' | 'other';
  /** Bytes (files only). */
  readonly size?: number;
  /** Ignored by .gitignore or the built-in excludes (listed only when asked). */
  readonly ignored?: true;
}

export interface TreeNode {
  readonly name: string;
  readonly path: string;
  readonly type: 'dir' | 'file' | 'symlink' | 'other';
  readonly size?: number;
  /** Sub-entries, for a directory within the depth; absent past it (`files`/`dirs` still count it). */
  readonly children?: TreeNode[];
  /** For a directory: files and directories directly inside it. */
  readonly files?: number;
  readonly dirs?: number;
  /** True when the entry cap stopped the listing of this directory's children. */
  readonly cut?: true;
}

/**
 * A user-given path made repository-relative (POSIX, '' for the root), refused with
 * `invalid_path` when it could name anything outside the repository: absolute paths, `..`
 * climbing out (including into a sibling directory sharing the root's prefix), percent-encoded
 * forms of either, NUL bytes and backslashes. Purely lexical: symbolic links are checked when
 * the path is opened.
 */
export function repoRelativePath(input: string): string {
  const refuse = (why: string) => new CaError('invalid_path', `${why}: ${JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input)}`, { context: { path: input } });
  if (input.includes('\0')) throw refuse('path contains a NUL byte');
  let decoded = input;
  if (/%[0-9a-fA-F]{2}/.test(input)) {
    try {
      decoded = decodeURIComponent(input);
    } catch (e) {
      throw new CaError('invalid_path', `path is not valid percent-encoding: ${JSON.stringify(input)}`, { cause: e, context: { path: input } });
    }
  }
  for (const form of decoded === input ? [input] : [input, decoded]) {
    if (isAbsolute(form) || /^[a-zA-Z]:/.test(form) || form.startsWith('\\')) {
      throw refuse('give a repository-relative path, not an absolute one');
    }
    if (form.includes('\\')) throw refuse('path contains a backslash; use / between directories');
    const normal = relative('/r', resolve('/r', form));
    if (normal === '..' || normal.startsWith(`..${sep}`)) throw refuse('path leads outside the repository');
  }
  // The path as given names the file (a literal `%41` is a file name), once it is known not to climb out.
  return relative('/r', resolve('/r', input)).split(sep).join('/');
}

/** The real path of an opened handle (Linux: /proc/self/fd), or null where the platform has no such view. */
function handlePath(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EINVAL') return null;
    throw e;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

function isInside(rootReal: string, real: string): boolean {
  const rel = relative(rootReal, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Opens `rel` under `rootReal` so that no symbolic link (present before the check, or swapped in
 * after it) can make it reach outside: the path is resolved and checked, opened with O_NOFOLLOW,
 * and the opened handle's own real path is checked again (on Linux through /proc/self/fd; else
 * by comparing the handle's device and inode with the checked path's). Returns the descriptor
 * and its stats; the caller closes it.
 */
function openInside(rootReal: string, rel: string, directory: boolean, hooks: SandboxHooks): { fd: number; st: Stats; real: string } {
  const abs = rel === '' ? rootReal : join(rootReal, ...rel.split('/'));
  const outside = () => new CaError('invalid_path', `${rel} resolves to a path outside the repository (through a symbolic link)`, { context: { path: rel } });
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CaError('not_found', `${rel || '.'} does not exist in the repository`, { cause: e, context: { path: rel } });
    if (code === 'ELOOP') throw new CaError('invalid_path', `${rel} is a symbolic link loop`, { cause: e, context: { path: rel } });
    throw new CaError('io_error', `cannot resolve ${rel}: ${(e as Error).message}`, { cause: e, context: { path: rel } });
  }
  if (!isInside(rootReal, real)) throw outside();
  hooks.afterCheck?.(real);
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (directory ? constants.O_DIRECTORY : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ELOOP (ENOTDIR with O_DIRECTORY): the last component became a symbolic link after the check.
    if (code === 'ELOOP' || (code === 'ENOTDIR' && isLink(real))) throw outside();
    if (code === 'ENOENT') throw new CaError('not_found', `${rel || '.'} does not exist in the repository`, { cause: e, context: { path: rel } });
    if (code === 'ENOTDIR') throw new CaError('usage', `${rel} is not a directory`, { cause: e, context: { path: rel } });
    throw new CaError('io_error', `cannot open ${rel}: ${(e as Error).message}`, { cause: e, context: { path: rel } });
  }
  try {
    const st = fstatSync(fd);
    const opened = handlePath(fd);
    if (opened !== null) {
      if (!isInside(rootReal, opened)) throw outside();
    } else {
      const now = lstatSync(real);
      if (now.dev !== st.dev || now.ino !== st.ino) throw outside();
    }
    return { fd, st, real: opened ?? real };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** .gitignore rules of the directories from the root down, read once per directory (through the sandbox). */
class IgnoreRules {
  private readonly scopes = new Map<string, Ignore | null>();
  constructor(private readonly rootReal: string) {}

  /** True when `rel` (a file, or a directory when `isDir`) is left out by a .gitignore or a built-in exclude. */
  ignored(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length - (isDir ? 0 : 1); i++) {
      if (BUILTIN_EXCLUDED_DIRS.has(parts[i]!)) return true;
    }
    // git does not descend into an ignored directory: whatever is inside it is ignored too.
    for (let k = 1; k < parts.length; k++) {
      if (this.entryIgnored(parts.slice(0, k), true)) return true;
    }
    return this.entryIgnored(parts, isDir);
  }

  /** The last rule that matches wins, from the root's .gitignore down to the entry's own directory (as discovery reads them). */
  private entryIgnored(parts: readonly string[], isDir: boolean): boolean {
    let ignored = false;
    for (let i = 0; i < parts.length; i++) {
      const rules = this.rules(parts.slice(0, i).join('/'));
      if (!rules) continue;
      const t = rules.test(parts.slice(i).join('/') + (isDir ? '/' : ''));
      if (t.ignored) ignored = true;
      else if (t.unignored) ignored = false;
    }
    return ignored;
  }

  private rules(base: string): Ignore | null {
    if (this.scopes.has(base)) return this.scopes.get(base)!;
    let rules: Ignore | null = null;
    const rel = base === '' ? '.gitignore' : `${base}/.gitignore`;
    try {
      const st = lstatSync(join(this.rootReal, ...rel.split('/')));
      if (st.isFile() && st.size <= GITIGNORE_MAX_BYTES) {
        const { fd } = openInside(this.rootReal, rel, false, {});
        try {
          rules = ignore().add(readAll(fd, GITIGNORE_MAX_BYTES).toString('utf8'));
        } finally {
          closeSync(fd);
        }
      }
    } catch (e) {
      // No .gitignore here (or one that cannot be read, or that leads outside): it ignores nothing.
      if (!(e instanceof CaError) && (e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
    }
    this.scopes.set(base, rules);
    return rules;
  }
}

function readAll(fd: number, max: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(64 * 1024, max + 1 - total));
    if (buf.length === 0) break;
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
    if (total > max) break;
  }
  return Buffer.concat(chunks, total);
}

function rootRealOf(root: string): string {
  try {
    return realpathSync(root);
  } catch (e) {
    throw new CaError('invalid_path', `repository path does not exist: ${root}`, { cause: e, context: { path: root } });
  }
}

/** True for a path inside a directory that is never served (.git, .codeagent). */
function neverServed(rel: string): boolean {
  return rel.split('/').some((p) => NEVER_SERVED_DIRS.has(p));
}

/**
 * A link inside the repository may lead to a path the link's own name does not show: `.git`,
 * `.codeagent` or an ignored file. The opened target's repository path gets the same checks.
 */
function refuseTarget(rootReal: string, rel: string, real: string, isDir: boolean, includeIgnored: boolean): void {
  const target = relative(rootReal, real).split(sep).join('/');
  if (target === rel || target === '') return;
  if (neverServed(target)) throw new CaError('invalid_path', `${rel} leads to ${target}, inside .git or .codeagent, which are never served`, { context: { path: rel } });
  if (!includeIgnored && new IgnoreRules(rootReal).ignored(target, isDir)) {
    throw new CaError('invalid_path', `${rel} leads to ${target}, which is ignored; ask with include_ignored to read it`, { context: { path: rel } });
  }
}

/**
 * Reads a repository file for an agent, sandboxed to `root`: `path` is checked by
 * `repoRelativePath`, opened by `openInside` (no symbolic link leads out, not even one swapped
 * in after the check), must be a regular file, and is refused (`invalid_path` or `usage`, with
 * the flag that would allow it) when .gitignore'd, binary or over `maxBytes`. Never reads past
 * READ_FILE_HARD_MAX_BYTES. `startLine`/`endLine` pick a window of lines.
 */
/**
 * Lines `startLine`..`endLine` of a text file's bytes, as `read_file` answers them (line ends
 * normalised to `\n`, no final empty line); a window outside the file is a usage error.
 */
export function textWindow(rel: string, bytes: Buffer, options: { readonly startLine?: number | undefined; readonly endLine?: number | undefined } = {}): RepoFileText {
  const lines = decodeFile(bytes).text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  const start = Math.max(1, options.startLine ?? 1);
  const end = Math.min(total, options.endLine ?? total);
  if (start > total && total > 0) throw new CaError('usage', `start_line ${start} is past the end of ${rel} (${total} lines)`, { context: { path: rel } });
  if (end < start && total > 0) throw new CaError('usage', `end_line ${options.endLine} is before start_line ${start}`, { context: { path: rel } });
  return { path: rel, size: bytes.length, totalLines: total, startLine: total === 0 ? 0 : start, endLine: total === 0 ? 0 : end, content: lines.slice(start - 1, end).join('\n'), encoding: 'utf8' };
}

export function readRepoFile(root: string, path: string, options: ReadRepoFileOptions = {}): RepoFileText {
  const rootReal = rootRealOf(root);
  const rel = repoRelativePath(path);
  if (rel === '') throw new CaError('usage', 'read_file needs a file path, not the repository root', { context: { path } });
  if (neverServed(rel)) throw new CaError('invalid_path', `${rel} is inside .git or .codeagent, which are never served`, { context: { path: rel } });
  // Credentials never reach an agent's context (they are not indexed either, decision 020).
  if (!options.allowSecrets && isSecretPath(rel)) throw new CaError('invalid_path', `${rel} is named like a secret file (credentials, keys); it is not served`, { context: { path: rel } });
  if (!options.includeIgnored && new IgnoreRules(rootReal).ignored(rel, false)) {
    throw new CaError('invalid_path', `${rel} is ignored (.gitignore or a built-in exclude such as node_modules); ask with include_ignored to read it`, { context: { path: rel } });
  }
  const { fd, st, real } = openInside(rootReal, rel, false, options);
  try {
    refuseTarget(rootReal, rel, real, false, options.includeIgnored === true);
    if (st.isDirectory()) throw new CaError('usage', `${rel} is a directory (list it with list_directory)`, { context: { path: rel } });
    if (!st.isFile()) throw new CaError('usage', `${rel} is not a regular file`, { context: { path: rel } });
    const limit = options.maxBytes ?? READ_FILE_DEFAULT_MAX_BYTES;
    if (st.size > READ_FILE_HARD_MAX_BYTES) {
      throw new CaError('usage', `${rel} is ${st.size} bytes, over the ${READ_FILE_HARD_MAX_BYTES}-byte limit of read_file`, { context: { path: rel } });
    }
    if (st.size > limit && !options.allowLarge) {
      throw new CaError('usage', `${rel} is ${st.size} bytes, over ${limit}; ask with allow_large (and a line range) to read it`, { context: { path: rel } });
    }
    const bytes = readAll(fd, READ_FILE_HARD_MAX_BYTES);
    if (bytes.length > READ_FILE_HARD_MAX_BYTES) throw new CaError('usage', `${rel} grew past the ${READ_FILE_HARD_MAX_BYTES}-byte limit while being read`, { context: { path: rel } });
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      if (!options.allowBinary) throw new CaError('usage', `${rel} is a binary file; ask with allow_binary to get it as base64`, { context: { path: rel } });
      return { path: rel, size: bytes.length, totalLines: 0, startLine: 0, endLine: 0, content: bytes.toString('base64'), encoding: 'base64' };
    }
    return textWindow(rel, bytes, options);
  } finally {
    closeSync(fd);
  }
}

export interface ListOptions extends SandboxHooks {
  /** List entries that .gitignore or the built-in excludes leave out, marked `ignored`. */
  readonly includeIgnored?: boolean;
}

/** The entries of one opened, verified directory, read through its handle (never through the path again). */
function entriesOf(rootReal: string, rel: string, ignoredRules: IgnoreRules, options: ListOptions): DirectoryEntry[] {
  const { fd, st, real } = openInside(rootReal, rel, true, options);
  try {
    refuseTarget(rootReal, rel, real, true, options.includeIgnored === true);
    if (!st.isDirectory()) throw new CaError('usage', `${rel} is not a directory`, { context: { path: rel } });
    // Through the handle on Linux, so a directory swapped for a link after the open is not what is listed.
    const dir = handlePath(fd) !== null ? `/proc/self/fd/${fd}` : real;
    const names = readdirSync(dir).sort();
    const out: DirectoryEntry[] = [];
    for (const name of names) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (neverServed(path)) continue;
      let est: Stats;
      try {
        est = lstatSync(join(dir, name));
      } catch (e) {
        // Gone between the listing and the stat: not listed.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const type = est.isSymbolicLink() ? 'symlink' : est.isDirectory() ? 'dir' : est.isFile() ? 'file' : 'other';
      const ignored = ignoredRules.ignored(path, type === 'dir');
      if (ignored && !options.includeIgnored) continue;
      out.push({ name, path, type, ...(type === 'file' ? { size: est.size } : {}), ...(ignored ? { ignored: true as const } : {}) });
    }
    // Directories first, then files, each by name.
    return out.sort((a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    closeSync(fd);
  }
}

/** One directory of the repository (`path` '' or '.' for the root), sandboxed like `readRepoFile`; symbolic links are listed, not followed. */
export function listRepoDirectory(root: string, path: string, options: ListOptions = {}): DirectoryEntry[] {
  const rootReal = rootRealOf(root);
  const rel = repoRelativePath(path === '' ? '.' : path);
  const rules = servedDirectory(rootReal, rel, options);
  return entriesOf(rootReal, rel, rules, options);
}

/** The ignore rules of a directory the listing tools may show, or `invalid_path` when it is never served or ignored. */
function servedDirectory(rootReal: string, rel: string, options: ListOptions): IgnoreRules {
  if (neverServed(rel)) throw new CaError('invalid_path', `${rel} is inside .git or .codeagent, which are never served`, { context: { path: rel } });
  const rules = new IgnoreRules(rootReal);
  if (rel !== '' && !options.includeIgnored && rules.ignored(rel, true)) {
    throw new CaError('invalid_path', `${rel} is ignored (.gitignore or a built-in exclude); ask with include_ignored to list it`, { context: { path: rel } });
  }
  return rules;
}

export interface TreeOptions extends ListOptions {
  /** Directory levels to expand below `path` (default 2). */
  readonly depth?: number;
  /** Most entries in the whole tree (default 500); directories past it say `cut`. */
  readonly maxEntries?: number;
}

/** The directory tree under `path`, breadth-first so the cap keeps the upper levels; symbolic links are never descended. */
export function repoDirectoryTree(root: string, path: string, options: TreeOptions = {}): { root: TreeNode; entries: number; cut: boolean } {
  const rootReal = rootRealOf(root);
  const rel = repoRelativePath(path === '' ? '.' : path);
  const rules = servedDirectory(rootReal, rel, options);
  const depth = options.depth ?? 2;
  const maxEntries = options.maxEntries ?? 500;
  type Mutable = { -readonly [K in keyof TreeNode]: TreeNode[K] };
  const top: Mutable = { name: rel === '' ? '.' : rel.split('/').pop()!, path: rel === '' ? '.' : rel, type: 'dir' };
  let count = 0;
  let cut = false;
  const queue: { node: Mutable; rel: string; level: number }[] = [{ node: top, rel, level: 0 }];
  while (queue.length > 0) {
    const { node, rel: dirRel, level } = queue.shift()!;
    const entries = entriesOf(rootReal, dirRel, rules, options);
    node.files = entries.filter((e) => e.type !== 'dir').length;
    node.dirs = entries.length - node.files;
    if (level >= depth) continue;
    const children: TreeNode[] = [];
    for (const e of entries) {
      if (count >= maxEntries) {
        node.cut = true;
        cut = true;
        break;
      }
      count++;
      const child: Mutable = { name: e.name, path: e.path, type: e.type, ...(e.size !== undefined ? { size: e.size } : {}) };
      children.push(child);
      if (e.type === 'dir') queue.push({ node: child, rel: e.path, level: level + 1 });
    }
    node.children = children;
  }
  return { root: top, entries: count, cut };
}
