import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'parse-openapi', include: ['test/**/*.test.ts'] } });
