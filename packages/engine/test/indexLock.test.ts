import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexLock } from '../src/indexLock.js';

describe('index lock holder', () => {
  it('no lock file means nobody holds the lock', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-lock-'));
    expect(new IndexLock(join(dir, 'index.lock')).holder()).toBeNull();
  });

  it('a live holder written in the file is returned as written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-lock-'));
    // process.ppid is alive (the test runner) and is not this process: the lock is held.
    const holder = { pid: process.ppid, host: hostname(), label: 'main', since: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dir, 'index.lock'), JSON.stringify(holder));
    expect(new IndexLock(join(dir, 'index.lock')).holder()).toEqual(holder);
  });

  it('a lock path that cannot be read is an io_error, not a free lock', () => {
    // A directory where the lock file belongs: reading it fails with EISDIR. Before, holder() answered
    // null ("free"), and tryAcquire went on to treat the lock as stale.
    const dir = mkdtempSync(join(tmpdir(), 'ca-lock-'));
    mkdirSync(join(dir, 'index.lock'));
    expect(() => new IndexLock(join(dir, 'index.lock')).holder()).toThrow(expect.objectContaining({ code: 'io_error', message: expect.stringContaining('cannot read the index lock') }));
  });
});
