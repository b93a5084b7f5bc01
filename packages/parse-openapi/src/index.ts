export {
  OPENAPI_EXTRACTOR_VERSION,
  OPENAPI_LANGUAGE,
  OPENAPI_FILE_NAMES,
  MAX_DOCUMENT_CHARS,
  MAX_OPERATIONS,
  openApiLanguageOf,
  parseOpenApiFile,
  createOpenApiAdapter,
  openApiLanguage,
} from './adapter.js';
export { readOpenApi } from './document.js';
export type { OpenApiDocument, OperationEntry, DocumentProblem } from './document.js';
export { normalizeOperationPath } from './path.js';
