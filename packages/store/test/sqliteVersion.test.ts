import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { assertSqliteVersion, compareVersions, MIN_SQLITE_VERSION, Store } from '../src/index.js';

describe('the SQLite floor (WAL-reset fix)', () => {
  it('refuses every release before 3.51.3 and accepts it and later ones', () => {
    expect(MIN_SQLITE_VERSION).toBe('3.51.3');
    for (const old of ['3.51.2', '3.50.4', '3.7.0', '3.45.10']) {
      let error: unknown = null;
      try {
        assertSqliteVersion(old);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CaError);
      expect((error as CaError).code).toBe('sqlite_too_old');
      expect((error as CaError).message).toBe(
        `SQLite ${old} is older than 3.51.3, which fixed the WAL-reset corruption bug; the index is not opened (reinstall: better-sqlite3 bundles its SQLite)`,
      );
    }
    for (const ok of ['3.51.3', '3.52.0', '3.53.2', '4.0.0']) expect(() => assertSqliteVersion(ok)).not.toThrow();
    expect([compareVersions('3.51.10', '3.51.3'), compareVersions('3.51', '3.51.0')]).toEqual([7, 0]);
  });

  it('the bundled library passes the floor, so every open works', () => {
    const db = new BetterSqlite3(':memory:');
    try {
      const version = String(db.prepare('SELECT sqlite_version()').pluck().get());
      expect(compareVersions(version, MIN_SQLITE_VERSION)).toBeGreaterThanOrEqual(0);
    } finally {
      db.close();
    }
    // Store.open checks the same library: it opens.
    Store.open(':memory:').close();
  });
});
