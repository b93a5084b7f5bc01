import { describe, expect, it } from 'vitest';
import { globToRegExp } from '@ca/schema';
import { declaredTypes, typeMatches } from '../src/index.js';

describe('declared types read from signatures', () => {
  it('TS/JS: parameter types of callables, declared types of properties and variables', () => {
    expect(declaredTypes('method', 'ts', 'login', 'async login(user: string, password: string): Promise<Session>', 'Promise<Session>')).toEqual(['string', 'string']);
    // Destructured props, a default, a parameter property, an arrow-typed callback and a rest parameter.
    expect(declaredTypes('component', 'ts', 'Button', "export function Button({ label, onClick, variant = 'primary' }: ButtonProps)", null)).toEqual(['ButtonProps']);
    expect(declaredTypes('constructor', 'ts', 'constructor', 'constructor(private readonly store: TokenStore = new MemoryTokenStore())', null)).toEqual(['TokenStore']);
    expect(declaredTypes('function', 'ts', 'on', 'function on(handler: (e: Event) => void, ...rest: Array<Map<string, number>>)', null)).toEqual(['(e: Event) => void', 'Array<Map<string, number>>']);
    // Untyped JS parameters declare nothing.
    expect(declaredTypes('function', 'js', 'retry', 'async function retry(fn, attempts = 3, delayMs = 200)', null)).toEqual([]);
    expect(declaredTypes('property', 'ts', 'currentUser', 'private currentUser: string | null = null', null)).toEqual(['string | null']);
    expect(declaredTypes('property', 'ts', 'onClick', 'onClick?: () => void', null)).toEqual(['() => void']);
    // Inferred types are not written anywhere: nothing to match.
    expect(declaredTypes('property', 'ts', 'failedAttempts', 'private failedAttempts = new Map<string, number>()', null)).toEqual([]);
    expect(declaredTypes('class', 'ts', 'AuthService', 'export class AuthService', null)).toEqual([]);
  });

  it('C#: parameter types after attributes and modifiers; member types from the return type', () => {
    expect(declaredTypes('method', 'cs', 'ExecuteAsync', 'public async Task<T> ExecuteAsync<T>(Func<CancellationToken, Task<T>> action, CancellationToken cancellationToken)', 'Task<T>')).toEqual([
      'Func<CancellationToken, Task<T>>',
      'CancellationToken',
    ]);
    expect(declaredTypes('method', 'cs', 'Slugify', 'public static string Slugify(this string s)', 'string')).toEqual(['string']);
    expect(declaredTypes('method', 'cs', 'Parse', 'public bool Parse([NotNull] ref int? value, out string error, params object[] args)', 'bool')).toEqual(['int?', 'string', 'object[]']);
    // A tuple return type before the name is not taken for the parameter list.
    expect(declaredTypes('method', 'cs', 'Pair', 'public (int, string) Pair(Money amount = default)', '(int, string)')).toEqual(['Money']);
    expect(declaredTypes('property', 'cs', 'Tags', 'public IReadOnlyList<string> Tags', 'IReadOnlyList<string>')).toEqual(['IReadOnlyList<string>']);
  });

  it('a glob matches the whole type or a type name in it', () => {
    const m = (glob: string, type: string) => typeMatches(globToRegExp(glob, 'text'), type);
    expect(m('Task', 'Task<int>')).toBe(true);
    expect(m('int', 'Task<int>')).toBe(true);
    expect(m('Ta', 'Task<int>')).toBe(false);
    expect(m('Invoice', 'Billing.Invoice[]')).toBe(true);
    expect(m('Billing.Invoice', 'Billing.Invoice[]')).toBe(true);
    expect(m('Promise<*>', 'Promise<void>')).toBe(true);
    expect(m('ienumerable*', 'IEnumerable<string>')).toBe(true);
  });
});
