import { seededRandom } from '@ca/schema';
import { ftsQueryParts, type Store } from '@ca/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/connection.js';
import { bm25Search, nodesByRefs, publish, teamTermPlan, withSnapshot } from '../src/index.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile } from './helpers.js';

const run = postgresAvailable();

// The BM25 term plan on both backends (decision 046, "Search at scale"): a generated index where
// a few words are in most names, searched with a small posting budget so that the local reader
// drops its common terms or matches its rarest in the name columns only; the team store must
// make the same decisions from its own document frequencies and so give the same hits and scores.

// Word lists, most common first: a word's chance falls with its place (Zipf-like), so `get` and
// `data` are in most names and the last words in a few.
const VERBS = ['get', 'load', 'save', 'parse', 'render', 'flush', 'merge'];
const NOUNS = ['data', 'user', 'cache', 'config', 'token', 'session', 'widget', 'ledger', 'quota'];
const TAILS = ['', '', 'async', 'sync', 'batch', 'now'];

function pick<T>(next: () => number, items: readonly T[]): T {
  // Index i with weight 1 / (i + 1).
  const weights = items.map((_, i) => 1 / (i + 1));
  let x = next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < items.length; i++) if ((x -= weights[i]!) <= 0) return items[i]!;
  return items[items.length - 1]!;
}

const cap = (w: string) => (w ? w[0]!.toUpperCase() + w.slice(1) : '');

/** `files` files of up to `perFile` distinct camelCase function names each, under `dir/` (file names from the same words). */
function generatedTree(seed: number, files: number, perFile: number) {
  const next = seededRandom(seed);
  return Array.from({ length: files }, (_, f) => {
    const names = new Set<string>();
    for (let i = 0; i < perFile; i++) names.add(`${pick(next, VERBS)}${cap(pick(next, NOUNS))}${cap(pick(next, TAILS))}`);
    const path = `gen/${pick(next, NOUNS)}${f}.ts`;
    return sourceFile(path, `gen${seed}-${f}`, [...names]);
  });
}

/** Queries: words, pairs and triples of the vocabulary, and identifiers (which add split words and, when short, prefixes). */
function* queries(seed: number, n: number): Generator<string> {
  const next = seededRandom(seed);
  const words = [...VERBS, ...NOUNS, ...TAILS.filter(Boolean)];
  for (let i = 0; i < n; i++) {
    const shape = i % 4;
    const w = () => words[Math.floor(next() * words.length)]!;
    if (shape === 0) yield w();
    else if (shape === 1) yield `${w()} ${w()}`;
    else if (shape === 2) yield `${w()} ${w()} ${w()} ${w()}`;
    else yield `${pick(next, VERBS)}${cap(pick(next, NOUNS))}`;
  }
}

const BUDGET = 40;
// Every matching row (the index has 270): a cut inside a run of equal scores keeps different rows
// on the two backends (the local index cuts by row id before ordering ties by path), so the whole
// ranking is compared.
const LIMIT = 1000;

describe.runIf(run)('team store BM25: the local term plan, mirrored', () => {
  let store: Store;
  let rw = '';
  let ro = '';
  beforeAll(async () => {
    const db = await freshDatabase();
    rw = db.rw;
    ro = db.ro;
    store = localIndex(generatedTree(3, 30, 8));
    await publish(rw, 'gen/app', store.snapshotSource('working'));
  }, 300_000);
  afterAll(() => store?.close());

  /** The team store's hits as `symbolKey score` lines (9 digits), best first. */
  async function team(text: string, budget: number): Promise<string[]> {
    return withSnapshot(ro, 'gen/app', 'working', async (client, snap) => {
      const hits = await bm25Search(client, snap, text, null, LIMIT, { budget });
      const nodes = new Map((await nodesByRefs(client, snap, hits.map((h) => h.ref))).map((n) => [n.ref, n]));
      return hits.map((h) => `${nodes.get(h.ref)!.symbolKey} ${h.score.toPrecision(9)}`);
    });
  }

  /** The local index's BM25 of the same text and budget, in the same form. */
  function local(text: string, budget: number): string[] {
    const reader = store.reader('working');
    const hits = reader.bm25(text, undefined, LIMIT, budget);
    const nodes = new Map(reader.nodesByIds(hits.map((h) => h.nodeId)).map((n) => [n.id, n]));
    return hits.map((h) => `${nodes.get(h.nodeId)!.symbolKey} ${h.score.toPrecision(9)}`);
  }

  it('the same plan, hits and scores as the local index for 80 generated queries, the plan dropping or restricting terms in most', async () => {
    const reader = store.reader('working');
    let planned = 0;
    let restricted = 0;
    let answered = 0;
    for (const text of queries(17, 80)) {
      const localPlan = reader.termPlan(termsOf(text), BUDGET);
      const teamPlan = await withSnapshot(ro, 'gen/app', 'working', (client, snap) => teamTermPlan(client, snap, termsOf(text), BUDGET));
      expect({ text, drop: [...teamPlan.drop], heads: [...teamPlan.heads] }).toEqual({ text, drop: [...localPlan.drop], heads: [...localPlan.heads] });
      if (localPlan.drop.size + localPlan.heads.size > 0) planned++;
      if (localPlan.heads.size > 0) restricted++;
      const want = local(text, BUDGET);
      if (want.length > 0) answered++;
      expect({ text, hits: await team(text, BUDGET) }).toEqual({ text, hits: want });
    }
    // The budget is the point of this test: most queries hold a term over it (`get`, `data` are in
    // most of the 240 names), and some only terms over it (their rarest matched in the names only).
    expect(planned).toBeGreaterThan(40);
    expect(restricted).toBeGreaterThan(0);
    // Queries of stop words only (`get`, `now` alone) have no term: the rest answer.
    expect(answered).toBeGreaterThan(60);
  }, 300_000);

  it('under the default budget (nothing dropped at this size) both backends still agree', async () => {
    for (const text of queries(23, 20)) expect({ text, hits: await team(text, 8000) }).toEqual({ text, hits: local(text, 8000) });
  }, 300_000);

  it('a snapshot published before the postings is not_indexed, naming the fix; publishing again backfills it and it answers as the local index', async () => {
    // What a store migrated from schema 5 holds: versions without postings, a snapshot without document frequencies.
    const client = await connect(rw);
    try {
      await client.query(`DELETE FROM postings`);
      await client.query(`DELETE FROM snapshot_terms`);
      await client.query(`UPDATE file_versions SET postings = false`);
      await client.query(`UPDATE snapshots SET terms = false`);
    } finally {
      await client.end();
    }
    await expect(team('getUser', BUDGET)).rejects.toMatchObject({
      code: 'not_indexed',
      message: 'label "working" of repository "gen/app" was published before the team store kept BM25 postings (schema migration 6): publish it again (ca publish) to search it',
    });
    const again = await publish(rw, 'gen/app', store.snapshotSource('working'));
    // Every version was known: nothing new written, the postings backfilled.
    expect(again.written.versions).toBe(0);
    for (const text of ['getUser', 'data cache', 'ledger quota sync']) expect({ text, hits: await team(text, BUDGET) }).toEqual({ text, hits: local(text, BUDGET) });
  }, 300_000);
});

/** A query's BM25 terms as the local reader plans them (`buildFtsQuery(text).terms`). */
function termsOf(text: string): string[] {
  return [...ftsQueryParts(text).terms];
}
