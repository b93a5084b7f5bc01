/**
 * One supervised process (started on demand through a transport) and the requests sent to it:
 * ids and the pending map, deadlines, cancellation, restarts with backoff and a cap, a memory
 * ceiling, idle shutdown and backpressure. Decision 029 says why these rules.
 */
import { CaError, type ErrorCode } from '@ca/schema';
import type { Channel, ExitInfo, Transport } from './transports.js';

/** What the codec makes of one message from the process. */
export type Decoded<Res> =
  | { readonly kind: 'result'; readonly id: number; readonly value: Res }
  | { readonly kind: 'error'; readonly id: number; readonly error: Error }
  | { readonly kind: 'progress'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'event'; readonly value: unknown }
  | { readonly kind: 'invalid'; readonly reason: string };

/** The wire format of one kind of process: how requests are framed and replies read. */
export interface Codec<Req, Res> {
  encode(id: number, request: Req): unknown;
  decode(message: unknown): Decoded<Res>;
  /** The message that asks the process to drop request `id` (none: a late reply is ignored). */
  cancel?(id: number): unknown;
  /** The message that asks the process to exit cleanly (none: it is killed). */
  shutdown?(): unknown;
}

/** What a handshake can do with a process that just started (before any request reaches it). */
export interface HandshakeContext<Req, Res> {
  readonly pid: number;
  /** Sends a request to this process (bypassing the queue and the in-flight bound). */
  request(payload: Req, deadlineMs?: number): Promise<Res>;
  /**
   * Waits for a raw message that `select` accepts (returns a value); the messages it sees are
   * not decoded further. `select` throwing fails the handshake.
   */
  waitFor<T>(select: (message: unknown) => T | undefined): Promise<T>;
}

/** Lifecycle notifications. */
export interface SupervisorEvent {
  readonly type: 'spawned' | 'ready' | 'exit' | 'restart' | 'idle_shutdown' | 'gave_up' | 'event' | 'log' | 'stray' | 'memory';
  readonly pid?: number;
  /** exit: why (`crash`, `oom`, `deadline`, `protocol`, `idle`, `close`, `start_failed`). */
  readonly reason?: string;
  /** event: the unsolicited message; log: the stderr line; memory: the RSS polled (bytes). */
  readonly value?: unknown;
}

/** The policy of a supervisor. Every limit has a default. */
export interface SupervisorOptions<Req, Res> {
  readonly transport: Transport;
  readonly codec: Codec<Req, Res>;
  /** Default deadline of a request, from the `request()` call (queueing and start count). Default none. */
  readonly deadlineMs?: number;
  /** Kill the process when an in-flight request passes its deadline (it is presumed stuck). Default true. */
  readonly killOnDeadline?: boolean;
  /** Consecutive crashes (no successful reply between them) before the supervisor gives up. Default 3. */
  readonly maxRestarts?: number;
  /** Wait before the n-th consecutive restart: `backoffMs * 2^(n-1)`, at most `maxBackoffMs`. Defaults 100 / 5000. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** RSS ceiling polled from /proc (child processes); past it the process is killed and its requests fail with `oom_restart`. */
  readonly memoryCeilingBytes?: number;
  readonly memoryCheckIntervalMs?: number;
  /** Stop the process after this long without requests; the next request starts it again. Default never. */
  readonly idleTimeoutMs?: number;
  /** Requests written to the process at once. Default 1. */
  readonly maxInFlight?: number;
  /** Requests waiting beyond those; past it `request()` fails with `overloaded`. Default 10 000. */
  readonly maxQueued?: number;
  /** Spawn → handshake done. Default 30 s. */
  readonly startTimeoutMs?: number;
  /** How long a clean shutdown may take before the kill. Default 2 s. */
  readonly shutdownGraceMs?: number;
  readonly handshake?: (ctx: HandshakeContext<Req, Res>) => Promise<unknown>;
  readonly onEvent?: (event: SupervisorEvent) => void;
}

/** Per-request options. */
export interface RequestOptions {
  /** Overrides the supervisor's default deadline (ms from this call). */
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
  /** Intermediate messages of this request (`progress` from the codec). */
  readonly onProgress?: (value: unknown) => void;
}

/** Counters, for tests, health reports and benchmarks. */
export interface SupervisorStats {
  readonly pid: number | null;
  readonly starts: number;
  /** Starts that followed a crash. */
  readonly restarts: number;
  readonly crashes: number;
  /** Crashes that were out of memory (the ceiling, a resource limit or a V8 heap death). */
  readonly oom: number;
  readonly inFlight: number;
  readonly queued: number;
  /** Unsolicited messages and replies to unknown ids, dropped. */
  readonly unsolicited: number;
  readonly gaveUp: boolean;
}

interface Pending<Res> {
  id: number;
  readonly payload: unknown;
  readonly internal: boolean;
  readonly resolve: (value: Res) => void;
  readonly reject: (error: unknown) => void;
  readonly onProgress?: (value: unknown) => void;
  channel: Channel | null;
  timer: NodeJS.Timeout | null;
  cleanup: (() => void) | null;
  settled: boolean;
}

type KillReason = 'crash' | 'oom' | 'deadline' | 'protocol' | 'idle' | 'stop' | 'close' | 'start_failed';

interface Live {
  readonly channel: Channel;
  ready: boolean;
  killReason: KillReason | null;
  protocolDetail: string;
  readonly exited: Promise<void>;
  waiters: ((m: unknown) => boolean)[];
  /** The crash of this process was counted (once, whoever noticed it first). */
  counted: boolean;
}

const ERROR_BY_REASON: Record<KillReason, ErrorCode> = {
  crash: 'worker_crashed',
  oom: 'oom_restart',
  deadline: 'worker_crashed',
  protocol: 'protocol_error',
  idle: 'worker_crashed',
  stop: 'worker_crashed',
  close: 'cancelled',
  start_failed: 'worker_crashed',
};

/** Supervises one process. See the package README for the policy. */
export class Supervisor<Req, Res> {
  private readonly o: SupervisorOptions<Req, Res>;
  private readonly queue: Pending<Res>[] = [];
  private readonly inFlight = new Map<number, Pending<Res>>();
  private live: Live | null = null;
  private starting: Promise<void> | null = null;
  private nextId = 1;
  private consecutiveCrashes = 0;
  private counters = { starts: 0, restarts: 0, crashes: 0, oom: 0, unsolicited: 0 };
  private gaveUp: CaError | null = null;
  private closed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private memoryTimer: NodeJS.Timeout | null = null;

  constructor(options: SupervisorOptions<Req, Res>) {
    this.o = options;
  }

  /** The running process's id, or null. */
  get pid(): number | null {
    return this.live?.channel.pid ?? null;
  }

  stats(): SupervisorStats {
    return {
      pid: this.pid,
      ...this.counters,
      inFlight: [...this.inFlight.values()].filter((p) => !p.internal).length,
      queued: this.queue.length,
      gaveUp: this.gaveUp !== null,
    };
  }

  /** Starts the process now (when none runs) and resolves once its handshake is done. */
  async start(): Promise<void> {
    if (this.closed) throw this.closedError();
    if (this.gaveUp) throw this.gaveUp;
    if (this.live?.ready) return;
    await this.ensureStarted();
  }

  /**
   * Sends one request. Rejects with a CaError: `deadline_exceeded`, `cancelled`, `overloaded`,
   * `worker_crashed`, `oom_restart`, `protocol_error`, or the error the codec decoded.
   */
  request(payload: Req, options: RequestOptions = {}): Promise<Res> {
    if (this.closed) return Promise.reject(this.closedError());
    if (this.gaveUp) return Promise.reject(this.gaveUp);
    if (options.signal?.aborted) return Promise.reject(cancelledError(this.o.transport.name, options.signal.reason));
    const maxQueued = this.o.maxQueued ?? 10_000;
    if (this.queue.length >= maxQueued) {
      return Promise.reject(
        new CaError('overloaded', `${this.o.transport.name} has ${this.queue.length} requests waiting (the bound is ${maxQueued})`, {
          context: { queued: this.queue.length },
        }),
      );
    }
    this.clearIdle();
    return new Promise<Res>((resolve, reject) => {
      const p: Pending<Res> = {
        id: 0,
        payload,
        internal: false,
        resolve,
        reject,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        channel: null,
        timer: null,
        cleanup: null,
        settled: false,
      };
      const deadlineMs = options.deadlineMs ?? this.o.deadlineMs;
      if (deadlineMs !== undefined) p.timer = setTimeout(() => this.onDeadline(p, deadlineMs), deadlineMs);
      const signal = options.signal;
      if (signal) {
        const onAbort = (): void => this.onCancel(p, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        p.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /**
   * Stops for good: waiting and in-flight requests fail with `cancelled`, the process is asked
   * to exit (`codec.shutdown`) and killed after `graceMs` (default `shutdownGraceMs`).
   */
  async close(graceMs = this.o.shutdownGraceMs ?? 2000): Promise<void> {
    this.closed = true;
    this.clearIdle();
    for (const p of [...this.queue, ...this.inFlight.values()]) this.settle(p, this.closedError());
    await this.stopProcess('close', graceMs);
  }

  /**
   * Stops the running process cleanly (as `close()` does) without closing the supervisor: its
   * requests in flight fail with `worker_crashed`; the next request starts a new process.
   */
  async stop(graceMs?: number): Promise<void> {
    this.clearIdle();
    await this.stopProcess('stop', graceMs);
  }

  /**
   * Sends `message` as is (no id, no reply awaited, not queued) to the running process once its
   * handshake is done: a hint such as "warm up for what follows". False when no process is
   * ready (it is not started for this) or the channel refused the message.
   */
  notify(message: unknown): boolean {
    const live = this.live;
    if (!live?.ready || live.killReason !== null) return false;
    try {
      live.channel.send(message);
      return true;
    } catch (e) {
      this.emit({ type: 'log', value: `cannot notify ${this.o.transport.name}: ${(e as Error).message}`, pid: live.channel.pid });
      return false;
    }
  }

  /**
   * Kills the running process now, as if it had crashed (`crash`) or passed its memory ceiling
   * (`oom`): counted as a crash, its requests in flight fail; waiting ones go to a new process.
   * For a process that reports itself broken (out of memory, unhealthy).
   */
  kill(reason: 'crash' | 'oom' = 'crash'): void {
    if (this.live) this.killLive(this.live, reason);
  }

  // ------------------------------------------------------------------ dispatch

  private pump(): void {
    if (this.closed) return;
    const live = this.live;
    if (!live || !live.ready) {
      if (this.queue.length > 0) void this.ensureStarted().catch(() => undefined); // failures reach the requests
      return;
    }
    const max = this.o.maxInFlight ?? 1;
    while (this.queue.length > 0 && this.userInFlight() < max) {
      const p = this.queue.shift()!;
      this.send(live, p);
    }
    this.updateHold();
  }

  private userInFlight(): number {
    let n = 0;
    for (const p of this.inFlight.values()) if (!p.internal) n++;
    return n;
  }

  private send(live: Live, p: Pending<Res>): void {
    p.id = this.nextId++;
    p.channel = live.channel;
    this.inFlight.set(p.id, p);
    try {
      live.channel.send(this.o.codec.encode(p.id, p.payload as Req));
    } catch (e) {
      this.settle(p, new CaError('protocol_error', `cannot send a request to ${this.o.transport.name}: ${(e as Error).message}`, { cause: e }));
    }
  }

  private ensureStarted(): Promise<void> {
    if (this.live?.ready) return Promise.resolve();
    this.starting ??= this.startProcess().finally(() => {
      this.starting = null;
      this.maybeIdle();
    });
    return this.starting;
  }

  private async startProcess(): Promise<void> {
    const crashes = this.consecutiveCrashes;
    if (crashes > 0) {
      const delay = Math.min(this.o.maxBackoffMs ?? 5000, (this.o.backoffMs ?? 100) * 2 ** (crashes - 1));
      await new Promise((r) => setTimeout(r, delay));
      if (this.closed) throw this.closedError();
    }
    const live = this.spawn();
    this.counters.starts++;
    if (crashes > 0) {
      this.counters.restarts++;
      this.emit({ type: 'restart', pid: live.channel.pid });
    }
    try {
      await this.handshake(live);
    } catch (e) {
      const tail = live.channel.stderrTail().trim();
      const error =
        e instanceof CaError && e.code !== 'worker_crashed'
          ? e
          : new CaError('worker_crashed', `${this.o.transport.name} failed to start: ${(e as Error).message}${tail ? `: ${tail.slice(-500)}` : ''}`, {
              cause: e,
              context: { reason: 'start_failed' },
            });
      for (const p of this.queue.splice(0)) this.settle(p, error);
      this.killLive(live, 'start_failed');
      throw error;
    }
    live.ready = true;
    this.emit({ type: 'ready', pid: live.channel.pid });
    this.startMemoryCheck(live);
    this.pump();
  }

  private async handshake(live: Live): Promise<void> {
    const hook = this.o.handshake;
    if (!hook) return;
    const startMs = this.o.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const exited = live.exited.then(() => {
      throw new CaError('worker_crashed', `${this.o.transport.name} exited during its handshake`);
    });
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new CaError('deadline_exceeded', `${this.o.transport.name} did not start within ${startMs} ms`, { context: { reason: 'start_failed' } })),
        startMs,
      );
    });
    live.channel.hold(true);
    try {
      await Promise.race([hook(this.handshakeContext(live)), exited, timeout]);
    } finally {
      clearTimeout(timer);
      exited.catch(() => undefined); // the race already reported it, or the process is fine
    }
  }

  private handshakeContext(live: Live): HandshakeContext<Req, Res> {
    return {
      pid: live.channel.pid,
      request: (payload, deadlineMs) =>
        new Promise<Res>((resolve, reject) => {
          const p: Pending<Res> = { id: 0, payload, internal: true, resolve, reject, channel: null, timer: null, cleanup: null, settled: false };
          if (deadlineMs !== undefined) p.timer = setTimeout(() => this.onDeadline(p, deadlineMs), deadlineMs);
          this.send(live, p);
        }),
      waitFor: <T>(select: (m: unknown) => T | undefined) =>
        new Promise<T>((resolve, reject) => {
          live.waiters.push((m) => {
            let value: T | undefined;
            try {
              value = select(m);
            } catch (e) {
              reject(e);
              return true;
            }
            if (value === undefined) return false;
            resolve(value);
            return true;
          });
        }),
    };
  }

  private spawn(): Live {
    let markExited!: () => void;
    const exited = new Promise<void>((r) => (markExited = r));
    const holder: { live: Live | null } = { live: null };
    const channel = this.o.transport.start({
      message: (m) => this.onMessage(holder.live!, m),
      protocolError: (detail) => this.onProtocolError(holder.live!, detail),
      log: (line) => this.emit({ type: 'log', value: line, pid: holder.live?.channel.pid ?? -1 }),
      exit: (info) => {
        markExited();
        this.onExit(holder.live!, info);
      },
    });
    const live: Live = { channel, ready: false, killReason: null, protocolDetail: '', exited, waiters: [], counted: false };
    holder.live = live;
    this.live = live;
    this.emit({ type: 'spawned', pid: channel.pid });
    return live;
  }

  // ------------------------------------------------------------------ replies

  private onMessage(live: Live, message: unknown): void {
    if (live.killReason !== null) return;
    const waiter = live.waiters.findIndex((w) => w(message));
    if (waiter !== -1) {
      live.waiters.splice(waiter, 1);
      return;
    }
    const d = this.o.codec.decode(message);
    if (d.kind === 'invalid') {
      this.onProtocolError(live, d.reason);
      return;
    }
    if (d.kind === 'event') {
      this.counters.unsolicited++;
      this.emit({ type: 'event', value: d.value, pid: live.channel.pid });
      return;
    }
    const p = this.inFlight.get(d.id);
    if (!p || p.channel !== live.channel) {
      this.counters.unsolicited++;
      this.emit({ type: 'stray', value: message, pid: live.channel.pid });
      return;
    }
    if (d.kind === 'progress') {
      p.onProgress?.(d.value);
      return;
    }
    if (d.kind === 'error') {
      this.consecutiveCrashes = 0;
      this.settle(p, d.error);
      return;
    }
    this.consecutiveCrashes = 0;
    this.settle(p, undefined, d.value);
  }

  private onProtocolError(live: Live, detail: string): void {
    if (live.killReason !== null) return;
    live.protocolDetail = detail;
    this.killLive(live, 'protocol');
  }

  private onExit(live: Live, info: ExitInfo): void {
    this.detach(live);
    const reason: KillReason = live.killReason ?? (info.oom ? 'oom' : 'crash');
    this.emit({ type: 'exit', pid: live.channel.pid, reason });
    // A process we stopped was dealt with when we stopped it; this one died on its own.
    if (live.killReason === null) this.lose(live, reason, info);
  }

  /**
   * Fails the requests in flight on `live`, counts the crash (when `reason` is one) and gives up
   * past the cap; otherwise waiting requests go on, on a new process.
   */
  private lose(live: Live, reason: KillReason, info: ExitInfo): void {
    const counts = reason === 'crash' || reason === 'oom' || reason === 'protocol' || reason === 'start_failed';
    if (reason === 'close') return;
    if (counts && !live.counted) {
      live.counted = true;
      this.counters.crashes++;
      if (reason === 'oom') this.counters.oom++;
      this.consecutiveCrashes++;
    }
    const error = this.lostError(reason, info, live);
    for (const p of [...this.inFlight.values()]) if (p.channel === live.channel) this.settle(p, error);
    const cap = this.o.maxRestarts ?? 3;
    if (counts && this.consecutiveCrashes > cap && !this.closed && !this.gaveUp) {
      this.gaveUp = new CaError(
        'worker_crashed',
        `${this.o.transport.name} crashed ${this.consecutiveCrashes} times in a row; not restarted again (${error.message})`,
        { cause: error, context: { crashes: this.consecutiveCrashes } },
      );
      this.emit({ type: 'gave_up', pid: live.channel.pid });
      for (const p of this.queue.splice(0)) this.settle(p, this.gaveUp);
      return;
    }
    if (reason !== 'start_failed') this.pump();
  }

  /** Forgets `live` as the current process: new requests start another one. */
  private detach(live: Live): void {
    if (this.live !== live) return;
    this.live = null;
    this.stopMemoryCheck();
  }

  private lostError(reason: KillReason, info: ExitInfo, live: Live): CaError {
    const name = this.o.transport.name;
    const tail = live.channel.stderrTail().trim().slice(-500);
    const how = info.signal ?? `code ${info.code}`;
    const messages: Record<KillReason, string> = {
      crash: `${name} exited (${how}) with the request in flight${tail ? `: ${tail}` : ''}`,
      oom: `${name} ran out of memory and was stopped${tail ? `: ${tail}` : ''}`,
      deadline: `${name} was stopped: another request in flight on it passed its deadline`,
      protocol: `${name} broke the protocol (${live.protocolDetail}) and was stopped`,
      idle: `${name} was stopped while idle`,
      stop: `${name} was stopped with the request in flight`,
      close: `${name} is closed`,
      start_failed: `${name} failed to start`,
    };
    return new CaError(ERROR_BY_REASON[reason], messages[reason], {
      ...(info.error ? { cause: info.error } : {}),
      context: { code: info.code, signal: info.signal, reason },
    });
  }

  private onDeadline(p: Pending<Res>, deadlineMs: number): void {
    if (p.settled) return;
    const live = this.live;
    const wasInFlight = p.channel !== null && this.inFlight.has(p.id);
    this.settle(p, new CaError('deadline_exceeded', `${this.o.transport.name} did not answer within ${deadlineMs} ms`, { context: { deadlineMs } }));
    // A handshake request that times out fails the start, which kills the process itself.
    if (p.internal && !live?.ready) return;
    if (!wasInFlight || !live || live.channel !== p.channel) return;
    if (this.o.killOnDeadline ?? true) this.killLive(live, 'deadline');
    else this.sendCancel(live, p.id);
  }

  private onCancel(p: Pending<Res>, reason: unknown): void {
    if (p.settled) return;
    const live = this.live;
    const wasInFlight = p.channel !== null && this.inFlight.has(p.id);
    this.settle(p, cancelledError(this.o.transport.name, reason));
    if (wasInFlight && live && live.channel === p.channel) this.sendCancel(live, p.id);
  }

  private sendCancel(live: Live, id: number): void {
    const msg = this.o.codec.cancel?.(id);
    if (msg !== undefined) live.channel.send(msg);
  }

  private settle(p: Pending<Res>, error: unknown, value?: Res): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    p.cleanup?.();
    if (p.id) this.inFlight.delete(p.id);
    const queued = this.queue.indexOf(p);
    if (queued !== -1) this.queue.splice(queued, 1);
    if (error !== undefined) p.reject(error);
    else p.resolve(value as Res);
    if (!p.internal) this.pump();
    this.maybeIdle();
  }

  // ------------------------------------------------------------------ lifecycle

  /** Stops `live` at once; its requests in flight fail now with the error of `reason`. */
  private killLive(live: Live, reason: KillReason): void {
    if (live.killReason !== null) return;
    live.killReason = reason;
    this.detach(live);
    live.channel.kill();
    this.lose(live, reason, { code: null, signal: 'SIGKILL', oom: reason === 'oom' });
  }

  private async stopProcess(reason: 'idle' | 'stop' | 'close', graceMs = this.o.shutdownGraceMs ?? 2000): Promise<void> {
    const live = this.live;
    if (!live) return;
    live.killReason ??= reason;
    this.detach(live);
    live.channel.hold(true);
    const bye = this.o.codec.shutdown?.();
    if (bye !== undefined) {
      try {
        live.channel.send(bye);
      } catch {
        // Already gone: the kill below is a no-op and the exit is reported anyway.
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => (timer = setTimeout(r, bye === undefined ? 0 : graceMs)));
    await Promise.race([live.exited, grace]);
    clearTimeout(timer);
    live.channel.kill();
    await live.exited;
    this.lose(live, reason, { code: null, signal: null, oom: false });
  }

  private maybeIdle(): void {
    if (this.closed || this.queue.length > 0 || this.inFlight.size > 0) return;
    this.updateHold();
    const idleMs = this.o.idleTimeoutMs;
    if (idleMs === undefined || !this.live) return;
    this.clearIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.queue.length > 0 || this.inFlight.size > 0 || !this.live) return;
      this.emit({ type: 'idle_shutdown', pid: this.live.channel.pid });
      void this.stopProcess('idle');
    }, idleMs);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** A busy process holds the event loop; an idle one never keeps a finished parent alive. */
  private updateHold(): void {
    const live = this.live;
    if (!live || live.killReason !== null) return;
    live.channel.hold(this.queue.length > 0 || this.inFlight.size > 0 || this.starting !== null);
  }

  private startMemoryCheck(live: Live): void {
    const ceiling = this.o.memoryCeilingBytes;
    if (ceiling === undefined) return;
    this.stopMemoryCheck();
    this.memoryTimer = setInterval(() => {
      const rss = live.channel.rssBytes();
      if (rss !== null) this.emit({ type: 'memory', pid: live.channel.pid, value: rss });
      if (rss !== null && rss > ceiling && live.killReason === null) {
        this.emit({ type: 'log', value: `${this.o.transport.name} RSS ${rss} bytes passed the ceiling ${ceiling}`, pid: live.channel.pid });
        this.killLive(live, 'oom');
      }
    }, this.o.memoryCheckIntervalMs ?? 1000);
    this.memoryTimer.unref();
  }

  private stopMemoryCheck(): void {
    if (this.memoryTimer) clearInterval(this.memoryTimer);
    this.memoryTimer = null;
  }

  private closedError(): CaError {
    return new CaError('cancelled', `${this.o.transport.name} is closed`);
  }

  private emit(e: SupervisorEvent): void {
    this.o.onEvent?.(e);
  }
}

function cancelledError(name: string, reason: unknown): CaError {
  return new CaError('cancelled', `request to ${name} cancelled`, { cause: reason });
}
