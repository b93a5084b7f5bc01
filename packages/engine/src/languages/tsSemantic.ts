import type { EdgeType } from '@ca/schema';
import {
  createTsSemanticService,
  TS_SEMANTIC_EXTRACTOR_VERSION,
  type AnalysisRegion,
  type ProjectResult,
  type SyntacticSkeleton,
  type TsSemanticService,
} from '@ca/parse-ts';
import type { SemanticEdgeWrite, Store } from '@ca/store';

export interface TsSemanticReport {
  readonly projects: number;
  readonly failedProjects: readonly { project: string; reason: string }[];
  readonly fileErrors: number;
  readonly files: number;
  readonly edges: number;
  readonly keyRefinements: number;
  /**
   * Files analysed for some symbols only: their unchanged symbols kept the exact edges carried
   * from the previous version (`symbolsAnalysed` of `symbols` resolved again). Absent: none.
   */
  readonly regions?: { readonly files: number; readonly symbolsAnalysed: number; readonly symbols: number };
  readonly ms: number;
}

export const TS_SEMANTIC_TYPES: readonly EdgeType[] = ['calls', 'references', 'inherits', 'implements', 'overrides', 'accepts', 'imports'];
export const TS_SEMANTIC_EXTRACTOR = `semantic:${TS_SEMANTIC_EXTRACTOR_VERSION}`;

/**
 * Runs the TypeScript compiler-API pass (child process, tsconfig plugins stripped) and applies
 * each project's exact edges, reference counts and package-scoped keys to the index. A failed
 * project degrades to syntactic-only with its reason recorded; the others are unaffected.
 */
export async function runTsSemanticPass(
  store: Store,
  repoRoot: string,
  label: string,
  options: {
    files?: readonly string[];
    maxOldSpaceMb: number;
    deadlineMs: number;
    /** A long-lived service (its warm worker keeps parsed files for the next pass); default: one for this pass. */
    service?: TsSemanticService;
    /** Projects analysed of the planned total. */
    onProgress?: (done: number, total: number) => void;
    /** Syntactic nodes of files parsed in this run (the worker then need not parse them again). */
    syntactic?: readonly SyntacticSkeleton[];
    /** `indexing.max_file_bytes`: larger sources (and `*.min.js`) are no program's root files. */
    maxFileBytes?: number;
    /**
     * Files (among `files`) analysed for some symbols only, with the carried nodes whose exact
     * edges the pass replaces (`replaced`); the others keep theirs. Ignored without `files`.
     */
    regions?: readonly (AnalysisRegion & { readonly replaced: readonly number[]; readonly symbols: number })[];
  },
): Promise<TsSemanticReport> {
  const started = performance.now();
  const service = options.service ?? createTsSemanticService({ maxOldSpaceSizeMb: options.maxOldSpaceMb });
  const failedProjects: { project: string; reason: string }[] = [];
  let files = 0;
  let edges = 0;
  let refinements = 0;
  let fileErrors = 0;
  let projects = 0;
  const regions = options.files && options.regions && options.regions.length > 0 ? options.regions : null;
  try {
    const result = await service.analyzeRepository(repoRoot, {
      ...(options.files ? { files: [...options.files] } : {}),
      ...(regions !== null ? { regions: regions.map((r) => ({ path: r.path, keys: r.keys })) } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.syntactic ? { syntactic: options.syntactic } : {}),
      deadlineMs: options.deadlineMs,
      ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    });
    // Map every project's edges to node ids before any key refinement is applied: a project's
    // edges name targets in other projects by their syntactic (pre-refinement) keys.
    const planned: { project: ProjectResult; pass: ReturnType<typeof planProject> }[] = [];
    // A region file's carried edges stay, but for the nodes the pass resolved again.
    const replaced = new Map<string, readonly number[]>(regions?.map((r) => [r.path, r.replaced]) ?? []);
    for (const project of result.projects) {
      if (project.status === 'ok') planned.push({ project, pass: planProject(store, label, project, replaced) });
    }
    for (const { project, pass } of planned) applyPlanned(store, project, pass);
    for (const project of result.projects) {
      projects++;
      const name = project.tsconfig ?? '(inferred project)';
      if (project.status === 'failed') {
        const reason = project.reason ?? 'unknown reason';
        failedProjects.push({ project: name, reason });
        store.writer.recordEvent('semantic_failed', project.tsconfig, reason);
        continue;
      }
      const applied = planned.find((p) => p.project === project)!.pass;
      files += applied.fileIds.length;
      edges += applied.edges.length;
      refinements += applied.keyUpdates.size;
      fileErrors += project.fileErrors.length;
    }
  } finally {
    if (options.service === undefined) await service.dispose();
  }
  if (failedProjects.length > 0) {
    // Files no successful project covered fall back to their approximate edges, with the
    // reason: exact edges of an earlier pass (before their tsconfig broke) go in the same
    // transaction, so they are never served as current.
    const reason = failedProjects.map((p) => `${p.project}: ${p.reason}`).join('; ');
    const stale = store.semantic.staleFiles(label, ['ts', 'js']);
    store.writer.degradeSemantic(stale.map((r) => r.id), TS_SEMANTIC_TYPES, 'failed', reason.slice(0, 2000));
  }
  const regionReport =
    regions !== null
      ? {
          files: regions.length,
          symbolsAnalysed: regions.reduce((n, r) => n + r.keys.length, 0),
          symbols: regions.reduce((n, r) => n + r.symbols, 0),
        }
      : null;
  return {
    projects,
    failedProjects,
    fileErrors,
    files,
    edges,
    keyRefinements: refinements,
    ...(regionReport !== null ? { regions: regionReport } : {}),
    ms: Math.round(performance.now() - started),
  };
}

interface PlannedPass {
  readonly fileIds: number[];
  readonly edges: SemanticEdgeWrite[];
  readonly keyUpdates: Map<number, string>;
  readonly fileErrorIds: { id: number; reason: string }[];
  /** Region files: file id → the carried nodes whose edges the pass replaced. */
  readonly regions: Map<number, readonly number[]>;
  /** File id → where its unresolved imports would be found (`ProjectResult.moduleLookups`). */
  readonly moduleLookups: Map<number, readonly string[]>;
}

function applyPlanned(store: Store, _project: ProjectResult, pass: PlannedPass): void {
  store.writer.applySemanticPass({
    fileIds: pass.fileIds,
    edges: pass.edges,
    types: TS_SEMANTIC_TYPES,
    keyUpdates: pass.keyUpdates,
    extractor: TS_SEMANTIC_EXTRACTOR,
    ...(pass.regions.size > 0 ? { regions: pass.regions } : {}),
    moduleLookups: pass.moduleLookups,
  });
  for (const fe of pass.fileErrorIds) store.writer.degradeSemantic([fe.id], TS_SEMANTIC_TYPES, 'failed', fe.reason);
}

function planProject(store: Store, label: string, project: ProjectResult, replaced: ReadonlyMap<string, readonly number[]>): PlannedPass {
  const keys = store.semantic.keyResolver(label);
  const fileId = (path: string) => keys.fileId(path);
  const nodeId = (path: string, key: string) => keys.nodeId(path, key);
  const failedFiles = new Set(project.fileErrors.map((f) => f.path));
  const scope = project.files.filter((p) => !failedFiles.has(p));
  const edges: SemanticEdgeWrite[] = [];
  for (const e of project.edges) {
    const f = fileId(e.sourcePath);
    const sourceId = nodeId(e.sourcePath, e.sourceKey);
    if (f === null || sourceId === null || failedFiles.has(e.sourcePath)) continue;
    edges.push({
      sourceId,
      targetId: nodeId(e.targetPath, e.targetKey),
      targetKey: e.targetKey,
      targetName: e.targetKey.slice(e.targetKey.indexOf('#') + 1),
      type: e.type,
      confidence: e.confidence,
      fileId: f,
      line: e.line,
      ...(e.module !== undefined ? { targetModule: e.module } : {}),
    });
  }
  const keyUpdates = new Map<number, string>();
  for (const k of project.keyRefinements) {
    const id = nodeId(k.path, k.oldKey);
    if (id !== null) keyUpdates.set(id, k.newKey);
  }
  unrefinedKeys(store, project.keyScope ?? project.files, fileId, keyUpdates);
  const scopeIds = scope.map(fileId).filter((id): id is number => id !== null);
  const fileErrorIds = project.fileErrors
    .map((fe) => ({ id: fileId(fe.path), reason: fe.reason }))
    .filter((x): x is { id: number; reason: string } => x.id !== null);
  const regions = new Map<number, readonly number[]>();
  for (const path of scope) {
    const ids = replaced.get(path);
    const id = fileId(path);
    if (ids !== undefined && id !== null) regions.set(id, ids);
  }
  const moduleLookups = new Map<number, readonly string[]>();
  for (const l of project.moduleLookups ?? []) {
    const id = fileId(l.path);
    if (id !== null && !failedFiles.has(l.path)) moduleLookups.set(id, l.modules);
  }
  return { fileIds: scopeIds, edges, keyUpdates, fileErrorIds, regions, moduleLookups };
}

/**
 * Adds to `keyUpdates` the file-scoped key of every package-keyed node of `scope` that no
 * refinement of the pass names: its package entry point is gone or no longer exports it, and a
 * clean index would key it by its file (`ts:pkg:zustand#create` → `ts:file:src/react.ts#create`).
 */
function unrefinedKeys(store: Store, scope: readonly string[], fileId: (path: string) => number | null, keyUpdates: Map<number, string>): void {
  const pathOf = new Map<number, string>();
  for (const path of scope) {
    const id = fileId(path);
    if (id !== null) pathOf.set(id, path);
  }
  for (const n of store.semantic.packageKeyedNodes([...pathOf.keys()])) {
    if (keyUpdates.has(n.id)) continue;
    const at = n.key.indexOf(':pkg:');
    const hash = n.key.indexOf('#', at);
    if (hash < 0) continue;
    keyUpdates.set(n.id, `${n.key.slice(0, at)}:file:${pathOf.get(n.fileId)!}#${n.key.slice(hash + 1)}`);
  }
}
