import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'retrieve', include: ['test/**/*.test.ts'] } });
