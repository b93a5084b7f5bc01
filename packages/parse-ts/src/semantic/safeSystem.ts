/**
 * The semantic pass reads files only through here: the compiler host, the config host and module
 * resolution all get `compilerReadFile` instead of `ts.sys.readFile`, which would block forever on
 * a FIFO named `package.json` and read `/dev/zero` through a link until memory runs out.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { safeReadFile } from '@ca/schema';

/**
 * Largest file the compiler reads: well above any real declaration file (TypeScript's own
 * `lib.dom.d.ts` is ~2 MB) and far below what would exhaust the worker's heap.
 */
export const COMPILER_READ_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A `readFile` for the TypeScript compiler. A file of the repository (outside node_modules) must
 * be a regular file, not a link, inside `root` after its directories' links are resolved, and
 * at most `COMPILER_READ_MAX_BYTES`. Anything else — TypeScript's lib files, installed packages,
 * a package linked from elsewhere — may be reached through links but must still be a regular
 * file under the cap. A refused file reads as missing (`undefined`), as TypeScript expects; the
 * syntactic pass records why it was refused. `root` null: no file counts as the repository's.
 */
export function compilerReadFile(root: string | null): (fileName: string) => string | undefined {
  const base = root === null ? null : resolve(root);
  return (fileName) => {
    const abs = resolve(fileName);
    const repoFile = base !== null && isRepoFile(base, abs);
    const read = safeReadFile(abs, repoFile ? { root: base!, maxBytes: COMPILER_READ_MAX_BYTES } : { maxBytes: COMPILER_READ_MAX_BYTES, followLinks: true });
    return read.ok ? decode(read.bytes) : undefined;
  };
}

/** `ts.sys` with `readFile` replaced by `compilerReadFile(root)`: a module resolution and config host. */
export function safeSystem(root: string | null): ts.System {
  return { ...ts.sys, readFile: compilerReadFile(root) };
}

function isRepoFile(root: string, abs: string): boolean {
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  return !rel.split(sep).includes('node_modules');
}

/** As `ts.sys.readFile` decodes: UTF-16 (either byte order) and UTF-8 byte order marks are honoured and dropped. */
function decode(buffer: Buffer): string {
  const len = buffer.length;
  if (len >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) {
    const swapped = Buffer.from(buffer.subarray(2, 2 + ((len - 2) & ~1)));
    swapped.swap16();
    return swapped.toString('utf16le');
  }
  if (len >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return buffer.toString('utf16le', 2);
  if (len >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) return buffer.toString('utf8', 3);
  return buffer.toString('utf8');
}
