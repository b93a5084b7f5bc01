/**
 * @ca/parse-cs — the C# language adapter: a tree-sitter syntactic pass (nodes, spans,
 * chunks, approximate edges), the conditional-compilation preprocessor and readers for
 * project and solution files.
 */
export { createCsAdapter, CS_EXTRACTOR_VERSION, RAZOR_EXTRACTOR_VERSION } from './adapter.js';
export type { CsAdapterOptions } from './adapter.js';
export { csharpLanguage, csDeclaredTypes, createCsSymbolLookup, createRazorProjectLookup } from './language.js';
export { isRazorPath, razorNamespace, razorPageRoute, componentName } from './razor/names.js';
export type { RazorProject } from './razor/names.js';
export { RAZOR_SYNTACTIC_REASON } from './razor/extract.js';
export {
  applyPreprocessor,
  frameworkSymbols,
  DEFAULT_PREPROCESSOR_SYMBOLS,
  CONFIGURATION_SYMBOLS,
} from './preprocessor.js';
export type { PreprocessResult } from './preprocessor.js';
export { readCsproj, readSolution, preprocessorSymbolsFor } from './project.js';
export type { CsProject } from './project.js';
export { csTestProject, testProjectFact } from './testProject.js';
export { isGeneratedCs } from './generated.js';
export { RoutePrefixFacts } from './endpoints/prefixes.js';
export { docCommentToText } from './docComment.js';
export {
  RoslynHost,
  readProcessMemory,
  isRoslynAvailable,
  locateRoslynHost,
  findDotnet,
  HOST_DLL_NAME,
  HOST_DLL_ENV,
  PROTOCOL_VERSION,
  WIRE_ERROR_CODES,
  DEFAULT_BATCH_DEADLINE_MS,
  DEFAULT_LOAD_DEADLINE_MS,
  DEFAULT_QUEUE_SIZE,
} from './roslyn/index.js';
export type {
  RoslynHostOptions,
  RequestOptions,
  RoslynHostStats,
  RoslynAvailability,
  RoslynHostLocation,
  LocateOptions,
  WireErrorCode,
  RequestFrame,
  ResponseFrame,
  ErrorPayload,
  InitializeParams,
  InitializeResult,
  Capabilities,
  PingResult,
  LoadProjectParams,
  LoadProjectResult,
  ProjectInfo,
  RazorStatus,
  LoadWarning,
  DiagnosticInfo,
  AnalyzeParams,
  AnalyzeResult,
  DocumentResult,
  SymbolRecord as RoslynSymbolRecord,
  EdgeRecord as RoslynEdgeRecord,
  SemanticEdgeType,
  UnloadProjectParams,
  UnloadProjectResult,
  PrepareRazorParams,
  PrepareRazorResult,
  MethodMap,
  MethodName,
} from './roslyn/index.js';
