import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, safeReadFile, safeReadText } from '../src/index.js';

/** A FIFO made at test time (no reader or writer: a plain read of it blocks forever). */
function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${r.stderr}`);
}

function repo(): string {
  return mkdtempSync(join(tmpdir(), 'ca-saferead-'));
}

const DIST = join(__dirname, '..', 'dist', 'index.js');

/**
 * Runs `body` (an async function's source, given the built package as `schema`) in a child
 * process killed after 20 s: a regression to a blocking read of a FIFO or an endless read of
 * /dev/zero then fails this test instead of hanging the test run (a synchronous read cannot be
 * interrupted by a test timeout). Returns what `body` returned, as JSON.
 */
function isolated(body: string, ...args: unknown[]): unknown {
  const script = `import(${JSON.stringify(DIST)}).then(async (schema) => { const args = ${JSON.stringify(args)}; const out = await (${body})(schema, ...args); process.stdout.write(JSON.stringify(out)); })`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
  if (r.error || r.status !== 0) throw new Error(`child ${r.error ? `failed: ${r.error.message}` : `exited ${r.status}`}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('safeReadFile', () => {
  it('reads a regular file inside the root, byte for byte', { timeout: 10_000 }, () => {
    const root = repo();
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    const r = safeReadFile(join(root, 'a.ts'), { root, maxBytes: 1024 });
    expect(r.ok && r.bytes.toString('utf8')).toBe('export const a = 1;\n');
  });

  it('refuses a link to /dev/zero, a FIFO, a directory and a missing file without blocking', { timeout: 30_000 }, () => {
    const root = repo();
    symlinkSync('/dev/zero', join(root, 'zero.cs'));
    mkfifo(join(root, 'package.json'));
    mkdirSync(join(root, 'dir'));
    const refusals = isolated(
      `async (schema, root, cases) => cases.map(([path, followLinks]) => {
        const r = schema.safeReadFile(root + '/' + path, { root, maxBytes: 1 << 20, followLinks });
        return r.ok ? 'read' : r.refusal + ': ' + r.reason;
      })`,
      root,
      [['zero.cs', false], ['zero.cs', true], ['package.json', false], ['dir', false], ['gone.ts', false]],
    );
    expect(refusals).toEqual([
      'symlink: symbolic link (not followed)',
      // Followed, the link still leads to a device: refused on what it is, not read.
      'not_regular: not a regular file (character device)',
      'not_regular: not a regular file (FIFO)',
      'not_regular: not a regular file (directory)',
      'missing: no such file',
    ]);
  });

  it('refuses a file over the cap and accepts one exactly at it', () => {
    const root = repo();
    writeFileSync(join(root, 'big.ts'), 'x'.repeat(101));
    writeFileSync(join(root, 'fits.ts'), 'x'.repeat(100));
    const big = safeReadFile(join(root, 'big.ts'), { root, maxBytes: 100 });
    expect(big.ok ? 'read' : `${big.refusal}: ${big.reason}`).toBe('too_large: file is 101 bytes, over the 100-byte cap');
    const fits = safeReadFile(join(root, 'fits.ts'), { root, maxBytes: 100 });
    expect(fits.ok && fits.bytes.length).toBe(100);
  });

  it('refuses a file reached through a directory link that leaves the root', () => {
    const root = repo();
    const outside = repo();
    writeFileSync(join(outside, 'secret.ts'), 'export const s = 1;\n');
    symlinkSync(outside, join(root, 'linked'));
    const r = safeReadFile(join(root, 'linked', 'secret.ts'), { root, maxBytes: 1024 });
    expect(r.ok ? 'read' : `${r.refusal}: ${r.reason}`).toBe('outside_root: resolves outside the repository');
    // A link inside the root to a directory inside the root is fine.
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'b.ts'), 'b');
    symlinkSync(join(root, 'src'), join(root, 'alias'));
    const inside = safeReadFile(join(root, 'alias', 'b.ts'), { root, maxBytes: 1024 });
    expect(inside.ok && inside.bytes.toString()).toBe('b');
  });

  it('safeReadText drops a UTF-8 byte order mark', () => {
    const root = repo();
    writeFileSync(join(root, 'package.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"x"}')]));
    const r = safeReadText(join(root, 'package.json'), { root, maxBytes: 1024 });
    expect(r.ok && JSON.parse(r.text)).toEqual({ name: 'x' });
  });
});

describe('loadConfig through the safe reader', () => {
  // Regression: a FIFO named .codeagent/config.json blocked `ca index` forever; a link to
  // /dev/zero grew memory past 3 GB.
  it('a FIFO or a link to /dev/zero or /dev/urandom as config.json is a clear config_invalid error, not a hang', { timeout: 90_000 }, () => {
    const kinds: [string, (p: string) => void, string][] = [
      ['FIFO', mkfifo, 'not a regular file (FIFO)'],
      ['zero', (p) => symlinkSync('/dev/zero', p), 'symbolic link (not followed)'],
      ['urandom', (p) => symlinkSync('/dev/urandom', p), 'symbolic link (not followed)'],
    ];
    for (const [, make, reason] of kinds) {
      const root = repo();
      mkdirSync(join(root, '.codeagent'));
      const file = join(root, '.codeagent', 'config.json');
      make(file);
      const error = isolated(
        `async (schema, root) => { try { schema.loadConfig(root, { env: {} }); return null; } catch (e) { return { code: e.code, message: e.message }; } }`,
        root,
      );
      expect(error).toEqual({ code: 'config_invalid', message: `cannot read ${file}: ${reason}` });
    }
  });

  it('a config file over 1 MiB is refused with its size', () => {
    const root = repo();
    mkdirSync(join(root, '.codeagent'));
    writeFileSync(join(root, '.codeagent', 'config.json'), `{"indexing":{}}${' '.repeat(1 << 20)}`);
    expect(() => loadConfig(root, { env: {} })).toThrow(`file is ${(1 << 20) + 15} bytes, over the 1048576-byte cap`);
  });
});
