import { describe, expect, it } from 'vitest';
import { repoNames, splitQuery } from '../src/index.js';

describe('repoNames: a URL name per served repository', () => {
  it('is the directory name, with -2, -3 for repeats in --repo order', () => {
    expect(repoNames(['/w/web', '/x/web', '/w/api', '/y/web/'])).toEqual(['web', 'web-2', 'api', 'web-3']);
  });
});

describe('splitQuery: the query box as search words and filter terms', () => {
  it('moves field:value terms to the filter, ANDed, a leading - being not', () => {
    expect(splitQuery('formatDate kind:function -is:test')).toEqual({ text: 'formatDate', filter: 'kind:function and not is:test' });
  });
  it('keeps aliases (language:, package:) and leaves words with an unknown field as search text', () => {
    expect(splitQuery('retry language:cs package:Polly.Core')).toEqual({ text: 'retry', filter: 'language:cs and package:Polly.Core' });
    expect(splitQuery('  http://x  foo:bar ')).toEqual({ text: 'http://x foo:bar', filter: null });
  });
  it('a query of filter terms only has no search text (the API refuses it with a usage error)', () => {
    expect(splitQuery('kind:class')).toEqual({ text: '', filter: 'kind:class' });
  });
});
