import { describe, expect, it } from 'vitest';
import { declaredTypes } from '@ca/schema';
import { tsDeclaredTypes, tsModuleResolution } from '../src/index.js';

describe('TS/JS declared types (typescriptLanguage.declaredTypes)', () => {
  const DT = (kind: string, _language: string, name: string, signature: string, returnType: string | null) => declaredTypes(kind, tsDeclaredTypes, name, signature, returnType);
  it('TS/JS: parameter types of callables, declared types of properties and variables', () => {
    expect(DT('method', 'ts', 'login', 'async login(user: string, password: string): Promise<Session>', 'Promise<Session>')).toEqual(['string', 'string']);
    // Destructured props, a default, a parameter property, an arrow-typed callback and a rest parameter.
    expect(DT('component', 'ts', 'Button', "export function Button({ label, onClick, variant = 'primary' }: ButtonProps)", null)).toEqual(['ButtonProps']);
    expect(DT('constructor', 'ts', 'constructor', 'constructor(private readonly store: TokenStore = new MemoryTokenStore())', null)).toEqual(['TokenStore']);
    expect(DT('function', 'ts', 'on', 'function on(handler: (e: Event) => void, ...rest: Array<Map<string, number>>)', null)).toEqual(['(e: Event) => void', 'Array<Map<string, number>>']);
    // Untyped JS parameters declare nothing.
    expect(DT('function', 'js', 'retry', 'async function retry(fn, attempts = 3, delayMs = 200)', null)).toEqual([]);
    expect(DT('property', 'ts', 'currentUser', 'private currentUser: string | null = null', null)).toEqual(['string | null']);
    expect(DT('property', 'ts', 'onClick', 'onClick?: () => void', null)).toEqual(['() => void']);
    // Inferred types are not written anywhere: nothing to match.
    expect(DT('property', 'ts', 'failedAttempts', 'private failedAttempts = new Map<string, number>()', null)).toEqual([]);
    expect(DT('class', 'ts', 'AuthService', 'export class AuthService', null)).toEqual([]);
  });

});

describe('TS/JS module resolution (typescriptLanguage.moduleResolution)', () => {
  const EXTS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
  it('a path without an extension: each extension, then the index files, then the path as written', () => {
    expect(tsModuleResolution.candidates('src/util')).toEqual([...EXTS.map((e) => `src/util${e}`), ...EXTS.map((e) => `src/util/index${e}`), 'src/util']);
  });
  it('a NodeNext `.js` path: as written first, then with extensions appended, then the `.js` swapped, then index files', () => {
    expect(tsModuleResolution.candidates('src/x.js')).toEqual([
      'src/x.js',
      ...EXTS.map((e) => `src/x.js${e}`),
      ...EXTS.map((e) => `src/x${e}`),
      ...EXTS.map((e) => `src/x.js/index${e}`),
    ]);
  });
  it('another extension (`.css`) is tried as written first; no script extension comes off', () => {
    const c = tsModuleResolution.candidates('src/a.css');
    expect(c[0]).toBe('src/a.css');
    expect(c).toHaveLength(1 + 2 * EXTS.length);
  });
});
