import { describe, expect, it } from 'vitest';
import { Store } from '../src/index.js';
import { cachedPluck, cachedRaw, cachedStatement, STATEMENT_CACHE_SIZE } from '../src/statements.js';
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

describe('the statement cache', () => {
  it('hands the same statement to the same SQL, a new one while it iterates, and keeps the most recent texts', () => {
    const store = Store.open(':memory:');
    const db = dbOf(store);
    db.exec(`INSERT INTO _metadata(key, value) VALUES ('a', '1'), ('b', '2')`);
    const sql = `SELECT key FROM _metadata WHERE key IN ('a', 'b') ORDER BY key`;
    const first = cachedStatement(db, sql);
    expect(cachedStatement(db, sql)).toBe(first);
    // The same SQL run inside an iteration of it: not the busy statement.
    const seen: string[] = [];
    for (const row of first.iterate() as IterableIterator<{ key: string }>) {
      const inner = cachedStatement(db, sql);
      expect(inner).not.toBe(first);
      seen.push(`${row.key}:${(inner.all() as { key: string }[]).map((r) => r.key).join('')}`);
    }
    expect(seen).toEqual(['a:ab', 'b:ab']);
    expect(cachedStatement(db, sql)).toBe(first);
    // Past the cap, the least recently used text is prepared again; the recently used one stays.
    for (let i = 0; i < STATEMENT_CACHE_SIZE; i++) {
      cachedStatement(db, sql);
      cachedStatement(db, `SELECT ${i} AS n`);
    }
    expect(cachedStatement(db, sql)).toBe(first);
    const old = cachedStatement(db, `SELECT 0 AS n`);
    for (let i = 1; i <= STATEMENT_CACHE_SIZE; i++) cachedStatement(db, `SELECT ${i} AS n`);
    expect(cachedStatement(db, `SELECT 0 AS n`)).not.toBe(old);
    store.close();
  });
});
