/**
 * @ca/parse-cs — the C# language adapter: a tree-sitter syntactic pass (nodes, spans,
 * chunks, approximate edges), the conditional-compilation preprocessor and readers for
 * project and solution files.
 */
export { createCsAdapter, CS_EXTRACTOR_VERSION } from './adapter.js';
export type { CsAdapterOptions } from './adapter.js';
export {
  applyPreprocessor,
  frameworkSymbols,
  DEFAULT_PREPROCESSOR_SYMBOLS,
  CONFIGURATION_SYMBOLS,
} from './preprocessor.js';
export type { PreprocessResult } from './preprocessor.js';
export { readCsproj, readSolution, preprocessorSymbolsFor } from './project.js';
export type { CsProject } from './project.js';
export { isGeneratedCs } from './generated.js';
export { docCommentToText } from './docComment.js';
