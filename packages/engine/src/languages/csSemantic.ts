import { CaError, type EdgeType } from '@ca/schema';
import { isRazorPath, isRoslynAvailable, RAZOR_SYNTACTIC_REASON, RoslynHost, type DocumentResult, type RazorStatus } from '@ca/parse-cs';
import type { SemanticEdgeWrite, Store } from '@ca/store';
import { recordCsLoadWarnings } from '../loadNotes.js';

export interface CsSemanticReport {
  readonly available: boolean;
  readonly reason: string | null;
  readonly projects: number;
  readonly failedProjects: readonly { project: string; reason: string }[];
  readonly documents: number;
  readonly lines: number;
  readonly edges: number;
  readonly unmatchedSymbols: number;
  readonly ms: number;
}

const CS_SEMANTIC_TYPES: readonly EdgeType[] = ['calls', 'references', 'inherits', 'implements', 'overrides', 'extends'];
export const CS_SEMANTIC_EXTRACTOR = 'semantic:roslyn@1';

/**
 * Runs roslyn-host over the C# projects of the label (safe mode: compilations built from
 * source + reference packs, nothing of the repository is executed) and replaces each project's
 * syntactic call/reference/inheritance edges with the compiler's, mapped onto the syntactic
 * nodes by file + position + kind + name. Without the .NET SDK or the built host, C# stays
 * syntactic and the reason is recorded on the files.
 */
export async function runCsSemanticPass(
  store: Store,
  repoRoot: string,
  label: string,
  options: {
    safeMode: boolean;
    projects?: readonly string[];
    /**
     * The files to analyse (repo-relative); default all. A project with only some of its files
     * listed has just those analysed: edges are source-driven, so the other files keep theirs.
     */
    files?: readonly string[];
    onProgress?: (done: number, total: number) => void;
    /** A long-lived host (kept warm between passes, not disposed here); default: one for this pass. */
    host?: RoslynHost;
    /** `indexing.max_file_bytes`: the host refuses larger source files. */
    maxFileBytes?: number;
    /**
     * `semantic.request_timeout_ms`: the least time a load or an analysis of one project is given
     * (its size may give it more). A pass cut short fails its project, which a less loaded run of
     * the same tree would not: the configured patience must hold for C# as for TypeScript.
     */
    requestTimeoutMs?: number;
  },
): Promise<CsSemanticReport> {
  const started = performance.now();
  const allCsFiles = store.semantic.analysableFiles(label, ['cs']);
  // Razor files are syntactic until their project's load says the SDK's Razor generator ran
  // (decision 052): then they are analysed like .cs files; otherwise their state says why, so
  // answers that reach them report the gap.
  const razorFiles = allCsFiles.filter((f) => isRazorPath(f.path));
  // Only the files this pass is asked about: a partial pass (some files, some projects) leaves the
  // others' state as it is.
  const razorInScope = razorFiles.filter(
    (f) => (!options.files || options.files.includes(f.path)) && (!options.projects || options.projects.includes(f.project)),
  );
  if (razorInScope.length > 0) store.writer.setSemanticState(razorInScope.map((f) => f.id), 'none', RAZOR_SYNTACTIC_REASON);
  const csFiles = razorFiles.length > 0 ? allCsFiles.filter((f) => !isRazorPath(f.path)) : allCsFiles;
  const empty = (available: boolean, reason: string | null): CsSemanticReport => ({
    available,
    reason,
    projects: 0,
    failedProjects: [],
    documents: 0,
    lines: 0,
    edges: 0,
    unmatchedSymbols: 0,
    ms: Math.round(performance.now() - started),
  });
  if (allCsFiles.length === 0) return empty(true, null);
  const availability = isRoslynAvailable();
  if (!availability.ok) {
    store.writer.setSemanticState(csFiles.map((f) => f.id), 'none', `C# semantic pass unavailable: ${availability.reason}`);
    if (razorInScope.length > 0) {
      store.writer.setSemanticState(razorInScope.map((f) => f.id), 'none', `${RAZOR_SYNTACTIC_REASON} (C# semantic pass unavailable: ${availability.reason})`);
    }
    return empty(false, availability.reason);
  }
  if (!options.safeMode) {
    process.stderr.write('warning: indexing.safe_mode=false — unsafe mode would evaluate MSBuild; roslyn-host answers semantic_unavailable for it\n');
  }
  const projects = [...new Set([...csFiles, ...razorFiles].map((f) => f.project).filter((p) => p.endsWith('.csproj')))].filter(
    (p) => !options.projects || options.projects.includes(p),
  );
  const orphanFiles = csFiles.filter((f) => !f.project.endsWith('.csproj'));
  if (orphanFiles.length > 0) {
    store.writer.setSemanticState(orphanFiles.map((f) => f.id), 'none', 'not part of any .csproj project: syntactic only');
  }
  const host = options.host ?? new RoslynHost();
  const failedProjects: { project: string; reason: string }[] = [];
  let documents = 0;
  let lines = 0;
  let edgeCount = 0;
  let unmatched = 0;
  try {
    await host.start();
    let done = 0;
    // Deadlines scale with size: the first analysis also counts references across every
    // loaded project, and a 100K-line test project needs minutes on a busy laptop.
    const allLines = csFiles.reduce((n, f) => n + f.lines, 0);
    const patience = options.requestTimeoutMs ?? 0;
    const deadlineMs = Math.max(30_000, allLines * 3, patience);
    for (const project of projects) {
      const projectFiles = csFiles.filter((f) => f.project === project);
      const projectRazor = razorFiles.filter((f) => f.project === project);
      const wanted = options.files ? new Set(options.files) : null;
      const partial = wanted !== null && [...projectFiles, ...projectRazor].some((f) => !wanted.has(f.path));
      const analysed = partial ? projectFiles.filter((f) => wanted.has(f.path)) : [...projectFiles];
      const razorWanted = partial ? projectRazor.filter((f) => wanted.has(f.path)) : projectRazor;
      try {
        const load = await host.loadProject(
          {
            projectPath: project,
            repoRoot,
            safeMode: options.safeMode,
            loadReferences: true,
            ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
          },
          { deadlineMs: Math.max(120_000, allLines, patience) },
        );
        // Targets, analyzers and imports not run, files refused: the index says what it did not load.
        recordCsLoadWarnings(store, repoRoot, load.warnings);
        const razorAnalysed = razorScope(store, razorWanted, load.projects.find((p) => p.projectId === project)?.razor);
        analysed.push(...razorAnalysed);
        if (analysed.length === 0) {
          options.onProgress?.(++done, projects.length);
          continue;
        }
        const result = await host.analyze(
          {
            projectId: project,
            ...(partial ? { paths: analysed.map((f) => f.path) } : {}),
            // Reference counts come from the stored edges (store migration 7), not from the host.
            includeReferenceCounts: false,
            includeExternalTargets: true,
          },
          { deadlineMs },
        );
        const applied = applyDocuments(store, label, result.documents, new Set(analysed.map((f) => f.id)));
        documents += result.stats.documents;
        lines += result.stats.lines;
        edgeCount += applied.edges;
        unmatched += applied.unmatched;
      } catch (e) {
        const reason = e instanceof CaError ? `${e.code}: ${e.message}` : (e as Error).message;
        failedProjects.push({ project, reason });
        // Exact edges of an earlier pass (before the project file changed) go with it.
        store.writer.degradeSemantic(analysed.map((f) => f.id), CS_SEMANTIC_TYPES, 'failed', reason);
        store.writer.recordEvent('semantic_failed', project, reason);
      }
      options.onProgress?.(++done, projects.length);
    }
  } finally {
    if (options.host === undefined) await host.dispose();
  }
  return {
    available: true,
    reason: null,
    projects: projects.length,
    failedProjects,
    documents,
    lines,
    edges: edgeCount,
    unmatchedSymbols: unmatched,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * Starts the SDK's Razor generator's first-time work (loading, a warm-up run, its tag-helper
 * discovery over the framework's reference assemblies) in roslyn-host, in the background, when the
 * C# pass will analyse Razor files: it then overlaps the passes that run before it (the TS pass)
 * instead of the first Razor project's load (decision 052). Never waited on; a failure only loses
 * the head start.
 */
export function warmUpRazorGenerator(host: RoslynHost, repoRoot: string, stale: readonly { path: string; project: string }[]): void {
  const razor = stale.find((f) => isRazorPath(f.path) && f.project.endsWith('.csproj'));
  if (razor === undefined || !isRoslynAvailable().ok) return;
  host
    .start()
    .then(() => host.prepareRazor({ projectPath: razor.project, repoRoot }))
    // The C# pass meets (and records) whatever made the host fail; the warm-up only loses its head start.
    .catch(() => undefined);
}

/**
 * The Razor files of a project the host analyses: those its generator produced C# for. The
 * others keep the syntactic state, with the reason the generator gave (not found in the .NET
 * SDK, failed) or that it produced nothing for the file.
 */
function razorScope<F extends { id: number; path: string }>(store: Store, files: readonly F[], status: RazorStatus | undefined): F[] {
  if (files.length === 0) return [];
  if (!status?.generatorRan) {
    const why = status?.reason ?? 'roslyn-host reported no Razor status';
    store.writer.setSemanticState(files.map((f) => f.id), 'none', `${RAZOR_SYNTACTIC_REASON} (${why})`);
    return [];
  }
  const generated = new Set(status.documents);
  const left = files.filter((f) => !generated.has(f.path));
  if (left.length > 0) store.writer.setSemanticState(left.map((f) => f.id), 'none', `${RAZOR_SYNTACTIC_REASON} (the generator produced no C# for the file)`);
  // A file the generator could not parse (an unclosed block…) fails on its own, with the error and
  // its line; it keeps its syntactic edges, and the project's other files are analysed.
  const broken = new Map<string, string>();
  for (const e of status.errors) {
    if (e.path && !broken.has(e.path)) broken.set(e.path, `Razor generator error ${e.code} at line ${e.line ?? '?'}: ${e.message}`);
  }
  for (const f of files) {
    const reason = broken.get(f.path);
    if (reason !== undefined && generated.has(f.path)) store.writer.degradeSemantic([f.id], CS_SEMANTIC_TYPES, 'failed', reason);
  }
  return files.filter((f) => generated.has(f.path) && !broken.has(f.path));
}

function applyDocuments(store: Store, label: string, docs: readonly DocumentResult[], scope: ReadonlySet<number>): { edges: number; unmatched: number } {
  const locator = store.semantic.locator(label);
  const byKey = new Map<string, number>();
  let unmatched = 0;
  for (const doc of docs) {
    for (const s of doc.symbols) {
      if (s.implicit) continue;
      const node = locator.locate(s.path, s.identifierLine, { kind: s.kind, name: s.name, requireMatch: true });
      if (!node) {
        unmatched++;
        continue;
      }
      if (!byKey.has(s.key)) byKey.set(s.key, node.id);
    }
  }
  const edges: SemanticEdgeWrite[] = [];
  const fileIds = new Set<number>();
  for (const doc of docs) {
    const fileId = locator.fileId(doc.path);
    if (fileId === null || !scope.has(fileId)) continue;
    fileIds.add(fileId);
    for (const e of doc.edges) {
      const sourceId = byKey.get(e.sourceKey) ?? locator.locate(doc.path, e.line)?.id;
      if (sourceId === undefined) continue;
      let targetId = byKey.get(e.targetKey) ?? null;
      if (targetId === null && e.targetPath && e.targetLine) {
        targetId = locator.locate(e.targetPath, e.targetLine, { name: e.targetName, kind: e.targetKind, requireMatch: true })?.id ?? null;
      }
      edges.push({
        sourceId,
        targetId,
        targetKey: e.targetKey,
        targetName: e.targetName,
        type: e.type,
        confidence: 'exact',
        fileId,
        line: e.line,
      });
    }
  }
  store.writer.applySemanticPass({
    fileIds: [...fileIds],
    edges,
    types: CS_SEMANTIC_TYPES,
    extractor: CS_SEMANTIC_EXTRACTOR,
  });
  return { edges: edges.length, unmatched };
}
