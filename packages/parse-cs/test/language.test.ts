import { describe, expect, it } from 'vitest';
import { declaredTypes } from '@ca/schema';
import { csDeclaredTypes, csharpLanguage } from '../src/index.js';

describe('C# declared types (csharpLanguage.declaredTypes)', () => {
  const DT = (kind: string, _language: string, name: string, signature: string, returnType: string | null) => declaredTypes(kind, csDeclaredTypes, name, signature, returnType);
  it('C#: parameter types after attributes and modifiers; member types from the return type', () => {
    expect(DT('method', 'cs', 'ExecuteAsync', 'public async Task<T> ExecuteAsync<T>(Func<CancellationToken, Task<T>> action, CancellationToken cancellationToken)', 'Task<T>')).toEqual([
      'Func<CancellationToken, Task<T>>',
      'CancellationToken',
    ]);
    expect(DT('method', 'cs', 'Slugify', 'public static string Slugify(this string s)', 'string')).toEqual(['string']);
    expect(DT('method', 'cs', 'Parse', 'public bool Parse([NotNull] ref int? value, out string error, params object[] args)', 'bool')).toEqual(['int?', 'string', 'object[]']);
    // A tuple return type before the name is not taken for the parameter list.
    expect(DT('method', 'cs', 'Pair', 'public (int, string) Pair(Money amount = default)', '(int, string)')).toEqual(['Money']);
    expect(DT('property', 'cs', 'Tags', 'public IReadOnlyList<string> Tags', 'IReadOnlyList<string>')).toEqual(['IReadOnlyList<string>']);
  });

  it('a value declares its type through its return type only (the signature is not read)', () => {
    expect(DT('field', 'cs', 'count', 'private int count', null)).toEqual([]);
  });
});

describe('C# name equivalences and project files', () => {
  it('an attribute class is also used by its short name', () => {
    expect(csharpLanguage.nameEquivalents!('ObsoleteAttribute')).toEqual(['Obsolete']);
    // `Attribute` alone has no shorter name; other names have none.
    expect(csharpLanguage.nameEquivalents!('Attribute')).toEqual([]);
    expect(csharpLanguage.nameEquivalents!('Invoice')).toEqual([]);
  });
  it('`.csproj` files (any case) are its project files', () => {
    expect(['src/App/App.csproj', 'B.CSPROJ', 'x.sln', 'Directory.Build.props'].map((p) => csharpLanguage.isProjectFile!(p))).toEqual([true, true, false, false]);
  });
});
