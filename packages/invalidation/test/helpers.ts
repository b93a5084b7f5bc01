import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ca-invalidation-'));
}

/** Writes `text` at `rel` under `root`, creating directories. */
export function write(root: string, rel: string, text = 'export const x = 1;\n'): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}
