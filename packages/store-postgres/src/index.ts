export { connect, isPostgresUrl, redactUrl, toStoreError } from './connection.js';
export type { PgClient } from './connection.js';
export { PG_MIGRATIONS, PG_SCHEMA_VERSION, migrate, serverSchemaVersion, assertVectorExtension } from './migrations.js';
export type { PgMigration } from './migrations.js';
export { publish, PUBLISH_BATCH_FILES } from './publish.js';
export type { PublishReport, PublishOptions } from './publish.js';
export { listRepositories, snapshotDump, tableCounts } from './read.js';
export type { RepositoryLabel, SnapshotDump } from './read.js';
export { openGraphReads } from './graphReads.js';
export {
  openSnapshot, withSnapshot, nodesByRefs, nameSearch, bm25Search, bm25Phrases, fts5Idf, teamTermPlan, vectorSearch, vectorPlan, compileTeamFilter, nodeRef, splitRef, EXACT_SCAN_MAX_VECTORS,
} from './search.js';
export type { TeamSnapshot, TeamNode, TeamHit, TeamFilterSql, VectorPlan, VectorSearchOptions, Bm25SearchOptions, Beside, SnapshotBody } from './search.js';
export { ftsTokens, nodeText } from './textVectors.js';
export { chooseLabel, resolveSnapshot } from './labels.js';
export { TeamStorePool } from './pool.js';
export type { TeamStorePoolOptions } from './pool.js';
export { callerFileCounts, dependentRefs, neighbourPairs, refsPassing } from './rankReads.js';
export { teamLocationsByChunkHash, teamNodeFacts } from './factReads.js';
export type { TeamCodeLocation, TeamNodeFacts } from './factReads.js';
