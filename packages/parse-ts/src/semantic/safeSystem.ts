/**
 * The semantic pass reads files only through here: the compiler host, the config host and module
 * resolution all get `compilerReadFile` instead of `ts.sys.readFile`, which would block forever on
 * a FIFO named `package.json` and read `/dev/zero` through a link until memory runs out.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { decodeSource, safeReadFile } from '@ca/schema';

/**
 * Largest file the compiler reads: well above any real declaration file (TypeScript's own
 * `lib.dom.d.ts` is ~2 MB) and far below what would exhaust the worker's heap.
 */
export const COMPILER_READ_MAX_BYTES = 32 * 1024 * 1024;

/** TypeScript's own lib folder (`lib.es2022.d.ts` …): read wherever TypeScript is installed. */
const TS_LIB_DIR = dirname(ts.getDefaultLibFilePath({}));

/**
 * A `readFile` for the TypeScript compiler, given the repository root:
 * - a file of the repository must be a regular file inside `root` after every link is resolved,
 *   at most `COMPILER_READ_MAX_BYTES`, and not a link itself unless it is in a `node_modules`
 *   folder (package managers link packages);
 * - a package installed above the repository (a `node_modules` folder of a parent directory) or
 *   TypeScript's own lib files may be reached through links, but must still be a regular file
 *   under the cap;
 * - any other file outside the repository (a tsconfig `extends: "/etc/…"` or `"../../x.json"`
 *   above the root) is not read at all: its text could otherwise reach the index through a
 *   diagnostic.
 * A refused file reads as missing (`undefined`), as TypeScript expects; a config that needs it
 * fails to load with TypeScript's "cannot read file" and the project's reason says so.
 * `root` null (a config read on its own, in tests): every file gets the second rule.
 */
export function compilerReadFile(root: string | null): (fileName: string) => string | undefined {
  const base = root === null ? null : resolve(root);
  return (fileName) => {
    const abs = resolve(fileName);
    const where = base === null ? 'installed' : placeOf(base, abs);
    if (where === 'elsewhere') return undefined;
    const read = safeReadFile(
      abs,
      where === 'installed'
        ? { maxBytes: COMPILER_READ_MAX_BYTES, followLinks: true }
        : // Inside the repository a package manager links packages (pnpm): followed, but the target stays inside.
          { root: base!, maxBytes: COMPILER_READ_MAX_BYTES, followLinks: where === 'repository-package' },
    );
    return read.ok ? decode(read.bytes) : undefined;
  };
}

/** `ts.sys` with `readFile` replaced by `compilerReadFile(root)`: a module resolution and config host. */
export function safeSystem(root: string | null): ts.System {
  return { ...ts.sys, readFile: compilerReadFile(root) };
}

/** Which rule of `compilerReadFile` a path falls under. */
function placeOf(root: string, abs: string): 'repository' | 'repository-package' | 'installed' | 'elsewhere' {
  const inPackage = abs.split(sep).includes('node_modules');
  if (isWithin(root, abs)) return inPackage ? 'repository-package' : 'repository';
  return inPackage || isWithin(TS_LIB_DIR, abs) ? 'installed' : 'elsewhere';
}

function isWithin(dir: string, abs: string): boolean {
  const rel = relative(dir, abs);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** As `ts.sys.readFile` decodes (UTF-16 either byte order, UTF-8 byte order marks honoured and dropped), and text that is not UTF-8 as Windows-1252. */
function decode(buffer: Buffer): string {
  // The indexer's decoding (decision 025): the program sees the text the syntactic pass parsed.
  return decodeSource(buffer)?.text ?? buffer.toString('utf8');
}
