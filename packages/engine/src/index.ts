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
  ExportOptions,
  DocsSummary,
  HealthCheck,
  SymbolView,
} from './engine.js';
export type { LockHolder } from './indexLock.js';
export { answerPaths, STALE_FILES_SHOWN } from './freshness.js';
export type { GcReport, LabelInfo, ArtifactHeader, ArtifactLabel, ArtifactOrigin } from '@ca/store';
export { readArtifactHeader } from '@ca/store';
export { Refresher, DEFAULT_BURST, TreeWatcher, treeChanges, HeadWatcher, mayHoldIndexedFiles, validateLabelName, validateRevision, LABEL_NAME_RULES } from '@ca/invalidation';
export type { RefreshRequest, RefreshOutcome, RefresherOptions, RefresherState, TreeWatcherOptions, HeadWatcherOptions, WatchDirectory } from '@ca/invalidation';
export { NAVIGATIONS } from './navigation.js';
export { GRAPH_FORMATS, GRAPH_JSON_SCHEMA, GraphWriter, parseGraphFormat, renderGraphText } from './graphFormat.js';
export type { GraphFormat, GraphNodeOut, GraphEdgeOut, GraphSummary } from './graphFormat.js';
export { exportGraph, renderNavigationGraph, GRAPH_DEFAULT_MAX_NODES } from './graphExport.js';
export type { GraphExportOptions, GraphExportReport } from './graphExport.js';
export type { Navigation, NavigationOptions, NavigationResult, NavigationEdge, NavigationNode, Gap, ImpactFile } from './navigation.js';
export { importModel } from './modelImport.js';
export type { EmbedReport } from './embedding.js';
export type { ContextChange, DiscoveredFile, SkippedFile, DiscoveryResult } from '@ca/invalidation';
export { discoverFiles, BUILTIN_EXCLUDED_DIRS } from '@ca/invalidation';
export { looksMinified } from './fileProcessing.js';
export { isSecretPath, secretFilter, SECRET_FILE_PATTERNS } from '@ca/invalidation';
export { gitBlobId } from '@ca/schema';
export type { SearchOptions, SearchResponse, SearchResult, ResultLocation, Intent, RankCandidate } from '@ca/retrieve';
export { FEATURE_NAMES, RANKER_FORMAT, analyzeQuery } from '@ca/retrieve';
export type { NodeRecord, LoadNote } from '@ca/store';
export { readRepoFile, textWindow, listRepoDirectory, repoDirectoryTree, repoRelativePath, READ_FILE_DEFAULT_MAX_BYTES, READ_FILE_HARD_MAX_BYTES } from './files.js';
export type { ReadRepoFileOptions, RepoFileText, DirectoryEntry, TreeNode, ListOptions, TreeOptions, SandboxHooks } from './files.js';
export { symbolDetails, sourceSpans, fileOutline, lookupSymbols, discoverDirectories, mapSymbols, indexedFiles } from './explore.js';
export type { SymbolDetails, SourceSpan, SourceSpansOptions, OutlineNode, RankedDirectory, DiscoverOptions, FileMap, MapOptions } from './explore.js';
export type { FileSummary } from '@ca/store';
export { estimateTokens } from '@ca/retrieve';
export { findSymbols, FIND_DEFAULT_LIMIT } from './find.js';
export { listRoutes } from './routes.js';
export type { RouteHandler, RouteRecord, RoutesReport } from './routes.js';
export type { FindOptions, FindResponse, FindResult } from './find.js';
export {
  IndexedTexts,
  viewFile,
  viewChunks,
  resultsWithContext,
  navigationWithContext,
  validateViewOptions,
  capLine,
  capLines,
  MAX_CONTEXT_LINES,
  MAX_LINE_LENGTH_LIMIT,
} from './views.js';
export type { ViewOptions, ViewSelection, FileView, ViewChunk, ResultContext, SiteContext } from './views.js';
export { Workspace, searchWorkspace, loadWorkspace, findWorkspace, resolveRepo, uniqueNames, workspaceFileOf, WORKSPACE_FILE } from './workspace.js';
export type { WorkspaceRepo, RepoStatus, WorkspaceSearchResponse } from './workspace.js';
export { parseFilter, formatFilter } from '@ca/schema';
export type { FilterNode } from '@ca/schema';
export { budgetAnswer, budgetNotice, keptCounts, answerTokens, cutLongestString, offsetContinuation } from './budget.js';
export type { BudgetPage, BudgetSpec, BudgetedAnswer } from './budget.js';
export { budgetNavigation, navigationUnits, navigationPageValue } from './navigationPage.js';
export type { NavigationPage, NavigationUnit, WideNavigation } from './navigationPage.js';
export { BUILTIN_LANGUAGES } from './languages/index.js';
export { LanguageRegistry } from './languages/registry.js';
export type { EngineLanguage, SemanticPass, SemanticPassInput, RegisteredPass, StaleFile } from './languages/registry.js';
export type { LanguageSupport, AdapterContext, ModuleResolution, DeclaredTypeSyntax, ProjectFile, ProjectReader, WorkerEntry } from '@ca/schema';
export { linkHttpCalls, unmatchedHttp, computeHttpLinks, computeOperationLinks, linkCall, matchRoute, parseEndpointRoute } from './httpLinks.js';
export type { HttpLinkReport, UnmatchedHttp, EndpointRoute, RouteSegment } from './httpLinks.js';
export { linkConfigReads, computeConfigLinks, resolveConfigPath, unresolvedConfigReads } from './configLinks.js';
export type { ConfigLinkReport, UnresolvedConfigRead } from './configLinks.js';
export { computeAffected, diffFiles, pairSymbols, classify, parseRange, resolveSide, AFFECTED_DEFAULT_DEPTH } from './affected.js';
export type { AffectedReport, AffectedOptions, AffectedSide, AffectedFiles, AffectedRisk, AffectedHop, ChangedSymbol, ImpactedSymbol, SymbolChange, SideResolver } from './affected.js';
export { symbolsOf, symbolOf, outlineOf, sourceOf, navigateOf, fileOutlineOf } from './storeReads.js';
export { navigate, navigateReads } from './navigation.js';
export type { NavigationRequest, GraphLimits } from './navigation.js';
export type { GraphReads, GraphReadsOrigin } from '@ca/store';
export { SqliteGraphReads } from '@ca/store';
export { linkRazorUses, razorUseTarget } from './razorLinks.js';
export { searchTeamStore } from './teamSearch.js';
export type { TeamSearchOptions, TeamSearchResponse } from './teamSearch.js';
