import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { checkLanguageLiterals, checkLayers } from '../check-layers.mjs';

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

describe('language rule: the store and the engine name no language', () => {
  it('the workspace spells no language id outside engine/src/languages/', () => {
    expect(checkLanguageLiterals(resolve(__dirname, '../..'))).toEqual([]);
  });

  it('reports language id literals compared or listed in store and engine sources, not in comments or languages/', () => {
    const root = mkdtempSync(join(tmpdir(), 'ca-languages-'));
    const write = (path: string, lines: string[]) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), lines.join('\n'));
    };
    write('packages/store/src/declaredTypes.ts', [
      `// C# ('cs') parameters are parsed differently`,
      `/* the 'ts' rules */`,
      `const parse = language === 'cs' ? a : b;`,
    ]);
    write('packages/engine/src/indexer.ts', [`store.countFiles(["ts", "js"]);`, `const ext = '.ts'; // a file extension is not a language id`, 'const tsx = `tsx`;']);
    // The one place a language is named: its registration.
    write('packages/engine/src/languages/typescript.ts', [`const LANGUAGES = ['ts', 'js'];`]);
    // Other packages (an adapter) name their own language.
    write('packages/parse-cs/src/adapter.ts', [`languageOf: () => 'cs'`]);
    const reason = (line: number) => `language id literal on line ${line}: a language's rules belong to its LanguageSupport (engine/src/languages/ for its semantic pass)`;
    expect(checkLanguageLiterals(root)).toEqual([
      { file: 'packages/store/src/declaredTypes.ts', specifier: `'cs'`, reason: reason(3) },
      { file: 'packages/engine/src/indexer.ts', specifier: `"ts"`, reason: reason(1) },
      { file: 'packages/engine/src/indexer.ts', specifier: `"js"`, reason: reason(1) },
      { file: 'packages/engine/src/indexer.ts', specifier: '`tsx`', reason: reason(3) },
    ]);
  });
});
