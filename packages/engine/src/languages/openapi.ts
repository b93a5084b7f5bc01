import { openApiLanguage } from '@ca/parse-openapi';
import type { EngineLanguage } from './registry.js';

/** OpenAPI/Swagger documents (decision 049): read by name, no semantic pass; linked by the HTTP linker. */
export const openapi: EngineLanguage = openApiLanguage;
