import type { Language, ParseStatus } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedStatement, selectAll, selectValue } from './statements.js';
import { labelEntriesCondition } from './labelScope.js';

/** One path of a label as the change planner sees it (structurally @ca/invalidation's `StoredFile`). */
export interface StoredFileRecord {
  readonly path: string;
  readonly fileId: number;
  readonly contentHash: string;
  readonly size: number;
  readonly mtimeMs: number | null;
  readonly extractor: string;
  readonly language: Language | null;
  readonly parseStatus: ParseStatus;
  readonly semanticState: 'none' | 'pending' | 'ok' | 'failed';
  /** The project the version was indexed in (absent in planners' test states: unknown). */
  readonly project?: string;
}

/**
 * The label's state the change planner reads (@ca/invalidation's `StoredState`): its paths, the
 * versions the index holds for any label, and who holds a version. Read-only.
 */
export class LabelPlanState {
  private cache: Map<string, StoredFileRecord> | null = null;

  constructor(
    private readonly db: SqliteDatabase,
    readonly label: string,
  ) {}

  files(): ReadonlyMap<string, StoredFileRecord> {
    if (this.cache) return this.cache;
    const rows = selectAll<StoredFileRecord>(this.db, `SELECT lf.path, lf.file_id AS fileId, f.content_hash AS contentHash, f.size, lf.mtime_ms AS mtimeMs, f.extractor,
                f.language, f.parse_status AS parseStatus, f.semantic_state AS semanticState, f.project
         FROM label_files lf JOIN files f ON f.id = lf.file_id WHERE ${labelEntriesCondition()}`, this.label);
    this.cache = new Map(rows.map((r) => [r.path, r]));
    return this.cache;
  }

  version(path: string, contentHash: string, extractor?: string): { fileId: number; extractor: string } | null {
    // Shareable versions only (a label's own ones belong to its merge, decision 047); the same
    // bytes may be one version per extractor (C# defines differ between commits).
    const row = cachedStatement(
      this.db,
      `SELECT id AS fileId, extractor FROM files WHERE path = ? AND content_hash = ? AND merge_scope = '' ORDER BY extractor = ? DESC, id LIMIT 1`,
    ).get(path, contentHash, extractor ?? null) as
      | { fileId: number; extractor: string }
      | undefined;
    return row ?? null;
  }

  holders(fileId: number): number {
    return selectValue<number>(this.db, `SELECT COUNT(*) FROM label_files WHERE file_id = ?`, fileId)!;
  }
}
