import { formatEndpointSignature, parseEndpointSignature, seededRandom } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { combineTemplates, normalizeTemplate, replaceTokens } from '../src/endpoints/template.js';

describe('normalizeTemplate', () => {
  it.each([
    ['api/orders/{id:int}', '/api/orders/{id}'],
    ['/API/Orders/', '/api/orders'],
    ['~/api//orders', '/api/orders'],
    ['', '/'],
    ['/', '/'],
    ['{id=5}', '/{id}'],
    ['{id:int=5}', '/{id}'],
    ['{id?}', '/{id?}'],
    ['{id:int?}', '/{id?}'],
    ['{id:regex(^\\d{{3}}$)}', '/{id}'],
    ['{id:regex(a=b)?}', '/{id?}'],
    ['files/{*path}', '/files/{*path}'],
    ['files/{**path:nonfile}', '/files/{*path}'],
    ['{Year:int:min(2000)}/Report-{Month}', '/{Year}/report-{Month}'],
    ['a {{literal}} b', '/a%20{{literal}}%20b'],
  ])('%j → %j', (raw, expected) => {
    expect(normalizeTemplate(raw)).toEqual({ template: expected, problem: null });
  });

  it('unbalanced braces keep the text and say so', () => {
    expect(normalizeTemplate('api/{id')).toEqual({ template: '/api/{id', problem: 'unbalanced brace in route template "api/{id"' });
    expect(normalizeTemplate('api/id}')).toEqual({ template: '/api/id}', problem: 'unbalanced brace in route template "api/id}"' });
    expect(normalizeTemplate('{a{b}}')).toEqual({ template: '/{a{b}}', problem: 'unbalanced brace in route template "{a{b}}"' });
  });

  it('property: over generated templates it never throws, is idempotent and well formed', () => {
    const rand = seededRandom(31);
    const pieces = ['/', '//', 'api', 'Orders', '{', '}', '{{', '}}', '{id}', '{id:int}', '{id?}', '{*rest}', '{x=1}', ':', '=', '?', '*', '~', ' ', '(', ')', 'é', '[controller]', '%20'];
    for (let k = 0; k < 3000; k++) {
      let raw = '';
      const n = Math.floor(rand() * 12);
      for (let i = 0; i < n; i++) raw += pieces[Math.floor(rand() * pieces.length)];
      const once = normalizeTemplate(raw);
      expect(once.template.startsWith('/'), raw).toBe(true);
      expect(once.template.includes('//'), raw).toBe(false);
      expect(once.template === '/' || !once.template.endsWith('/'), raw).toBe(true);
      expect(/\s/.test(once.template), raw).toBe(false);
      // Normalising the normal form changes nothing (and finds the same problem, if any).
      const twice = normalizeTemplate(once.template);
      expect(twice.template, raw).toBe(once.template);
      expect(twice.problem === null, raw).toBe(once.problem === null);
      // The signature carrying it parses back.
      const sig = formatEndpointSignature({ method: 'GET', template: once.template, params: [], approximate: once.problem });
      expect(parseEndpointSignature(sig), raw).toEqual({ method: 'GET', template: once.template, params: [], approximate: once.problem });
    }
  });
});

describe('combining and tokens', () => {
  it('an action template is appended to the prefix unless rooted', () => {
    expect(combineTemplates('api/[controller]', '{id}')).toBe('api/[controller]/{id}');
    expect(combineTemplates('api/[controller]', '')).toBe('api/[controller]');
    expect(combineTemplates('api/[controller]', '/health')).toBe('/health');
    expect(combineTemplates('api/[controller]', '~/health')).toBe('~/health');
    expect(combineTemplates('', 'x')).toBe('x');
  });

  it('tokens are replaced case-insensitively; [[ ]] are escapes; a missing value is reported', () => {
    expect(replaceTokens('[Area]/[controller]/[action]', { area: 'Admin', controller: 'Reports', action: 'Get' })).toEqual({ text: 'Admin/Reports/Get', missing: [] });
    expect(replaceTokens('a[[b]]/[area]', { area: null })).toEqual({ text: 'a[b]/[area]', missing: ['area'] });
  });
});
