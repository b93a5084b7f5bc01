import { describe, expect, it } from 'vitest';
import { applyPreprocessor, DEFAULT_PREPROCESSOR_SYMBOLS, frameworkSymbols } from '../src/index.js';

const lines = (s: string): string[] => s.split('\n');

describe('applyPreprocessor', () => {
  it('keeps the active branch and blanks directives and inactive lines', () => {
    const src = ['a', '#if FOO', 'b', '#else', 'c', '#endif', 'd'].join('\n');
    const r = applyPreprocessor(src, new Set(['FOO']));
    expect(lines(r.text)).toEqual(['a', '       ', 'b', '     ', ' ', '      ', 'd']);
    expect(r.inactiveLines).toBe(1);
    expect(r.diagnostics).toEqual([]);
  });

  it('takes the first true #elif and skips the rest', () => {
    const src = ['#if A', 'x1', '#elif B', 'x2', '#elif C', 'x3', '#else', 'x4', '#endif'].join('\n');
    const kept = (syms: string[]): string[] =>
      lines(applyPreprocessor(src, new Set(syms)).text)
        .map((l) => l.trim())
        .filter(Boolean);
    expect(kept(['A', 'B'])).toEqual(['x1']);
    expect(kept(['B', 'C'])).toEqual(['x2']);
    expect(kept(['C'])).toEqual(['x3']);
    expect(kept([])).toEqual(['x4']);
  });

  it('evaluates nested conditions only inside active regions', () => {
    const src = ['#if A', '#if B', 'ab', '#else', 'a-not-b', '#endif', '#else', '#if B', 'b-only', '#endif', '#endif'].join('\n');
    const kept = (syms: string[]): string[] =>
      lines(applyPreprocessor(src, new Set(syms)).text)
        .map((l) => l.trim())
        .filter(Boolean);
    expect(kept(['A', 'B'])).toEqual(['ab']);
    expect(kept(['A'])).toEqual(['a-not-b']);
    expect(kept(['B'])).toEqual(['b-only']);
    expect(kept([])).toEqual([]);
  });

  it('supports !, &&, ||, ==, !=, parentheses, true/false and comments', () => {
    const on = (expr: string, syms: string[]): boolean =>
      applyPreprocessor(`#if ${expr}\nyes\n#endif`, new Set(syms)).text.includes('yes');
    expect(on('!A', [])).toBe(true);
    expect(on('A && B', ['A'])).toBe(false);
    expect(on('A || B', ['B'])).toBe(true);
    expect(on('A || B && C', ['A'])).toBe(true); // && binds tighter than ||
    expect(on('(A || B) && C', ['A'])).toBe(false);
    expect(on('A == B', [])).toBe(true);
    expect(on('A != B', ['A'])).toBe(true);
    expect(on('true', [])).toBe(true);
    expect(on('false || !(A && !B)', ['A'])).toBe(false);
    expect(on('DEBUG // only in debug builds', ['DEBUG'])).toBe(true);
    expect(on('!!A', ['A'])).toBe(true);
  });

  it('honours #define and #undef', () => {
    const src = ['#define LOCAL', '#undef TRACE', '#if LOCAL && !TRACE', 'hit', '#endif'].join('\n');
    const r = applyPreprocessor(src, new Set(['TRACE']));
    expect(r.text.includes('hit')).toBe(true);
    expect(lines(r.text).slice(0, 3).every((l) => l.trim() === '')).toBe(true);
  });

  it('keeps length, line count and CRLF line ends identical', () => {
    const src = 'class A {\r\n#if X\r\n  int é = 1; // ünïcode 🎉\r\n#endif\r\n}\r\n';
    const r = applyPreprocessor(src, new Set());
    expect(r.text.length).toBe(src.length);
    expect(r.text.split('\n').length).toBe(src.split('\n').length);
    expect(r.text.split('\r\n').length).toBe(src.split('\r\n').length);
    expect(r.text).toBe('class A {\r\n     \r\n' + ' '.repeat('  int é = 1; // ünïcode 🎉'.length) + '\r\n      \r\n}\r\n');
    expect(r.inactiveLines).toBe(1);
  });

  it('reports unbalanced directives and bad expressions', () => {
    const r = applyPreprocessor(['#endif', '#if (A', 'x', '#endif', '#if B'].join('\n'), new Set(['A']));
    expect(r.diagnostics.map((d) => `${d.code}@${d.line}`)).toEqual([
      'preprocessor_unbalanced@1',
      'preprocessor_expression@2',
      'preprocessor_unbalanced@5',
    ]);
  });

  it('returns the input unchanged when there is nothing to do', () => {
    const src = 'class A { }';
    expect(applyPreprocessor(src, new Set()).text).toBe(src);
  });
});

describe('frameworkSymbols', () => {
  it('net8.0', () => {
    expect(frameworkSymbols('net8.0')).toEqual([
      'NET',
      'NET8_0',
      'NET8_0_OR_GREATER',
      'NET7_0_OR_GREATER',
      'NET6_0_OR_GREATER',
      'NET5_0_OR_GREATER',
      'NETCOREAPP',
      'NETCOREAPP3_1_OR_GREATER',
      'NETCOREAPP3_0_OR_GREATER',
      'NETCOREAPP2_2_OR_GREATER',
      'NETCOREAPP2_1_OR_GREATER',
      'NETCOREAPP2_0_OR_GREATER',
      'NETCOREAPP1_1_OR_GREATER',
      'NETCOREAPP1_0_OR_GREATER',
    ]);
  });
  it('net6.0-windows adds the platform', () => {
    expect(frameworkSymbols('net6.0-windows')).toEqual([
      'NET',
      'NET6_0',
      'NET6_0_OR_GREATER',
      'NET5_0_OR_GREATER',
      'NETCOREAPP',
      'NETCOREAPP3_1_OR_GREATER',
      'NETCOREAPP3_0_OR_GREATER',
      'NETCOREAPP2_2_OR_GREATER',
      'NETCOREAPP2_1_OR_GREATER',
      'NETCOREAPP2_0_OR_GREATER',
      'NETCOREAPP1_1_OR_GREATER',
      'NETCOREAPP1_0_OR_GREATER',
      'WINDOWS',
    ]);
  });
  it('netstandard2.0, netcoreapp3.1, net472, unknown', () => {
    expect(frameworkSymbols('netstandard2.0')).toEqual([
      'NETSTANDARD',
      'NETSTANDARD2_0',
      'NETSTANDARD2_0_OR_GREATER',
      'NETSTANDARD1_6_OR_GREATER',
      'NETSTANDARD1_5_OR_GREATER',
      'NETSTANDARD1_4_OR_GREATER',
      'NETSTANDARD1_3_OR_GREATER',
      'NETSTANDARD1_2_OR_GREATER',
      'NETSTANDARD1_1_OR_GREATER',
      'NETSTANDARD1_0_OR_GREATER',
    ]);
    expect(frameworkSymbols('netcoreapp3.1')).toEqual([
      'NETCOREAPP',
      'NETCOREAPP3_1',
      'NETCOREAPP3_1_OR_GREATER',
      'NETCOREAPP3_0_OR_GREATER',
      'NETCOREAPP2_2_OR_GREATER',
      'NETCOREAPP2_1_OR_GREATER',
      'NETCOREAPP2_0_OR_GREATER',
      'NETCOREAPP1_1_OR_GREATER',
      'NETCOREAPP1_0_OR_GREATER',
    ]);
    expect(frameworkSymbols('net472')).toEqual([
      'NETFRAMEWORK',
      'NET472',
      'NET472_OR_GREATER',
      'NET471_OR_GREATER',
      'NET47_OR_GREATER',
      'NET462_OR_GREATER',
      'NET461_OR_GREATER',
      'NET46_OR_GREATER',
      'NET452_OR_GREATER',
      'NET451_OR_GREATER',
      'NET45_OR_GREATER',
      'NET40_OR_GREATER',
      'NET35_OR_GREATER',
      'NET20_OR_GREATER',
    ]);
    expect(frameworkSymbols('uap10.0')).toEqual([]);
  });
  it('default symbols are a Release build of net8.0 without DEBUG', () => {
    expect(DEFAULT_PREPROCESSOR_SYMBOLS).toEqual([...frameworkSymbols('net8.0'), 'RELEASE', 'TRACE']);
    expect(DEFAULT_PREPROCESSOR_SYMBOLS.includes('DEBUG')).toBe(false);
    expect(DEFAULT_PREPROCESSOR_SYMBOLS.includes('NETSTANDARD2_1_OR_GREATER')).toBe(false);
  });
});
