import { parseFilter } from '@ca/schema';
import type { Store } from '@ca/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bm25Search, listRepositories, nodesByRefs, publish, tableCounts, withSnapshot, type TeamHit } from '../src/index.js';
import { connect } from '../src/connection.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile } from './helpers.js';

const run = postgresAvailable();

// The fixture tree: src/a.ts (alpha, beta; beta calls alpha), src/b.ts (gamma, delta). Each
// function's chunk text is `function NAME() {}`, each file's `file PATH` (test/helpers.ts).
const tree = () => [
  sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]),
  sourceFile('src/b.ts', 'bbbb01', ['gamma', 'delta'], [['delta', 'gamma']]),
];

describe.runIf(run)('team store search: BM25, filters and hostile input', () => {
  let store: Store;
  let ro = '';
  beforeAll(async () => {
    const db = await freshDatabase();
    ro = db.ro;
    store = localIndex(tree());
    await publish(db.rw, 'acme/app', store.snapshotSource('working'));
  });
  afterAll(() => store?.close());

  /** The hits as `symbolKey score` lines (scores to 9 digits), best first. */
  async function ask(text: string, filter: string | null): Promise<string[]> {
    return withSnapshot(ro, 'acme/app', 'working', async (client, snap) => {
      const hits: TeamHit[] = await bm25Search(client, snap, text, filter === null ? null : parseFilter(filter), 10);
      const nodes = new Map((await nodesByRefs(client, snap, hits.map((h) => h.ref))).map((n) => [n.ref, n]));
      return hits.map((h) => `${nodes.get(h.ref)!.symbolKey} ${h.score.toPrecision(9)}`);
    });
  }

  /** The local index's BM25 for the same text, in the same form. */
  function local(text: string): string[] {
    const reader = store.reader('working');
    const hits = reader.bm25(text, undefined, 10);
    const nodes = new Map(reader.nodesByIds(hits.map((h) => h.nodeId)).map((n) => [n.id, n]));
    return hits.map((h) => `${nodes.get(h.nodeId)!.symbolKey} ${h.score.toPrecision(9)}`);
  }

  it('ranks as the local index: one function named in the text', async () => {
    // Only alpha's row holds the token `alpha` (name, qualified name, split, signature, body).
    const team = await ask('alpha', null);
    expect(team.map((l) => l.split(' ')[0])).toEqual(['ts:file:src/a.ts#alpha()']);
    expect(team).toEqual(local('alpha'));
  });

  it('SQL in the query text is words: nothing breaks, nothing is dropped', async () => {
    const text = "alpha'); DROP TABLE nodes; --";
    // Terms alpha, drop, table, nodes: only alpha occurs in the fixture.
    const team = await ask(text, null);
    expect(team.map((l) => l.split(' ')[0])).toEqual(['ts:file:src/a.ts#alpha()']);
    expect(team).toEqual(local(text));
    expect((await tableCounts(ro, 'acme/app'))['nodes']).toBe(6);
  });

  it('tsquery syntax in the query text is words too', async () => {
    // `&`, `!`, `|`, `:*` separate terms: alpha, beta, gamma; three rows, each its own term.
    const text = 'alpha & !beta | gamma:*';
    const team = await ask(text, null);
    expect(team.map((l) => l.split(' ')[0]).sort()).toEqual(['ts:file:src/a.ts#alpha()', 'ts:file:src/a.ts#beta()', 'ts:file:src/b.ts#gamma()']);
    expect([...team].sort()).toEqual([...local(text)].sort());
  });

  it('filters are bound values: kind:, path:, lang:, and a path glob that tries SQL matches no path', async () => {
    expect((await ask('gamma alpha', 'kind:function and path:src/b.ts')).map((l) => l.split(' ')[0])).toEqual(['ts:file:src/b.ts#gamma()']);
    expect((await ask('gamma alpha', 'lang:cs'))).toEqual([]);
    expect((await ask('gamma alpha', 'not path:src/b.ts')).map((l) => l.split(' ')[0])).toEqual(['ts:file:src/a.ts#alpha()']);
    expect(await ask('alpha', `path:'src/a.ts"); DROP TABLE nodes; --'`)).toEqual([]);
    expect((await tableCounts(ro, 'acme/app'))['nodes']).toBe(6);
  });

  it('a field the team store does not filter on yet is invalid_query, naming it', async () => {
    await expect(ask('alpha', 'name:alpha')).rejects.toMatchObject({ code: 'invalid_query', message: 'the filter field "name:" is not supported on the team store yet (lang:, kind:, path:, is: are)' });
  });

  it('repository and label names that try SQL injection are unknown labels, and the store is intact', async () => {
    await expect(withSnapshot(ro, "acme/app'; DROP TABLE labels; --", 'working', async () => 0)).rejects.toMatchObject({ code: 'unknown_label' });
    await expect(withSnapshot(ro, 'acme/app', "working' OR '1'='1", async () => 0)).rejects.toMatchObject({ code: 'unknown_label' });
    expect((await listRepositories(ro)).map((r) => `${r.repository} ${r.label}`)).toEqual(['acme/app working']);
  });

  it('publish stores the vector channel\'s scope per model with the snapshot and the model\'s total in the store', async () => {
    // Six nodes (two files, each a file node and two functions), one window each of test-model (revision r1);
    // six distinct chunk texts, so six embeddings in the store.
    const snap = await withSnapshot(ro, 'acme/app', 'working', async (_client, s) => s);
    expect([...snap.vectorCounts!]).toEqual([['test-model@r1', 6]]);
    const client = await connect(ro);
    try {
      const r = await client.query<{ vectors: string }>(`SELECT vectors FROM vector_models WHERE model = 'test-model@r1'`);
      expect(r.rows.map((x) => Number(x.vectors))).toEqual([6]);
    } finally {
      await client.end();
    }
  });
});
