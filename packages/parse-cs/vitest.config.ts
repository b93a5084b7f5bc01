import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'parse-cs', include: ['test/**/*.test.ts'] } });
