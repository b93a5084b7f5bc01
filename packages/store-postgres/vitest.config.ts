import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'store-postgres', include: ['test/**/*.test.ts'] } });
