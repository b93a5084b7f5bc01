import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { cachedPluck, cachedRaw, cachedStatement } from '../src/statements.js';
import { dbOf } from './helpers.js';

describe('cached statements', () => {
  it('a pluck or raw statement never changes what a shared statement of the same SQL returns', () => {
    const store = Store.open(':memory:');
    const db = dbOf(store);
    db.exec(`INSERT INTO _metadata(key, value) VALUES ('t', 'x')`);
    const sql = `SELECT key, value FROM _metadata WHERE key = 't'`;
    // The filter compiler reads file paths as raw rows; the graph reader reads the same SQL as
    // objects (a shared statement switched to raw once gave it rows without paths).
    expect(cachedRaw(db, sql).all()).toEqual([['t', 'x']]);
    expect(cachedPluck(db, sql).all()).toEqual(['t']);
    expect(cachedStatement(db, sql).all()).toEqual([{ key: 't', value: 'x' }]);
    store.close();
  });
});
