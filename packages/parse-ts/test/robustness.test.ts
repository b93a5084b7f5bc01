import { describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { adapter, byQName, parseText } from './helpers.js';

describe('bad input', () => {
  it('10,000 nested brackets: no crash, partial or error with a diagnostic', async () => {
    const text = `const x = ${'['.repeat(10_000)}1${']'.repeat(5_000)};\nexport function after() { return 1; }\n`;
    const index = await parseText('src/deep.ts', text);
    expect(['partial', 'error']).toContain(index.parseStatus);
    expect(index.diagnostics.length).toBe(1);
    expect(['syntax_error', 'parse_failed', 'parse_timeout']).toContain(index.diagnostics[0]!.code);
    expect(index.nodes[0]!.kind).toBe('file');
  });

  it('10,000 balanced nested brackets and parentheses parse without stack overflow', async () => {
    const text = `export const x = ${'['.repeat(10_000)}${']'.repeat(10_000)};\nexport const y = ${'('.repeat(10_000)}1${')'.repeat(10_000)};\n`;
    const index = await parseText('src/deep-ok.js', text);
    expect(index.nodes.map((n) => `${n.kind} ${n.name}`)).toEqual(['file deep-ok.js', 'variable x', 'variable y']);
  });

  it('5 MB single-line minified JS with a tiny deadline: error/parse_timeout, adapter still usable', async () => {
    const unit = 'var a=function(b,c){return b+c*(d||e)[f]};';
    const text = unit.repeat(Math.ceil(5_000_000 / unit.length));
    const index = await parseText('dist/bundle.min.js', text, 5);
    expect(index.parseStatus).toBe('error');
    expect(index.diagnostics.map((d) => d.code)).toEqual(['parse_timeout']);
    expect(index.nodes.map((n) => n.kind)).toEqual(['file']);
    expect(index.edges).toEqual([]);
    // The cancelled parse must not leak into the next file parsed by the same parser.
    const next = await parseText('src/next.js', 'export function ok() {}\n');
    expect(next.parseStatus).toBe('ok');
    expect(next.nodes.map((n) => n.name)).toEqual(['next.js', 'ok']);
  });

  it('empty file', async () => {
    const index = await parseText('src/empty.ts', '');
    expect(index.parseStatus).toBe('ok');
    expect(index.lineCount).toBe(0);
    expect(index.nodes).toHaveLength(1);
    expect(index.nodes[0]!.span).toEqual({ startLine: 1, endLine: 1, startByte: 0, endByte: 0 });
    expect(index.nodes[0]!.chunkText).toBe('');
    expect(index.edges).toEqual([]);
  });

  it('file with only a BOM', async () => {
    const index = await parseText('src/bom.ts', '\ufeff');
    expect(index.nodes).toHaveLength(1);
    expect(index.nodes[0]!.span.endByte).toBe(3);
    expect(index.lineCount).toBe(1);
  });

  it('BOM, non-ASCII identifiers, emoji and lone surrogates before a symbol keep UTF-8 byte offsets right', async () => {
    const text =
      '\ufeff// Überprüfung — 日本語 😀\n' +
      "const größe = '€ \ud800 lone, \udc00 low, 🎉';\n" +
      '/** Grüße. */\n' +
      'export function grüßen(名前: string): string {\n  return `Hallo ${名前} 👋`;\n}\n' +
      'export class Café { über(): void {} }\n';
    const index = await parseText('src/unicode.ts', text);
    expect(index.parseStatus).toBe('ok');
    const buf = Buffer.from(text);
    const fn = byQName(index, 'grüßen');
    expect(fn.doc).toBe('Grüße.');
    expect(fn.span.startLine).toBe(4);
    const fnText = buf.subarray(fn.span.startByte, fn.span.endByte).toString();
    expect(fnText.startsWith('export function grüßen(名前: string): string {')).toBe(true);
    expect(fnText.endsWith('👋`;\n}')).toBe(true);
    const method = byQName(index, 'Café.über');
    expect(buf.subarray(method.span.startByte, method.span.endByte).toString()).toBe('über(): void {}');
    expect(index.nodes[0]!.span.endByte).toBe(buf.length);
  });
});

describe('adapter surface', () => {
  it('extensions and languages', async () => {
    const a = await adapter();
    expect(a.id).toBe('ts');
    expect(a.extensions).toEqual(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
    expect(['a.ts', 'a.d.ts', 'a.tsx', 'a.mts', 'a.cts', 'a.js', 'a.jsx', 'a.mjs', 'a.cjs', 'a.cs', 'Makefile'].map((p) => a.languageOf(p))).toEqual([
      'ts', 'ts', 'ts', 'ts', 'ts', 'js', 'js', 'js', 'js', null, null,
    ]);
    expect(() => a.parse({ path: 'a.cs', text: '' })).toThrow(CaError);
  });

  it('.jsx parses JSX with the JS grammar; .ts does not treat <T> casts as JSX', async () => {
    const jsx = await parseText('src/a.jsx', 'export const A = () => <div><B /></div>;\n');
    expect([jsx.language, jsx.parseStatus, jsx.nodes[1]!.kind]).toEqual(['js', 'ok', 'component']);
    const ts = await parseText('src/a.ts', 'export const n = <number>value;\n');
    expect([ts.language, ts.parseStatus, ts.nodes[1]!.kind]).toEqual(['ts', 'ok', 'variable']);
  });

  it('decorators are part of the span but not the signature; repeated keys get disambiguators', async () => {
    const index = await parseText(
      'src/dec.ts',
      '/** Service. */\n@Injectable()\nexport class Svc {\n  @Get(\'/a\')\n  handle(): void {}\n}\nfunction f(): void {}\nfunction f(): void {}\n',
    );
    const svc = byQName(index, 'Svc');
    expect([svc.span.startLine, svc.signature, svc.doc, svc.attributes]).toEqual([2, 'export class Svc', 'Service.', ['Injectable()']]);
    const handle = byQName(index, 'Svc.handle');
    expect([handle.span.startLine, handle.signature, handle.attributes]).toEqual([4, 'handle(): void', ["Get('/a')"]]);
    expect(index.nodes.filter((n) => n.name === 'f').map((n) => n.disambiguator)).toEqual([0, 1]);
  });
});

// Every adapter loaded the three grammars again, and each load takes entries of the runtime's
// one function table for good: a process creating adapters over and over (the differential long
// run opens two engines a step) died at step 336 of pmndrs/zustand with `RuntimeError: table index
// is out of bounds` in `new Parser()`. The grammars are loaded once per thread now.
describe('many adapters in one thread', () => {
  it('2,500 TS parsers created and disposed one after another all parse', async () => {
    const { createTsParser } = await import('../src/index.js');
    let parsed = 0;
    for (let i = 0; i < 2500; i++) {
      const parser = await createTsParser();
      const index = parser.parseAs({ path: `src/a${i}.ts`, text: `export const a${i} = ${i};\n` }, { grammar: 'typescript', language: 'ts' });
      if (index.nodes.some((n) => n.name === `a${i}`)) parsed++;
      parser.dispose();
    }
    expect(parsed).toBe(2500);
  }, 600_000);
});
