import { fileURLToPath } from 'node:url';
import { CaError } from '@ca/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { childProcessTransport, lineSplitter, nodeIpcTransport, Supervisor, workerThreadTransport, type Codec, type SupervisorEvent, type SupervisorOptions, type Transport } from '../src/index.js';

const FAKE = fileURLToPath(new URL('./fixtures/fakeChild.mjs', import.meta.url));

/** Configuration the fake reads (workerData or FAKE_CONFIG). */
interface FakeConfig {
  readonly hello?: boolean;
  readonly startDelayMs?: number;
  readonly crashOnStart?: boolean;
}

type Req = { op: string; [k: string]: unknown };

const codec: Codec<Req, unknown> = {
  encode: (id, req) => ({ id, ...req }),
  decode(m) {
    if (typeof m !== 'object' || m === null) return { kind: 'invalid', reason: `not an object: ${String(m).slice(0, 40)}` };
    const o = m as Record<string, unknown>;
    if ('hello' in o || 'event' in o) return { kind: 'event', value: o };
    if (typeof o.id !== 'number') return { kind: 'invalid', reason: 'no id' };
    if ('progress' in o) return { kind: 'progress', id: o.id, value: o.progress };
    if ('error' in o) return { kind: 'error', id: o.id, error: new CaError('internal', String(o.error)) };
    return { kind: 'result', id: o.id, value: o.result };
  },
  cancel: (id) => ({ cancel: id }),
  shutdown: () => ({ shutdown: true }),
};

const transports: Record<'child process' | 'worker thread' | 'forked Node child', (config?: FakeConfig, maxLineBytes?: number) => Transport> = {
  'child process': (config = {}, maxLineBytes) =>
    childProcessTransport({
      name: 'fake',
      command: process.execPath,
      args: [FAKE],
      env: { ...process.env, FAKE_CONFIG: JSON.stringify(config) },
      ...(maxLineBytes ? { maxLineBytes } : {}),
    }),
  'forked Node child': (config = {}) => nodeIpcTransport({ name: 'fake', script: FAKE, env: () => ({ ...process.env, FAKE_CONFIG: JSON.stringify(config) }) }),
  'worker thread': (config = {}) => workerThreadTransport({ name: 'fake', script: FAKE, workerData: config, resourceLimits: { maxOldGenerationSizeMb: 32 } }),
};

const open: Supervisor<Req, unknown>[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

function supervisor(transport: Transport, options: Partial<SupervisorOptions<Req, unknown>> = {}, events: SupervisorEvent[] = []): Supervisor<Req, unknown> {
  const s = new Supervisor<Req, unknown>({ transport, codec, backoffMs: 5, onEvent: (e) => events.push(e), ...options });
  open.push(s);
  return s;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return e instanceof CaError ? e.code : `not a CaError: ${String(e)}`;
  }
}

const exits = (events: SupervisorEvent[]): (string | undefined)[] => events.filter((e) => e.type === 'exit').map((e) => e.reason);

for (const [kind, make] of Object.entries(transports)) {
  describe(`supervisor over a ${kind}`, () => {
    it('answers requests and delivers progress in order', async () => {
      const s = supervisor(make());
      const steps: unknown[] = [];
      expect(await s.request({ op: 'echo', value: { a: [1, 2] } })).toEqual({ a: [1, 2] });
      expect(await s.request({ op: 'progress', steps: 3 }, { onProgress: (v) => steps.push(v) })).toBe('done');
      expect(steps).toEqual([1, 2, 3]);
      expect(await codeOf(s.request({ op: 'fail', message: 'no' }))).toBe('internal');
      expect(s.stats()).toMatchObject({ starts: 1, restarts: 0, crashes: 0, oom: 0, inFlight: 0, queued: 0 });
    });

    it('a hung request passes its deadline, the process is replaced and the next request works', async () => {
      const events: SupervisorEvent[] = [];
      const s = supervisor(make(), {}, events);
      await s.start();
      const err = await s.request({ op: 'hang' }, { deadlineMs: 200 }).catch((e: unknown) => e);
      expect((err as CaError).code).toBe('deadline_exceeded');
      expect(await s.request({ op: 'echo', value: 7 })).toBe(7);
      // The stuck process was killed for the deadline (not a crash), and a new one started.
      await waitFor(() => exits(events).length === 1); // the exit is observed after the requests fail
      expect(exits(events)).toEqual(['deadline']);
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 0, crashes: 0 });
    });

    it('a crash fails the request in flight with worker_crashed, restarts with backoff and gives up after the cap', async () => {
      const events: SupervisorEvent[] = [];
      const s = supervisor(make(), { maxRestarts: 2 }, events);
      expect(await s.request({ op: 'echo', value: 1 })).toBe(1);
      // Crash 1 (first process), crash 2 (restart 1), crash 3 (restart 2): 3 > maxRestarts → gave up.
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push(await codeOf(s.request({ op: 'crash' })));
      expect(codes).toEqual(['worker_crashed', 'worker_crashed', 'worker_crashed']);
      expect(s.stats()).toMatchObject({ starts: 3, restarts: 2, crashes: 3, gaveUp: true });
      const after = (await s.request({ op: 'echo', value: 2 }).catch((e: unknown) => e)) as CaError;
      expect(after.code).toBe('worker_crashed');
      expect(after.message).toMatch(/crashed 3 times in a row/);
      expect(events.filter((e) => e.type === 'gave_up')).toHaveLength(1);
    });

    it('a success between crashes resets the count (the cap is on consecutive crashes)', async () => {
      const s = supervisor(make(), { maxRestarts: 1 });
      for (let i = 0; i < 3; i++) {
        expect(await codeOf(s.request({ op: 'crash' }))).toBe('worker_crashed');
        expect(await s.request({ op: 'echo', value: i })).toBe(i);
      }
      expect(s.stats()).toMatchObject({ starts: 4, restarts: 3, crashes: 3, gaveUp: false });
    });

    it('requests queued behind a crash run on the restarted process', async () => {
      const s = supervisor(make(), { maxInFlight: 1 });
      const crash = s.request({ op: 'crash' });
      const next = [s.request({ op: 'echo', value: 'a' }), s.request({ op: 'echo', value: 'b' })];
      expect(await codeOf(crash)).toBe('worker_crashed');
      expect(await Promise.all(next)).toEqual(['a', 'b']);
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 1 });
    });

    it('a flood of unsolicited messages is counted and dropped; the reply still arrives', async () => {
      const s = supervisor(make());
      expect(await s.request({ op: 'flood', count: 5000 })).toBe(5000);
      // 5000 events + 5000 replies to ids never asked.
      expect(s.stats()).toMatchObject({ unsolicited: 10_000, crashes: 0, starts: 1 });
      expect(await s.request({ op: 'echo', value: 'after' })).toBe('after');
    });

    it('garbage on the channel is a protocol_error; the parent survives and the next request works', async () => {
      const events: SupervisorEvent[] = [];
      const s = supervisor(make(), {}, events);
      expect(await codeOf(s.request({ op: 'garbage' }))).toBe('protocol_error');
      expect(await s.request({ op: 'echo', value: 3 })).toBe(3);
      await waitFor(() => exits(events).length === 1); // the exit is observed after the requests fail
      expect(exits(events)).toEqual(['protocol']);
    });

    it('a slow start: requests wait for the handshake; the deadline counts from the call', async () => {
      const s = supervisor(make({ hello: true, startDelayMs: 300 }), {
        handshake: (ctx) => ctx.waitFor((m) => ((m as { hello?: boolean }).hello ? true : undefined)),
      });
      const early = s.request({ op: 'echo', value: 'x' }, { deadlineMs: 50 });
      const patient = s.request({ op: 'echo', value: 'y' }, { deadlineMs: 20_000 });
      expect(await codeOf(early)).toBe('deadline_exceeded');
      expect(await patient).toBe('y');
      expect(s.stats()).toMatchObject({ starts: 1, crashes: 0 });
    });

    it('a process that never completes its handshake fails the waiting requests and counts as a crash', async () => {
      const s = supervisor(make({ startDelayMs: 60_000 }), {
        startTimeoutMs: 200,
        maxRestarts: 0,
        handshake: (ctx) => ctx.waitFor((m) => ((m as { hello?: boolean }).hello ? true : undefined)),
      });
      expect(await codeOf(s.request({ op: 'echo', value: 1 }))).toBe('deadline_exceeded');
      expect(s.stats()).toMatchObject({ starts: 1, crashes: 1, gaveUp: true });
    });

    it('a start timeout carries reason start_failed (a caller tells it from a request passing its deadline)', async () => {
      const s = supervisor(make({ startDelayMs: 60_000 }), {
        startTimeoutMs: 200,
        handshake: (ctx) => ctx.waitFor((m) => ((m as { hello?: boolean }).hello ? true : undefined)),
      });
      const error = await s.request({ op: 'echo', value: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CaError);
      expect([(error as CaError).code, (error as CaError).context.reason]).toEqual(['deadline_exceeded', 'start_failed']);
    });

    it('notify() reaches a started process without an id or a reply, and is refused when none runs', async () => {
      const s = supervisor(make());
      // No process yet: nothing is started for a notification.
      expect(s.notify({ note: 'early' })).toBe(false);
      expect(s.pid).toBeNull();
      await s.start();
      expect(s.notify({ note: 'a' })).toBe(true);
      expect(s.notify({ note: 'b' })).toBe(true);
      expect(s.stats()).toMatchObject({ inFlight: 0, queued: 0 });
      // The channel keeps order: both notes arrived before the request that reads them.
      expect(await s.request({ op: 'notes' })).toEqual(['a', 'b']);
    });

    it('a process dying at start is retried with backoff up to the cap', async () => {
      const s = supervisor(make({ crashOnStart: true, hello: true }), {
        maxRestarts: 2,
        handshake: (ctx) => ctx.waitFor((m) => ((m as { hello?: boolean }).hello ? true : undefined)),
      });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push(await codeOf(s.request({ op: 'echo', value: 1 })));
      expect(codes).toEqual(['worker_crashed', 'worker_crashed', 'worker_crashed', 'worker_crashed']);
      // Three starts (one first, two restarts); the fourth request is refused without a start.
      expect(s.stats()).toMatchObject({ starts: 3, restarts: 2, crashes: 3, gaveUp: true });
    });

    it('passing the memory ceiling kills the process with oom_restart; the next request works', async () => {
      const events: SupervisorEvent[] = [];
      // Threads have a heap limit (32 MB here); child processes are polled for RSS.
      // The fake starts near 45 MB of RSS; 120 MB is reached after ~80 MB of buffers.
      const s = supervisor(make(), { memoryCeilingBytes: 120 * 1024 * 1024, memoryCheckIntervalMs: 20 }, events);
      expect(await codeOf(s.request({ op: 'alloc' }))).toBe('oom_restart');
      await waitFor(() => exits(events).length === 1); // the exit is observed after the requests fail
      expect(exits(events)).toEqual(['oom']);
      expect(await s.request({ op: 'echo', value: 'ok' })).toBe('ok');
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 1, crashes: 1, oom: 1 });
      // Generous: on a loaded machine the fake grows slowly (no timing is asserted).
    }, 60_000);

    it('goes idle: stopped after the idle timeout, started again on demand', async () => {
      const events: SupervisorEvent[] = [];
      const s = supervisor(make(), { idleTimeoutMs: 100 }, events);
      expect(await s.request({ op: 'echo', value: 1 })).toBe(1);
      await waitFor(() => exits(events).length === 1); // the exit is observed after the requests fail
      expect(exits(events)).toEqual(['idle']);
      expect(events.filter((e) => e.type === 'idle_shutdown')).toHaveLength(1);
      expect(s.pid).toBeNull();
      expect(await s.request({ op: 'echo', value: 2 })).toBe(2);
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 0, crashes: 0 });
    });

    it('cancels a queued request and an in-flight one (the process is told, and keeps serving)', async () => {
      const s = supervisor(make(), { maxInFlight: 1 });
      await s.start();
      const inFlight = new AbortController();
      const queued = new AbortController();
      const a = s.request({ op: 'hang' }, { signal: inFlight.signal });
      const b = s.request({ op: 'echo', value: 'never' }, { signal: queued.signal });
      expect(s.stats()).toMatchObject({ inFlight: 1, queued: 1 });
      queued.abort();
      expect(await codeOf(b)).toBe('cancelled');
      expect(s.stats()).toMatchObject({ inFlight: 1, queued: 0 });
      inFlight.abort();
      expect(await codeOf(a)).toBe('cancelled');
      // Request ids start at 1: the hung request was 1 (the queued one never got an id).
      expect(await s.request({ op: 'cancelled' })).toEqual([1]);
      expect(s.stats()).toMatchObject({ starts: 1, crashes: 0 });
      const pre = new AbortController();
      pre.abort();
      expect(await codeOf(s.request({ op: 'echo', value: 1 }, { signal: pre.signal }))).toBe('cancelled');
    });

    it('backpressure: past the queue bound requests fail with overloaded, the others complete', async () => {
      const s = supervisor(make(), { maxInFlight: 2, maxQueued: 3 });
      const accepted = Array.from({ length: 5 }, (_, i) => s.request({ op: 'echo', value: i }));
      // Nothing is in flight until the process starts, so all 5 wait: the bound of 3 refuses 2.
      const codes = await Promise.all(accepted.map(codeOf));
      expect(codes).toEqual(['resolved', 'resolved', 'resolved', 'overloaded', 'overloaded']);
      await s.start();
      const more = Array.from({ length: 6 }, (_, i) => s.request({ op: 'echo', value: i }));
      // Running: 2 go in flight at once, 3 wait, the sixth is refused.
      expect(await Promise.all(more.map(codeOf))).toEqual(['resolved', 'resolved', 'resolved', 'resolved', 'resolved', 'overloaded']);
    });

    it('stop() ends the process without closing: the request in flight fails, the next one starts a new process', async () => {
      const events: SupervisorEvent[] = [];
      const s = supervisor(make(), {}, events);
      const pending = codeOf(s.request({ op: 'hang' }));
      await waitFor(() => s.stats().inFlight === 1);
      await s.stop();
      expect(await pending).toBe('worker_crashed');
      expect(exits(events)).toEqual(['stop']);
      expect(await s.request({ op: 'echo', value: 5 })).toBe(5);
      // A stop is ours, not a crash: no restart counted.
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 0, crashes: 0 });
    });

    it("kill('oom') replaces a process that reports itself out of memory", async () => {
      const s = supervisor(make());
      const pending = codeOf(s.request({ op: 'hang' }));
      await waitFor(() => s.stats().inFlight === 1);
      s.kill('oom');
      expect(await pending).toBe('oom_restart');
      expect(await s.request({ op: 'echo', value: 6 })).toBe(6);
      expect(s.stats()).toMatchObject({ starts: 2, restarts: 1, crashes: 1, oom: 1 });
      // Generous: on a loaded machine the fake grows slowly (no timing is asserted).
    }, 60_000);

    it('close() fails what is pending with cancelled and refuses new requests', async () => {
      const s = supervisor(make());
      const pending = codeOf(s.request({ op: 'hang' }));
      await waitFor(() => s.stats().inFlight === 1);
      await s.close();
      expect(await pending).toBe('cancelled');
      expect(await codeOf(s.request({ op: 'echo', value: 1 }))).toBe('cancelled');
      expect(s.pid).toBeNull();
    });
  });
}

describe('child process transport', () => {
  it('a stdout line over the bound is a protocol_error, not unbounded memory', async () => {
    const events: SupervisorEvent[] = [];
    const s = supervisor(transports['child process']({}, 64 * 1024), {}, events);
    expect(await codeOf(s.request({ op: 'longline', bytes: 1024 * 1024 }))).toBe('protocol_error');
    await waitFor(() => exits(events).length === 1); // the exit is observed after the requests fail
      expect(exits(events)).toEqual(['protocol']);
    expect(await s.request({ op: 'echo', value: 'fine' })).toBe('fine');
  });

  it('a command that cannot be spawned fails the request with worker_crashed', async () => {
    const s = supervisor(childProcessTransport({ name: 'missing', command: '/nonexistent/ca-no-such-binary' }), { maxRestarts: 0 });
    const err = (await s.request({ op: 'echo', value: 1 }).catch((e: unknown) => e)) as CaError;
    expect(err.code).toBe('worker_crashed');
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('lineSplitter', () => {
  // Generated: random texts cut into random chunks split to the same lines as a whole-string split.
  it('splits any chunking of a text into the same lines', () => {
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: rand(8) }, () => 'ab€\n'.slice(0, rand(3) + 1).replace('\n', '') + 'x'.repeat(rand(20)));
      const text = lines.map((l) => `${l}\n`).join('');
      const bytes = Buffer.from(text);
      const got: string[] = [];
      const split = lineSplitter(1000, (l) => got.push(l), () => got.push('<overflow>'));
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + rand(7);
        split(bytes.subarray(at, at + n));
        at += n;
      }
      expect(got).toEqual(lines);
    }
  });

  it('reports an overlong line once and resumes at the next line', () => {
    const got: string[] = [];
    const split = lineSplitter(4, (l) => got.push(l), () => got.push('<overflow>'));
    split(Buffer.from('ab\nabcdef'));
    split(Buffer.from('ghij\ncd\nabcde\n'));
    expect(got).toEqual(['ab', '<overflow>', 'cd', '<overflow>']);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
