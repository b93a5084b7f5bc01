/** Small text helpers shared by the extractor. */

/** Collapses runs of whitespace to one space and trims. */
export function collapseWs(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Maps JS string offsets (UTF-16 code units, what web-tree-sitter reports for string input)
 * to UTF-8 byte offsets, which is what `Span` stores. ASCII text maps to itself.
 */
export function utf8Offsets(text: string): (index: number) => number {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return (i) => i;
  const table = new Uint32Array(text.length + 1);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    table[i] = bytes;
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) bytes += 2; // high surrogate: 4 bytes split over the pair
    else if (c >= 0xdc00 && c <= 0xdfff) bytes += 2;
    else bytes += 3;
  }
  table[text.length] = bytes;
  return (i) => table[Math.max(0, Math.min(i, text.length))]!;
}

/** Number of lines: a trailing newline does not start a new line; the empty text has 0. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
