import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFilter } from '@ca/schema';
import { LATEST_SCHEMA_VERSION, Store, buildFtsQuery } from '../src/index.js';
import { fileWrite, node, dbOf, keyPlanner } from './helpers.js';

/** Indexes one symbol per identifier; returns a function giving the tokens FTS5 stored per column. */
function indexIdentifiers(identifiers: string[]) {
  const store = Store.open(':memory:');
  // Not `ids.ts`: stemmed, its path word `ids` would be `id`, in every row.
  const nodes = [node({ localId: 'f', name: 'symbols.ts', kind: 'file', symbolKey: 'ts:file:src/symbols.ts#' })];
  identifiers.forEach((id, i) =>
    nodes.push(
      node({
        localId: `n${i}`,
        name: id.split(/\.|::/).pop()!,
        qualifiedName: id,
        kind: 'variable',
        parentLocalId: 'f',
        symbolKey: `ts:file:src/symbols.ts#${id}`,
        chunkText: `const x = ${JSON.stringify(id)};`,
      }),
    ),
  );
  store.writer.writeBatch('working', [fileWrite('src/symbols.ts', 'h', nodes)], keyPlanner);
  dbOf(store).exec(`CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts_nodes', 'instance')`);
  const idOf = (qn: string) => store.reader().byQualifiedName(qn)[0]!.id;
  const tokens = (qn: string, column: string) =>
    (dbOf(store).prepare(`SELECT term FROM temp.vocab WHERE doc = ? AND col = ? ORDER BY offset`).all(idOf(qn), column) as { term: string }[]).map(
      (r) => r.term,
    );
  const search = (q: string) => store.reader().bm25(q).map((h) => store.reader().nodeById(h.nodeId)!.qualifiedName);
  return { store, tokens, search };
}

const IDS = ['AuthService.Authenticate', '$variable', 'global::MyApp.Core', '@event', 'getUserById', 'user_repository'];

describe('FTS5 tokenization (Porter over unicode61, tokenchars _.$:@)', () => {
  const { tokens, search } = indexIdentifiers(IDS);

  it('keeps qualified identifiers whole in the qualified_name column (Porter-stemmed as a whole)', () => {
    expect(tokens('AuthService.Authenticate', 'qualified_name')).toEqual(['authservice.authent']);
    expect(tokens('$variable', 'qualified_name')).toEqual(['$variabl']);
    expect(tokens('global::MyApp.Core', 'qualified_name')).toEqual(['global::myapp.cor']); // the whole token's measure > 1: final e dropped
    expect(tokens('@event', 'qualified_name')).toEqual(['@event']);
    expect(tokens('getUserById', 'qualified_name')).toEqual(['getuserbyid']);
    expect(tokens('user_repository', 'qualified_name')).toEqual(['user_repositori']);
  });

  it('indexes split words plus the joined form (and the kind) in the split column', () => {
    expect(tokens('AuthService.Authenticate', 'split')).toEqual(['auth', 'servic', 'authent', 'authservic', 'variabl']);
    expect(tokens('getUserById', 'split')).toEqual(['get', 'user', 'by', 'id', 'getuserbyid', 'variabl']);
    expect(tokens('global::MyApp.Core', 'split')).toEqual(['global', 'my', 'app', 'core', 'myapp', 'variabl']);
    expect(tokens('user_repository', 'split')).toEqual(['user', 'repositori', 'userrepositori', 'variabl']);
    expect(tokens('$variable', 'split')).toEqual(['variabl', 'variabl']);
    expect(tokens('@event', 'split')).toEqual(['event', 'variabl']);
  });

  it('matches each identifier written as-is, and by its words', () => {
    expect(search('AuthService.Authenticate')[0]).toBe('AuthService.Authenticate');
    expect(search('$variable')[0]).toBe('$variable');
    expect(search('global::MyApp.Core')[0]).toBe('global::MyApp.Core');
    expect(search('@event')[0]).toBe('@event');
    expect(search('getUserById')[0]).toBe('getUserById');
    expect(search('user_repository')[0]).toBe('user_repository');
    expect(search('authenticate')).toEqual(['AuthService.Authenticate']);
    expect(search('user by id')[0]).toBe('getUserById');
    expect(search('repository')).toEqual(['user_repository']);
    // Prefix on the name columns: `getUs` finds getUserById.
    expect(search('getus')).toEqual(['getUserById']);
  });
});

describe('query quoting', () => {
  it('quotes every term and joins with OR', () => {
    expect(buildFtsQuery('where is rate limiting handled')).toEqual({
      match: '"rate" OR "limiting" OR {name split} : "rate" * OR {name split} : "limiting" *',
      terms: ['rate', 'limiting'],
    });
    // `get` is a stop word (it would match every getter); the joined form keeps the identifier.
    expect(buildFtsQuery('getUserById').terms).toEqual(['getuserbyid', 'user', 'id']);
    // Five terms: a sentence, not a name being typed, so no prefix expansions.
    expect(buildFtsQuery('say "hi" NEAR(a b) OR c*').match).toBe('"say" OR "hi" OR "near" OR "b" OR "c"');
    // Prefixes need 4+ characters.
    expect(buildFtsQuery('get user').match).toBe('"user" OR {name split} : "user" *');
    // Short or not is decided on the whole query: a question stays one when its common words are dropped.
    expect(buildFtsQuery('draw the scene layer outline', { drop: new Set(['scene', 'layer']) }).match).toBe('"draw" OR "outline"');
    expect(buildFtsQuery('scene outline', { heads: new Set(['scene']) }).match).toBe(
      '{name qualified_name split} : "scene" OR "outline" OR {name split} : "outline" *',
    );
    expect(buildFtsQuery('')).toEqual({ match: null, terms: [] });
    expect(buildFtsQuery('*** "" :: ( )')).toEqual({ match: null, terms: [] });
  });

  it('never throws and never changes query structure on hostile input', () => {
    const { search } = indexIdentifiers(IDS);
    const hostile = [
      '"',
      '""',
      '*',
      'NEAR(',
      'NEAR(auth service, 2)',
      'OR',
      'AND OR NOT',
      ':',
      'qualified_name:auth',
      '{name}: x',
      'auth*',
      '^auth',
      '(auth',
      'a"b',
      'user_repository" OR "x',
      '-auth',
      '+',
      '😀 认证 服务',
      'x'.repeat(100_000),
    ];
    for (const q of hostile) expect(() => search(q)).not.toThrow();
    // A column filter in user text is just words: `qualified_name:auth` searches "qualified_name" and "auth".
    expect(search('qualified_name:auth')).toEqual(search('qualified_name auth'));
    expect(search('qualified_name:auth')).toEqual(['AuthService.Authenticate']);
    // Quotes cannot close the term early: this is the words user_repository and x (every chunk has `x`).
    expect(search('user_repository" OR "x')[0]).toBe('user_repository');
    expect(search('user_repository" OR "x').length).toBe(IDS.length);
    expect(search('NEAR(auth service, 2)')).toEqual(['AuthService.Authenticate']);
  });
});

describe('posting budget of a BM25 query', () => {
  // alpha is in 5 identifiers, beta in 3, gamma in 1 (split words of the names).
  const { store } = indexIdentifiers(['alphaBetaGamma', 'alphaBetaOne', 'alphaBetaTwo', 'alphaThree', 'alphaFour']);
  const drops = (terms: string[], budget: number, s = store) => s.reader().termPlan(terms, budget).drop;

  it('drops the most common terms past the budget, never the rarest', () => {
    expect(drops(['alpha', 'beta', 'gamma'], 4)).toEqual(new Set(['alpha']));
    expect(drops(['alpha', 'beta', 'gamma'], 0)).toEqual(new Set(['alpha', 'beta']));
    expect(drops(['alpha', 'beta', 'gamma'], 100)).toEqual(new Set());
    expect(drops(['alpha'], 0)).toEqual(new Set());
    // A term the index has never seen counts as rare (df 0) and is kept.
    expect(drops(['alpha', 'zeta'], 0)).toEqual(new Set(['alpha']));
  });

  it('when every term is over the budget, keeps the rarest by its exact count (counts are capped at budget + 1)', () => {
    // alpha 5 rows, beta 3: both over a budget of 2, both 3 when counted up to 3 rows.
    expect(drops(['alpha', 'beta'], 2)).toEqual(new Set(['alpha']));
    expect(drops(['beta', 'alpha'], 2)).toEqual(new Set(['alpha']));
    // Under the cap the capped counts decide alone: gamma (1) fits, beta (3) and alpha (5) do not.
    expect(drops(['alpha', 'beta', 'gamma'], 2)).toEqual(new Set(['alpha', 'beta']));
  });

  it('looks a term up by its stemmed form, as the index holds it', () => {
    const { store: s } = indexIdentifiers(['eventListeners', 'listenerCount', 'onListening']);
    // `listeners`, `listener` and `listening` are all `listen` in the index: 3 rows.
    expect(drops(['listeners', 'zeta'], 2, s)).toEqual(new Set(['listeners']));
    expect(drops(['listeners', 'zeta'], 3, s)).toEqual(new Set());
  });

  it('the document frequencies follow writes to the index', () => {
    expect(drops(['gamma', 'beta'], 4)).toEqual(new Set());
    store.writer.writeBatch('working', [
      fileWrite('src/more.ts', 'h2', [
        node({ localId: 'f', name: 'more.ts', kind: 'file', symbolKey: 'ts:file:src/more.ts#' }),
        node({ localId: 'b', name: 'betaFive', qualifiedName: 'betaFive', kind: 'variable', parentLocalId: 'f', symbolKey: 'ts:file:src/more.ts#betaFive', chunkText: 'const betaFive = 5;' }),
      ]),
    ], keyPlanner);
    // beta is now in 4 rows: gamma (1) + beta (4) > 4.
    expect(drops(['gamma', 'beta'], 4)).toEqual(new Set(['beta']));
  });

  describe('a rarest term over the budget on its own', () => {
    // `paint` is a word of one name (paintLayer) and is called in three other bodies; `zap` is only ever called.
    const s = Store.open(':memory:');
    const fn = (name: string, body: string) =>
      node({ localId: name, name, qualifiedName: name, kind: 'function', parentLocalId: 'f', symbolKey: `ts:file:src/draw.ts#${name}`, chunkText: `function ${name}() { ${body} }` });
    s.writer.writeBatch('working', [
      fileWrite('src/draw.ts', 'h', [
        node({ localId: 'f', name: 'draw.ts', kind: 'file', symbolKey: 'ts:file:src/draw.ts#' }),
        fn('paintLayer', ''),
        fn('renderScene', 'paint(); zap();'),
        fn('redrawAll', 'paint(); paint(); zap();'),
        fn('clearCanvas', 'paint(); zap();'),
      ]),
    ], keyPlanner);
    const matches = (q: string) =>
      (dbOf(s).prepare(`SELECT rowid FROM fts_nodes WHERE fts_nodes MATCH ? ORDER BY rowid`).pluck().all(q) as number[]).map(
        (id) => s.reader().nodeById(id)!.name,
      );

    it('is matched in the name columns only', () => {
      expect(s.reader().termPlan(['paint'], 3)).toEqual({ drop: new Set(), heads: new Set(['paint']) });
      // The rarest (zap, 3 rows) is over the budget but in no name: kept whole; paint no longer fits.
      expect(s.reader().termPlan(['paint', 'zap'], 2)).toEqual({ drop: new Set(['paint']), heads: new Set() });
      const q = buildFtsQuery('paint', s.reader().termPlan(['paint'], 3));
      expect(q.match).toBe('{name qualified_name split} : "paint"');
      expect(matches(q.match!)).toEqual(['paintLayer']);
      // Within the budget it matches everywhere (bodies included), as before.
      expect(s.reader().termPlan(['paint'], 4)).toEqual({ drop: new Set(), heads: new Set() });
      expect(matches(buildFtsQuery('paint').match!)).toEqual(['paintLayer', 'renderScene', 'redrawAll', 'clearCanvas']);
    });

    it('is kept whole when no name holds it (the restriction would find nothing)', () => {
      expect(s.reader().termPlan(['zap'], 1)).toEqual({ drop: new Set(), heads: new Set() });
      expect(matches(buildFtsQuery('zap', s.reader().termPlan(['zap'], 1)).match!)).toEqual(['renderScene', 'redrawAll', 'clearCanvas']);
    });
  });
});

describe('migration 5 (Porter-stemmed FTS)', () => {
  it('re-creates the full-text rows of an existing index from its nodes', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ca-fts-')), 'index.db');
    const first = Store.open(path);
    first.writer.writeBatch('working', [
      fileWrite('src/format.ts', 'h', [
        node({ localId: 'f', name: 'format.ts', kind: 'file', symbolKey: 'ts:file:src/format.ts#' }),
        node({ localId: 'a', name: 'formatCharges', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/format.ts#formatCharges', chunkText: 'function formatCharges() { return charging(); }' }),
      ]),
    ], keyPlanner);
    // Back to schema 4: the old tokenizer, rows included, and no record of the later migrations.
    dbOf(first).exec(`DROP TABLE fts_nodes;
      CREATE VIRTUAL TABLE fts_nodes USING fts5(name, qualified_name, split, signature, doc, path, body, content='', contentless_delete=1,
        tokenize="unicode61 remove_diacritics 2 tokenchars '_.$:@'", prefix='2 3 4');
      DELETE FROM _migration_log WHERE version >= 5;
      UPDATE _metadata SET value = '4' WHERE key = 'schema_version';`);
    expect(first.reader().bm25('formatted charge')).toEqual([]);
    first.close();

    const reopened = Store.open(path);
    expect(reopened.reader().metadata('schema_version')).toBe(String(LATEST_SCHEMA_VERSION));
    const hits = reopened.reader().bm25('formatted charge').map((h) => reopened.reader().nodeById(h.nodeId)!.qualifiedName);
    // `formatted` and `format`, `charge` and `charges`/`charging` meet once stemmed.
    expect(hits).toEqual(['formatCharges', 'format.ts']);
    reopened.close();
  });
});

describe('FTS rows of a re-parsed file', () => {
  it('a node whose words did not change keeps its row; a changed chunk, doc, signature or name gets a new one', () => {
    const s = Store.open(':memory:');
    const fn = (name: string, chunk: string, extra: Partial<Parameters<typeof node>[0]> = {}, line = 1) =>
      node({
        localId: name,
        name,
        kind: 'function',
        parentLocalId: 'f',
        symbolKey: `ts:file:src/words.ts#${name}`,
        chunkText: chunk,
        span: { startLine: line, endLine: line, startByte: line * 20, endByte: line * 20 + 19 },
        ...extra,
      });
    const file = node({ localId: 'f', name: 'words.ts', kind: 'file', symbolKey: 'ts:file:src/words.ts#' });
    s.writer.writeBatch('working', [
      fileWrite('src/words.ts', 'v1', [
        file,
        fn('keepsWords', 'function keepsWords() { return walnut(); }', {}, 1),
        fn('changesBody', 'function changesBody() { return hazel(); }', {}, 2),
        fn('changesDoc', 'function changesDoc() {}', { doc: 'mentions almond' }, 3),
        fn('changesSignature', 'function changesSignature() {}', { signature: 'changesSignature(pecan)' }, 4),
      ]),
    ], keyPlanner);
    const hits = (q: string) => s.reader().bm25(q).map((h) => s.reader().nodeById(h.nodeId)!.name).sort();
    expect([hits('walnut'), hits('hazel'), hits('almond'), hits('pecan')]).toEqual([['keepsWords'], ['changesBody'], ['changesDoc'], ['changesSignature']]);
    // Every node moved down a line (a line added above them): same ids, new spans.
    s.writer.writeBatch('working', [
      fileWrite('src/words.ts', 'v2', [
        file,
        fn('keepsWords', 'function keepsWords() { return walnut(); }', {}, 2),
        fn('changesBody', 'function changesBody() { return chestnut(); }', {}, 3),
        fn('changesDoc', 'function changesDoc() {}', { doc: 'mentions cashew' }, 4),
        fn('changesSignature', 'function changesSignature() {}', { signature: 'changesSignature(pistachio)' }, 5),
      ]),
    ], keyPlanner);
    expect([hits('walnut'), hits('hazel'), hits('chestnut'), hits('almond'), hits('cashew'), hits('pecan'), hits('pistachio')]).toEqual([
      ['keepsWords'],
      [],
      ['changesBody'],
      [],
      ['changesDoc'],
      [],
      ['changesSignature'],
    ]);
    // One row per node, none left over.
    const rows = dbOf(s).prepare(`SELECT count(*) FROM fts_nodes`).pluck().get();
    const nodes = dbOf(s).prepare(`SELECT count(*) FROM nodes`).pluck().get();
    expect([rows, nodes]).toEqual([5, 5]);
    expect(s.reader().byQualifiedName('keepsWords')[0]!.startLine).toBe(2);
  });
});

describe('the documentation partition (decision 039)', () => {
  /** A code file and a Markdown file sharing the word `walnut`; the Markdown section is named `login` like the code's function. */
  function twoFiles(s: Store): void {
    s.writer.writeBatch('working', [
      fileWrite('src/auth.ts', 'c1', [
        node({ localId: 'f', name: 'auth.ts', kind: 'file', symbolKey: 'ts:file:src/auth.ts#' }),
        node({ localId: 'a', name: 'login', kind: 'function', parentLocalId: 'f', symbolKey: 'ts:file:src/auth.ts#login', chunkText: 'function login() { return walnut(); }' }),
      ]),
      fileWrite(
        'README.md',
        'd1',
        [
          node({ localId: 'f', name: 'README.md', kind: 'file', symbolKey: 'markdown:file:README.md#', chunkText: '# login' }),
          node({ localId: 's', name: 'login', kind: 'doc', parentLocalId: 'f', symbolKey: 'markdown:file:README.md#login', chunkText: '# login\nwalnut walnut' }),
        ],
        [],
        { language: 'markdown' },
      ),
    ], keyPlanner);
  }
  const where = (s: Store, ids: readonly number[]) => ids.map((id) => `${s.reader().nodeById(id)!.path}#${s.reader().nodeById(id)!.name}`);

  it('keeps the rows of documentation files in fts_docs: bm25 reads the code alone, bm25Docs the documentation alone', () => {
    const s = Store.open(':memory:');
    twoFiles(s);
    const count = (table: string) => dbOf(s).prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    // fts_nodes: auth.ts's file node and login; fts_docs: README.md's file node and its section.
    expect([count('fts_nodes'), count('fts_docs')]).toEqual([2, 2]);
    expect(where(s, s.reader().bm25('walnut').map((h) => h.nodeId))).toEqual(['src/auth.ts#login']);
    // Only the section's text holds `walnut` (the file node's chunk is its heading line).
    expect(where(s, s.reader().bm25Docs('walnut').map((h) => h.nodeId))).toEqual(['README.md#login']);
    expect(where(s, s.reader().bm25Docs('login').map((h) => h.nodeId)).sort()).toEqual(['README.md#README.md', 'README.md#login']);
    expect(where(s, s.reader().bm25Docs('login', { expression: parseFilter('kind:doc') }).map((h) => h.nodeId))).toEqual(['README.md#login']);
  });

  it('the name channel leaves documentation nodes out unless asked', () => {
    const s = Store.open(':memory:');
    twoFiles(s);
    expect(s.reader().bySuffix('login').map((n) => n.path)).toEqual(['src/auth.ts']);
    expect(s.reader().bySuffix('login', undefined, 50, true).map((n) => n.path).sort()).toEqual(['README.md', 'src/auth.ts']);
    expect(s.reader().byQualifiedName('login').map((n) => n.path)).toEqual(['src/auth.ts']);
    expect(s.reader().byQualifiedName('login', undefined, 50, true).map((n) => n.path).sort()).toEqual(['README.md', 'src/auth.ts']);
  });

  it('documentation nodes are not embedded: the vector channel stays the code\'s', () => {
    const s = Store.open(':memory:');
    twoFiles(s);
    expect(s.vectors.countNodesNeedingEmbedding('working')).toBe(2);
    expect(s.vectors.nodesNeedingEmbedding('working', 10).map((n) => `${n.path}#${n.name}`)).toEqual(['src/auth.ts#auth.ts', 'src/auth.ts#login']);
  });

  it('a documentation file: a re-parse replaces its fts_docs rows, a removal drops them', () => {
    const s = Store.open(':memory:');
    twoFiles(s);
    s.writer.writeBatch('working', [
      fileWrite(
        'README.md',
        'd2',
        [
          node({ localId: 'f', name: 'README.md', kind: 'file', symbolKey: 'markdown:file:README.md#', chunkText: '# login\nhazel' }),
          node({ localId: 's', name: 'login', kind: 'doc', parentLocalId: 'f', symbolKey: 'markdown:file:README.md#login', chunkText: '# login\nhazel' }),
        ],
        [],
        { language: 'markdown' },
      ),
    ], keyPlanner);
    expect([s.reader().bm25Docs('walnut').length, s.reader().bm25Docs('hazel').length, s.reader().bm25('hazel').length]).toEqual([0, 2, 0]);
    s.writer.removePaths('working', ['README.md']);
    expect(dbOf(s).prepare(`SELECT count(*) FROM fts_docs`).pluck().get()).toBe(0);
  });

  it('migration 14 moves the rows of documentation nodes an index kept in fts_nodes to fts_docs', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ca-fts-')), 'index.db');
    const first = Store.open(path);
    twoFiles(first);
    // Back to schema 13, as an index built when documentation rows shared fts_nodes.
    dbOf(first).exec(`DELETE FROM fts_docs;
      DELETE FROM _migration_log WHERE version >= 14;
      UPDATE _metadata SET value = '13' WHERE key = 'schema_version';`);
    const ids = dbOf(first).prepare(`SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = 'README.md' ORDER BY n.id`).pluck().all() as number[];
    const insert = dbOf(first).prepare(`INSERT INTO fts_nodes(rowid, name, qualified_name, split, signature, doc, path, body) VALUES (?, 'x', 'x', 'x', 'x', '', 'readme md', 'walnut walnut')`);
    for (const id of ids) insert.run(id);
    dbOf(first).exec(`DROP TABLE fts_docs`);
    expect(first.reader().bm25('walnut').length).toBe(3);
    first.close();

    const reopened = Store.open(path);
    expect(reopened.reader().metadata('schema_version')).toBe(String(LATEST_SCHEMA_VERSION));
    expect(where(reopened, reopened.reader().bm25('walnut').map((h) => h.nodeId))).toEqual(['src/auth.ts#login']);
    // Re-derived from the nodes: the section's text holds `walnut`, the file node's does not.
    expect(where(reopened, reopened.reader().bm25Docs('walnut').map((h) => h.nodeId))).toEqual(['README.md#login']);
    reopened.close();
  });
});
