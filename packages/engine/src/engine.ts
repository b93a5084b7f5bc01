import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CaError, CONFIG_DIR, decodeFile, isDocLanguage, decodeSpan, gitBlobId, loadConfig, safeReadFile, type Config, type ParseStatus } from '@ca/schema';
import { LATEST_SCHEMA_VERSION, readArtifactHeader, SqliteGraphReads, Store, type ArtifactHeader, type ArtifactOrigin, type GcReport, type GraphReads, type IndexReader, type KnnHit, type LabelInfo, type LoadNote, type NodeRecord } from '@ca/store';
import { search as runSearch, toSearchResult, type SearchContext, type SearchOptions, type SearchResponse, type VectorChannel } from '@ca/retrieve';
import { createTsSemanticService, type TsSemanticService } from '@ca/parse-ts';
import { RoslynHost } from '@ca/parse-cs';
import {
  CONTEXT_METADATA_KEY,
  CommitSource,
  GitRepository,
  validateLabelName,
  WorktreeSource,
  worktreeLabel,
  WORKING_LABEL,
  type FileSource,
} from '@ca/invalidation';
import { createAdapters, type AdapterSet } from './adapters.js';
import { BUILTIN_LANGUAGES } from './languages/index.js';
import { LanguageRegistry, type EngineLanguage } from './languages/registry.js';
import { diskProjectReader } from './projects.js';
export { searchJson, toSymbolView } from './symbolView.js';
export type { SymbolView } from './symbolView.js';
import { oneSymbol } from './symbolLookup.js';
import { navigate, type Navigation, type NavigationOptions, type NavigationResult } from './navigation.js';
import { embedPending, IndexEmbedder, META_VECTORS_PENDING, QueryEmbedder, type EmbedReport } from './embedding.js';
import { IndexLock, type LockHolder } from './indexLock.js';
import { runIndex, type IndexReport, type RunOptions } from './indexer.js';
import { tsLoadNoteRecorder } from './loadNotes.js';
import { checkIndexPath, requireIndexed } from './indexPresence.js';
import { dirtyAgainst, freshnessOf, type Freshness } from './freshness.js';
export type { Freshness } from './freshness.js';
export type { IndexPhase, IndexProgress, IndexReport, BlobReport } from './indexer.js';
import { findSymbols, type FindOptions, type FindResponse } from './find.js';
import { LabelPrefixes } from './httpPrefixes.js';
import { listRoutes, type RoutesReport } from './routes.js';
import { unmatchedHttp, type UnmatchedHttp } from './httpLinks.js';
import { unresolvedConfigReads, type UnresolvedConfigRead } from './configLinks.js';
import { computeAffected, parseRange, resolveSide, type AffectedOptions, type AffectedReport } from './affected.js';
import { IndexedTexts, navigationWithContext, resultsWithContext, validateViewOptions, viewFile, type FileView, type ViewOptions, type ViewSelection } from './views.js';
import { ensureIndexGitignore } from './gitignore.js';
import { exportGraph, type GraphExportOptions, type GraphExportReport } from './graphExport.js';
import type { GraphFormat } from './graphFormat.js';

export { WORKING_LABEL };

export interface EngineOptions {
  /** Index file; default `<repo>/.codeagent/index.db` (for a linked git worktree: the main worktree's). */
  readonly dbPath?: string;
  /** Section → key → value, applied over the config file and environment. */
  readonly configOverrides?: Record<string, Record<string, unknown>>;
  /** Environment used for `CA_<SECTION>_<KEY>` overrides (default process.env). */
  readonly env?: Record<string, string | undefined>;
  /** A corrupt index file is moved aside and rebuilt from source (what `ca index` does). */
  readonly rebuildIfCorrupt?: boolean;
  /**
   * Read commands: fail with `not_indexed` (CLI exit 2) when the repository has no index that
   * an index run completed, instead of creating an empty one. Default false (open creates it).
   */
  readonly requireIndex?: boolean;
  /**
   * The languages indexed (default `BUILTIN_LANGUAGES`: TypeScript/JavaScript and C#). A
   * language is a `LanguageSupport` from its adapter package, optionally with a semantic pass;
   * two languages claiming one extension or language id are `config_invalid`.
   */
  readonly languages?: readonly EngineLanguage[];
}

/**
 * Symbols embedded per slice when vectors are filled in behind a long-lived engine's runs
 * (`index({ embedLimit })`, then `fillEmbeddings({ maxNodes })`): small enough that a change or
 * a call waiting for a slice under way waits briefly (its time: docs/benchmarks.md, "Figures
 * behind choices in the code").
 */
export const EMBED_SLICE = 128;

/**
 * Characters of a query handed to the embedding model. The model reads only its first few
 * hundred tokens anyway; a pasted log or file as a query would otherwise cost a full
 * tokenization for nothing. BM25 and the other channels read the query under retrieve's own cap.
 */
export const QUERY_EMBEDDING_MAX_CHARS = 2000;

/** The text of `query` the query embedder embeds: trimmed, then cut to `QUERY_EMBEDDING_MAX_CHARS`. */
export function queryEmbeddingText(query: string): string {
  return query.trim().slice(0, QUERY_EMBEDDING_MAX_CHARS);
}

/** A slice size as given (default `EMBED_SLICE`), made a whole number of at least 1 so every slice makes progress. */
export function embedSliceOf(n: number | undefined): number {
  const v = n ?? EMBED_SLICE;
  return Number.isNaN(v) ? EMBED_SLICE : Math.max(1, Math.floor(Math.min(v, Number.MAX_SAFE_INTEGER)));
}

export interface IndexOptions extends RunOptions {
  /**
   * Only these repo-relative paths changed (a watcher's events; directories are walked whole):
   * the run looks at them, plus what a HEAD move changed, instead of walking the whole tree.
   */
  readonly paths?: readonly string[];
  /** When another process is indexing this index: wait for it (default), or fail with `db_locked` after this many ms. */
  readonly lockTimeoutMs?: number;
  /** Told once when the run waits for another process's run. */
  readonly onWait?: (holder: LockHolder) => void;
}

export interface StatusReport {
  readonly repo: string;
  readonly db: string;
  readonly label: string;
  readonly schemaVersion: number;
  readonly files: number;
  readonly symbols: number;
  readonly edges: number;
  readonly lines: number;
  readonly parseStatus: Record<ParseStatus, number>;
  /**
   * Non-code files split into chunks: files per language (`markdown`, `json`, `yaml`), Markdown
   * sections and configuration keys (not counted in `symbols`). Skipped ones are in `problems`.
   */
  readonly docs: DocsSummary;
  /** Every file whose status is not `ok`, with the recorded reason. */
  readonly problems: readonly { path: string; status: ParseStatus; reason: string | null }[];
  readonly semantic: string;
  readonly vectorChannel: string;
  readonly lastIndexedAt: string | null;
  /** What indexing did not load or run: stripped tsconfig plugins, MSBuild targets and analyzers, files refused by a semantic pass. */
  readonly notLoaded: readonly LoadNote[];
  readonly freshness: Freshness;
  readonly labels: readonly LabelInfo[];
  /** The artifact this index was imported from (`ca import`): what it left out; absent for an index built here. */
  readonly importedFrom?: ArtifactOrigin;
}

/** What `Engine.exportArtifact` keeps (`ca export`): every label, vectors and contents unless told otherwise. */
export interface ExportOptions {
  readonly labels?: readonly string[];
  readonly vectors?: boolean;
  readonly contents?: boolean;
}

/** The documentation and configuration part of `ca status`. */
export interface DocsSummary {
  readonly files: Readonly<Record<string, number>>;
  readonly sections: number;
  readonly keys: number;
}

export interface HealthCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** File texts navigation keeps for its gap checks until the index changes (characters; past it the cache starts over). */
const TEXT_CACHE_MAX_CHARS = 32 * 1024 * 1024;

/**
 * Where the index of a working tree lives: `<repo>/.codeagent/index.db`, or, for a linked git
 * worktree (`git worktree add`), the main worktree's, so every worktree of a repository shares
 * one content store (each is its own label, `working@<name>`).
 */
function defaultIndexPath(root: string, git: GitRepository | null): string {
  if (git?.location.worktreeName && basename(git.location.commonDir) === '.git') {
    const main = dirname(git.location.commonDir);
    if (existsSync(main)) return join(main, CONFIG_DIR, 'index.db');
  }
  return join(root, CONFIG_DIR, 'index.db');
}

/**
 * The composition root: one repository, its configuration and its index. Open with
 * `Engine.open(repo)`, then `index()`, `search()`, `symbol()`, `outline()`, `source()`; labels
 * (commits indexed from git objects) with `indexCommit()`, `labels()`, `removeLabel()`, `gc()`.
 */
export class Engine {
  private constructor(
    readonly repoRoot: string,
    readonly dbPath: string,
    readonly config: Config,
    private currentStore: Store,
    /** The git repository the working tree belongs to (null: not a git working tree). */
    readonly git: GitRepository | null,
    /** This working tree's label: `working`, or `working@<name>` in a linked git worktree. */
    readonly workingLabel: string,
    /** The languages this engine indexes. */
    readonly languages: LanguageRegistry,
  ) {
    this.lock = new IndexLock(`${dbPath}.lock`);
  }

  /** The TS semantic service, kept across `index()` calls (warm parsed and bound files until its idle shutdown). */
  private tsServiceInstance: TsSemanticService | null = null;
  /** The C# roslyn-host, kept across `index()` calls (warm JIT; it stops itself when idle). */
  private csHostInstance: RoslynHost | null = null;
  /** Set once the first `index()` verified the file (PRAGMA quick_check). */
  private intactChecked = false;
  /**
   * Files whose semantic pass failed and that this engine already retried once: they wait for a
   * change of their own, of their context (config) or of the extractor, which marks them anew,
   * instead of re-running a project that cannot load or timed out on every refresh.
   */
  private readonly semanticRetried = new Set<number>();
  /** The indexing embedder, kept across `index()` calls like the semantic service. */
  private readonly indexEmbedder = new IndexEmbedder();
  /** The language adapters (tree-sitter grammars), kept across `index()` calls. */
  private adapterSet: Promise<AdapterSet> | null = null;
  private countsCache: { key: string; counts: ReturnType<IndexReader['counts']> } | null = null;
  private textCache: { stamp: string; texts: Map<string, string | null>; chars: number } | null = null;
  private readonly lock: IndexLock;

  /** The index database (replaced when a corrupt index is rebuilt). */
  get store(): Store {
    return this.currentStore;
  }

  /**
   * Opens the index of `repo` (creating it on first use). Fails with `invalid_path` when `repo`
   * does not exist or is not a directory.
   */
  static open(repo: string, options: EngineOptions = {}): Engine {
    const root = resolve(repo);
    let st;
    try {
      st = statSync(root);
    } catch (e) {
      throw new CaError('invalid_path', `repository path does not exist: ${repo}`, { cause: e, context: { path: repo } });
    }
    if (!st.isDirectory()) {
      throw new CaError('invalid_path', `repository path is not a directory: ${repo}`, { context: { path: repo } });
    }
    const config = loadConfig(root, { env: options.env ?? process.env, ...(options.configOverrides ? { overrides: options.configOverrides } : {}) });
    const languages = new LanguageRegistry(options.languages ?? BUILTIN_LANGUAGES);
    const git = GitRepository.locate(root);
    const dbPath = options.dbPath ? (isAbsolute(options.dbPath) ? options.dbPath : resolve(options.dbPath)) : defaultIndexPath(root, git);
    checkIndexPath(dbPath, repo, { explicit: options.dbPath !== undefined, requireIndex: options.requireIndex === true });
    if (!options.dbPath) {
      const dir = dirname(dbPath);
      mkdirSync(dir, { recursive: true });
      ensureIndexGitignore(join(dir, '.gitignore'));
    }
    // PRAGMA quick_check costs seconds on a large index: it runs when indexing (and in
    // `ca health`), not on every query-side open.
    let store: Store;
    try {
      store = Store.open(dbPath, { skipQuickCheck: true, languages: languages.languages });
    } catch (e) {
      if (!(options.rebuildIfCorrupt && e instanceof CaError && e.code === 'db_corrupt')) throw e;
      moveAside(dbPath);
      store = Store.open(dbPath, { skipQuickCheck: true, languages: languages.languages });
      store.writer.recordEvent('index_rebuilt', null, `the previous index was not a valid database (${e.message}); rebuilding from source`);
    }
    if (options.requireIndex === true) {
      try {
        requireIndexed(store, repo, dbPath);
      } catch (e) {
        store.close();
        throw e;
      }
    }
    // A git worktree's label is named after the worktree only when the index is shared with the main one.
    const workingLabel = git?.location.worktreeName && !options.dbPath ? worktreeLabel(git.location.worktreeName) : WORKING_LABEL;
    return new Engine(root, dbPath, config, store, git, workingLabel, languages);
  }

  /**
   * The label a request names: the working tree's by default (`working` also names a linked
   * worktree's own label), else an existing label; `unknown_label` otherwise.
   */
  labelOf(label: string | undefined): string {
    if (label === undefined || label === WORKING_LABEL || label === this.workingLabel) return this.workingLabel;
    this.store.labels.require(label);
    return label;
  }

  reader(label?: string): IndexReader {
    return this.store.reader(this.labelOf(label));
  }

  /**
   * Brings the working tree's label up to date: discovers files (all, or the `paths` a watcher
   * reported plus what a HEAD move changed), re-parses only files whose size/mtime and then
   * content changed, writes in bounded transactions, removes deleted paths, resolves cross-file
   * edges, re-runs the semantic scopes that need it, and embeds. One run at a time per index,
   * across processes: a run waits for another process's run to end first.
   */
  async index(options: IndexOptions = {}): Promise<IndexReport> {
    const started = performance.now();
    await this.lock.acquire(this.workingLabel, {
      ...(options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {}),
      ...(options.onWait ? { onWait: options.onWait } : {}),
    });
    const source = new WorktreeSource(this.repoRoot);
    try {
      this.ensureIntact();
      const label = this.workingLabel;
      this.store.labels.ensure(label, 'working', this.repoRoot);
      const before = this.store.labels.state(label);
      const head = this.git?.head() ?? null;
      const widened = await this.widenForHeadMove(options.paths ?? null, before?.commit ?? null, head?.commit ?? null);
      const paths = widened.paths;
      const renames = await this.renamesSince(before?.commit ?? null, head?.commit ?? null);
      const result = await runIndex(this.indexerContext(), { label, source, paths, contextKey: this.contextKey(label), ...(renames ? { renames } : {}) }, options);
      const reader = this.store.reader(label);
      // Only a run that changed the index moves it: a no-change refresh writes nothing, so the
      // caches keyed by the change stamp (answers, BM25 term statistics, label filters) survive it.
      if (result.wrote || reader.metadata('last_indexed_at') === null) this.store.writer.setMetadata('last_indexed_at', new Date().toISOString());
      if (result.wrote || before?.commit !== (head?.commit ?? null) || before?.indexedAt === null) {
        this.store.labels.setIndexed(label, { commit: head?.commit ?? null, headRef: head?.ref ?? null, dirty: this.git && head?.commit ? await dirtyAgainst(this, head.commit, label, (await this.adapters()).extensions) : null });
      }
      const report = this.report(label, head?.commit ?? null, started, result);
      return widened.notice === null ? report : { ...report, notices: [widened.notice] };
    } finally {
      source.close();
      this.lock.release();
    }
  }

  /**
   * Indexes a commit as `label`, from git objects (never the working tree, never a checkout):
   * versions the index holds already are reused, only new blobs are parsed and embedded. The
   * label moves to the new commit only when the crawl completes; an interrupted crawl leaves the
   * label as it was and the next call resumes it.
   */
  async indexCommit(label: string, revision: string, options: RunOptions & { lockTimeoutMs?: number; onWait?: (holder: LockHolder) => void } = {}): Promise<IndexReport> {
    const started = performance.now();
    validateLabelName(label);
    const git = this.git ?? GitRepository.require(this.repoRoot, `indexing a commit (--commit ${revision})`);
    const commit = await git.resolveCommit(revision);
    await this.lock.acquire(label, {
      ...(options.lockTimeoutMs !== undefined ? { timeoutMs: options.lockTimeoutMs } : {}),
      ...(options.onWait ? { onWait: options.onWait } : {}),
    });
    let source: FileSource | null = null;
    try {
      this.ensureIntact();
      const existing = this.store.labels.state(label);
      if (existing && existing.kind === 'working') throw new CaError('usage', `"${label}" is a working-tree label`);
      source = await CommitSource.open(git, commit);
      const crawl = this.store.labels.beginCrawl(label, commit);
      const result = await runIndex(this.indexerContext(), { label: crawl.staging, source, paths: null, contextKey: this.contextKey(label) }, options);
      this.store.labels.promote(crawl);
      this.store.writer.setMetadata('last_indexed_at', new Date().toISOString());
      return this.report(label, commit, started, result);
    } finally {
      source?.close();
      this.lock.release();
    }
  }

  /** Renames git knows between the commit the label was indexed at and HEAD now (none when HEAD did not move). */
  /**
   * The paths a refresh looks at when HEAD moved since the label was indexed (a checkout, pull or
   * rebase): the reported `paths` plus what git names between the two commits, so no full walk is
   * needed. When git cannot name them (the old commit was rebased away and pruned, a shallow
   * clone), the run walks the whole tree instead and says so in a notice: the answer is still
   * right, but the run is a full walk the caller did not ask for.
   */
  private async widenForHeadMove(paths: readonly string[] | null, from: string | null, to: string | null): Promise<{ paths: readonly string[] | null; notice: string | null }> {
    if (paths === null || !this.git || from === null || to === null || from === to) return { paths, notice: null };
    try {
      return { paths: [...new Set([...paths, ...(await this.git.changedPaths(from, to))])], notice: null };
    } catch (e) {
      const why = e instanceof Error ? e.message.split('\n')[0]! : String(e);
      return { paths: null, notice: `HEAD moved from ${from.slice(0, 12)} to ${to.slice(0, 12)} but git could not list the changed files (${why}): walked the whole tree instead` };
    }
  }

  private async renamesSince(from: string | null, to: string | null): Promise<ReadonlyMap<string, string> | null> {
    if (!this.git || from === null || to === null || from === to) return null;
    try {
      return await this.git.renamedPaths(from, to);
    } catch {
      // Only a hint is lost (an old commit gc'd away, a shallow clone): similar contents still pair.
      return null;
    }
  }

  /** Labels of the index (the working trees and commits), by name. */
  labels(): LabelInfo[] {
    return this.store.labels.list();
  }

  /** Removes a label (its versions go with the next `gc`); returns how many paths it held. */
  removeLabel(name: string): number {
    if (name === WORKING_LABEL || name === this.workingLabel) throw new CaError('usage', `"${name}" is the working tree's label; it is not removed (delete the index instead)`);
    return this.store.labels.remove(name);
  }

  /**
   * Writes a portable artifact of the index to `out` (`ca export`, decision 045): the labels
   * named (default all), with vectors and stored contents unless left out. The repository is
   * recorded by this checkout's directory name, which `importArtifact` compares.
   */
  exportArtifact(out: string, options: ExportOptions = {}): Promise<ArtifactHeader> {
    return this.store.exportArtifact(out, {
      repository: basename(this.repoRoot),
      ...(options.labels && options.labels.length > 0 ? { labels: options.labels } : {}),
      ...(options.vectors === false ? { vectors: false } : {}),
      ...(options.contents === false ? { contents: false } : {}),
    });
  }

  /**
   * Replaces this index with the artifact `file` (`ca import`): the header and checksum are
   * checked and the database unpacked and verified beside the index before anything is
   * replaced; then one rename installs it, so a failure at any step leaves the previous index
   * as it was. An artifact of another repository (by directory name) is `artifact_mismatch`
   * unless `force`. Run `index()` after it to bring the working tree's label up to date.
   */
  async importArtifact(file: string, options: { force?: boolean } = {}): Promise<ArtifactHeader> {
    const header = readArtifactHeader(file);
    const repository = basename(this.repoRoot);
    if (header.repository !== repository && options.force !== true) {
      throw new CaError('artifact_mismatch', `${file} is an index of "${header.repository}", not of "${repository}" (${this.repoRoot}); pass --force to import it anyway`, {
        context: { path: file },
      });
    }
    this.lock.tryAcquire('import') || this.throwLocked();
    const temp = `${this.dbPath}.import-${process.pid}`;
    try {
      for (const ext of ['', '-wal', '-shm']) rmSync(temp + ext, { force: true });
      await Store.unpackArtifact(file, temp);
      this.installIndex(temp);
      return header;
    } finally {
      for (const ext of ['', '-wal', '-shm']) rmSync(temp + ext, { force: true });
      this.lock.release();
    }
  }

  /** Renames the verified database `temp` over the index and reopens it; the caches of the old index go. */
  private installIndex(temp: string): void {
    // Closing the last connection checkpoints the WAL into the old file and removes it, so no
    // WAL of the old index is ever read against the new one.
    this.closeStore();
    try {
      renameSync(temp, this.dbPath);
      for (const suffix of [CHECKED_SUFFIX, PROGRAM_CACHE_SUFFIX]) rmSync(this.dbPath + suffix, { force: true });
    } finally {
      this.currentStore = Store.open(this.dbPath, { skipQuickCheck: true, languages: this.languages.languages });
      this.countsCache = null;
      this.textCache = null;
      this.intactChecked = false;
      this.semanticRetried.clear();
    }
  }

  /** Reclaims what no label references (versions, nodes, edges, FTS rows, vectors, stored files) and sweeps the journals. */
  gc(): GcReport {
    this.lock.tryAcquire('gc') || this.throwLocked();
    try {
      return this.store.maintenance.gc();
    } finally {
      this.lock.release();
    }
  }

  private throwLocked(): never {
    const h = this.lock.holder();
    throw new CaError('db_locked', `another process (pid ${h?.pid ?? '?'}) is indexing ${h?.label ?? 'this index'}; try again when it is done`);
  }

  /**
   * How fresh an answer from `label` is, now: HEAD against the commit indexed, and the files the
   * answer comes from (`paths`; `'all'` walks every indexed file) against the versions indexed.
   */
  freshness(label?: string, paths: Iterable<string> | 'all' = []): Freshness {
    return freshnessOf(this, this.labelOf(label), paths);
  }

  private contextKey(label: string): string {
    return label === WORKING_LABEL ? CONTEXT_METADATA_KEY : `${CONTEXT_METADATA_KEY}:${label}`;
  }

  private indexerContext() {
    return {
      store: this.store,
      config: this.config,
      languages: this.languages,
      adapters: () => this.adapters(),
      tsService: () =>
        (this.tsServiceInstance ??= createTsSemanticService({
          maxOldSpaceSizeMb: this.config.semantic.max_old_space_mb,
          onEvent: tsLoadNoteRecorder(this.repoRoot, () => this.store),
          programCacheFile: `${this.dbPath}${PROGRAM_CACHE_SUFFIX}`,
        })),
      csHost: () => (this.csHostInstance ??= new RoslynHost()),
      embedder: this.indexEmbedder,
      semanticRetried: this.semanticRetried,
    };
  }

  private report(label: string, commit: string | null, started: number, result: Awaited<ReturnType<typeof runIndex>>): IndexReport {
    const counts = this.counts(label);
    return {
      files: counts.files,
      symbols: counts.symbols,
      edges: counts.edges,
      skipped: counts.byStatus.skipped,
      parseStatus: counts.byStatus,
      ms: Math.round(performance.now() - started),
      changed: result.plan.parse.length,
      removed: result.plan.remove.length,
      lines: counts.lines,
      label,
      commit,
      blobs: result.blobs,
      ...(result.semantic ? { semantic: result.semantic } : {}),
      ...(result.contextChanges ? { contextChanges: result.contextChanges } : {}),
      ...(result.httpLinks ? { httpLinks: result.httpLinks } : {}),
      ...(result.configLinks ? { configLinks: result.configLinks } : {}),
      embeddings: result.embeddings,
    };
  }

  /**
   * The language adapters, loaded once per engine (loading the grammars would otherwise be most
   * of a refresh that finds nothing to parse); a failed load is tried again next time.
   */
  private adapters(): Promise<AdapterSet> {
    this.adapterSet ??= createAdapters(this.languages, diskProjectReader(this.repoRoot, this.languages)).catch((e: unknown) => {
      this.adapterSet = null;
      throw e;
    });
    return this.adapterSet;
  }

  /** The label's file/symbol/edge counts, read again only when the index changed (counting reads every file, node and edge of the label). */
  private counts(label: string): ReturnType<IndexReader['counts']> {
    const key = `${label}\u0000${this.store.changeStamp()}`;
    if (this.countsCache?.key !== key) this.countsCache = { key, counts: this.store.reader(label).counts() };
    return this.countsCache.counts;
  }

  /**
   * Embeds nodes that have no vector yet, at most about `maxNodes` of them (all by default):
   * vectors filled in behind an `index({ embedLimit })`, a slice at a time (the MCP server does
   * this between answers). Never run it while an `index()` of this engine runs.
   */
  async fillEmbeddings(options: { maxNodes?: number; onProgress?: (done: number, total: number) => void } = {}): Promise<EmbedReport> {
    try {
      return await embedPending(this.store, this.config.embedding, this.workingLabel, options.onProgress, this.indexEmbedder.acquire, options.maxNodes);
    } catch (e) {
      this.indexEmbedder.reset();
      throw e;
    }
  }

  /**
   * Runs PRAGMA quick_check once per engine (it reads the whole file, too much for every edit of
   * a long-lived engine); a corrupt index is moved aside
   * (`<db>.corrupt-<time>`) and rebuilt from source by the index run that called this.
   */
  private ensureIntact(): void {
    if (this.intactChecked) return;
    this.intactChecked = true;
    // Checked by the last engine that closed it, and not written since: no need to read it all again.
    if (readStamp(`${this.dbPath}${CHECKED_SUFFIX}`) === fileStamp(this.dbPath)) return;
    const result = this.currentStore.maintenance.quickCheck();
    if (result === 'ok') return;
    this.currentStore.close();
    moveAside(this.dbPath);
    this.currentStore = Store.open(this.dbPath, { skipQuickCheck: true, languages: this.languages.languages });
    this.countsCache = null;
    this.currentStore.writer.recordEvent('index_rebuilt', null, `PRAGMA quick_check failed (${result}); rebuilding from source`);
  }

  /**
   * Hybrid search over a label's index (default: the working tree's): name, BM25 and (when a
   * model and vectors are available) vector channels. Answers are cached per parameters until
   * the index changes.
   */
  async search(query: string, options: SearchOptions & { label?: string } = {}): Promise<SearchResponse> {
    const started = performance.now();
    const label = this.labelOf(options.label);
    const { label: _label, ...searchOptions } = options;
    const key = JSON.stringify([query, searchOptions, label, this.store.changeStamp()]);
    const cached = this.queryCache.get(key);
    if (cached) {
      this.queryCache.delete(key);
      this.queryCache.set(key, cached);
      return { ...cached, tookMs: Math.round((performance.now() - started) * 100) / 100 };
    }
    const { ctx, notices: extra } = await this.searchContext(query, searchOptions, undefined, label);
    const response = runSearch(ctx, query, this.searchOptions(searchOptions));
    const notices = extra.length > 0 ? [...response.notices, ...extra] : response.notices;
    const result = { ...response, notices, tookMs: Math.round((performance.now() - started) * 100) / 100 };
    this.queryCache.set(key, result);
    if (this.queryCache.size > 200) this.queryCache.delete(this.queryCache.keys().next().value!);
    return result;
  }

  /** Search options with this repository's configured defaults (RRF k, channel K, budget, limit). */
  searchOptions(options: SearchOptions = {}): SearchOptions {
    return {
      rrfK: this.config.search.rrf_k,
      channelK: this.config.search.channel_k,
      budget: this.config.search.budget,
      ranker: this.config.ranking.model,
      ...options,
      limit: options.limit ?? this.config.search.limit,
    };
  }

  /**
   * The channels of this index (a label of it, default the working tree) for one query, and
   * notices about them (vectors still being filled in). `embedded`: the query's vector made once
   * for several indexes (multi-repository search), used when it comes from the model this index
   * holds vectors of.
   */
  async searchContext(
    query: string,
    options: SearchOptions = {},
    embedded?: { readonly vector: Float32Array; readonly modelId: string } | null,
    label?: string,
  ): Promise<{ ctx: SearchContext; notices: string[] }> {
    const name = this.labelOf(label);
    const reader = this.store.reader(name);
    const vectorChannel = (options.channels ?? ['vector']).includes('vector');
    let vectorOff = vectorChannel ? await this.vectorOffReason() : null;
    const wantsVector = vectorChannel && query.trim() !== '';
    let vector: VectorChannel | null = null;
    if (vectorOff === null && wantsVector) {
      const store = this.store.vectors;
      const held = store.model()?.modelId;
      let q: Float32Array | null = null;
      if (embedded && embedded.modelId === held) q = embedded.vector;
      else if (embedded === undefined || embedded === null) q = await this.queryEmbedder.embed(queryEmbeddingText(query));
      else vectorOff = `the index holds vectors of ${held ?? 'no model'}, the query was embedded with ${embedded.modelId}`;
      if (q) {
        const vec = q;
        // Only the label's nodes, when the index holds other versions too.
        const scoped = reader.exclusive() ? {} : { label: name };
        vector = {
          search: (k, allow) => store.knn(vec, k, { ...scoped, ...(allow ? { allow: (id: number) => allow.has(id) } : {}) }),
          searchChecked: (k, check, passRate) => store.knnChecked(vec, k, check, { ...scoped, passRate }),
        };
      }
    }
    // Vectors still being filled in (or an index run that stopped before they were): said, never silent.
    const partial = vector !== null ? notEmbedded(reader.metadata(META_VECTORS_PENDING)) : null;
    return {
      ctx: { reader, vector, ...(vectorOff ? { vectorOffReason: vectorOff } : {}) },
      notices: partial ? [`vector channel partial: ${partial}; matches found only by meaning may be missing`] : [],
    };
  }

  /** The query's vector with this engine's model (multi-repository search embeds once), or null when the vector channel is off. */
  async embedQuery(query: string): Promise<{ vector: Float32Array; modelId: string } | null> {
    if ((await this.vectorOffReason()) !== null || query.trim() === '') return null;
    const modelId = this.store.vectors.model()?.modelId;
    if (!modelId) return null;
    return { vector: await this.queryEmbedder.embed(queryEmbeddingText(query)), modelId };
  }

  /**
   * Writes the label's graph, or the part a filter selects, in `format` to `write` piece by piece
   * (`ca graph`; see graphExport.ts).
   */
  graph(format: GraphFormat, write: (chunk: string) => void, options: GraphExportOptions & { label?: string } = {}): GraphExportReport {
    const { label, ...rest } = options;
    return exportGraph(this.store.graph, this.reader(label), format, write, rest);
  }

  /** The symbols a filter expression selects, a page at a time in a stable order (`ca find`; see find.ts). */
  find(expression: string, options: FindOptions & { label?: string } = {}): FindResponse {
    const { label, ...page } = options;
    return findSymbols(this.reader(label), expression, page);
  }

  /** Every HTTP endpoint of a label with its handlers and client count (`ca routes`; see routes.ts). */
  routes(options: { label?: string } = {}): RoutesReport {
    const label = this.labelOf(options.label);
    return listRoutes(this.store.reader(label), new LabelPrefixes(this.store.httpLinks.prefixFacts(label)));
  }

  /** Client calls no endpoint serves and endpoints no client calls (`ca routes --unmatched`; see httpLinks.ts). */
  unmatchedHttp(options: { label?: string } = {}): UnmatchedHttp {
    return unmatchedHttp(this.store, this.labelOf(options.label));
  }

  /** Configuration reads that reach no appsettings key: computed keys and missing keys (decision 048; see configLinks.ts). */
  unresolvedConfigReads(options: { label?: string } = {}): UnresolvedConfigRead[] {
    return unresolvedConfigReads(this.store, this.labelOf(options.label));
  }

  /**
   * What a diff between two indexed labels changed and what that impacts (`ca affected
   * BASE..HEAD`, MCP `affected`; see affected.ts and decision 044). `range` is `BASE..HEAD`, each
   * side a label or a commit a label was indexed at; an empty HEAD is the working tree.
   */
  async affected(range: string, options: AffectedOptions = {}): Promise<AffectedReport> {
    const { base: baseName, head: headName } = parseRange(range);
    const git = this.git;
    const resolver = { labels: this.store.labels.list(), workingLabel: this.workingLabel, resolveCommit: git ? (rev: string) => git.resolveCommit(rev) : null };
    const [base, head] = [await resolveSide(baseName, resolver), await resolveSide(headName, resolver)];
    const input = (side: { label: string; commit: string | null }) => {
      const reader = this.store.reader(side.label);
      const indexedText = side.label === this.workingLabel ? this.indexedTexts() : (path: string) => decodedText(reader.fileContent(path));
      return { ...side, reader, indexedText };
    };
    if (options.depth !== undefined && (!Number.isInteger(options.depth) || options.depth < 1)) throw new CaError('usage', `--depth must be a positive integer (got ${String(options.depth)})`);
    return computeAffected({ graph: this.store.graph, limits: this.config.graph, languages: this.languages }, input(base), input(head), options);
  }

  /** Files of a label as it holds them (`fileBytes`), read once per answer. */
  private texts(label: string | undefined): IndexedTexts {
    const name = this.labelOf(label);
    return new IndexedTexts((path) => this.fileBytes(path, name));
  }

  /** A file as a label holds it, whole or by `--lines` / `id:` selector (`ca view`; see views.ts). */
  view(path: string, selection: ViewSelection = {}, options: { label?: string } = {}): FileView {
    return viewFile(this.repoRoot, this.reader(options.label), this.texts(options.label), path, selection);
  }

  /** A search answer whose results carry the lines around them and capped long lines (`--context`, `--max-line-length`). */
  withContext(response: SearchResponse, view: ViewOptions, options: { label?: string } = {}): SearchResponse {
    validateViewOptions(view);
    const texts = this.texts(options.label);
    const { results, notices } = resultsWithContext(response.results, () => texts, view);
    return { ...response, results, notices: [...response.notices, ...notices] };
  }

  /** A navigation answer whose sites carry the lines around them (`--context` on callers, refs …). */
  navigationContext(result: NavigationResult, view: ViewOptions, options: { label?: string } = {}): NavigationResult {
    validateViewOptions(view);
    return navigationWithContext(result, this.texts(options.label), view);
  }

  /** Symbols whose code is most like SYMBOL's (vector channel), excluding itself. */
  async similar(name: string, options: { limit?: number; label?: string } = {}): Promise<SearchResponse> {
    const started = performance.now();
    const label = this.labelOf(options.label);
    const node = this.resolveSymbol(name, label);
    const limit = options.limit ?? this.config.search.limit;
    // The symbol, what contains it (its class, its file) and what it contains resemble it
    // trivially: "code like this" means other code.
    const reader = this.store.reader(label);
    const nested = new Set(
      reader
        .outline(node.path)
        .filter((n) => (n.startByte <= node.startByte && n.endByte >= node.endByte) || (n.startByte >= node.startByte && n.endByte <= node.endByte))
        .map((n) => n.id),
    );
    const margin = limit + 1 + SIMILAR_MARGIN;
    const off = await this.vectorOffReason();
    if (off !== null) {
      // Without vectors: words of the symbol's own code through BM25, said plainly.
      const r = await this.search(`${node.name} ${node.signature}`, { limit: margin, channels: ['bm25'], label });
      const notice = `vector channel off: ${off}; results share words with the symbol's name and signature (BM25)`;
      return { ...r, results: r.results.filter((x) => !nested.has(Number(x.id))).slice(0, limit), notices: [notice, ...r.notices] };
    }
    const store = this.store.vectors;
    const q = store.nodeVector(node.id);
    if (!q) throw new CaError('not_found', `${node.qualifiedName} has no embedding yet (run ca index)`);
    const scoped = reader.exclusive() ? {} : { label };
    // A class with many members fills the first neighbours with them: widen until enough remain.
    let hits: KnnHit[] = [];
    for (let k = margin; ; k = Math.min(SIMILAR_MAX_K, k * 4)) {
      const raw = store.knn(q, k, scoped);
      hits = raw.filter((h) => !nested.has(h.nodeId));
      if (hits.length >= limit || raw.length < k || k >= SIMILAR_MAX_K) break;
    }
    hits = hits.slice(0, limit);
    const nodes = new Map(reader.nodesByIds(hits.map((h) => h.nodeId)).map((n) => [n.id, n]));
    const results = hits.flatMap((h, i) => {
      const n = nodes.get(h.nodeId);
      return n ? [toSearchResult(n, h.score, ['vector'], { vector: i + 1 })] : [];
    });
    return { query: node.qualifiedName, intent: 'targeted', results, tookMs: Math.round((performance.now() - started) * 100) / 100, notices: [], tokens: 0 };
  }

  /** Null when the vector channel works; otherwise why it is off. */
  async vectorOffReason(): Promise<string | null> {
    const reason = await this.queryEmbedder.unavailableReason();
    if (reason) return reason;
    const model = this.store.vectors.model();
    if (!model) return 'the index has no embeddings yet (run ca index)';
    const current = await this.queryEmbedder.modelId();
    if (current !== model.modelId) return `the index holds vectors of ${model.modelId}, the configured model is ${current} (run ca index to re-embed)`;
    return null;
  }

  private readonly queryCache = new Map<string, SearchResponse>();
  private queryEmbedderInstance: QueryEmbedder | null = null;
  private get queryEmbedder(): QueryEmbedder {
    this.queryEmbedderInstance ??= new QueryEmbedder(this.config.embedding);
    return this.queryEmbedderInstance;
  }

  /**
   * Resolves a SYMBOL argument: a node id, an exact qualified name, or a (suffix of a)
   * qualified name / bare name. Returns every candidate; callers decide about ambiguity.
   */
  findSymbols(name: string, label?: string): NodeRecord[] {
    const reader = this.reader(label);
    const trimmed = name.trim();
    if (trimmed === '') throw new CaError('usage', 'a symbol name is required');
    if (/^\d+$/.test(trimmed)) {
      const n = reader.nodeById(Number(trimmed));
      if (n) return [n];
    }
    // `backend/appsettings.json#Features:Search`: a section or key of one documentation file.
    const hash = trimmed.indexOf('#');
    if (hash > 0) {
      const path = trimmed.slice(0, hash);
      const inFile = reader.byQualifiedName(trimmed.slice(hash + 1), undefined, 50, true).filter((n) => n.path === path && n.kind !== 'file');
      if (inFile.length > 0) return inFile;
    }
    const exact = reader.byQualifiedName(trimmed).filter((n) => n.kind !== 'file');
    if (exact.length > 0) return exact;
    const suffix = reader.bySuffix(trimmed).filter((n) => n.kind !== 'file' && n.kind !== 'module');
    if (suffix.length > 0) return suffix;
    // No code symbol: a configuration key or documentation section by its path (`ConnectionStrings:Orders`, decision 048).
    return reader.byQualifiedName(trimmed, undefined, 50, true).filter((n) => n.kind !== 'file');
  }

  /** Exactly one symbol, or `not_found` / `ambiguous_symbol` listing the candidates. */
  resolveSymbol(name: string, label?: string): NodeRecord {
    return oneSymbol(name, this.findSymbols(name, label));
  }

  /**
   * Graph navigation: callers, callees, refs, impls, deps, dependents or impact of SYMBOL (a
   * qualified name, a bare name, an id — or, for deps/dependents, a file path). A name that
   * matches several symbols is `ambiguous_symbol` unless `all` is set (then all are seeds).
   */
  navigate(
    navigation: Navigation,
    target: string,
    options: NavigationOptions & { all?: boolean; label?: string } = {},
  ): NavigationResult & { symbol: { code: string } } {
    const label = this.labelOf(options.label);
    const reader = this.store.reader(label);
    let seeds: NodeRecord[] = [];
    if (navigation === 'deps' || navigation === 'dependents') {
      const rel = normalizeRepoPath(this.repoRoot, target);
      const fileNodes = reader.outline(rel);
      if (fileNodes.length > 0) seeds = [fileNodes[0]!, ...fileNodes.slice(1)];
    }
    if (seeds.length === 0) seeds = options.all ? this.findSymbols(target, label) : [this.resolveSymbol(target, label)];
    if (seeds.length === 0) throw new CaError('not_found', `no symbol matches "${target}"`, { context: { symbol: target } });
    const indexedText = label === this.workingLabel ? this.indexedTexts() : (path: string) => decodedText(reader.fileContent(path));
    const result = navigate(this.store.graph, reader, label, navigation, seeds, { indexedText, languages: this.languages, ...options }, this.config.graph);
    return { ...result, symbol: { ...result.symbol, code: seeds[0]!.chunkText } };
  }

  /** One label of this index behind the async read contract (`GraphReads`, decision 042). */
  graphReads(label?: string): GraphReads {
    const name = this.labelOf(label);
    return new SqliteGraphReads(this.store.reader(name), this.store.graph);
  }

  /** The symbols of a file, in source order (path relative to the repository). */
  outline(path: string, options: { label?: string } = {}): NodeRecord[] {
    const rel = normalizeRepoPath(this.repoRoot, path);
    const reader = this.reader(options.label);
    const nodes = reader.outline(rel);
    if (nodes.length === 0) {
      const status = reader.fileStatuses().find((f) => f.path === rel);
      if (status) return [];
      throw new CaError('not_found', `${rel} is not in the index`, { context: { path: rel } });
    }
    return nodes;
  }

  /**
   * The full source of a symbol. The working tree's: read from disk when the file is still the
   * version indexed, else from the index's stored copy (`stale` is true when neither holds it
   * and `code` is the indexed, collapsed chunk text). Another label's: from the stored copy.
   */
  source(name: string, options: { label?: string } = {}): { node: NodeRecord; code: string; stale: boolean } {
    const label = this.labelOf(options.label);
    const node = this.resolveSymbol(name, label);
    const bytes = this.fileBytes(node.path, label);
    if (bytes) return { node, code: decodeSpan(bytes, node.startByte, node.endByte), stale: false };
    return { node, code: node.chunkText, stale: true };
  }

  /**
   * A file's bytes as the label indexed them: for the working tree, the file on disk when it is
   * still that version (else the stored copy); for other labels, the stored copy. Null when the
   * label has no such file or no copy is kept.
   */
  fileBytes(path: string, label?: string): Buffer | null {
    const name = this.labelOf(label);
    const reader = this.store.reader(name);
    if (name === this.workingLabel) {
      const disk = this.indexedBytes(path);
      if (disk) return disk;
    }
    // A label whose copy is not kept (an artifact imported without contents) still shows the
    // file when the working tree holds that very version (same blob id: the same bytes).
    return reader.fileContent(path) ?? (name === this.workingLabel ? null : this.indexedBytes(path, name));
  }

  /** A working-tree file's bytes when they are still the version `label` indexed, else null (changed, gone, unreadable). */
  private indexedBytes(path: string, label = this.workingLabel): Buffer | null {
    const hash = this.store.reader(label).contentHashOf(path);
    if (!hash) return null;
    // The safe reader: the file may have become a FIFO or a link since it was indexed.
    const read = safeReadFile(join(this.repoRoot, path), { root: this.repoRoot, maxBytes: this.config.indexing.max_file_bytes });
    return read.ok && hash === gitBlobId(read.bytes) ? read.bytes : null;
  }

  /** `indexedBytes` as text, kept until the index changes (navigation reads the same gap files on every answer). */
  private indexedTexts(): (path: string) => string | null {
    const stamp = this.store.changeStamp();
    if (this.textCache?.stamp !== stamp || this.textCache.chars > TEXT_CACHE_MAX_CHARS) this.textCache = { stamp, texts: new Map(), chars: 0 };
    const cache = this.textCache;
    return (path) => {
      let text = cache.texts.get(path);
      if (text === undefined) {
        text = decodedText(this.indexedBytes(path));
        cache.texts.set(path, text);
        cache.chars += text?.length ?? 0;
      }
      return text;
    };
  }

  status(options: { label?: string } = {}): StatusReport {
    const label = this.labelOf(options.label);
    const reader = this.store.reader(label);
    const counts = this.counts(label);
    const statuses = reader.fileStatuses();
    const docFiles: Record<string, number> = {};
    for (const f of statuses) if (f.language !== null && isDocLanguage(f.language)) docFiles[f.language] = (docFiles[f.language] ?? 0) + 1;
    const problems = statuses
      .filter((f) => f.parseStatus !== 'ok')
      .map((f) => ({ path: f.path, status: f.parseStatus, reason: f.reason }));
    const origin = this.store.artifactOrigin();
    return {
      repo: this.repoRoot,
      db: this.dbPath,
      label,
      schemaVersion: Number(reader.metadata('schema_version') ?? 0),
      files: counts.files,
      symbols: counts.symbols,
      edges: counts.edges,
      lines: counts.lines,
      parseStatus: counts.byStatus,
      docs: { files: docFiles, sections: counts.docSections, keys: counts.configKeys },
      problems,
      semantic: semanticSummary(this.store, label, new Set(this.languages.passes().flatMap((p) => p.languages))),
      vectorChannel: this.vectorSummary(),
      lastIndexedAt: reader.metadata('last_indexed_at'),
      notLoaded: this.store.loadNotes.list(),
      freshness: this.freshness(label, 'all'),
      labels: this.store.labels.list(),
      ...(origin ? { importedFrom: origin } : {}),
    };
  }

  private vectorSummary(): string {
    const reader = this.store.reader(this.workingLabel);
    const off = reader.metadata('vector_channel_off');
    if (off) return `off: ${off}`;
    const vectors = this.store.vectors;
    const model = vectors.model();
    if (!model && this.store.artifactOrigin()?.vectors === false) return 'off: imported without vectors (the next ca index embeds them)';
    if (!model) return 'off: the index has no embeddings yet (run ca index)';
    const partial = notEmbedded(reader.metadata(META_VECTORS_PENDING));
    return `on: ${model.modelId} (${model.dims} dims), ${vectors.count()} vectors${partial ? `; ${partial}` : ''}`;
  }

  /** Checks that the index and the grammars are usable. */
  async health(): Promise<HealthCheck[]> {
    const checks: HealthCheck[] = [];
    const qc = this.store.maintenance.quickCheck();
    checks.push({ name: 'index integrity', ok: qc === 'ok', detail: `PRAGMA quick_check: ${qc}` });
    const version = Number(this.store.reader(this.workingLabel).metadata('schema_version') ?? 0);
    checks.push({
      name: 'schema version',
      ok: version === LATEST_SCHEMA_VERSION,
      detail: `index ${version}, supported ${LATEST_SCHEMA_VERSION}`,
    });
    const v = this.store.maintenance.versions();
    checks.push({ name: 'sqlite', ok: true, detail: `SQLite ${v.sqlite}, sqlite-vec ${v.sqliteVec}` });
    try {
      for (const a of (await this.adapters()).adapters) {
        checks.push({ name: `grammar ${a.id}`, ok: true, detail: `${a.extensions.join(' ')} (extractor ${a.extractorVersion})` });
      }
    } catch (e) {
      checks.push({ name: 'grammars', ok: false, detail: (e as Error).message });
    }
    return checks;
  }

  /** Releases the index, the query-side model and the indexing workers, waiting for them to exit. */
  async dispose(): Promise<void> {
    await this.queryEmbedderInstance?.dispose();
    await this.releaseWorkers();
    this.closeStore();
  }

  /** Releases the index; the indexing workers are stopped without waiting for their exit. */
  close(): void {
    void this.releaseWorkers();
    this.closeStore();
  }

  /**
   * Closes the index; an engine that verified it (or found it verified) records the file's
   * stamp after the close, so the next `index()` skips `PRAGMA quick_check` unless the file
   * changed meanwhile (another writer, a crash before this close, damage from outside).
   */
  private closeStore(): void {
    const open = this.store.isOpen;
    this.store.close();
    if (!open || !this.intactChecked) return;
    try {
      writeFileSync(`${this.dbPath}${CHECKED_SUFFIX}`, fileStamp(this.dbPath));
    } catch {
      // A read-only directory: the next run checks the file again.
    }
  }

  /** Stops the warm semantic workers, the indexing embedder and the language adapters (the next `index()` starts new ones). */
  private releaseWorkers(): Promise<unknown> {
    const adapters = this.adapterSet?.then((a) => a.dispose(), () => undefined);
    const pending = [this.tsServiceInstance?.dispose(), this.csHostInstance?.dispose(), this.indexEmbedder.dispose(), adapters];
    this.tsServiceInstance = null;
    this.csHostInstance = null;
    this.adapterSet = null;
    return Promise.all(pending);
  }
}

function semanticSummary(store: Store, label: string, analysed: ReadonlySet<string>): string {
  // Languages without a semantic pass (documentation) have nothing to say here.
  const rows = store.semantic.summary(label).filter((r) => analysed.has(r.language));
  if (rows.length === 0) return 'no source files';
  return rows
    .map((r) => `${r.language}: ${r.files} file${r.files === 1 ? '' : 's'} ${r.state === 'ok' ? 'with exact edges' : r.state === 'failed' ? `failed (${r.reason ?? 'unknown'})` : `syntactic only${r.reason ? ` (${r.reason})` : ''}`}`)
    .join('; ');
}

/** `N symbols not embedded yet` from the recorded count, `?` when unknown; null when none. */
function notEmbedded(recorded: string | null): string | null {
  if (recorded === '?') return 'symbols written by an index run that stopped before embedding them are not embedded yet';
  const n = Number(recorded ?? '0');
  return n > 0 ? `${n} symbol${n === 1 ? '' : 's'} not embedded yet` : null;
}

/** Beside the index: the stamp of the file as the last engine that checked it left it. */
const CHECKED_SUFFIX = '-checked';
/** Beside the index: which TS projects share a program (a cache the semantic worker checks on every use). */
const PROGRAM_CACHE_SUFFIX = '-tsprograms.json';

/** Size, mtime and inode of a file (`-` when it cannot be read): moves whenever the file is written. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    const wal = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return `${st.size}:${st.mtimeMs}:${st.ino}:${wal}`;
  } catch {
    // The database file vanished or is unreadable: '-' matches no stamp of a real file, so the integrity check runs again.
    return '-';
  }
}

/** A file's bytes as text in their own encoding (decision 025), or null. */
function decodedText(bytes: Buffer | null): string | null {
  return bytes === null ? null : decodeFile(bytes).text;
}

function readStamp(path: string): string | null {
  const r = safeReadFile(path, { maxBytes: 256 });
  return r.ok ? r.bytes.toString('utf8') : null;
}

/** Moves a damaged index (and its WAL files) aside so a fresh one can be built. */
function moveAside(dbPath: string): void {
  const suffix = `.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  for (const ext of ['', '-wal', '-shm']) {
    if (existsSync(dbPath + ext)) renameSync(dbPath + ext, dbPath + suffix + ext);
  }
  rmSync(dbPath + CHECKED_SUFFIX, { force: true });
}

/**
 * Turns a user-given path (absolute, ./relative, or repo-relative) into a repo-relative POSIX
 * path; a path that leaves the repository (`../../etc/passwd`, `/etc/passwd`) is `invalid_path`.
 */
export function normalizeRepoPath(repoRoot: string, path: string): string {
  const abs = isAbsolute(path) ? path : resolve(repoRoot, path);
  const rel = relative(repoRoot, abs);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new CaError('invalid_path', `${path} is outside the repository ${repoRoot}`, { context: { path } });
  }
  return rel.split('\\').join('/');
}

/** Neighbours `similar` asks for beyond the limit: room for the symbol's containers and members, which it drops. */
const SIMILAR_MARGIN = 32;
/** The most neighbours `similar` widens to (the vector store's own KNN cap). */
const SIMILAR_MAX_K = 4096;

