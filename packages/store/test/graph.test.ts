import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExtractedEdge } from '@ca/schema';
import { GraphReader, Store } from '../src/index.js';
import { fileWithSymbols, fileWrite, node, dbOf, keyPlanner } from './helpers.js';

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'ca-graph-')), 'index.db');
}

// One file, calls only (arrows are "calls", use-site line in brackets):
//   c1 → t [10]   c2 → t [11]   c3 → t [12]         level 1
//   c2 → c1 [13]                                     between level-1 nodes
//   d1 → c1 [20]  d2 → c3 [21]  d3 → c2 [22]        level 2
//   e1 → d2 [30]                                     level 3
// The edges are written in a shuffled order so that edge ids do not follow the lines.
const NAMES = ['t', 'c1', 'c2', 'c3', 'd1', 'd2', 'd3', 'e1'];
const CALLS: [string, string, number][] = [
  ['d3', 'c2', 22],
  ['e1', 'd2', 30],
  ['c3', 't', 12],
  ['d2', 'c3', 21],
  ['c1', 't', 10],
  ['c2', 'c1', 13],
  ['d1', 'c1', 20],
  ['c2', 't', 11],
];

function graphFile() {
  const nodes = [
    node({ localId: 'f', name: 'g.ts', kind: 'file', qualifiedName: 'src/g.ts', symbolKey: 'ts:file:src/g.ts#' }),
    ...NAMES.map((name, i) =>
      node({
        localId: name,
        name,
        kind: 'function',
        parentLocalId: 'f',
        symbolKey: `ts:file:src/g.ts#${name}()`,
        signature: `function ${name}(): void`,
        doc: name === 't' ? 'The target.' : null,
        modifiers: ['export'],
        span: { startLine: i + 1, endLine: i + 1, startByte: i * 10, endByte: i * 10 + 9 },
      }),
    ),
  ];
  const edges: ExtractedEdge[] = CALLS.map(([from, to, line]) => ({
    sourceLocalId: from,
    type: 'calls',
    confidence: 'exact',
    target: { key: `ts:file:src/g.ts#${to}()`, name: to, localId: to },
    line,
  }));
  return fileWrite('src/g.ts', 'g1', nodes, edges);
}

describe('GraphReader.walk with a node cap', () => {
  let store: Store;
  let id: Map<string, number>;
  let name: Map<number, string>;
  beforeEach(() => {
    store = Store.open(tempDb());
    store.writer.writeBatch('working', [graphFile()], keyPlanner);
    const rows = dbOf(store).prepare(`SELECT id, name FROM nodes WHERE kind = 'function'`).all() as { id: number; name: string }[];
    id = new Map(rows.map((r) => [r.name, r.id]));
    name = new Map(rows.map((r) => [r.id, r.name]));
  });
  afterEach(() => store.close());

  const walk = (maxRows?: number) =>
    new GraphReader(dbOf(store)).walk([id.get('t')!], { direction: 'in', types: ['calls'], minConfidence: 'approximate', depth: 5, ...(maxRows !== undefined ? { maxRows } : {}) });
  const depths = (w: ReturnType<typeof walk>) => Object.fromEntries([...w.depth].map(([n, d]) => [name.get(n)!, d]));
  const lines = (w: ReturnType<typeof walk>) => w.edges.map((e) => `${name.get(e.from)}→${e.to === null ? '?' : name.get(e.to)}:${e.line}`);

  it('without a cap reaches everything, exactly counted', () => {
    const w = walk();
    expect(depths(w)).toEqual({ t: 0, c1: 1, c2: 1, c3: 1, d1: 2, d2: 2, d3: 2, e1: 3 });
    expect(lines(w)).toEqual(['c1→t:10', 'c2→t:11', 'c3→t:12', 'c2→c1:13', 'd1→c1:20', 'd2→c3:21', 'd3→c2:22', 'e1→d2:30']);
    expect(w.truncated).toBe(false);
    expect(w.reached).toBe(7);
  });

  it('a cap equal to the reach is not a truncation', () => {
    const w = walk(7);
    expect(w.truncated).toBe(false);
    expect(w.reached).toBe(7);
    expect(Object.keys(depths(w))).toHaveLength(8);
  });

  it('cuts inside level 2 in use-site line order and stops walking deeper', () => {
    const w = walk(4);
    // d1 (line 20) is kept; d2 (21) and d3 (22) are seen and dropped; e1 is never reached.
    expect(depths(w)).toEqual({ t: 0, c1: 1, c2: 1, c3: 1, d1: 2 });
    // c2→c1 joins two kept nodes, so it stays; edges to dropped nodes do not.
    expect(lines(w)).toEqual(['c1→t:10', 'c2→t:11', 'c3→t:12', 'c2→c1:13', 'd1→c1:20']);
    expect(w.truncated).toBe(true);
    // Lower bound: 4 kept + d2, d3 seen on the cut level (e1 is not counted).
    expect(w.reached).toBe(6);
  });

  it('cuts exactly at a level boundary: the next level is seen but nothing of it is kept', () => {
    const w = walk(3);
    expect(depths(w)).toEqual({ t: 0, c1: 1, c2: 1, c3: 1 });
    expect(lines(w)).toEqual(['c1→t:10', 'c2→t:11', 'c3→t:12', 'c2→c1:13']);
    expect(w.truncated).toBe(true);
    expect(w.reached).toBe(6);
  });

  it('cuts inside level 1', () => {
    const w = walk(2);
    expect(depths(w)).toEqual({ t: 0, c1: 1, c2: 1 });
    expect(lines(w)).toEqual(['c1→t:10', 'c2→t:11']);
    expect(w.truncated).toBe(true);
    expect(w.reached).toBe(3);
  });

  it('does not count the seeds against the cap', () => {
    const w = new GraphReader(dbOf(store)).walk([id.get('c1')!, id.get('c2')!, id.get('c3')!], { direction: 'in', types: ['calls'], minConfidence: 'approximate', depth: 1, maxRows: 3 });
    expect(depths(w)).toEqual({ c1: 0, c2: 0, c3: 0, d1: 1, d2: 1, d3: 1 });
    expect(w.truncated).toBe(false);
    expect(w.reached).toBe(3);
  });

  it('nodes() returns the printed fields in the order asked, skipping unknown ids', () => {
    const g = new GraphReader(dbOf(store));
    const out = g.nodes([id.get('c2')!, 999_999, id.get('t')!]);
    expect(out).toEqual([
      {
        id: id.get('c2'),
        parentId: expect.any(Number),
        kind: 'function',
        language: 'ts',
        name: 'c2',
        qualifiedName: 'c2',
        path: 'src/g.ts',
        startLine: 3,
        endLine: 3,
        signature: 'function c2(): void',
        doc: null,
        modifiers: ['export'],
        isPublicApi: false,
      },
      {
        id: id.get('t'),
        parentId: expect.any(Number),
        kind: 'function',
        language: 'ts',
        name: 't',
        qualifiedName: 't',
        path: 'src/g.ts',
        startLine: 1,
        endLine: 1,
        signature: 'function t(): void',
        doc: 'The target.',
        modifiers: ['export'],
        isPublicApi: false,
      },
    ]);
    expect(out[0]!.parentId).toBe(out[1]!.parentId);
    expect(g.nodes([])).toEqual([]);
  });
});

describe('GraphReader caches follow the database', () => {
  it('semantic gaps and edge paths are recomputed after a write on this connection and on another one', () => {
    const path = tempDb();
    const store = Store.open(path);
    try {
      store.writer.writeBatch('working', [graphFile()], keyPlanner);
      const g = new GraphReader(dbOf(store));
      const gap = (files: number) => [{ project: '', language: 'ts', state: 'none', reason: null, files }];
      expect(g.semanticGaps('working', ['ts'])).toEqual(gap(1));
      expect(g.semanticGaps('working', ['ts'])).toEqual(gap(1));
      expect(g.semanticGaps('working', ['cs'])).toEqual([]);
      expect(g.semanticGaps('working', [])).toEqual([]);
      // A write on the same connection.
      store.writer.writeBatch('working', [fileWithSymbols('src/h.ts', 'h1', [{ name: 'h' }])], keyPlanner);
      expect(new GraphReader(dbOf(store)).semanticGaps('working', ['ts'])).toEqual(gap(2));
      // A write by another connection (another process in real use).
      const other = Store.open(path);
      try {
        other.writer.writeBatch('working', [fileWithSymbols('src/i.ts', 'i1', [{ name: 'i' }])], keyPlanner);
      } finally {
        other.close();
      }
      expect(g.semanticGaps('working', ['ts'])).toEqual(gap(3));
      // Edge paths come from a cached file map: a renamed file shows its new path.
      dbOf(store).prepare(`UPDATE files SET path = 'src/renamed.ts' WHERE path = 'src/g.ts'`).run();
      const t = (dbOf(store).prepare(`SELECT id FROM nodes WHERE name = 't'`).get() as { id: number }).id;
      const w = g.walk([t], { direction: 'in', types: ['calls'], minConfidence: 'approximate', depth: 1 });
      expect(w.edges.map((e) => [e.path, e.line])).toEqual([
        ['src/renamed.ts', 10],
        ['src/renamed.ts', 11],
        ['src/renamed.ts', 12],
      ]);
    } finally {
      store.close();
    }
  });
});

describe('IndexReader.callerFileCounts', () => {
  // src/t.ts: t, and x1, x2 calling it; src/u.ts: y1 calling t (cross-file, by key).
  const key = (path: string, name: string) => `ts:file:${path}#${name}()`;
  const fn = (path: string, name: string, i: number) =>
    node({ localId: name, name, kind: 'function', parentLocalId: 'f', symbolKey: key(path, name), span: { startLine: i + 1, endLine: i + 1, startByte: i * 10, endByte: i * 10 + 9 } });
  const call = (from: string, line: number, local: boolean): ExtractedEdge => ({
    sourceLocalId: from,
    type: 'calls',
    confidence: 'exact',
    target: { key: key('src/t.ts', 't'), name: 't', ...(local ? { localId: 't' } : {}) },
    line,
  });
  let store: Store;
  let ids: Map<string, number>;
  beforeEach(() => {
    store = Store.open(tempDb());
    const file = (path: string) => node({ localId: 'f', name: path, kind: 'file', qualifiedName: path, symbolKey: `ts:file:${path}#` });
    store.writer.writeBatch('working', [
      fileWrite('src/t.ts', 't1', [file('src/t.ts'), fn('src/t.ts', 't', 0), fn('src/t.ts', 'x1', 1), fn('src/t.ts', 'x2', 2)], [call('x1', 2, true), call('x2', 3, true)]),
      fileWrite('src/u.ts', 'u1', [file('src/u.ts'), fn('src/u.ts', 'y1', 0)], [call('y1', 1, false)]),
    ], keyPlanner);
    const rows = dbOf(store).prepare(`SELECT id, name FROM nodes WHERE kind = 'function'`).all() as { id: number; name: string }[];
    ids = new Map(rows.map((r) => [r.name, r.id]));
    // The cross-file edge resolved as the semantic pass would.
    dbOf(store).prepare(`UPDATE edges SET target_id = ? WHERE source_id = ?`).run(ids.get('t'), ids.get('y1'));
  });
  afterEach(() => store.close());

  it('counts distinct calling files, capped, over a bounded number of edges', () => {
    const t = ids.get('t')!;
    const reader = store.reader();
    expect(dbOf(store).prepare(`SELECT COUNT(*) AS c FROM edges WHERE target_id = ?`).get(t)).toEqual({ c: 3 });
    expect(reader.callerFileCounts([t, ids.get('x1')!])).toEqual(new Map([[t, 2]]));
    expect(reader.callerFileCounts([t], 1)).toEqual(new Map([[t, 1]]));
    // The first edge read is x1's (same file): one file seen.
    expect(reader.callerFileCounts([t], 10, 1)).toEqual(new Map([[t, 1]]));
    expect(reader.callerFileCounts([])).toEqual(new Map());
  });
});
