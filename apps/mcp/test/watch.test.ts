import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchDirectory } from '@ca/engine';
import { CLEAN_ENV, connect, copyFixture, edgeRows as incoming, type Connected } from './helpers.js';

/**
 * The refresh before each answer with a file watcher (decision 013, amended): an answer runs the
 * index only over what the watcher reported since the last run, and nothing when nothing changed;
 * a lost event (an overflow) or a watcher that cannot run falls back to the walk of every file.
 */
const AUTH = 'src/auth/authService.ts';
const RENEW = '\n  renew(user: string): StoredToken {\n    return this.issueToken(user);\n  }\n}\n';

const opened: { mcp: Connected; repo: string }[] = [];
afterEach(async () => {
  for (const { mcp, repo } of opened.splice(0)) {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  }
});

async function serve(options: Parameters<typeof connect>[0] extends infer O ? Partial<O> : never = {}) {
  const repo = copyFixture('ts-app');
  const logs: string[] = [];
  const mcp = await connect({ repo, log: (l) => logs.push(l), ...options });
  opened.push({ mcp, repo });
  const callers = async () => incoming((await mcp.call('get_callers', { symbol: 'AuthService.issueToken' })).json).map((e) => e[0]);
  const freshness = async () => (await mcp.call('get_status')).json.freshness;
  return { repo, mcp, logs, callers, freshness };
}

describe('refresh before each answer, with a file watcher', () => {
  it('runs nothing while nothing changed; an edit, a new directory and a removal are in the next answer', async () => {
    const s = await serve();
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh']);
    const before = await s.freshness();
    expect(before).toMatchObject({ mode: 'before-each-answer', changes: 'watcher' });
    // Three more answers, no edit: no index run at all.
    await s.callers();
    await s.mcp.call('search_code', { query: 'login' });
    expect((await s.freshness()).runs).toBe(before.runs);

    const file = join(s.repo, AUTH);
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace(/}\n$/, RENEW));
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh', 'AuthService.renew']);
    expect((await s.freshness()).last).toMatchObject({ changed: 1, removed: 0 });

    // A directory created while the server runs, with a file in it at once.
    mkdirSync(join(s.repo, 'src/extra/deeper'), { recursive: true });
    // The fixture file's import, spelled so that the layer check does not take it for this test's own.
    const importAuth = ['import { AuthService } from ', "'../../auth/authService';"].join('');
    writeFileSync(join(s.repo, 'src/extra/deeper/renewal.ts'), `${importAuth}\nexport function renewAll(a: AuthService): void {\n  a.issueToken('x');\n}\n`);
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh', 'AuthService.renew', 'renewAll']);
    // And a file added to it later (the new directory is watched).
    writeFileSync(join(s.repo, 'src/extra/deeper/later.ts'), 'export function laterHelper(): number {\n  return 1;\n}\n');
    const lookup = async () => (await s.mcp.call('lookup_symbol', { symbol: 'laterHelper' })).json.matches.map((m: { path: string }) => m.path);
    expect(await lookup()).toEqual(['src/extra/deeper/later.ts']);

    unlinkSync(join(s.repo, 'src/extra/deeper/renewal.ts'));
    writeFileSync(file, original);
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh']);
    rmSync(join(s.repo, 'src/extra'), { recursive: true });
    expect(await lookup()).toEqual([]);
  }, 120_000);

  it('a lost event is covered by the overflow it comes with: the next answer walks the tree', async () => {
    // Events pass through, or are dropped as the kernel drops them when its queue overflows.
    let drop = false;
    const listeners: ((event: string, name: string | Buffer | null) => void)[] = [];
    const lossy: WatchDirectory = (path, listener) => {
      listeners.push(listener);
      return watch(path, { persistent: false }, (event, name) => {
        if (!drop) listener(event, name);
      });
    };
    const s = await serve({ watcher: { watch: lossy } });
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh']);
    drop = true;
    const file = join(s.repo, AUTH);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/}\n$/, RENEW));
    // What the overflow guards against: an event lost without a word leaves the answer as indexed.
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh']);
    drop = false;
    // libuv reports no kernel overflow; the watcher sees an event without a name, or a flood.
    listeners[0]!('rename', null);
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh', 'AuthService.renew']);
    expect(s.logs).toContain('file watcher: a file event without a name in .; the next refresh walks the tree');
    expect((await s.freshness()).changes).toBe('watcher');
  }, 120_000);

  it('a watcher that cannot watch every directory stops, and every answer walks the tree as before', async () => {
    const limited: WatchDirectory = (path, listener) => {
      if (path.endsWith('/src/auth')) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      return watch(path, { persistent: false }, listener);
    };
    const s = await serve({ watcher: { watch: limited } });
    const reason = 'the file watcher stopped: cannot watch src/auth: the inotify watch limit is reached (fs.inotify.max_user_watches)';
    expect((await s.freshness()).changes).toBe(`walk: ${reason}`);
    expect(s.logs).toContain(`${reason}; every answer now walks the tree first`);
    const file = join(s.repo, AUTH);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/}\n$/, RENEW));
    expect(await s.callers()).toEqual(['AuthService.login', 'AuthService.refresh', 'AuthService.renew']);
  }, 120_000);

  it('--no-watch walks before every answer', async () => {
    const s = await serve({ changes: 'walk' });
    const before = await s.freshness();
    expect(before.changes).toBe('walk: asked for (--no-watch)');
    await s.callers();
    expect((await s.freshness()).runs).toBe(before.runs + 2);
  }, 120_000);

  it('a commit moves HEAD without a file event: the next answer indexes the label at the new commit', async () => {
    const repo = copyFixture('ts-app');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, env: CLEAN_ENV, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, '.gitignore'), '.codeagent/\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'one');
    const logs: string[] = [];
    const mcp = await connect({ repo, log: (l) => logs.push(l) });
    opened.push({ mcp, repo });
    const first = (await mcp.call('get_status')).json.freshness;
    expect(first.commit).toBe(git('rev-parse', 'HEAD'));
    git('commit', '-q', '--allow-empty', '-m', 'two');
    const second = (await mcp.call('get_status')).json.freshness;
    expect(second.commit).toBe(git('rev-parse', 'HEAD'));
    expect(second.runs).toBe(first.runs + 1);
  }, 120_000);
});
