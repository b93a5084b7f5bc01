export { discoverFiles, discoverTree, discoverPaths, isSemanticContextFile, extensionOf, mayHoldIndexedFiles, BUILTIN_EXCLUDED_DIRS, DISCOVERY_READ_MAX_BYTES } from './discovery.js';
export type { DiscoveredFile, SkippedFile, DiscoveryResult } from './discovery.js';
export { DiskTree, GitTree, readRegularFile } from './tree.js';
export type { TreeAccess, TreeEntry, EntryKind } from './tree.js';
export { GitRepository, BlobReader, validateRevision } from './git.js';
export type { GitLocation, GitTreeEntry, HeadState } from './git.js';
export { WorktreeSource, CommitSource } from './source.js';
export type { FileSource } from './source.js';
export { scanContext, diffContext, contextScopes, parseJsonc, CONTEXT_METADATA_KEY, CONTEXT_READ_MAX_BYTES } from './context.js';
export type { ContextChange, ContextFacts, ContextScan, ContextState, ContextTree, Recorded, ScopeFile, Tracked } from './context.js';
export { detectChanges, plan, planNodes, renameCandidates, movedKey, movesInPlace, unrefinedKey, skippedHash, MERGEABLE_KINDS } from './plan.js';
export {
  fingerprint,
  normalizedTokens,
  kgramHashes,
  winnow,
  jaccard,
  fnv1a,
  pairBySimilarity,
  pathAffinity,
  FINGERPRINT_K,
  FINGERPRINT_W,
  SIMILARITY_THRESHOLD,
  IDENTIFIER_TOKEN,
} from './similarity.js';
export type { Fingerprint, SimilarPair } from './similarity.js';
export type { NodeAction, NodePlan, PartialTarget, PreviousNode } from '@ca/store';
export type {
  ChangeSet,
  ExtractorOf,
  Plan,
  PlannedMove,
  PlannedParse,
  ParseReason,
  SemanticScope,
  SourceVersion,
  StoredFile,
  StoredState,
} from './plan.js';
export { semanticRegion, exportSurfaceChanged, carriedLines, changedNames, changedFileNames, chunkLines, normalizedChunk, identifiersOf } from './regions.js';
export { Refresher, DEFAULT_BURST } from './refresher.js';
export type { RefreshRequest, RefreshOutcome, RefresherOptions, RefresherState, RefresherTimers } from './refresher.js';
export { TreeWatcher, treeChanges } from './watcher.js';
export type { TreeWatcherOptions, WatchDirectory } from './watcher.js';
export { HeadWatcher } from './headWatcher.js';
export type { HeadWatcherOptions } from './headWatcher.js';
export { validateLabelName, WORKING_LABEL, worktreeLabel, LABEL_NAME_RULES } from './labels.js';
export { isSecretPath, secretFilter, SECRET_FILE_PATTERNS } from './secrets.js';
