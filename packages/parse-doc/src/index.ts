/**
 * @ca/parse-doc — non-code files as searchable chunks: Markdown sections by heading, JSON and
 * YAML keys by position, each with its exact span. No grammar, no dependency beyond @ca/schema.
 */
export { createDocAdapter, docLanguage, docLanguageOf, parseDocFile, DOC_EXTENSIONS, DOC_EXTRACTOR_VERSION } from './adapter.js';
export { isAppSettings, MAX_CONFIG_DEPTH } from './json.js';
export { isSecretKey, isSecretPath, redactJson, redactYaml, REDACTED } from './secrets.js';
export { markdownHeadings } from './markdown.js';
export { MAX_CHUNK_CHARS, MAX_NODES_PER_FILE } from './model.js';
