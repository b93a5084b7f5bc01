import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { inLabelExists, inLabelJoin, inLabelJoinByLabel, inLabelSet, labelEntriesCondition } from '../src/labelScope.js';
import { fileWithSymbols, keyPlanner } from './helpers.js';

describe('label scope fragments', () => {
  it('are fixed text with exactly one placeholder, and refuse anything but a column as the file id', () => {
    const fragments = [inLabelJoin('n.file_id'), inLabelJoin('e.file_id', 'id'), inLabelJoinByLabel('f.id'), inLabelExists('n.file_id'), inLabelSet('n.file_id', 'id'), labelEntriesCondition()];
    for (const f of fragments) expect(f.split('?').length - 1).toBe(1);
    expect(inLabelJoin('n.file_id')).toBe('JOIN label_files lf ON lf.file_id = n.file_id AND lf.label_id = (SELECT id FROM labels WHERE name = ?)');
    expect(inLabelJoin('e.file_id', 'id', 'x')).toBe('JOIN label_files x ON x.file_id = e.file_id AND x.label_id = ?');
    expect(() => inLabelJoin("n.file_id OR '1'='1'")).toThrow(/is not a column name/);
    expect(() => inLabelExists('1; DROP TABLE nodes')).toThrow(/is not a column name/);
  });
});

describe('label-scoped reads with awkward label names', () => {
  // Two labels hold two versions of src/a.ts: v1 (alpha, beta) under a name with quotes and a
  // SQL comment, v2 (gamma, alpha) under `working`. Each reader sees its own version only; a
  // name that tries to widen the query is just a label that does not exist.
  const odd = `it's "odd" -- x`;
  const open = () => {
    const store = Store.open(':memory:');
    store.writer.writeBatch(odd, [fileWithSymbols('src/a.ts', 'h1', [{ name: 'alpha' }, { name: 'beta' }])], keyPlanner);
    store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h2', [{ name: 'gamma' }, { name: 'alpha' }])], keyPlanner);
    return store;
  };

  it('outline, name lookups, BM25, file reads and counts answer for the named label only', () => {
    const store = open();
    const names = (label: string) => store.reader(label).outline('src/a.ts').map((n) => n.name);
    // The file node (named after the file) first, then the functions by start byte.
    expect(names(odd)).toEqual(['a.ts', 'alpha', 'beta']);
    expect(names('working')).toEqual(['a.ts', 'gamma', 'alpha']);
    expect(store.reader(odd).bySuffix('beta').map((n) => n.name)).toEqual(['beta']);
    expect(store.reader('working').bySuffix('beta')).toEqual([]);
    expect(store.reader(odd).bm25('gamma').length).toBe(0);
    expect(store.reader('working').bm25('gamma').length).toBe(1);
    expect(store.reader(odd).contentHashOf('src/a.ts')).toBe('h1');
    expect(store.reader('working').contentHashOf('src/a.ts')).toBe('h2');
    // Two functions per version; the file node is not a symbol.
    expect(store.reader(odd).counts().symbols).toBe(2);
    expect(store.explore(odd).files().map((f) => [f.path, f.symbols])).toEqual([['src/a.ts', 2]]);
    store.close();
  });

  it('a label name written as SQL matches nothing', () => {
    const store = open();
    for (const name of [`working' OR '1'='1`, `') OR 1=1 --`, `working"`]) {
      const reader = store.reader(name);
      expect(reader.outline('src/a.ts')).toEqual([]);
      expect(reader.bySuffix('alpha')).toEqual([]);
      expect(reader.bm25('alpha')).toEqual([]);
      expect(reader.contentHashOf('src/a.ts')).toBeNull();
      expect(store.explore(name).files()).toEqual([]);
    }
    store.close();
  });
});
