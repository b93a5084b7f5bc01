import type { SqliteDatabase } from './database.js';
import { cachedStatement, selectAll } from './statements.js';

/** Event kinds that say what indexing did not load or run (plugins, MSBuild targets, refused files). */
export const LOAD_NOTE_KINDS = ['plugin_blocked', 'file_refused'] as const;
export type LoadNoteKind = (typeof LOAD_NOTE_KINDS)[number];

/** One thing the index did not load: a stripped compiler plugin, a target not executed, a file refused. */
export interface LoadNote {
  readonly kind: LoadNoteKind;
  /** Repo-relative path it concerns (a tsconfig, a .csproj, a refused file), when known. */
  readonly path: string | null;
  readonly message: string;
}

/** What indexing did not load or run, kept in the events table (`Store.loadNotes`). */
export class LoadNotes {
  constructor(private readonly db: SqliteDatabase) {}

  /**
   * Records a note once: the same note from every later run (each re-analysis of the project
   * says it again) adds no row.
   */
  record(note: LoadNote): void {
    cachedStatement(this.db, `INSERT INTO events(at, kind, path, message) SELECT ?, ?, ?, ?
         WHERE NOT EXISTS (SELECT 1 FROM events WHERE kind = ? AND path IS ? AND message = ?)`)
      .run(new Date().toISOString(), note.kind, note.path, note.message, note.kind, note.path, note.message);
  }

  /** The recorded notes, newest first, at most `limit`. */
  list(limit = 200): LoadNote[] {
    return selectAll<LoadNote>(this.db, `SELECT kind, path, message FROM events WHERE kind IN (${LOAD_NOTE_KINDS.map(() => '?').join(',')})
         GROUP BY kind, path, message ORDER BY MAX(id) DESC LIMIT ?`, ...LOAD_NOTE_KINDS, limit);
  }
}
