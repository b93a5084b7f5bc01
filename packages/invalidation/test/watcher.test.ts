import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mayHoldIndexedFiles, TreeWatcher, type TreeWatcherOptions, type WatchDirectory } from '../src/index.js';

const NO_KEEP = { include: [], exclude: [], keep: [] } as never;

/** A watcher over a fresh directory, recording what it reports. */
function watched(options: Partial<TreeWatcherOptions> = {}, layout: (root: string) => void = () => {}) {
  const root = mkdtempSync(join(tmpdir(), 'ca-watch-'));
  layout(root);
  const changes: string[] = [];
  const overflows: string[] = [];
  const failures: string[] = [];
  const watcher = new TreeWatcher({
    root,
    watchDir: mayHoldIndexedFiles(NO_KEEP),
    onChange: (paths) => changes.push(...paths),
    onOverflow: (reason) => overflows.push(reason),
    onFailure: (reason) => failures.push(reason),
    ...options,
  }).start();
  opened.push({ watcher, root });
  return { root, watcher, changes, overflows, failures };
}

const opened: { watcher: TreeWatcher; root: string }[] = [];
afterEach(() => {
  for (const { watcher, root } of opened.splice(0)) {
    watcher.close();
    rmSync(root, { recursive: true, force: true });
  }
});

/** Waits until `cond` holds (file events take a turn of the event loop, more under load). */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('TreeWatcher', () => {
  it('reports in-place edits, also of a file an editor replaced by a rename (which Node 20 recursive fs.watch then stops reporting)', async () => {
    const w = watched({}, (root) => {
      mkdirSync(join(root, 'src'));
      writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;\n');
    });
    appendFileSync(join(w.root, 'src/a.ts'), '// 1\n');
    await until(() => w.changes.includes('src/a.ts'), 'the first edit');
    // An atomic save: write a temporary file, rename it over the original.
    writeFileSync(join(w.root, 'src/a.ts.tmp'), 'export const a = 2;\n');
    renameSync(join(w.root, 'src/a.ts.tmp'), join(w.root, 'src/a.ts'));
    await until(() => w.changes.filter((c) => c === 'src/a.ts').length >= 2, 'the rename');
    w.changes.length = 0;
    appendFileSync(join(w.root, 'src/a.ts'), '// 3\n');
    await until(() => w.changes.includes('src/a.ts'), 'an in-place edit after the rename');
    expect(w.overflows).toEqual([]);
  });

  it('watches a new directory before reporting it, so a file created in it afterwards is reported too', async () => {
    const w = watched();
    expect(w.watcher.watched).toBe(1);
    mkdirSync(join(w.root, 'pkg/lib'), { recursive: true });
    await until(() => w.changes.includes('pkg'), 'the new directory');
    // Created before the watch on pkg/lib existed or after: either pkg is reported (a run walks it whole) or the file is.
    expect(w.watcher.watched).toBe(3);
    writeFileSync(join(w.root, 'pkg/lib/b.ts'), 'export const b = 1;\n');
    await until(() => w.changes.includes('pkg/lib/b.ts'), 'the file in the new directory');
    // A removed directory is reported and its watches closed.
    rmSync(join(w.root, 'pkg'), { recursive: true });
    await until(() => w.watcher.watched === 1, 'the watches of the removed directory to close');
    expect(w.changes).toContain('pkg');
    expect(w.failures).toEqual([]);
  });

  it('does not watch excluded directories (node_modules, .git, dist) unless a keep pattern reaches inside', async () => {
    const layout = (root: string) => {
      for (const d of ['node_modules/x', '.git/refs', 'dist', 'src']) mkdirSync(join(root, d), { recursive: true });
    };
    const w = watched({}, layout);
    expect(w.watcher.watched).toBe(2); // the root and src
    writeFileSync(join(w.root, 'node_modules/x/index.js'), '1');
    writeFileSync(join(w.root, 'src/c.ts'), '1');
    await until(() => w.changes.includes('src/c.ts'), 'the edit in src');
    expect(w.changes.filter((c) => c.startsWith('node_modules/'))).toEqual([]);
    const kept = watched({ watchDir: mayHoldIndexedFiles({ include: [], exclude: [], keep: ['dist/generated/**'] } as never) }, layout);
    expect(kept.watcher.watched).toBe(3); // dist too
  });

  it('a flood of events (the kernel may have dropped some) and an event without a name are overflows', async () => {
    const w = watched({ floodEvents: 5 });
    for (let i = 0; i < 10; i++) writeFileSync(join(w.root, `f${i}.ts`), `${i}`);
    await until(() => w.overflows.length > 0, 'the overflow');
    expect(w.overflows).toEqual(['5 file events within a second (the kernel may have dropped some)']);
    let listener: ((event: string, name: string | null) => void) | null = null;
    const fake: WatchDirectory = (_path, l) => {
      listener = l;
      return { close: () => {}, on: () => ({}) } as never;
    };
    const v = watched({ watch: fake });
    listener!('rename', null);
    expect(v.overflows).toEqual(['a file event without a name in .']);
    expect(v.watcher.active).toBe(true);
  });

  it('a directory that cannot be watched (the inotify limit) stops the watcher: a failure, never a partial watch', () => {
    const closed: string[] = [];
    const limited: WatchDirectory = (path) => {
      if (path.endsWith('/deep')) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      return { close: () => void closed.push(path), on: () => ({}) } as never;
    };
    const w = watched({ watch: limited }, (root) => mkdirSync(join(root, 'a/deep'), { recursive: true }));
    expect(w.failures).toEqual(['cannot watch a/deep: the inotify watch limit is reached (fs.inotify.max_user_watches)']);
    expect(w.watcher.active).toBe(false);
    expect(w.watcher.watched).toBe(0);
    expect(closed.length).toBe(2); // the root and a, closed again
  });
});
