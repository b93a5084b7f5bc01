import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProjectResult, SemanticEdge } from '../src/index.js';

export const PKG_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const MONOREPO = fileURLToPath(new URL('../../../fixtures/ts-monorepo/', import.meta.url));
export const TS_APP = fileURLToPath(new URL('../../../fixtures/ts-app/', import.meta.url));

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * The service forks dist/semanticWorker.js: build it when missing or older than src (once, under
 * a lock, because test files run in parallel).
 */
export function ensureWorkerBuilt(): void {
  const worker = join(PKG_ROOT, 'dist', 'semanticWorker.js');
  const fresh = (): boolean => existsSync(worker) && statSync(worker).mtimeMs >= newestMtime(join(PKG_ROOT, 'src'));
  if (fresh()) return;
  const lock = join(tmpdir(), 'ca-parse-ts-semantic-build.lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 120_000) rmSync(lock, { recursive: true, force: true });
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    if (!fresh()) execFileSync('pnpm', ['exec', 'tsup'], { cwd: PKG_ROOT, stdio: 'ignore' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** `type sourceKey -> targetKey confidence` rows (line left out unless asked). */
export function edgeRows(edges: readonly SemanticEdge[], withLine = false): string[] {
  return edges.map((e) => `${e.type} ${e.sourceKey} -> ${e.targetKey} ${e.confidence}${withLine ? ` L${e.line}` : ''}`);
}

export function projectOf(projects: readonly ProjectResult[], tsconfig: string | null): ProjectResult {
  const p = projects.find((x) => x.tsconfig === tsconfig);
  if (!p) throw new Error(`no project ${tsconfig}`);
  return p;
}

const tempRepos: string[] = [];

/** A new temporary repository holding `files` (repo-relative path → text); removed by `removeTempRepos`. */
export function tempRepo(files: Record<string, string>, prefix = 'ca-sem-'): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  tempRepos.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

/** Removes every repository `tempRepo` created in this test file. */
export function removeTempRepos(): void {
  for (const d of tempRepos.splice(0)) rmSync(d, { recursive: true, force: true });
}
