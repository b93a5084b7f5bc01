import { CaError, DOC_LANGUAGES, extensionOf, type FileIndex, type Language, type LanguageAdapter, type LanguageSupport, type SourceFile } from '@ca/schema';
import { scanJson } from './json.js';
import { scanMarkdown } from './markdown.js';
import { toFileIndex, type ScanResult } from './model.js';
import { TextMap } from './text.js';
import { scanYaml } from './yaml.js';

/** Bumped whenever the chunks change, so stored files are split again. */
export const DOC_EXTRACTOR_VERSION = 'doc-2';

/** The language id of each handled extension. */
const BY_EXTENSION: ReadonlyMap<string, Language> = new Map<string, Language>([
  ['.md', 'markdown'],
  ['.markdown', 'markdown'],
  ['.json', 'json'],
  ['.yaml', 'yaml'],
  ['.yml', 'yaml'],
]);

/** Extensions of the non-code files split into chunks, lower case with dot. */
export const DOC_EXTENSIONS: readonly string[] = [...BY_EXTENSION.keys()];

/** The language (`markdown`, `json`, `yaml`) of a path, or null. */
export function docLanguageOf(path: string): Language | null {
  return BY_EXTENSION.get(extensionOf(path)) ?? null;
}

/** Splits one file: Markdown by heading, JSON and YAML by key (see the scanners). Pure, synchronous. */
export function parseDocFile(file: SourceFile): FileIndex {
  const language = docLanguageOf(file.path);
  if (language === null) throw new CaError('invalid_path', `not a Markdown, JSON or YAML file: ${file.path}`, { context: { path: file.path } });
  const map = new TextMap(file.text);
  let scan: ScanResult;
  if (language === 'markdown') scan = scanMarkdown(map);
  else if (language === 'json') scan = scanJson(map, file.path);
  else scan = scanYaml(map);
  return toFileIndex(file.path, language, map, scan);
}

/** The adapter of Markdown, JSON and YAML files (no grammar to load). */
export function createDocAdapter(): LanguageAdapter {
  return {
    id: 'doc',
    extensions: DOC_EXTENSIONS,
    extractorVersion: DOC_EXTRACTOR_VERSION,
    languageOf: docLanguageOf,
    parse: parseDocFile,
  };
}

/**
 * Documentation and configuration (`markdown`, `json`, `yaml`): sections and keys as `doc` and
 * `config` nodes, searchable when asked (`kind:doc`, `kind:config`, include_docs). No semantic
 * pass, no module resolution.
 */
export const docLanguage: LanguageSupport = {
  id: 'docs',
  languages: DOC_LANGUAGES,
  extensions: DOC_EXTENSIONS,
  languageOf: docLanguageOf,
  createAdapter: () => Promise.resolve(createDocAdapter()),
  worker: { module: '@ca/parse-doc', export: 'docLanguage' },
};
