import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CaError, extractorOf, gitBlobId, toCaError, type Config, type ExtractedNode, type NodeKind, type ParseStatus } from '@ca/schema';
import { chunkHashOf, type CarryOptions, type FileWrite, type NodePlanner, type Store, type StoredSkeleton } from '@ca/store';
import {
  CONTEXT_METADATA_KEY,
  contextScopes,
  detectChanges,
  diffContext,
  discoverPaths,
  discoverTree,
  movedKey,
  plan as planChanges,
  planNodes,
  scanContext,
  skippedHash,
  type ContextChange,
  type ContextFacts,
  type DiscoveryResult,
  type FileSource,
  type Plan,
  type SkippedFile,
  type SourceVersion,
  semanticRegion,
  unrefinedKey,
} from '@ca/invalidation';
import { skeletonOf, type AnalysisRegion, type SyntacticSkeleton, type TsSemanticService } from '@ca/parse-ts';
import type { RoslynHost } from '@ca/parse-cs';
import type { AdapterSet } from './adapters.js';
import { DeclarationChurn } from './languages/csChurn.js';
import type { CsSemanticReport } from './languages/csSemantic.js';
import type { LanguageRegistry } from './languages/registry.js';
import type { TsSemanticReport } from './languages/tsSemantic.js';
import { projectFiles, projectReaderOf, type ProjectFiles } from './projects.js';
import { recordTestProjects } from './testProjects.js';
import { embedPending, META_VECTORS_PENDING, prewarmEmbedder, type EmbedReport, type IndexEmbedder } from './embedding.js';
import { unreadableFile, type ProcessedFile } from './fileProcessing.js';
import { ParsePool } from './parsePool.js';
import { renamePairs } from './renames.js';
import { linkHttpCalls, type HttpLinkReport } from './httpLinks.js';
import { linkRazorUses } from './razorLinks.js';
import { linkConfigReads, type ConfigLinkReport } from './configLinks.js';

export type IndexPhase = 'discover' | 'parse' | 'write' | 'resolve' | 'semantic' | 'embed';

export interface IndexProgress {
  readonly phase: IndexPhase;
  readonly done: number;
  readonly total: number;
}

/** What a run did with file versions (`ca index --json` → `blobs`). */
export interface BlobReport {
  /** Versions the index already held (another label, a worktree, unchanged content): nothing parsed. */
  readonly reused: number;
  /** Versions read and parsed in this run. */
  readonly parsed: number;
  /** Moves that kept their nodes' identity. */
  readonly moved: number;
  /** Moves with an edit (git's renames, similar content): parsed, their nodes kept their ids. */
  readonly renamed: number;
  /** Symbols whose vectors were computed in this run (the rest came from the cache or wait for later). */
  readonly embedded: number;
}

/** Each semantic pass's report, by its `reportKey` (`ts`, `cs` for the built-in languages). */
export interface SemanticReports {
  readonly [reportKey: string]: unknown;
  readonly ts?: TsSemanticReport;
  readonly cs?: CsSemanticReport;
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
  /** The label this run indexed. */
  label: string;
  /** The commit it indexed (a commit label), or HEAD when the working tree was indexed (null without git). */
  commit: string | null;
  blobs: BlobReport;
  /** Semantic passes run in this run (absent when nothing needed one). */
  semantic?: SemanticReports;
  /** What the HTTP linker did (decision 038), when the run changed a label with client calls. */
  httpLinks?: HttpLinkReport;
  /** What the configuration linker did (decision 048), when the run changed a label with configuration reads. */
  configLinks?: ConfigLinkReport;
  /** Semantic-context files (tsconfig, package.json, csproj …) changed since the last index, with the files re-analysed for each. */
  contextChanges?: readonly ContextChange[];
  /** The embedding step (vectors are filled behind the structural index). */
  embeddings?: EmbedReport;
  /** What the run did differently from what was asked, in words (e.g. a full walk where git could not name a HEAD move's changes). */
  notices?: readonly string[];
}

/** Files a run parses on parse threads from (fewer: in this thread). */
const PARSE_THREADS_MIN_FILES = 8;
/**
 * The same while the TS worker prepares its program: the threads then compete with it for the
 * cores, and a small run is faster in this thread (docs/benchmarks.md, "Figures behind choices
 * in the code").
 */
const PARSE_THREADS_MIN_FILES_PREPARING = 32;

/** Syntactic nodes handed to the TS semantic worker per run, at most (see `skeletonOf`). */
const SKELETON_NODE_CAP = 1_000_000;

/** The engine's long-lived parts an index run uses. */
export interface IndexerContext {
  readonly store: Store;
  readonly config: Config;
  /** The languages indexed, with their semantic passes. */
  readonly languages: LanguageRegistry;
  adapters(): Promise<AdapterSet>;
  tsService(): TsSemanticService;
  csHost(): RoslynHost;
  readonly embedder: IndexEmbedder;
  /** Files whose failed semantic pass this engine already retried (they wait for a change of their own). */
  readonly semanticRetried: Set<number>;
}

export interface RunOptions {
  readonly onProgress?: (p: IndexProgress) => void;
  /** Re-run semantic passes that failed now, instead of waiting for a change of their files or configs. */
  readonly retryFailedSemantic?: boolean;
  /** Embed at most about this many nodes in this run (0: none); the rest stay pending. Default: all. */
  readonly embedLimit?: number;
}

/** One run: a source (the working tree, a commit) into a label. */
export interface RunRequest {
  /** The label written: the label itself, or the staging label of a crawl. */
  readonly label: string;
  readonly source: FileSource;
  /** Only these repo paths were looked at (watcher events, a HEAD move); null: the whole source. */
  readonly paths: readonly string[] | null;
  /** Renames git knows between the label's commit and the source's (old path → new path). */
  readonly renames?: ReadonlyMap<string, string>;
  /** `_metadata` key of the label's semantic-context facts. */
  readonly contextKey: string;
}

/** What a run did, before the engine adds counts and timing. */
export interface RunResult {
  readonly plan: Plan;
  /** Whether the index changed (files written, moved, removed, or semantic edges replaced). */
  readonly wrote: boolean;
  readonly blobs: BlobReport;
  readonly semantic?: SemanticReports;
  /** What the HTTP linker did, when the run changed the label and it has client calls. */
  readonly httpLinks?: HttpLinkReport;
  /** What the configuration linker did, when the run changed the label and it reads configuration. */
  readonly configLinks?: ConfigLinkReport;
  readonly contextChanges?: readonly ContextChange[];
  readonly embeddings: EmbedReport;
}

/**
 * Executes one index run: discover, detect changes, read what changed, plan, write (reuses and
 * moves, then parses, then deletes: a moved file keeps its nodes), resolve imports, re-run the
 * semantic scopes the plan and the context changes name, and embed. The decisions are
 * @ca/invalidation's; this executes them through the store.
 */
export async function runIndex(ctx: IndexerContext, request: RunRequest, options: RunOptions = {}): Promise<RunResult> {
  const { store, config } = ctx;
  const progress = options.onProgress ?? (() => {});
  const stampBefore = store.changeStamp();
  const run = await planRun(ctx, request, progress);
  const { plan: thePlan, label } = run;
  const preparing = config.semantic.enabled && run.worktree ? prepareSemantic(ctx, run) : false;
  const promoted = new Set<string>();
  const hadFiles = applyReusesAndMoves(ctx, run, promoted);
  let writes = await parseAndWrite(ctx, run, hadFiles, preparing, progress);
  for (const p of writes.promoted) promoted.add(p);
  const wroteFiles = writes.written + thePlan.reuse.length + thePlan.moves.length > 0;
  // New symbols have no vectors until the embedding step below: an interruption before it must not go unsaid.
  if (wroteFiles) store.writer.setMetadata(META_VECTORS_PENDING, '?');
  if (thePlan.remove.length > 0) {
    const stats = store.writer.removePaths(label, thePlan.remove.map((r) => r.path));
    for (const n of stats.droppedNames ?? []) writes.dirty.add(n);
    for (const d of stats.dropped ?? []) writes.churn?.noteDropped(d.path, d.name, d.kind);
    for (const p of stats.promoted ?? []) promoted.add(p);
  }
  writes = await refreshPromoted(ctx, run, hadFiles, writes, promoted, progress);
  writes.churn?.markUsers(store, label);
  // Test projects are read from the project files' text: every run, so an edited project file flips its nodes.
  recordTestProjects(store, label, ctx.languages, run.projects, run.source.tree, request.paths === null);

  progress({ phase: 'resolve', done: 0, total: 1 });
  if (wroteFiles || thePlan.remove.length > 0 || !store.reader(label).metadata(`imports_resolved:${label}`)) {
    store.resolveImports(label);
    store.writer.setMetadata(`imports_resolved:${label}`, '1');
  }
  progress({ phase: 'resolve', done: 1, total: 1 });

  const { semantic, contextChanges } = config.semantic.enabled
    ? await semanticStage(ctx, run, writes, wroteFiles, options, progress)
    : { semantic: undefined, contextChanges: [] as ContextChange[] };
  // Links depend on files of both languages: any change of the label recomputes them (decision 038).
  const httpLinks = store.changeStamp() !== stampBefore ? linkHttpCalls(store, label) : undefined;
  // Markup usages name components of other files: relinked whenever the label changed (decision 041).
  if (store.changeStamp() !== stampBefore) linkRazorUses(store, label);
  // Reads in C# files and keys in appsettings files: any change of the label relinks them (decision 048).
  const configLinks = store.changeStamp() !== stampBefore ? linkConfigReads(store, label) : undefined;
  const embeddings = await embed(ctx, label, (done, t) => progress({ phase: 'embed', done, total: t }), options.embedLimit);
  const wrote = store.changeStamp() !== stampBefore;
  if (thePlan.remove.length > 0 || thePlan.parse.length > 0) store.maintenance.sweep();
  // Rewritten FTS rows leave BM25's row count and lengths high (a contentless table's deletes): put back.
  if (wrote) store.maintenance.repairFtsTotals();
  return {
    plan: thePlan,
    wrote,
    blobs: {
      reused: thePlan.reuse.length,
      parsed: thePlan.parse.length,
      moved: thePlan.moves.length,
      renamed: thePlan.parse.filter((p) => p.movedFrom !== undefined).length,
      embedded: embeddings.nodes,
    },
    ...(semantic && Object.keys(semantic).length > 0 ? { semantic } : {}),
    ...(contextChanges.length > 0 ? { contextChanges } : {}),
    ...(httpLinks !== undefined && httpLinks.clientCalls > 0 ? { httpLinks } : {}),
    ...(configLinks !== undefined && configLinks.reads > 0 ? { configLinks } : {}),
    embeddings,
  };
}

/** A run's plan and what executing it needs. */
interface PlannedRun {
  readonly label: string;
  readonly request: RunRequest;
  readonly source: FileSource;
  readonly worktree: boolean;
  readonly listing: DiscoveryResult;
  readonly projects: ProjectFiles;
  readonly adapters: AdapterSet;
  readonly state: ReturnType<Store['planState']>;
  readonly plan: Plan;
  /** Working files read while hashing, kept for parsing. */
  readonly bytes: Map<string, Buffer>;
  readonly extractorFor: (path: string) => string;
}

/** Discovers the source, detects changes, hashes what changed and plans (with moves and renames). */
async function planRun(ctx: IndexerContext, request: RunRequest, progress: (p: IndexProgress) => void): Promise<PlannedRun> {
  const { store, config } = ctx;
  const cfg = config.indexing;
  const { label, source } = request;
  const tree = source.tree;
  const adapters = await ctx.adapters();
  progress({ phase: 'discover', done: 0, total: 0 });
  const listing: DiscoveryResult =
    request.paths === null ? discoverTree(tree, cfg, adapters.extensions) : discoverPaths(tree, cfg, adapters.extensions, request.paths);
  // Adapters that read project files (C# preprocessor symbols) read those of the tree being indexed.
  const projects = projectFiles(
    ctx.languages,
    listing.contextFiles.map((f) => f.path),
    (p) => tree.readSmall(p, 1 << 20)?.toString('utf8') ?? null,
  );
  adapters.refreshProjects(projectReaderOf(projects));
  const extractorFor = (path: string) => {
    const a = adapters.forPath(path);
    return a ? extractorOf(a, path) : 'none';
  };
  const state = store.planState(label);
  const changes = detectChanges(state.files(), listing, {
    label,
    extractorOf: extractorFor,
    scope: request.paths === null ? 'full' : 'paths',
    ...(request.paths !== null ? { looked: request.paths } : {}),
  });

  // Content hashes decide between parse, reuse, touch and move. A commit's blob ids are known
  // without reading; working files are read now (and the bytes kept for parsing).
  const bytes = new Map<string, Buffer>();
  const withHash = async (f: SourceVersion): Promise<SourceVersion> => {
    if (f.blobId !== undefined) return { ...f, contentHash: f.blobId };
    const b = await source.read(f.path, undefined, cfg.max_file_bytes);
    if (b === null) return f;
    bytes.set(f.path, b);
    return { ...f, contentHash: gitBlobId(b) };
  };
  const created: SourceVersion[] = [];
  for (const f of changes.created) created.push(await withHash(f));
  const modified: SourceVersion[] = [];
  for (const f of changes.modified) modified.push(await withHash(f));
  const changed = { ...changes, created, modified };
  const firstPlan = planChanges(changed, state, extractorFor);
  // A create and a delete that are one file moved and edited continue its nodes (decision 023).
  const renames = await renamePairs(firstPlan, {
    store,
    label,
    source,
    bytes,
    extractorOf: extractorFor,
    maxFileBytes: cfg.max_file_bytes,
    ...(request.renames ? { gitRenames: request.renames } : {}),
  });
  const plan = renames.size > 0 ? planChanges(changed, state, extractorFor, renames) : firstPlan;
  return { label, request, source, worktree: source.kind === 'worktree', listing, projects, adapters, state, plan, bytes, extractorFor };
}

/**
 * A partial semantic pass will follow: a pass that can (TS) builds its programs now, while this
 * process reads, parses and writes the changed files. Returns whether one does.
 */
function prepareSemantic(ctx: IndexerContext, run: PlannedRun): boolean {
  let preparing = false;
  for (const { pass, languages } of ctx.languages.passes()) {
    if (!pass.prepare) continue;
    const own = new Set<string>(languages);
    const paths = run.plan.parse.map((p) => p.file.path).filter((p) => own.has(ctx.languages.languageOf(p) ?? ''));
    if (pass.prepare(ctx, run.label, run.source.root, paths)) preparing = true;
  }
  return preparing;
}

/**
 * Marks pending the importers of modules that appear, disappear or change their exports (of
 * languages whose importers follow exports): what they resolve to may change. Marked before (or
 * with) the write, so an interruption cannot leave them complete (decision 022). A first index
 * has no importers to revisit (and would look them up once per file).
 */
function importerMarker(ctx: IndexerContext, label: string, hadFiles: boolean): (paths: readonly string[], reason: string) => void {
  const following = new Set<string>(ctx.languages.languagesWith((p) => p.importersFollowExports === true));
  return (paths, reason) => {
    const own = paths.filter((p) => following.has(ctx.languages.languageOf(p) ?? ''));
    // Without a semantic pass their syntactic edges through these modules still resolve again.
    if (hadFiles && own.length > 0) ctx.store.semantic.markImportersPending(label, own, reason, { pending: ctx.config.semantic.enabled });
  };
}

/**
 * Writes what needs no parse: versions the index holds already, moves and touches. Returns
 * whether the label had files; adds to `promoted` the paths that must be written again
 * (`WriteStats.promoted`).
 */
function applyReusesAndMoves(ctx: IndexerContext, run: PlannedRun, promoted: Set<string>): boolean {
  const { store } = ctx;
  const { label, plan: thePlan, worktree } = run;
  if (thePlan.reuse.length > 0) {
    const stats = store.writer.reuseVersions(label, thePlan.reuse.map((r) => ({ path: r.file.path, fileId: r.fileId, mtimeMs: worktree ? r.file.mtimeMs : null })));
    for (const p of stats.promoted ?? []) promoted.add(p);
  }
  const hadFiles = run.state.files().size > 0;
  const markImporters = importerMarker(ctx, label, hadFiles);
  // A file moved and edited (a continuation parse) appears at its new path and leaves its old one.
  const continued = thePlan.parse.filter((p) => p.movedFrom !== undefined);
  const appeared = [...thePlan.moves.map((m) => m.to.path), ...thePlan.parse.filter((p) => p.previousFileId === null || p.movedFrom !== undefined).map((p) => p.file.path)];
  markImporters(appeared, 'imported module appeared');
  // A move leaves its old path too: importers reaching through it (a re-exporting barrel) have no edge into its nodes.
  markImporters([...thePlan.remove.map((r) => r.path), ...continued.map((p) => p.movedFrom!), ...thePlan.moves.map((m) => m.from)], 'imported module removed');
  for (const m of thePlan.moves) {
    const stats = store.writer.moveVersion(label, { from: m.from, to: m.to.path, fileId: m.fileId, mtimeMs: worktree ? m.to.mtimeMs : null, project: m.to.project }, (key) =>
      movedKey(key, m.from, m.to.path),
    );
    for (const p of stats.promoted ?? []) promoted.add(p);
  }
  for (const t of thePlan.touch) store.writer.touch(label, t.path, t.mtimeMs);
  return hadFiles;
}

/** What the write step leaves for the semantic step. */
interface Writes {
  /** Files written by parse (skipped ones included). */
  readonly written: number;
  readonly planned: ReadonlyMap<string, PlannedFile>;
  readonly carried: ReadonlyMap<string, number[]>;
  /** Names the run's changes may have given another meaning. */
  readonly dirty: Set<string>;
  readonly churn: DeclarationTracker | null;
  readonly skeletons: readonly SyntacticSkeleton[];
  /** Paths to write again: they hold a merged node's primary fragment now (`WriteStats.promoted`). */
  readonly promoted: ReadonlySet<string>;
}

/** Declarations that appear or disappear, for the languages whose pass follows them. */
interface DeclarationTracker {
  noteFile(path: string, previous: Parameters<NodePlanner>[0]['previous'], nodes: readonly ExtractedNode[], project?: string): void;
  noteDropped(path: string, name: string, kind: string): void;
  markUsers(store: Store, label: string): void;
}

function declarationTracker(ctx: IndexerContext, hadFiles: boolean): DeclarationTracker | null {
  const languages = new Set<string>(ctx.languages.languagesWith((p) => p.declarationChurn === true));
  if (!ctx.config.semantic.enabled || !hadFiles || languages.size === 0) return null;
  const churn = new DeclarationChurn();
  const tracked = (path: string) => languages.has(ctx.languages.languageOf(path) ?? '');
  return {
    noteFile: (path, previous, nodes, project) => {
      if (tracked(path)) churn.noteFile(previous, nodes, project);
    },
    noteDropped: (path, name, kind) => {
      if (tracked(path)) churn.noteDropped(name, kind);
    },
    markUsers: (store, label) => void churn.markUsers(store, label),
  };
}

/**
 * The node planner of the run's writes: plans each re-parsed file's nodes, notes the names it
 * made dirty and the declarations that churned, marks importers when exports changed, and keeps
 * what a file that carried exact edges needs for its semantic region.
 */
function nodePlanner(ctx: IndexerContext, label: string, hadFiles: boolean, carrying: ReadonlySet<string>, writes: Omit<Writes, 'written' | 'skeletons' | 'carried' | 'promoted'> & { planned: Map<string, PlannedFile> }): NodePlanner {
  const markImporters = importerMarker(ctx, label, hadFiles);
  const following = new Set<string>(ctx.languages.languagesWith((p) => p.importersFollowExports === true));
  const augmenting = new Map(ctx.languages.passes().flatMap(({ pass, languages }) => (pass.augmentedModules ? languages.map((l) => [l as string, pass.augmentedModules!.bind(pass)] as const) : [])));
  // A module augmentation that appears, changes or disappears: the augmented module's own files and importers bind again.
  const markAugmented = (language: string, input: Parameters<NodePlanner>[0]) => {
    const hook = augmenting.get(language);
    // Only files declaring a namespace (an augmentation is one) are hashed for it.
    if (!hook || !(input.previous.some((n) => n.kind === 'namespace') || input.nodes.some((n) => n.kind === 'namespace'))) return;
    const paths = hook(input.path, input.previousPath ?? input.path, input.previous.map((n) => ({ symbolKey: n.symbolKey, kind: n.kind, name: n.name ?? '', chunkHash: n.chunkHash })), input.nodes.map((n) => ({ symbolKey: n.symbolKey, kind: n.kind, name: n.name, chunkHash: chunkHashOf(n.chunkText) })));
    if (paths && paths.length > 0) ctx.store.semantic.markAugmentedPending(label, paths, 'augmented module changed', { pending: ctx.config.semantic.enabled });
  };
  return (input) => {
    const language = ctx.languages.languageOf(input.path) ?? '';
    const carries = carrying.has(language);
    const p = planNodes(input.previous, input.nodes, {
      path: input.path,
      partialTarget: input.partialTarget,
      chunkHash: chunkHashOf,
      carry: carries,
      ...(input.previousPath !== undefined ? { movedFrom: input.previousPath } : {}),
      ...(input.project !== undefined ? { project: input.project } : {}),
    });
    for (const n of p.dirtyNames ?? []) writes.dirty.add(n);
    writes.churn?.noteFile(input.path, input.previous, input.nodes, input.project);
    // Runs inside the writer's transaction: the importers are pending together with the new version.
    if (carries && following.has(language) && input.previous.length > 0 && p.exportsChanged !== false) markImporters([input.path], 'imported module changed its exports');
    if (carries && hadFiles) markAugmented(language, input);
    // Only files that carried something get a region (and keep their nodes' texts until the pass).
    if ((p.carry?.length ?? 0) > 0) {
      const updates = new Map<number, string>();
      const inserted = new Set<string>();
      p.actions.forEach((a, i) => {
        if (a.kind === 'update') updates.set(a.id, input.nodes[i]!.symbolKey);
        else inserted.add(input.nodes[i]!.symbolKey);
      });
      const nodes = input.nodes.map((n) => ({ symbolKey: n.symbolKey, chunkText: n.chunkText }));
      writes.planned.set(input.path, { nodes, updates, inserted, localDirty: p.localDirtyNames ?? [] });
    }
    return p;
  };
}

/** The carry options of the run's writes: the first pass that carries exact edges of re-parsed files. */
function carryOptions(ctx: IndexerContext): { carry: CarryOptions | undefined; languages: ReadonlySet<string> } {
  if (!ctx.config.semantic.enabled) return { carry: undefined, languages: new Set() };
  const carrying = ctx.languages.passes().find((p) => p.pass.carries !== undefined);
  if (!carrying) return { carry: undefined, languages: new Set() };
  return {
    carry: { extractor: carrying.pass.extractor, languages: carrying.languages, types: carrying.pass.carries! },
    languages: new Set(carrying.languages),
  };
}

/**
 * Parses the plan's files and writes them in bounded transactions. With a semantic pass, a
 * re-parsed file keeps the exact edges of its symbols whose own text did not change (carried to
 * the new version); the pass then resolves only the rest (`regions`).
 */
async function parseAndWrite(
  ctx: IndexerContext,
  run: PlannedRun,
  hadFiles: boolean,
  preparing: boolean,
  progress: (p: IndexProgress) => void,
  /** Written again as `FileWrite.refresh`, noting declarations in the run's `churn`. */
  refresh?: { readonly churn: DeclarationTracker | null },
): Promise<Writes> {
  const { store, config } = ctx;
  const cfg = config.indexing;
  const { label, plan: thePlan, worktree, source, bytes, adapters } = run;
  const { carry, languages: carrying } = carryOptions(ctx);
  const writes = { planned: new Map<string, PlannedFile>(), dirty: new Set<string>(), churn: refresh ? refresh.churn : declarationTracker(ctx, hadFiles) };
  const planner = nodePlanner(ctx, label, hadFiles, carrying, writes);
  const carried = new Map<string, number[]>();
  const promoted = new Set<string>();
  let batch: FileWrite[] = thePlan.skipped.map((s) => skippedWrite(s, skippedHash(s), worktree));
  let written = 0;
  const total = thePlan.parse.length + thePlan.skipped.length;
  const flush = () => {
    if (batch.length === 0) return;
    const stats = store.writer.writeBatch(label, batch, planner, carry);
    for (const [path, ids] of stats.carried ?? []) carried.set(path, ids);
    for (const p of stats.promoted ?? []) promoted.add(p);
    written += batch.length;
    progress({ phase: 'write', done: written, total });
    batch = [];
  };
  // A semantic pass names symbols by these nodes: handing them over spares its worker a second
  // tree-sitter parse of every file (it checks the content hash before using one).
  const skeletons: SyntacticSkeleton[] = [];
  let skeletonNodes = 0;
  const keepSkeletons = new Set<string>(config.semantic.enabled ? ctx.languages.languagesWith((p) => p.keepsSkeletons === true) : []);
  const byPath = new Map(thePlan.parse.map((p) => [p.file.path, p]));
  let parsed = 0;
  const accept = (result: ProcessedFile, content: Uint8Array | null) => {
    const toParse = byPath.get(result.path)!;
    const f = toParse.file;
    parsed++;
    if (result.index !== null && result.language !== null && keepSkeletons.has(result.language) && skeletonNodes < SKELETON_NODE_CAP) {
      skeletons.push(skeletonOf(result.path, result.contentHash, result.index));
      skeletonNodes += result.index.nodes.length;
    }
    progress({ phase: 'parse', done: parsed, total: thePlan.parse.length });
    batch.push({
      ...result,
      project: f.project,
      mtimeMs: worktree ? f.mtimeMs : null,
      ...(content ? { content } : {}),
      ...(toParse.movedFrom !== undefined ? { previousPath: toParse.movedFrom } : {}),
      ...(refresh ? { refresh: true } : {}),
    });
    if (batch.length >= cfg.batch_files) flush();
  };
  const tasks: { path: string; bytes: Uint8Array; deadlineMs: number }[] = [];
  for (const p of thePlan.parse) {
    const path = p.file.path;
    let b: Uint8Array | null = bytes.get(path) ?? null;
    if (b === null && !worktree) {
      try {
        b = await source.read(path, p.file.blobId, cfg.max_file_bytes);
      } catch (e) {
        const err = toCaError(e, 'io_error');
        throw new CaError(err.code, `cannot read ${path} at ${source.commit?.slice(0, 12) ?? '?'}: ${err.message}`, { cause: e, context: { path } });
      }
    }
    if (b === null) {
      accept(unreadableFile(path, adapters.forPath(path)?.languageOf(path) ?? null, run.extractorFor(path), 'not a regular file of the repository, vanished, or over indexing.max_file_bytes'), null);
      continue;
    }
    tasks.push({ path, bytes: b, deadlineMs: cfg.parse_timeout_ms });
  }
  bytes.clear();
  await parseTasks(ctx, run, tasks, preparing, accept);
  flush();
  return { written, planned: writes.planned, carried, dirty: writes.dirty, churn: writes.churn, skeletons, promoted };
}

/** Rounds of `refreshPromoted` at most (a refresh promotes nothing unless fragments moved meanwhile). */
const REFRESH_ROUNDS = 4;

/**
 * Writes again, from their unchanged content, the label's files that now hold the primary
 * fragment of a merged node whose primary fragment left (deleted, or moved into another project):
 * the node takes this fragment's facts, as a clean index, which inserts the fragments in path
 * order, has them (decision 022, difference 16). Returns `writes` with theirs added.
 */
async function refreshPromoted(ctx: IndexerContext, run: PlannedRun, hadFiles: boolean, writes: Writes, promoted: Set<string>, progress: (p: IndexProgress) => void): Promise<Writes> {
  let out = writes;
  for (let round = 0; round < REFRESH_ROUNDS && promoted.size > 0; round++) {
    const stored = ctx.store.planState(run.label).files();
    const paths = [...promoted].filter((p) => stored.has(p)).sort();
    promoted.clear();
    if (paths.length === 0) break;
    const listed = discoverPaths(run.source.tree, ctx.config.indexing, run.adapters.extensions, paths).files;
    const bytes = new Map<string, Buffer>();
    for (const f of listed) {
      const b = await run.source.read(f.path, f.blobId, ctx.config.indexing.max_file_bytes);
      if (b !== null) bytes.set(f.path, b);
    }
    const parse = listed.map((f) => ({ file: f, reason: 'modified' as const, previousFileId: stored.get(f.path)!.fileId }));
    const again = await parseAndWrite(ctx, { ...run, plan: { ...run.plan, parse, skipped: [] }, bytes }, hadFiles, false, progress, { churn: out.churn });
    for (const p of again.promoted) promoted.add(p);
    out = {
      written: out.written + again.written,
      planned: new Map([...out.planned, ...again.planned]),
      carried: new Map([...out.carried, ...again.carried]),
      dirty: new Set([...out.dirty, ...again.dirty]),
      churn: out.churn,
      skeletons: [...out.skeletons.filter((sk) => !again.skeletons.some((a) => a.path === sk.path)), ...again.skeletons],
      promoted: new Set(),
    };
  }
  return out;
}

/**
 * Parses on threads from a few files; while a semantic worker prepares, it holds a core and a
 * few dozen files parse sooner here than on threads competing with it. Languages that cannot be
 * loaded in a thread (no `worker` entry) parse here.
 */
async function parseTasks(
  ctx: IndexerContext,
  run: PlannedRun,
  tasks: readonly { path: string; bytes: Uint8Array; deadlineMs: number }[],
  preparing: boolean,
  accept: (result: ProcessedFile, content: Uint8Array | null) => void,
): Promise<void> {
  const entries = ctx.languages.workerEntries();
  const threads = entries !== null && tasks.length >= (preparing ? PARSE_THREADS_MIN_FILES_PREPARING : PARSE_THREADS_MIN_FILES) ? ctx.config.indexing.workers : 0;
  const pool = ParsePool.create(threads, run.adapters, { languages: entries ?? [], projects: run.projects });
  try {
    const contents = new Map(tasks.map((t) => [t.path, t.bytes]));
    await pool.run(tasks, (result) => {
      const content = contents.get(result.path) ?? null;
      contents.delete(result.path);
      accept(result, content);
    });
  } finally {
    await pool.close();
  }
}

/**
 * The semantic step: invalidates the edges of outdated extractors, applies context changes and
 * the plan's scopes, and runs the passes over what lacks exact edges.
 */
async function semanticStage(
  ctx: IndexerContext,
  run: PlannedRun,
  writes: Writes,
  wroteFiles: boolean,
  options: RunOptions,
  progress: (p: IndexProgress) => void,
): Promise<{ semantic: RunResult['semantic']; contextChanges: ContextChange[] }> {
  const { store, config } = ctx;
  const { label, request, plan: thePlan } = run;
  // A newer semantic extractor (an upgraded ca) re-analyses every file of its language:
  // edges of the old one stay served, marked pending, until the new pass replaces them.
  for (const { pass, languages } of ctx.languages.passes()) store.semantic.invalidateExtractor(languages, pass.extractor);
  // A changed tsconfig, package.json, csproj … re-analyses the files it shapes. A run over
  // watcher paths sees only the configs among them; the others keep their recorded facts.
  const contextChanges = applyContextChanges(store, label, request.contextKey, run.source, run.listing, request.paths, ctx.languages.languagesWith(() => true));
  // The plan's own scopes: parsed and moved files need their pass again, with the reason.
  if (thePlan.semantic.length > 0) {
    const now = store.planState(label).files();
    // Only files of a language with a pass: no pass would ever take the others (documentation,
    // configuration and contract files stay `none`, as a run interrupted before this point leaves them).
    const analysed = new Set<string>(ctx.languages.languagesWith(() => true));
    for (const scope of thePlan.semantic) {
      const paths = scope.paths.filter((p) => analysed.has(ctx.languages.languageOf(p) ?? ''));
      store.semantic.markPending(paths.flatMap((p) => now.get(p)?.fileId ?? []), scope.reason);
    }
  }
  // The new symbols' vectors come after the pass: the model loads meanwhile, once the TS
  // worker has its program (it then checks on one core; while it builds, a load beside it
  // slows the build: docs/benchmarks.md).
  let prewarmed = !wroteFiles || options.embedLimit === 0;
  const prewarm = () => {
    if (prewarmed) return;
    prewarmed = true;
    void prewarmEmbedder(config.embedding, ctx.embedder.acquire, store.vectors.countNodesNeedingEmbedding(label));
  };
  const regions = contextChanges.length > 0 ? [] : semanticRegions(writes.planned, writes.carried, writes.dirty);
  const semantic = await runSemantic(ctx, label, request.contextKey, run.source, writes.skeletons, regions, options, progress, prewarm);
  prewarm();
  return { semantic, contextChanges };
}

type RegionNode = Pick<ExtractedNode, 'symbolKey' | 'chunkText'>;

/** What the run's node planner saw of a re-parsed file, for its semantic region. */
interface PlannedFile {
  readonly nodes: readonly RegionNode[];
  /** Continued node id → its (syntactic) key. */
  readonly updates: ReadonlyMap<number, string>;
  /** Keys of new nodes. */
  readonly inserted: ReadonlySet<string>;
  /** Names changed for this file only (its imports). */
  readonly localDirty: readonly string[];
}

/** A file analysed for some of its symbols: the keys to resolve, and the carried nodes whose exact edges the pass replaces. */
export interface PlannedRegion extends AnalysisRegion {
  readonly replaced: readonly number[];
  /** Distinct keys of the file. */
  readonly symbols: number;
}

/**
 * The TS/JS files re-parsed in this run that carried exact edges, each with the symbols the pass
 * must still resolve: the changed ones, and the carried ones naming something the run's changes
 * declared, removed or re-declared (@ca/invalidation `semanticRegion`). A file left with every
 * key is analysed whole (no region).
 */
function semanticRegions(
  planned: ReadonlyMap<string, PlannedFile>,
  carried: ReadonlyMap<string, readonly number[]>,
  dirty: ReadonlySet<string>,
): PlannedRegion[] {
  const out: PlannedRegion[] = [];
  for (const [path, ids] of carried) {
    const p = planned.get(path);
    if (p === undefined) continue;
    // A key is carried when every node of it carried (the pass resolves by key).
    const carriedIds = new Set(ids);
    const carriedKeys = new Set<string>();
    const notCarried = new Set(p.inserted);
    for (const [id, key] of p.updates) (carriedIds.has(id) ? carriedKeys : notCarried).add(key);
    for (const k of notCarried) carriedKeys.delete(k);
    const keys = semanticRegion(p.nodes, carriedKeys, p.localDirty.length > 0 ? new Set([...dirty, ...p.localDirty]) : dirty);
    if (keys === null) continue;
    const wanted = new Set(keys);
    const replaced = ids.filter((id) => wanted.has(p.updates.get(id) ?? ''));
    out.push({ path, keys, replaced, symbols: new Set(p.nodes.map((n) => n.symbolKey)).size });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Compares the label's semantic-context files with the facts recorded by its previous run and marks
 * the source files each changed one shapes pending (the second invalidation class,
 * docs/architecture.md; decision 012). The first run only records them: every file is pending then
 * anyway.
 */
export function applyContextChanges(
  store: Store,
  label: string,
  key: string,
  source: FileSource,
  listing: DiscoveryResult,
  paths: readonly string[] | null,
  /** The languages with a semantic pass: their files are the ones a context change re-analyses. */
  analysed: readonly string[],
): ContextChange[] {
  const reader = store.reader(label);
  const raw = reader.metadata(key);
  let previous: ContextFacts | null = null;
  try {
    previous = raw === null ? null : (JSON.parse(raw) as ContextFacts);
  } catch {
    // why: unreadable recorded facts are as good as none: this run records them again (every file is pending then).
    previous = null;
  }
  let discovered = listing.contextFiles;
  if (paths !== null) {
    // Only the configs among the looked-at paths were listed: the others are as recorded.
    if (previous === null) return [];
    const lookedAt = (p: string) => paths.some((l) => l === '' || p === l || p.startsWith(`${l}/`));
    if (discovered.length === 0 && !Object.keys(previous).some(lookedAt)) return [];
    const listed = new Set(discovered.map((f) => f.path));
    const kept = Object.entries(previous)
      .filter(([p]) => !listed.has(p) && !lookedAt(p))
      .map(([p, r]) => ({ path: p, size: r.size, mtimeMs: r.mtimeMs < 0 ? 0 : r.mtimeMs, project: '' }));
    discovered = [...discovered, ...kept];
  }
  const scan = scanContext(source.tree, discovered, previous);
  const out: ContextChange[] = [];
  if (previous !== null) {
    const changed = diffContext(previous, scan.facts);
    const files = store.semantic.analysableFiles(label, analysed);
    const scopes = contextScopes(changed, scan, previous, { files, importersOf: (names) => store.semantic.importersOf(label, names) });
    for (const s of scopes) {
      const reason = `semantic context ${s.change}: ${s.path}`;
      store.semantic.markPending(s.files.map((f) => f.id), reason);
      store.writer.recordEvent('semantic_context_changed', s.path, `${reason}; ${s.files.length} files to re-analyse`);
      out.push({ path: s.path, change: s.change, files: s.files.length });
    }
  }
  const next = JSON.stringify(scan.facts);
  if (raw !== next) store.writer.setMetadata(key, next);
  return out;
}

/** Runs each language's semantic pass, in registration order, over the label's files of it that lack exact edges. */
async function runSemantic(
  ctx: IndexerContext,
  label: string,
  contextKey: string,
  source: FileSource,
  skeletons: readonly SyntacticSkeleton[],
  regions: readonly PlannedRegion[],
  options: RunOptions,
  progress: (p: IndexProgress) => void,
  /** Called once a pass that builds a program has it (or before a pass that does not say), never without a pass. */
  programReady: () => void,
): Promise<SemanticReports> {
  const { store } = ctx;
  if (options.retryFailedSemantic === true) ctx.semanticRetried.clear();
  // Files lacking exact edges: new, changed, never analysed, or failed for a passing reason (a
  // deadline, a worker that died) and not yet retried by this engine. A failure the project
  // itself causes (it does not load) waits for a change of the file, its configs or the
  // extractor — or an explicit retry — instead of costing every run a compiler start.
  const retry = (r: { id: number; semanticReason: string | null }) =>
    options.retryFailedSemantic === true || (isPassingFailure(r.semanticReason) && !ctx.semanticRetried.has(r.id));
  const staleOf = (languages: readonly string[]) => store.semantic.staleFiles(label, languages).filter((r) => r.semanticState !== 'failed' || retry(r));
  const work = ctx.languages
    .passes()
    .map((p) => ({ ...p, stale: staleOf(p.languages) }))
    .filter((p) => p.stale.length > 0);
  const out: Record<string, unknown> = {};
  if (work.length === 0) return out;
  // A commit is analysed from its own blobs, written to a private directory: the compilers read
  // the label's content, never the working tree's.
  const root = source.kind === 'worktree' ? { dir: source.root, dispose: () => {} } : await materialize(store, label, source, contextKey);
  try {
    for (const { pass, stale } of work) pass.warmUp?.(ctx, root.dir, stale);
    for (const { pass, stale } of work) {
      if (pass.signalsProgramReady !== true) programReady();
      out[pass.reportKey] = await pass.run({ ctx, label, dir: root.dir, stale, skeletons, regions, options, progress, programReady });
    }
  } finally {
    root.dispose();
  }
  for (const id of store.semantic.failedFileIds(label)) ctx.semanticRetried.add(id);
  return out;
}

/**
 * A file's stored nodes as the skeleton a parse of it gives: keys the TS pass refined to their
 * package back to their syntactic form, the file node first. (The worker uses it only while the
 * file's text still hashes to `contentHash`.)
 */
export function skeletonOfStored(sk: StoredSkeleton): SyntacticSkeleton {
  const key = (k: string) => unrefinedKey(k, sk.path) ?? k;
  const nodes = [...sk.nodes].sort((a, b) => Number(b.kind === 'file') - Number(a.kind === 'file'));
  return {
    path: sk.path,
    contentHash: sk.contentHash,
    nodes: nodes.map((n) => [String(n.id), n.parentId === null ? null : String(n.parentId), n.kind as NodeKind, n.name, key(n.symbolKey), n.startByte, n.endByte] as const),
  };
}

/** Failure codes that say nothing about the project itself: worth another try on the next run. */
const PASSING_FAILURES = /^(?:[^:]*?: )?(timeout|oom_restart|cancelled|semantic_unavailable|backpressure|internal)\b/;

/** Whether a recorded semantic failure (`code: message`, several joined by `; `) was caused by the run, not the project. */
export function isPassingFailure(reason: string | null): boolean {
  if (reason === null) return true;
  // `project: code: message` (TS) or `code: message` (C#).
  return reason.split('; ').some((part) => PASSING_FAILURES.test(part));
}

/**
 * Writes a label's files (sources and the configs that shape them) from the index's stored
 * contents into a private temporary directory for the compilers. Installed packages are not in
 * git: the working tree's `node_modules` is linked in when there is one (read, never run).
 */
async function materialize(store: Store, label: string, source: FileSource, contextKey: string): Promise<{ dir: string; dispose: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'ca-label-'));
  const reader = store.reader(label);
  const entries = store.planState(label).files();
  for (const [path, f] of entries) {
    if (f.parseStatus === 'skipped' || f.parseStatus === 'no_grammar') continue;
    const bytes = reader.fileContent(path);
    if (bytes === null) continue;
    const abs = join(dir, ...path.split('/'));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, bytes);
  }
  // The configs: tsconfig/package.json/csproj… are not label members; read them from the commit.
  for (const path of Object.keys(JSON.parse(reader.metadata(contextKey) ?? '{}') as Record<string, unknown>)) {
    const bytes = source.tree.readSmall(path, 1 << 20);
    if (bytes === null) continue;
    const abs = join(dir, ...path.split('/'));
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, bytes);
  }
  const modules = join(source.root, 'node_modules');
  if (existsSync(modules) && !existsSync(join(dir, 'node_modules'))) symlinkSync(modules, join(dir, 'node_modules'), 'dir');
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

async function embed(ctx: IndexerContext, label: string, onProgress: (done: number, total: number) => void, maxNodes: number | undefined): Promise<EmbedReport> {
  try {
    return await embedPending(ctx.store, ctx.config.embedding, label, onProgress, ctx.embedder.acquire, maxNodes);
  } catch (e) {
    ctx.embedder.reset();
    throw e;
  }
}

/** The write a skipped file leaves (its record changes when its size, mtime or reason does). */
function skippedWrite(s: SkippedFile, hash: string, worktree: boolean): FileWrite {
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
    mtimeMs: worktree ? Math.floor(s.mtimeMs) : null,
    extractor: 'none',
    index: null,
  };
}

export { CONTEXT_METADATA_KEY };
