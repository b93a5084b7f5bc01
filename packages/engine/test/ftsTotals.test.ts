import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOC_LANGUAGES } from '@ca/schema';
import { actualFtsTotals, recordedFtsTotals } from '@ca/store';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { copyFixture, dbOf, TS_APP } from './helpers.js';

// BM25's statistics must not depend on the index's history (decision 046): FTS5's contentless
// deletes leave the row count and column totals high, so an index updated incrementally ranked
// with other numbers than a clean index of the same tree (and than the team store).

const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } } as const;
const EDIT = '\n/** Rounds a currency amount. */\nexport function roundCurrency(cents: number): number {\n  return Math.round(cents);\n}\n';
const QUERIES = ['format currency', 'formatDate', 'login attempts rate limit', 'round cents'];

const opened: Engine[] = [];
afterEach(() => {
  for (const e of opened.splice(0)) e.dispose();
});

async function indexed(repo: string): Promise<Engine> {
  const engine = Engine.open(repo, OPTIONS);
  opened.push(engine);
  await engine.index();
  return engine;
}

/** Every hit of the queries as `score path symbolKey`, the score to 12 significant digits, sorted. */
function bm25Lines(engine: Engine): string[] {
  const reader = engine.store.reader('working');
  const out: string[] = [];
  for (const q of QUERIES) {
    const hits = reader.bm25(q, undefined, 1000);
    const nodes = new Map(reader.nodesByIds(hits.map((h) => h.nodeId)).map((n) => [n.id, n]));
    for (const h of hits) out.push(`${q} | ${h.score.toPrecision(12)} ${nodes.get(h.nodeId)!.path} ${nodes.get(h.nodeId)!.symbolKey}`);
  }
  return out.sort();
}

describe('FTS5 BM25 statistics after rewritten rows', () => {
  it('an incremental index ranks BM25 with the same scores as a clean index of the same tree', async () => {
    const incremental = copyFixture(TS_APP);
    const engine = await indexed(incremental);
    // The edit rewrites the file node of format.ts (its body changes): one contentless delete and
    // one insert, so without the repair FTS5 counts one row more than the table holds.
    appendFileSync(join(incremental, 'src/utils/format.ts'), EDIT);
    await engine.index();
    const clean = copyFixture(TS_APP);
    appendFileSync(join(clean, 'src/utils/format.ts'), EDIT);
    const fresh = await indexed(clean);
    const lines = bm25Lines(engine);
    expect(lines.length).toBeGreaterThan(QUERIES.length);
    expect(lines).toEqual(bm25Lines(fresh));
  });

  it('the averages record holds the rows of the table and their column sizes after an update', async () => {
    const repo = copyFixture(TS_APP);
    const engine = await indexed(repo);
    appendFileSync(join(repo, 'src/utils/format.ts'), EDIT);
    await engine.index();
    const db = dbOf(engine);
    const nodes = (db.prepare('SELECT count(*) AS c FROM nodes').get() as { c: number }).c;
    const docNodes = (db.prepare(`SELECT count(*) AS c FROM nodes WHERE language IN (${DOC_LANGUAGES.map((l) => `'${l}'`).join(', ')})`).get() as { c: number }).c;
    const recorded = recordedFtsTotals(db)!;
    // One fts_nodes row per code node (ts-app holds one label), seven columns. The 11 nodes of
    // README.md, package.json and tsconfig.json (file nodes, sections, keys) are in the
    // documentation partition, fts_docs (decision 039), not in this table.
    expect(docNodes).toBe(11);
    expect(recorded.rows).toBe(nodes - docNodes);
    expect(recorded).toEqual(actualFtsTotals(db, 7));
  });
});
