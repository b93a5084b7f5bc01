export {
  LANGUAGES,
  NODE_KINDS,
  DOC_KINDS,
  DOC_LANGUAGES,
  isDocLanguage,
  CALLABLE_KINDS,
  TYPE_KINDS,
  EDGE_TYPES,
  CONFIDENCES,
  PARSE_STATUSES,
  MODIFIERS,
  confidenceAtLeast,
  extractorOf,
} from './model.js';
export type {
  Language,
  BuiltinLanguage,
  NodeKind,
  EdgeType,
  Confidence,
  ParseStatus,
  Span,
  Modifier,
  ExtractedNode,
  ExtractedEdge,
  EdgeTarget,
  Diagnostic,
  FileIndex,
  SourceFile,
  LanguageAdapter,
} from './model.js';
export { symbolKey, parseSymbolKey, unresolvedKey, disambiguate } from './symbolKey.js';
export { endpointName, endpointKey, formatEndpointSignature, parseEndpointSignature } from './endpoints.js';
export type { EndpointParam, EndpointParamSource, EndpointSignature } from './endpoints.js';
export { CONTRACT_KEY_PREFIX, OPERATION_LINK_KEY_PREFIX, contractKey, isContractKey, operationLinkKey, formatOperationSignature, parseOperationSignature } from './contracts.js';
export type { OperationSignature } from './contracts.js';
export { CLIENT_CALL_KEY_PREFIX, clientCallName, clientCallKey, parseClientCallKey, clientPath } from './httpCalls.js';
export type { ClientCall } from './httpCalls.js';
export { PREFIX_FACT_KEY_PREFIX, PREFIX_FACT_NAMES, prefixFactKey, parsePrefixFactKey, ENDPOINT_INHERITS_KEY_PREFIX, endpointInheritsKey, parseEndpointInheritsKey } from './httpPrefixes.js';
export type { PrefixFact, PrefixRef, SuperArgument, ClientCallPrefix, EndpointInherits } from './httpPrefixes.js';
export { CONFIG_READ_KEY_PREFIX, configReadKey, parseConfigReadKey } from './configReads.js';
export type { ConfigRead, ConfigReadKind } from './configReads.js';
export type { KeyScope, SymbolKeyInput } from './symbolKey.js';
export { splitIdentifier, splitIdentifierText, splitText, pathTokens, ftsTextOf } from './identifiers.js';
export type { FtsText } from './identifiers.js';
export { CaError, ERROR_CODES, isCaError, toCaError } from './errors.js';
export type { ErrorCode, CaErrorContext } from './errors.js';
export {
  configSchema,
  defaultConfig,
  loadConfig,
  parseConfig,
  envOverrides,
  CONFIG_DIR,
  CONFIG_FILE,
  CONFIG_READ_MAX_BYTES,
} from './config.js';
export type { Config, ConfigSection } from './config.js';
export { gitBlobId } from './hash.js';
export { globProblem, gitignorePatternProblem, globToRegExp, globToLike, globLiteral, hasGlobSyntax } from './glob.js';
export type { GlobProblem, GlobMode } from './glob.js';
export {
  parseFilter,
  formatFilter,
  andFilters,
  filterTerms,
  filterFromOptions,
  filterError,
  projectDisplayName,
  FILTER_FIELDS,
  FILTER_FLAGS,
} from './filter.js';
export type { FilterNode, FilterTerm, FilterField, FilterFlag } from './filter.js';
export { isTestPath, TEST_PATH_PATTERN } from './testPath.js';
export { safeOpenFile, safeReadFile, safeReadText } from './safeRead.js';
export type { SafeReadOptions, SafeReadRefusal, SafeOpened, SafeRefused, SafeOpenResult, SafeReadResult, SafeTextResult } from './safeRead.js';
export { detectEncoding, decodeBytes, encodeText, decodeSource, decodeFile, decodeSpan, sourceByteMap } from './encoding.js';
export type { TextEncodingName, DecodedSource } from './encoding.js';
export { declaredTypes, extensionOf, splitTopLevel } from './language.js';
export type {
  AdapterContext,
  DeclaredTypeSyntax,
  LanguageSupport,
  LanguageSyntax,
  ModuleResolution,
  ProjectFile,
  ProjectTestFact,
  ProjectReader,
  WorkerEntry,
} from './language.js';
export { seededRandom } from './random.js';
