import { CaError } from '@ca/schema';
import type { GraphReads } from '@ca/store';
import pg from 'pg';
import { isPostgresUrl, prepareSession, redactUrl, toStoreError, type PgClient } from './connection.js';
import { PgGraphReads } from './graphReads.js';
import { labelRows, resolveSnapshot } from './labels.js';
import { assertNotNewer, serverSchemaVersion } from './migrations.js';
import type { Beside, SnapshotBody } from './search.js';

// The connection pool of a long-lived reader of the team store (`ca serve --store`, decision 050).

/** Options of a `TeamStorePool`. */
export interface TeamStorePoolOptions {
  /** Most connections at once (default 10). */
  readonly max?: number;
  /** How long a connection attempt may take (default 10 s). */
  readonly connectTimeoutMs?: number;
}

/**
 * The connections of a long-lived reader of the team store (the MCP server over it): a pool
 * whose every request reads one snapshot in its own `REPEATABLE READ READ ONLY` transaction
 * (a read-only role suffices). A connection that fails (the server restarted, a backend
 * terminated) is dropped from the pool, never handed out again: the request that was using it
 * fails with `store_unreachable`, the next one gets a new connection.
 */
export class TeamStorePool {
  private readonly pool: pg.Pool;
  private checked: Promise<void> | null = null;
  /** Connections already prepared: an 'error' listener and the session settings. */
  private readonly prepared = new WeakSet<pg.PoolClient>();

  constructor(readonly url: string, options: TeamStorePoolOptions = {}) {
    if (!isPostgresUrl(url)) throw new CaError('usage', `not a PostgreSQL URL: ${redactUrl(url)} (expected postgres://user:password@host:port/database)`);
    this.pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, application_name: 'ca-serve' });
    // An idle connection that dies (server restart) emits 'error' on the pool, which has removed it already.
    this.pool.on('error', () => undefined);
  }

  /** The repositories of the store, by name. */
  async repositories(): Promise<string[]> {
    return this.withClient(async (client) => {
      const r = await client.query<{ name: string }>(`SELECT name FROM repositories ORDER BY name COLLATE "C"`).catch((e: unknown) => {
        // A store nobody has published to yet has no tables: it holds no repository.
        if ((e as { code?: string }).code === '42P01') return { rows: [] as { name: string }[] };
        throw e;
      });
      return r.rows.map((x) => x.name);
    });
  }

  /** The labels of `repository` (sorted), or [] when the store does not hold it. */
  async labels(repository: string): Promise<string[]> {
    return this.withClient(async (client) => (await labelRows(client, repository)).map((r) => r.label).sort());
  }

  /** The read contract over the snapshot the label rule picks; `close()` returns its connection to the pool. */
  async graphReads(repository: string, label: string | null): Promise<GraphReads> {
    const client = await this.acquire();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const snap = await resolveSnapshot(client, repository, label);
      return new PgGraphReads(client, this.url, String(snap.repoId), { backend: 'postgres', label: snap.label, repository, snapshotId: snap.snapshotId, commit: snap.commit }, (failed) => release(client, failed));
    } catch (e) {
      await endRead(client);
      throw toStoreError(e, this.url);
    }
  }

  /**
   * Runs `body` over the snapshot the label rule picks, in one read-only transaction (search).
   * Its `beside(work)` runs `work` on a second connection of the pool, in the same database
   * snapshot (exported by the body's transaction, `SET TRANSACTION SNAPSHOT`), at the same time as
   * the body's own statements; only an idle connection nobody waits for is taken (a request never
   * waits for a second connection, so requests cannot hold the pool waiting for each other), else
   * `work` runs on the body's connection.
   */
  async withSnapshot<T>(repository: string, label: string | null, body: SnapshotBody<T>): Promise<T> {
    const client = await this.acquire();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const snap = await resolveSnapshot(client, repository, label);
      let exported: Promise<string> | null = null;
      const beside: Beside = async (work) => {
        if (this.pool.idleCount === 0 || this.pool.waitingCount > 0) return work(client);
        exported ??= client.query<{ id: string }>('SELECT pg_export_snapshot() AS id').then((r) => r.rows[0]!.id);
        const id = await exported;
        const peer = await this.acquire();
        try {
          // SET TRANSACTION SNAPSHOT takes no parameter: the id is the server's own (hex digits and dashes), checked.
          if (!/^[0-9A-F-]+$/i.test(id)) throw new Error(`unexpected snapshot id ${JSON.stringify(id)}`);
          await peer.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '${id}'`);
          const out = await work(peer);
          await peer.query('COMMIT');
          release(peer, false);
          return out;
        } catch (e) {
          await endRead(peer);
          throw e;
        }
      };
      const out = await body(client, snap, beside);
      await client.query('COMMIT');
      release(client, false);
      return out;
    } catch (e) {
      await endRead(client);
      throw toStoreError(e, this.url);
    }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await this.pool.end();
  }

  private async withClient<T>(body: (client: PgClient) => Promise<T>): Promise<T> {
    const client = await this.acquire();
    try {
      const out = await body(client);
      release(client, false);
      return out;
    } catch (e) {
      release(client, true);
      throw toStoreError(e, this.url);
    }
  }

  /** A connection of the pool; the first one checks that the server's schema is not newer than this tool's. */
  private async acquire(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw toStoreError(e, this.url);
    }
    if (!this.prepared.has(client)) {
      // A connection that dies while checked out emits 'error' (the pool listens only to idle
      // ones); the query it was running rejects too, and that rejection is what the request reports.
      client.on('error', () => undefined);
      // A new connection: its session settings first (decision 053).
      try {
        await prepareSession(client);
      } catch (e) {
        release(client, true);
        throw toStoreError(e, this.url);
      }
      this.prepared.add(client);
    }
    if (this.checked === null) {
      const check = serverSchemaVersion(client).then(assertNotNewer);
      this.checked = check;
      try {
        await check;
      } catch (e) {
        this.checked = null;
        release(client, true);
        throw toStoreError(e, this.url);
      }
    } else {
      await this.checked;
    }
    return client;
  }
}

/** Returns a connection to its pool; one that failed is destroyed instead (never handed out again). */
function release(client: pg.PoolClient, failed: boolean): void {
  client.release(failed ? new Error('team store connection failed') : undefined);
}

/** Ends a failed read's transaction and returns its connection (destroyed when even the rollback fails). */
async function endRead(client: pg.PoolClient): Promise<void> {
  const ok = await client.query('ROLLBACK').then(() => true, () => false);
  release(client, !ok);
}
