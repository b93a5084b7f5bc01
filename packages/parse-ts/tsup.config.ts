import { defineConfig } from 'tsup';

export default defineConfig({
  // semanticWorker is the child-process entry of the semantic pass (forked by the supervisor).
  entry: { index: 'src/index.ts', semanticWorker: 'src/semantic/worker.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
