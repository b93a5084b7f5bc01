/** Public surface of the roslyn-host integration (re-exported by the package's src/index.ts). */
export { RoslynHost, readProcessMemory } from './supervisor.js';
export type { RoslynHostOptions, RequestOptions, RoslynHostStats } from './supervisor.js';
export { isRoslynAvailable, locateRoslynHost, findDotnet, HOST_DLL_NAME, HOST_DLL_ENV } from './locate.js';
export type { RoslynAvailability, RoslynHostLocation, LocateOptions } from './locate.js';
export { PROTOCOL_VERSION, WIRE_ERROR_CODES, DEFAULT_BATCH_DEADLINE_MS, DEFAULT_LOAD_DEADLINE_MS, DEFAULT_QUEUE_SIZE } from './protocol.js';
export type {
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
  SymbolRecord,
  EdgeRecord,
  SemanticEdgeType,
  UnloadProjectParams,
  UnloadProjectResult,
  PrepareRazorParams,
  PrepareRazorResult,
  MethodMap,
  MethodName,
} from './protocol.js';
