export { Store } from './store.js';
export type { StoreOpenOptions } from './store.js';
export type { CanonicalDump } from './dump.js';
export { openDatabase, migrate } from './database.js';
export type { OpenOptions, SqliteDatabase } from './database.js';
export { MIGRATIONS, LATEST_SCHEMA_VERSION, FTS_TOKENIZE } from './migrations.js';
export type { Migration } from './migrations.js';
export { IndexWriter, chunkHashOf, CONTENT_MAX_BYTES, MERGEABLE_KINDS, isMergeableFragment } from './writer.js';
export type {
  FileWrite,
  WriteStats,
  CarryOptions,
  SemanticEdgeWrite,
  SemanticPassWrite,
  NodePlan,
  NodeAction,
  NodePlanner,
  NodePlannerInput,
  PreviousNode,
  PartialTarget,
} from './writer.js';
export { IndexReader, isRestrictive, BROAD_FILTER_FRACTION, BM25_POSTING_BUDGET, planTerms } from './reader.js';
export type { TermPlan, TermCounts } from './reader.js';
export type { NodeRecord, NodeFilter, RankedHit, FileStatusRecord, LabelEntry, EdgeRecord } from './reader.js';
export { compileFilter, NodeIdSet } from './filterSql.js';
export type { CompiledFilter } from './filterSql.js';
export { declaredTypes, typeMatches } from './declaredTypes.js';
export { FIND_MAX_LIMIT } from './queries.js';
export type { FindCursor, FindPage, NodeFacts, CodeLocation, IndexedFile } from './queries.js';
export { ImportResolver } from './resolver.js';
export { buildFtsQuery, ftsQueryParts } from './ftsQuery.js';
export type { FtsQuery, FtsQueryParts } from './ftsQuery.js';
export { GraphReader } from './graph.js';
export { SqliteGraphReads } from './readContract.js';
export type { GraphReads, GraphReadsOrigin, EdgeQuery } from './readContract.js';
export { walkSteps, walkAsync, allowedConfidences, byLocation } from './walk.js';
export type { WalkEdgeRow } from './walk.js';
export { EXPORT_BATCH } from './exportNodes.js';
export type { ExportNode } from './exportNodes.js';
export type { Direction, TraversalOptions, GraphEdge, GraphNode, Traversal, SemanticGapFile, SemanticGapRow } from './graph.js';
export { VectorStore, VEC0_MAX_K, SNAPSHOT_MIN_NEW_ROWS, vectorToBlob, blobToVector } from './vectors.js';
export type {
  EmbeddingModel,
  VectorCache,
  WindowAssignment,
  NodeNeedingEmbedding,
  KnnOptions,
  VectorStoreOptions,
  CoarseMode,
  KnnHit,
  NodeCheck,
} from './vectors.js';
export { LoadNotes, LOAD_NOTE_KINDS } from './loadNotes.js';
export type { LoadNote, LoadNoteKind } from './loadNotes.js';
export { MIN_SQLITE_VERSION, assertSqliteVersion, compareVersions } from './sqliteVersion.js';
export { SemanticStore, SemanticKeyResolver } from './semanticStore.js';
export type { AnalysableFile, SemanticSummaryRow, StoredSkeleton, StoredSkeletonNode } from './semanticStore.js';
export { NodeLocator } from './nodeLocator.js';
export type { SpanNode } from './nodeLocator.js';
export { LabelStore, stagingName } from './labels.js';
export { testProjectsKey } from './testProjects.js';
export type { LabelInfo, LabelKind, Crawl } from './labels.js';
export { Maintenance, JOURNAL_DAYS, JOURNAL_MAX_ROWS, EVENTS_MAX_ROWS } from './maintenance.js';
export type { GcReport, GcOptions } from './maintenance.js';
export { repairFtsTotals, recordedFtsTotals, actualFtsTotals } from './ftsTotals.js';
export type { FtsTotals } from './ftsTotals.js';
export { LabelPlanState } from './planState.js';
export type { StoredFileRecord } from './planState.js';
export { ExploreReader } from './explore.js';
export type { ExtraSpan, EdgeCounts, FileSummary, FileImport } from './explore.js';
export { SnapshotSource } from './snapshotSource.js';
export type {
  SnapshotFile,
  SnapshotNode,
  SnapshotSpan,
  SnapshotEdge,
  SnapshotReexport,
  SnapshotNodeVector,
  SnapshotEmbedding,
  SnapshotContent,
} from './snapshotSource.js';
export { HttpLinkStore, HTTP_LINK_EXTRACTOR } from './httpLinks.js';
export type { ClientCallRow, EndpointRow, HttpLink, OperationEdgeRow, PrefixFactRow } from './httpLinks.js';
export { ConfigLinkStore, CONFIG_LINK_EXTRACTOR } from './configLinks.js';
export type { ConfigReadRow, ConfigKeyRow, ConfigLink } from './configLinks.js';
export { RazorLinkStore } from './razorLinks.js';
export type { RazorUseRow, ComponentRow } from './razorLinks.js';
export { ARTIFACT_FORMAT, ARTIFACT_MAGIC, readArtifactHeader } from './artifact.js';
export type { ArtifactHeader, ArtifactLabel, ArtifactOptions, ArtifactOrigin } from './artifact.js';
