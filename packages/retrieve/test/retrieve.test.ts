import { describe, expect, it } from 'vitest';
import { analyzeQuery, asksAboutTests, estimateTokens, expandChildren, isIdentifierLike, isTestPath, reciprocalRankFusion } from '../src/index.js';

describe('reciprocal rank fusion', () => {
  it('sums 1/(k+rank) per channel', () => {
    const fused = reciprocalRankFusion(
      [
        { channel: 'bm25', ids: [1, 2, 3] },
        { channel: 'name', ids: [3, 1] },
      ],
      60,
    );
    // 1: 1/61 + 1/62; 3: 1/63 + 1/61; 2: 1/62
    expect(fused.map((h) => h.nodeId)).toEqual([1, 3, 2]);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]!.score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(fused[2]!.ranks).toEqual({ bm25: 2 });
    expect(fused[0]!.ranks).toEqual({ bm25: 1, name: 2 });
  });
});

describe('query analysis', () => {
  it('detects identifiers, paths, phrases and intent', () => {
    expect(analyzeQuery('AuthService.authenticate')).toMatchObject({ identifiers: ['AuthService.authenticate'], intent: 'targeted' });
    expect(analyzeQuery('where is getUserById defined')).toMatchObject({ identifiers: ['getUserById'], intent: 'targeted' });
    expect(analyzeQuery('global::MyApp.Core usage').identifiers).toEqual(['global::MyApp.Core']);
    expect(analyzeQuery('user_repository').identifiers).toEqual(['user_repository']);
    // An endpoint's name is one identifier (the method upper-cased, a trailing slash dropped).
    expect(analyzeQuery('get /api/orders/{id}/')).toMatchObject({ identifiers: ['GET /api/orders/{id}'], intent: 'targeted' });
    expect(analyzeQuery('GET /api/orders/{id}').identifiers[0]).toBe('GET /api/orders/{id}');
    expect(analyzeQuery('all places that call the payment gateway').intent).toBe('cross_cutting');
    expect(analyzeQuery('stop charging this customer every month').intent).toBe('exploratory');
    expect(analyzeQuery('refresh the token each time a request fails').intent).toBe('exploratory');
    expect(analyzeQuery('every place the token is refreshed').intent).toBe('cross_cutting');
    expect(analyzeQuery('where is rate limiting handled')).toMatchObject({ identifiers: [], intent: 'exploratory' });
    expect(analyzeQuery('bug in src/auth/service.ts login').paths).toEqual(['src/auth/service.ts']);
    expect(analyzeQuery('find "token refresh" logic').phrases).toEqual(['token refresh']);
    expect(analyzeQuery('terminatePlan')).toMatchObject({ identifiers: ['terminatePlan'], intent: 'targeted' });
    expect(analyzeQuery('Button')).toMatchObject({ identifiers: ['Button'], intent: 'targeted' });
    expect(analyzeQuery('unit tests for login').aboutTests).toBe(true);
    expect(analyzeQuery('where is rate limiting handled').aboutTests).toBe(false);
    expect(analyzeQuery('callers of issueToken').asksDependents).toBe(true);
    expect(analyzeQuery('what breaks if TokenStore.save changes').asksDependents).toBe(true);
    expect(analyzeQuery('who uses toValidURL').asksDependents).toBe(true);
    expect(analyzeQuery('issueToken').asksDependents).toBe(false);
    // Dependents of what? Without a named symbol there is nothing to follow.
    expect(analyzeQuery('what breaks when the network is down').asksDependents).toBe(false);
    expect(isIdentifierLike('login')).toBe(false);
    expect(isIdentifierLike('HTMLParser')).toBe(true);
  });
});

describe('questions about tests', () => {
  // Only the subject (the first sentence) or a sentence that asks something makes a question
  // about tests: a test word further on is a detail of a change to the product code.
  const subjects = ['Fix handling of nullable value tuples', 'Handle PostgreSQL chars correctly', 'retry the upload after a timeout'];
  const details = ['Add a test', 'Changed unit test, added more nesting', 'covered by the new specs', 'mock the clock'];
  it('reads the subject, not the details', () => {
    for (const subject of subjects) {
      for (const detail of details) {
        for (const join of ['. ', '.\n', ' * ', '\n']) {
          expect([subject, join, detail, asksAboutTests(`${subject}${join}${detail}`)]).toEqual([subject, join, detail, false]);
          expect([detail, join, subject, asksAboutTests(`${detail}${join}${subject}`)]).toEqual([detail, join, subject, true]);
        }
        // A sentence that asks about tests counts wherever it is.
        expect(asksAboutTests(`${subject}. Where is ${detail.toLowerCase()}?`)).toBe(true);
        expect(asksAboutTests(`${subject}. Where is it called?`)).toBe(false);
        expect(analyzeQuery(`${subject}. ${detail}.`).aboutTests).toBe(false);
      }
    }
    // One sentence: a test word anywhere in it.
    expect(asksAboutTests('Fix X and add tests')).toBe(true);
    expect(asksAboutTests('  [Tests] rework the assertion helpers')).toBe(true);
    expect(asksAboutTests('version 2.0 of the parser')).toBe(false);
  });
});

describe('test code detection', () => {
  it('recognises test folders and files', () => {
    for (const p of ['src/__tests__/a.ts', 'test/x.ts', 'src/a.test.ts', 'src/a.spec.tsx', 'MyApp.Tests/FooTests.cs', 'fixtures/x.ts', 'src/Button.stories.tsx']) {
      expect([p, isTestPath(p)]).toEqual([p, true]);
    }
    for (const p of ['src/auth/service.ts', 'src/testing-utils-prod/x.ts', 'src/Contest.cs', 'src/latest.ts']) {
      expect([p, isTestPath(p)]).toEqual([p, false]);
    }
  });
});

describe('budget helpers', () => {
  it('estimates tokens as ceil(chars / 3.5)', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('x'.repeat(35))).toBe(10);
    expect(estimateTokens('x'.repeat(36))).toBe(11);
  });

  it('expands a collapsed child inside its parent and keeps the others collapsed', () => {
    const parent = [
      'export class BillingAccount {',
      '  private plan: Plan | null = null;',
      '  subscribe(plan: Plan): void { /* 4 lines collapsed */ }',
      '  terminatePlan(): void { /* 5 lines collapsed */ }',
      '}',
    ].join('\n');
    const child = ['terminatePlan(): void {', '    this.plan = null;', '    this.gateway.cancelRecurring(this.id);', '  }'].join('\n');
    expect(expandChildren(parent, [{ code: child }, { code: 'private plan: Plan | null = null;' }])).toEqual({
      merged: [true, true],
      code: [
        'export class BillingAccount {',
        '  private plan: Plan | null = null;',
        '  subscribe(plan: Plan): void { /* 4 lines collapsed */ }',
        '  terminatePlan(): void {',
        '    this.plan = null;',
        '    this.gateway.cancelRecurring(this.id);',
        '  }',
        '}',
      ].join('\n'),
    });
    expect(expandChildren(parent, [{ code: 'unknownMethod(): void {\n}' }])).toEqual({ code: parent, merged: [false] });
  });
});
