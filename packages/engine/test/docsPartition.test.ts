/**
 * Documentation and configuration files live in a partition of their own (decision 039): a code
 * search — no `includeDocs`, no `kind:doc`/`kind:config` — reads what it read before Markdown,
 * JSON and YAML were indexed, with no filter. A differential: fixtures/ts-app (13 code files,
 * plus README.md, package.json and tsconfig.json) indexed once with the documentation language
 * and once without it; every query (each code symbol's name, and phrases some of which appear in
 * the README) must give the same results with the same scores, in the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_LANGUAGES, Engine } from '../src/index.js';
import { copyFixture, TS_APP } from './helpers.js';

// Parsed on the main thread: node ids (which break ties between equal BM25 scores) then follow
// the files' order in both indexes. With worker threads they follow completion order, which
// differs from run to run with or without documentation.
const options = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false }, indexing: { workers: 0 } } } as const;
let withDocs: Engine;
let codeOnly: Engine;
beforeAll(async () => {
  withDocs = Engine.open(copyFixture(TS_APP), options);
  codeOnly = Engine.open(copyFixture(TS_APP), { ...options, languages: BUILTIN_LANGUAGES.filter((l) => !l.languages.includes('markdown')) });
  await withDocs.index();
  await codeOnly.index();
}, 120_000);
afterAll(() => {
  withDocs?.close();
  codeOnly?.close();
});

/** What a user sees of a result (node ids differ: the documentation's nodes take ids too). */
const seen = (r: { path: string; qualifiedName: string; kind: string; startLine: number; endLine: number; score: number }) =>
  `${r.path}#${r.qualifiedName} ${r.kind} ${r.startLine}-${r.endLine} ${r.score}`;

describe('the documentation partition', () => {
  it('indexes the documentation files in one index and not in the other', () => {
    // README.md, package.json, tsconfig.json: the only Markdown/JSON files of fixtures/ts-app.
    expect(withDocs.status().files - codeOnly.status().files).toBe(3);
    expect(codeOnly.status().docs).toEqual({ files: {}, sections: 0, keys: 0 });
  });

  it('a code search gives the same answers, scores and notices with the documentation indexed', async () => {
    const names = [...new Set(codeOnly.find('lang:ts or lang:js', { limit: 500 }).results.map((r) => r.name))];
    // Words of the README (which describes every file) and of package.json / tsconfig.json.
    const phrases = ['stop charging this customer every month', 'ts-app fixture', 'react component button', 'strict module resolution', 'token refresh rate limiting', 'generated api client'];
    const queries = [...names, ...phrases];
    expect(names.length).toBeGreaterThan(40);
    for (const q of queries) {
      const a = await withDocs.search(q, { limit: 20 });
      const b = await codeOnly.search(q, { limit: 20 });
      expect({ q, results: a.results.map(seen), notices: a.notices, tokens: a.tokens }).toEqual({ q, results: b.results.map(seen), notices: b.notices, tokens: b.tokens });
    }
  });

  it('documentation comes in only when asked, and then the README section describing terminatePlan is found', async () => {
    const asked = await withDocs.search('stop charging this customer every month', { limit: 20, includeDocs: true });
    expect(asked.results.some((r) => r.path === 'README.md' && r.kind === 'doc')).toBe(true);
    const plain = await withDocs.search('stop charging this customer every month', { limit: 20 });
    expect(plain.results.filter((r) => ['README.md', 'package.json', 'tsconfig.json'].includes(r.path))).toEqual([]);
  });
});
