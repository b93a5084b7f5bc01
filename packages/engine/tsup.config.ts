import { defineConfig } from 'tsup';

export default defineConfig({
  // The parse worker is its own entry: worker threads load it by file name.
  entry: ['src/index.ts', 'src/parseWorker.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
