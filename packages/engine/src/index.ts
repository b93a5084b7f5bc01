export { Engine, EMBED_SLICE, embedSliceOf, WORKING_LABEL, searchJson, toSymbolView, normalizeRepoPath } from './engine.js';
export type {
  EngineOptions,
  IndexReport,
  IndexProgress,
  IndexOptions,
  IndexPhase,
  StatusReport,
  HealthCheck,
  SymbolView,
} from './engine.js';
export { NAVIGATIONS, renderGraph } from './navigation.js';
export type { Navigation, NavigationOptions, NavigationResult, NavigationEdge, NavigationNode, Gap, ImpactFile } from './navigation.js';
export { importModel } from './modelImport.js';
export type { EmbedReport } from './embedding.js';
export type { ContextChange } from './semanticContext.js';
export { discoverFiles, BUILTIN_EXCLUDED_DIRS } from './discovery.js';
export type { DiscoveredFile, SkippedFile, DiscoveryResult } from './discovery.js';
export { looksMinified } from './fileProcessing.js';
export { isSecretPath, secretFilter, SECRET_FILE_PATTERNS } from './secrets.js';
export { gitBlobId } from '@ca/schema';
export type { SearchOptions, SearchResponse, SearchResult, Intent } from '@ca/retrieve';
export type { NodeRecord, LoadNote } from '@ca/store';
