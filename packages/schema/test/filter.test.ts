import { describe, expect, it } from 'vitest';
import {
  andFilters,
  CaError,
  filterFromOptions,
  formatFilter,
  globLiteral,
  globProblem,
  globToLike,
  globToRegExp,
  gitignorePatternProblem,
  parseConfig,
  parseFilter,
  projectDisplayName,
} from '../src/index.js';

/** The error a bad filter throws: its code, message and 0-based position. */
function failure(expression: string): { code: string; message: string; position: unknown } {
  try {
    parseFilter(expression);
  } catch (e) {
    const err = e as CaError;
    return { code: err.code, message: err.message, position: err.context['position'] };
  }
  throw new Error(`"${expression}" parsed`);
}

describe('filter expressions', () => {
  it('parses every field into a term with its position', () => {
    expect(parseFilter('lang:cs')).toEqual({ op: 'term', field: 'lang', value: 'cs', position: 0 });
    expect(parseFilter('  kind:Method')).toEqual({ op: 'term', field: 'kind', value: 'method', position: 2 });
    expect(parseFilter('path:src/**/*.ts')).toEqual({ op: 'term', field: 'path', value: 'src/**/*.ts', position: 0 });
    expect(parseFilter('name:*Service')).toEqual({ op: 'term', field: 'name', value: '*Service', position: 0 });
    expect(parseFilter('package:@mono/core')).toEqual({ op: 'term', field: 'project', value: '@mono/core', position: 0 });
    expect(parseFilter('project:Acme.Core')).toEqual({ op: 'term', field: 'project', value: 'Acme.Core', position: 0 });
    expect(parseFilter('is:TEST')).toEqual({ op: 'term', field: 'is', value: 'test', position: 0 });
    expect(parseFilter('returns:IEnumerable')).toEqual({ op: 'term', field: 'returns', value: 'IEnumerable', position: 0 });
    expect(parseFilter('type:Money')).toEqual({ op: 'term', field: 'type', value: 'Money', position: 0 });
    expect(parseFilter('label:working')).toEqual({ op: 'term', field: 'label', value: 'working', position: 0 });
    // Aliases of languages: what people type.
    expect(parseFilter('language:typescript')).toEqual({ op: 'term', field: 'lang', value: 'ts', position: 0 });
    expect(parseFilter('lang:c#')).toEqual({ op: 'term', field: 'lang', value: 'cs', position: 0 });
  });

  it('binds not tighter than and, and tighter than or; parentheses override', () => {
    const t = (field: string, value: string, position: number) => ({ op: 'term', field, value, position });
    // a or b and not c  ==  a or (b and (not c))
    expect(parseFilter('lang:ts or kind:method and not is:test')).toEqual({
      op: 'or',
      args: [t('lang', 'ts', 0), { op: 'and', args: [t('kind', 'method', 11), { op: 'not', arg: t('is', 'test', 31) }] }],
    });
    // (a or b) and c
    expect(parseFilter('(lang:ts or lang:js) and kind:function')).toEqual({
      op: 'and',
      args: [{ op: 'or', args: [t('lang', 'ts', 1), t('lang', 'js', 12)] }, t('kind', 'function', 25)],
    });
    // Juxtaposition is `and`; keywords are case-insensitive.
    expect(parseFilter('lang:cs kind:method NOT is:test')).toEqual({
      op: 'and',
      args: [t('lang', 'cs', 0), t('kind', 'method', 8), { op: 'not', arg: t('is', 'test', 24) }],
    });
    expect(formatFilter(parseFilter('lang:ts or kind:method and not is:test'))).toBe('(lang:ts or (kind:method and not is:test))');
  });

  it('keeps a value\'s own parentheses and quoted values', () => {
    expect(parseFilter('(path:src/@(a|b)/**)')).toEqual({ op: 'term', field: 'path', value: 'src/@(a|b)/**', position: 1 });
    expect(parseFilter('name:"Foo Bar" and returns:\'Task<int>\'')).toEqual({
      op: 'and',
      args: [
        { op: 'term', field: 'name', value: 'Foo Bar', position: 0 },
        { op: 'term', field: 'returns', value: 'Task<int>', position: 19 },
      ],
    });
    expect(formatFilter(parseFilter('name:"Foo Bar"'))).toBe('name:"Foo Bar"');
  });

  it('reports malformed expressions with the column of the problem', () => {
    expect(failure('(lang:ts or kind:method')).toEqual({ code: 'invalid_query', message: 'invalid filter at column 1: unbalanced parentheses: this ( is never closed', position: 0 });
    expect(failure('lang:ts)')).toEqual({ code: 'invalid_query', message: 'invalid filter at column 8: unbalanced parentheses: this ) has no (', position: 7 });
    expect(failure('lang:ts and not')).toEqual({ code: 'invalid_query', message: 'invalid filter at column 13: "not" needs an operand, found the end of the filter', position: 12 });
    expect(failure('not )').message).toBe('invalid filter at column 1: "not" needs an operand, found ")"');
    expect(failure('lang:ts and')).toEqual({ code: 'invalid_query', message: 'invalid filter at column 9: "and" needs an operand on each side, found the end of the filter after it', position: 8 });
    expect(failure('or lang:ts').message).toBe('invalid filter at column 1: "or" needs an operand on each side');
    expect(failure('()').message).toBe('invalid filter at column 1: empty parentheses');
    expect(failure('   ').message).toBe('invalid filter at column 1: the filter is empty');
    expect(failure('lang:ts colour:red')).toEqual({
      code: 'invalid_query',
      message: 'invalid filter at column 9: unknown field "colour" (fields: lang, kind, path, name, project (package), is, returns, type, label)',
      position: 8,
    });
    expect(failure('retry').message).toBe('invalid filter at column 1: expected FIELD:VALUE, found "retry" (fields: lang, kind, path, name, project (package), is, returns, type, label)');
    expect(failure('lang:python').message).toBe('invalid filter at column 6: unknown language "python" (languages: ts, js, cs)');
    expect(failure('kind:methd').message.startsWith('invalid filter at column 6: unknown kind "methd" (kinds: file, project,')).toBe(true);
    expect(failure('is:private').message).toBe('invalid filter at column 4: unknown value "is:private" (is:test, is:generated, is:public)');
    expect(failure('name:').message).toBe('invalid filter at column 6: "name:" needs a value');
    expect(failure('name:"abc').message).toBe('invalid filter at column 6: unclosed quote "');
  });

  it('reports invalid globs at the character that is wrong', () => {
    // "kind:method and path:src/[unclosed": the [ is the 26th character.
    expect(failure('kind:method and path:src/[unclosed')).toEqual({
      code: 'invalid_query',
      message: 'invalid filter at column 26: invalid glob "src/[unclosed": unclosed character class [',
      position: 25,
    });
    expect(failure('name:a{b').message).toBe('invalid filter at column 7: invalid glob "a{b": unclosed {');
    expect(failure('name:ab}').message).toBe('invalid filter at column 8: invalid glob "ab}": unmatched }');
    expect(failure('path:[]x').message).toBe('invalid filter at column 6: invalid glob "[]x": empty character class');
    expect(failure('name:[z-a]').message).toBe('invalid filter at column 7: invalid glob "[z-a]": invalid range z-a in character class');
    expect(failure('name:ab\\').message).toBe('invalid filter at column 8: invalid glob "ab\\": a trailing \\ escapes nothing');
  });

  it('combines with the older options (languages ORed, kinds ORed, path), ANDed', () => {
    const legacy = filterFromOptions({ languages: ['ts', 'js'], kinds: ['class'], pathGlob: 'src/**' });
    expect(formatFilter(legacy!)).toBe('((lang:ts or lang:js) and kind:class and path:src/**)');
    expect(formatFilter(andFilters(legacy, parseFilter('not is:test'))!)).toBe('((lang:ts or lang:js) and kind:class and path:src/** and not is:test)');
    expect(filterFromOptions({})).toBeNull();
    expect(() => filterFromOptions({ pathGlob: 'src/[x' })).toThrow('invalid --path glob "src/[x": unclosed character class [ at column 5');
  });

  it('names projects as users type them', () => {
    expect(projectDisplayName('src/Polly.Core/Polly.Core.csproj')).toBe('Polly.Core');
    expect(projectDisplayName('Root.csproj')).toBe('Root');
    expect(projectDisplayName('@mono/core')).toBe('@mono/core');
    expect(projectDisplayName('')).toBeNull();
  });
});

describe('globs', () => {
  const matches = (glob: string, mode: 'path' | 'text', values: string[]) => values.filter((v) => globToRegExp(glob, mode).test(v));
  const PATHS = ['src/a.ts', 'src/auth/b.tsx', 'src/auth/deep/c.ts', 'lib/src/d.ts', 'e.tsx', 'tests/f.ts', 'src/authx/g.ts'];

  it('match paths the gitignore way', () => {
    // No slash: a file or folder name at any depth.
    expect(matches('*.tsx', 'path', PATHS)).toEqual(['src/auth/b.tsx', 'e.tsx']);
    expect(matches('tests', 'path', PATHS)).toEqual(['tests/f.ts']);
    expect(matches('src', 'path', PATHS)).toEqual(['src/a.ts', 'src/auth/b.tsx', 'src/auth/deep/c.ts', 'lib/src/d.ts', 'src/authx/g.ts']);
    // A slash anchors at the root; a folder selects what is under it; * stays in one segment.
    expect(matches('src/auth', 'path', PATHS)).toEqual(['src/auth/b.tsx', 'src/auth/deep/c.ts']);
    expect(matches('/src/*.ts', 'path', PATHS)).toEqual(['src/a.ts']);
    expect(matches('src/**/*.ts', 'path', PATHS)).toEqual(['src/a.ts', 'src/auth/deep/c.ts', 'src/authx/g.ts']);
    expect(matches('**/src/*.ts', 'path', PATHS)).toEqual(['src/a.ts', 'lib/src/d.ts']);
    expect(matches('src/auth{,x}/*', 'path', PATHS)).toEqual(['src/auth/b.tsx', 'src/auth/deep/c.ts', 'src/authx/g.ts']);
    expect(matches('src/[ab]*.ts', 'path', PATHS)).toEqual(['src/a.ts']);
    expect(matches('src/auth/', 'path', PATHS)).toEqual(['src/auth/b.tsx', 'src/auth/deep/c.ts']);
  });

  it('match names and types whole and case-insensitively', () => {
    const names = ['AuthService', 'AuthService.login', 'Billing.Invoice.total', 'authorize'];
    expect(matches('*service', 'text', names)).toEqual(['AuthService']);
    expect(matches('auth*', 'text', names)).toEqual(['AuthService', 'AuthService.login', 'authorize']);
    expect(matches('Billing.*', 'text', names)).toEqual(['Billing.Invoice.total']);
    expect(matches('?uthorize', 'text', names)).toEqual(['authorize']);
  });

  it('translate to SQL LIKE where they can, and name the literal every match contains', () => {
    expect(globToLike('*Service')).toEqual(['%Service']);
    expect(globToLike('get?tem_%')).toEqual(['get_tem\\_\\%']);
    expect(globToLike('{Auth,Token}*{Service,Store}')).toEqual(['Auth%Service', 'Auth%Store', 'Token%Service', 'Token%Store']);
    expect(globToLike('a\\*b')).toEqual(['a*b']);
    // Classes need a regular expression.
    expect(globToLike('[ab]*')).toBeNull();
    expect(globLiteral('Promise<*>')).toBe('Promise<');
    expect(globLiteral('*Enumer{a,b}ble*')).toBe('Enumer');
    expect(globLiteral('*')).toBe('');
  });

  it('check gitignore patterns (braces literal there)', () => {
    expect(gitignorePatternProblem('[unclosed')).toEqual({ message: 'unclosed character class [', offset: 0 });
    expect(gitignorePatternProblem('vendor/')).toBeNull();
    expect(gitignorePatternProblem('!keep/{a}.ts')).toBeNull();
    expect(globProblem('{a}')).toBeNull();
  });
});

describe('configuration globs', () => {
  it('an invalid pattern in indexing.exclude is a config error naming the key', () => {
    expect(() => parseConfig({ indexing: { exclude: ['vendor/', '[unclosed'] } }, 'config.json')).toThrow(
      'config.json: indexing.exclude.1: invalid glob "[unclosed": unclosed character class [ at column 1',
    );
    expect(() => parseConfig({ indexing: { include: ['src/**', 'a\\'] } })).toThrow('configuration: indexing.include.1: invalid glob "a\\\\": a trailing \\ escapes nothing at column 2');
    expect(parseConfig({ indexing: { keep: ['dist/keep.js'] } }).indexing.keep).toEqual(['dist/keep.js']);
  });
});
