export { Engine, EMBED_SLICE, embedSliceOf, WORKING_LABEL, searchJson, toSymbolView, normalizeRepoPath } from './engine.js';
export type {
  EngineOptions,
  Freshness,
  IndexReport,
  IndexProgress,
  IndexOptions,
  IndexPhase,
  BlobReport,
  StatusReport,
  HealthCheck,
  SymbolView,
} from './engine.js';
export type { LockHolder } from './indexLock.js';
export type { GcReport, LabelInfo } from '@ca/store';
export { Refresher, DEFAULT_BURST, validateLabelName, validateRevision, LABEL_NAME_RULES } from '@ca/invalidation';
export type { RefreshRequest, RefreshOutcome, RefresherOptions, RefresherState } from '@ca/invalidation';
export { NAVIGATIONS, renderGraph } from './navigation.js';
export type { Navigation, NavigationOptions, NavigationResult, NavigationEdge, NavigationNode, Gap, ImpactFile } from './navigation.js';
export { importModel } from './modelImport.js';
export type { EmbedReport } from './embedding.js';
export type { ContextChange, DiscoveredFile, SkippedFile, DiscoveryResult } from '@ca/invalidation';
export { discoverFiles, BUILTIN_EXCLUDED_DIRS } from '@ca/invalidation';
export { looksMinified } from './fileProcessing.js';
export { isSecretPath, secretFilter, SECRET_FILE_PATTERNS } from '@ca/invalidation';
export { gitBlobId } from '@ca/schema';
export type { SearchOptions, SearchResponse, SearchResult, Intent } from '@ca/retrieve';
export type { NodeRecord, LoadNote } from '@ca/store';
