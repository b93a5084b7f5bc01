/**
 * The one way the product reads a file of a repository it indexes (decision 020). A hostile
 * repository can hold a symbolic link to `/dev/zero`, a FIFO named `package.json` or a 3 GB
 * `.gitignore`: a plain `readFileSync` then never returns or exhausts memory. Here a file is
 * opened without following a link at its last component and without blocking on a FIFO, and the
 * checks run on the opened handle (so a file swapped after a check is still caught): a regular
 * file, at most `maxBytes` bytes, and — when a root is given — inside that root after every link
 * of its directories is resolved. At most `maxBytes + 1` bytes are ever read.
 *
 * It lives in @ca/schema, the lowest layer, because every reader needs it: the config loader
 * here, discovery and file processing in @ca/engine, the TypeScript worker's compiler host in
 * @ca/parse-ts.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Why a file was not read: stable strings, recorded with the file's skip reason. */
export type SafeReadRefusal = 'missing' | 'symlink' | 'not_regular' | 'too_large' | 'outside_root' | 'unreadable';

export interface SafeReadOptions {
  /** Most bytes accepted; a larger file (or one that grows past it while read) is refused. */
  readonly maxBytes: number;
  /**
   * The repository root: the opened file must lie inside it, checked on the handle's real path.
   * Omit it for files that legitimately live elsewhere (TypeScript's own lib files).
   */
  readonly root?: string;
  /**
   * Follow a symbolic link at the last path component (default false). Only for reads outside
   * any repository, where links are how packages are installed; the handle checks still apply.
   */
  readonly followLinks?: boolean;
}

/** An opened file that passed every check; the caller closes `fd`. */
export interface SafeOpened {
  readonly ok: true;
  readonly fd: number;
  readonly stats: Stats;
}

export interface SafeRefused {
  readonly ok: false;
  readonly refusal: SafeReadRefusal;
  /** One line for a skip reason or a message, e.g. `not a regular file (FIFO)`. */
  readonly reason: string;
}

export type SafeOpenResult = SafeOpened | SafeRefused;
export type SafeReadResult = { readonly ok: true; readonly bytes: Buffer; readonly stats: Stats } | SafeRefused;
export type SafeTextResult = { readonly ok: true; readonly text: string; readonly stats: Stats } | SafeRefused;

// O_NOFOLLOW and O_NONBLOCK are POSIX; on Windows they are undefined (0) and the lstat
// pre-check below is the only link guard (Windows has no FIFOs in the file system).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The largest buffer allocated up front; a file that claims more grows its buffer as it is read. */
const FIRST_CHUNK = 1 << 20;

function refused(refusal: SafeReadRefusal, reason: string): SafeRefused {
  return { ok: false, refusal, reason };
}

/** `FIFO`, `character device` … for a non-regular file's reason. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'FIFO';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  if (st.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

const realRoots = new Map<string, string>();

/** The root with every link resolved (cached: roots are few, and a root does not move while indexed). */
function realRoot(root: string): string {
  const abs = resolve(root);
  let real = realRoots.get(abs);
  if (real === undefined) {
    real = realpathSync(abs);
    if (realRoots.size > 64) realRoots.clear();
    realRoots.set(abs, real);
  }
  return real;
}

/** True when /proc/self/fd names an open file's path (Linux); checked once. */
let procFd: boolean | null = null;
function hasProcFd(): boolean {
  if (procFd === null) {
    try {
      procFd = statSync('/proc/self/fd').isDirectory();
    } catch {
      // No /proc/self/fd (not Linux): handles are checked by path instead.
      procFd = false;
    }
  }
  return procFd;
}

/**
 * The real path of the open file: the kernel's name of the descriptor on Linux; elsewhere the
 * path's realpath, accepted only when it names the very file that is open (same device and inode).
 */
function realPathOf(fd: number, path: string, st: Stats): string | null {
  if (hasProcFd()) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.endsWith(' (deleted)') ? null : target;
    } catch {
      // Fall through to the portable check (a sandbox without /proc access).
    }
  }
  try {
    const real = realpathSync(path);
    const again = statSync(real);
    return again.dev === st.dev && again.ino === st.ino ? real : null;
  } catch {
    // The path vanished or cannot be resolved: it is not a safe file to read, which null says.
    return null;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  // `..x.ts` is a file of the root; only `..` itself and `../…` leave it.
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Opens `path` for reading when it is a regular file within the limits of `options`; the caller
 * closes the returned descriptor. Never blocks on a FIFO and never follows a link at the last
 * component (unless `followLinks`); every check is made on the open descriptor.
 */
export function safeOpenFile(path: string, options: SafeReadOptions): SafeOpenResult {
  const follow = options.followLinks === true;
  // A cheap pre-check keeps devices and FIFOs from being opened at all in the common case; the
  // checks on the handle below are the ones that count.
  let pre: Stats;
  try {
    pre = follow ? statSync(path) : lstatSync(path);
  } catch (e) {
    return errnoRefusal(e);
  }
  if (pre.isSymbolicLink()) return refused('symlink', 'symbolic link (not followed)');
  if (!pre.isFile()) return refused('not_regular', `not a regular file (${kindOf(pre)})`);
  if (pre.size > options.maxBytes) return refused('too_large', `file is ${pre.size} bytes, over the ${options.maxBytes}-byte cap`);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS | (follow ? 0 : NOFOLLOW));
  } catch (e) {
    return errnoRefusal(e);
  }
  let keep = false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return refused('not_regular', `not a regular file (${kindOf(st)})`);
    if (st.size > options.maxBytes) return refused('too_large', `file is ${st.size} bytes, over the ${options.maxBytes}-byte cap`);
    if (options.root !== undefined) {
      const real = realPathOf(fd, path, st);
      if (real === null) return refused('unreadable', 'cannot tell where the open file lives');
      if (!isInside(realRoot(options.root), real)) return refused('outside_root', 'resolves outside the repository');
    }
    keep = true;
    return { ok: true, fd, stats: st };
  } catch (e) {
    return errnoRefusal(e);
  } finally {
    if (!keep) closeSync(fd);
  }
}

/** Reads a file that `safeOpenFile` accepts; at most `maxBytes + 1` bytes are read. */
export function safeReadFile(path: string, options: SafeReadOptions): SafeReadResult {
  const opened = safeOpenFile(path, options);
  if (!opened.ok) return opened;
  try {
    const bytes = readCapped(opened.fd, opened.stats.size, options.maxBytes);
    if (bytes === null) return refused('too_large', `file grew past the ${options.maxBytes}-byte cap while read`);
    return { ok: true, bytes, stats: opened.stats };
  } catch (e) {
    return errnoRefusal(e);
  } finally {
    closeSync(opened.fd);
  }
}

/** `safeReadFile` decoded as UTF-8, without a leading byte order mark (callers parse JSON and XML, which reject one). */
export function safeReadText(path: string, options: SafeReadOptions): SafeTextResult {
  const r = safeReadFile(path, options);
  if (!r.ok) return r;
  const b = r.bytes;
  const start = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  return { ok: true, text: b.toString('utf8', start), stats: r.stats };
}

/** The file's bytes, or null when it holds more than `max` (it grew after fstat). */
function readCapped(fd: number, size: number, max: number): Buffer | null {
  let buf = Buffer.allocUnsafe(Math.min(size, max, FIRST_CHUNK) + 1);
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      if (length > max) return null;
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, max + 1));
      buf.copy(bigger, 0, 0, length);
      buf = bigger;
    }
    const n = readSync(fd, buf, length, buf.length - length, null);
    if (n === 0) break;
    length += n;
  }
  return length > max ? null : buf.subarray(0, length);
}

function errnoRefusal(e: unknown): SafeRefused {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return refused('missing', 'no such file');
    // O_NOFOLLOW on a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
    case 'ELOOP':
    case 'EMLINK':
      return refused('symlink', 'symbolic link (not followed)');
    // A socket or a device without a reader/driver: nothing a source file can be.
    case 'ENXIO':
    case 'ENODEV':
    case 'EOPNOTSUPP':
      return refused('not_regular', 'not a regular file');
    default:
      return refused('unreadable', `unreadable (${code ?? (e as Error).message})`);
  }
}
