import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // runtime/*.mjs ships as is (package "files"): the worker thread loads it directly, and
  // dist/ imports the same file through the same relative path as src/ does.
  external: [/\/runtime\/modelRunner\.mjs$/],
});
