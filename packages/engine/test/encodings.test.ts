/**
 * Bytes are bytes (decision 025): files in every encoding the indexer reads — UTF-8, UTF-8 with
 * a byte order mark, Windows-1252 (anything not valid UTF-8), UTF-16 LE and BE with a byte order
 * mark — generated at random (identifiers and comment text with é, ß, €, smart quotes at random
 * places, LF or CRLF line ends), indexed, and checked symbol by symbol against what the generator
 * knows: where it put each function (lines) and its exact text.
 */
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBytes, encodeText, type TextEncodingName } from '@ca/schema';
import { Engine, textWindow } from '../src/index.js';
import { seededRandom, tempDir } from './helpers.js';


type FileEncoding = 'utf-8' | 'utf-8-bom' | 'windows-1252' | 'utf-16le' | 'utf-16be';
const ENCODINGS: readonly FileEncoding[] = ['utf-8', 'utf-8-bom', 'windows-1252', 'utf-16le', 'utf-16be'];

/** Characters every encoding here can hold (Windows-1252 is the narrowest): é ß ü Ö, €, the smart quotes of 0x91–0x94, the ellipsis. */
const TEXT_CHARS = 'abcdefghij XYZ 0123 éßüÖ€‘’“”…'.split('');
/** Identifier characters: letters, including non-ASCII letters both TypeScript and C# accept. */
const IDENT_CHARS = 'abcdefxyzQRSTéßüÖ'.split('');

/** One generated function: its unique name, exact text and 1-based lines. */
interface Planted {
  readonly name: string;
  readonly text: string;
  readonly startLine: number;
  readonly endLine: number;
}

interface Generated {
  readonly path: string;
  readonly encoding: FileEncoding;
  readonly bytes: Buffer;
  readonly planted: readonly Planted[];
}

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function words(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += pick(rand, TEXT_CHARS);
  return s.replace(/\*\//g, '* /');
}

/**
 * A file of `count` functions (TS) or methods (C#), each preceded by a blank line and a line
 * comment and holding a comment and a string literal with random non-ASCII characters. The
 * generator counts lines as it writes, so each function's lines are known without the parser.
 */
function generate(rand: () => number, lang: 'ts' | 'cs', encoding: FileEncoding, index: number): Generated {
  const eol = rand() < 0.5 ? '\r\n' : '\n';
  const planted: Planted[] = [];
  const lines: string[] = [];
  const path = lang === 'ts' ? `src/gen${index}.ts` : `src/Gen${index}.cs`;
  lines.push(`// ${words(rand, 12)}`);
  if (lang === 'cs') lines.push(`namespace Gen${index}`, '{', `  public class Holder${index}`, '  {');
  const count = 1 + Math.floor(rand() * 4);
  for (let f = 0; f < count; f++) {
    let name = `f${index}_${f}_`;
    for (let k = 0; k < 3; k++) name += pick(rand, IDENT_CHARS);
    lines.push('', `${lang === 'cs' ? '    ' : ''}// ${words(rand, 10)}`);
    const body =
      lang === 'ts'
        ? [`function ${name}(${words(rand, 0)}a: string): string {`, `  // ${words(rand, 15)}`, `  return a + "${words(rand, 8)}";`, '}']
        : [`    public static string ${name}(string a)`, '    {', `      /* ${words(rand, 15)} */`, `      return a + "${words(rand, 8)}";`, '    }'];
    const startLine = lines.length + 1;
    lines.push(...body);
    const text = (lang === 'cs' ? [body[0]!.trimStart(), ...body.slice(1)] : body).join(eol);
    planted.push({ name, text, startLine, endLine: lines.length });
  }
  if (lang === 'cs') lines.push('  }', '}');
  const content = lines.join(eol) + eol;
  return { path, encoding, bytes: encodeFile(content, encoding), planted };
}

function encodeFile(text: string, encoding: FileEncoding): Buffer {
  if (encoding === 'utf-8-bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return encodeText(`\ufeff${text}`, encoding);
  return encodeText(text, encoding);
}

/** The encoding a file's spans decode with: a UTF-8 byte order mark is still UTF-8. */
function textEncoding(encoding: FileEncoding): TextEncodingName {
  return encoding === 'utf-8-bom' ? 'utf-8' : encoding;
}

describe('files in every encoding (generated)', () => {
  for (const seed of [1, 2, 3]) {
    it(`indexes each symbol at its own bytes and lines, and views each file byte for byte (seed ${seed})`, async () => {
      const rand = seededRandom(seed);
      const repo = tempDir();
      mkdirSync(join(repo, 'src'));
      const files: Generated[] = [];
      let n = 0;
      for (const encoding of ENCODINGS) {
        for (const lang of ['ts', 'cs'] as const) {
          const g = generate(rand, lang, encoding, n++);
          // Windows-1252 must really be invalid UTF-8 for the test to mean anything: every
          // generated file holds a comment of random non-ASCII characters; make sure.
          if (encoding === 'windows-1252') expect(Buffer.from(decodeBytes(g.bytes, 'utf-8'), 'utf8').equals(g.bytes)).toBe(false);
          writeFileSync(join(repo, g.path), g.bytes);
          files.push(g);
        }
      }
      const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
      try {
        await engine.index();
        expect(engine.status().problems).toEqual([]);
        for (const g of files) {
          const onDisk = readFileSync(join(repo, g.path));
          const view = engine.view(g.path);
          expect(view.encoding, g.path).toBe(textEncoding(g.encoding));
          expect(encodeText(view.text, view.encoding).equals(onDisk), `${g.path} (${g.encoding}) viewed byte for byte`).toBe(true);
          for (const p of g.planted) {
            const { node, code, stale } = engine.source(p.name);
            const where = `${p.name} in ${g.path} (${g.encoding})`;
            expect(stale, where).toBe(false);
            expect([node.path, node.startLine, node.endLine], where).toEqual([g.path, p.startLine, p.endLine]);
            expect(code, where).toBe(p.text);
            expect(decodeBytes(onDisk.subarray(node.startByte, node.endByte), textEncoding(g.encoding)), where).toBe(p.text);
          }
        }
      } finally {
        engine.close();
      }
    });
  }
});

describe('a hand-written Windows-1252 file and a UTF-8 file with a byte order mark', () => {
  it('spans name the file’s own bytes, source decodes them, the parse is clean', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    // Line 1 is `// café “quoted” €` in Windows-1252: 6 + é + space + “ + 6 + ” + space + € + \n = 19 bytes.
    // latinOneFunction starts at byte 19; line 2 is 44 characters + \n (45 bytes, to 64); line 3
    // `  return "naïve";` is 17 one-byte characters + \n (18 bytes, to 82); `}` ends at 83.
    const latin = Buffer.from('// caf\xe9 \x93quoted\x94 \x80\nexport function latinOneFunction(): string {\n  return "na\xefve";\n}\n', 'latin1');
    writeFileSync(join(repo, 'src/latin.ts'), latin);
    // A UTF-8 byte order mark is 3 bytes: bomFunction's declaration starts at byte 3, not 0; it
    // is 39 (`export function bomFunction(): number {`) + 1 + 11 + 1 + 1 = 53 ASCII characters, so it ends at byte 56.
    writeFileSync(join(repo, 'src/bom.ts'), '\ufeffexport function bomFunction(): number {\n  return 1;\n}\n');
    const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      await engine.index();
      expect(engine.status().problems).toEqual([]);
      const l = engine.source('latinOneFunction');
      expect([l.node.startLine, l.node.endLine, l.node.startByte, l.node.endByte]).toEqual([2, 4, 19, 83]);
      expect(l.code).toBe('export function latinOneFunction(): string {\n  return "naïve";\n}');
      const b = engine.source('bomFunction');
      expect([b.node.startLine, b.node.endLine, b.node.startByte, b.node.endByte]).toEqual([1, 3, 3, 56]);
      expect(b.code).toBe('export function bomFunction(): number {\n  return 1;\n}');
      const view = engine.view('src/latin.ts');
      expect(view.encoding).toBe('windows-1252');
      expect(view.text).toBe('// café “quoted” €\nexport function latinOneFunction(): string {\n  return "naïve";\n}\n');
    } finally {
      engine.close();
    }
  });
});

describe('the TypeScript pass over files that are not UTF-8', () => {
  it('resolves calls in and out of a Windows-1252 file and a UTF-16 LE file exactly', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'tsconfig.json'), '{"compilerOptions":{"strict":true}}');
    // latin.ts (Windows-1252): line 1 a comment with é “ ” €, latinOne lines 2-4, latinTwo 6-8 calling latinOne on line 7.
    writeFileSync(
      join(repo, 'src/latin.ts'),
      Buffer.from('// caf\xe9 \x93q\x94 \x80\x80\x80\nexport function latinOne(a: string): string {\n  return a + "na\xefve";\n}\n\nexport function latinTwo(): string {\n  return latinOne("\xe9");\n}\n', 'latin1'),
    );
    // u16.ts (UTF-16 LE with a byte order mark): user, lines 3-5, calls both on line 4.
    writeFileSync(join(repo, 'src/u16.ts'), encodeText('\ufeffimport { latinOne, latinTwo } from "./latin";\n// é€\nexport function user(): string {\n  return latinOne("x") + latinTwo();\n}\n', 'utf-16le'));
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    try {
      await engine.index();
      expect(engine.status().problems).toEqual([]);
      const callers = (name: string) => engine.navigate('callers', name).edges.map((e) => `${e.path}:${e.line} ${e.confidence}`);
      expect(callers('latinOne')).toEqual(['src/latin.ts:7 exact', 'src/u16.ts:4 exact']);
      expect(callers('latinTwo')).toEqual(['src/u16.ts:4 exact']);
      expect(engine.source('user').code).toBe('export function user(): string {\n  return latinOne("x") + latinTwo();\n}');
    } finally {
      engine.close();
    }
  });
});

describe('read_file (textWindow) on a Windows-1252 file', () => {
  it('returns the decoded lines, not replacement characters', () => {
    // Two lines: `// café €` and `const s = "“q”";` in Windows-1252 (0xE9, 0x80, 0x93, 0x94), one
    // byte a character: 9 + CRLF = 11 bytes, then 16 + CRLF = 18 bytes; 29 in all.
    const bytes = Buffer.from('// caf\xe9 \x80\r\nconst s = "\x93q\x94";\r\n', 'latin1');
    const w = textWindow('src/a.ts', bytes, { startLine: 2 });
    expect([w.totalLines, w.startLine, w.endLine, w.content, w.size]).toEqual([2, 2, 2, 'const s = "“q”";', 29]);
  });
});
