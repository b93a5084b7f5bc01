import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRepository, HeadWatcher, type WatchDirectory } from '../src/index.js';
import { tempDir, write } from './helpers.js';

const GIT_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));

function gitIn(cwd: string) {
  return (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

const opened: { watcher: HeadWatcher; dirs: string[] }[] = [];
afterEach(() => {
  for (const { watcher, dirs } of opened.splice(0)) {
    watcher.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

/** A repository with one commit on main. */
function repository() {
  const root = tempDir();
  const git = gitIn(root);
  git('init', '-q', '-b', 'main');
  write(root, 'src/a.ts');
  git('add', '-A');
  git('commit', '-q', '-m', 'one');
  return { root, git };
}

function watchHead(dir: string, cleanup: string[], watch?: WatchDirectory) {
  const moves: number[] = [];
  const failures: string[] = [];
  const watcher = new HeadWatcher({
    git: GitRepository.locate(dir)!,
    onMove: () => moves.push(moves.length + 1),
    onFailure: (reason) => failures.push(reason),
    ...(watch ? { watch } : {}),
  }).start();
  opened.push({ watcher, dirs: cleanup });
  return { watcher, moves, failures };
}

/** Waits until `cond` holds (file events take a turn of the event loop, more under load). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('HeadWatcher', () => {
  it('reports each commit and checkout once, follows HEAD to a branch named with a slash, and not what leaves HEAD where it is', async () => {
    const { root, git } = repository();
    const w = watchHead(root, [root]);
    expect(w.watcher.watched).toEqual([join(root, '.git'), join(root, '.git/refs/heads')]);
    git('commit', '-q', '--allow-empty', '-m', 'two');
    await until(() => w.moves.length === 1, 'the commit');
    git('checkout', '-q', '-b', 'topic/nested');
    await until(() => w.moves.length === 2, 'the checkout');
    expect(w.watcher.watched).toEqual([join(root, '.git'), join(root, '.git/refs/heads/topic')]);
    git('commit', '-q', '--allow-empty', '-m', 'three');
    await until(() => w.moves.length === 3, 'the first commit on topic/nested');
    git('commit', '-q', '--allow-empty', '-m', 'four');
    await until(() => w.moves.length === 4, 'the second commit on topic/nested');
    // Neither of these moves HEAD; the commit after them is the fifth move, not the sixth.
    write(root, 'src/b.ts');
    git('add', '-A');
    git('branch', 'elsewhere', 'main');
    git('commit', '-q', '-m', 'five');
    await until(() => w.moves.length === 5, 'the commit after the index update');
    expect(w.moves.length).toBe(5);
    expect(w.failures).toEqual([]);
  });

  it('packed refs, a ref directory removed and created again, and a detached HEAD', async () => {
    const { root, git } = repository();
    git('checkout', '-q', '-b', 'topic/x');
    git('commit', '-q', '--allow-empty', '-m', 'two');
    const w = watchHead(root, [root]);
    // pack-refs moves the loose ref into packed-refs and prunes refs/heads/topic: the stamp
    // moves (a run that finds nothing changed), and the next commit creates the directory again.
    git('pack-refs', '--all', '--prune');
    await until(() => w.moves.length === 1, 'pack-refs');
    // The branch's loose ref and its directory are gone: the nearest directory above is watched.
    expect(w.watcher.watched).toEqual([join(root, '.git'), join(root, '.git/refs/heads')]);
    git('commit', '-q', '--allow-empty', '-m', 'three');
    await until(() => w.moves.length === 2, 'the commit after pack-refs');
    expect(w.watcher.watched).toEqual([join(root, '.git'), join(root, '.git/refs/heads/topic')]);
    git('commit', '-q', '--allow-empty', '-m', 'four');
    await until(() => w.moves.length === 3, 'the second commit after pack-refs');
    git('checkout', '-q', '--detach');
    await until(() => w.moves.length === 4, 'the detach');
    git('commit', '-q', '--allow-empty', '-m', 'detached');
    await until(() => w.moves.length === 5, 'the commit on a detached HEAD');
    expect(w.failures).toEqual([]);
  });

  it("a linked worktree's HEAD lives outside its tree", async () => {
    const { root, git } = repository();
    const linked = join(tempDir(), 'linked');
    git('worktree', 'add', '-q', '-b', 'side', linked);
    const w = watchHead(linked, [root, linked]);
    expect(w.watcher.watched).toEqual([join(root, '.git/worktrees/linked'), join(root, '.git'), join(root, '.git/refs/heads')]);
    gitIn(linked)('commit', '-q', '--allow-empty', '-m', 'side');
    await until(() => w.moves.length === 1, 'the commit in the linked worktree');
    // A commit in the main worktree moves main, not the linked worktree's HEAD.
    git('commit', '-q', '--allow-empty', '-m', 'main');
    gitIn(linked)('commit', '-q', '--allow-empty', '-m', 'side again');
    await until(() => w.moves.length === 2, 'the second commit in the linked worktree');
    expect(w.moves.length).toBe(2);
  });

  it('a directory that cannot be watched (the inotify limit) is a failure', () => {
    const { root } = repository();
    const limited: WatchDirectory = (path) => {
      if (path.endsWith('/refs/heads')) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      return { close: () => {}, on: () => ({}) } as never;
    };
    const w = watchHead(root, [root], limited);
    expect(w.failures).toEqual([`cannot watch ${join(root, '.git/refs/heads')}: the inotify watch limit is reached (fs.inotify.max_user_watches)`]);
    expect([w.watcher.active, w.watcher.watched]).toEqual([false, []]);
  });
});
