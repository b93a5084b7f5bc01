import { describe, expect, it } from 'vitest';
import { decodeFile, decodeSource, detectEncoding, encodeText, sourceByteMap } from '../src/encoding.js';
import { seededRandom } from '../src/index.js';

describe('source encodings', () => {
  it('decodes the smart quotes, euro and undefined bytes of Windows-1252 (not as Latin-1)', () => {
    // 0x80 €, 0x91–0x94 ‘’“”, 0x81 undefined in cp1252 → U+0081 (WHATWG), 0xE9 é.
    const d = decodeSource(Buffer.from([0x80, 0x91, 0x92, 0x93, 0x94, 0x81, 0xe9]));
    expect(d).toEqual({ text: '€‘’“”\u0081é', encoding: 'windows-1252', bomBytes: 0 });
  });

  it('names each byte order mark; refuses UTF-16 of odd length or with an unpaired surrogate', () => {
    expect(detectEncoding(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ encoding: 'utf-8', bomBytes: 3 });
    expect(detectEncoding(Buffer.from([0xff, 0xfe, 0x61, 0x00]))).toEqual({ encoding: 'utf-16le', bomBytes: 2 });
    expect(detectEncoding(Buffer.from([0xfe, 0xff, 0x00, 0x61]))).toEqual({ encoding: 'utf-16be', bomBytes: 2 });
    expect(detectEncoding(Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x62]))).toBeNull();
    expect(detectEncoding(Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x61, 0x00]))).toBeNull();
  });

  it('any bytes without NUL decode and encode back to themselves (random files, 200 of them)', () => {
    const rand = seededRandom(7);
    for (let k = 0; k < 200; k++) {
      const bytes = Buffer.alloc(1 + Math.floor(rand() * 64));
      for (let i = 0; i < bytes.length; i++) bytes[i] = 1 + Math.floor(rand() * 255);
      // A quarter start with a UTF-16 byte order mark, most of them not decodable as UTF-16.
      if (k % 4 === 0 && bytes.length >= 2) bytes.set(k % 8 === 0 ? [0xff, 0xfe] : [0xfe, 0xff]);
      const { text, encoding } = decodeFile(bytes);
      expect(encodeText(text, encoding).equals(bytes), bytes.toString('hex')).toBe(true);
    }
  });

  it('maps UTF-8 offsets of the parsed text to the file’s bytes, character by character', () => {
    const rand = seededRandom(11);
    const chars = ['a', 'é', '€', '“', '\n', '𝒳'];
    for (const encoding of ['windows-1252', 'utf-16le', 'utf-16be'] as const) {
      for (let k = 0; k < 50; k++) {
        let text = '';
        for (let i = 0; i < 20; i++) {
          const c = chars[Math.floor(rand() * chars.length)]!;
          if (!(encoding === 'windows-1252' && c === '𝒳')) text += c;
        }
        const bom = encoding === 'windows-1252' ? '' : '\ufeff';
        const bytes = encodeText(bom + text, encoding);
        const source = decodeSource(bytes)!;
        expect(source.text).toBe(text);
        const at = sourceByteMap(source);
        // Every prefix of the text: its UTF-8 length maps to the length of its encoding in the file.
        for (let i = 0; i <= text.length; i++) {
          if (i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff) continue;
          const prefix = text.slice(0, i);
          expect(at(Buffer.byteLength(prefix, 'utf8'))).toBe(encodeText(bom + prefix, encoding).length);
        }
      }
    }
  });
});
