import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { listRepoDirectory, readRepoFile, repoDirectoryTree, repoRelativePath } from '../src/index.js';

/** The code and message of what `f` throws (a CaError), or 'no error'. */
function refusal(f: () => unknown): [string, string] | 'no error' {
  try {
    f();
    return 'no error';
  } catch (e) {
    if (!(e instanceof CaError)) throw e;
    return [e.code, e.message];
  }
}

describe('the repository sandbox of read_file, list_directory and get_directory_tree', () => {
  // <base>/repo is the repository; <base>/repo-evil a sibling sharing its prefix; <base>/outside.txt outside both.
  let base: string;
  let repo: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'ca-sandbox-'));
    repo = join(base, 'repo');
    mkdirSync(join(repo, 'src/deep'), { recursive: true });
    mkdirSync(join(repo, 'node_modules/pkg'), { recursive: true });
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(base, 'repo-evil'), { recursive: true });
    writeFileSync(join(base, 'repo-evil/secret.txt'), 'evil\n');
    writeFileSync(join(base, 'outside.txt'), 'outside\n');
    writeFileSync(join(repo, '.gitignore'), 'build-output/\n*.log\n');
    writeFileSync(join(repo, 'src/a.ts'), 'line 1\nline 2\nline 3\n');
    writeFileSync(join(repo, 'src/deep/b.ts'), 'export const b = 1;\n');
    writeFileSync(join(repo, 'src/%41.ts'), 'a literal percent name\n');
    writeFileSync(join(repo, 'debug.log'), 'ignored\n');
    writeFileSync(join(repo, 'node_modules/pkg/index.js'), 'module.exports = 1;\n');
    writeFileSync(join(repo, '.git/config'), '[core]\n');
    writeFileSync(join(repo, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    writeFileSync(join(repo, 'big.txt'), 'x'.repeat(1024 * 1024 + 1));
    symlinkSync(join(base, 'outside.txt'), join(repo, 'src/out-link.ts'));
    symlinkSync('a.ts', join(repo, 'src/in-link.ts'));
    symlinkSync(join(base, 'repo-evil'), join(repo, 'evil-dir'));
    symlinkSync('../.git/config', join(repo, 'src/git-link.ts'));
    symlinkSync('../debug.log', join(repo, 'src/log-link.ts'));
    symlinkSync('.git', join(repo, 'git-dir'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('reads a line range of a file inside the repository', () => {
    expect(readRepoFile(repo, 'src/a.ts', { startLine: 2, endLine: 3 })).toEqual({
      path: 'src/a.ts',
      size: 21,
      totalLines: 3,
      startLine: 2,
      endLine: 3,
      content: 'line 2\nline 3',
      encoding: 'utf8',
    });
    // A link to a file inside the repository is followed to it.
    expect(readRepoFile(repo, 'src/in-link.ts').content).toBe('line 1\nline 2\nline 3');
    // `%41` is a file name here, not an encoded `A`.
    expect(readRepoFile(repo, 'src/%41.ts').content).toBe('a literal percent name');
  });

  it('refuses traversal, absolute and percent-encoded paths before touching the disk', () => {
    expect(refusal(() => readRepoFile(repo, '../../etc/passwd'))).toEqual(['invalid_path', 'path leads outside the repository: "../../etc/passwd"']);
    expect(refusal(() => readRepoFile(repo, '/etc/passwd'))).toEqual(['invalid_path', 'give a repository-relative path, not an absolute one: "/etc/passwd"']);
    expect(refusal(() => readRepoFile(repo, '%2e%2e/%2e%2e/etc/passwd'))).toEqual(['invalid_path', 'path leads outside the repository: "%2e%2e/%2e%2e/etc/passwd"']);
    expect(refusal(() => readRepoFile(repo, '..%2f..%2fetc%2fpasswd'))).toEqual(['invalid_path', 'path leads outside the repository: "..%2f..%2fetc%2fpasswd"']);
    expect(refusal(() => readRepoFile(repo, '%2fetc%2fpasswd'))).toEqual(['invalid_path', 'give a repository-relative path, not an absolute one: "%2fetc%2fpasswd"']);
    // The sibling directory `repo-evil` starts with the root's path: a prefix test would let it through.
    expect(refusal(() => readRepoFile(repo, '../repo-evil/secret.txt'))).toEqual(['invalid_path', 'path leads outside the repository: "../repo-evil/secret.txt"']);
    expect(refusal(() => readRepoFile(repo, 'src/a.ts\0.png'))).toEqual(['invalid_path', 'path contains a NUL byte: "src/a.ts\\u0000.png"']);
    expect(refusal(() => readRepoFile(repo, 'src\\..\\..\\x'))).toEqual(['invalid_path', 'path contains a backslash; use / between directories: "src\\\\..\\\\..\\\\x"']);
    expect(repoRelativePath('src/./deep/../a.ts')).toBe('src/a.ts');
  });

  it('refuses a symbolic link that leads outside, for files and directories', () => {
    expect(refusal(() => readRepoFile(repo, 'src/out-link.ts'))).toEqual(['invalid_path', 'src/out-link.ts resolves to a path outside the repository (through a symbolic link)']);
    expect(refusal(() => readRepoFile(repo, 'evil-dir/secret.txt'))).toEqual(['invalid_path', 'evil-dir/secret.txt resolves to a path outside the repository (through a symbolic link)']);
    expect(refusal(() => listRepoDirectory(repo, 'evil-dir'))).toEqual(['invalid_path', 'evil-dir resolves to a path outside the repository (through a symbolic link)']);
    expect(refusal(() => repoDirectoryTree(repo, 'evil-dir'))).toEqual(['invalid_path', 'evil-dir resolves to a path outside the repository (through a symbolic link)']);
  });

  it('refuses a link swapped in after the check (the opened handle is checked, not the path)', () => {
    const target = join(repo, 'src/swap.ts');
    writeFileSync(target, 'inside\n');
    const swap = () => {
      // Between the check and the open, the checked file becomes a link to a file outside.
      unlinkSync(target);
      symlinkSync(join(base, 'outside.txt'), target);
    };
    expect(refusal(() => readRepoFile(repo, 'src/swap.ts', { afterCheck: swap }))).toEqual([
      'invalid_path',
      'src/swap.ts resolves to a path outside the repository (through a symbolic link)',
    ]);
    // A directory on the way swapped for a link to outside: O_NOFOLLOW does not cover it, the handle check does.
    mkdirSync(join(repo, 'src/swapdir'));
    writeFileSync(join(repo, 'src/swapdir/secret.txt'), 'inside\n');
    const swapDir = () => {
      renameSync(join(repo, 'src/swapdir'), join(repo, 'src/swapdir-old'));
      symlinkSync(join(base, 'repo-evil'), join(repo, 'src/swapdir'));
    };
    const r = refusal(() => readRepoFile(repo, 'src/swapdir/secret.txt', { afterCheck: (real) => (real.endsWith('swapdir/secret.txt') ? swapDir() : undefined) }));
    // The checked real path was .../src/swapdir/secret.txt; the open follows the swapped directory link: refused after the open.
    expect(r).toEqual(['invalid_path', 'src/swapdir/secret.txt resolves to a path outside the repository (through a symbolic link)']);
    const dirSwap = () => {
      rmSync(join(repo, 'src/deep2'), { recursive: true, force: true });
      symlinkSync(join(base, 'repo-evil'), join(repo, 'src/deep2'));
    };
    mkdirSync(join(repo, 'src/deep2'));
    expect(refusal(() => listRepoDirectory(repo, 'src/deep2', { afterCheck: dirSwap }))).toEqual([
      'invalid_path',
      'src/deep2 resolves to a path outside the repository (through a symbolic link)',
    ]);
  });

  it('refuses ignored, binary and large files unless asked, and never serves .git', () => {
    expect(refusal(() => readRepoFile(repo, 'debug.log'))).toEqual([
      'invalid_path',
      'debug.log is ignored (.gitignore or a built-in exclude such as node_modules); ask with include_ignored to read it',
    ]);
    expect(readRepoFile(repo, 'debug.log', { includeIgnored: true }).content).toBe('ignored');
    expect(refusal(() => readRepoFile(repo, 'node_modules/pkg/index.js'))[0]).toBe('invalid_path');
    expect(refusal(() => readRepoFile(repo, 'blob.bin'))).toEqual(['usage', 'blob.bin is a binary file; ask with allow_binary to get it as base64']);
    expect(readRepoFile(repo, 'blob.bin', { allowBinary: true })).toMatchObject({ encoding: 'base64', content: Buffer.from([0x89, 0x50, 0x00, 0x01]).toString('base64'), size: 4 });
    expect(refusal(() => readRepoFile(repo, 'big.txt'))).toEqual(['usage', 'big.txt is 1048577 bytes, over 1048576; ask with allow_large (and a line range) to read it']);
    expect(readRepoFile(repo, 'big.txt', { allowLarge: true }).totalLines).toBe(1);
    expect(refusal(() => readRepoFile(repo, '.git/config', { includeIgnored: true }))).toEqual(['invalid_path', '.git/config is inside .git or .codeagent, which are never served']);
    expect(refusal(() => readRepoFile(repo, 'src'))).toEqual(['usage', 'src is a directory (list it with list_directory)']);
    // A link inside the repository is judged by where it leads too.
    expect(refusal(() => readRepoFile(repo, 'src/git-link.ts', { includeIgnored: true }))).toEqual([
      'invalid_path',
      'src/git-link.ts leads to .git/config, inside .git or .codeagent, which are never served',
    ]);
    expect(refusal(() => listRepoDirectory(repo, 'git-dir'))).toEqual(['invalid_path', 'git-dir leads to .git, inside .git or .codeagent, which are never served']);
    expect(refusal(() => readRepoFile(repo, 'src/log-link.ts'))).toEqual(['invalid_path', 'src/log-link.ts leads to debug.log, which is ignored; ask with include_ignored to read it']);
    expect(readRepoFile(repo, 'src/log-link.ts', { includeIgnored: true }).content).toBe('ignored');
    expect(refusal(() => readRepoFile(repo, 'src/none.ts'))).toEqual(['not_found', 'src/none.ts does not exist in the repository']);
  });

  it('lists a directory (links listed, not followed; ignored entries only when asked) and a tree', () => {
    expect(listRepoDirectory(repo, '.').map((e) => [e.name, e.type])).toEqual([
      ['src', 'dir'],
      ['.gitignore', 'file'],
      ['big.txt', 'file'],
      ['blob.bin', 'file'],
      ['evil-dir', 'symlink'],
      ['git-dir', 'symlink'],
    ]);
    expect(listRepoDirectory(repo, '', { includeIgnored: true }).filter((e) => e.ignored).map((e) => e.name)).toEqual(['node_modules', 'debug.log']);
    const tree = repoDirectoryTree(repo, 'src', { depth: 1 });
    expect(tree.root.children!.map((c) => [c.name, c.type, c.files ?? null])).toEqual([
      // Directories first (links are not directories: they are never descended), then the rest by name.
      ['deep', 'dir', 1],
      ['swapdir-old', 'dir', 1],
      ['%41.ts', 'file', null],
      ['a.ts', 'file', null],
      ['deep2', 'symlink', null],
      ['git-link.ts', 'symlink', null],
      ['in-link.ts', 'symlink', null],
      ['log-link.ts', 'symlink', null],
      ['out-link.ts', 'symlink', null],
      ['swap.ts', 'symlink', null],
      ['swapdir', 'symlink', null],
    ]);
    // The entry cap keeps the upper levels and says where it cut.
    const cut = repoDirectoryTree(repo, '.', { depth: 3, maxEntries: 2 });
    expect([cut.entries, cut.cut, cut.root.cut]).toEqual([2, true, true]);
  });
});
