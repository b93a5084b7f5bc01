import { closeSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { CaError, safeOpenFile, safeReadFile } from '@ca/schema';
import type { GitTreeEntry } from './git.js';

/** What a directory entry is, as discovery needs to know it (links are never followed). */
export type EntryKind = 'file' | 'dir' | 'symlink' | 'other';

export interface TreeEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly size: number;
  /** Modification time (ms); null where the source has none (a git tree). */
  readonly mtimeMs: number | null;
  /** The content's git blob id when the source knows it without reading (a git tree). */
  readonly blobId?: string;
  /** For `other`: what it is (`FIFO`, `character device`, `socket` …), when the source knows. */
  readonly detail?: string;
  /** A git object the repository does not have (a partial or shallow clone): listed, never readable. */
  readonly missing?: true;
}

/**
 * A tree discovery can walk: the working tree on disk, or a commit's tree. Paths are
 * repo-relative POSIX ('' is the root).
 */
export interface TreeAccess {
  /** Entries of a directory, sorted by name; throws (with the reason) when it cannot be read. */
  list(dir: string): TreeEntry[];
  /** The entry at `path`, or null when there is none. */
  entry(path: string): TreeEntry | null;
  /**
   * The bytes of a regular file of at most `maxBytes`, or null when it cannot be read as one
   * (missing, not a regular file, a link, larger than the cap). Never blocks on a FIFO.
   */
  readSmall(path: string, maxBytes: number): Buffer | null;
  /** Why a symbolic link is not followed (its target, a loop, outside the repository). */
  linkReason(path: string): string;
  /** Whether a symbolic link points at a directory (or cannot be resolved): reported, not followed. */
  linkIsDir(path: string): boolean;
  /** Why `readSmall` would refuse `path` (a FIFO, over the cap …), or null when it reads; sources that cannot tell omit it. */
  refusalOf?(path: string, maxBytes: number): string | null;
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/** The working tree on disk. */
export class DiskTree implements TreeAccess {
  private readonly rootReal: string;

  constructor(readonly root: string) {
    this.rootReal = realpathSync(root);
  }

  private abs(path: string): string {
    return path === '' ? this.root : join(this.root, ...path.split('/'));
  }

  list(dir: string): TreeEntry[] {
    const abs = this.abs(dir);
    const out: TreeEntry[] = [];
    for (const name of readdirSync(abs).sort()) {
      const entry = this.entry(dir === '' ? name : `${dir}/${name}`);
      if (entry) out.push(entry);
      else out.push({ name, kind: 'other', size: 0, mtimeMs: null });
    }
    return out;
  }

  entry(path: string): TreeEntry | null {
    let st;
    try {
      st = lstatSync(this.abs(path));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw e;
    }
    const name = path.slice(path.lastIndexOf('/') + 1);
    const kind: EntryKind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    const detail = kind !== 'other' ? undefined : st.isFIFO() ? 'FIFO' : st.isCharacterDevice() ? 'character device' : st.isBlockDevice() ? 'block device' : st.isSocket() ? 'socket' : 'special file';
    return { name, kind, size: st.size, mtimeMs: Math.floor(st.mtimeMs), ...(detail ? { detail } : {}) };
  }

  readSmall(path: string, maxBytes: number): Buffer | null {
    return readRegularFile(this.root, path, maxBytes, this.rootReal);
  }

  refusalOf(path: string, maxBytes: number): string | null {
    const r = safeOpenFile(this.abs(path), { root: this.root, maxBytes });
    if (!r.ok) return r.refusal === 'missing' ? null : r.reason;
    closeSync(r.fd);
    return null;
  }

  linkReason(path: string): string {
    let target: string;
    try {
      target = realpathSync(this.abs(path));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ELOOP' ? 'symbolic link loop' : `broken symbolic link (${code ?? 'unknown'})`;
    }
    const relTarget = relative(this.rootReal, target);
    if (relTarget === '..' || relTarget.startsWith(`..${sep}`) || isAbsolute(relTarget)) return 'symbolic link to a path outside the repository';
    return `symbolic link (not followed; target ${toPosix(relTarget)} is indexed at its own path)`;
  }

  linkIsDir(path: string): boolean {
    try {
      return statSync(this.abs(path)).isDirectory();
    } catch {
      return true; // broken or looping links are reported
    }
  }
}

/**
 * Reads a repository file only if it is a regular file inside the repository, checked on the
 * opened handle (the schema's safe reader, decision 020): `O_NOFOLLOW` refuses a link at the
 * last component, `O_NONBLOCK` keeps a FIFO from blocking the open, `fstat` refuses anything but
 * a regular file and sizes over the cap, and the handle's real path must lie under the
 * repository's. Null when any check fails or the file vanished (`safeReadFile` says why).
 */
export function readRegularFile(root: string, path: string, maxBytes: number, _rootReal?: string): Buffer | null {
  const abs = path === '' ? root : join(root, ...path.split('/'));
  const r = safeReadFile(abs, { root, maxBytes });
  return r.ok ? r.bytes : null;
}

/** Whether an open handle's file lies under `rootReal` (Linux: its /proc link; elsewhere: trusted). */
export function handleInside(fd: number, rootReal: string): boolean {
  let real: string;
  try {
    real = realpathSync(`/proc/self/fd/${fd}`);
  } catch {
    // No /proc link to resolve (not Linux, or /proc not mounted): the path checks made before opening stand.
    return true;
  }
  const rel = relative(rootReal, real);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** A commit's tree, from `git ls-tree -r -l` (files read through `read`). */
export class GitTree implements TreeAccess {
  private readonly dirs = new Map<string, TreeEntry[]>();
  private readonly entries = new Map<string, TreeEntry>();
  private readonly contents = new Map<string, Buffer>();

  /**
   * `small` holds the bytes of the small files discovery reads (.gitignore, package.json),
   * fetched before the walk: discovery is synchronous, reading blobs is not.
   */
  constructor(entries: readonly GitTreeEntry[], small: ReadonlyMap<string, Buffer> = new Map()) {
    const add = (dir: string, e: TreeEntry) => {
      let list = this.dirs.get(dir);
      if (!list) this.dirs.set(dir, (list = []));
      list.push(e);
    };
    const seenDirs = new Set<string>(['']);
    for (const e of entries) {
      const parts = e.path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const d = parts.slice(0, i).join('/');
        if (seenDirs.has(d)) continue;
        seenDirs.add(d);
        const entry: TreeEntry = { name: parts[i - 1]!, kind: 'dir', size: 0, mtimeMs: null };
        this.entries.set(d, entry);
        add(parts.slice(0, i - 1).join('/'), entry);
      }
      const kind: EntryKind = e.mode === '120000' ? 'symlink' : e.type === 'blob' ? 'file' : 'other';
      const entry: TreeEntry = {
        name: parts[parts.length - 1]!,
        kind,
        size: Math.max(0, e.size),
        mtimeMs: null,
        ...(e.type === 'blob' ? { blobId: e.oid } : {}),
        ...(e.missing ? { missing: true as const } : {}),
      };
      this.entries.set(e.path, entry);
      add(parts.slice(0, -1).join('/'), entry);
    }
    for (const list of this.dirs.values()) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const [path, bytes] of small) this.contents.set(path, bytes);
  }

  list(dir: string): TreeEntry[] {
    const list = this.dirs.get(dir);
    if (!list) throw new CaError('not_found', `no directory ${dir || '.'} in this commit`);
    return list;
  }

  entry(path: string): TreeEntry | null {
    return path === '' ? { name: '', kind: 'dir', size: 0, mtimeMs: null } : (this.entries.get(path) ?? null);
  }

  readSmall(path: string, maxBytes: number): Buffer | null {
    const e = this.entries.get(path);
    if (!e || e.kind !== 'file' || e.size > maxBytes) return null;
    return this.contents.get(path) ?? null;
  }

  linkReason(): string {
    return 'symbolic link (not followed)';
  }

  linkIsDir(): boolean {
    return true;
  }
}
