import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  artifactOriginOf,
  packArtifact,
  pruneArtifactCopy,
  recordArtifactOrigin,
  unpackArtifact,
  type ArtifactHeader,
  type ArtifactLabel,
  type ArtifactOptions,
  type ArtifactOrigin,
} from './artifact.js';
import { canonicalDump, type CanonicalDump } from './dump.js';
import type { LanguageSyntax } from '@ca/schema';
import { openDatabase, type OpenOptions, type SqliteDatabase } from './database.js';
import { ExploreReader } from './explore.js';
import { GraphReader } from './graph.js';
import { LabelStore } from './labels.js';
import { setLanguageStrategies } from './languages.js';
import { LoadNotes } from './loadNotes.js';
import { Maintenance } from './maintenance.js';
import { LabelPlanState } from './planState.js';
import { IndexReader } from './reader.js';
import { ConfigLinkStore } from './configLinks.js';
import { HttpLinkStore } from './httpLinks.js';
import { RazorLinkStore } from './razorLinks.js';
import { ImportResolver } from './resolver.js';
import { SemanticStore } from './semanticStore.js';
import { SnapshotSource } from './snapshotSource.js';
import { changeStamp } from './statements.js';
import { VectorStore } from './vectors.js';
import { IndexWriter } from './writer.js';

/** `Store.open` options: the database's, and the languages' strategies. */
export interface StoreOpenOptions extends OpenOptions {
  readonly languages?: readonly LanguageSyntax[];
}

/**
 * One repository's index: a SQLite file with the graph, FTS5 and vectors. Writes go through
 * `writer` (the single write path) and the intent-level services (`semantic`, `labels`,
 * `vectors`, `maintenance`); reads through `reader(label)`, `graph` and `planState(label)`. The
 * connection itself is not handed out: SQL lives in this package only.
 */
export class Store {
  readonly writer: IndexWriter;
  readonly semantic: SemanticStore;
  readonly labels: LabelStore;
  readonly maintenance: Maintenance;
  readonly graph: GraphReader;
  /** The HTTP linker's rows: client calls, endpoints and their links (per label). */
  readonly httpLinks: HttpLinkStore;
  /** Configuration reads and appsettings keys (decision 048). */
  readonly configLinks: ConfigLinkStore;
  /** The Razor linker's rows: markup component usages and the label's components (decision 041). */
  readonly razorLinks: RazorLinkStore;
  /** What indexing did not load or run (stripped plugins, MSBuild targets, refused files). */
  readonly loadNotes: LoadNotes;
  private vectorStore: VectorStore | null = null;

  private constructor(
    private readonly db: SqliteDatabase,
    readonly path: string,
  ) {
    this.writer = new IndexWriter(db);
    this.semantic = new SemanticStore(db, this.writer);
    this.labels = new LabelStore(db, this.writer);
    this.maintenance = new Maintenance(db, this.writer, () => this.vectors);
    this.graph = new GraphReader(db);
    this.httpLinks = new HttpLinkStore(db);
    this.configLinks = new ConfigLinkStore(db);
    this.razorLinks = new RazorLinkStore(db);
    this.loadNotes = new LoadNotes(db);
  }

  /**
   * Opens or creates the index at `path` (migrating it); see `openDatabase`. `languages` are the
   * module-resolution and declared-type strategies of the indexed languages (the engine passes
   * its registry's); a language without one resolves module paths only as written and matches
   * `type:` only against return types.
   */
  static open(path: string, options: StoreOpenOptions = {}): Store {
    const db = openDatabase(path, options);
    setLanguageStrategies(db, options.languages ?? []);
    return new Store(db, path);
  }

  /** Read queries scoped to a label (default `working`). */
  reader(label = 'working'): IndexReader {
    return new IndexReader(this.db, label);
  }

  /** What the explore answers (outlines, symbol details, directory ranking, symbol maps) read of a label. */
  explore(label = 'working'): ExploreReader {
    return new ExploreReader(this.db, label);
  }

  /** What the change planner reads of a label. */
  planState(label: string): LabelPlanState {
    return new LabelPlanState(this.db, label);
  }

  /** A label's state read in batches, for publishing it to a team store (`SnapshotSource`). */
  snapshotSource(label = 'working'): SnapshotSource {
    return new SnapshotSource(this.db, label);
  }

  /** Vectors: the embedding cache, node assignments and nearest-neighbour search (one per connection). */
  get vectors(): VectorStore {
    this.vectorStore ??= new VectorStore(this.db);
    return this.vectorStore;
  }

  /** Resolves name-based edges across modules of the label; returns how many were resolved. */
  resolveImports(label = 'working'): number {
    return new ImportResolver(this.db, label).resolvePending();
  }

  /** The label's rows named by paths and symbol keys, not ids (`CanonicalDump`): what differential tests compare. */
  canonicalDump(label = 'working', options: { readonly fts?: boolean } = {}): CanonicalDump {
    return canonicalDump(this.db, label, options);
  }

  /**
   * Changes whenever the database does (this connection's writes or another's commits): caches
   * keyed by it are valid until it moves.
   */
  changeStamp(): string {
    return changeStamp(this.db);
  }

  /**
   * Writes a portable artifact of this index to `out` (decision 045): a consistent copy
   * (`VACUUM INTO`, a read transaction: indexing may go on) in a temporary directory beside
   * `out`, pruned there (labels not kept, then vectors or contents when left out), compacted,
   * compressed and renamed onto `out` whole. The live index is only read.
   */
  async exportArtifact(out: string, options: ArtifactOptions): Promise<ArtifactHeader> {
    for (const name of options.labels ?? []) this.labels.require(name);
    const work = mkdtempSync(join(dirname(resolve(out)), '.ca-export-'));
    try {
      const copyPath = join(work, 'index.db');
      this.db.prepare(`VACUUM INTO ?`).run(copyPath);
      const copy = Store.open(copyPath, { skipQuickCheck: true });
      let facts: ReturnType<Store['prunedForArtifact']>;
      try {
        facts = copy.prunedForArtifact(options);
      } finally {
        copy.close();
      }
      const file = join(work, 'artifact');
      const header = await packArtifact(copyPath, join(work, 'payload.gz'), file, facts);
      renameSync(file, out);
      return header;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  /** On the exported copy: drops what `options` leaves out, records the origin, compacts; returns the header's facts. */
  private prunedForArtifact(options: ArtifactOptions): {
    schemaVersion: number;
    repository: string;
    labels: ArtifactLabel[];
    vectors: ArtifactHeader['vectors'];
    contents: boolean;
  } {
    const vectors = options.vectors !== false;
    const contents = options.contents !== false;
    const keep = options.labels ? new Set(options.labels) : null;
    // A staging label is a crawl in progress (`labels.list` does not show it): never part of an artifact.
    let removed = this.db.prepare(`DELETE FROM labels WHERE kind = 'staging'`).run().changes;
    for (const l of this.labels.list()) {
      if (!keep || keep.has(l.name)) continue;
      this.labels.remove(l.name);
      removed++;
    }
    if (removed > 0) this.maintenance.gc();
    pruneArtifactCopy(this.db, { vectors, contents });
    recordArtifactOrigin(this.db, { repository: options.repository, createdAt: new Date().toISOString(), vectors, contents });
    this.db.exec(`VACUUM`);
    const model = vectors ? this.vectors.model() : null;
    const count = model ? this.vectors.count() : 0;
    return {
      schemaVersion: Number(this.reader().metadata('schema_version')),
      repository: options.repository,
      labels: this.labels.list().map((l) => ({ name: l.name, kind: l.kind, commit: l.commit, files: l.files })),
      vectors: model && count > 0 ? { model: model.modelId, revision: model.revision, dims: model.dims, count } : null,
      contents,
    };
  }

  /**
   * Checks the artifact `file` and writes its index to `target` (a path that must not exist),
   * migrated to this tool's schema and verified (`PRAGMA quick_check`); on any failure `target`
   * is removed and the error thrown. Installing it (a rename over the live index) is the caller's.
   */
  static async unpackArtifact(file: string, target: string): Promise<ArtifactHeader> {
    const header = await unpackArtifact(file, target);
    try {
      Store.open(target).close();
    } catch (e) {
      rmSync(target, { force: true });
      for (const ext of ['-wal', '-shm']) rmSync(target + ext, { force: true });
      throw e;
    }
    return header;
  }

  /** What an imported index recorded of the artifact it came from; null for an index built here. */
  artifactOrigin(): ArtifactOrigin | null {
    return artifactOriginOf(this.db);
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  /** Checkpoints the WAL and closes the connection. */
  close(): void {
    if (!this.db.open) return;
    try {
      if (!this.db.readonly) this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }
}
