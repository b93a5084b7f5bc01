/**
 * Wire contract of roslyn-host, mirroring roslyn-host/src/Protocol/Contract.cs (change both together,
 * bump PROTOCOL_VERSION on incompatible changes). Newline-delimited JSON over stdio, camelCase keys,
 * null properties omitted.
 */

export const PROTOCOL_VERSION = 1;

/** Default deadlines, as announced by the host's handshake. */
export const DEFAULT_BATCH_DEADLINE_MS = 30_000;
export const DEFAULT_LOAD_DEADLINE_MS = 120_000;
export const DEFAULT_QUEUE_SIZE = 64;

/** Error codes a host response may carry. */
export const WIRE_ERROR_CODES = [
  'semantic_unavailable',
  'project_load_failed',
  'plugin_blocked',
  'timeout',
  'oom_restart',
  'backpressure',
  'cancelled',
  'invalid_request',
  'method_not_found',
  'internal',
] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

// ---------------------------------------------------------------- frames

export interface RequestFrame {
  readonly id: number;
  readonly method: string;
  readonly params?: unknown;
  /** Overrides the method's default deadline; the host answers `timeout` past it. */
  readonly deadlineMs?: number;
}

export interface ErrorPayload {
  readonly code: WireErrorCode;
  readonly message: string;
  readonly data?: unknown;
}

/** Exactly one of result / error is present. `id` is null only for an unreadable request frame. */
export interface ResponseFrame {
  readonly id: number | null;
  readonly result?: unknown;
  readonly error?: ErrorPayload;
}

// ---------------------------------------------------------------- initialize (handshake)

export interface InitializeParams {
  readonly protocolVersion: number;
  readonly clientName?: string;
}

export interface Capabilities {
  readonly safeMode: boolean;
  readonly unsafeMode: boolean;
  readonly unsafeModeUnavailableReason?: string;
  readonly methods: readonly string[];
  readonly edgeTypes: readonly string[];
  readonly queueSize: number;
  readonly defaultBatchDeadlineMs: number;
  readonly defaultLoadDeadlineMs: number;
}

export interface InitializeResult {
  readonly protocolVersion: number;
  readonly extractorVersion: string;
  readonly roslynVersion: string;
  readonly runtimeVersion: string;
  readonly processId: number;
  readonly dotnetRoot?: string;
  readonly capabilities: Capabilities;
}

// ---------------------------------------------------------------- ping / cancel / shutdown

export interface PingResult {
  readonly uptimeMs: number;
  readonly workingSetBytes: number;
  readonly peakWorkingSetBytes: number;
  readonly queued: number;
  readonly loadedProjects: number;
}

export interface CancelParams {
  readonly id: number;
}
export interface CancelResult {
  readonly found: boolean;
}
export interface ShutdownResult {
  readonly ok: boolean;
}
export interface SleepParams {
  readonly ms: number;
}

// ---------------------------------------------------------------- prepareRazor

/**
 * The client will load `projectPath`, a project with Razor files (paths as for loadProject): the
 * host starts the SDK's Razor generator's first-time work in the background (loading it, a warm-up
 * run, the tag-helper discovery over the project's framework reference assemblies) and answers at
 * once, so that work overlaps what the client does before that load (decision 052).
 */
export interface PrepareRazorParams {
  readonly projectPath: string;
  readonly repoRoot: string;
}
export interface PrepareRazorResult {
  /** False when it was started before, or a generator run already did that work. No result ever depends on it. */
  readonly started: boolean;
}

// ---------------------------------------------------------------- loadProject

export interface LoadProjectParams {
  /** Absolute, or relative to repoRoot. */
  readonly projectPath: string;
  /** Absolute repository root; every path in results is relative to it (POSIX). */
  readonly repoRoot: string;
  /** Default true. false asks for MSBuildWorkspace loading, which this host answers with semantic_unavailable. */
  readonly safeMode?: boolean;
  /** Default `Release` (defines RELEASE; `Debug` defines DEBUG). */
  readonly configuration?: string;
  /** Replaces the computed preprocessor symbols (DefineConstants + TFM symbols + configuration + TRACE). */
  readonly preprocessorSymbols?: readonly string[];
  /** Default true: ProjectReferences are loaded too and become compilation references. */
  readonly loadReferences?: boolean;
  /**
   * Largest source file read (indexing.max_file_bytes; default 1 MiB). Every file the host reads
   * must be a regular file inside repoRoot (no link, FIFO or device) under its cap, or it is
   * refused with a `file_refused` warning.
   */
  readonly maxFileBytes?: number;
}

export interface LoadWarning {
  /** plugin_blocked | project_load_failed | missing_reference | reference_fallback | file_refused */
  readonly code: string;
  readonly message: string;
  readonly path?: string;
}

export interface DiagnosticInfo {
  readonly severity: string;
  readonly code: string;
  readonly message: string;
  readonly path?: string;
  readonly line?: number;
}

export interface ProjectInfo {
  /** Repo-relative path of the .csproj. */
  readonly projectId: string;
  readonly name: string;
  readonly assemblyName: string;
  readonly targetFramework: string;
  readonly sdk: string;
  /** Which reference-assembly pack(s) were used, e.g. `Microsoft.NETCore.App.Ref/10.0.12/net10.0`. */
  readonly referenceAssemblies: string;
  readonly metadataReferenceCount: number;
  readonly packageReferenceCount: number;
  /** Repo-relative POSIX paths, sorted. */
  readonly documents: readonly string[];
  readonly projectReferences: readonly string[];
  readonly preprocessorSymbols: readonly string[];
  /** Parse errors (semantic diagnostics are requested per document through analyze). */
  readonly errorCount: number;
  readonly diagnostics: readonly DiagnosticInfo[];
  readonly warnings: readonly LoadWarning[];
  /** The SDK's Razor generator over the project's `.razor`/`.cshtml` files; absent without any. */
  readonly razor?: RazorStatus;
}

/**
 * The Razor generator's outcome for one project. `generatorRan`: its C# is part of the compilation
 * and `documents` (repo-relative Razor paths) are analysable like `.cs` files, their edges mapped
 * back to the Razor lines; otherwise `reason` says why (not found in the .NET SDK, not loaded,
 * failed). `errors`: the generator's own error diagnostics (a Razor file it cannot parse), each
 * with the Razor file's repo-relative path and line.
 */
export interface RazorStatus {
  readonly generatorRan: boolean;
  readonly reason?: string;
  readonly documents: readonly string[];
  readonly errors: readonly DiagnosticInfo[];
}

export interface LoadProjectResult {
  /** The requested project first, then the projects it references. */
  readonly projects: readonly ProjectInfo[];
  readonly warnings: readonly LoadWarning[];
}

// ---------------------------------------------------------------- analyze

export interface AnalyzeParams {
  /** Restricts paths lookup / selects the project to analyse whole. */
  readonly projectId?: string;
  /** Repo-relative or absolute paths; omitted = every document of projectId (or of all loaded projects). */
  readonly paths?: readonly string[];
  /** Default true (first call analyses every loaded document once to count use sites). */
  readonly includeReferenceCounts?: boolean;
  /** Default true: edges to framework / package symbols (no targetPath) are included. */
  readonly includeExternalTargets?: boolean;
  /** Default false: compiler errors and warnings per document. */
  readonly includeDiagnostics?: boolean;
}

export type SemanticEdgeType = 'calls' | 'references' | 'inherits' | 'implements' | 'overrides' | 'extends';

export interface SymbolRecord {
  /** Documentation comment ID, e.g. ``M:Acme.Core.Repository`1.Find``1(``0)``. */
  readonly key: string;
  /** Fully qualified metadata name (``Acme.Core.Repository`1``, `Outer+Inner`, ``Acme.Core.Repository`1.Find``). */
  readonly metadataName: string;
  /** Name as written: constructors carry the type name, accessors their property's name. */
  readonly name: string;
  /** An @ca/schema NodeKind (namespace, class, record, method, constructor, getter, setter, …). */
  readonly kind: string;
  /** Documentation comment ID of the containing type. */
  readonly containingType?: string;
  readonly namespace?: string;
  /** Minimally qualified parameter types (with ref/out/in/params/this prefixes) for methods and indexers. */
  readonly parameterTypes?: readonly string[];
  readonly arity: number;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly identifierLine: number;
  readonly accessibility: string;
  readonly modifiers: readonly string[];
  readonly implicit: boolean;
  /** Use sites (calls + references) across all loaded projects; absent when not requested. */
  readonly referenceCount?: number;
}

export interface EdgeRecord {
  readonly type: SemanticEdgeType;
  readonly confidence: 'exact';
  readonly sourceKey: string;
  readonly targetKey: string;
  readonly targetName: string;
  readonly targetKind: string;
  /** Repo-relative path of the target's declaration when it is in source. */
  readonly targetPath?: string;
  readonly targetLine?: number;
  /** 1-based line of the use site (of the base-type entry / member name for declaration edges). */
  readonly line: number;
  /** references only. */
  readonly access?: 'read' | 'write' | 'readwrite';
}

export interface DocumentResult {
  readonly path: string;
  readonly projectId: string;
  readonly generated: boolean;
  readonly lineCount: number;
  readonly symbols: readonly SymbolRecord[];
  readonly edges: readonly EdgeRecord[];
  readonly diagnostics?: readonly DiagnosticInfo[];
}

export interface AnalyzeResult {
  readonly documents: readonly DocumentResult[];
  /** Requested paths that belong to no loaded project. */
  readonly missing: readonly string[];
  readonly stats: { readonly documents: number; readonly lines: number; readonly elapsedMs: number };
}

// ---------------------------------------------------------------- unloadProject

export interface UnloadProjectParams {
  /** Omitted = unload everything. */
  readonly projectId?: string;
}
export interface UnloadProjectResult {
  readonly unloaded: number;
}

/** Method name → params / result, for the typed `request()`. */
export interface MethodMap {
  initialize: { params: InitializeParams; result: InitializeResult };
  ping: { params: undefined; result: PingResult };
  cancel: { params: CancelParams; result: CancelResult };
  shutdown: { params: undefined; result: ShutdownResult };
  loadProject: { params: LoadProjectParams; result: LoadProjectResult };
  analyze: { params: AnalyzeParams; result: AnalyzeResult };
  unloadProject: { params: UnloadProjectParams; result: UnloadProjectResult };
  prepareRazor: { params: PrepareRazorParams; result: PrepareRazorResult };
  'debug/sleep': { params: SleepParams; result: ShutdownResult };
}
export type MethodName = keyof MethodMap;
