/**
 * @ca/parse-ts — the TypeScript/JavaScript language adapter (tree-sitter syntactic pass).
 */
export { createTsAdapter, classifyTsPath, TS_EXTENSIONS, TS_EXTRACTOR_VERSION } from './adapter.js';
export type { TsAdapterOptions } from './adapter.js';
export { createTsSemanticService, defaultWorkerPath } from './semantic/service.js';
export type {
  TsSemanticService,
  TsSemanticServiceOptions,
  SemanticServiceEvent,
  SemanticWorkerInfo,
  AnalyzeRepositoryOptions,
} from './semantic/service.js';
export {
  SEMANTIC_PROTOCOL_VERSION,
  SEMANTIC_CAPABILITIES,
  TS_SEMANTIC_EXTRACTOR_VERSION,
  skeletonOf,
} from './semantic/types.js';
export type {
  SemanticResult,
  ProjectResult,
  SemanticEdge,
  ReferenceCount,
  KeyRefinement,
  FileError,
  AnalyzeRequestOptions,
  AnalysisRegion,
  SyntacticSkeleton,
  SkeletonNode,
} from './semantic/types.js';
export { typescriptLanguage, sfcLanguage, tsModuleResolution, tsDeclaredTypes } from './language.js';
export { createTsParser } from './adapter.js';
export type { TsParser, Grammar } from './adapter.js';
export { createSfcAdapter, scriptBlocks, blankOutside, SFC_EXTENSIONS } from './sfc.js';
