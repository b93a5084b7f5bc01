import { defineConfig, type Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * `import ts from 'typescript'` in the bundle becomes `createRequire(import.meta.url)('typescript')`:
 * importing the 9 MB CommonJS file from ESM makes Node scan it for named exports first
 * (cjs-module-lexer), which took the semantic worker from fork to handshake 560–620 ms instead
 * of 290–350 ms. The sources only ever use the default import.
 */
const typescriptViaRequire: EsbuildPlugin = {
  name: 'typescript-via-require',
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: 'typescript', namespace: 'typescript-via-require' }));
    build.onLoad({ filter: /.*/, namespace: 'typescript-via-require' }, () => ({
      contents: `import { createRequire } from 'node:module';\nexport default createRequire(import.meta.url)('typescript');\n`,
      loader: 'js',
    }));
  },
};

export default defineConfig({
  // semanticWorker is the child-process entry of the semantic pass (forked by the supervisor).
  entry: { index: 'src/index.ts', semanticWorker: 'src/semantic/worker.ts' },
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // Not external, so that the plugin above sees the import (it never bundles the package).
  noExternal: ['typescript'],
  esbuildPlugins: [typescriptViaRequire],
});
