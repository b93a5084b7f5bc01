import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../../..');
export const TS_APP = join(REPO_ROOT, 'fixtures', 'ts-app');

/** A private copy of a fixture, so tests may modify it and write `.codeagent/` into it. */
export function copyFixture(dir: string): string {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-engine-')), 'repo');
  cpSync(dir, target, { recursive: true });
  return target;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ca-engine-'));
}
