import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // zod ships as ~95 ES modules: bundled here, a command that reads the configuration resolves and
  // loads one file instead of all of them (start-up, issue 28).
  noExternal: ['zod'],
});
