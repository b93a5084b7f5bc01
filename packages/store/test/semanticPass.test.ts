import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { fileWrite, node, dbOf, keyPlanner } from './helpers.js';

const TYPES = ['calls', 'references'] as const;

/**
 * money.ts defines `format`; a.ts's `runA` calls it twice as the syntactic pass sees it: by name
 * at line 3 and line 5 (both approximate, unresolved).
 */
function setup() {
  const store = Store.open(':memory:');
  store.writer.writeBatch('working', [
    fileWrite('src/money.ts', 'h1', [
      node({ localId: 'f', name: 'money.ts', kind: 'file', symbolKey: 'ts:file:src/money.ts#' }),
      node({ localId: 'n', name: 'format', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/money.ts#format' }),
    ]),
    fileWrite(
      'src/a.ts',
      'h2',
      [
        node({ localId: 'f', name: 'a.ts', kind: 'file', symbolKey: 'ts:file:src/a.ts#' }),
        node({ localId: 'n', name: 'runA', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/a.ts#runA' }),
      ],
      [3, 5].map((line) => ({ sourceLocalId: 'n', type: 'calls' as const, confidence: 'approximate' as const, target: { key: '?format', name: 'format' }, line })),
    ),
  ], keyPlanner);
  const id = (name: string) => (dbOf(store).prepare(`SELECT id FROM nodes WHERE name = ?`).get(name) as { id: number }).id;
  const aFile = (dbOf(store).prepare(`SELECT file_id AS id FROM label_files WHERE path = 'src/a.ts'`).get() as { id: number }).id;
  const rows = (table: 'edges' | 'superseded_edges') =>
    dbOf(store)
      .prepare(`SELECT type, confidence, target_name AS target, line, extractor FROM ${table} WHERE file_id = ? ORDER BY line, extractor`)
      .all(aFile);
  const state = () => dbOf(store).prepare(`SELECT semantic_state AS state, semantic_reason AS reason FROM files WHERE id = ?`).get(aFile);
  return { store, id, aFile, rows, state };
}

describe('semantic passes and their failure (store)', () => {
  it('a pass sets aside the syntactic edge of each use it resolved; degrading brings it back and drops the exact ones', () => {
    const { store, id, aFile, rows, state } = setup();
    // The pass resolves the call at line 3 only.
    const applied = store.writer.applySemanticPass({
      fileIds: [aFile],
      edges: [{ sourceId: id('runA'), targetId: id('format'), targetKey: 'ts:file:src/money.ts#format', targetName: 'format', type: 'calls', confidence: 'exact', fileId: aFile, line: 3 }],
      types: [...TYPES],
      extractor: 'semantic:test-1',
    });
    expect(applied).toEqual({ inserted: 1, superseded: 1 });
    expect(rows('edges')).toEqual([
      { type: 'calls', confidence: 'exact', target: 'format', line: 3, extractor: 'semantic:test-1' },
      { type: 'calls', confidence: 'approximate', target: 'format', line: 5, extractor: 'test@1' },
    ]);
    expect(rows('superseded_edges')).toEqual([{ type: 'calls', confidence: 'approximate', target: 'format', line: 3, extractor: 'test@1' }]);
    expect([state(), store.reader().nodeById(id('format'))!.referenceCount]).toEqual([{ state: 'ok', reason: null }, 1]);

    // The project stops loading: exact edges go, the set-aside one returns, in one transaction.
    expect(store.writer.degradeSemantic([aFile], [...TYPES], 'failed', 'project_load_failed: tsconfig.json is not valid JSON')).toEqual({ removed: 1 });
    expect(rows('edges')).toEqual([
      { type: 'calls', confidence: 'approximate', target: 'format', line: 3, extractor: 'test@1' },
      { type: 'calls', confidence: 'approximate', target: 'format', line: 5, extractor: 'test@1' },
    ]);
    expect(rows('superseded_edges')).toEqual([]);
    expect([state(), store.reader().nodeById(id('format'))!.referenceCount]).toEqual([
      { state: 'failed', reason: 'project_load_failed: tsconfig.json is not valid JSON' },
      null,
    ]);

    // Degrading again changes nothing (no exact edges, nothing set aside).
    expect(store.writer.degradeSemantic([aFile], [...TYPES], 'failed', 'again')).toEqual({ removed: 0 });
    expect(rows('edges').length).toBe(2);
    store.close();
  });
});

describe('stored skeletons (the nodes a partial TS pass names its targets by)', () => {
  it("gives each parsed file's nodes with its content hash, files in path order, whole files within the cap", () => {
    const { store } = setup();
    const view = (cap: number, languages: string[] = ['ts'], label = 'working') =>
      store.semantic.storedSkeletons(label, languages, cap).map((f) => {
        const names = new Map(f.nodes.map((n) => [n.id, n.name]));
        return [f.path, f.contentHash, f.nodes.map((n) => [n.kind, n.name, n.symbolKey, n.parentId === null ? null : names.get(n.parentId), n.startByte, n.endByte])];
      });
    expect(view(100)).toEqual([
      ['src/a.ts', 'h2', [['file', 'a.ts', 'ts:file:src/a.ts#', null, 0, 10], ['function', 'runA', 'ts:file:src/a.ts#runA', 'a.ts', 0, 10]]],
      ['src/money.ts', 'h1', [['file', 'money.ts', 'ts:file:src/money.ts#', null, 0, 10], ['function', 'format', 'ts:file:src/money.ts#format', 'money.ts', 0, 10]]],
    ]);
    // a.ts (2 nodes) fits in 3, money.ts would not: files are never cut.
    expect(view(3).map((f) => f[0])).toEqual(['src/a.ts']);
    expect(view(1)).toEqual([]);
    expect(view(100, ['cs'])).toEqual([]);
    expect(view(100, ['ts'], 'no-such-label')).toEqual([]);
  });
});
