import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { fileWithSymbols, keyPlanner } from './helpers.js';

function open(): Store {
  return Store.open(join(mkdtempSync(join(tmpdir(), 'ca-snapsrc-')), 'index.db'));
}

describe('SnapshotSource (what a publisher reads of a label)', () => {
  it('reads the label\'s files, and per batch of files their nodes in position order with parents', () => {
    const store = open();
    store.labels.ensure('working', 'working');
    // src/a.ts: file node, alpha (bytes 0–9), beta (10–19); src/b.ts: file node, gamma.
    store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h-a', [{ name: 'alpha' }, { name: 'beta' }]), fileWithSymbols('src/b.ts', 'h-b', [{ name: 'gamma' }])], keyPlanner);
    const source = store.snapshotSource('working');
    expect(source.exists()).toBe(true);
    expect(store.snapshotSource('nope').exists()).toBe(false);
    const files = source.files();
    expect(files.map((f) => [f.path, f.contentHash, f.language, f.parseStatus, f.extractor])).toEqual([
      ['src/a.ts', 'h-a', 'ts', 'ok', 'test@1'],
      ['src/b.ts', 'h-b', 'ts', 'ok', 'test@1'],
    ]);
    const nodes = source.nodes([files[0]!.fileId]);
    // Ordered by (start byte, end byte): the helper's file node spans bytes 0–10, alpha 0–9 and
    // beta 10–19, so alpha (0, 9) comes before the file node (0, 10), then beta.
    expect(nodes.map((n) => n.name)).toEqual(['alpha', 'a.ts', 'beta']);
    const fileNode = nodes.find((n) => n.kind === 'file')!;
    expect(nodes.filter((n) => n.kind === 'function').map((n) => n.parentId)).toEqual([fileNode.id, fileNode.id]);
    expect(source.nodes(files.map((f) => f.fileId))).toHaveLength(5);
    expect(source.nodes([])).toEqual([]);
    store.close();
  });
});
