import { describe, expect, it } from 'vitest';
import type { IndexReader, NodeRecord } from '@ca/store';
import { search, searchSources } from '../src/index.js';

/** A node of the fake index: only the fields search reads matter. */
function node(id: number, name: string, kind: NodeRecord['kind'], parentId: number | null, chunkText: string, qualifiedName = name): NodeRecord {
  return {
    id,
    fileId: 1,
    parentId,
    kind,
    language: 'ts',
    name,
    qualifiedName,
    symbolKey: `ts:file:src/c.ts:${qualifiedName}`,
    project: '.',
    path: 'src/c.ts',
    startLine: id,
    endLine: id,
    startByte: 0,
    endByte: 0,
    signature: name,
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    generated: false,
    chunkText,
    chunkHash: String(id),
    parseStatus: 'ok',
    semanticState: 'ok',
    referenceCount: null,
  };
}

const CLASS = node(1, 'Cart', 'class', null, 'class Cart {\n  add() { /* 2 lines collapsed */ }\n  clear() { /* 2 lines collapsed */ }\n}');
const ADD = node(2, 'add', 'method', 1, 'add() {\n    this.items.push(1);\n  }', 'Cart.add');
const CLEAR = node(3, 'clear', 'method', 1, 'clear() {\n    this.items = [];\n  }', 'Cart.clear');
const TOTAL = node(4, 'total', 'function', null, 'function total() {\n  return 0;\n}');
/** A child the class text does not show (declared through an assignment the chunk collapsed away). */
const HIDDEN = node(5, 'hidden', 'method', 1, 'hidden = () => {\n    return 2;\n  }', 'Cart.hidden');
const NODES = new Map([CLASS, ADD, CLEAR, TOTAL, HIDDEN].map((n) => [n.id, n]));

/** A reader whose BM25 channel returns `bm25` (best first); every other lookup is empty. */
function fakeReader(bm25: number[], dependents: Record<number, number[]> = {}, named: NodeRecord[] = []): IndexReader {
  const reader = {
    byQualifiedName: (q: string) => named.filter((n) => n.qualifiedName === q),
    bySuffix: (s: string) => named.filter((n) => n.name === s),
    bm25: () => bm25.map((id, i) => ({ nodeId: id, score: 10 - i })),
    nodesByIds: (ids: readonly number[]) => ids.flatMap((id) => NODES.get(id) ?? []),
    callerFileCounts: () => new Map<number, number>(),
    testProjects: () => new Set<string>(),
    neighbours: () => [],
    nodeIdsMatching: () => new Set(NODES.keys()),
    filterNotices: () => [],
    cachedNodeIdsMatching: () => null,
    passingFraction: () => 1,
    idsPassing: (_f: unknown, ids: readonly number[]) => new Set(ids),
    nodeFacts: () => new Map(),
    locationsByChunkHash: () => new Map(),
    dependentsOf: (ids: readonly number[]) => ids.flatMap((id) => (dependents[id] ?? []).map((d) => ({ nodeId: d, edges: 1 }))),
  };
  return reader as unknown as IndexReader;
}

const ctx = (reader: IndexReader) => ({ reader, vector: null, vectorOffReason: 'test' });

describe('selection and parent/child merging', () => {
  it('does not pull a parent in because its child ranked well', () => {
    // Cart ranks third: with a limit of 2 it is not selected, so add() stands on its own.
    const r = search(ctx(fakeReader([2, 4, 1])), 'cart add', { limit: 2, channels: ['bm25'] });
    expect(r.results.map((x) => [x.qualifiedName, x.expandedChildren ?? []])).toEqual([
      ['Cart.add', []],
      ['total', []],
    ]);
  });

  it('merges a selected parent and child into one result at the better position', () => {
    // add(), total(), Cart are all selected: Cart takes add()'s place with add() expanded; the
    // slot the merge frees goes on down the list, and clear() (a child of Cart) joins it too.
    const r = search(ctx(fakeReader([2, 4, 1, 3])), 'cart add', { limit: 3, channels: ['bm25'] });
    expect(r.results.map((x) => [x.qualifiedName, x.expandedChildren ?? []])).toEqual([
      ['Cart', ['2', '3']],
      ['total', []],
    ]);
    expect(r.results[0]!.code).toBe('class Cart {\n  add() {\n    this.items.push(1);\n  }\n  clear() {\n    this.items = [];\n  }\n}');
  });

  it('says how many results the token budget left out', () => {
    // Cart's code is 88 characters (26 tokens), total's 32 (10 tokens): a budget of 15 keeps total only.
    const r = search(ctx(fakeReader([1, 4])), 'cart total', { limit: 2, budget: 15, channels: ['bm25'] });
    expect(r.results.map((x) => x.qualifiedName)).toEqual(['total']);
    expect(r.tokens).toBe(10);
    expect(r.notices).toEqual(['token budget: 1 matching result left out (over the budget of 15 tokens; raise it to see it)']);
    expect(search(ctx(fakeReader([1, 4])), 'cart total', { limit: 2, budget: 36, channels: ['bm25'] }).notices).toEqual([]);
  });

  it("a child the parent's code does not show keeps its own place", () => {
    const r = search(ctx(fakeReader([5, 4, 1])), 'cart hidden', { limit: 3, channels: ['bm25'] });
    expect(r.results.map((x) => [x.qualifiedName, x.expandedChildren ?? []])).toEqual([
      ['Cart.hidden', []],
      ['total', []],
      ['Cart', []],
    ]);
  });

  it('answers "callers of X" through the graph channel, X first', () => {
    const r = search(ctx(fakeReader([], { 3: [4] }, [CLEAR])), 'callers of Cart.clear', { limit: 5 });
    expect(r.results.map((x) => [x.qualifiedName, x.matchedBy])).toEqual([
      ['Cart.clear', ['name']],
      ['total', ['graph']],
    ]);
  });

  it('has no graph channel for a question that names no dependents', () => {
    const r = search(ctx(fakeReader([], { 3: [4] }, [CLEAR])), 'Cart.clear', { limit: 5 });
    expect(r.results.map((x) => x.qualifiedName)).toEqual(['Cart.clear']);
  });
});

describe('channel weights by query shape', () => {
  // BM25 says total first, then Cart.clear; the vector channel says Cart.clear first, then total.
  const withVector = (reader: IndexReader) => ({ reader, vector: { search: () => [{ nodeId: 3, score: 0.9 }, { nodeId: 4, score: 0.8 }] } });

  it('a question in words leans on the vector channel', () => {
    const r = search(withVector(fakeReader([4, 3])), 'empty the shopping basket', { limit: 2 });
    expect(r.intent).toBe('exploratory');
    expect(r.results.map((x) => x.qualifiedName)).toEqual(['Cart.clear', 'total']);
  });

  it('a long query (10+ words, a bug report) leans on BM25', () => {
    const q = 'when the user empties the basket the total shown at the bottom of the page is not reset to zero';
    const r = search(withVector(fakeReader([4, 3])), q, { limit: 2 });
    expect(r.results.map((x) => x.qualifiedName)).toEqual(['total', 'Cart.clear']);
  });
});

describe('several indexes in one ranking', () => {
  it('merges BM25 hits by score across indexes and names each result\'s repository', () => {
    // The fake BM25 scores a reader's hits 10, 9, … in order. Index a: total (10), Cart.add (9);
    // index b: Cart.clear (10). Merged by score, index order breaking the tie: a:total, b:clear, a:add.
    const a = fakeReader([4, 2]);
    const b = fakeReader([3]);
    const r = searchSources(
      [
        { name: 'a', ctx: ctx(a) },
        { name: 'b', ctx: ctx(b) },
      ],
      'cart total',
      { limit: 3, channels: ['bm25'] },
    );
    expect(r.results.map((x) => [x.repo, x.qualifiedName, x.ranks])).toEqual([
      ['a', 'total', { bm25: 1 }],
      ['b', 'Cart.clear', { bm25: 2 }],
      ['a', 'Cart.add', { bm25: 3 }],
    ]);
  });

  it('an index failing while answering (locked, corrupt) is a notice; the others answer', () => {
    const locked = fakeReader([3]);
    const busy = Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' });
    (locked as unknown as { bm25: () => never }).bm25 = () => {
      throw busy;
    };
    const r = searchSources(
      [
        { name: 'a', ctx: ctx(fakeReader([4])) },
        { name: 'b', ctx: ctx(locked) },
      ],
      'cart total',
      { limit: 3, channels: ['bm25'] },
    );
    expect(r.results.map((x) => [x.repo, x.qualifiedName])).toEqual([['a', 'total']]);
    expect(r.notices).toEqual(['b: index unavailable: db_locked: database is locked']);
  });

  it('one index failing alone fails the answer', () => {
    const locked = fakeReader([3]);
    (locked as unknown as { bm25: () => never }).bm25 = () => {
      throw Object.assign(new Error('database is locked'), { name: 'SqliteError', code: 'SQLITE_BUSY' });
    };
    expect(() => search(ctx(locked), 'cart total', { limit: 3, channels: ['bm25'] })).toThrow('database is locked');
  });
});
