import { defineConfig } from 'tsup';

export default defineConfig({
  // index: the library surface (runMcpCli for `ca mcp`, createServer for tests); main: the ca-mcp bin.
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
