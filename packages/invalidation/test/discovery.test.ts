import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '@ca/schema';
import { discoverFiles, discoverPaths, DiskTree } from '../src/index.js';
import { tempDir } from './helpers.js';

const EXT = new Set(['.ts', '.tsx', '.js', '.jsx', '.mts', '.cts', '.mjs', '.cjs']);

function write(root: string, rel: string, text = 'export const x = 1;\n'): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

describe('discoverFiles', () => {
  it('honours nested .gitignore, built-in excludes, config patterns and records skips', () => {
    const root = tempDir();
    const outside = tempDir();
    write(outside, 'secret.ts');
    write(root, 'src/a.ts');
    write(root, 'src/b.tsx');
    write(root, 'src/gen/out.ts');
    write(root, 'src/.gitignore', 'gen/\n*.local.ts\n');
    write(root, 'src/c.local.ts');
    write(root, '.gitignore', 'ignored.ts\n');
    write(root, 'ignored.ts');
    write(root, 'node_modules/pkg/index.js');
    write(root, 'dist/bundle.js');
    write(root, 'vendor/lib.ts');
    write(root, 'vendor/keepme.ts');
    write(root, 'build/kept/important.ts');
    write(root, 'scripts/tool.py', 'print(1)\n');
    write(root, 'README.md', '# readme\n');
    write(root, 'lib/app.min.js', 'var a=1;');
    write(root, 'big.ts', 'x'.repeat(2000));
    symlinkSync(join(outside, 'secret.ts'), join(root, 'src/leak.ts'));
    symlinkSync(join(root, 'loop1.ts'), join(root, 'loop2.ts'));
    symlinkSync(join(root, 'loop2.ts'), join(root, 'loop1.ts'));
    symlinkSync(outside, join(root, 'outside-dir'));
    symlinkSync(join(root, 'src'), join(root, 'src-link'));
    const config = {
      ...defaultConfig().indexing,
      exclude: ['vendor/'],
      keep: ['vendor/keepme.ts', 'build/kept/**'],
      max_file_bytes: 1000,
    };
    const result = discoverFiles(root, config, EXT);
    expect(result.files.map((f) => f.path)).toEqual(['build/kept/important.ts', 'lib/app.min.js', 'src/a.ts', 'src/b.tsx', 'vendor/keepme.ts'].filter((p) => p !== 'lib/app.min.js'));
    expect(result.skipped.map((s) => [s.path, s.status, s.reason]).sort()).toEqual(
      [
        ['big.ts', 'skipped', 'file is 2000 bytes, over indexing.max_file_bytes (1000)'],
        ['lib/app.min.js', 'skipped', 'minified bundle (.min.js)'],
        ['loop1.ts', 'skipped', 'symbolic link loop'],
        ['loop2.ts', 'skipped', 'symbolic link loop'],
        ['outside-dir', 'skipped', 'symbolic link to a path outside the repository'],
        ['scripts/tool.py', 'no_grammar', 'no grammar for .py files'],
        ['src-link', 'skipped', 'symbolic link (not followed; target src is indexed at its own path)'],
        ['src/leak.ts', 'skipped', 'symbolic link to a path outside the repository'],
      ].sort(),
    );
  });

  it('applies include patterns and assigns the nearest package as project', () => {
    const root = tempDir();
    write(root, 'package.json', JSON.stringify({ name: 'root-app' }));
    write(root, 'src/a.ts');
    write(root, 'packages/ui/package.json', JSON.stringify({ name: '@acme/ui' }));
    write(root, 'packages/ui/src/button.tsx');
    write(root, 'other/x.ts');
    const config = { ...defaultConfig().indexing, include: ['src/', 'packages/'] };
    const result = discoverFiles(root, config, EXT);
    expect(result.files.map((f) => [f.path, f.project])).toEqual([
      ['packages/ui/src/button.tsx', '@acme/ui'],
      ['src/a.ts', 'root-app'],
    ]);
  });
});

describe('discoverPaths', () => {
  it('lists a file once when a directory above it is among the paths too (a watcher reports a new directory and its files)', () => {
    const root = tempDir();
    write(root, 'src/flags/flags.ts');
    write(root, 'src/flags/deep/more.ts');
    write(root, 'src/flags-extra.ts');
    write(root, 'src/other.ts');
    const result = discoverPaths(new DiskTree(root), defaultConfig().indexing, EXT, ['src/flags/deep/more.ts', 'src/flags/flags.ts', 'src/flags', 'src/flags-extra.ts', 'src/gone.ts']);
    expect(result.files.map((f) => f.path)).toEqual(['src/flags-extra.ts', 'src/flags/deep/more.ts', 'src/flags/flags.ts']);
    expect(result.missing).toEqual(['src/gone.ts']);
  });
});
