import type { ChangedLines } from './context.js';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Engine } from '@ca/engine';
import { CALLABLE_KINDS, CaError, splitIdentifier } from '@ca/schema';
import { gitBuffer, gitText } from './git.js';
import type { EvalQuery, QuerySetHeader } from './querySet.js';

export interface MineOptions {
  /** Only commits after this date (`git log --since`). */
  readonly since?: string;
  /** Stop after this many queries (default 150). */
  readonly max?: number;
  /** Examine at most this many commits (default: unlimited within --since). */
  readonly scan?: number;
  /** Revision to walk from (default HEAD). */
  readonly rev?: string;
  /** Repository identifier for the header (`owner/name`); default from the origin remote. */
  readonly repoId?: string;
  readonly onProgress?: (message: string) => void;
}

export interface MineResult {
  readonly header: QuerySetHeader;
  readonly queries: EvalQuery[];
  /** Commits examined. */
  readonly examined: number;
  /** Drop reason → count. */
  readonly dropped: Record<string, number>;
}

/** Limits a commit must stay within to become a query. */
export const MINE_LIMITS = { maxFiles: 5, maxChangedLines: 200, minSymbols: 1, maxSymbols: 5, minWords: 4, minInsideShare: 0.5 } as const;

const SOURCE_EXT = /\.(ts|tsx|js|jsx|cs)$/i;

/** Test code (JS/TS and .NET layouts); such files never contribute gold. */
export function isTestFile(path: string): boolean {
  return (
    /(^|\/)(__tests__|__mocks__|__snapshots__|tests?|specs?|e2e|testing|fixtures?)\//i.test(path) ||
    /\.(test|spec|stories)\.[cm]?[jt]sx?$/i.test(path) ||
    /(^|\/)[^/]*Tests?\.cs$/.test(path) ||
    /(^|\/)[^/]*\.Tests?[^/]*\//.test(path)
  );
}

const TRAILER = /^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|cc|change-id)\s*:/i;
const CONVENTIONAL = /^\s*([a-z]+)(\([^)]*\))?!?:\s*/i;

/** Why a commit message is not a usable query, or null when it is. */
export function dropReason(subject: string, body: string, authorName: string, authorEmail: string): string | null {
  const author = `${authorName} ${authorEmail}`.toLowerCase();
  if (/\[bot\]|dependabot|renovate|github-actions|greenkeeper/.test(author)) return 'bot';
  if (/^\s*revert\b/i.test(subject) || /this reverts commit/i.test(body)) return 'revert';
  const prefix = CONVENTIONAL.exec(subject);
  if (prefix && /^(chore|ci|build|docs?|style|tests?|release)$/i.test(prefix[1]!)) return 'chore';
  if (
    /^\s*v?\d+\.\d+(\.\d+)?\S*\s*$/.test(subject) ||
    /\bbump(s|ed|ing)?\b/i.test(subject) ||
    /^\s*(release|prepare(d)? (for )?release|version)\b/i.test(subject) ||
    /\b(update|change|set)s?\s+(the\s+)?(package\s+|assembly\s+)?version\b/i.test(subject)
  ) {
    return 'version bump';
  }
  if (/^\s*(re)?format(ting|ted)?\b|^\s*(run\s+)?prettier\b|^\s*(fix(es|ed)?\s+)?(lint|linting|typos?|whitespace|formatting)\b|^\s*(code\s+)?(style|clean\s*up|cleanup)\b/i.test(subject)) {
    return 'formatting';
  }
  const words = cleanText(subject.replace(CONVENTIONAL, '')).split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
  if (words.length < MINE_LIMITS.minWords) return 'short message';
  return null;
}

function cleanText(text: string): string {
  return text
    .replace(/\b(fix(e[sd])?|close[sd]?|resolve[sd]?|refs?|see)\s*:?\s+([\w.-]+\/[\w.-]+)?(#\d+|GH-\d+|https?:\/\/\S+)/gi, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[\w.-]+\/[\w.-]+#\d+/g, ' ')
    .replace(/\(\s*(#\d+|GH-\d+)\s*\)/gi, ' ')
    .replace(/#\d+\b/g, ' ')
    .replace(/\bGH-\d+\b/gi, ' ')
    .replace(/\(\s*[,;]?\s*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Pull-request template sections that describe the process, not the change. */
const TEMPLATE_SECTION = /^(check\s*list|checklist|screenshots?|test(ing)?\s*plan|how\s+(has\s+this\s+been|to|did\s+you)\s+test(ed)?\b.*|type\s+of\s+changes?|related\s+(issues?|prs?|pull\s+requests?)|breaking\s+changes?\??|additional\s+(context|notes?)|reviewers?|release\s+notes?)$/i;
/** Template headings that only label the part that follows. */
const TEMPLATE_LABEL = /^(summary|description|changes?|problem|solution|motivation|context|overview|details|what|why|what\s+changed\??|why\s+is\s+this\s+needed\??|what\s+is\s+the\s+(change|problem)\??)$/i;
/** Pictographs (emoji) that templates put in headings and list items. */
const PICTOGRAPH = /[\p{Extended_Pictographic}\u{FE0F}\u{200D}]/gu;

/**
 * Body lines without a pull-request template's scaffolding: checklist items, process sections
 * (checklist, screenshots, test plan …) up to the next heading, and headings that only label what
 * follows; the remaining headings keep their words without the `#` marks.
 */
function withoutTemplate(lines: readonly string[]): string[] {
  const kept: string[] = [];
  let skipping = false;
  for (const raw of lines) {
    const line = raw.replace(PICTOGRAPH, '');
    const heading = /^\s*#{1,6}\s*(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const title = heading[1]!.replace(/[:*_]+/g, ' ').trim();
      skipping = TEMPLATE_SECTION.test(title);
      if (!skipping && title !== '' && !TEMPLATE_LABEL.test(title)) kept.push(title);
      continue;
    }
    if (skipping || /^\s*[-*+]\s*\[[ xX]?\]/.test(line)) continue;
    kept.push(line);
  }
  return kept;
}

/**
 * The query text of a commit: subject (without its conventional-commit prefix) plus body, with
 * issue references (#123, GH-123, owner/repo#1, URLs, "Fixes #12") and trailers
 * (Signed-off-by, Co-authored-by, …) removed. The body is capped so squash-merge logs don't swamp it.
 */
export function cleanCommitMessage(subject: string, body: string, maxBodyChars = 400): string {
  const bodyLines = withoutTemplate(body.replace(/<!--[\s\S]*?(-->|$)/g, ' ').split(/\r?\n/))
    .filter((l) => !TRAILER.test(l))
    .filter((l) => !/^\s*[-=*_]{3,}\s*$/.test(l));
  const s = cleanText(subject.replace(CONVENTIONAL, ''));
  let b = cleanText(bodyLines.join('\n'));
  if (b.length > maxBodyChars) b = `${b.slice(0, maxBodyChars).replace(/\s+\S*$/, '')}…`;
  return b === '' ? s : `${s}. ${b}`.replace(/([.!?])\. /, '$1 ');
}

/** Pathspecs of the source files mining reads (only their blobs need to be present). */
const SOURCE_PATHSPECS = ['ts', 'tsx', 'js', 'jsx', 'cs'].map((ext) => `:(icase)*.${ext}`);

/**
 * `git diff --numstat` of a commit's source files, or null when git cannot read its objects: a
 * partial clone or a size-capped snapshot lacks some blobs, and that commit is dropped rather than
 * ending the whole run.
 */
function readableDiff(root: string, parent: string, sha: string): string | null {
  try {
    return gitText(root, ['diff', '--numstat', '--no-renames', parent, sha, '--', ...SOURCE_PATHSPECS]);
  } catch (err) {
    // why: the only failure expected here is a missing object; anything else is rethrown.
    if (isMissingObject(err)) return null;
    throw err;
  }
}

/** Whether a git failure says an object is absent (partial clone, size-capped snapshot). */
function isMissingObject(err: unknown): boolean {
  return /unable to read|missing blob|bad object|promisor|could not fetch/i.test(String(err instanceof Error ? err.message : err));
}

/** Changed regions of one file, on the old (parent) side. */
export interface OldSideChange {
  /** Inclusive old-side line ranges that were modified or deleted. */
  readonly ranges: readonly (readonly [number, number])[];
  /** Pure insertions: new lines were added after this old-side line. */
  readonly insertionsAfter: readonly number[];
  /** Changed-line weight per region (deleted + added lines), aligned with ranges then insertions. */
  readonly weights: readonly number[];
  /** False when the file did not exist at the parent. */
  readonly existed: boolean;
}

/**
 * A file's changed lines on the old side, as a query records them: the modified or deleted
 * ranges, and each pure insertion as the line it follows (line 1 for an insertion at the top),
 * merged into sorted disjoint ranges.
 */
export function changedLineRanges(change: OldSideChange): [number, number][] {
  const all: [number, number][] = [...change.ranges.map(([a, b]) => [a, b] as [number, number]), ...change.insertionsAfter.map((l) => [Math.max(l, 1), Math.max(l, 1)] as [number, number])];
  all.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: [number, number][] = [];
  for (const [a, b] of all) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** Parses `git diff -U0` output into old-side changes per (old) path. */
export function parseZeroContextDiff(diff: string): Map<string, OldSideChange> {
  const out = new Map<string, { ranges: [number, number][]; insertionsAfter: number[]; rangeW: number[]; insW: number[]; existed: boolean }>();
  let current: { ranges: [number, number][]; insertionsAfter: number[]; rangeW: number[]; insW: number[]; existed: boolean } | null = null;
  let oldPath: string | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = null;
      oldPath = null;
      continue;
    }
    if (line.startsWith('--- ')) {
      oldPath = line === '--- /dev/null' ? null : line.slice(4).replace(/^a\//, '');
      continue;
    }
    if (line.startsWith('+++ ')) {
      const newPath = line === '+++ /dev/null' ? null : line.slice(4).replace(/^b\//, '');
      const key = oldPath ?? newPath;
      if (key === null) continue;
      current = { ranges: [], insertionsAfter: [], rangeW: [], insW: [], existed: oldPath !== null };
      out.set(key, current);
      continue;
    }
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (m && current) {
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      const added = m[4] === undefined ? 1 : Number(m[4]);
      if (count === 0) {
        current.insertionsAfter.push(start);
        current.insW.push(added);
      } else {
        current.ranges.push([start, start + count - 1]);
        current.rangeW.push(count + added);
      }
    }
  }
  return new Map(
    [...out].map(([k, v]) => [k, { ranges: v.ranges, insertionsAfter: v.insertionsAfter, weights: [...v.rangeW, ...v.insW], existed: v.existed }]),
  );
}

interface SpanNode {
  readonly name: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly signature?: string;
}

/**
 * Whether a symbol is a unit of behaviour for gold purposes: callables, except React class
 * components (a 13K-line `class App extends React.Component` would swallow every change — its
 * members are the units), plus function-valued class fields (`private onKeyDown = (e) => {…}`),
 * which the TS adapter records as properties but are methods in all but syntax.
 */
export function isGoldCallable(n: SpanNode): boolean {
  if (n.kind === 'component') return !/^\s*(export\s+)?(default\s+)?(abstract\s+)?class\b/.test(n.signature ?? '');
  if (n.kind === 'property') return /=>|\bfunction\b/.test(n.signature ?? '') && n.endLine > n.startLine;
  return CALLABLE_KINDS.has(n.kind as never);
}

/** The innermost gold callable whose span satisfies `inside`. */
function innermost(nodes: readonly SpanNode[], inside: (n: SpanNode) => boolean): SpanNode | null {
  let best: SpanNode | null = null;
  for (const n of nodes) {
    if (!isGoldCallable(n) || !inside(n)) continue;
    if (!best || n.endLine - n.startLine < best.endLine - best.startLine) best = n;
  }
  return best;
}

/**
 * Maps a file's old-side changes to the callables (at the parent) whose bodies they touch:
 * each modified line goes to the innermost callable containing it; a pure insertion after line
 * `a` goes to the innermost callable containing both `a` and `a + 1`. Returns the touched
 * symbols and the share of changed-line weight that fell inside some callable.
 */
export function touchedCallables(nodes: readonly SpanNode[], change: OldSideChange): { symbols: SpanNode[]; insideWeight: number; totalWeight: number } {
  const touched = new Map<string, SpanNode>();
  let inside = 0;
  let total = 0;
  const regions: { hits: SpanNode[]; weight: number }[] = [];
  change.ranges.forEach(([a, b], i) => {
    const hits: SpanNode[] = [];
    for (let l = a; l <= b; l++) {
      const n = innermost(nodes, (x) => x.startLine <= l && l <= x.endLine);
      if (n && !hits.includes(n)) hits.push(n);
    }
    regions.push({ hits, weight: change.weights[i] ?? 1 });
  });
  change.insertionsAfter.forEach((a, i) => {
    const n = innermost(nodes, (x) => x.startLine <= a && a + 1 <= x.endLine);
    regions.push({ hits: n ? [n] : [], weight: change.weights[change.ranges.length + i] ?? 1 });
  });
  for (const r of regions) {
    total += r.weight;
    if (r.hits.length > 0) inside += r.weight;
    for (const n of r.hits) touched.set(`${n.qualifiedName}:${n.startLine}`, n);
  }
  return { symbols: [...touched.values()], insideWeight: inside, totalWeight: total };
}

/** True when the query text names a gold identifier (as written or as split words), case-insensitive. */
export function isLeaky(query: string, names: readonly string[]): boolean {
  const text = query.toLowerCase();
  const words = ` ${text.replace(/[^a-z0-9]+/g, ' ')} `;
  for (const name of names) {
    if (name === '' || name === 'constructor') continue;
    const lower = name.toLowerCase();
    const escaped = lower.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(^|[^a-z0-9_$])${escaped}($|[^a-z0-9_$])`).test(text)) return true;
    const split = splitIdentifier(name).join(' ');
    if (split !== '' && words.includes(` ${split} `)) return true;
  }
  return false;
}


interface LogEntry {
  readonly sha: string;
  readonly parents: readonly string[];
  readonly authorName: string;
  readonly authorEmail: string;
  readonly subject: string;
  readonly body: string;
}

function readLog(repo: string, options: MineOptions): LogEntry[] {
  const args = ['log', '--format=%H%x1f%P%x1f%an%x1f%ae%x1f%s%x1f%b%x1e'];
  if (options.since) args.push(`--since=${options.since}`);
  if (options.scan) args.push(`-n${options.scan}`);
  args.push(options.rev ?? 'HEAD');
  return gitText(repo, args)
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.trim() !== '')
    .map((r) => {
      const [sha, parents, authorName, authorEmail, subject, body] = r.split('\x1f');
      return {
        sha: sha!,
        parents: (parents ?? '').split(' ').filter(Boolean),
        authorName: authorName ?? '',
        authorEmail: authorEmail ?? '',
        subject: subject ?? '',
        body: (body ?? '').trim(),
      };
    });
}

/** `owner/name` from the origin remote when it is a GitHub URL, else the directory name. */
function repoIdentity(repo: string): { id: string; url: string | null } {
  try {
    const url = gitText(repo, ['remote', 'get-url', 'origin']).trim();
    const m = /github\.com[/:]([^/]+\/[^/]+?)(\.git)?$/.exec(url);
    if (m) return { id: m[1]!, url: `https://github.com/${m[1]}.git` };
    return { id: basename(resolve(repo)), url };
  } catch {
    // No origin remote (a local repository): the directory name identifies it and there is no URL.
    return { id: basename(resolve(repo)), url: null };
  }
}

/**
 * Builds a query set from a repository's git history: each descriptive, small, non-test
 * source commit becomes a query whose text is the cleaned commit message and whose gold is the
 * set of callables (located at the parent commit) whose bodies the commit changed.
 */
export async function mineGit(repo: string, options: MineOptions = {}): Promise<MineResult> {
  const root = resolve(repo);
  try {
    if (!statSync(join(root, '.git')).isDirectory() && !statSync(join(root, '.git')).isFile()) throw new Error('no .git');
  } catch {
    throw new CaError('invalid_path', `${repo} is not a git repository (no .git)`, { context: { path: repo } });
  }
  const progress = options.onProgress ?? (() => {});
  const max = options.max ?? 150;
  const dropped: Record<string, number> = {};
  const drop = (reason: string) => {
    dropped[reason] = (dropped[reason] ?? 0) + 1;
  };
  const queries: EvalQuery[] = [];
  const log = readLog(root, options);
  progress(`${log.length} commits to examine`);
  const languages = { ts: 0, cs: 0 };
  let examined = 0;
  for (const c of log) {
    if (queries.length >= max) break;
    examined++;
    if (c.parents.length > 1) {
      drop('merge');
      continue;
    }
    if (c.parents.length === 0) {
      drop('root commit');
      continue;
    }
    const reason = dropReason(c.subject, c.body, c.authorName, c.authorEmail);
    if (reason) {
      drop(reason);
      continue;
    }
    const parent = c.parents[0]!;
    const diffText = readableDiff(root, parent, c.sha);
    if (diffText === null) {
      drop('objects missing (partial clone)');
      continue;
    }
    const numstat = diffText
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'))
      .map(([a, d, p]) => ({ added: a === '-' ? 0 : Number(a), deleted: d === '-' ? 0 : Number(d), path: p! }));
    const sourceAll = numstat.filter((f) => SOURCE_EXT.test(f.path));
    const source = sourceAll.filter((f) => !isTestFile(f.path));
    if (source.length === 0) {
      drop(sourceAll.length > 0 ? 'tests only' : 'no source change');
      continue;
    }
    if (source.length > MINE_LIMITS.maxFiles) {
      drop('too many files');
      continue;
    }
    if (source.reduce((s, f) => s + f.added + f.deleted, 0) > MINE_LIMITS.maxChangedLines) {
      drop('too many changed lines');
      continue;
    }
    let gold: Awaited<ReturnType<typeof locateAtParent>>;
    let changedLines: ChangedLines[] = [];
    try {
      const changes = parseZeroContextDiff(gitText(root, ['diff', '-U0', '--no-renames', '--no-color', parent, c.sha, '--', ...source.map((f) => f.path)]));
      const existing = [...changes].filter(([, ch]) => ch.existed);
      if (existing.length === 0) {
        drop('only new files');
        continue;
      }
      gold = await locateAtParent(root, parent, existing);
      changedLines = existing.map(([path, ch]) => ({ path, lines: changedLineRanges(ch) }));
    } catch (err) {
      // why: a source blob absent from the clone drops this commit only.
      if (!isMissingObject(err)) throw err;
      drop('objects missing (partial clone)');
      continue;
    }
    if (gold === null) {
      drop('parent not parseable');
      continue;
    }
    const share = gold.totalWeight === 0 ? 0 : gold.insideWeight / gold.totalWeight;
    if (gold.symbols.length < MINE_LIMITS.minSymbols) {
      drop('no existing callable touched');
      continue;
    }
    if (gold.symbols.length > MINE_LIMITS.maxSymbols) {
      drop('too many callables touched');
      continue;
    }
    if (share < MINE_LIMITS.minInsideShare) {
      drop('change mostly outside callables');
      continue;
    }
    const text = cleanCommitMessage(c.subject, c.body);
    for (const g of gold.symbols) languages[/\.cs$/i.test(g.path) ? 'cs' : 'ts']++;
    const names = gold.symbols.map((g) => g.name);
    queries.push({
      id: `mined-${c.sha.slice(0, 10)}`,
      query: text,
      archetype: 'nl_behavioral',
      relevant: gold.symbols.map((g) => ({ symbol: `${g.path}#${g.qualifiedName}`, grade: 3 as const })),
      // A stable pseudo-random quarter of mined queries is held out.
      split: Number.parseInt(c.sha.slice(0, 8), 16) % 4 === 0 ? 'holdout' : 'train',
      label: 'mined',
      leaky: isLeaky(text, names),
      commit: parent,
      source: `mine-git:${c.sha}`,
      changedLines,
    });
    if (queries.length % 10 === 0) progress(`${queries.length} queries from ${examined} commits`);
  }
  const identity = options.repoId ? { id: options.repoId, url: `https://github.com/${options.repoId}.git` } : repoIdentity(root);
  const head = gitText(root, ['rev-parse', options.rev ?? 'HEAD']).trim();
  const header: QuerySetHeader = {
    repo: identity.id,
    commit: head,
    fetch: identity.url
      ? `git clone ${identity.url} ${basename(identity.id)} && git -C ${basename(identity.id)} checkout ${head}`
      : `a clone of ${identity.id} at ${head}`,
    ...(languages.ts + languages.cs > 0 ? { language: languages.cs > languages.ts ? ('cs' as const) : ('ts' as const) } : {}),
    description: `mined by ca eval mine-git${options.since ? ` --since ${options.since}` : ''} --max ${max}; gold located at each query's "commit" (the parent of the mined commit)`,
  };
  return { header, queries, examined, dropped };
}

/**
 * Materialises the parent's version of the touched files into a temp directory, indexes it with
 * the engine (so the same language adapters decide what a symbol is), and maps the changes.
 */
async function locateAtParent(
  repo: string,
  parent: string,
  files: readonly [string, OldSideChange][],
): Promise<{ symbols: (SpanNode & { path: string })[]; insideWeight: number; totalWeight: number } | null> {
  const dir = mkdtempSync(join(tmpdir(), 'ca-mine-'));
  try {
    const tree = join(dir, 'tree');
    for (const [path] of files) {
      const target = join(tree, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, gitBuffer(repo, ['show', `${parent}:${path}`]));
    }
    // Only spans matter here: semantic passes and embeddings would cost seconds per commit.
    const engine = Engine.open(tree, { dbPath: join(dir, 'index.db'), env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      await engine.index();
      const symbols: (SpanNode & { path: string })[] = [];
      let insideWeight = 0;
      let totalWeight = 0;
      for (const [path, change] of files) {
        let nodes: SpanNode[];
        try {
          nodes = engine.outline(path);
        } catch {
          // The file is not in the parent's index (the engine skipped it): it has no callables to touch.
          nodes = [];
        }
        const t = touchedCallables(nodes, change);
        insideWeight += t.insideWeight;
        totalWeight += t.totalWeight;
        for (const s of t.symbols) {
          if (!symbols.some((x) => x.path === path && x.qualifiedName === s.qualifiedName)) symbols.push({ ...s, path });
        }
      }
      return { symbols, insideWeight, totalWeight };
    } finally {
      engine.close();
    }
  } catch {
    // Any failure to materialise or index the parent drops this commit, counted as 'parent not parseable'.
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
