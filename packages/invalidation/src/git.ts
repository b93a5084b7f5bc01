import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CaError } from '@ca/schema';

/**
 * Git, read-only and without running anything of the repository's: every command is a plumbing
 * command that reads objects (rev-parse, ls-tree, cat-file, diff-tree between two trees), run
 * with `execFile` (no shell), `--end-of-options` before a revision, and with the configuration
 * that could start a program (fsmonitor, external diff, textconv, pagers) switched off. The
 * working tree is never read through git (no `status`, no filters): the index hashes working
 * files itself.
 */
const SAFE_CONFIG = ['-c', 'core.fsmonitor=false', '-c', 'core.pager=cat', '-c', 'diff.external=', '-c', 'core.hooksPath=/dev/null'];

/** Environment for git children: no prompts, no optional locks, stable output. */
function gitEnv(): NodeJS.ProcessEnv {
  // GIT_NO_LAZY_FETCH: a partial clone's missing blobs are reported missing, never fetched over
  // the network (git >= 2.44; older git lazily fetches them from the clone's own remote).
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_PAGER: 'cat', GIT_NO_LAZY_FETCH: '1' };
  // A caller's GIT_DIR/GIT_WORK_TREE would point every command at another repository.
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_EXTERNAL_DIFF']) delete env[k];
  return env;
}

/** Longest revision accepted (a ref name or an expression like `main~200`). */
const MAX_REVISION = 256;

/**
 * Refuses a revision that could be read as an option (`--output=/tmp/x`), a range (`a..b`), a
 * path (`HEAD:src`), or holds whitespace or control characters. Branch names, tags, full or
 * abbreviated ids and `~`/`^` suffixes pass.
 */
export function validateRevision(rev: string): string {
  const bad = (why: string) => new CaError('usage', `invalid revision "${printable(rev)}": ${why}`, { context: { revision: rev } });
  if (rev === '') throw bad('empty');
  if (rev.length > MAX_REVISION) throw bad(`longer than ${MAX_REVISION} characters`);
  if (rev.startsWith('-')) throw bad('a revision cannot start with "-"');
  if (/[\s\u0000-\u001f\u007f]/.test(rev)) throw bad('whitespace or control characters');
  if (rev.includes('..')) throw bad('ranges are not revisions');
  if (/[:?*[\\]/.test(rev)) throw bad('characters : ? * [ \\ are not allowed');
  if (!/^[A-Za-z0-9._/~^@{}+-]+$/.test(rev)) throw bad('only letters, digits and . _ / ~ ^ @ { } + - are allowed');
  return rev;
}

function printable(s: string): string {
  const shown = s.length > 80 ? `${s.slice(0, 80)}…` : s;
  return shown.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One entry of a commit's tree (`git ls-tree -r -l`). */
export interface GitTreeEntry {
  readonly path: string;
  /** `100644`, `100755` (files), `120000` (symbolic link), `160000` (submodule). */
  readonly mode: string;
  readonly type: 'blob' | 'commit' | 'tree';
  readonly oid: string;
  /** Bytes; -1 for submodules. */
  readonly size: number;
  /** The object is not in the repository (a partial or shallow clone): listed, not readable. */
  readonly missing?: true;
}

/** Where a repository's git data lives, for one working tree. */
export interface GitLocation {
  /** The working tree's top directory. */
  readonly topLevel: string;
  /** This working tree's git directory (`.git`, or `.git/worktrees/<name>` for a linked worktree). */
  readonly gitDir: string;
  /** The directory shared by all worktrees (objects, refs). */
  readonly commonDir: string;
  /** A linked worktree's name (`git worktree add`), null for the main working tree. */
  readonly worktreeName: string | null;
  readonly shallow: boolean;
}

/** The state of HEAD as the files under the git directory say, without running git. */
export interface HeadState {
  /** The commit HEAD points at, or null (an unborn branch, an unreadable ref). */
  readonly commit: string | null;
  /** The branch HEAD is on (`refs/heads/main`), or null when detached. */
  readonly ref: string | null;
}

/** A git repository seen from one working tree. Commands run in `location.topLevel`. */
export class GitRepository {
  private constructor(readonly location: GitLocation) {}

  /**
   * The repository containing `dir`, or null when `dir` is not in a git working tree (or git is
   * not installed). Reads `.git` (a directory, or a `gitdir:` file for linked worktrees) itself.
   */
  static locate(dir: string): GitRepository | null {
    let current = resolve(dir);
    for (;;) {
      const dotGit = join(current, '.git');
      if (existsSync(dotGit)) {
        const location = readLocation(current, dotGit);
        return location ? new GitRepository(location) : null;
      }
      const parent = resolve(current, '..');
      if (parent === current) return null;
      current = parent;
    }
  }

  /** `locate(dir)`, or a `not_a_git_repository` error naming what needs git. */
  static require(dir: string, what: string): GitRepository {
    const repo = GitRepository.locate(dir);
    if (!repo) throw new CaError('usage', `${dir} is not a git repository: ${what} needs one`, { context: { path: dir } });
    return repo;
  }

  /** Runs a read-only git command and returns its stdout. */
  run(args: readonly string[], options: { maxBuffer?: number } = {}): Promise<Buffer> {
    return new Promise((res, rej) => {
      execFile(
        'git',
        [...SAFE_CONFIG, ...args],
        { cwd: this.location.topLevel, env: gitEnv(), encoding: 'buffer', maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024, windowsHide: true },
        (error, stdout, stderr) => {
          if (error) {
            const message = stderr.toString('utf8').trim().split('\n')[0] || error.message;
            rej(new CaError('io_error', `git ${args[0]} failed: ${message}`, { cause: error, context: { path: this.location.topLevel } }));
          } else res(stdout);
        },
      );
    });
  }

  /** The full commit id `rev` names; `usage` errors for a bad revision or one that is not a commit. */
  async resolveCommit(rev: string): Promise<string> {
    validateRevision(rev);
    let out: Buffer;
    try {
      out = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
    } catch (e) {
      throw new CaError('usage', `"${printable(rev)}" is not a commit of ${this.location.topLevel}${this.location.shallow ? ' (this is a shallow clone: older commits are missing)' : ''}`, {
        cause: e,
        context: { revision: rev },
      });
    }
    const sha = out.toString('utf8').trim();
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) throw new CaError('usage', `"${printable(rev)}" is not a commit`, { context: { revision: rev } });
    return sha;
  }

  /** Every blob, link and submodule of a commit's tree, in path order. */
  async listTree(commit: string): Promise<GitTreeEntry[]> {
    assertObjectId(commit);
    const out = await this.run(['ls-tree', '-r', '-z', '-l', '--full-tree', commit]);
    const entries: GitTreeEntry[] = [];
    for (const record of out.toString('utf8').split('\0')) {
      if (record === '') continue;
      // "<mode> SP <type> SP <oid> SP+ <size> TAB <path>"
      const tab = record.indexOf('\t');
      // A blob git cannot find (a partial clone) is listed with the size BAD.
      const m = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+|BAD)$/.exec(record.slice(0, tab));
      if (tab < 0 || !m) throw new CaError('io_error', `unexpected git ls-tree output: ${printable(record)}`);
      const missing = m[4] === 'BAD';
      entries.push({ path: record.slice(tab + 1), mode: m[1]!, type: m[2] as GitTreeEntry['type'], oid: m[3]!, size: m[4] === '-' || missing ? -1 : Number(m[4]), ...(missing ? { missing: true as const } : {}) });
    }
    return entries;
  }

  /**
   * Paths that differ between two commits (added, modified, deleted, renamed count as both
   * paths), compared tree to tree: no working tree, no filters, no external diff.
   */
  async changedPaths(from: string, to: string): Promise<string[]> {
    assertObjectId(from);
    assertObjectId(to);
    const out = await this.run(['diff-tree', '-r', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', '--name-only', from, to]);
    return out
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
  }

  /**
   * Renames git finds between two commits (old path → new path), tree to tree: a deleted and an
   * added path whose contents are at least `minSimilarity` percent alike (git's own measure,
   * `--find-renames=N%`); no working tree, no filters, no external diff.
   */
  async renamedPaths(from: string, to: string, minSimilarity = 50): Promise<Map<string, string>> {
    assertObjectId(from);
    assertObjectId(to);
    if (!Number.isInteger(minSimilarity) || minSimilarity < 1 || minSimilarity > 100) throw new CaError('usage', `rename similarity must be 1–100 %, got ${minSimilarity}`);
    const out = await this.run(['diff-tree', '-r', '-z', `--find-renames=${minSimilarity}%`, '--diff-filter=R', '--name-status', '--no-ext-diff', '--no-textconv', from, to]);
    // "R<score>\0<old>\0<new>\0" per rename.
    const fields = out.toString('utf8').split('\0');
    const renames = new Map<string, string>();
    for (let i = 0; i + 2 < fields.length; i += 3) {
      if (!/^R\d*$/.test(fields[i]!)) throw new CaError('io_error', `unexpected git diff-tree output: ${printable(fields[i]!)}`);
      renames.set(fields[i + 1]!, fields[i + 2]!);
    }
    return renames;
  }

  /** Whether `ancestor` is reachable from `commit` (false when either is missing). */
  async isAncestor(ancestor: string, commit: string): Promise<boolean> {
    assertObjectId(ancestor);
    assertObjectId(commit);
    try {
      await this.run(['merge-base', '--is-ancestor', ancestor, commit]);
      return true;
    } catch {
      // Exit status 1 is 'not an ancestor'; an unknown commit (gone after gc) is not an ancestor either.
      return false;
    }
  }

  /** HEAD of this working tree, read from the files under its git directory. */
  head(): HeadState {
    const headText = readSmall(join(this.location.gitDir, 'HEAD'));
    if (headText === null) return { commit: null, ref: null };
    const m = /^ref: (\S+)/.exec(headText);
    if (!m) return { commit: /^[0-9a-f]{40}/.exec(headText)?.[0] ?? null, ref: null };
    const ref = m[1]!;
    return { commit: this.refCommit(ref), ref };
  }

  /**
   * A stamp that changes whenever HEAD or the branch it is on may have moved (the mtimes and
   * sizes of HEAD, the loose ref and packed-refs): cheap enough to compare before every answer.
   */
  headStamp(): string {
    const parts: string[] = [];
    const headPath = join(this.location.gitDir, 'HEAD');
    parts.push(stampOf(headPath));
    const headText = readSmall(headPath);
    const ref = headText ? /^ref: (\S+)/.exec(headText)?.[1] : undefined;
    if (ref) parts.push(stampOf(join(this.location.commonDir, ref)), stampOf(join(this.location.gitDir, ref)));
    parts.push(stampOf(join(this.location.commonDir, 'packed-refs')));
    return parts.join('|');
  }

  private refCommit(ref: string): string | null {
    if (!/^refs\/[A-Za-z0-9._/@+-]+$/.test(ref) || ref.includes('..')) return null;
    for (const dir of [this.location.gitDir, this.location.commonDir]) {
      const loose = readSmall(join(dir, ref));
      if (loose !== null) return /^[0-9a-f]{40}/.exec(loose)?.[0] ?? null;
    }
    const packed = readSmall(join(this.location.commonDir, 'packed-refs'), 64 * 1024 * 1024);
    if (packed === null) return null;
    for (const line of packed.split('\n')) {
      if (line.endsWith(` ${ref}`)) return /^[0-9a-f]{40}/.exec(line)?.[0] ?? null;
    }
    return null;
  }

  /** A long-lived `git cat-file --batch` reading blobs by id (close it when done). */
  openBlobReader(): BlobReader {
    return new BlobReader(this.location.topLevel);
  }
}

function assertObjectId(id: string): void {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id)) throw new CaError('usage', `not an object id: ${printable(id)}`);
}

function readSmall(path: string, max = 64 * 1024): string | null {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > max) return null;
    return readFileSync(path, 'utf8');
  } catch {
    // A missing or unreadable git metadata file (HEAD, a ref, packed-refs, commondir) reads as absent, which every caller handles.
    return null;
  }
}

function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    // A missing file has the stamp '-', which matches no real one, so its appearance is noticed.
    return '-';
  }
}

function readLocation(topLevel: string, dotGit: string): GitLocation | null {
  let gitDir: string;
  let st;
  try {
    st = statSync(dotGit);
  } catch {
    // The .git entry vanished since the caller saw it (a checkout being removed): no repository here.
    return null;
  }
  if (st.isDirectory()) {
    gitDir = dotGit;
  } else {
    // A linked worktree (or a submodule): ".git" is a file "gitdir: <path>".
    const text = readSmall(dotGit);
    const m = text ? /^gitdir: (.+)$/m.exec(text) : null;
    if (!m) return null;
    gitDir = isAbsolute(m[1]!.trim()) ? m[1]!.trim() : resolve(topLevel, m[1]!.trim());
  }
  const commonText = readSmall(join(gitDir, 'commondir'));
  const commonDir = commonText ? resolve(gitDir, commonText.trim()) : gitDir;
  const worktreeName = commonDir === gitDir ? null : gitDir.split(/[\\/]/).pop() ?? null;
  return { topLevel, gitDir, commonDir, worktreeName, shallow: existsSync(join(commonDir, 'shallow')) };
}

/**
 * Reads blobs through one `git cat-file --batch` process: requests are written as object ids,
 * answers come back in order (`<oid> blob <size>\n<bytes>\n`, or `<oid> missing\n`).
 */
export class BlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly queue: { oid: string; resolve: (b: Buffer) => void; reject: (e: Error) => void }[] = [];
  private failure: Error | null = null;

  constructor(cwd: string) {
    this.child = spawn('git', [...SAFE_CONFIG, 'cat-file', '--batch'], { cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    let stderr = '';
    this.child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-2000)));
    const fail = (e: Error) => {
      this.failure ??= e;
      for (const r of this.queue.splice(0)) r.reject(this.failure);
    };
    this.child.on('error', (e) => fail(new CaError('io_error', `git cat-file could not start: ${e.message}`, { cause: e })));
    this.child.on('exit', (code) => fail(new CaError('io_error', `git cat-file exited (${code ?? 'signal'})${stderr ? `: ${stderr.trim()}` : ''}`)));
    this.child.stdin.on('error', (e) => fail(new CaError('io_error', `git cat-file: ${e.message}`, { cause: e })));
  }

  /** The bytes of blob `oid`; `not_found` when the object is missing (a shallow or partial clone). */
  read(oid: string): Promise<Buffer> {
    assertObjectId(oid);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ oid, resolve, reject });
      this.child.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill();
  }

  private drain(): void {
    while (this.queue.length > 0) {
      const nl = this.buffer.indexOf(10);
      if (nl < 0) return;
      const header = this.buffer.subarray(0, nl).toString('utf8');
      const head = this.queue[0]!;
      if (header.endsWith(' missing')) {
        this.buffer = this.buffer.subarray(nl + 1);
        this.queue.shift();
        head.reject(new CaError('not_found', `git object ${head.oid} is missing (a shallow or partial clone?)`, { context: { oid: head.oid } }));
        continue;
      }
      const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
      if (!m) {
        this.buffer = this.buffer.subarray(nl + 1);
        this.queue.shift();
        head.reject(new CaError('io_error', `unexpected git cat-file answer: ${printable(header)}`));
        continue;
      }
      const size = Number(m[3]);
      if (this.buffer.length < nl + 1 + size + 1) return;
      const content = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + size));
      this.buffer = this.buffer.subarray(nl + 1 + size + 1);
      this.queue.shift();
      if (m[2] !== 'blob') head.reject(new CaError('usage', `git object ${head.oid} is a ${m[2]}, not a file`));
      else head.resolve(content);
    }
  }
}
