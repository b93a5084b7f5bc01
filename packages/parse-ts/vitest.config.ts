import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'parse-ts', include: ['test/**/*.test.ts'] } });
