import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store, type SemanticEdgeWrite } from '../src/index.js';
import { fileWrite, node, dbOf, keyPlanner } from './helpers.js';

const EXTRACTOR = 'semantic:test-1';

/** money.ts defines `format`; a.ts and b.ts each hold one function that may call it. */
function setup(path = ':memory:') {
  const store = Store.open(path);
  const file = (p: string, fn: string) =>
    fileWrite(p, `h-${p}`, [
      node({ localId: 'f', name: p, kind: 'file', symbolKey: `ts:file:${p}#` }),
      node({ localId: 'n', name: fn, kind: 'function', parentLocalId: 'f', symbolKey: `ts:file:${p}#${fn}` }),
    ]);
  store.writer.writeBatch('working', [file('src/money.ts', 'format'), file('src/a.ts', 'runA'), file('src/b.ts', 'runB')], keyPlanner);
  const id = (name: string) => (dbOf(store).prepare(`SELECT id FROM nodes WHERE name = ?`).get(name) as { id: number }).id;
  const fileId = (p: string) => (dbOf(store).prepare(`SELECT file_id AS id FROM label_files WHERE path = ?`).get(p) as { id: number }).id;
  const count = () => store.reader().nodeById(id('format'))!.referenceCount;
  /** One semantic pass over `path` whose function uses `format` at each of `lines`. */
  const pass = (path: string, fn: string, lines: number[], type: 'calls' | 'references' | 'inherits' = 'calls') => {
    const edges: SemanticEdgeWrite[] = lines.map((line) => ({
      sourceId: id(fn),
      targetId: id('format'),
      targetKey: 'ts:file:src/money.ts#format',
      targetName: 'format',
      type,
      confidence: 'exact',
      fileId: fileId(path),
      line,
    }));
    store.writer.applySemanticPass({ fileIds: [fileId(path)], edges, types: ['calls', 'references', 'inherits'], extractor: EXTRACTOR });
  };
  return { store, count, pass };
}

describe('reference counts (store migration 7)', () => {
  it('add up every pass, follow a re-analysed file and forget a removed one', () => {
    const { store, count, pass } = setup();
    expect(count()).toBeNull();
    pass('src/a.ts', 'runA', [3, 4]);
    pass('src/b.ts', 'runB', [7], 'references');
    expect(count()).toBe(3); // a.ts:3, a.ts:4, b.ts:7 — the second pass adds to the first
    pass('src/a.ts', 'runA', [3]);
    expect(count()).toBe(2); // a.ts again: its old uses are replaced, b.ts's stay
    pass('src/b.ts', 'runB', [9], 'inherits');
    expect(count()).toBe(1); // only calls and references are uses
    store.writer.removePaths('working', ['src/a.ts']);
    expect(count()).toBeNull();
    store.close();
  });

  it('are computed from the existing edges when an older index is opened', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ca-refcount-')), 'index.db');
    const first = setup(path);
    first.pass('src/a.ts', 'runA', [3, 4]);
    first.pass('src/b.ts', 'runB', [7]);
    // Back to schema 6: no triggers, counts as an older ca left them (the last pass's only).
    dbOf(first.store).exec(`DROP TRIGGER edges_count_insert; DROP TRIGGER edges_count_delete; DROP TRIGGER edges_count_update;
      UPDATE nodes SET reference_count = 1 WHERE name = 'format';
      DELETE FROM _migration_log WHERE version >= 7;
      UPDATE _metadata SET value = '6' WHERE key = 'schema_version';`);
    expect(first.count()).toBe(1);
    first.store.close();
    const reopened = Store.open(path);
    const format = dbOf(reopened).prepare(`SELECT reference_count AS c FROM nodes WHERE name = 'format'`).get();
    expect(format).toEqual({ c: 3 });
    reopened.close();
  });
});
