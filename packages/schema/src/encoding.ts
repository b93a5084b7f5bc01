/**
 * Source file encodings (decision 025). A file is indexed from its bytes whatever they encode:
 * UTF-8 (with or without a byte order mark), UTF-16 LE/BE with a byte order mark, and anything
 * else that is not valid UTF-8 is read as Windows-1252 (a superset of Latin-1 for printable
 * text, what old C# and JS sources outside UTF-8 are written in). Every one of these decodes
 * losslessly: encoding the decoded text again in the same encoding gives the file's bytes back.
 *
 * Parsers see the decoded text without its byte order mark and report UTF-8 offsets of that
 * text; `sourceByteMap` turns those back into offsets of the file's own bytes, so a symbol's
 * span always names the bytes of the file as it is on disk.
 */
import { isUtf8 } from 'node:buffer';

/** How a file's bytes encode its text. */
export type TextEncodingName = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

/** A file's text as parsers see it: decoded, without the byte order mark. */
export interface DecodedSource {
  readonly text: string;
  readonly encoding: TextEncodingName;
  /** Bytes of the byte order mark at the start of the file (0, 2 or 3). */
  readonly bomBytes: number;
}

/** Windows-1252 characters of bytes 0x80–0x9F; the five bytes it leaves undefined map to the C1 control of the same number (as the WHATWG decoder does). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d,
  0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];
/** The reverse of CP1252_HIGH: character → byte, for the characters of 0x80–0x9F. */
const CP1252_REVERSE = new Map<number, number>(CP1252_HIGH.map((c, i) => [c, 0x80 + i]));

/** A UTF-16 code unit that is half of a pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The encoding of a file's bytes and the length of its byte order mark; null for UTF-16 that does not decode cleanly (odd length, unpaired surrogates). */
export function detectEncoding(bytes: Uint8Array): { readonly encoding: TextEncodingName; readonly bomBytes: number } | null {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
    if (bytes.length % 2 !== 0 || LONE_SURROGATE.test(decodeBytes(bytes.subarray(2), encoding))) return null;
    return { encoding, bomBytes: 2 };
  }
  if (isUtf8(bytes)) return { encoding: 'utf-8', bomBytes: bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0 };
  return { encoding: 'windows-1252', bomBytes: 0 };
}

/** Bytes decoded as `encoding`, literally (a byte order mark among them stays a U+FEFF character). */
export function decodeBytes(bytes: Uint8Array, encoding: TextEncodingName): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (encoding) {
    case 'utf-8':
      return buf.toString('utf8');
    case 'utf-16le':
      return buf.toString('utf16le', 0, buf.length & ~1);
    case 'utf-16be': {
      const swapped = Buffer.from(buf.subarray(0, buf.length & ~1));
      swapped.swap16();
      return swapped.toString('utf16le');
    }
    case 'windows-1252':
      return decodeCp1252(buf);
  }
}

function decodeCp1252(buf: Buffer): string {
  // latin1 is right for every byte outside 0x80–0x9F; only files that use those need the table.
  let high = false;
  for (let i = 0; i < buf.length && !high; i++) high = buf[i]! >= 0x80 && buf[i]! <= 0x9f;
  const latin1 = buf.toString('latin1');
  if (!high) return latin1;
  return latin1.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]!));
}

/** Text encoded as `encoding` (the inverse of `decodeBytes`); a character Windows-1252 cannot hold becomes `?`. */
export function encodeText(text: string, encoding: TextEncodingName): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8');
    case 'utf-16le':
      return Buffer.from(text, 'utf16le');
    case 'utf-16be':
      return Buffer.from(text, 'utf16le').swap16();
    case 'windows-1252': {
      const out = Buffer.allocUnsafe(text.length);
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        out[i] = c < 0x80 || (c >= 0xa0 && c <= 0xff) ? c : (CP1252_REVERSE.get(c) ?? 0x3f);
      }
      return out;
    }
  }
}

/**
 * A source file's text for parsing: decoded as `detectEncoding` says, byte order mark left out;
 * null when the file is UTF-16 that does not decode cleanly.
 */
export function decodeSource(bytes: Uint8Array): DecodedSource | null {
  const found = detectEncoding(bytes);
  if (found === null) return null;
  return { text: decodeBytes(bytes.subarray(found.bomBytes), found.encoding), encoding: found.encoding, bomBytes: found.bomBytes };
}

/**
 * A whole file's text for display (`ca view`, context lines): decoded as `detectEncoding` says,
 * a byte order mark kept as U+FEFF so that `encodeText(text, encoding)` is the file's bytes.
 * UTF-16 that does not decode is shown as UTF-8 or, when not valid UTF-8, Windows-1252.
 */
export function decodeFile(bytes: Uint8Array): { readonly text: string; readonly encoding: TextEncodingName } {
  const encoding = displayEncoding(bytes);
  return { text: decodeBytes(bytes, encoding), encoding };
}

/** The text of the bytes `start`..`end` of a file (a symbol's span), decoded in the whole file's encoding. */
export function decodeSpan(fileBytes: Uint8Array, start: number, end: number): string {
  return decodeBytes(fileBytes.subarray(start, end), displayEncoding(fileBytes));
}

/** `detectEncoding`'s answer, and for UTF-16 that does not decode, UTF-8 or else Windows-1252 (which still shows every byte). */
function displayEncoding(bytes: Uint8Array): TextEncodingName {
  return detectEncoding(bytes)?.encoding ?? (isUtf8(bytes) ? 'utf-8' : 'windows-1252');
}

/**
 * Maps a UTF-8 offset into `source.text` (what parsers report) to the offset of the same
 * character in the file's bytes. Identity for UTF-8 without a byte order mark.
 */
export function sourceByteMap(source: DecodedSource): (utf8Offset: number) => number {
  const { text, encoding, bomBytes } = source;
  if (encoding === 'utf-8') return bomBytes === 0 ? (u) => u : (u) => u + bomBytes;
  const unit = encoding === 'windows-1252' ? 1 : 2;
  // utf8 offset → file offset at every character start; offsets inside a character map to its start.
  const widths: number[] = [];
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    widths.push(w);
    total += w;
    if (pair) i++;
  }
  const table = new Uint32Array(total + 1);
  let u = 0;
  let o = bomBytes;
  for (const w of widths) {
    table.fill(o, u, u + w);
    u += w;
    // A 4-byte UTF-8 character is a surrogate pair: two UTF-16 code units.
    o += unit * (w === 4 ? 2 : 1);
  }
  table[total] = o;
  return (offset) => table[Math.max(0, Math.min(offset, total))]!;
}
