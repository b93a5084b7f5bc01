import { describe, expect, it } from 'vitest';
import { globToRegExp } from '@ca/schema';
import { declaredTypes, typeMatches } from '../src/index.js';

describe('declared types read from signatures', () => {
  it('a language without a declared-type syntax: callables declare nothing, values only their return type', () => {
    // A registered language that brings no `DeclaredTypeSyntax` (a toy one): the signature is not read.
    expect(declaredTypes('function', undefined, 'run', 'def run(a: Money)', null)).toEqual([]);
    expect(declaredTypes('property', undefined, 'total', 'total: Money', null)).toEqual([]);
    expect(declaredTypes('property', undefined, 'total', 'total: Money', 'Money')).toEqual(['Money']);
  });

  it('parameters are split at top-level commas and handed to the syntax one by one', () => {
    // A syntax that takes a parameter's first word for its type: the store splits `(a b, c<d, e> f)`
    // into `a b` and ` c<d, e> f` (the comma inside <> does not split).
    const firstWord = { parameterType: (p: string) => p.trim().split(/\s+/)[0] ?? null, valueType: () => 'V' };
    expect(declaredTypes('method', firstWord, 'm', 'm(a b, c<d, e> f)', null)).toEqual(['a', 'c<d,']);
    expect(declaredTypes('field', firstWord, 'x', 'x', null)).toEqual(['V']);
    expect(declaredTypes('class', firstWord, 'C', 'class C', null)).toEqual([]);
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
