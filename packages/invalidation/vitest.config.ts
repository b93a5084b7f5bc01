import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'invalidation', include: ['test/**/*.test.ts'] } });
