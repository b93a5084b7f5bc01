import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Engine } from '@ca/engine';
import { CaError } from '@ca/schema';
import { gitBuffer, gitText } from './git.js';

/**
 * Mined queries are judged at the parent of the commit they came from: the code the developer
 * was searching. The walk materialises each commit's tree from git objects into one scratch
 * directory (no checkout: no hooks, no filters, no LFS; blobs absent from a partial clone or over
 * the size cap are left out) and keeps one scratch index; commits are visited in date order and
 * only blobs that differ from the previous commit are rewritten, so the index update re-parses
 * only the changed files and reuses embeddings by content hash — a walk over N commits costs about
 * the files changed between them, not N full indexes. The scratch index starts as a copy of the
 * HEAD index. See docs/decisions/011-mined-queries-at-their-commit.md.
 */
export interface CommitWalkOptions {
  /** Repository the query set applies to (a git work tree). */
  readonly repoDir: string;
  /** Index of `repoDir` (up to date, closed): the scratch index starts as a copy of it. */
  readonly headDb: string;
  /** Directory for the materialised tree, the scratch index and the walk's state. */
  readonly scratchDir: string;
  /** Blobs larger than this are not materialised (the indexer would skip them); default 1 MiB. */
  readonly maxFileBytes?: number;
  readonly env?: Record<string, string | undefined>;
  readonly onProgress?: (message: string) => void;
}

export interface CommitStep {
  readonly commit: string;
  /** Null when the commit could not be read (the reason says why). */
  readonly engine: Engine | null;
  readonly reason?: string;
  readonly changedFiles: number;
  readonly indexMs: number;
}

interface WalkState {
  readonly commit: string | null;
  /** Materialised path → blob id. */
  readonly files: Record<string, string>;
}

function readState(path: string): WalkState {
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as Partial<WalkState>;
    return { commit: typeof s.commit === 'string' ? s.commit : null, files: s.files && typeof s.files === 'object' ? s.files : {} };
  } catch {
    // No state file yet (first run) or a damaged one: the walk starts from scratch, which is always correct.
    return { commit: null, files: {} };
  }
}

function commitTime(dir: string, sha: string): number | null {
  try {
    return Number(gitText(dir, ['show', '-s', '--format=%ct', `${sha}^{commit}`]).trim());
  } catch {
    // The commit is not in this clone (shallow or gc'd): it has no time, and the caller skips it.
    return null;
  }
}

/**
 * Orders `commits` by committer date, starting from the end nearer `from` (the commit the
 * scratch tree holds; null — a fresh copy of the HEAD index — starts from the newest).
 * Commits git does not know are returned separately.
 */
export function orderCommits(dir: string, commits: readonly string[], from: string | null): { ordered: string[]; unknown: string[] } {
  const dated: { sha: string; time: number }[] = [];
  const unknown: string[] = [];
  for (const sha of new Set(commits)) {
    const time = commitTime(dir, sha);
    if (time === null) unknown.push(sha);
    else dated.push({ sha, time });
  }
  dated.sort((a, b) => a.time - b.time || a.sha.localeCompare(b.sha));
  const ordered = dated.map((d) => d.sha);
  if (ordered.length < 2) return { ordered, unknown };
  const fromTime = (from !== null ? commitTime(dir, from) : null) ?? Number.POSITIVE_INFINITY;
  const first = dated[0]!.time;
  const last = dated[dated.length - 1]!.time;
  return { ordered: Math.abs(fromTime - first) < Math.abs(fromTime - last) ? ordered : ordered.reverse(), unknown };
}

/** Regular files of a commit's tree with their blob ids and sizes (null: the blob is absent). */
function treeFiles(dir: string, sha: string): { path: string; blob: string; size: number | null }[] {
  const out: { path: string; blob: string; size: number | null }[] = [];
  for (const entry of gitText(dir, ['ls-tree', '-r', '-z', '--long', '--full-tree', sha]).split('\0')) {
    // <mode> SP <type> SP <object> SP+ <size> TAB <path>; the size of an absent blob is "BAD"
    const m = /^(100644|100755) blob ([0-9a-f]+)\s+(\d+|BAD|-)\t(.+)$/s.exec(entry);
    if (m) out.push({ path: m[4]!, blob: m[2]!, size: /^\d+$/.test(m[3]!) ? Number(m[3]) : null });
  }
  return out;
}

/** Blob contents by id (`git cat-file --batch`); ids git reports missing are absent from the map. */
function readBlobs(dir: string, blobs: readonly string[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let i = 0; i < blobs.length; i += 400) {
    const part = blobs.slice(i, i + 400);
    const buf = gitBuffer(dir, ['cat-file', '--batch'], `${part.join('\n')}\n`);
    let at = 0;
    for (const id of part) {
      const nl = buf.indexOf(10, at);
      const header = buf.subarray(at, nl).toString('utf8');
      at = nl + 1;
      const m = /^([0-9a-f]+) blob (\d+)$/.exec(header);
      if (!m) continue; // "<id> missing": absent from this (partial) clone
      const size = Number(m[2]);
      out.set(id, buf.subarray(at, at + size));
      at += size + 1;
    }
  }
  return out;
}

/** Makes `treeDir` hold `sha`'s files, rewriting only paths whose blob changed. */
function materialise(repoDir: string, treeDir: string, sha: string, previous: Readonly<Record<string, string>>, maxBytes: number): { files: Record<string, string>; changed: number; missing: number } {
  const files: Record<string, string> = {};
  const wanted = treeFiles(repoDir, sha).filter((f) => f.size === null || f.size <= maxBytes);
  const toWrite = wanted.filter((f) => previous[f.path] !== f.blob);
  const contents = readBlobs(repoDir, [...new Set(toWrite.map((f) => f.blob))]);
  const keep = new Set(wanted.map((f) => f.path));
  for (const path of Object.keys(previous)) {
    if (!keep.has(path)) rmSync(join(treeDir, path), { force: true });
  }
  let missing = 0;
  for (const f of wanted) {
    if (previous[f.path] === f.blob) {
      files[f.path] = f.blob;
      continue;
    }
    const data = contents.get(f.blob);
    const abs = join(treeDir, f.path);
    if (data === undefined) {
      missing++;
      rmSync(abs, { force: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, data);
    files[f.path] = f.blob;
  }
  return { files, changed: toWrite.length, missing };
}

/**
 * Visits each commit with an engine whose index holds that commit's source (one engine for the
 * walk, disposed at its end: do not keep it); a commit git cannot read is visited with
 * `engine: null`.
 */
export async function walkCommits(commits: readonly string[], options: CommitWalkOptions, visit: (step: CommitStep) => Promise<void>): Promise<void> {
  const progress = options.onProgress ?? (() => {});
  if (!existsSync(join(options.repoDir, '.git'))) {
    throw new CaError('usage', `--at-commit needs a git repository; ${options.repoDir} has no .git`, { context: { path: options.repoDir } });
  }
  const maxBytes = options.maxFileBytes ?? 1024 * 1024;
  const treeDir = join(options.scratchDir, 'tree');
  const db = join(options.scratchDir, 'index.db');
  const statePath = join(options.scratchDir, 'state.json');
  if (!existsSync(statePath) || !existsSync(db)) {
    rmSync(options.scratchDir, { recursive: true, force: true });
    mkdirSync(treeDir, { recursive: true });
    progress(`commit walk: new scratch index in ${options.scratchDir} (a copy of the HEAD index)`);
    // A closed index has no write-ahead log left; copy one if a crash left it behind.
    for (const suffix of ['', '-wal']) if (existsSync(`${options.headDb}${suffix}`)) copyFileSync(`${options.headDb}${suffix}`, `${db}${suffix}`);
    writeFileSync(statePath, JSON.stringify({ commit: null, files: {} }));
  }
  let state = readState(statePath);
  const { ordered, unknown } = orderCommits(options.repoDir, commits, state.commit);
  for (const sha of unknown) await visit({ commit: sha, engine: null, reason: `commit ${sha} is not in ${options.repoDir}`, changedFiles: 0, indexMs: 0 });
  // One engine for the whole walk: its semantic workers and embedder stay warm from commit to
  // commit (the tree directory and the index are the same; only the files change).
  const engine = ordered.length > 0 ? Engine.open(treeDir, { dbPath: db, ...(options.env ? { env: options.env } : {}) }) : null;
  try {
    let i = 0;
    for (const sha of ordered) {
      i++;
      let m: ReturnType<typeof materialise>;
      try {
        m = materialise(options.repoDir, treeDir, sha, state.files, maxBytes);
      } catch (e) {
        await visit({ commit: sha, engine: null, reason: `reading ${sha} failed: ${(e as Error).message.split('\n')[0]}`, changedFiles: 0, indexMs: 0 });
        continue;
      }
      state = { commit: sha, files: m.files };
      writeFileSync(statePath, JSON.stringify(state));
      const report = await engine!.index();
      const absent = m.missing > 0 ? `, ${m.missing} blobs absent from the repository` : '';
      progress(`commit ${i}/${ordered.length} ${sha.slice(0, 10)}: ${report.changed} changed, ${report.removed} removed files${absent}, indexed in ${report.ms} ms`);
      await visit({ commit: sha, engine: engine!, changedFiles: report.changed + report.removed, indexMs: report.ms });
    }
  } finally {
    await engine?.dispose();
  }
}
