import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport, type WatchDirectory } from '@ca/engine';
import { watchRepository } from '../src/watch.js';
import { watchChild as watchChildOf } from './helpers.js';

const ROOT = resolve(__dirname, '../../..');
const BIN = join(ROOT, 'apps/cli/dist/main.js');
const ENV = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))), CA_EMBEDDING_ENABLED: 'false' };
/** How long a change may take to show (a run after the debounce; generous for a loaded machine). */
const CHANGE_TIMEOUT_MS = 30_000;

function watchChild(repo: string) {
  return watchChildOf(repo, ENV, CHANGE_TIMEOUT_MS);
}

function symbolPaths(repo: string, name: string): string[][] {
  const r = spawnSync(process.execPath, [BIN, 'symbol', name, '--repo', repo, '--json'], { env: ENV, encoding: 'utf8' });
  const out = JSON.parse(r.stdout) as { symbols?: { qualifiedName: string; path: string }[] };
  return (out.symbols ?? []).map((s) => [s.qualifiedName, s.path]);
}

/** Waits until `cond` holds: the state a run leaves, for changes that print no line. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + CHANGE_TIMEOUT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function copyFixture(prefix: string): string {
  const repo = join(mkdtempSync(join(tmpdir(), prefix)), 'repo');
  cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
  return repo;
}

describe('ca watch: edits the recursive fs.watch misses', () => {
  let repo: string;
  let w: ReturnType<typeof watchChild>;
  const FORMAT = 'src/utils/format.ts';
  const fn = (name: string) => `\nexport function ${name}(): number {\n  return 1;\n}\n`;

  beforeAll(() => {
    repo = copyFixture('ca-watch-tree-');
    w = watchChild(repo);
  });
  afterAll(() => {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
    rmSync(resolve(repo, '..'), { recursive: true, force: true });
  });

  it("an editor's rename-over save of a file edited once before, and the edits after it", async () => {
    // fixtures/ts-app: 16 indexed files (13 code files + README.md, package.json, tsconfig.json (decision 039)).
    expect(await w.line(1)).toMatchObject({ event: 'indexed', files: 16, changed: 16, removed: 0 });
    appendFileSync(join(repo, FORMAT), fn('firstEdit'));
    expect(await w.line(2)).toMatchObject({ event: 'updated', files: 16, changed: 1, removed: 0 });
    // An atomic save (vim, VS Code): the new text goes to a temporary file renamed over the original.
    writeFileSync(join(repo, `${FORMAT}.tmp`), readFileSync(join(repo, FORMAT), 'utf8') + fn('savedByRename'));
    renameSync(join(repo, `${FORMAT}.tmp`), join(repo, FORMAT));
    expect(await w.line(3)).toMatchObject({ event: 'updated', files: 16, changed: 1, removed: 0 });
    expect(symbolPaths(repo, 'savedByRename')).toEqual([['savedByRename', FORMAT]]);
    // The file that replaced the original is still watched: an in-place edit of it is seen.
    appendFileSync(join(repo, FORMAT), fn('editedAfterRename'));
    expect(await w.line(4)).toMatchObject({ event: 'updated', files: 16, changed: 1, removed: 0 });
    expect(symbolPaths(repo, 'editedAfterRename')).toEqual([['editedAfterRename', FORMAT]]);
  }, 120_000);

  it('a new directory with a file in it', async () => {
    mkdirSync(join(repo, 'src/reports/monthly'), { recursive: true });
    writeFileSync(join(repo, 'src/reports/monthly/summary.ts'), fn('monthlySummary'));
    // 16 files (13 code + 3 documentation, decision 039) + summary.ts.
    expect(await w.line(5)).toMatchObject({ event: 'updated', files: 17, changed: 1, removed: 0 });
    expect(symbolPaths(repo, 'monthlySummary')).toEqual([['monthlySummary', 'src/reports/monthly/summary.ts']]);
    // The new directory is watched: a second file in it is seen too.
    writeFileSync(join(repo, 'src/reports/monthly/totals.ts'), fn('monthlyTotals'));
    expect(await w.line(6)).toMatchObject({ event: 'updated', files: 18, changed: 1, removed: 0 }); // + totals.ts
  }, 60_000);

  it('a deleted file', async () => {
    rmSync(join(repo, 'src/legacy/helpers.js'));
    expect(await w.line(7)).toMatchObject({ event: 'updated', files: 17, changed: 0, removed: 1 }); // 18 − helpers.js
  }, 60_000);

  it('stops on SIGINT with exit code 0, nothing on stderr', async () => {
    const exited = new Promise<number | null>((res) => w.child.once('exit', (code) => res(code)));
    w.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(w.stderr()).toBe('');
    expect(w.lines.length).toBe(7);
  }, 60_000);
});

describe('ca watch: HEAD moves', () => {
  let repo: string;
  let w: ReturnType<typeof watchChild>;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, env: ENV, encoding: 'utf8' }).trim();
  const workingCommit = () => {
    const r = spawnSync(process.execPath, [BIN, 'labels', '--repo', repo, '--json'], { env: ENV, encoding: 'utf8' });
    return (JSON.parse(r.stdout) as { labels: { name: string; commit: string | null }[] }).labels.find((l) => l.name === 'working')?.commit ?? null;
  };
  let feature = '';

  beforeAll(() => {
    repo = copyFixture('ca-watch-head-');
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.codeagent/\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    // feature: one file edited, one added (in a new directory), one deleted.
    git('checkout', '-q', '-b', 'feature');
    appendFileSync(join(repo, 'src/utils/format.ts'), '\nexport function featureFormat(): string {\n  return "f";\n}\n');
    mkdirSync(join(repo, 'src/flags'));
    writeFileSync(join(repo, 'src/flags/flags.ts'), 'export const FLAGS = ["beta"];\n');
    rmSync(join(repo, 'src/legacy/helpers.js'));
    git('add', '-A');
    git('commit', '-q', '-m', 'feature');
    feature = git('rev-parse', 'HEAD');
    git('checkout', '-q', 'main');
    w = watchChild(repo);
  }, 60_000);
  afterAll(() => {
    if (w.child.exitCode === null) w.child.kill('SIGKILL');
    rmSync(resolve(repo, '..'), { recursive: true, force: true });
  });

  it('a checkout of another branch', async () => {
    expect(await w.line(1)).toMatchObject({ event: 'indexed', files: 16, changed: 16, removed: 0 });
    expect(workingCommit()).toBe(git('rev-parse', 'main'));
    git('checkout', '-q', 'feature');
    // One run or several (file events and the HEAD move may fall in different debounce windows).
    const after = () => w.lines.slice(1);
    const sum = (k: 'changed' | 'removed') => after().reduce((n, l) => n + l[k], 0);
    await until(() => sum('changed') >= 2 && sum('removed') >= 1 && workingCommit() === feature, `the checkout to be indexed; lines ${JSON.stringify(w.lines)}`);
    expect([sum("changed"), sum("removed"), after().at(-1)!.files], JSON.stringify(w.lines)).toEqual([2, 1, 16]);
    expect(symbolPaths(repo, 'featureFormat')).toEqual([['featureFormat', 'src/utils/format.ts']]);
    expect(symbolPaths(repo, 'FLAGS')).toEqual([['FLAGS', 'src/flags/flags.ts']]);
  }, 60_000);

  it('commits that change no file (HEAD moves, also on a branch named with a slash)', async () => {
    git('commit', '-q', '--allow-empty', '-m', 'empty');
    const one = git('rev-parse', 'HEAD');
    await until(() => workingCommit() === one, 'the commit to be indexed');
    git('checkout', '-q', '-b', 'topic/nested');
    git('commit', '-q', '--allow-empty', '-m', 'nested');
    const two = git('rev-parse', 'HEAD');
    await until(() => workingCommit() === two, 'the commit on topic/nested to be indexed');
    git('commit', '-q', '--allow-empty', '-m', 'nested again');
    const three = git('rev-parse', 'HEAD');
    await until(() => workingCommit() === three, 'the second commit on topic/nested to be indexed');
  }, 120_000);

  it('stops on SIGINT with exit code 0', async () => {
    const exited = new Promise<number | null>((res) => w.child.once('exit', (code) => res(code)));
    w.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(w.stderr()).toBe('');
  }, 60_000);
});

describe('ca watch: lost events and watchers that stop', () => {
  const FORMAT = 'src/utils/format.ts';
  const fn = (name: string) => `\nexport function ${name}(): number {\n  return 1;\n}\n`;
  const limit = (what: string) => Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${what}'`), { code: 'ENOSPC' });

  /** `watchRepository` in this process on a copy of the fixture, with `watch` in place of `fs.watch`. */
  function watchInProcess(watchDirectory: WatchDirectory, prepare: (repo: string) => void = () => {}) {
    const repo = copyFixture('ca-watch-fallback-');
    prepare(repo);
    const engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    const reports: IndexReport[] = [];
    const notices: string[] = [];
    const waiters: (() => void)[] = [];
    let release!: () => void;
    const stop = new Promise<void>((r) => (release = r));
    const watching = watchRepository(engine, {
      debounceMs: 50,
      rescanMs: 200,
      stop,
      watcher: { watch: watchDirectory },
      print: (r) => {
        reports.push(r);
        for (const w of waiters.splice(0)) w();
      },
      printError: (e) => {
        throw e;
      },
      printNotice: (m) => notices.push(m),
    });
    const report = (n: number) =>
      new Promise<IndexReport>((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`no report ${n} within ${CHANGE_TIMEOUT_MS} ms`)), CHANGE_TIMEOUT_MS);
        const check = () => {
          if (reports.length < n) return waiters.push(check);
          clearTimeout(timer);
          res(reports[n - 1]!);
        };
        check();
      });
    const close = async () => {
      release();
      await watching;
      await engine.dispose();
      rmSync(resolve(repo, '..'), { recursive: true, force: true });
    };
    return { repo, report, notices, close };
  }

  it('events lost (an event without a name) are a full rescan that finds the edit no event named', async () => {
    let rootListener: ((event: string, name: string | null) => void) | null = null;
    const lossy: WatchDirectory = (path, listener) => {
      // src/utils's events are lost; the root's listener is kept to send the overflow.
      const w = watch(path, { persistent: false }, path.endsWith('/src/utils') ? () => undefined : listener);
      if (!path.includes('/src')) rootListener = listener;
      return w;
    };
    const s = watchInProcess(lossy);
    try {
      expect(await s.report(1)).toMatchObject({ files: 16, changed: 16, removed: 0 });
      appendFileSync(join(s.repo, FORMAT), fn('unseenEdit'));
      rootListener!('rename', null);
      expect(await s.report(2)).toMatchObject({ files: 16, changed: 1, removed: 0 });
      expect(s.notices).toEqual([]);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('a directory that cannot be watched (the inotify limit): said once, then the tree is rescanned until the watch ends', async () => {
    const limited: WatchDirectory = (path, listener) => {
      if (path.endsWith('/src/auth')) throw limit(path);
      return watch(path, { persistent: false }, listener);
    };
    const s = watchInProcess(limited);
    try {
      expect(await s.report(1)).toMatchObject({ files: 16, changed: 16, removed: 0 });
      appendFileSync(join(s.repo, FORMAT), fn('foundByRescan'));
      expect(await s.report(2)).toMatchObject({ files: 16, changed: 1, removed: 0 });
      writeFileSync(join(s.repo, 'src/auth/session.ts'), fn('alsoFoundByRescan'));
      expect(await s.report(3)).toMatchObject({ files: 17, changed: 1, removed: 0 }); // the 16 + session.ts
      expect(s.notices).toEqual([
        'the file watcher stopped: cannot watch src/auth: the inotify watch limit is reached (fs.inotify.max_user_watches); rescanning the whole tree every 0.2 s instead',
      ]);
    } finally {
      await s.close();
    }
  }, 60_000);

  it('a HEAD watcher that cannot watch the git directory: said once, and a commit is found by the rescans', async () => {
    const limited: WatchDirectory = (path, listener) => {
      if (path.endsWith('/.git')) throw limit(path);
      return watch(path, { persistent: false }, listener);
    };
    let git!: (...args: string[]) => string;
    const s = watchInProcess(limited, (repo) => {
      git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, env: ENV, encoding: 'utf8' }).trim();
      git('init', '-q', '-b', 'main');
      writeFileSync(join(repo, '.gitignore'), '.codeagent/\n');
      git('add', '-A');
      git('commit', '-q', '-m', 'fixture');
    });
    try {
      expect(await s.report(1)).toMatchObject({ files: 16, changed: 16, removed: 0 });
      expect(s.notices).toEqual([
        `the HEAD watcher stopped: cannot watch ${join(s.repo, '.git')}: the inotify watch limit is reached (fs.inotify.max_user_watches); rescanning the whole tree every 0.2 s instead`,
      ]);
      git('commit', '-q', '--allow-empty', '-m', 'empty');
      const commit = git('rev-parse', 'HEAD');
      const indexed = () => {
        const r = spawnSync(process.execPath, [BIN, 'labels', '--repo', s.repo, '--json'], { env: ENV, encoding: 'utf8' });
        return (JSON.parse(r.stdout) as { labels: { name: string; commit: string | null }[] }).labels.find((l) => l.name === 'working')?.commit;
      };
      await until(() => indexed() === commit, 'the commit to be indexed by a rescan');
    } finally {
      await s.close();
    }
  }, 60_000);
});
