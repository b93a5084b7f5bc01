import type { NodeRecord } from '@ca/store';
import { describe, expect, it } from 'vitest';
import { extractFeatures, FEATURE_NAMES, featureQuery, RANKER_FORMAT, stem, withinOneEdit, type FeatureCandidate } from '../src/index.js';
import { rerank, type RerankItem } from '../src/rerank.js';

/** A node with the fields the features read; the rest neutral. */
function node(over: Partial<NodeRecord> & Pick<NodeRecord, 'id' | 'name' | 'qualifiedName' | 'kind' | 'path'>): NodeRecord {
  return {
    fileId: 1,
    parentId: null,
    language: 'ts',
    symbolKey: over.qualifiedName,
    project: '',
    startLine: 1,
    endLine: 1,
    startByte: 0,
    endByte: 0,
    signature: '',
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    generated: false,
    chunkText: '',
    chunkHash: '',
    parseStatus: 'ok',
    semanticState: 'ok',
    referenceCount: null,
    ...over,
  };
}

// The fixture: a class and its method in one file, and a generated test helper elsewhere.
const CLASS = node({ id: 1, name: 'UserValidator', qualifiedName: 'UserValidator', kind: 'class', path: 'src/users/userValidator.ts', startLine: 1, endLine: 40, chunkText: 'export class UserValidator { }' });
const METHOD = node({
  id: 2,
  parentId: 1,
  name: 'validateEmail',
  qualifiedName: 'UserValidator.validateEmail',
  kind: 'method',
  path: 'src/users/userValidator.ts',
  startLine: 10,
  endLine: 19,
  isPublicApi: true,
  doc: 'Checks an email address.',
  chunkText: 'validateEmail(email: string): boolean { return EMAIL.test(email); }',
});
const HELPER = node({ id: 3, name: 'checkAddress', qualifiedName: 'checkAddress', kind: 'function', path: 'src/__tests__/address.test.ts', startLine: 5, endLine: 5, generated: true, semanticState: 'syntactic', chunkText: 'function checkAddress() {}' });

const candidates: FeatureCandidate[] = [
  { key: 2, node: METHOD, fused: 0.05, ranks: { bm25: 1, vector: 2 }, exact: false, named: false, hub: false, callerFiles: 3 },
  { key: 1, node: CLASS, fused: 0.01, ranks: { bm25: 2 }, exact: false, named: false, hub: false, callerFiles: 0 },
  { key: 3, node: HELPER, fused: 0.025, ranks: { vector: 1 }, exact: false, named: false, hub: true, callerFiles: 0 },
];
const context = { bm25: new Map([[2, 8], [1, 4]]), cosine: new Map([[2, 0.6], [3, 0.7]]) };
const byName = (x: readonly number[]) => Object.fromEntries(FEATURE_NAMES.map((n, i) => [n, x[i]]));

describe('learned-ranker features', () => {
  it('the query: content words of every token split, stop words out; stems', () => {
    const q = featureQuery('validate the email address of a user', false, false);
    expect(q.words).toEqual(['validate', 'email', 'address', 'user']);
    expect([...q.stems]).toEqual(['validat', 'email', 'address', 'user']);
    expect(q.long).toBe(false);
    expect(['validation', 'validators', 'validate', 'addresses', 'address', 'queries', 'parsing', 'use'].map(stem)).toEqual([
      'validat',
      'validat',
      'validat',
      'address',
      'address',
      'query',
      'pars',
      'use',
    ]);
    expect([withinOneEdit('email', 'emails'), withinOneEdit('validator', 'validate'), withinOneEdit('parse', 'parsr'), withinOneEdit('abc', 'cab')]).toEqual([true, false, true, false]);
  });

  it('exact values on the fixture (derivations in the comments)', () => {
    const q = featureQuery('validate the email address of a user', false, false);
    // Query words: validate, email, address, user (stems validat, email, address, user).
    const [method, klass, helper] = extractFeatures(candidates, q, context).map(byName);
    expect(method).toEqual({
      rrf: 3, // 0.05 × 60
      name_rr: 0,
      bm25_rr: 1,
      vector_rr: 0.5,
      graph_rr: 0,
      bm25_rel: 1, // 8 / best 8
      cosine: 0.6,
      exact_qname: 0,
      named: 0,
      name_cover: 1, // validate, email both in the query
      query_cover: 0.5, // validate, email of 4 query words
      stem_cover: 1,
      fuzzy_cover: 1, // both 5+ letters and equal to a query word
      qname_cover: 1, // container UserValidator: user (word), validator (stem validat)
      path_cover: 1, // file name userValidator: the same two words
      package_cover: 0, // no package
      doc_cover: 0.5, // email, address of 4 in "Checks an email address." (stems validat, user absent)
      body_cover: 0.5, // validat, email in the code (address, user absent)
      is_type: 0,
      is_callable: 1,
      is_file: 0,
      log_lines: Math.log(11), // lines 10–19: 10 lines, log(1 + 10)
      public_api: 1,
      log_caller_files: Math.log(4),
      is_test: 0,
      is_test_about_tests: 0,
      generated: 0,
      syntactic_only: 0,
      hub: 0,
      file_hits: Math.log(2), // one other candidate (the class) in its file
      parent_in_top: 1, // the class
      children_in_top: 0,
      no_identifier: 1,
      vector_rr_no_ident: 0.5,
      bm25_rr_long: 0, // 7 words: not long
      hand_rr: 1, // first in the hand order
      short_query: 0, // 4 content words
      hand_rr_short: 0,
      is_type_short: 0,
    });
    expect(klass).toMatchObject({
      rrf: 0.6,
      bm25_rr: 0.5,
      vector_rr: 0,
      bm25_rel: 0.5, // 4 / 8
      cosine: 0,
      name_cover: 0.5, // user of user, validator
      query_cover: 0.25, // user of 4
      stem_cover: 1, // user; validator → validat
      fuzzy_cover: 0, // validator is two edits from validate; user is under 5 letters
      qname_cover: 0, // top level: no container
      path_cover: 1,
      doc_cover: 0,
      body_cover: 0.5, // user, validat in "export class uservalidator { }"
      is_type: 1,
      log_lines: Math.log(41),
      public_api: 0,
      file_hits: Math.log(2),
      parent_in_top: 0,
      children_in_top: Math.log(2), // the method
      vector_rr_no_ident: 0,
      hand_rr: 0.5, // second
    });
    expect(helper).toMatchObject({
      rrf: 1.5,
      vector_rr: 1,
      bm25_rel: 0,
      cosine: 0.7,
      name_cover: 0.5, // address of check, address
      query_cover: 0.25,
      stem_cover: 0.5,
      fuzzy_cover: 0.5,
      path_cover: 1, // file name "address"
      body_cover: 0.25, // address in "function checkaddress() {}"
      is_callable: 1,
      log_lines: Math.log(2),
      is_test: 1, // __tests__, and the query is not about tests
      is_test_about_tests: 0,
      generated: 1,
      syntactic_only: 1,
      hub: 1,
      file_hits: 0,
      vector_rr_no_ident: 1,
      hand_rr: 1 / 3, // third
    });
  });

  it('interactions: a long query about tests that names an identifier', () => {
    // 13 words (long), "tests" (about tests), validateEmail (an identifier).
    const q = featureQuery('fix validateEmail so the tests of the email address validation pass again now', true, true);
    expect(q.long).toBe(true);
    const [method, , helper] = extractFeatures(candidates, q, context).map(byName);
    expect([method!['bm25_rr_long'], method!['no_identifier'], method!['vector_rr_no_ident']]).toEqual([1, 0, 0]);
    expect([helper!['is_test'], helper!['is_test_about_tests']]).toEqual([0, 1]);
  });

  it('a short query (a topic of at most three words): hand order and types marked', () => {
    const q = featureQuery('user validator', false, false);
    expect([q.short, q.words]).toEqual([true, ['user', 'validator']]);
    const [method, klass, helper] = extractFeatures(candidates, q, context).map(byName);
    expect([method!['short_query'], method!['hand_rr_short'], method!['is_type_short']]).toEqual([1, 1, 0]);
    expect([klass!['hand_rr_short'], klass!['is_type_short']]).toEqual([0.5, 1]);
    expect([helper!['hand_rr_short'], helper!['is_type_short']]).toEqual([1 / 3, 0]);
    expect(featureQuery('the email address of a user', false, false).short).toBe(true); // 3 content words
    expect(featureQuery('validate the email address of a user', false, false).short).toBe(false);
  });
});

describe('the learned rerank stage: test code and short queries', () => {
  // A model that likes types (is_type +1) and generated code (generated +2), nothing else.
  const n = FEATURE_NAMES.length;
  const model = (extra: Record<string, unknown> = {}) => {
    const weights = new Array(n).fill(0);
    weights[FEATURE_NAMES.indexOf('is_type')] = 1;
    weights[FEATURE_NAMES.indexOf('generated')] = 2;
    return { format: RANKER_FORMAT, features: [...FEATURE_NAMES], mean: new Array(n).fill(0), std: new Array(n).fill(1), weights, ...extra };
  };
  // The hand order: the method, the class, the generated test helper.
  const items = (): RerankItem[] => candidates.map((c, i) => ({ key: c.key, node: c.node, score: 1 - i / 10, base: 1 - i / 10, ranks: c.ranks, hub: c.hub, fused: c.fused, callerFiles: c.callerFiles }));
  const run = (text: string, aboutTests: boolean, weights: unknown) => {
    const list = items();
    rerank(list, { text, hasIdentifiers: false, aboutTests, exact: new Set(), named: new Set(), bm25: context.bm25, cosine: context.cosine, learned: true, weights, explain: false });
    return list.map((s) => [s.key, Math.round(s.score * 1000) / 1000]);
  };
  /** A learned score as `run` rounds it: base + σ(z). */
  const at = (base: number, z: number) => Math.round((base + 1 / (1 + Math.exp(-z))) * 1000) / 1000;

  it('test code on a question not about tests goes under every other learned candidate', () => {
    // Class 2 + σ(1), method 2 + σ(0); the helper would lead with 2 + σ(2) but is test code: 1 + σ(2).
    expect(run('validate the email address of a user before saving', false, model())).toEqual([[1, at(2, 1)], [2, 2.5], [3, at(1, 2)]]);
    // About tests ("tests"): it keeps its place by the model.
    expect(run('the tests that validate the email address of a user', true, model())).toEqual([[3, at(2, 2)], [1, at(2, 1)], [2, 2.5]]);
  });

  it('shortQueries "hand": a query of at most three words keeps the hand order; longer ones the model\'s', () => {
    expect(run('user validator', false, model({ shortQueries: 'hand' }))).toEqual([[2, 1], [1, 0.9], [3, 0.8]]);
    expect(run('user validator', false, model())).toEqual([[1, at(2, 1)], [2, 2.5], [3, at(1, 2)]]);
    expect(run('validate the email address of a user before saving', false, model({ shortQueries: 'hand' }))).toEqual([[1, at(2, 1)], [2, 2.5], [3, at(1, 2)]]);
  });
});
