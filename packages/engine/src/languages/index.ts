/**
 * The languages this build ships, in registration order (the order their passes run in). A new
 * language is a `LanguageSupport` from its adapter package, listed here (or passed to
 * `Engine.open(root, { languages })`) — nothing else in the engine or the store changes.
 */
import { csharp } from './csharp.js';
import { docs } from './docs.js';
import { openapi } from './openapi.js';
import type { EngineLanguage } from './registry.js';
import { sfc } from './sfc.js';
import { typescript } from './typescript.js';

export const BUILTIN_LANGUAGES: readonly EngineLanguage[] = [typescript, csharp, sfc, openapi, docs];
