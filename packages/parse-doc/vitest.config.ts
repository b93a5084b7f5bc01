import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'parse-doc', include: ['test/**/*.test.ts'] } });
