import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type PgClient } from '../src/connection.js';
import { bm25Search, openGraphReads, openSnapshot, publish, TeamStorePool, withSnapshot, type TeamSnapshot } from '../src/index.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile } from './helpers.js';

const run = postgresAvailable();

// Every session of the team store runs without JIT compilation (decision 053): the server's
// default (`jit = on`, the Debian build has LLVM) compiled the vector channel's forced HNSW plan,
// estimated at 10^10, on every search. Each way of reading gets a session with it off.
describe.runIf(run)('team store sessions', () => {
  let ro = '';
  let rw = '';
  beforeAll(async () => {
    const db = await freshDatabase();
    ({ ro, rw } = db);
    const store = localIndex([sourceFile('src/a.ts', 'aaaa01', ['alpha'])]);
    try {
      await publish(rw, 'acme/app', store.snapshotSource('working'));
    } finally {
      store.close();
    }
  });

  const jitOf = async (query: (sql: string) => Promise<{ rows: { jit: string }[] }>) => (await query('SHOW jit')).rows[0]!.jit;

  it('the server this suite runs on has JIT on by default', async () => {
    // Without this the other cases could not fail: a fresh connection that does not go through
    // the store's session settings sees the server's default.
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: ro });
    await client.connect();
    try {
      expect(await jitOf((sql) => client.query(sql))).toBe('on');
    } finally {
      await client.end();
    }
  });

  it('a connection of connect() (CLI reads, publish) has JIT off', async () => {
    for (const url of [ro, rw]) {
      const client = await connect(url);
      try {
        expect(await jitOf((sql) => client.query(sql))).toBe('off');
      } finally {
        await client.end();
      }
    }
  });

  it('a search snapshot and every connection of the server pool have JIT off', async () => {
    expect(await withSnapshot(ro, 'acme/app', 'working', (client) => jitOf((sql) => client.query(sql)))).toBe('off');
    const pool = new TeamStorePool(ro, { max: 3 });
    try {
      // Three reads at once: three connections, each new one prepared before its first read.
      const seen = await Promise.all([0, 1, 2].map(() => pool.withSnapshot('acme/app', 'working', async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await new Promise((r) => setTimeout(r, 50));
        return { pid, jit: await jitOf((sql) => client.query(sql)) };
      })));
      expect(new Set(seen.map((s) => s.pid)).size).toBe(3);
      expect(seen.map((s) => s.jit)).toEqual(['off', 'off', 'off']);
      // A connection handed out again keeps its session setting.
      expect(await pool.withSnapshot('acme/app', 'working', (client) => jitOf((sql) => client.query(sql)))).toBe('off');
    } finally {
      await pool.close();
    }
  });
});

// BM25 reads a phrase's postings from the covering index alone (decision 053): every column the
// ranking statement reads is in `postings_cover`, and publish VACUUMs postings so the pages it
// wrote are all-visible (else an index-only scan fetches each row from the heap anyway).
describe.runIf(run)('team store BM25 postings', () => {
  it('are read by an index-only scan with no heap fetch right after publish', async () => {
    const db = await freshDatabase();
    const store = localIndex([sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']]), sourceFile('src/b.ts', 'bbbb01', ['gamma'])]);
    try {
      await publish(db.rw, 'acme/app', store.snapshotSource('working'));
    } finally {
      store.close();
    }
    const client = await connect(db.rw);
    try {
      const vacuumed = await client.query<{ v: boolean }>(`SELECT last_vacuum IS NOT NULL AS v FROM pg_stat_user_tables WHERE relname = 'postings'`);
      expect(vacuumed.rows[0]!.v).toBe(true);
      // The ranking statement, explained: captured from bm25Search as it sends it.
      const plain = client.query.bind(client);
      const plans: string[][] = [];
      await client.query('SET enable_seqscan = off');
      await client.query('SET enable_bitmapscan = off');
      (client as { query: unknown }).query = async (sql: string, params?: unknown[]) => {
        if (/postings p/.test(sql)) plans.push((await plain(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params)).rows.map((r: Record<string, string>) => r['QUERY PLAN']!));
        return plain(sql, params);
      };
      const hits = await withSnapshotOn(client, (snap) => bm25Search(client, snap, 'alpha', null, 10));
      expect(hits.length).toBe(1);
      expect(plans.length).toBe(1);
      const scan = plans[0]!.findIndex((l) => l.includes('on postings p'));
      expect(plans[0]![scan]).toMatch(/Index Only Scan using postings_cover on postings p/);
      expect(plans[0]!.slice(scan).find((l) => l.includes('Heap Fetches'))?.trim()).toBe('Heap Fetches: 0');
    } finally {
      await client.end();
    }
  });
});

async function withSnapshotOn<T>(client: PgClient, body: (snap: TeamSnapshot) => Promise<T>): Promise<T> {
  return body(await openSnapshot(client, 'acme/app', 'working'));
}

// Navigation's completeness report reads the label's files without exact edges grouped by
// project, language and state (decision 053): publish stores the groups with the snapshot; a
// snapshot published before they were stored (null) is grouped when read. Both answer what the
// local index's `GraphReader.semanticGaps` answers.
describe.runIf(run)('team store semantic gap groups', () => {
  it('are stored at publish, read back, and grouped the same for a snapshot without them', async () => {
    const db = await freshDatabase();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const store = localIndex(names.map((n, i) => ({ ...sourceFile(`src/${n}.ts`, `${n}${n}${n}${n}0${i}`, [`f${n}`]), project: i < 2 ? 'web' : '' })));
    try {
      const reader = store.reader('working');
      const id = (n: string) => reader.indexedFile(`src/${n}.ts`)!.fileId;
      store.writer.setSemanticState([id('a')], 'failed', 'worker crashed');
      store.writer.setSemanticState([id('c'), id('d')], 'pending', null);
      store.writer.setSemanticState([id('e')], 'failed', 'a timeout');
      // By hand: web (a failed, b none), root (c, d pending; e failed).
      const expected = [
        { project: '', language: 'ts', state: 'failed', reason: 'a timeout', files: 1 },
        { project: '', language: 'ts', state: 'pending', reason: null, files: 2 },
        { project: 'web', language: 'ts', state: 'failed', reason: 'worker crashed', files: 1 },
        { project: 'web', language: 'ts', state: 'none', reason: null, files: 1 },
      ];
      expect(store.graph.semanticGaps('working', ['ts'])).toEqual(expected);
      await publish(db.rw, 'acme/app', store.snapshotSource('working'));
    } finally {
      store.close();
    }
    const client = await connect(db.rw);
    try {
      const stored = await client.query<{ g: unknown }>(`SELECT semantic_gaps AS g FROM snapshots`);
      expect(stored.rows.map((r) => r.g)).toEqual([[
        { project: '', language: 'ts', state: 'failed', reason: 'a timeout', files: 1 },
        { project: '', language: 'ts', state: 'pending', reason: null, files: 2 },
        { project: 'web', language: 'ts', state: 'failed', reason: 'worker crashed', files: 1 },
        { project: 'web', language: 'ts', state: 'none', reason: null, files: 1 },
      ]]);
    } finally {
      await client.end();
    }
    const gapsOf = async (languages: string[]) => {
      const reads = await openGraphReads(db.ro, 'acme/app', 'working');
      try {
        return { groups: await reads.semanticGaps(languages), files: (await reads.semanticGapFiles(languages)).map((f) => `${f.project}:${f.path}:${f.state}`) };
      } finally {
        await reads.close();
      }
    };
    const fromStored = await gapsOf(['ts', 'js']);
    expect(fromStored.groups.map((g) => `${g.project}/${g.state}/${g.files}`)).toEqual(['/failed/1', '/pending/2', 'web/failed/1', 'web/none/1']);
    expect(fromStored.files).toEqual([':src/e.ts:failed', ':src/c.ts:pending', ':src/d.ts:pending', 'web:src/a.ts:failed', 'web:src/b.ts:none']);
    expect(await gapsOf(['cs'])).toEqual({ groups: [], files: [] });
    // As a snapshot published before migration 8 has it: grouped when read, the same answer.
    const rw = await connect(db.rw);
    try {
      await rw.query(`UPDATE snapshots SET semantic_gaps = NULL`);
    } finally {
      await rw.end();
    }
    expect(await gapsOf(['ts', 'js'])).toEqual(fromStored);
  });
});

// A publish that writes no new content still writes the new snapshot's file list: its statistics
// are refreshed, or the planner takes the new snapshot id for a rare value (an estimate of one
// file) and joins every file of the label by nested loops (decision 053: ~135 ms per navigation
// of a 100K label instead of ~3 ms, until autovacuum came by).
describe.runIf(run)('team store statistics after a publish', () => {
  it('the planner knows the files of a snapshot republished without new content', async () => {
    const db = await freshDatabase();
    const store = localIndex(Array.from({ length: 40 }, (_, i) => sourceFile(`src/m${i}.ts`, `m${String(i).padStart(4, '0')}`, [`f${i}`])));
    try {
      await publish(db.rw, 'acme/app', store.snapshotSource('working'));
      const again = await publish(db.rw, 'acme/app', store.snapshotSource('working'));
      expect(again.written).toEqual({ versions: 0, edgeSets: 0, blobs: 0, chunks: 0, embeddings: 0 });
      const client = await connect(db.ro);
      try {
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT * FROM snapshot_files WHERE repo_id = 1 AND snapshot_id = $1`, [again.snapshotId]);
        expect(plan.rows[0]!['QUERY PLAN']).toMatch(/ rows=40 /);
      } finally {
        await client.end();
      }
    } finally {
      store.close();
    }
  });
});

// A pooled search runs BM25 beside its other channels (decision 053): on a second connection of
// the pool, in the database snapshot of the search's own transaction (exported, then imported with
// SET TRANSACTION SNAPSHOT), so a label switched meanwhile is invisible to both halves alike.
describe.runIf(run)('team store reads beside a snapshot', () => {
  const labelSnapshot = async (client: PgClient) =>
    Number((await client.query<{ id: string }>(`SELECT l.snapshot_id AS id FROM labels l JOIN repositories r ON r.repo_id = l.repo_id WHERE r.name = 'acme/app' AND l.name = 'working'`)).rows[0]!.id);
  const pidOf = async (client: PgClient) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  it('an idle pooled connection reads the body\'s snapshot while another publish switches the label', async () => {
    const db = await freshDatabase();
    const first = localIndex([sourceFile('src/a.ts', 'aaaa01', ['alpha'])]);
    const second = localIndex([sourceFile('src/a.ts', 'aaaa02', ['alpha', 'beta'])]);
    const pool = new TeamStorePool(db.ro, { max: 3 });
    try {
      await publish(db.rw, 'acme/app', first.snapshotSource('working'));
      // Two reads at once leave two idle connections in the pool.
      await Promise.all([0, 1].map(() => pool.withSnapshot('acme/app', 'working', async (client) => {
        await new Promise((r) => setTimeout(r, 30));
        return pidOf(client);
      })));
      const seen = await pool.withSnapshot('acme/app', 'working', async (client, snap, beside) => {
        await publish(db.rw, 'acme/app', second.snapshotSource('working'));
        const peer = await beside(async (c) => ({ pid: await pidOf(c), label: await labelSnapshot(c) }));
        return { snap: snap.snapshotId, own: { pid: await pidOf(client), label: await labelSnapshot(client) }, peer };
      });
      expect(seen.peer.pid).not.toBe(seen.own.pid);
      expect(seen.peer.label).toBe(seen.snap);
      expect(seen.own.label).toBe(seen.snap);
      // Outside that transaction the label has moved on: the check above could fail.
      const now = await pool.withSnapshot('acme/app', 'working', async (_client, snap) => snap.snapshotId);
      expect(now).not.toBe(seen.snap);
    } finally {
      await pool.close();
      first.close();
      second.close();
    }
  });

  it('with no idle connection the work runs on the body\'s own; one-off reads (a URL) always do', async () => {
    const db = await freshDatabase();
    const store = localIndex([sourceFile('src/a.ts', 'aaaa01', ['alpha'])]);
    const pool = new TeamStorePool(db.ro, { max: 1 });
    try {
      await publish(db.rw, 'acme/app', store.snapshotSource('working'));
      const pooled = await pool.withSnapshot('acme/app', 'working', async (client, _snap, beside) => [await pidOf(client), await beside(pidOf)]);
      expect(pooled[1]).toBe(pooled[0]);
      const oneOff = await withSnapshot(db.ro, 'acme/app', 'working', async (client, _snap, beside) => [await pidOf(client), await beside(pidOf)]);
      expect(oneOff[1]).toBe(oneOff[0]);
      // And the search over one connection answers as before.
      const hits = await withSnapshot(db.ro, 'acme/app', 'working', (client, snap, beside) => beside((c) => bm25Search(c, snap, 'alpha', null, 10)));
      expect(hits).toHaveLength(1);
    } finally {
      await pool.close();
      store.close();
    }
  });
});
