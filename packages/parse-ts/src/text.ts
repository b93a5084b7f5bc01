/**
 * Text helpers for the extractor: UTF-16 index → UTF-8 byte offsets, whitespace collapsing,
 * JSDoc cleaning, module path resolution and generated-file detection. Pure functions.
 */
import { posix } from 'node:path';

/**
 * Maps string indices (UTF-16 code units, what web-tree-sitter reports for string input)
 * to UTF-8 byte offsets, as produced by `Buffer.from(text)`. ASCII-only text maps 1:1 and
 * needs no table; otherwise a prefix table is built once per file.
 */
export class ByteOffsets {
  private readonly prefix: Uint32Array | null;
  readonly byteLength: number;

  constructor(text: string) {
    // A single regex scan is much cheaper than building the table for the common ASCII case.
    if (!/[^\x00-\x7f]/.test(text)) {
      this.prefix = null;
      this.byteLength = text.length;
      return;
    }
    const n = text.length;
    const prefix = new Uint32Array(n + 1);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      prefix[i] = bytes;
      const c = text.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c <= 0xdbff) {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          // A valid pair is 4 UTF-8 bytes; the low half starts inside it, never a boundary.
          bytes += 4;
          i++;
          prefix[i] = bytes - 2;
        } else {
          bytes += 3; // lone surrogate: Buffer.from writes U+FFFD (3 bytes)
        }
      } else bytes += 3; // BMP (incl. BOM and lone low surrogates → U+FFFD)
    }
    prefix[n] = bytes;
    this.prefix = prefix;
    this.byteLength = bytes;
  }

  /** UTF-8 byte offset of string index `index`. */
  at(index: number): number {
    return this.prefix === null ? index : this.prefix[index]!;
  }
}

/** Number of lines: a trailing newline does not start a new line; empty text has 0 lines. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  let i = -1;
  while ((i = text.indexOf('\n', i + 1)) !== -1) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Collapses runs of whitespace to one space and trims. */
export function collapseWhitespace(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** True when `text[from, to)` holds only whitespace (scans lazily, stops at the first non-space). */
export function onlyWhitespaceBetween(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 0xfeff) return false;
  }
  return true;
}

/** JSDoc body without `/**`, `*\/` and the leading `*` of each line; null when empty. */
export function cleanJsDoc(comment: string): string | null {
  const inner = comment.replace(/^\/\*\*/, '').replace(/\*\/$/, '');
  const lines = inner.split(/\r?\n/).map((l) => l.replace(/^\s*\*? ?/, '').trimEnd());
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const doc = lines.join('\n').trim();
  return doc === '' ? null : doc;
}

const SOURCE_EXTENSIONS = /\.(d\.ts|d\.mts|d\.cts|tsx|ts|mts|cts|jsx|js|mjs|cjs)$/;

/**
 * Repo-relative module path (POSIX, no extension) of a relative specifier, resolved against
 * the importing file's directory; null for bare specifiers (`react`, `@scope/pkg`).
 */
export function resolveModulePath(importerPath: string, specifier: string): string | null {
  if (!(specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../'))) {
    return null;
  }
  const dir = posix.dirname(importerPath);
  let joined = posix.normalize(posix.join(dir, specifier));
  if (joined.endsWith('/')) joined = joined.slice(0, -1);
  return joined.replace(SOURCE_EXTENSIONS, '');
}

const GENERATED_PATH = /(\.generated\.[^/]+$)|(\.g\.ts$)|((^|\/)__generated__\/)/;
const GENERATED_MARK = /@generated|auto-generated/i;

/**
 * Generated-file heuristics: conventional paths, or a comment in the first lines that says
 * `@generated` / `auto-generated` (only comment lines count, so a string mentioning it does not).
 */
export function isGeneratedFile(path: string, text: string): boolean {
  if (GENERATED_PATH.test(path)) return true;
  const head = text.slice(0, 2000).split('\n', 10);
  for (const raw of head) {
    const line = raw.replace(/^\ufeff/, '').trim();
    if ((line.startsWith('//') || line.startsWith('/*') || line.startsWith('*')) && GENERATED_MARK.test(line)) {
      return true;
    }
  }
  return false;
}
