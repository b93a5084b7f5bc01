import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'embed', include: ['test/**/*.test.ts'] } });
