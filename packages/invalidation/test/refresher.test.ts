import { describe, expect, it } from 'vitest';
import { Refresher, type RefreshRequest, type RefresherTimers } from '../src/index.js';

/** A clock the test advances by hand: timers fire in order of their due time. */
function fakeTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  const timers: RefresherTimers = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = ++seq;
      due.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (h) => void due.delete(h as number),
  };
  /** Advances the clock by `ms`, firing what falls due (and letting promise callbacks run). */
  const advance = async (ms: number) => {
    const until = now + ms;
    for (;;) {
      await flush();
      const next = [...due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > until) break;
      now = next[1].at;
      due.delete(next[0]);
      next[1].fn();
    }
    now = until;
    await flush();
  };
  return { timers, advance };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** A refresher whose runs are recorded; each run takes `runMs` of the fake clock when `slow` is set. */
function setup(options: { burst?: boolean; pending?: number[] } = {}) {
  const { timers, advance } = fakeTimers();
  const runs: RefreshRequest[] = [];
  const events: string[] = [];
  const pending = [...(options.pending ?? [])];
  let answering = 0;
  const refresher = new Refresher({
    run: async (r) => {
      runs.push(r);
      events.push(`run ${r.paths === null ? 'all' : r.paths.join(',')}`);
      return { embeddingsPending: pending.shift() ?? 0 };
    },
    fill: async (max) => {
      events.push(`fill ${max}${answering > 0 ? ' DURING AN ANSWER' : ''}`);
      return { pending: pending.shift() ?? 0 };
    },
    debounceMs: 300,
    ...(options.burst ? { burst: { files: 3, windowMs: 30_000, quietMs: 1_000, chunk: 2 } } : {}),
    slice: 128,
    timers,
  });
  return {
    refresher,
    runs,
    events,
    advance,
    answer: <T>(work: () => Promise<T>) => refresher.answer(async () => {
      answering++;
      try {
        return await work();
      } finally {
        answering--;
      }
    }),
  };
}

describe('Refresher', () => {
  it('debounces and coalesces events into one run over the changed paths', async () => {
    const t = setup();
    t.refresher.notify(['src/a.ts']);
    await t.advance(200);
    t.refresher.notify(['src/b.ts', 'src/a.ts']);
    await t.advance(299);
    expect(t.runs).toEqual([]);
    await t.advance(1);
    expect(t.runs).toEqual([{ paths: ['src/a.ts', 'src/b.ts'], reason: '2 changed paths' }]);
  });

  it('a burst (more than 3 paths in the window) waits for 1 s of quiet, then runs in chunks of 2', async () => {
    const t = setup({ burst: true });
    t.refresher.notify(['a', 'b', 'c', 'd', 'e']);
    await t.advance(300);
    expect(t.runs).toEqual([]);
    await t.advance(700);
    expect(t.runs.map((r) => r.paths)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(t.runs[0]!.reason).toBe('2 changed paths (burst: 3 more to go)');
  });

  it('an overflow (dropped events, ENOSPC) rescans everything, never silently stale', async () => {
    const t = setup();
    t.refresher.notify(['src/a.ts']);
    t.refresher.overflow('the file watcher failed (ENOSPC)');
    await t.advance(300);
    expect(t.runs).toEqual([{ paths: null, reason: 'the file watcher failed (ENOSPC)' }]);
  });

  it('a refresh asked for during a run waits for one more run after it; callers meanwhile share that run', async () => {
    const t = setup();
    const first = t.refresher.refresh({ reason: 'one' });
    const second = t.refresher.refresh({ reason: 'two' });
    const third = t.refresher.refresh({ reason: 'three' });
    await Promise.all([first, second, third]);
    expect(t.runs.map((r) => r.reason)).toEqual(['one', 'three']);
    expect(second).toBe(third);
  });

  it('fills vectors a slice at a time behind the runs, never while an answer is produced', async () => {
    const t = setup({ pending: [300, 172, 44, 0] });
    await t.refresher.refresh();
    let release!: () => void;
    const answering = t.answer(() => new Promise<void>((r) => (release = r)));
    await t.advance(10);
    expect(t.events).toEqual(['run all']);
    release();
    await answering;
    await t.advance(10);
    expect(t.events).toEqual(['run all', 'fill 128', 'fill 128', 'fill 128']);
    expect(t.refresher.state().embeddingsPending).toBe(0);
  });

  it('a failed run over some paths makes the next run look at everything', async () => {
    const { timers, advance } = fakeTimers();
    const runs: (readonly string[] | null)[] = [];
    const refresher = new Refresher({
      run: async (r) => {
        runs.push(r.paths);
        if (runs.length === 1) throw new Error('disk full');
        return { embeddingsPending: 0 };
      },
      debounceMs: 300,
      slice: 1,
      timers,
    });
    refresher.notify(['src/a.ts']);
    await advance(300);
    await refresher.refresh({ full: false }).catch(() => undefined);
    expect(runs).toEqual([['src/a.ts'], null]);
    expect(refresher.state()).toMatchObject({ runs: 1, failures: 1, lastError: null });
  });

  it('catchUp (an answer with a watcher): no run while nothing changed; one run over what changed, awaited by concurrent callers', async () => {
    const t = setup();
    await t.refresher.refresh({ reason: 'start' });
    expect(await t.refresher.catchUp()).toBeNull();
    expect(await t.refresher.catchUp()).toBeNull();
    t.refresher.notify(['src/a.ts']);
    // The answer does not wait for the debounce: it runs at once, and the debounced run is cancelled.
    // The second caller finds the change taken by the first one's run, and waits for that run.
    const [a, b] = await Promise.all([t.refresher.catchUp(), t.refresher.catchUp()]);
    expect(a).toEqual({ embeddingsPending: 0 });
    expect(b).toBeNull();
    await t.advance(1_000);
    expect(t.runs.map((r) => r.paths)).toEqual([null, ['src/a.ts']]);
    // A HEAD move (a commit, a checkout) is a run over no path: the engine asks git what changed.
    t.refresher.notify([]);
    await t.refresher.catchUp();
    expect(t.runs.map((r) => r.paths)).toEqual([null, ['src/a.ts'], []]);
  });

  it('catchUp waits for the run under way (it may carry the caller\'s edit), and for one more when a change came in after it started', async () => {
    const { timers } = fakeTimers();
    const runs: (readonly string[] | null)[] = [];
    let finish: (() => void)[] = [];
    const refresher = new Refresher({
      run: async (r) => {
        runs.push(r.paths);
        await new Promise<void>((res) => finish.push(res));
        return { embeddingsPending: 0 };
      },
      debounceMs: 300,
      slice: 1,
      timers,
    });
    const running = refresher.refresh({ full: false, reason: 'x' });
    let done = false;
    const waiting = refresher.catchUp().then((r) => {
      done = true;
      return r;
    });
    await flush();
    expect(done).toBe(false);
    finish.shift()!();
    await running;
    expect(await waiting).toBeNull();
    expect(runs).toEqual([[]]);
    // An event during a run: the caller waits for the run under way and one more.
    const second = refresher.refresh({ full: false });
    refresher.notify(['src/b.ts']);
    const caught = refresher.catchUp();
    await flush();
    finish.shift()!();
    await second;
    await flush();
    finish.shift()!();
    await caught;
    expect(runs).toEqual([[], [], ['src/b.ts']]);
  });

  it('a failed full run leaves a rescan due: the next catchUp runs everything', async () => {
    const runs: (readonly string[] | null)[] = [];
    const refresher = new Refresher({
      run: async (r) => {
        runs.push(r.paths);
        if (runs.length === 1) throw new Error('database is locked');
        return { embeddingsPending: 0 };
      },
      debounceMs: 300,
      slice: 1,
      timers: fakeTimers().timers,
    });
    await refresher.refresh({ reason: 'start' }).catch(() => undefined);
    expect(refresher.due()).toBe(true);
    await refresher.catchUp();
    expect(runs).toEqual([null, null]);
    expect(await refresher.catchUp()).toBeNull();
  });
});
