#!/usr/bin/env node
// Bundles the viewer's front end (src/web) into dist/public: one script, one style sheet and the
// page shell, all served by the viewer itself (nothing is fetched from elsewhere at run time).
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist', 'public');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'web', 'main.ts')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outfile: join(out, 'app.js'),
  logLevel: 'warning',
});
copyFileSync(join(here, 'src', 'web', 'app.css'), join(out, 'app.css'));
copyFileSync(join(here, 'src', 'web', 'index.html'), join(out, 'index.html'));
