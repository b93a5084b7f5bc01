import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CaError, parseFilter, type LanguageSyntax } from '@ca/schema';
import { LATEST_SCHEMA_VERSION, Store, type IndexReader } from '../src/index.js';
import { fileWithSymbols, fileWrite, node, dbOf, keyPlanner } from './helpers.js';

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'ca-store-')), 'index.db');
}


/** A minimal `ts` module resolution for the resolver tests: `x` → `x.ts`, then `x/index.ts`, then `x`. */
const TEST_TS_RESOLUTION: LanguageSyntax = {
  languages: ['ts'],
  moduleResolution: { candidates: (p) => [`${p}.ts`, `${p}/index.ts`, p] },
};

describe('opening and migrations', () => {
  it('creates every table, records the migration and sets the pragmas', () => {
    const path = tempDb();
    const store = Store.open(path);
    const tables = (dbOf(store).prepare(`SELECT name FROM sqlite_master WHERE type IN ('table') ORDER BY name`).all() as { name: string }[])
      .map((r) => r.name)
      .filter((n) => !n.startsWith('sqlite_') && !n.startsWith('fts_nodes_') && !n.startsWith('fts_docs_') && !n.startsWith('vec_embeddings_'));
    expect(tables).toEqual([
      '_metadata',
      '_migration_log',
      'deletion_log',
      'edges',
      'embeddings',
      'events',
      'file_contents',
      'files',
      'fts_docs',
      'fts_nodes',
      'label_files',
      'labels',
      'module_lookups',
      'module_reexports',
      'node_embeddings',
      'node_spans',
      'nodes',
      'superseded_edges',
      'vec_embeddings',
      'vector_snapshot_parts',
    ]);
    expect(store.reader().metadata('schema_version')).toBe(String(LATEST_SCHEMA_VERSION));
    expect(dbOf(store).prepare(`SELECT version, name FROM _migration_log ORDER BY version`).all()).toEqual([
      { version: 1, name: 'initial schema' },
      { version: 2, name: 'vector freshness counters and stale-embedding triggers' },
      { version: 3, name: 'index on semantic state for completeness reports' },
      { version: 4, name: 'persisted quantised vector index (cold start)' },
      { version: 5, name: 'Porter-stemmed full-text index' },
      { version: 6, name: 'covering index of edge targets with their file' },
      { version: 7, name: 'reference counts kept by triggers from the semantic edges' },
      { version: 8, name: 'syntactic edges set aside by a semantic pass' },
      { version: 9, name: 'labels of commits and worktrees, file contents, sweepable journal' },
      { version: 10, name: 'indexes for identical code and filters' },
      { version: 11, name: 'unresolved edges by the name they use' },
      { version: 13, name: 'a file version per merge context' },
      { version: 14, name: 'documentation partition: a full-text table of its own' },
      { version: 15, name: 'where unresolved imports would be found' },
    ]);
    expect(dbOf(store).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(dbOf(store).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(dbOf(store).pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(dbOf(store).pragma('busy_timeout', { simple: true })).toBe(5000);
    store.close();
    // Re-opening applies nothing new: still the 14 rows listed above (1–11, 13, 14 (the
    // documentation partition) and 15 (module lookups); 12 was never released).
    const again = Store.open(path);
    expect(dbOf(again).prepare(`SELECT COUNT(*) AS c FROM _migration_log`).get()).toEqual({ c: 14 });
    again.close();
  });

  it('refuses a database written by a newer schema with a clear message', () => {
    const path = tempDb();
    Store.open(path).close();
    const raw = new BetterSqlite3(path);
    raw.prepare(`UPDATE _metadata SET value = '999' WHERE key = 'schema_version'`).run();
    raw.close();
    let err: unknown;
    try {
      Store.open(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CaError);
    expect((err as CaError).code).toBe('schema_too_new');
    expect((err as CaError).message).toContain(`schema version 999, newer than this ca supports (${LATEST_SCHEMA_VERSION})`);
  });

  it('reports a file that is not a database as db_corrupt', () => {
    const path = tempDb();
    writeFileSync(path, 'this is not sqlite'.repeat(200));
    expect(() => Store.open(path)).toThrowError(expect.objectContaining({ code: 'db_corrupt' }));
  });

  it('opening a missing index read-only says to run ca index', () => {
    expect(() => Store.open(tempDb(), { readonly: true })).toThrowError(/run `ca index` first/);
  });
});

describe('writer', () => {
  it('writes a file, reads it back and keeps node ids when the file changes', () => {
    const store = Store.open(tempDb());
    const first = store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h1', [{ name: 'alpha' }, { name: 'beta' }])], keyPlanner);
    expect(first).toEqual({ files: 1, nodesInserted: 3, nodesUpdated: 0, nodesDeleted: 0, edges: 0 });
    const reader = store.reader();
    const alpha = reader.bySuffix('alpha')[0]!;
    const beta = reader.bySuffix('beta')[0]!;
    expect([alpha.path, alpha.kind, alpha.qualifiedName, alpha.startLine]).toEqual(['src/a.ts', 'function', 'alpha', 1]);

    // New content: alpha survives (same key), beta is removed, gamma is new.
    const second = store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h2', [{ name: 'gamma' }, { name: 'alpha' }])], keyPlanner);
    expect(second).toEqual({ files: 1, nodesInserted: 1, nodesUpdated: 2, nodesDeleted: 1, edges: 0 });
    const alpha2 = reader.bySuffix('alpha')[0]!;
    expect(alpha2.id).toBe(alpha.id);
    expect(alpha2.startLine).toBe(2);
    expect(reader.bySuffix('beta')).toEqual([]);
    const journal = dbOf(store).prepare(`SELECT node_id, qualified_name, path, reason FROM deletion_log`).all();
    expect(journal).toEqual([{ node_id: beta.id, qualified_name: 'beta', path: 'src/a.ts', reason: 'symbol removed' }]);
    // The old file version is gone: one version per path in this single-label index.
    expect(dbOf(store).prepare(`SELECT path, content_hash FROM files`).all()).toEqual([{ path: 'src/a.ts', content_hash: 'h2' }]);
    // FTS follows: beta no longer matches, gamma does.
    expect(reader.bm25('beta')).toEqual([]);
    expect(reader.bm25('gamma').map((h) => h.nodeId)).toEqual([reader.bySuffix('gamma')[0]!.id]);
    store.close();
  });

  it('shares an unchanged file version between labels and removes paths per label', () => {
    const store = Store.open(tempDb());
    const f = fileWithSymbols('src/a.ts', 'h1', [{ name: 'alpha' }]);
    store.writer.writeBatch('working', [f], keyPlanner);
    store.writer.writeBatch('main', [f], keyPlanner);
    expect(dbOf(store).prepare(`SELECT COUNT(*) AS c FROM files`).get()).toEqual({ c: 1 });
    store.writer.removePaths('working', ['src/a.ts']);
    expect(store.reader('working').bySuffix('alpha')).toEqual([]);
    expect(store.reader('main').bySuffix('alpha').map((n) => n.path)).toEqual(['src/a.ts']);
    store.writer.removePaths('main', ['src/a.ts']);
    expect(dbOf(store).prepare(`SELECT COUNT(*) AS c FROM files`).get()).toEqual({ c: 0 });
    expect(dbOf(store).prepare(`SELECT COUNT(*) AS c FROM nodes`).get()).toEqual({ c: 0 });
    store.close();
  });

  it('filters read the label\'s nodes only, with and without other labels in the index', () => {
    const store = Store.open(tempDb());
    const generated = { ...fileWithSymbols('src/gen.ts', 'g1', [{ name: 'made' }]), generated: true };
    store.writer.writeBatch('working', [fileWithSymbols('src/a.ts', 'h1', [{ name: 'alpha' }, { name: 'beta' }]), generated], keyPlanner);
    const working = store.reader('working');
    const functions = { expression: parseFilter('kind:function') };
    const madeOnes = { expression: parseFilter('is:generated and kind:function') };
    const idOf = (reader: IndexReader, name: string) => reader.bySuffix(name)[0]!.id;
    const [alpha, beta, made] = ['alpha', 'beta', 'made'].map((n) => idOf(working, n)) as [number, number, number];
    // One label: it holds every file version (the per-node label check is skipped).
    expect(working.exclusive()).toBe(true);
    expect([...working.nodeIdsMatching(functions)]).toEqual([alpha, beta, made]);
    expect([...working.nodeIdsMatching(madeOnes)]).toEqual([made]);
    expect(working.idsPassing(functions, [made, alpha, 9999])).toEqual(new Set([made, alpha]));
    expect(working.idsPassing(madeOnes, [alpha, made])).toEqual(new Set([made]));
    // 3 of the 5 nodes (two file nodes) are functions.
    expect(working.passingFraction(functions)).toBe(3 / 5);
    // Another label with another version of src/a.ts: each label sees its own nodes.
    store.writer.writeBatch('main', [fileWithSymbols('src/a.ts', 'h2', [{ name: 'gamma' }])], keyPlanner);
    const main = store.reader('main');
    const gamma = idOf(main, 'gamma');
    expect([working.exclusive(), main.exclusive()]).toEqual([false, false]);
    expect([...working.nodeIdsMatching(functions)]).toEqual([alpha, beta, made]);
    expect([...main.nodeIdsMatching(functions)]).toEqual([gamma]);
    expect(working.idsPassing(functions, [gamma, beta])).toEqual(new Set([beta]));
    expect(main.idsPassing(functions, [gamma, beta, made])).toEqual(new Set([gamma]));
    expect(main.idsPassing(madeOnes, [gamma, made])).toEqual(new Set());
    expect([working.passingFraction(functions), main.passingFraction(functions)]).toEqual([3 / 5, 1 / 2]);
    store.close();
  });

  it('merges partial fragments into one node with several spans and keeps it when one file goes', () => {
    const store = Store.open(tempDb());
    const frag = (path: string, hash: string, start: number) =>
      fileWrite(
        path,
        hash,
        [
          node({ localId: 'f', name: path, kind: 'file', symbolKey: `cs:file:${path}#` }),
          node({
            localId: 'c',
            name: 'Customer',
            kind: 'class',
            qualifiedName: 'Acme.Customer',
            symbolKey: 'cs:global#Acme.Customer',
            parentLocalId: 'f',
            modifiers: ['public', 'partial'],
            span: { startLine: start, endLine: start + 5, startByte: start * 10, endByte: start * 10 + 50 },
          }),
          node({
            localId: 'm',
            name: `M${start}`,
            kind: 'method',
            qualifiedName: `Acme.Customer.M${start}`,
            symbolKey: `cs:global#Acme.Customer.M${start}()`,
            parentLocalId: 'c',
          }),
        ],
        [],
        { language: 'cs' },
      );
    store.writer.writeBatch('working', [frag('src/Customer.cs', 'a', 3)], keyPlanner);
    store.writer.writeBatch('working', [frag('src/Customer.Billing.cs', 'b', 7)], keyPlanner);
    const reader = store.reader();
    const customers = reader.byQualifiedName('Acme.Customer');
    expect(customers.length).toBe(1);
    const c = customers[0]!;
    // Primary span = first fragment by path order ('src/Customer.Billing.cs' < 'src/Customer.cs').
    expect([c.path, c.startLine]).toEqual(['src/Customer.Billing.cs', 7]);
    expect(dbOf(store).prepare(`SELECT f.path, s.start_line FROM node_spans s JOIN files f ON f.id = s.file_id WHERE node_id = ?`).all(c.id))
      .toEqual([{ path: 'src/Customer.cs', start_line: 3 }]);
    expect(reader.children(c.id).map((n) => n.name).sort()).toEqual(['M3', 'M7']);
    // A file holding a fragment of a node declared elsewhere has no stored skeleton (its
    // stored nodes are not what a parse of it gives); the primary fragment's file has one.
    expect(store.semantic.storedSkeletons('working', ['cs'], 100).map((f) => [f.path, f.nodes.map((n) => n.name)])).toEqual([
      // In id order: the class was inserted with the first fragment's file.
      ['src/Customer.Billing.cs', ['Customer', 'src/Customer.Billing.cs', 'M7']],
    ]);
    // Deleting the primary fragment's file keeps the node with the remaining span.
    store.writer.removePaths('working', ['src/Customer.Billing.cs']);
    const after = reader.byQualifiedName('Acme.Customer');
    expect(after.map((n) => [n.id, n.path, n.startLine])).toEqual([[c.id, 'src/Customer.cs', 3]]);
    expect(reader.children(c.id).map((n) => n.name)).toEqual(['M3']);
    store.close();
  });

  it('resolves imported names through a barrel and keeps edges source-driven', () => {
    // The module resolution the engine hands over for `ts` files: here just `.ts` and `/index.ts`
    // (the real one, @ca/parse-ts `tsModuleResolution`, has its own tests).
    const store = Store.open(tempDb(), { languages: [TEST_TS_RESOLUTION] });
    const util = fileWithSymbols('src/util/format.ts', 'u1', [{ name: 'formatDate' }]);
    const barrel = fileWrite('src/util/index.ts', 'b1', [node({ localId: 'f', name: 'index.ts', kind: 'module', symbolKey: 'ts:file:src/util/index.ts#' })], [], {
      reExports: [{ modulePath: 'src/util/format', names: '*' }],
    });
    const app = fileWrite(
      'src/app.ts',
      'a1',
      [
        node({ localId: 'f', name: 'app.ts', kind: 'file', symbolKey: 'ts:file:src/app.ts#' }),
        node({ localId: 'main', name: 'main', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/app.ts#main()' }),
      ],
      [
        { sourceLocalId: 'f', type: 'imports', confidence: 'exact', line: 1, target: { key: '?formatDate', name: 'formatDate', modulePath: 'src/util', importedName: 'formatDate', specifier: './util' } },
        { sourceLocalId: 'main', type: 'calls', confidence: 'approximate', line: 3, target: { key: '?formatDate', name: 'formatDate', modulePath: 'src/util', importedName: 'formatDate' } },
        { sourceLocalId: 'main', type: 'calls', confidence: 'approximate', line: 4, target: { key: '?missing', name: 'missing', modulePath: 'src/nowhere', importedName: 'missing' } },
      ],
    );
    store.writer.writeBatch('working', [util, barrel, app], keyPlanner);
    expect(store.resolveImports()).toBe(2);
    const reader = store.reader();
    const fd = reader.bySuffix('formatDate')[0]!;
    const incoming = reader.edgesTo(fd.id).map((e) => [e.type, e.confidence, e.line, e.path]);
    expect(incoming).toEqual([
      ['imports', 'exact', 1, 'src/app.ts'],
      ['calls', 'approximate', 3, 'src/app.ts'],
    ]);
    // The target file changes: the node keeps its id, so edges stay resolved without touching the caller.
    store.writer.writeBatch('working', [fileWithSymbols('src/util/format.ts', 'u2', [{ name: 'parseDate' }, { name: 'formatDate' }])], keyPlanner);
    expect(reader.edgesTo(fd.id).length).toBe(2);
    // The target is deleted: edges stop resolving but keep name + module for a later run.
    store.writer.removePaths('working', ['src/util/format.ts']);
    const dangling = dbOf(store).prepare(`SELECT target_name, target_id, target_module FROM edges WHERE type = 'calls' ORDER BY line`).all();
    expect(dangling).toEqual([
      { target_name: 'formatDate', target_id: null, target_module: 'src/util' },
      { target_name: 'missing', target_id: null, target_module: 'src/nowhere' },
    ]);
    store.close();
  });

  it('module paths resolve by the importing file\'s language strategy; without one only as written', () => {
    const write = (store: Store) => {
      const util = fileWithSymbols('src/util.ts', 'u1', [{ name: 'formatDate' }]);
      const app = fileWrite(
        'src/app.ts',
        'a1',
        [
          node({ localId: 'f', name: 'app.ts', kind: 'file', symbolKey: 'ts:file:src/app.ts#' }),
          node({ localId: 'main', name: 'main', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/app.ts#main()' }),
        ],
        [
          { sourceLocalId: 'main', type: 'calls', confidence: 'approximate', line: 3, target: { key: '?formatDate', name: 'formatDate', modulePath: 'src/util', importedName: 'formatDate' } },
          { sourceLocalId: 'main', type: 'calls', confidence: 'approximate', line: 4, target: { key: '?formatDate', name: 'formatDate', modulePath: 'src/util.ts', importedName: 'formatDate' } },
        ],
      );
      store.writer.writeBatch('working', [util, app], keyPlanner);
    };
    // No strategy: `src/util.ts` is the file's path as written (line 4); `src/util` names no file.
    const bare = Store.open(tempDb());
    write(bare);
    expect(bare.resolveImports()).toBe(1);
    bare.close();
    // A strategy registered for another language only (`cs`) does not apply to `ts` files.
    const other = Store.open(tempDb(), { languages: [{ ...TEST_TS_RESOLUTION, languages: ['cs'] }] });
    write(other);
    expect(other.resolveImports()).toBe(1);
    other.close();
    // The `ts` strategy: `src/util` → `src/util.ts` as well (both edges).
    const ts = Store.open(tempDb(), { languages: [TEST_TS_RESOLUTION] });
    write(ts);
    expect(ts.resolveImports()).toBe(2);
    ts.close();
  });
});
