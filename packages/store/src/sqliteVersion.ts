import { CaError } from '@ca/schema';

/**
 * The oldest SQLite the store runs on: 3.51.3 fixed the WAL-reset bug (a checkpoint racing a
 * commit on another connection could corrupt a WAL database, in every release from 3.7.0 to
 * 3.51.2). Several processes share one index (`ca index`, `ca watch`, MCP servers, read
 * commands that checkpoint on close), which is exactly the case the bug needs.
 */
export const MIN_SQLITE_VERSION = '3.51.3';

/** Compares dotted version numbers (`3.53.2` > `3.51.3`). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Throws `sqlite_too_old` when `version` (what `sqlite_version()` answers) predates `MIN_SQLITE_VERSION`. */
export function assertSqliteVersion(version: string): void {
  if (compareVersions(version, MIN_SQLITE_VERSION) < 0) {
    throw new CaError(
      'sqlite_too_old',
      `SQLite ${version} is older than ${MIN_SQLITE_VERSION}, which fixed the WAL-reset corruption bug; the index is not opened (reinstall: better-sqlite3 bundles its SQLite)`,
      { context: { version } },
    );
  }
}
