import { parseFilter, seededRandom } from '@ca/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type PgClient } from '../src/connection.js';
import { migrate } from '../src/migrations.js';
import { ensureVectorIndexes, vectorIndexName } from '../src/publish.js';
import { EXACT_SCAN_MAX_VECTORS, vectorPlan, vectorSearch, withSnapshot } from '../src/search.js';
import { freshDatabase, postgresAvailable } from './helpers.js';

const run = postgresAvailable();

// HNSW against exact search on deterministic synthetic vectors. The store holds the vectors of a
// repository `r` (one file per 25 nodes, one vector per node) and of another repository
// (`other`, as many again), all in the shared embeddings table under one HNSW index; labels of
// `r` hold its first N files, so a label is a scope of N × 25 vectors — a fraction of the
// index, which is what `hnsw.iterative_scan = relaxed_order` is for.
const DIMS = 16;
const NODES_PER_FILE = 25;
const FILES = 160; // 4,000 vectors in `r`
const MODEL = 'synthetic-16';

/** A unit vector of normal coordinates (Box–Muller). */
function gaussian(next: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const text = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

/** Writes `files` files of `repo` (nodes alternate kind function/class), their vectors, and labels holding their first `sizes[i]` files. */
async function seed(client: PgClient, repo: string, files: number, salt: number, labels: readonly number[]): Promise<void> {
  const next = seededRandom(salt);
  const r = await client.query<{ repo_id: string }>(`INSERT INTO repositories(name) VALUES ($1) RETURNING repo_id`, [repo]);
  const repoId = Number(r.rows[0]!.repo_id);
  const versions: number[] = [];
  for (let f = 0; f < files; f++) {
    const v = await client.query<{ version_id: string }>(
      `INSERT INTO file_versions(repo_id, path, blob_id, digest, language, size, line_count, parse_status, generated, project, extractor, node_count)
       VALUES ($1, $2, $3, 'd', 'ts', 1, 1, 'ok', false, '', 'test', $4) RETURNING version_id`, [repoId, `src/f${f}.ts`, `${repo}-${f}`, NODES_PER_FILE]);
    const versionId = Number(v.rows[0]!.version_id);
    versions.push(versionId);
    const ordinals = Array.from({ length: NODES_PER_FILE }, (_, i) => i);
    const hashes = ordinals.map((i) => `${repo}-${f}-${i}`);
    await client.query(
      `INSERT INTO nodes(repo_id, version_id, ordinal, kind, language, name, qualified_name, symbol_key, disambiguator, project, start_line, end_line,
                         start_byte, end_byte, signature, modifiers, is_public_api, generated, chunk_hash)
       SELECT $1, $2, o, CASE WHEN o % 2 = 0 THEN 'function' ELSE 'class' END, 'ts', 'n' || o, 'n' || o, 'k' || o, 0, '', o + 1, o + 1, 0, 1, '', '', false, false, h
         FROM unnest($3::int[], $4::text[]) AS u(o, h)`, [repoId, versionId, ordinals, hashes]);
    await client.query(`INSERT INTO node_vectors(repo_id, version_id, ordinal, "window", model, content_hash) SELECT $1, $2, o, 0, $3, h FROM unnest($4::int[], $5::text[]) AS u(o, h)`,
      [repoId, versionId, MODEL, ordinals, hashes]);
    await client.query(`INSERT INTO embeddings(model, content_hash, vector) SELECT $1, h, v::vector FROM unnest($2::text[], $3::text[]) AS u(h, v)`,
      [MODEL, hashes, hashes.map(() => text(gaussian(next)))]);
  }
  for (const size of labels) {
    const s = await client.query<{ snapshot_id: string }>(
      `INSERT INTO snapshots(repo_id, label, state, node_count, text_tokens) VALUES ($1, $2, 'complete', $3, 0) RETURNING snapshot_id`, [repoId, `first-${size}`, size * NODES_PER_FILE]);
    const snapshotId = Number(s.rows[0]!.snapshot_id);
    await client.query(`INSERT INTO snapshot_files(repo_id, snapshot_id, path, version_id, semantic_state) SELECT $1, $2, 'src/f' || (i - 1) || '.ts', v, 'ok' FROM unnest($3::bigint[]) WITH ORDINALITY AS u(v, i)`,
      [repoId, snapshotId, versions.slice(0, size)]);
    await client.query(`INSERT INTO labels(repo_id, name, snapshot_id) VALUES ($1, $2, $3)`, [repoId, `first-${size}`, snapshotId]);
  }
}

/** Label sizes in files: a generator doubling from 10 files (250 vectors, 3% of the index) to all 160 (4,000, half of it). */
function* labelSizes(): Generator<number> {
  for (let files = 10; files <= FILES; files *= 2) yield files;
}

describe.runIf(run)('vector search: HNSW against exact search', () => {
  let url = '';
  let ro = '';
  beforeAll(async () => {
    const db = await freshDatabase();
    url = db.rw;
    ro = db.ro;
    const client = await connect(url);
    try {
      await migrate(client);
      await seed(client, 'r', FILES, 7, [...labelSizes()]);
      await seed(client, 'other', FILES, 8, []);
      await ensureVectorIndexes(client, [MODEL]);
    } finally {
      await client.end();
    }
  }, 300_000);
  afterAll(() => undefined);

  it('recall@20 of the HNSW plan is at least 0.99 at every label size, filtered or not', async () => {
    const queries = Array.from({ length: 5 }, ((next) => () => gaussian(next))(seededRandom(99)));
    const recalls: Record<string, number> = {};
    for (const files of labelSizes()) {
      for (const filter of [null, parseFilter('kind:class')]) {
        let found = 0;
        await withSnapshot(ro, 'r', `first-${files}`, async (client, snap) => {
          for (const q of queries) {
            const exact = await vectorSearch(client, snap, MODEL, q, filter, 20, { plan: 'exact' });
            const hnsw = await vectorSearch(client, snap, MODEL, q, filter, 20, { plan: 'hnsw' });
            expect(exact.plan).toBe('exact');
            expect(hnsw.plan).toBe('hnsw');
            // The scope: 25 vectors per file, half of them classes (odd ordinals: 12 of 25).
            expect(exact.scope).toBe(filter ? files * 12 : files * NODES_PER_FILE);
            expect(exact.hits).toHaveLength(20);
            const truth = new Set(exact.hits.map((h) => h.ref));
            found += hnsw.hits.filter((h) => truth.has(h.ref)).length;
          }
        });
        recalls[`${files * NODES_PER_FILE}${filter ? ' kind:class' : ''}`] = found / (20 * queries.length);
        console.info(`recall@20 at ${files * NODES_PER_FILE} vectors${filter ? ' kind:class' : ''}: ${found / (20 * queries.length)}`);
      }
    }
    for (const [scope, recall] of Object.entries(recalls)) expect({ scope, ok: recall >= 0.99 }).toEqual({ scope, ok: true });
  }, 400_000);

  it('the HNSW plan walks the model\'s HNSW index (its scan count grows)', async () => {
    const admin = await connect(url);
    try {
      const scans = async () => Number((await admin.query<{ n: string }>(`SELECT coalesce(sum(idx_scan), 0) AS n FROM pg_stat_user_indexes WHERE indexrelname = $1`, [vectorIndexName(MODEL)])).rows[0]!.n);
      const before = await scans();
      await withSnapshot(ro, 'r', `first-${FILES}`, (client, snap) => vectorSearch(client, snap, MODEL, gaussian(seededRandom(5)), null, 10, { plan: 'hnsw' }));
      let after = before;
      for (let i = 0; i < 50 && after === before; i++) {
        await new Promise((r) => setTimeout(r, 100)); // statistics reach the view after the session's transaction ends
        after = await scans();
      }
      expect(after).toBeGreaterThan(before);
    } finally {
      await admin.end();
    }
  });

  it('reads the scope and the model\'s total stored at publish (no count), and counts them for a snapshot without them', async () => {
    // A label of the first 10 files (250 vectors) whose snapshot carries stored figures that
    // differ from the counts, so the plan tells which were used: stored scope 12,345 over an
    // exact-scan size of 100 and a stored total of 40,000 (a quarter is 10,000) is HNSW; the
    // counted figures (250 of the store's 8,000: a quarter is 2,000) would be exact.
    const client = await connect(url);
    try {
      const repo = await client.query<{ repo_id: string }>(`SELECT repo_id FROM repositories WHERE name = 'r'`);
      const repoId = Number(repo.rows[0]!.repo_id);
      const s = await client.query<{ snapshot_id: string }>(
        `INSERT INTO snapshots(repo_id, label, state, node_count, text_tokens, vector_counts) VALUES ($1, 'stored', 'complete', 250, 0, $2) RETURNING snapshot_id`,
        [repoId, JSON.stringify({ [MODEL]: 12_345 })]);
      const snapshotId = Number(s.rows[0]!.snapshot_id);
      await client.query(
        `INSERT INTO snapshot_files(repo_id, snapshot_id, path, version_id, semantic_state)
         SELECT repo_id, $2, path, version_id, semantic_state FROM snapshot_files WHERE repo_id = $1 AND snapshot_id = (SELECT snapshot_id FROM labels WHERE repo_id = $1 AND name = 'first-10')`,
        [repoId, snapshotId]);
      await client.query(`INSERT INTO labels(repo_id, name, snapshot_id) VALUES ($1, 'stored', $2)`, [repoId, snapshotId]);
      await client.query(`UPDATE vector_models SET vectors = 40000 WHERE model = $1`, [MODEL]);
      const q = gaussian(seededRandom(11));
      const stored = await withSnapshot(ro, 'r', 'stored', (c, snap) => vectorSearch(c, snap, MODEL, q, null, 5, { exactScanMax: 100 }));
      expect({ plan: stored.plan, scope: stored.scope }).toEqual({ plan: 'hnsw', scope: 12_345 });
      // A filter's scope is counted: the 10 files' class nodes (12 of 25 each); 120 over 100, a quarter of 40,000 is more: exact.
      const filtered = await withSnapshot(ro, 'r', 'stored', (c, snap) => vectorSearch(c, snap, MODEL, q, parseFilter('kind:class'), 5, { exactScanMax: 100 }));
      expect({ plan: filtered.plan, scope: filtered.scope }).toEqual({ plan: 'exact', scope: 120 });
      // Published before the figures were stored (null): both counted, 250 of 8,000, exact.
      await client.query(`UPDATE snapshots SET vector_counts = NULL WHERE repo_id = $1 AND snapshot_id = $2`, [repoId, snapshotId]);
      await client.query(`UPDATE vector_models SET vectors = NULL WHERE model = $1`, [MODEL]);
      const counted = await withSnapshot(ro, 'r', 'stored', (c, snap) => vectorSearch(c, snap, MODEL, q, null, 5, { exactScanMax: 100 }));
      expect({ plan: counted.plan, scope: counted.scope }).toEqual({ plan: 'exact', scope: 250 });
      // The same answer as the stored-figure run's HNSW walk would give is not asserted here: recall is the test above.
      expect(counted.hits.length).toBe(5);
    } finally {
      await client.end();
    }
  });

  it('chooses exact or HNSW from the scope size', () => {
    // Up to EXACT_SCAN_MAX_VECTORS: exact, whatever the store holds.
    expect(vectorPlan(EXACT_SCAN_MAX_VECTORS, 1_000_000)).toBe('exact');
    // Over it: HNSW when the scope is at least a quarter of the model's vectors in the store…
    expect(vectorPlan(EXACT_SCAN_MAX_VECTORS + 1, 40_004)).toBe('hnsw');
    // …exact under a quarter (the walk would mostly visit other scopes' rows).
    expect(vectorPlan(EXACT_SCAN_MAX_VECTORS + 1, 40_005)).toBe('exact');
    expect(vectorPlan(300, 400, 100)).toBe('hnsw');
  });
});
