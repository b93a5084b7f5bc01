import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverRepo } from '../src/semantic/projects.js';
import { compilerReadFile } from '../src/semantic/safeSystem.js';
import { removeTempRepos, tempRepo } from './semanticHelpers.js';

afterAll(() => removeTempRepos());

describe('what the TS pass takes as program roots', () => {
  it('leaves out sources over maxFileBytes and *.min.js bundles (the syntactic index skipped them)', () => {
    const root = tempRepo({
      'src/a.ts': 'export const a = 1;\n',
      'public/vendor.min.js': 'var v=1;\n',
      // 2,000,000 bytes: over the 1 MiB default, under an 8 MiB setting.
      'public/bundle.js': `${'x;'.repeat(999_999)}\n`.slice(0, 2_000_000),
      'cfg/tsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true }, include: ['**/*', '../public/**/*'] }),
      'cfg/c.ts': 'export const c = 1;\n',
    });
    const roots = (maxFileBytes?: number) =>
      discoverRepo(root, maxFileBytes === undefined ? {} : { maxFileBytes })
        .projects.flatMap((p) => p.rootNames.map((f) => f.slice(root.length + 1)))
        .sort();
    // cfg/tsconfig.json includes its own folder and ../public; src/a.ts is in no config (the
    // inferred project). vendor.min.js is never a root; bundle.js only under a cap above its size.
    expect(roots()).toEqual(['cfg/c.ts', 'src/a.ts']);
    expect(roots(8 * 1024 * 1024)).toEqual(['cfg/c.ts', 'public/bundle.js', 'src/a.ts']);
  });
});

describe('compilerReadFile', () => {
  it('reads repository files safely, refuses links, FIFOs and files elsewhere, and reads TypeScript lib files', { timeout: 30_000 }, () => {
    const root = tempRepo({ 'src/a.ts': 'export const a = 1;\n', 'node_modules/pkg/index.d.ts': 'export declare const p: number;\n' });
    const outside = tempRepo({ 'base.json': '{"compilerOptions":{}}', 'secret.ts': 'export const s = 1;\n' });
    symlinkSync('/dev/zero', join(root, 'src/zero.ts'));
    symlinkSync(join(outside, 'secret.ts'), join(root, 'src/linked.ts'));
    mkdirSync(join(root, 'fifo'));
    const fifo = join(root, 'fifo/package.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    writeFileSync(join(root, 'src/bom.ts'), '\uFEFFexport const b = 1;\n');
    const read = compilerReadFile(root);
    expect(read(join(root, 'src/a.ts'))).toBe('export const a = 1;\n');
    expect(read(join(root, 'src/bom.ts'))).toBe('export const b = 1;\n');
    expect(read(join(root, 'node_modules/pkg/index.d.ts'))).toBe('export declare const p: number;\n');
    expect(read(join(root, 'src/zero.ts'))).toBeUndefined();
    expect(read(join(root, 'src/linked.ts'))).toBeUndefined();
    expect(read(fifo)).toBeUndefined();
    // A tsconfig `extends` above the repository is not read at all.
    expect(read(join(outside, 'base.json'))).toBeUndefined();
    const lib = read(require.resolve('typescript/lib/lib.es5.d.ts'));
    expect(lib?.includes('interface Array<T>')).toBe(true);
  });
});
