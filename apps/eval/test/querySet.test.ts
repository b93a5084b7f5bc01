import { describe, expect, it } from 'vitest';
import { formatQuerySet, parseQuerySet } from '../src/index.js';

const HEADER = '{"header":{"repo":"fixtures/ts-app","path":"../fixtures/ts-app","language":"ts"}}';
const Q1 = '{"id":"q1","query":"AuthService.login","archetype":"qualified_name","relevant":[{"symbol":"AuthService.login","grade":3}],"split":"train"}';

describe('parseQuerySet', () => {
  it('reads the header and the queries, skipping blank and // lines', () => {
    const set = parseQuerySet([HEADER, '', '// hand-written', Q1].join('\n'), 'set.jsonl');
    expect(set.header).toEqual({ repo: 'fixtures/ts-app', path: '../fixtures/ts-app', language: 'ts' });
    expect(set.queries).toEqual([
      { id: 'q1', query: 'AuthService.login', archetype: 'qualified_name', relevant: [{ symbol: 'AuthService.login', grade: 3 }], split: 'train' },
    ]);
  });

  it('names the line of a bad JSON line', () => {
    expect(() => parseQuerySet([HEADER, Q1, '{"id":"q2", "query": '].join('\n'), 'set.jsonl')).toThrow(/^set\.jsonl:3: not valid JSON/);
  });

  it('names the line and the archetype of an unknown archetype', () => {
    const bad = Q1.replace('"q1"', '"q2"').replace('qualified_name', 'fuzzy');
    expect(() => parseQuerySet([HEADER, Q1, bad].join('\n'), 'set.jsonl')).toThrow(
      'set.jsonl:3: query "q2": unknown archetype "fuzzy" (expected one of qualified_name, nl_behavioral, impact, cross_module, vague)',
    );
  });

  it('rejects bad grades, unknown splits, duplicate ids and a late header, with stable codes', () => {
    const cases: [string, string][] = [
      [Q1.replace('"grade":3', '"grade":4'), 'set.jsonl:1: query "q1": relevant[0].grade must be 0, 1, 2 or 3 (got 4)'],
      [Q1.replace('"train"', '"test"'), 'set.jsonl:1: query "q1": unknown split "test" (expected train or holdout)'],
      [[Q1, Q1].join('\n'), 'set.jsonl:2: duplicate query id "q1"'],
      [[Q1, HEADER].join('\n'), 'set.jsonl:2: the header must be the first line'],
    ];
    for (const [text, message] of cases) {
      try {
        parseQuerySet(text, 'set.jsonl');
        expect.unreachable(`should have failed: ${message}`);
      } catch (e) {
        expect((e as Error).message).toBe(message);
        expect((e as { code: string }).code).toBe('invalid_query');
      }
    }
  });

  it('round-trips through formatQuerySet', () => {
    const set = parseQuerySet([HEADER, Q1].join('\n'));
    expect(formatQuerySet(set.header, set.queries)).toBe(`${HEADER}\n${Q1}\n`);
  });

  it('reads changed lines of mined queries (sets without them stay readable) and rejects bad ranges', () => {
    const mined = Q1.replace('"split":"train"}', '"split":"train","commit":"abc","changedLines":[{"path":"src/a.cs","lines":[[3,5],[9,9]]}]}');
    const set = parseQuerySet([HEADER, mined].join('\n'), 'set.jsonl');
    expect(set.queries[0]!.changedLines).toEqual([{ path: 'src/a.cs', lines: [[3, 5], [9, 9]] }]);
    expect(formatQuerySet(set.header, set.queries)).toBe(`${HEADER}\n${mined}\n`);
    expect(parseQuerySet(Q1, 'set.jsonl').queries[0]!.changedLines).toBeUndefined();
    const bad = (lines: string) => Q1.replace('"split":"train"}', `"split":"train","changedLines":${lines}}`);
    const cases: [string, string][] = [
      [bad('{}'), 'set.jsonl:1: query "q1": "changedLines" must be an array of {"path", "lines"}'],
      [bad('[{"lines":[[1,2]]}]'), 'set.jsonl:1: query "q1": "changedLines" [0].path must be a non-empty string'],
      [bad('[{"path":"a.cs","lines":[[5,2]]}]'), 'set.jsonl:1: query "q1": "changedLines" [0].lines[0] must be [from, to] with 1 ≤ from ≤ to (got [5,2])'],
      [bad('[{"path":"a.cs","lines":[[0,2]]}]'), 'set.jsonl:1: query "q1": "changedLines" [0].lines[0] must be [from, to] with 1 ≤ from ≤ to (got [0,2])'],
    ];
    for (const [text, message] of cases) expect(() => parseQuerySet(text, 'set.jsonl')).toThrow(message);
  });
});
