/**
 * @ca/parse-ts — the TypeScript/JavaScript language adapter (tree-sitter syntactic pass).
 */
export { createTsAdapter, classifyTsPath, TS_EXTENSIONS, TS_EXTRACTOR_VERSION } from './adapter.js';
export type { TsAdapterOptions } from './adapter.js';
