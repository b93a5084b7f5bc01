import { defineProject } from 'vitest/config';

// Each test creates a database on a real server and runs publishers (some in child processes):
// on a loaded machine that takes seconds, not the default five.
export default defineProject({ test: { name: 'store-postgres', include: ['test/**/*.test.ts'], testTimeout: 60_000 } });
