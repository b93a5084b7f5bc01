import { docLanguage } from '@ca/parse-doc';
import type { EngineLanguage } from './registry.js';

/**
 * Markdown, JSON and YAML as the engine indexes them: sections and keys, no semantic pass. Their
 * language ids are @ca/schema's `DOC_LANGUAGES` (the store keeps their nodes in the documentation
 * partition).
 */
export const docs: EngineLanguage = docLanguage;
