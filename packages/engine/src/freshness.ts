/**
 * How fresh an answer is, checked when it is given (docs/decisions/026): the files the answer
 * comes from are compared with the working tree now (a stat each, a hash only when the stat
 * differs), and HEAD with the commit the label was indexed at. The index-time flag
 * (`uncommittedChanges`) is kept, but `stale` is what says whether the answer still matches.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { gitBlobId, safeReadFile, type Config } from '@ca/schema';
import { mayHoldIndexedFiles, type GitRepository } from '@ca/invalidation';
import type { LabelEntry, Store } from '@ca/store';

/** Changed paths an answer lists (`staleFiles`); `staleCount` has them all. */
export const STALE_FILES_SHOWN = 20;

/** How fresh an answer is: what the label was indexed at, and whether the tree moved since. */
export interface Freshness {
  readonly label: string;
  /** The commit the label was indexed at (the working tree: HEAD then); null without git. */
  readonly commit: string | null;
  readonly indexedAt: string | null;
  /** Working labels: whether indexed files differed from `commit` (uncommitted changes) when indexed, not now. */
  readonly uncommittedChanges: boolean | null;
  /** Working labels: HEAD now, and whether it moved since the index (a checkout, pull, rebase). */
  readonly head: string | null;
  readonly headMoved: boolean;
  readonly branch: string | null;
  /** Whether a file the answer comes from differs now from the version indexed (edited, deleted); false for commit labels. */
  readonly stale: boolean;
  /** Those files (repo-relative, sorted), at most STALE_FILES_SHOWN of them. */
  readonly staleFiles: readonly string[];
  /** How many files differ (all of them, past the cap of `staleFiles`). */
  readonly staleCount: number;
  /** How many files were compared: the answer's (or, for `status`, every file the label indexes). */
  readonly checkedFiles: number;
}

/** What a freshness check reads: the engine's store, tree, config and git. */
export interface FreshnessSource {
  readonly store: Store;
  readonly repoRoot: string;
  readonly config: Config;
  readonly git: GitRepository | null;
  readonly workingLabel: string;
}

/**
 * The label's freshness for an answer whose files are `paths` (`'all'`: every file the label
 * indexes, a full stat walk). Only the working label is compared with the tree: other labels
 * are commits, which do not change.
 */
export function freshnessOf(src: FreshnessSource, label: string, paths: Iterable<string> | 'all'): Freshness {
  const info = src.store.labels.state(label);
  const working = label === src.workingLabel;
  const head = working ? (src.git?.head() ?? null) : null;
  const changed = working ? changedSinceIndexed(src, label, paths) : { paths: [], checked: 0 };
  return {
    label,
    commit: info?.commit ?? null,
    indexedAt: info?.indexedAt ?? null,
    uncommittedChanges: working ? (info?.dirty ?? null) : false,
    head: head?.commit ?? null,
    headMoved: working && head?.commit != null && info?.commit != null && head.commit !== info.commit,
    branch: working ? (head?.ref?.replace(/^refs\/heads\//, '') ?? null) : null,
    stale: changed.paths.length > 0,
    staleFiles: changed.paths.slice(0, STALE_FILES_SHOWN),
    staleCount: changed.paths.length,
    checkedFiles: changed.checked,
  };
}

/** The paths among `paths` whose file on disk is no longer the version the label indexed (sorted). */
function changedSinceIndexed(src: FreshnessSource, label: string, paths: Iterable<string> | 'all'): { paths: string[]; checked: number } {
  const reader = src.store.reader(label);
  const entries: [string, LabelEntry | null][] =
    paths === 'all' ? [...reader.labelEntries()] : [...new Set(paths)].map((p) => [p, reader.labelEntry(p)]);
  const out: string[] = [];
  for (const [path, entry] of entries) {
    // A path the label does not index (a directory answer, a file never indexed) has no version to compare.
    if (entry && differs(src, path, entry)) out.push(path);
  }
  return { paths: out.sort(), checked: entries.filter(([, e]) => e !== null).length };
}

/** Whether the file at `path` differs from `entry`: equal size and mtime mean unchanged, else the blob id decides. */
function differs(src: FreshnessSource, path: string, entry: LabelEntry): boolean {
  const abs = join(src.repoRoot, ...path.split('/'));
  let stat;
  try {
    stat = lstatSync(abs);
  } catch {
    // Gone (or unreadable): the indexed version is no longer on disk.
    return true;
  }
  if (!stat.isFile()) return true;
  // A skipped file is recorded by size and mtime (its content was never read).
  if (entry.contentHash.startsWith('skipped:')) return !entry.contentHash.startsWith(`skipped:${stat.size}:${Math.floor(stat.mtimeMs)}:`);
  if (stat.size !== entry.size) return true;
  if (entry.mtimeMs !== null && entry.mtimeMs === stat.mtimeMs) return false;
  const read = safeReadFile(abs, { root: src.repoRoot, maxBytes: Math.max(entry.size, 1) });
  return !read.ok || gitBlobId(read.bytes) !== entry.contentHash;
}

/**
 * Whether a repo path lies where discovery may index files: no directory on the way is one
 * discovery never descends into (the built-in exclusions, unless a `keep` pattern reaches
 * inside). The same rule as @ca/invalidation's walk, so the two cannot disagree.
 */
export function mayBeIndexedPath(config: Config['indexing']): (path: string) => boolean {
  const mayHold = mayHoldIndexedFiles(config);
  return (path) => {
    const parts = path.split('/');
    for (let i = 0; i < parts.length - 1; i++) {
      if (!mayHold(parts.slice(0, i + 1).join('/'), parts[i]!)) return false;
    }
    return true;
  };
}

/**
 * Whether the label's files differ from `commit`'s (uncommitted changes) at index time: compared
 * by blob id, path by path, over the files the label indexes and the commit's files discovery
 * would index (`extensions`, outside excluded directories); null without git or a readable commit.
 */
export async function dirtyAgainst(src: FreshnessSource, commit: string, label: string, extensions: ReadonlySet<string>): Promise<boolean | null> {
  if (!src.git) return null;
  let entries;
  try {
    entries = await src.git.listTree(commit);
  } catch {
    // An unreadable commit (shallow clone, pruned object): "unknown", not an error of the run.
    return null;
  }
  const inCommit = new Map(entries.map((e) => [e.path, e.oid]));
  const files = src.store.planState(label).files();
  for (const [path, f] of files) {
    if (f.parseStatus === 'skipped' || f.parseStatus === 'no_grammar') continue;
    if (inCommit.get(path) !== f.contentHash) return true;
  }
  const indexable = mayBeIndexedPath(src.config.indexing);
  for (const e of entries) {
    if (e.type !== 'blob' || files.has(e.path)) continue;
    const dot = e.path.lastIndexOf('.');
    const slash = e.path.lastIndexOf('/');
    // A whole file name a language claims never starts with a dot (`.ts` alone is no file name of it).
    const handled = (dot > slash && extensions.has(e.path.slice(dot).toLowerCase())) || (dot !== slash + 1 && extensions.has(e.path.slice(slash + 1).toLowerCase()));
    if (handled && indexable(e.path)) {
      // A source file of the commit the working tree no longer has (deleted, or ignored since).
      if (!existsOnDisk(src.repoRoot, e.path)) return true;
    }
  }
  return false;
}

function existsOnDisk(root: string, path: string): boolean {
  try {
    lstatSync(join(root, ...path.split('/')));
    return true;
  } catch {
    // Missing (or unreadable): either way the working tree does not have it.
    return false;
  }
}

/** The paths an answer comes from: its results', locations', nodes' and edges' files. */
export function answerPaths(...groups: readonly (readonly ({ readonly path?: string | null } | null | undefined)[] | undefined)[]): string[] {
  const out = new Set<string>();
  for (const g of groups) for (const x of g ?? []) if (x?.path) out.add(x.path);
  return [...out];
}
