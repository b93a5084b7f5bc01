import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, Store } from '../src/index.js';
import { dbOf } from './helpers.js';

// Migration 13 (decision 047): `files` is rebuilt with `extractor` and `merge_scope` in its unique key, without
// losing a row of the tables that reference it (foreign keys with ON DELETE CASCADE: dropping the
// old table with foreign keys on would have emptied them), and the versions already holding a
// C# `partial` fragment become their label's own.

/** An index at schema 11 (the schema before this change), as the migrations up to 11 built it. */
function schema11(path: string): BetterSqlite3.Database {
  const raw = new BetterSqlite3(path);
  sqliteVec.load(raw);
  raw.pragma('foreign_keys = ON');
  raw.exec(`CREATE TABLE _metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE _migration_log (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);`);
  for (const m of MIGRATIONS.filter((x) => x.version <= 11)) {
    raw.exec(m.sql);
    m.run?.(raw);
    raw.prepare(`INSERT INTO _migration_log(version, name, applied_at) VALUES (?, ?, 'x')`).run(m.version, m.name);
  }
  raw.prepare(`INSERT INTO _metadata(key, value) VALUES ('schema_version', '11')`).run();
  return raw;
}

describe('migration 13: a file version per merge context', () => {
  it('rebuilds files with merge_scope in the unique key, keeps every referencing row, scopes partial versions', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ca-merge-scope-')), 'index.db');
    const raw = schema11(path);
    const file = raw.prepare(`INSERT INTO files(path, content_hash, language, size, parse_status, indexed_at) VALUES (?, ?, 'csharp', 10, 'ok', 'x')`);
    const a = Number(file.run('src/Orders.A.cs', 'h-a').lastInsertRowid);
    const b = Number(file.run('src/Client.cs', 'h-b').lastInsertRowid);
    const node = raw.prepare(`INSERT INTO nodes(file_id, kind, language, name, qualified_name, symbol_key, modifiers, start_line, end_line, start_byte, end_byte)
      VALUES (?, 'class', 'csharp', ?, ?, ?, ?, 1, 3, 0, 30)`);
    const orders = Number(node.run(a, 'Orders', 'Shop.Orders', 'cs:global#Shop.Orders', 'public partial').lastInsertRowid);
    node.run(b, 'Client', 'Shop.Client', 'cs:global#Shop.Client', 'public');
    raw.prepare(`INSERT INTO node_spans(node_id, file_id, start_line, end_line, start_byte, end_byte) VALUES (?, ?, 1, 2, 0, 9)`).run(orders, b);
    raw.prepare(`INSERT INTO labels(name, updated_at) VALUES ('one', 'x'), ('two', 'x')`).run();
    raw.prepare(`INSERT INTO label_files(label_id, path, file_id) VALUES (1, 'src/Orders.A.cs', ?), (1, 'src/Client.cs', ?), (2, 'src/Client.cs', ?)`).run(a, b, b);
    raw.close();

    const store = Store.open(path);
    try {
      const db = dbOf(store);
      // The partial class's version gets its own scope (`#` and its id), the other stays shareable ('').
      expect(db.prepare(`SELECT id, path, content_hash, merge_scope FROM files ORDER BY id`).all()).toEqual([
        { id: a, path: 'src/Orders.A.cs', content_hash: 'h-a', merge_scope: `#${a}` },
        { id: b, path: 'src/Client.cs', content_hash: 'h-b', merge_scope: '' },
      ]);
      // Nothing referencing files went: 2 nodes, 1 span, 3 label entries.
      expect(db.prepare(`SELECT (SELECT COUNT(*) FROM nodes) AS nodes, (SELECT COUNT(*) FROM node_spans) AS spans, (SELECT COUNT(*) FROM label_files) AS entries`).get())
        .toEqual({ nodes: 2, spans: 1, entries: 3 });
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      // The same bytes at the same path: one shareable version, any number of own ones.
      const insert = db.prepare(`INSERT INTO files(path, content_hash, size, parse_status, indexed_at, merge_scope) VALUES ('src/Client.cs', 'h-b', 10, 'ok', 'x', ?)`);
      expect(() => insert.run('#99')).not.toThrow();
      expect(() => insert.run('')).toThrow('UNIQUE constraint failed: files.path, files.content_hash, files.extractor, files.merge_scope');
      // Another extractor's version of the same bytes is another shareable version.
      expect(() => db.prepare(`INSERT INTO files(path, content_hash, size, parse_status, indexed_at, extractor) VALUES ('src/Client.cs', 'h-b', 10, 'ok', 'x', 'cs@other')`).run()).not.toThrow();
      // Deleting a version still cascades (the rebuilt table is the one the foreign keys name).
      db.prepare(`DELETE FROM files WHERE id = ?`).run(a);
      expect(db.prepare(`SELECT COUNT(*) AS c FROM nodes WHERE file_id = ?`).get(a)).toEqual({ c: 0 });
    } finally {
      store.close();
    }
  }, 60_000);
});
