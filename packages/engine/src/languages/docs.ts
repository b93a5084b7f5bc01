import { docLanguage } from '@ca/parse-doc';
import type { EngineLanguage } from './registry.js';

/** Markdown, JSON and YAML as the engine indexes them: sections and keys, no semantic pass. */
export const docs: EngineLanguage = docLanguage;

/** The documentation/configuration language ids (search leaves their files out unless asked). */
export const DOC_LANGUAGES: readonly string[] = docLanguage.languages;

/** Whether a language id is one of the documentation/configuration languages (`ca status` counts them apart). */
export function isDocLanguage(language: string): boolean {
  return docLanguage.languages.includes(language);
}
