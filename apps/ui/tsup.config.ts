import { defineConfig } from 'tsup';

export default defineConfig({
  // The server side only: the browser code (src/web) is bundled by build-web.mjs.
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
