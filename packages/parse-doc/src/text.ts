import type { Span } from '@ca/schema';

/**
 * Lines and UTF-8 byte offsets of a text, from character indices (what the scanners work in).
 * Built once per file: a prefix table of byte offsets, and the character index of each line.
 */
export class TextMap {
  private readonly bytes: Uint32Array;
  /** Character index where each line starts (line 1 at index 0). */
  private readonly lineStarts: number[] = [0];

  constructor(readonly text: string) {
    this.bytes = new Uint32Array(text.length + 1);
    let b = 0;
    for (let i = 0; i < text.length; i++) {
      this.bytes[i] = b;
      const c = text.charCodeAt(i);
      // A surrogate pair is 4 bytes: 2 for each half keeps the prefix exact at pair boundaries.
      b += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
      if (c === 10) this.lineStarts.push(i + 1);
    }
    this.bytes[text.length] = b;
  }

  /** Total UTF-8 bytes. */
  get byteLength(): number {
    return this.bytes[this.text.length]!;
  }

  /** Number of lines (a final newline does not start one more). */
  get lineCount(): number {
    const n = this.lineStarts.length;
    return n > 1 && this.lineStarts[n - 1] === this.text.length ? n - 1 : n;
  }

  /** 1-based line of a character index. */
  lineOf(index: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** Character index of the start of a 1-based line. */
  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.text.length;
  }

  /** The span of characters [start, end): end exclusive; its last line is the line of its last character. */
  span(start: number, end: number): Span {
    return {
      startLine: this.lineOf(start),
      endLine: this.lineOf(Math.max(start, end - 1)),
      startByte: this.bytes[start]!,
      endByte: this.bytes[end]!,
    };
  }
}

/** The end of `text` before trailing whitespace from `end` back (never before `start`). */
export function trimEnd(text: string, start: number, end: number): number {
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return end;
}
