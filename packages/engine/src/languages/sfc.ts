import { sfcLanguage } from '@ca/parse-ts';
import type { EngineLanguage } from './registry.js';

/** Vue and Svelte components as the engine indexes them: their script blocks, no semantic pass. */
export const sfc: EngineLanguage = sfcLanguage;
