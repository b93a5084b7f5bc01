import { defineConfig } from 'tsup';

export default defineConfig({
  // index: the library surface (runEvalCli for apps/cli); main: `node apps/eval/dist/main.js run …`.
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
