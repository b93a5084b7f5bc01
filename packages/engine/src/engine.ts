import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  CaError,
  CONFIG_DIR,
  extractorOf,
  gitBlobId,
  loadConfig,
  safeReadFile,
  type Config,
  type Language,
  type NodeKind,
  type ParseStatus,
} from '@ca/schema';
import { cachedStatement, changeStamp, LATEST_SCHEMA_VERSION, loadNotes, Store, VectorStore, type FileWrite, type IndexReader, type KnnHit, type LoadNote, type NodeRecord } from '@ca/store';
import { search as runSearch, toSearchResult, type SearchOptions, type SearchResponse, type VectorChannel } from '@ca/retrieve';
import { createTsSemanticService, skeletonOf, type SyntacticSkeleton, type TsSemanticService } from '@ca/parse-ts';
import { RoslynHost } from '@ca/parse-cs';
import { createAdapters, type AdapterSet } from './adapters.js';
import { discoverFiles, type DiscoveredFile, type SkippedFile } from './discovery.js';
import type { ProcessedFile } from './fileProcessing.js';
import { toSymbolView } from './symbolView.js';
export { searchJson, toSymbolView } from './symbolView.js';
export type { SymbolView } from './symbolView.js';
import { navigate, type Navigation, type NavigationOptions, type NavigationResult } from './navigation.js';
import { ParsePool } from './parsePool.js';
import { embedPending, IndexEmbedder, META_VECTORS_PENDING, QueryEmbedder, type EmbedReport } from './embedding.js';
import { CS_SEMANTIC_EXTRACTOR, runCsSemanticPass, type CsSemanticReport } from './csSemantic.js';
import { runTsSemanticPass, TS_SEMANTIC_EXTRACTOR, type TsSemanticReport } from './tsSemantic.js';
import { applyContextChanges, type ContextChange } from './semanticContext.js';
import { tsLoadNoteRecorder } from './loadNotes.js';
import { checkIndexPath, requireIndexed } from './indexPresence.js';

export const WORKING_LABEL = 'working';

export interface EngineOptions {
  /** Index file; default `<repo>/.codeagent/index.db`. */
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
}

export type IndexPhase = 'discover' | 'parse' | 'write' | 'resolve' | 'semantic' | 'embed';

/**
 * Symbols embedded per slice when vectors are filled in behind a long-lived engine's runs
 * (`index({ embedLimit })`, then `fillEmbeddings({ maxNodes })`): ~1.5 s of the int8 model on
 * 2 cores (docs/benchmarks.md), the most a change or a call waits for a slice under way.
 */
export const EMBED_SLICE = 128;

/** A slice size as given (default `EMBED_SLICE`), made a whole number of at least 1 so every slice makes progress. */
export function embedSliceOf(n: number | undefined): number {
  const v = n ?? EMBED_SLICE;
  return Number.isNaN(v) ? EMBED_SLICE : Math.max(1, Math.floor(Math.min(v, Number.MAX_SAFE_INTEGER)));
}

export interface IndexOptions {
  readonly onProgress?: (p: IndexProgress) => void;
  /** Re-run semantic passes that failed now, instead of waiting for a change of their files or configs. */
  readonly retryFailedSemantic?: boolean;
  /**
   * Embed at most about this many nodes in this run (0: none); the rest stay pending, reported as
   * `embeddings.pending`, for `fillEmbeddings()` or the next run. Default: all.
   */
  readonly embedLimit?: number;
}
export interface IndexProgress {
  readonly phase: IndexPhase;
  readonly done: number;
  readonly total: number;
}

/** The `ca index --json` shape (field names are a public contract). */
export interface IndexReport {
  files: number;
  symbols: number;
  edges: number;
  skipped: number;
  parseStatus: Record<ParseStatus, number>;
  ms: number;
  /** Files (re)parsed in this run. */
  changed: number;
  /** Paths that left the index in this run. */
  removed: number;
  lines: number;
  /** Semantic passes run in this run (absent when nothing needed one). */
  semantic?: { ts?: TsSemanticReport; cs?: CsSemanticReport };
  /** Semantic-context files (tsconfig, package.json, csproj …) changed since the last index, with the files re-analysed for each. */
  contextChanges?: readonly ContextChange[];
  /** The embedding step (vectors are filled behind the structural index). */
  embeddings?: EmbedReport;
}

export interface StatusReport {
  readonly repo: string;
  readonly db: string;
  readonly schemaVersion: number;
  readonly files: number;
  readonly symbols: number;
  readonly edges: number;
  readonly lines: number;
  readonly parseStatus: Record<ParseStatus, number>;
  /** Every file whose status is not `ok`, with the recorded reason. */
  readonly problems: readonly { path: string; status: ParseStatus; reason: string | null }[];
  readonly semantic: string;
  readonly vectorChannel: string;
  readonly lastIndexedAt: string | null;
  /** What indexing did not load or run: stripped tsconfig plugins, MSBuild targets and analyzers, files refused by a semantic pass. */
  readonly notLoaded: readonly LoadNote[];
}

export interface HealthCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const GITIGNORE_TEXT = '# Code Agent index (rebuildable). config.json is meant to be committed.\n*.db\n*.db-*\n';

/** Syntactic nodes handed to the TS semantic worker per run, at most (see `skeletonOf`). */
const SKELETON_NODE_CAP = 1_000_000;
/** File texts navigation keeps for its gap checks until the index changes (characters; past it the cache starts over). */
const TEXT_CACHE_MAX_CHARS = 32 * 1024 * 1024;

/**
 * The composition root: one repository, its configuration and its index. Open with
 * `Engine.open(repo)`, then `index()`, `search()`, `symbol()`, `outline()`, `source()`.
 */
export class Engine {
  private constructor(
    readonly repoRoot: string,
    readonly dbPath: string,
    readonly config: Config,
    private currentStore: Store,
  ) {}

  /**
   * The TS semantic service, kept across `index()` calls: its worker stays warm (parsed and
   * bound files) until its idle shutdown, so an edit re-analyses in a fraction of a cold pass.
   */
  private tsService: TsSemanticService | null = null;
  /** The C# roslyn-host, kept across `index()` calls (warm JIT; it stops itself when idle). */
  private csHost: RoslynHost | null = null;
  /** Set once the first `index()` verified the file (PRAGMA quick_check). */
  private intactChecked = false;
  /** Set once an `index()` of this engine resolved the pending import edges. */
  private importsResolved = false;
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
  private countsCache: { stamp: string; counts: ReturnType<IndexReader['counts']> } | null = null;
  private textCache: { stamp: string; texts: Map<string, string | null>; chars: number } | null = null;

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
    } catch {
      throw new CaError('invalid_path', `repository path does not exist: ${repo}`, { context: { path: repo } });
    }
    if (!st.isDirectory()) {
      throw new CaError('invalid_path', `repository path is not a directory: ${repo}`, { context: { path: repo } });
    }
    const config = loadConfig(root, { env: options.env ?? process.env, ...(options.configOverrides ? { overrides: options.configOverrides } : {}) });
    const dbPath = options.dbPath ? (isAbsolute(options.dbPath) ? options.dbPath : resolve(options.dbPath)) : join(root, CONFIG_DIR, 'index.db');
    checkIndexPath(dbPath, repo, { explicit: options.dbPath !== undefined, requireIndex: options.requireIndex === true });
    if (!options.dbPath) {
      const dir = join(root, CONFIG_DIR);
      mkdirSync(dir, { recursive: true });
      const gi = join(dir, '.gitignore');
      if (!existsSync(gi)) writeFileSync(gi, GITIGNORE_TEXT);
    }
    // PRAGMA quick_check costs seconds on a large index: it runs when indexing (and in
    // `ca health`), not on every query-side open.
    let store: Store;
    try {
      store = Store.open(dbPath, { skipQuickCheck: true });
    } catch (e) {
      if (!(options.rebuildIfCorrupt && e instanceof CaError && e.code === 'db_corrupt')) throw e;
      moveAside(dbPath);
      store = Store.open(dbPath, { skipQuickCheck: true });
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
    return new Engine(root, dbPath, config, store);
  }

  reader(label = WORKING_LABEL): IndexReader {
    return this.store.reader(label);
  }

  /**
   * Brings the index up to date with the working tree: discovers files, re-parses only those
   * whose size/mtime (then content hash) changed, writes in bounded transactions, removes
   * deleted paths, and resolves cross-file edges.
   */
  async index(options: IndexOptions = {}): Promise<IndexReport> {
    const started = performance.now();
    const stampBefore = changeStamp(this.store.db);
    const progress = options.onProgress ?? (() => {});
    // An explicit request (the MCP `index` tool) retries failed semantic passes at once.
    if (options.retryFailedSemantic === true) this.semanticRetried.clear();
    this.ensureIntact();
    // Project facts (.csproj symbols) are read again every run; the grammars are kept.
    const adapters = await this.adapters();
    adapters.refreshProjects();
    const cfg = this.config.indexing;
    let pool: ParsePool | null = null;
    try {
      progress({ phase: 'discover', done: 0, total: 0 });
      const found = discoverFiles(this.repoRoot, cfg, adapters.extensions);
      const reader = this.reader();
      const known = reader.labelEntries();
      const currentExtractor = (path: string) => {
        const a = adapters.forPath(path);
        return a ? extractorOf(a, path) : 'none';
      };
      const changed: DiscoveredFile[] = [];
      for (const f of found.files) {
        const e = known.get(f.path);
        if (e && e.mtimeMs === f.mtimeMs && e.size === f.size && e.extractor === currentExtractor(f.path)) continue;
        changed.push(f);
      }
      const skippedWrites: FileWrite[] = [];
      for (const s of found.skipped) {
        const hash = `skipped:${s.size}:${Math.floor(s.mtimeMs)}:${s.reason}`;
        if (known.get(s.path)?.contentHash === hash) continue;
        skippedWrites.push(skippedWrite(s, hash));
      }
      const present = new Set([...found.files.map((f) => f.path), ...found.skipped.map((s) => s.path)]);
      const removed = [...known.keys()].filter((p) => !present.has(p));

      const byPath = new Map(changed.map((f) => [f.path, f]));
      let batch: FileWrite[] = [...skippedWrites];
      let written = 0;
      const flush = () => {
        if (batch.length === 0) return;
        this.store.writer.writeBatch(WORKING_LABEL, batch);
        written += batch.length;
        progress({ phase: 'write', done: written, total: changed.length + skippedWrites.length });
        batch = [];
      };
      pool = ParsePool.create(changed.length >= 8 ? cfg.workers : 0, adapters, this.repoRoot);
      let parsed = 0;
      // The TS semantic pass names symbols by these nodes: handing them over spares its worker
      // a second tree-sitter parse of every file (it checks the content hash before using one).
      // (Capped: past a million nodes the IPC message would cost more than it saves.)
      const skeletons: SyntacticSkeleton[] = [];
      let skeletonNodes = 0;
      const keepSkeletons = this.config.semantic.enabled;
      await pool.run(
        changed.map((f) => ({ absPath: f.absPath, path: f.path, deadlineMs: cfg.parse_timeout_ms, maxBytes: cfg.max_file_bytes })),
        (result: ProcessedFile) => {
          const f = byPath.get(result.path)!;
          parsed++;
          if (keepSkeletons && result.index !== null && (result.language === 'ts' || result.language === 'js') && skeletonNodes < SKELETON_NODE_CAP) {
            skeletons.push(skeletonOf(result.path, result.contentHash, result.index));
            skeletonNodes += result.index.nodes.length;
          }
          progress({ phase: 'parse', done: parsed, total: changed.length });
          const old = known.get(f.path);
          if (old && old.contentHash === result.contentHash && old.extractor === result.extractor) {
            // Touched but not changed: remember the new mtime only.
            this.store.writer.touch(WORKING_LABEL, f.path, f.mtimeMs);
            return;
          }
          batch.push({ ...result, project: f.project, mtimeMs: f.mtimeMs });
          if (batch.length >= cfg.batch_files) flush();
        },
      );
      flush();
      // New symbols have no vectors until the embedding step below: an interruption before it must not go unsaid.
      if (written > 0) this.store.writer.setMetadata(META_VECTORS_PENDING, '?');
      // Creates and modifications land before deletes, so moved files keep node identity.
      if (removed.length > 0) this.store.writer.removePaths(WORKING_LABEL, removed);
      progress({ phase: 'resolve', done: 0, total: 1 });
      // Nothing written: the pending edges left are the unresolvable ones (package imports).
      if (written > 0 || removed.length > 0 || !this.importsResolved) {
        this.store.resolveImports(WORKING_LABEL);
        this.importsResolved = true;
      }
      progress({ phase: 'resolve', done: 1, total: 1 });
      const semantic: NonNullable<IndexReport['semantic']> = {};
      let contextChanges: ContextChange[] = [];
      if (this.config.semantic.enabled) {
        // A newer semantic extractor (an upgraded ca) re-analyses every file of its language:
        // edges of the old one stay served, marked pending, until the new pass replaces them.
        this.invalidateSemanticExtractor(['ts', 'js'], TS_SEMANTIC_EXTRACTOR);
        this.invalidateSemanticExtractor(['cs'], CS_SEMANTIC_EXTRACTOR);
        // A changed tsconfig, package.json, csproj … re-analyses the files it shapes.
        contextChanges = applyContextChanges(this.store, WORKING_LABEL, this.repoRoot, found.contextFiles);
        // Files lacking exact edges (new, changed, never analysed, or failed and not yet retried
        // by this engine), with their C# projects.
        const staleOf = (languages: string) =>
          this.workingFiles(`f.language IN (${languages}) AND f.semantic_state <> 'ok' AND f.parse_status IN ('ok','partial')`).filter(
            (r) => r.semantic_state !== 'failed' || !this.semanticRetried.has(r.id),
          );
        const stale = staleOf(`'cs'`);
        const staleTs = staleOf(`'ts','js'`);
        if (staleTs.length > 0) {
          progress({ phase: 'semantic', done: 0, total: 1 });
          semantic.ts = await runTsSemanticPass(this.store, this.repoRoot, WORKING_LABEL, {
            // Everything stale: a first index, or a scope whose context changed.
            ...(staleTs.length < tsFileCount(this.store) ? { files: staleTs.map((r) => r.path) } : {}),
            maxOldSpaceMb: this.config.semantic.max_old_space_mb,
            deadlineMs: this.config.semantic.request_timeout_ms,
            syntactic: skeletons,
            maxFileBytes: cfg.max_file_bytes,
            service: (this.tsService ??= createTsSemanticService({ maxOldSpaceSizeMb: this.config.semantic.max_old_space_mb, onEvent: tsLoadNoteRecorder(this.repoRoot, () => this.store) })),
            onProgress: (done, total) => progress({ phase: 'semantic', done, total }),
          });
        }
        if (stale.length > 0) {
          semantic.cs = await runCsSemanticPass(this.store, this.repoRoot, WORKING_LABEL, {
            safeMode: cfg.safe_mode,
            projects: [...new Set(stale.map((r) => r.project))],
            files: stale.map((r) => r.path),
            host: (this.csHost ??= new RoslynHost()),
            maxFileBytes: cfg.max_file_bytes,
            onProgress: (done, total) => progress({ phase: 'semantic', done, total }),
          });
        }
        for (const { id } of this.workingFiles(`f.semantic_state = 'failed'`)) this.semanticRetried.add(id);
      }
      const embeddings = await this.embed((done, total) => progress({ phase: 'embed', done, total }), options.embedLimit);
      // Only a run that changed the index moves it: a no-change refresh writes nothing, so the
      // caches keyed by the change stamp (answers, BM25 term statistics, label filters) survive it.
      if (changeStamp(this.store.db) !== stampBefore || reader.metadata('last_indexed_at') === null) {
        this.store.writer.setMetadata('last_indexed_at', new Date().toISOString());
      }
      const counts = this.counts();
      return {
        files: counts.files,
        symbols: counts.symbols,
        edges: counts.edges,
        skipped: counts.byStatus.skipped,
        parseStatus: counts.byStatus,
        ms: Math.round(performance.now() - started),
        changed: changed.length,
        removed: removed.length,
        lines: counts.lines,
        ...(Object.keys(semantic).length > 0 ? { semantic } : {}),
        ...(contextChanges.length > 0 ? { contextChanges } : {}),
        embeddings,
      };
    } finally {
      await pool?.close();
    }
  }

  /**
   * The language adapters, loaded once per engine (the grammars cost ~10 ms, up to ~60 ms, to
   * load: a refresh that finds nothing to parse stays cheap); a failed load is tried again next time.
   */
  private adapters(): Promise<AdapterSet> {
    this.adapterSet ??= createAdapters(this.repoRoot).catch((e: unknown) => {
      this.adapterSet = null;
      throw e;
    });
    return this.adapterSet;
  }

  /** Files of the working label matching `where` (over `files f`). */
  private workingFiles(where: string): { id: number; path: string; project: string; semantic_state: string }[] {
    return this.store.db
      .prepare(
        `SELECT f.id, f.path, f.project, f.semantic_state FROM files f JOIN label_files lf ON lf.file_id = f.id
         JOIN labels l ON l.id = lf.label_id AND l.name = ? WHERE ${where}`,
      )
      .all(WORKING_LABEL) as { id: number; path: string; project: string; semantic_state: string }[];
  }

  /** The label's file/symbol/edge counts, read again only when the index changed (~6 ms on excalidraw). */
  private counts(): ReturnType<IndexReader['counts']> {
    const stamp = changeStamp(this.store.db);
    if (this.countsCache?.stamp !== stamp) this.countsCache = { stamp, counts: this.reader().counts() };
    return this.countsCache.counts;
  }

  /**
   * Embeds nodes that have no vector yet, at most about `maxNodes` of them (all by default):
   * vectors filled in behind an `index({ embedLimit })`, a slice at a time (the MCP server does
   * this between answers). Never run it while an `index()` of this engine runs.
   */
  async fillEmbeddings(options: { maxNodes?: number; onProgress?: (done: number, total: number) => void } = {}): Promise<EmbedReport> {
    return this.embed(options.onProgress, options.maxNodes);
  }

  private async embed(onProgress: ((done: number, total: number) => void) | undefined, maxNodes: number | undefined): Promise<EmbedReport> {
    try {
      return await embedPending(this.store, this.config.embedding, WORKING_LABEL, onProgress, this.indexEmbedder.acquire, maxNodes);
    } catch (e) {
      this.indexEmbedder.reset();
      throw e;
    }
  }

  /**
   * Runs PRAGMA quick_check once per engine (it reads the whole file: ~0.4 s on a 90 MB index,
   * too much for every edit of a long-lived engine); a corrupt index is moved aside
   * (`<db>.corrupt-<time>`) and rebuilt from source by the index run that called this.
   */
  private ensureIntact(): void {
    if (this.intactChecked) return;
    this.intactChecked = true;
    const result = this.currentStore.db.pragma('quick_check', { simple: true }) as string;
    if (result === 'ok') return;
    this.currentStore.close();
    moveAside(this.dbPath);
    this.currentStore = Store.open(this.dbPath, { skipQuickCheck: true });
    this.vectorStore = null;
    this.countsCache = null;
    this.currentStore.writer.recordEvent('index_rebuilt', null, `PRAGMA quick_check failed (${result}); rebuilding from source`);
  }

  /** Marks the semantic state of `languages`' files pending when their edges come from another extractor version. */
  private invalidateSemanticExtractor(languages: readonly string[], extractor: string): void {
    const key = `semantic_extractor:${languages.join(',')}`;
    let recorded = this.store.reader().metadata(key);
    if (recorded === extractor) return;
    // Indexes written before this key existed: their semantic edges name the extractor.
    recorded ??=
      (this.store.db
        .prepare(
          `SELECT e.extractor FROM edges e JOIN files f ON f.id = e.file_id
           WHERE f.language IN (${languages.map(() => '?').join(',')}) AND e.extractor LIKE 'semantic:%' AND e.extractor <> ? LIMIT 1`,
        )
        .pluck()
        .get(...languages, extractor) as string | undefined) ?? null;
    this.store.db.transaction(() => {
      if (recorded !== null) {
        const n = this.store.db
          .prepare(`UPDATE files SET semantic_state = 'pending', semantic_reason = ? WHERE language IN (${languages.map(() => '?').join(',')}) AND semantic_state = 'ok'`)
          .run(`extractor upgraded from ${recorded} to ${extractor}`, ...languages).changes;
        if (n > 0) this.store.writer.recordEvent('semantic_extractor_changed', null, `${recorded} → ${extractor}: ${n} files to re-analyse`);
      }
      this.store.writer.setMetadata(key, extractor);
    })();
  }

  /**
   * Hybrid search over the working tree's index: name, BM25 and (when a model and vectors are
   * available) vector channels. Answers are cached per parameters until the index changes.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = performance.now();
    const key = JSON.stringify([query, options, this.indexVersion()]);
    const cached = this.queryCache.get(key);
    if (cached) {
      this.queryCache.delete(key);
      this.queryCache.set(key, cached);
      return { ...cached, tookMs: Math.round((performance.now() - started) * 100) / 100 };
    }
    const reader = this.reader();
    const vectorChannel = (options.channels ?? ['vector']).includes('vector');
    const vectorOff = vectorChannel ? await this.vectorOffReason() : null;
    const wantsVector = vectorChannel && query.trim() !== '';
    let vector: VectorChannel | null = null;
    if (vectorOff === null && wantsVector) {
      const q = await this.queryEmbedder.embed(query.trim().slice(0, 2000));
      const store = this.vectors();
      vector = { search: (k, allow) => store.knn(q, k, allow ? { allow } : {}) };
    }
    const response = runSearch({ reader, vector, ...(vectorOff ? { vectorOffReason: vectorOff } : {}) }, query, {
      rrfK: this.config.search.rrf_k,
      channelK: this.config.search.channel_k,
      budget: this.config.search.budget,
      ...options,
      limit: options.limit ?? this.config.search.limit,
    });
    // Vectors still being filled in (or an index run that stopped before they were): said, never silent.
    const partial = vector !== null ? notEmbedded(reader.metadata(META_VECTORS_PENDING)) : null;
    const notices = partial ? [...response.notices, `vector channel partial: ${partial}; matches found only by meaning may be missing`] : response.notices;
    const result = { ...response, notices, tookMs: Math.round((performance.now() - started) * 100) / 100 };
    this.queryCache.set(key, result);
    if (this.queryCache.size > 200) this.queryCache.delete(this.queryCache.keys().next().value!);
    return result;
  }

  /** Symbols whose code is most like SYMBOL's (vector channel), excluding itself. */
  async similar(name: string, options: { limit?: number } = {}): Promise<SearchResponse> {
    const started = performance.now();
    const node = this.resolveSymbol(name);
    const limit = options.limit ?? this.config.search.limit;
    // The symbol, what contains it (its class, its file) and what it contains resemble it
    // trivially: "code like this" means other code.
    const reader = this.reader();
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
      const r = await this.search(`${node.name} ${node.signature}`, { limit: margin, channels: ['bm25'] });
      const notice = `vector channel off: ${off}; results share words with the symbol's name and signature (BM25)`;
      return { ...r, results: r.results.filter((x) => !nested.has(Number(x.id))).slice(0, limit), notices: [notice, ...r.notices] };
    }
    const store = this.vectors();
    const own = this.store.db
      .prepare(`SELECT e.vector FROM node_embeddings ne JOIN embeddings e ON e.id = ne.embedding_id WHERE ne.node_id = ? AND ne.window = 0`)
      .get(node.id) as { vector: Buffer } | undefined;
    if (!own) throw new CaError('not_found', `${node.qualifiedName} has no embedding yet (run ca index)`);
    const q = new Float32Array(own.vector.buffer.slice(own.vector.byteOffset, own.vector.byteOffset + own.vector.byteLength));
    // A class with many members fills the first neighbours with them: widen until enough remain.
    let hits: KnnHit[] = [];
    for (let k = margin; ; k = Math.min(SIMILAR_MAX_K, k * 4)) {
      const raw = store.knn(q, k);
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
    const model = this.vectors().model();
    if (!model) return 'the index has no embeddings yet (run ca index)';
    const current = await this.queryEmbedder.modelId();
    if (current !== model.modelId) return `the index holds vectors of ${model.modelId}, the configured model is ${current} (run ca index to re-embed)`;
    return null;
  }

  private vectorStore: VectorStore | null = null;
  private vectors(): VectorStore {
    this.vectorStore ??= new VectorStore(this.store.db);
    return this.vectorStore;
  }

  private readonly queryCache = new Map<string, SearchResponse>();
  private queryEmbedderInstance: QueryEmbedder | null = null;
  private get queryEmbedder(): QueryEmbedder {
    this.queryEmbedderInstance ??= new QueryEmbedder(this.config.embedding);
    return this.queryEmbedderInstance;
  }

  /** Changes whenever any connection commits to the index (invalidates the query cache). */
  private indexVersion(): string {
    return changeStamp(this.store.db);
  }

  /**
   * Resolves a SYMBOL argument: a node id, an exact qualified name, or a (suffix of a)
   * qualified name / bare name. Returns every candidate; callers decide about ambiguity.
   */
  findSymbols(name: string): NodeRecord[] {
    const reader = this.reader();
    const trimmed = name.trim();
    if (trimmed === '') throw new CaError('usage', 'a symbol name is required');
    if (/^\d+$/.test(trimmed)) {
      const n = reader.nodeById(Number(trimmed));
      if (n) return [n];
    }
    const exact = reader.byQualifiedName(trimmed).filter((n) => n.kind !== 'file');
    if (exact.length > 0) return exact;
    return reader.bySuffix(trimmed).filter((n) => n.kind !== 'file' && n.kind !== 'module');
  }

  /** Exactly one symbol, or `not_found` / `ambiguous_symbol` listing the candidates. */
  resolveSymbol(name: string): NodeRecord {
    const found = this.findSymbols(name);
    if (found.length === 0) throw new CaError('not_found', `no symbol matches "${name}"`, { context: { symbol: name } });
    if (found.length > 1) {
      // Overloads, accessor pairs and generic arities share a qualified name: their signatures tell them apart.
      const shared = new Set(found.filter((n, i) => found.findIndex((m) => m.qualifiedName === n.qualifiedName) !== i).map((n) => n.qualifiedName));
      const list = found
        .slice(0, 20)
        .map((n) => {
          const sig = shared.has(n.qualifiedName) ? oneLineSignature(n.signature) : '';
          return `${n.qualifiedName} (${n.kind}) ${n.path}:${n.startLine}${sig ? ` \`${sig}\`` : ''} [id ${n.id}]`;
        })
        .join('; ');
      throw new CaError('ambiguous_symbol', `"${name}" matches ${found.length} symbols: ${list}`, {
        context: { symbol: name, candidates: found.map((n) => n.id) },
      });
    }
    return found[0]!;
  }

  /**
   * Graph navigation: callers, callees, refs, impls, deps, dependents or impact of SYMBOL (a
   * qualified name, a bare name, an id — or, for deps/dependents, a file path). A name that
   * matches several symbols is `ambiguous_symbol` unless `all` is set (then all are seeds).
   */
  navigate(navigation: Navigation, target: string, options: NavigationOptions & { all?: boolean } = {}): NavigationResult & { symbol: { code: string } } {
    const reader = this.reader();
    let seeds: NodeRecord[] = [];
    if (navigation === 'deps' || navigation === 'dependents') {
      const rel = normalizeRepoPath(this.repoRoot, target);
      const fileNodes = reader.outline(rel);
      if (fileNodes.length > 0) seeds = [fileNodes[0]!, ...fileNodes.slice(1)];
    }
    if (seeds.length === 0) seeds = options.all ? this.findSymbols(target) : [this.resolveSymbol(target)];
    if (seeds.length === 0) throw new CaError('not_found', `no symbol matches "${target}"`, { context: { symbol: target } });
    const result = navigate(this.store.db, reader, WORKING_LABEL, navigation, seeds, { indexedText: this.indexedTexts(), ...options }, this.config.graph);
    return { ...result, symbol: { ...result.symbol, code: seeds[0]!.chunkText } };
  }

  /** The symbols of a file, in source order (path relative to the repository). */
  outline(path: string): NodeRecord[] {
    const rel = normalizeRepoPath(this.repoRoot, path);
    const nodes = this.reader().outline(rel);
    if (nodes.length === 0) {
      const status = this.reader().fileStatuses().find((f) => f.path === rel);
      if (status) return [];
      throw new CaError('not_found', `${rel} is not in the index`, { context: { path: rel } });
    }
    return nodes;
  }

  /**
   * The full source of a symbol read from disk. When the file changed since it was indexed,
   * `stale` is true and `code` is the indexed (collapsed) chunk text instead.
   */
  source(name: string): { node: NodeRecord; code: string; stale: boolean } {
    const node = this.resolveSymbol(name);
    const bytes = this.indexedBytes(node.path);
    if (bytes) return { node, code: bytes.subarray(node.startByte, node.endByte).toString('utf8'), stale: false };
    return { node, code: node.chunkText, stale: true };
  }

  /** A repository file's bytes when they are still the version the working label indexed, else null (changed, gone, unreadable). */
  private indexedBytes(path: string): Buffer | null {
    const indexed = cachedStatement(
      this.store.db,
      `SELECT f.content_hash FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
       WHERE f.path = ?`,
    ).get(WORKING_LABEL, path) as { content_hash: string } | undefined;
    if (!indexed) return null;
    // The safe reader: the file may have become a FIFO or a link since it was indexed.
    const read = safeReadFile(join(this.repoRoot, path), { root: this.repoRoot, maxBytes: this.config.indexing.max_file_bytes });
    return read.ok && indexed.content_hash === gitBlobId(read.bytes) ? read.bytes : null;
  }

  /** `indexedBytes` as text, kept until the index changes (navigation reads the same gap files on every answer). */
  private indexedTexts(): (path: string) => string | null {
    const stamp = changeStamp(this.store.db);
    if (this.textCache?.stamp !== stamp || this.textCache.chars > TEXT_CACHE_MAX_CHARS) this.textCache = { stamp, texts: new Map(), chars: 0 };
    const cache = this.textCache;
    return (path) => {
      let text = cache.texts.get(path);
      if (text === undefined) {
        text = this.indexedBytes(path)?.toString('utf8') ?? null;
        cache.texts.set(path, text);
        cache.chars += text?.length ?? 0;
      }
      return text;
    };
  }

  status(): StatusReport {
    const reader = this.reader();
    const counts = this.counts();
    const problems = reader
      .fileStatuses()
      .filter((f) => f.parseStatus !== 'ok')
      .map((f) => ({ path: f.path, status: f.parseStatus, reason: f.reason }));
    return {
      repo: this.repoRoot,
      db: this.dbPath,
      schemaVersion: Number(reader.metadata('schema_version') ?? 0),
      files: counts.files,
      symbols: counts.symbols,
      edges: counts.edges,
      lines: counts.lines,
      parseStatus: counts.byStatus,
      problems,
      semantic: semanticSummary(this.store),
      vectorChannel: vectorSummary(this.store),
      lastIndexedAt: reader.metadata('last_indexed_at'),
      notLoaded: loadNotes(this.store),
    };
  }

  /** Checks that the index and the grammars are usable. */
  async health(): Promise<HealthCheck[]> {
    const checks: HealthCheck[] = [];
    const qc = this.store.db.pragma('quick_check', { simple: true }) as string;
    checks.push({ name: 'index integrity', ok: qc === 'ok', detail: `PRAGMA quick_check: ${qc}` });
    const version = Number(this.reader().metadata('schema_version') ?? 0);
    checks.push({
      name: 'schema version',
      ok: version === LATEST_SCHEMA_VERSION,
      detail: `index ${version}, supported ${LATEST_SCHEMA_VERSION}`,
    });
    const vec = this.store.db.prepare(`SELECT vec_version() AS v, sqlite_version() AS s`).get() as { v: string; s: string };
    checks.push({ name: 'sqlite', ok: true, detail: `SQLite ${vec.s}, sqlite-vec ${vec.v}` });
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
    this.store.close();
  }

  /** Releases the index; the indexing workers are stopped without waiting for their exit. */
  close(): void {
    void this.releaseWorkers();
    this.store.close();
  }

  /** Stops the warm semantic workers, the indexing embedder and the language adapters (the next `index()` starts new ones). */
  private releaseWorkers(): Promise<unknown> {
    const adapters = this.adapterSet?.then((a) => a.dispose(), () => undefined);
    const pending = [this.tsService?.dispose(), this.csHost?.dispose(), this.indexEmbedder.dispose(), adapters];
    this.tsService = null;
    this.csHost = null;
    this.adapterSet = null;
    return Promise.all(pending);
  }
}

function semanticSummary(store: Store): string {
  const rows = store.db
    .prepare(
      `SELECT f.language, f.semantic_state AS state, COUNT(*) AS n, MIN(f.semantic_reason) AS reason FROM files f
       JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
       WHERE f.language IS NOT NULL AND f.parse_status IN ('ok','partial') GROUP BY f.language, f.semantic_state ORDER BY f.language`,
    )
    .all(WORKING_LABEL) as { language: string; state: string; n: number; reason: string | null }[];
  if (rows.length === 0) return 'no source files';
  return rows
    .map((r) => `${r.language}: ${r.n} file${r.n === 1 ? '' : 's'} ${r.state === 'ok' ? 'with exact edges' : r.state === 'failed' ? `failed (${r.reason ?? 'unknown'})` : `syntactic only${r.reason ? ` (${r.reason})` : ''}`}`)
    .join('; ');
}

function vectorSummary(store: Store): string {
  const off = (store.db.prepare(`SELECT value FROM _metadata WHERE key = 'vector_channel_off'`).get() as { value: string } | undefined)?.value;
  if (off) return `off: ${off}`;
  const model = new VectorStore(store.db).model();
  if (!model) return 'off: the index has no embeddings yet (run ca index)';
  const partial = notEmbedded(store.reader().metadata(META_VECTORS_PENDING));
  return `on: ${model.modelId} (${model.dims} dims), ${new VectorStore(store.db).count()} vectors${partial ? `; ${partial}` : ''}`;
}

/** `N symbols not embedded yet` from the recorded count, `?` when unknown; null when none. */
function notEmbedded(recorded: string | null): string | null {
  if (recorded === '?') return 'symbols written by an index run that stopped before embedding them are not embedded yet';
  const n = Number(recorded ?? '0');
  return n > 0 ? `${n} symbol${n === 1 ? '' : 's'} not embedded yet` : null;
}

/** Number of TS/JS files in the working label. */
function tsFileCount(store: Store): number {
  return (store.db
    .prepare(
      `SELECT COUNT(*) AS c FROM files f JOIN label_files lf ON lf.file_id = f.id JOIN labels l ON l.id = lf.label_id AND l.name = ?
       WHERE f.language IN ('ts','js')`,
    )
    .get(WORKING_LABEL) as { c: number }).c;
}

/** Moves a damaged index (and its WAL files) aside so a fresh one can be built. */
function moveAside(dbPath: string): void {
  const suffix = `.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  for (const ext of ['', '-wal', '-shm']) {
    if (existsSync(dbPath + ext)) renameSync(dbPath + ext, dbPath + suffix + ext);
  }
}

function skippedWrite(s: SkippedFile, hash: string): FileWrite {
  return {
    path: s.path,
    contentHash: hash,
    language: null,
    size: s.size,
    lineCount: 0,
    parseStatus: s.status,
    statusReason: s.reason,
    generated: false,
    project: s.project,
    mtimeMs: Math.floor(s.mtimeMs),
    extractor: 'none',
    index: null,
  };
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

/** A signature on one line, at most 120 characters (ambiguity lists). */
function oneLineSignature(signature: string): string {
  const flat = signature.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
