import { CaError } from '@ca/schema';
import pg from 'pg';

/** One connection to the team store (a `pg` client); all SQL of this package goes through it. */
export type PgClient = pg.Client;

/** The URL with its password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a URL at all: nothing in it can be shown safely.
    return '(unparseable store URL)';
  }
}

/** Whether `url` names a PostgreSQL team store (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

interface PgErrorLike {
  readonly code?: string;
  readonly message?: string;
}

/** A driver or server error as a CaError with a stable code (the ones a user can act on named). */
export function toStoreError(e: unknown, url: string): CaError {
  if (e instanceof CaError) return e;
  const err = (e ?? {}) as PgErrorLike;
  const where = redactUrl(url);
  switch (err.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
    case 'EAI_AGAIN':
      return new CaError('store_unreachable', `cannot reach the team store at ${where} (${err.code}): is the server running and the host/port right?`, { cause: e });
    case '28P01':
    case '28000':
      return new CaError('store_auth_failed', `the team store at ${where} refused the credentials: ${err.message ?? ''}`, { cause: e });
    case '57P01':
    case '57P02':
    case '57P03':
      return new CaError('store_unreachable', `the connection to the team store at ${where} was lost (${err.message ?? err.code}): retry`, { cause: e });
    case '3D000':
      return new CaError('store_unreachable', `the team store at ${where} has no such database: ${err.message ?? ''}`, { cause: e });
    case '42501':
    case '25006':
      return new CaError('store_read_only', `the role of ${where} may not write to the team store (${err.message ?? ''}): publish with a read-write role`, { cause: e });
    default:
      // The driver's own message when the socket closed under a query (no SQLSTATE).
      if (/Connection terminated|connection ended|ECONNRESET/i.test(err.message ?? '')) {
        return new CaError('store_unreachable', `the connection to the team store at ${where} was lost (${err.message ?? ''}): retry`, { cause: e });
      }
      return new CaError('io_error', `team store ${where}: ${err.message ?? String(e)}`, { cause: e });
  }
}

/**
 * What every session of the team store sets once, after it connects (decision 053): no JIT
 * compilation. The store's statements are short index reads and batched writes; PostgreSQL
 * compiles any statement whose estimated cost passes `jit_above_cost` (100,000 by default), and
 * the vector channel's forced HNSW plan is estimated at 10^10 (the disabled alternatives), so with
 * JIT on every vector search paid ~160–250 ms of LLVM compilation for ~10 ms of work (synthetic
 * 100K, docs/benchmarks.md).
 */
export const SESSION_SETTINGS = 'SET jit = off';

/** Applies `SESSION_SETTINGS` to a new connection (one round trip, once per connection). */
export async function prepareSession(client: pg.ClientBase): Promise<void> {
  await client.query(SESSION_SETTINGS);
}

/** Opens one connection to `url`; a failure becomes a CaError naming what to fix. */
export async function connect(url: string, options: { readonly connectTimeoutMs?: number } = {}): Promise<PgClient> {
  if (!isPostgresUrl(url)) throw new CaError('usage', `not a PostgreSQL URL: ${redactUrl(url)} (expected postgres://user:password@host:port/database)`);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000, application_name: 'ca' });
  // A server that goes away mid-run emits 'error' on the client; the failing query rejects too,
  // and that rejection is what the caller handles.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await prepareSession(client);
  } catch (e) {
    await client.end().catch(() => undefined); // why: the connection never opened; ending it can only fail the same way
    throw toStoreError(e, url);
  }
  return client;
}

/** Runs `body` in one transaction (rolled back when it throws). */
export async function inTransaction<T>(client: PgClient, body: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const out = await body();
    await client.query('COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined); // why: the connection may be gone; the original error is the one to report
    throw e;
  }
}
