import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { checkLayers } from '../check-layers.mjs';

type Violation = { file: string; specifier: string; reason: string };

describe('layer rules', () => {
  it('the workspace has no forbidden or deep imports', () => {
    const violations = checkLayers(resolve(__dirname, '../..')) as Violation[];
    expect(violations).toEqual([]);
  });

  it('reports upward, deep and package-escaping imports', () => {
    const root = mkdtempSync(join(tmpdir(), 'ca-layers-'));
    const store = join(root, 'packages', 'store');
    mkdirSync(join(store, 'src'), { recursive: true });
    writeFileSync(join(store, 'package.json'), JSON.stringify({ name: '@ca/store' }));
    writeFileSync(
      join(store, 'src', 'index.ts'),
      [
        `import { Engine } from '@ca/engine';`,
        `import { symbolKey } from '@ca/schema/src/symbolKey.js';`,
        `import { x } from '../../retrieve/src/index.js';`,
        `import type { Config } from '@ca/schema';`,
      ].join('\n'),
    );
    // The supervisor is a bottom layer: it may use @ca/schema and nothing above.
    const supervisor = join(root, 'packages', 'supervisor');
    mkdirSync(join(supervisor, 'src'), { recursive: true });
    writeFileSync(join(supervisor, 'package.json'), JSON.stringify({ name: '@ca/supervisor' }));
    writeFileSync(join(supervisor, 'src', 'index.ts'), [`import { CaError } from '@ca/schema';`, `import { Store } from '@ca/store';`].join('\n'));
    const violations = checkLayers(root) as Violation[];
    expect(violations).toEqual([
      { file: 'packages/store/src/index.ts', specifier: '@ca/engine', reason: '@ca/store may not import @ca/engine (layer rule)' },
      { file: 'packages/store/src/index.ts', specifier: '@ca/schema/src/symbolKey.js', reason: 'deep import: use the package entry point' },
      { file: 'packages/store/src/index.ts', specifier: '../../retrieve/src/index.js', reason: 'relative import leaves the package' },
      // Members are listed in directory order: store before supervisor.
      { file: 'packages/supervisor/src/index.ts', specifier: '@ca/store', reason: '@ca/supervisor may not import @ca/store (layer rule)' },
    ]);
  });
});
