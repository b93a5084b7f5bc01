export { Store } from './store.js';
export { openDatabase, migrate, createKysely } from './database.js';
export type { OpenOptions, SqliteDatabase } from './database.js';
export { cachedStatement, changeStamp } from './statements.js';
export { MIGRATIONS, LATEST_SCHEMA_VERSION, FTS_TOKENIZE } from './migrations.js';
export type { Migration } from './migrations.js';
export { IndexWriter } from './writer.js';
export type { FileWrite, WriteStats, SemanticEdgeWrite, SemanticPassWrite } from './writer.js';
export { IndexReader } from './reader.js';
export type { NodeRecord, NodeFilter, RankedHit, FileStatusRecord, LabelEntry, EdgeRecord } from './reader.js';
export { ImportResolver } from './resolver.js';
export { buildFtsQuery } from './ftsQuery.js';
export type { FtsQuery } from './ftsQuery.js';
export type { Database, FilesTable, NodesTable, EdgesTable, LabelsTable, LabelFilesTable } from './tables.js';
export { GraphReader } from './graph.js';
export type { Direction, TraversalOptions, GraphEdge, Traversal, SemanticGapFile, SemanticGapRow } from './graph.js';
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
} from './vectors.js';
export { recordLoadNote, loadNotes, LOAD_NOTE_KINDS } from './loadNotes.js';
export type { LoadNote, LoadNoteKind } from './loadNotes.js';
export { MIN_SQLITE_VERSION, assertSqliteVersion, compareVersions } from './sqliteVersion.js';
