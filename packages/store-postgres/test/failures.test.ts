import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { CaError } from '@ca/schema';
import type { Store } from '@ca/store';
import { assertVectorExtension, connect, listRepositories, publish, snapshotDump, tableCounts, PG_SCHEMA_VERSION } from '../src/index.js';
import { freshDatabase, localIndex, postgresAvailable, sourceFile, wrongPasswordUrl } from './helpers.js';

const run = postgresAvailable();
const opened: Store[] = [];
afterAll(() => opened.forEach((s) => s.close()));

function source(label = 'working') {
  const s = localIndex([sourceFile('src/a.ts', 'aaaa01', ['alpha', 'beta'], [['beta', 'alpha']])], label);
  opened.push(s);
  return s.snapshotSource(label);
}

/** The CaError `p` rejects with. */
async function failure(p: Promise<unknown>): Promise<CaError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(CaError);
  return e as CaError;
}

describe.runIf(run)('bad input to the team store', () => {
  it('an unreachable server is store_unreachable, naming the redacted URL', async () => {
    // Port 1 on the loopback: nothing listens there, the connection is refused.
    const e = await failure(publish('postgres://ca_rw:secret@127.0.0.1:1/ca_test', 'acme/app', source()));
    expect(e.code).toBe('store_unreachable');
    expect(e.message).toContain('postgres://ca_rw:***@127.0.0.1:1/ca_test');
    expect(e.message).not.toContain('secret');
  });

  it('a wrong password is store_auth_failed', async () => {
    const e = await failure(publish(wrongPasswordUrl(), 'acme/app', source()));
    expect(e.code).toBe('store_auth_failed');
    expect(e.message).not.toContain('not-the-password');
  });

  it('pgvector not created in the database (and not creatable by the role) names the fix', async () => {
    const db = await freshDatabase('template0');
    const e = await failure(publish(db.rw, 'acme/app', source()));
    expect(e.code).toBe('store_extension_missing');
    expect(e.message).toContain('CREATE EXTENSION vector');
    expect(e.message).toContain('tools/install-postgres.sh');
  });

  it('an extension the server does not have is reported as not installed, naming tools/install-postgres.sh', async () => {
    // The server's real catalog (pg_available_extensions) is asked about a name no server has,
    // the same path a server without pgvector takes.
    const db = await freshDatabase();
    const client = await connect(db.rw);
    try {
      const e = await failure(assertVectorExtension(client, 'ca_no_such_extension'));
      expect(e.code).toBe('store_extension_missing');
      expect(e.message).toContain('is not installed on the PostgreSQL server: run tools/install-postgres.sh');
    } finally {
      await client.end();
    }
  });

  it('a schema newer than the tool is refused (schema_too_new) and nothing is written', async () => {
    const db = await freshDatabase();
    await publish(db.rw, 'acme/app', source());
    const client = new pg.Client({ connectionString: db.rw });
    await client.connect();
    await client.query(`INSERT INTO ca_schema_migrations(version, name) VALUES ($1, 'from a newer tool')`, [PG_SCHEMA_VERSION + 1]);
    await client.end();
    const before = await tableCounts(db.rw).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(CaError); // the reader refuses it too
    const e = await failure(publish(db.rw, 'acme/other', source()));
    expect(e.code).toBe('schema_too_new');
    expect(e.message).toBe(`the team store's schema is version ${PG_SCHEMA_VERSION + 1}, newer than this tool's ${PG_SCHEMA_VERSION}: upgrade ca before using this store`);
    const check = new pg.Client({ connectionString: db.rw });
    await check.connect();
    const repos = await check.query(`SELECT name FROM repositories ORDER BY name`);
    await check.end();
    expect(repos.rows.map((r: { name: string }) => r.name)).toEqual(['acme/app']);
  });

  it('a read-only role asked to publish is store_read_only, on a migrated and on an empty database', async () => {
    const db = await freshDatabase();
    const empty = await failure(publish(db.ro, 'acme/app', source()));
    expect(empty.code).toBe('store_read_only');
    await publish(db.rw, 'acme/app', source());
    const e = await failure(publish(db.ro, 'acme/app', source()));
    expect(e.code).toBe('store_read_only');
    expect(e.message).toContain('publish with a read-write role');
    // …while reading with it works.
    expect((await listRepositories(db.ro)).map((r) => r.repository)).toEqual(['acme/app']);
  });

  it('repository and label names that try SQL injection are stored verbatim', async () => {
    const db = await freshDatabase();
    const repo = `x'); DROP TABLE labels; --`;
    const label = `"; DELETE FROM nodes WHERE '1'='1`;
    await publish(db.rw, repo, source(label));
    const repos = await listRepositories(db.ro);
    expect(repos.map((r) => [r.repository, r.label, r.nodes])).toEqual([[repo, label, 3]]);
    expect((await snapshotDump(db.ro, repo, label))!.files).toEqual(['src/a.ts aaaa01 ts ok none']);
    expect(await tableCounts(db.rw)).toMatchObject({ labels: 1, nodes: 3 });
  });
});
