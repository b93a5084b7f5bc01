import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, type Connected } from './helpers.js';

describe('the file tools stay inside the repository', () => {
  // <tmp>/repo is the fixture copy; <tmp>/repo-evil a sibling that shares its prefix.
  let repo: string;
  let mcp: Connected;
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    const evil = `${repo}-evil`;
    mkdirSync(evil);
    writeFileSync(join(evil, 'secret.txt'), 'secret\n');
    symlinkSync(join(evil, 'secret.txt'), join(repo, 'src/leak.ts'));
    symlinkSync(evil, join(repo, 'src/leakdir'));
    mcp = await connect({ repo, refresh: false });
  });
  afterAll(async () => {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  const refused = async (tool: string, path: string) => {
    const r = await mcp.call(tool, { path });
    expect(r.isError, `${tool} ${path}`).toBe(true);
    return r.json.error;
  };

  it('refuses traversal, absolute, percent-encoded and sibling-prefix paths in read_file, list_directory and get_directory_tree', async () => {
    for (const tool of ['read_file', 'list_directory', 'get_directory_tree']) {
      expect(await refused(tool, '../../etc/passwd')).toEqual({ code: 'invalid_path', message: 'path leads outside the repository: "../../etc/passwd"' });
      expect(await refused(tool, '/etc/passwd')).toEqual({ code: 'invalid_path', message: 'give a repository-relative path, not an absolute one: "/etc/passwd"' });
      expect(await refused(tool, '%2e%2e%2f%2e%2e%2fetc%2fpasswd')).toEqual({ code: 'invalid_path', message: 'path leads outside the repository: "%2e%2e%2f%2e%2e%2fetc%2fpasswd"' });
      expect(await refused(tool, '../repo-evil/secret.txt')).toEqual({ code: 'invalid_path', message: 'path leads outside the repository: "../repo-evil/secret.txt"' });
    }
  });

  it('refuses an in-repository link to a file or directory outside', async () => {
    expect(await refused('read_file', 'src/leak.ts')).toEqual({ code: 'invalid_path', message: 'src/leak.ts resolves to a path outside the repository (through a symbolic link)' });
    expect(await refused('read_file', 'src/leakdir/secret.txt')).toEqual({
      code: 'invalid_path',
      message: 'src/leakdir/secret.txt resolves to a path outside the repository (through a symbolic link)',
    });
    expect(await refused('list_directory', 'src/leakdir')).toEqual({ code: 'invalid_path', message: 'src/leakdir resolves to a path outside the repository (through a symbolic link)' });
    expect(await refused('get_directory_tree', 'src/leakdir')).toEqual({ code: 'invalid_path', message: 'src/leakdir resolves to a path outside the repository (through a symbolic link)' });
    // Listed as links, never followed.
    const src = await mcp.call('list_directory', { path: 'src' });
    expect(src.json.entries.filter((e: any) => e.type === 'symlink').map((e: any) => e.name)).toEqual(['leak.ts', 'leakdir']);
  });

  it('refuses files named like secrets (.env, a private key), not their look-alikes (.env.example)', async () => {
    writeFileSync(join(repo, '.env'), 'API_KEY=abc\n');
    writeFileSync(join(repo, '.env.example'), 'API_KEY=\n');
    mkdirSync(join(repo, 'keys'), { recursive: true });
    writeFileSync(join(repo, 'keys/id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\n');
    expect(await refused('read_file', '.env')).toEqual({ code: 'invalid_path', message: '.env is named like a secret file (credentials, keys); it is not served' });
    expect(await refused('read_file', 'keys/id_rsa')).toEqual({ code: 'invalid_path', message: 'keys/id_rsa is named like a secret file (credentials, keys); it is not served' });
    const example = await mcp.call('read_file', { path: '.env.example' });
    expect([example.isError, example.json.content]).toEqual([false, 'API_KEY=']);
  });
});
