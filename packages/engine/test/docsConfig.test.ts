/**
 * Non-code files (issue 31): fixtures/docs-config indexed by the engine. Markdown sections and
 * JSON/YAML keys are stored as `doc` / `config` nodes, left out of search unless asked for,
 * counted by `status`; secrets and malformed files are listed with their reasons; a .vue
 * component's symbol reads back as its exact bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { copyFixture, REPO_ROOT } from './helpers.js';
import { join } from 'node:path';

let engine: Engine;
beforeAll(async () => {
  const repo = copyFixture(join(REPO_ROOT, 'fixtures', 'docs-config'));
  engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
  await engine.index();
}, 120_000);
afterAll(() => engine?.close());

const DOC_LANGUAGES = ['markdown', 'json', 'yaml'];
const where = (r: { path: string; qualifiedName: string }) => `${r.path}#${r.qualifiedName}`;

describe('documentation and configuration in search', () => {
  it('leaves sections, keys and documentation files out by default, and only them', async () => {
    const code = await engine.search('payment provider', { limit: 50 });
    const all = await engine.search('payment provider', { limit: 50, includeDocs: true });
    expect(code.results.length).toBeGreaterThan(0);
    for (const r of code.results) {
      expect(['doc', 'config']).not.toContain(r.kind);
      expect(DOC_LANGUAGES).not.toContain(r.language);
    }
    // The code results are the same symbols either way (documentation joins, it does not replace).
    const codeOf = (rs: typeof all.results) => rs.filter((r) => !DOC_LANGUAGES.includes(r.language)).map(where).sort();
    expect(codeOf(all.results)).toEqual(code.results.map(where).sort());
    expect(all.results.some((r) => r.kind === 'config')).toBe(true);
  });

  it('kind:config finds exactly the keys whose text says Payment', async () => {
    const r = await engine.search('Payment', { limit: 50, filter: 'kind:config' });
    // appsettings.json: Payment, Payment:Provider, Payment:Retries (their chunks start "Payment…");
    // appsettings.Development.json: Payment, Payment:Provider. No YAML key mentions it.
    expect(r.results.map(where).sort()).toEqual([
      'src/Shop/appsettings.Development.json#Payment',
      'src/Shop/appsettings.Development.json#Payment:Provider',
      'src/Shop/appsettings.json#Payment',
      'src/Shop/appsettings.json#Payment:Provider',
      'src/Shop/appsettings.json#Payment:Retries',
    ]);
  });

  it('kind:doc finds the Markdown section by its own text', async () => {
    // "Run the installer." is in Guide > Install only (Guide's chunk stops at its first subsection).
    const r = await engine.search('installer', { limit: 10, kinds: ['doc'] });
    expect(r.results.map((x) => [x.qualifiedName, x.startLine, x.endLine])).toEqual([['Guide > Install', 6, 12]]);
  });
});

describe('documentation and configuration in find', () => {
  it('lists keys only when the filter names their kind', () => {
    // name:Payment* — code: the class PaymentOptions (its properties are Provider and Retries);
    // configuration: a key's name is its path, so Payment and Payment:Provider of both appsettings
    // files, and Payment:Retries of appsettings.json.
    expect(engine.find('name:Payment*').results.map(where)).toEqual(['src/Shop/PaymentOptions.cs#Shop.PaymentOptions']);
    expect(engine.find('name:Payment* and kind:config').results.map(where)).toEqual([
      'src/Shop/appsettings.Development.json#Payment',
      'src/Shop/appsettings.Development.json#Payment:Provider',
      'src/Shop/appsettings.json#Payment',
      'src/Shop/appsettings.json#Payment:Provider',
      'src/Shop/appsettings.json#Payment:Retries',
    ]);
  });
});

describe('status and bad input', () => {
  it('counts documentation files, sections and keys, and lists skipped and malformed files with reasons', () => {
    const s = engine.status();
    // JSON: two appsettings + broken.json; YAML: service.yaml + broken.yaml. Sections: README's 5.
    // Keys: appsettings.json 10 (its leaves: Logging:LogLevel:Default and …:Microsoft.AspNetCore
    // too, decision 048), appsettings.Development.json 2, service.yaml 6, broken.yaml 2, broken.json 1 = 21.
    expect(s.docs).toEqual({ files: { json: 3, markdown: 1, yaml: 2 }, sections: 5, keys: 21 });
    expect(s.problems).toEqual([
      { path: '.env', status: 'skipped', reason: 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow' },
      { path: 'deploy/broken.json', status: 'partial', reason: 'malformed JSON at line 4: expected ], found }' },
      { path: 'deploy/broken.yaml', status: 'partial', reason: 'malformed YAML at line 3: expected "key:" at column 1, found "this line has no colon"' },
      { path: 'deploy/server.pem', status: 'skipped', reason: 'secret file (named like credentials or keys): not indexed; see indexing.index_secrets and indexing.secret_allow' },
    ]);
    // Sections and keys are not code symbols: PaymentOptions (namespace, class, two properties),
    // Counter.vue's increment, Hello.svelte's name and greet.
    expect(s.symbols).toBe(7);
  });

  it('a .vue symbol reads back as its bytes in the component', () => {
    const { node, code } = engine.source('increment');
    expect([node.path, node.startLine, node.endLine, code]).toEqual(['web/Counter.vue', 10, 12, 'function increment(step: number = 1): void {\n  count.value += step;\n}']);
  });
});
