/**
 * Output of the TS semantic pass and the wire protocol between the supervisor (parent) and
 * the worker (child process). One file so both sides always agree.
 */
import type { Confidence, EdgeType, ErrorCode, FileIndex, NodeKind } from '@ca/schema';

/** Bumped on any incompatible change of the messages below. */
export const SEMANTIC_PROTOCOL_VERSION = 4;
/**
 * Environment variable carrying a new worker's first `prepare` request (JSON): the worker starts
 * it right after its handshake, without waiting for the supervisor's event loop.
 */
export const INITIAL_PREPARE_ENV = 'CA_TSWORKER_INITIAL_PREPARE';
/** Environment variable naming the file where the worker keeps its program-merge decisions between processes (`loadMergeCache`). */
export const PROGRAM_CACHE_ENV = 'CA_TSWORKER_PROGRAM_CACHE';
/** Bumped whenever the semantic output changes, so stored exact edges are recomputed. */
export const TS_SEMANTIC_EXTRACTOR_VERSION = 'ts-semantic-7';
/** What this worker can do; the supervisor refuses a worker lacking one it needs. */
export const SEMANTIC_CAPABILITIES: readonly string[] = [
  'calls',
  'references',
  'implements',
  'inherits',
  'overrides',
  'accepts',
  'imports',
  'key_refinements',
  'reference_counts',
  'regions',
  'prepare',
];

/** One exact (or probable) edge between two symbols, keyed by the syntactic adapter's keys. */
export interface SemanticEdge {
  readonly sourcePath: string;
  /** Syntactic (file-scoped) key of the innermost declaration containing the use site. */
  readonly sourceKey: string;
  readonly targetPath: string;
  /** Syntactic (file-scoped) key of the target declaration. */
  readonly targetKey: string;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  /** 1-based line of the use site. */
  readonly line: number;
  /**
   * `imports` edges: the repository module the declaration's specifier resolved to (its path
   * without the extension, as syntactic edges name modules), whatever the specifier's form
   * (relative, package name, `paths` alias). Its importers are found by it when that module
   * disappears or changes its exports.
   */
  readonly module?: string;
}

export interface ReferenceCount {
  readonly path: string;
  readonly symbolKey: string;
  /** Number of call and reference sites found in the analysed files. */
  readonly count: number;
}

/** A file-scoped key that becomes package-scoped because the symbol is part of a package's API. */
export interface KeyRefinement {
  readonly path: string;
  readonly oldKey: string;
  readonly newKey: string;
}

export interface FileError {
  readonly path: string;
  readonly reason: string;
}

/** The semantic result of one tsconfig project (or of the inferred project when `tsconfig` is null). */
export interface ProjectResult {
  /** Repo-relative path of the tsconfig/jsconfig, null for the inferred project. */
  readonly tsconfig: string | null;
  /** `name` of the nearest package.json at or above the project, inside the repository. */
  readonly packageName: string | null;
  readonly status: 'ok' | 'failed';
  /** Why the project failed; starts with the error code (`project_load_failed: …`). */
  readonly reason?: string;
  /** Repo-relative paths whose edges this project reports (each file is owned by one project). */
  readonly files: readonly string[];
  readonly edges: readonly SemanticEdge[];
  readonly referenceCounts: readonly ReferenceCount[];
  readonly keyRefinements: readonly KeyRefinement[];
  /**
   * Repo-relative files whose package-scoped keys `keyRefinements` states completely (the
   * project's owned files, analysed or not): a node of one of them keyed to a package that no
   * refinement names any more goes back to its file-scoped key. Absent: the analysed files.
   */
  readonly keyScope?: readonly string[];
  readonly fileErrors: readonly FileError[];
  /**
   * Per analysed file, the repository modules its unresolved non-relative specifiers would be
   * looked up at (`paths`, `baseUrl`): the file binds again when one of them appears. Files
   * without any are left out.
   */
  readonly moduleLookups?: readonly ModuleLookups[];
}

/** The module paths (no extension) one file's unresolved imports would be found at. */
export interface ModuleLookups {
  readonly path: string;
  readonly modules: readonly string[];
}

export interface SemanticResult {
  readonly projects: readonly ProjectResult[];
}

/**
 * One node of a syntactic skeleton: `[localId, parentLocalId, kind, name, symbolKey, startByte,
 * endByte]` of an `ExtractedNode` (what the pass needs to name sources and targets).
 */
export type SkeletonNode = readonly [string, string | null, NodeKind, string, string, number, number];

/**
 * The syntactic nodes of one file as the caller's own syntactic pass extracted them (protocol
 * 3). The worker uses them instead of parsing the file with tree-sitter again when
 * `contentHash` (`gitBlobId` of the text) equals the hash of the text the program read.
 */
export interface SyntacticSkeleton {
  /** Repo-relative POSIX path. */
  readonly path: string;
  readonly contentHash: string;
  readonly nodes: readonly SkeletonNode[];
}

/** The skeleton of a FileIndex the caller extracted from a text whose `gitBlobId` is `contentHash`. */
export function skeletonOf(path: string, contentHash: string, index: FileIndex): SyntacticSkeleton {
  return {
    path,
    contentHash,
    nodes: index.nodes.map((n) => [n.localId, n.parentLocalId, n.kind, n.name, n.symbolKey, n.span.startByte, n.span.endByte] as const),
  };
}

/**
 * The declarations of one requested file whose uses the pass resolves (protocol 4): by the
 * syntactic key of the innermost node around each use site (the file node's key for imports and
 * top-level statements). The other declarations of the file keep the exact edges the caller already
 * holds for them (their text did not change: the invalidation matrix, docs/architecture.md): the
 * checker is never asked about their uses. Key refinements and file errors are reported for the
 * whole file.
 */
export interface AnalysisRegion {
  /** Repo-relative POSIX path; one of the request's `files`. */
  readonly path: string;
  /** Syntactic keys of the sources to analyse (may be empty: refinements only). */
  readonly keys: readonly string[];
}

/** Request options of one analysis. */
export interface AnalyzeRequestOptions {
  /** Limit edges to these repo-relative paths (programs still load whole projects for resolution). */
  readonly files?: readonly string[];
  /** Syntactic nodes the caller already has (see `SyntacticSkeleton`); any file may be missing. */
  readonly syntactic?: readonly SyntacticSkeleton[];
  /** Files analysed for some of their declarations only (see `AnalysisRegion`); any other requested file is analysed whole. */
  readonly regions?: readonly AnalysisRegion[];
  /** Wall-clock budget of the whole request; unfinished projects come back `failed` with `timeout`. */
  readonly deadlineMs?: number;
  /**
   * Source files larger than this (and `*.min.js` bundles) are not root files of any program:
   * the syntactic index skipped them (`indexing.max_file_bytes`), and a 5 MB bundle parsed by the
   * compiler costs far more memory than it gives. Default 1 MiB. An import still loads one.
   */
  readonly maxFileBytes?: number;
}

// ---- wire messages (Node IPC channel of child_process.fork; JSON serialisation) ----

/** Parent → child. */
export type ParentMessage =
  | {
      readonly type: 'analyze';
      readonly id: number;
      readonly repoRoot: string;
      readonly files: readonly string[] | null;
      /** Project ids (tsconfig path or `<inferred>`) to run; null = all discovered. */
      readonly only: readonly string[] | null;
      /** Absolute epoch ms. */
      readonly deadlineAt: number;
      /**
       * Worker processes of the request (protocol 2). When > 1 and `only` is null, this worker
       * splits the program groups into shards, runs shard 0 and returns the shards in its plan.
       */
      readonly workers?: number;
      /** Protocol 3: syntactic skeletons of some files (see `AnalyzeRequestOptions.syntactic`). */
      readonly syntactic?: readonly SyntacticSkeleton[];
      /** See `AnalyzeRequestOptions.maxFileBytes` (absent: the worker's default). */
      readonly maxFileBytes?: number;
      /** Protocol 4: see `AnalyzeRequestOptions.regions`. */
      readonly regions?: readonly AnalysisRegion[];
    }
  /**
   * Protocol 4: build (parse and bind) the programs that own `files`, ahead of a partial
   * `analyze` of them: the worker keeps the parsed and bound files warm, so the request that
   * follows pays for its checker work only. Best effort, no answer; an `analyze` waits behind it.
   */
  | { readonly type: 'prepare'; readonly repoRoot: string; readonly files: readonly string[]; readonly maxFileBytes?: number }
  | { readonly type: 'cancel'; readonly id: number }
  | { readonly type: 'crash'; readonly afterFiles: number } // test hook: exit abruptly mid-pass
  | { readonly type: 'shutdown' };

/** Child → parent. */
export type ChildMessage =
  | {
      readonly type: 'hello';
      readonly protocolVersion: number;
      readonly capabilities: readonly string[];
      readonly extractorVersion: string;
      readonly pid: number;
    }
  /** The projects the request will report, in order. */
  | {
      readonly type: 'plan';
      readonly id: number;
      readonly projects: readonly string[];
      /** Parallel request: project ids per worker (index 0 = this worker), each group whole. */
      readonly shards?: readonly (readonly string[])[];
    }
  /** Progress: sent before each project starts (the supervisor knows what was in flight on a crash). */
  | { readonly type: 'project_start'; readonly id: number; readonly project: string }
  | { readonly type: 'project'; readonly id: number; readonly project: string; readonly result: ProjectResult }
  | { readonly type: 'done'; readonly id: number }
  | { readonly type: 'error'; readonly id: number | null; readonly code: ErrorCode; readonly message: string; readonly project?: string }
  /** Informational events (plugin stripped, memory high). */
  | { readonly type: 'event'; readonly code: ErrorCode; readonly message: string; readonly path?: string };

/** Project id used on the wire for the inferred (tsconfig-less) project. */
export const INFERRED_PROJECT_ID = '<inferred>';
