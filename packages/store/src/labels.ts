import { CaError } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedStatement, selectAll, selectColumn, selectOne, selectValue } from './statements.js';
import { labelEntriesCondition } from './labelScope.js';
import { dropProjectFacts, moveProjectFacts } from './testProjects.js';
import type { IndexWriter, WriteStats } from './writer.js';

export type LabelKind = 'working' | 'commit' | 'staging';

/** One label as `ca labels` lists it. */
export interface LabelInfo {
  readonly name: string;
  readonly kind: LabelKind;
  /** The commit the label was indexed at (the working tree: HEAD then); null when unknown (no git). */
  readonly commit: string | null;
  /** The branch HEAD was on when the working tree was indexed. */
  readonly headRef: string | null;
  /** Whether indexed files of the working tree differed from `commit` when it was indexed (null: unknown). */
  readonly dirty: boolean | null;
  /** The working tree a working label indexes. */
  readonly worktree: string | null;
  readonly files: number;
  /** Source files with exact (compiler) edges, of those a semantic pass could analyse. */
  readonly semantic: { readonly exact: number; readonly analysable: number };
  readonly indexedAt: string | null;
}

/** A crawl of a commit into a label's staging label (see `LabelStore.beginCrawl`). */
export interface Crawl {
  readonly label: string;
  readonly staging: string;
  readonly commit: string;
  /** Paths already staged by an interrupted crawl of the same commit. */
  readonly staged: ReadonlyMap<string, number>;
  readonly resumed: boolean;
}

/** The staging label a crawl of `label` fills. */
export function stagingName(label: string): string {
  return `~${label}`;
}

interface LabelRow {
  id: number;
  name: string;
  kind: LabelKind;
  commit_sha: string | null;
  target_sha: string | null;
  head_ref: string | null;
  dirty: number | null;
  worktree: string | null;
  indexed_at: string | null;
}

/** What a label row records, as `LabelInfo` names it. */
function recorded(r: LabelRow): Omit<LabelInfo, 'files' | 'semantic'> {
  return {
    name: r.name,
    kind: r.kind,
    commit: r.commit_sha,
    headRef: r.head_ref,
    dirty: r.dirty === null ? null : r.dirty === 1,
    worktree: r.worktree,
    indexedAt: r.indexed_at,
  };
}

/** Labels: named, queryable sets of file versions (the working tree, commits). */
export class LabelStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly writer: IndexWriter,
  ) {}

  private row(name: string): LabelRow | null {
    return (selectOne<LabelRow>(this.db, `SELECT id, name, kind, commit_sha, target_sha, head_ref, dirty, worktree, indexed_at FROM labels WHERE name = ?`, name)) ?? null;
  }

  /** Every label but staging ones, by name. */
  list(): LabelInfo[] {
    const rows = selectAll<LabelRow & { files: number; analysable: number; exact: number }>(this.db, `SELECT l.id, l.name, l.kind, l.commit_sha, l.head_ref, l.dirty, l.worktree, l.indexed_at,
                (SELECT COUNT(*) FROM label_files lf WHERE lf.label_id = l.id) AS files,
                (SELECT COUNT(*) FROM label_files lf JOIN files f ON f.id = lf.file_id
                  WHERE lf.label_id = l.id AND f.language IS NOT NULL AND f.parse_status IN ('ok','partial')) AS analysable,
                (SELECT COUNT(*) FROM label_files lf JOIN files f ON f.id = lf.file_id
                  WHERE lf.label_id = l.id AND f.language IS NOT NULL AND f.parse_status IN ('ok','partial') AND f.semantic_state = 'ok') AS exact
         FROM labels l WHERE l.kind <> 'staging' ORDER BY l.name`);
    return rows.map((r) => ({ ...recorded(r), files: r.files, semantic: { exact: r.exact, analysable: r.analysable } }));
  }

  get(name: string): LabelInfo | null {
    return this.list().find((l) => l.name === name) ?? null;
  }

  /** What a label records (no counts: cheap enough for every answer), or null. */
  state(name: string): Omit<LabelInfo, 'files' | 'semantic'> | null {
    const r = this.row(name);
    return !r || r.kind === 'staging' ? null : recorded(r);
  }

  /** The label, or `unknown_label` listing the labels there are. */
  require(name: string): LabelInfo {
    const found = this.get(name);
    if (found) return found;
    const names = this.list().map((l) => l.name);
    throw new CaError('unknown_label', `no label "${name}" in this index${names.length > 0 ? ` (labels: ${names.join(', ')})` : ' (nothing indexed yet: run ca index)'}`, {
      context: { label: name },
    });
  }

  /** Creates the label when missing (a working label records its worktree). */
  ensure(name: string, kind: Exclude<LabelKind, 'staging'>, worktree: string | null = null): void {
    this.writer.ensureLabel(name);
    // Written only when it differs: a no-change run leaves the index untouched (caches survive).
    cachedStatement(
      this.db,
      `UPDATE labels SET kind = @kind, worktree = coalesce(@worktree, worktree)
       WHERE name = @name AND kind <> 'staging' AND (kind IS NOT @kind OR worktree IS NOT coalesce(@worktree, worktree))`,
    ).run({ kind, worktree, name });
  }

  /** Records what a finished index run of the label saw. */
  setIndexed(name: string, state: { commit: string | null; headRef: string | null; dirty: boolean | null }): void {
    cachedStatement(this.db, `UPDATE labels SET commit_sha = ?, head_ref = ?, dirty = ?, indexed_at = ? WHERE name = ?`)
      .run(state.commit, state.headRef, state.dirty === null ? null : state.dirty ? 1 : 0, new Date().toISOString(), name);
  }

  /**
   * Starts (or resumes) a crawl of `commit` into `label`'s staging label: the label itself stays
   * as it is, queryable, until `promote`. A staging label left by an interrupted crawl of the same
   * commit is resumed (its staged paths are returned); one of another commit is discarded.
   */
  beginCrawl(label: string, commit: string): Crawl {
    const staging = stagingName(label);
    let resumed = false;
    this.db.transaction(() => {
      const existing = this.row(staging);
      if (existing && existing.target_sha === commit) {
        resumed = true;
        return;
      }
      if (existing) this.dropLabel(existing.id, 'crawl of another commit discarded');
      this.writer.ensureLabel(staging);
      cachedStatement(this.db, `UPDATE labels SET kind = 'staging', target_sha = ? WHERE name = ?`).run(commit, staging);
    })();
    const staged = new Map<string, number>();
    for (const r of selectAll<{ path: string; file_id: number }>(this.db, `SELECT lf.path, lf.file_id FROM label_files lf WHERE ${labelEntriesCondition()}`, staging)) {
      staged.set(r.path, r.file_id);
    }
    return { label, staging, commit, staged, resumed };
  }

  /**
   * Makes a completed crawl the label, in one transaction: the label's paths become the staged
   * ones (versions it alone held are journaled and dropped), and it records the commit.
   */
  promote(crawl: Crawl): WriteStats {
    let stats: WriteStats = { files: 0, nodesInserted: 0, nodesUpdated: 0, nodesDeleted: 0, edges: 0 };
    this.db.transaction(() => {
      const staging = this.row(crawl.staging);
      if (!staging || staging.target_sha !== crawl.commit) throw new CaError('internal', `no crawl of ${crawl.commit} staged for ${crawl.label}`);
      this.writer.ensureLabel(crawl.label);
      const target = this.row(crawl.label)!;
      const old = selectColumn<number>(this.db, `SELECT file_id FROM label_files WHERE label_id = ?`, target.id);
      cachedStatement(this.db, `DELETE FROM label_files WHERE label_id = ?`).run(target.id);
      cachedStatement(this.db, `UPDATE label_files SET label_id = ? WHERE label_id = ?`).run(target.id, staging.id);
      cachedStatement(this.db, `DELETE FROM labels WHERE id = ?`).run(staging.id);
      moveProjectFacts(this.db, crawl.staging, crawl.label);
      cachedStatement(this.db, `UPDATE labels SET kind = 'commit', commit_sha = ?, head_ref = NULL, dirty = 0, indexed_at = ?, updated_at = ? WHERE id = ?`)
        .run(crawl.commit, new Date().toISOString(), new Date().toISOString(), target.id);
      stats = this.writer.releaseVersions(old, 'label moved to another commit');
    })();
    return stats;
  }

  /**
   * Removes a label (and a crawl staged for it). Its versions stay until `gc` collects those no
   * label holds; returns how many paths the label held.
   */
  remove(name: string): number {
    const row = this.row(name);
    if (!row) this.require(name);
    let paths = 0;
    this.db.transaction(() => {
      paths = selectValue<number>(this.db, `SELECT COUNT(*) FROM label_files WHERE label_id = ?`, row!.id)!;
      cachedStatement(this.db, `DELETE FROM labels WHERE name IN (?, ?)`).run(name, stagingName(name));
      dropProjectFacts(this.db, name);
      dropProjectFacts(this.db, stagingName(name));
    })();
    return paths;
  }

  private dropLabel(id: number, reason: string): WriteStats {
    const files = selectColumn<number>(this.db, `SELECT file_id FROM label_files WHERE label_id = ?`, id);
    cachedStatement(this.db, `DELETE FROM labels WHERE id = ?`).run(id);
    return this.writer.releaseVersions(files, reason);
  }
}
