import { closeSync, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CaError } from '@ca/schema';
import type { Store } from '@ca/store';

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** What is at an index path before it is opened. */
export type IndexFileState = 'missing' | 'empty' | 'sqlite' | 'directory' | 'not_sqlite';

/** Looks at `dbPath` without opening it as a database (and without following it into a FIFO: only regular files are read). */
export function indexFileState(dbPath: string): IndexFileState {
  let st;
  try {
    st = statSync(dbPath);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new CaError('io_error', `cannot inspect index ${dbPath}: ${(e as Error).message}`, { cause: e, context: { path: dbPath } });
  }
  if (st.isDirectory()) return 'directory';
  if (!st.isFile()) return 'not_sqlite';
  if (st.size === 0) return 'empty';
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(dbPath, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return head.equals(SQLITE_MAGIC) ? 'sqlite' : 'not_sqlite';
}

/**
 * Checks an index path before `Engine.open` touches it. `explicit`: the path was given (`--db`),
 * so a file that is not an SQLite database is the user's, never ours to move aside or overwrite.
 * `requireIndex`: a read command — a missing index is `not_indexed` (nothing is created).
 */
export function checkIndexPath(dbPath: string, repo: string, options: { explicit: boolean; requireIndex: boolean }): void {
  if (!options.explicit) {
    // A repository may ship `.codeagent` as a link to anywhere (~/.ssh): the index, its WAL files and
    // the .gitignore beside them are never written through it.
    const dir = dirname(dbPath);
    let link = false;
    try {
      link = lstatSync(dir).isSymbolicLink();
    } catch {
      link = false; // Absent: created as a real directory.
    }
    if (link) {
      throw new CaError('invalid_path', `${dir} is a symbolic link: the index is never written through one (remove it, or pass --db FILE)`, { context: { path: dir } });
    }
  }
  const state = indexFileState(dbPath);
  if (state === 'directory') {
    throw new CaError('invalid_path', `index path ${dbPath} is a directory, not an index file`, { context: { path: dbPath } });
  }
  if (state === 'not_sqlite' && options.explicit) {
    throw new CaError('invalid_path', `${dbPath} is not a Code Agent index (not an SQLite database); refusing to use or replace it`, {
      context: { path: dbPath },
    });
  }
  if (options.requireIndex && (state === 'missing' || state === 'empty')) throw notIndexed(repo, dbPath);
}

/** After opening for a read command: an index that no `ca index` run ever completed is not an index yet. */
export function requireIndexed(store: Store, repo: string, dbPath: string): void {
  if (store.reader().metadata('last_indexed_at') === null) throw notIndexed(repo, dbPath);
}

function notIndexed(repo: string, dbPath: string): CaError {
  return new CaError('not_indexed', `${repo} has not been indexed (no index at ${dbPath}): run \`ca index ${repo}\` first`, {
    context: { path: repo },
  });
}
