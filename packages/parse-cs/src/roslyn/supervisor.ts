import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CaError, type ErrorCode } from '@ca/schema';
import { findDotnet, isRoslynAvailable, locateRoslynHost, type LocateOptions } from './locate.js';
import {
  DEFAULT_BATCH_DEADLINE_MS,
  DEFAULT_LOAD_DEADLINE_MS,
  PROTOCOL_VERSION,
  type AnalyzeParams,
  type AnalyzeResult,
  type InitializeResult,
  type LoadProjectParams,
  type LoadProjectResult,
  type MethodMap,
  type MethodName,
  type PingResult,
  type ResponseFrame,
  type UnloadProjectParams,
  type UnloadProjectResult,
  type WireErrorCode,
} from './protocol.js';

/** Options of the roslyn-host supervisor. Every limit has a production default. */
export interface RoslynHostOptions extends LocateOptions {
  /** Extra host arguments (`--queue-size N`, `--enable-test-methods`, `--verbose`). */
  readonly hostArgs?: readonly string[];
  /** RSS ceiling read from /proc/<pid>/status; above it the host is restarted (default 2 GiB). */
  readonly memoryCeilingBytes?: number;
  readonly memoryCheckIntervalMs?: number;
  /** The host exits after this long without requests (default 15 min); the next request respawns it. */
  readonly idleShutdownMs?: number;
  /** Spawn → handshake limit (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Added to a request's deadline before the supervisor gives up on a host that did not answer (default 5 s). */
  readonly deadlineGraceMs?: number;
  /** Interval of `ping` health checks while the host runs (default 30 s; 0 disables). */
  readonly healthCheckIntervalMs?: number;
  /** Receives the host's stderr lines (logs). */
  readonly onLog?: (line: string) => void;
}

/** Per-request options. */
export interface RequestOptions {
  /** Default: 120 s for loadProject, 30 s for analyze, 10 s otherwise. */
  readonly deadlineMs?: number;
  /** Aborting sends `cancel` to the host and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Counters for health reporting and benchmarks. */
export interface RoslynHostStats {
  readonly pid: number | null;
  readonly starts: number;
  /** Restarts after a crash, an unhealthy ping or the memory ceiling. */
  readonly restarts: number;
  readonly oomRestarts: number;
  /** Spawn → handshake of the last start, in ms. */
  readonly lastStartMs: number | null;
  /** Highest VmHWM seen across host processes, in bytes. */
  readonly peakRssBytes: number;
  readonly lastRssBytes: number;
}

const GIB = 1024 * 1024 * 1024;

type KillReason = 'oom' | 'unhealthy' | 'shutdown' | 'timeout';

interface HostProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  readonly spawnedAt: number;
  handshake: InitializeResult | null;
  killReason: KillReason | null;
  exited: boolean;
  readonly exitedPromise: Promise<void>;
}

interface Pending {
  readonly method: MethodName;
  readonly params: unknown;
  readonly deadlineMs: number;
  /** Internal requests (handshake, replayed loads, health pings) are never retried. */
  readonly internal: boolean;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  attempt: number;
  id: number;
  proc: HostProcess | null;
  settled: boolean;
  timer: NodeJS.Timeout | null;
  onAbort: (() => void) | null;
}

const CA_CODES: Partial<Record<WireErrorCode, ErrorCode>> = {
  semantic_unavailable: 'semantic_unavailable',
  project_load_failed: 'project_load_failed',
  plugin_blocked: 'plugin_blocked',
  timeout: 'timeout',
  oom_restart: 'oom_restart',
  backpressure: 'backpressure',
};

function defaultDeadline(method: MethodName): number {
  if (method === 'loadProject') return DEFAULT_LOAD_DEADLINE_MS;
  if (method === 'analyze') return DEFAULT_BATCH_DEADLINE_MS;
  if (method === 'debug/sleep') return 60_000;
  return 10_000;
}

/** Reads VmRSS and VmHWM (bytes) from /proc/<pid>/status; null where /proc is unavailable. */
export function readProcessMemory(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string): number => {
      const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : 0;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

function unrefStream(stream: unknown, ref: boolean): void {
  const s = stream as { ref?: () => void; unref?: () => void } | null;
  if (ref) s?.ref?.();
  else s?.unref?.();
}

/**
 * Supervises one roslyn-host process: spawns it on demand (`dotnet <dll>`), performs the handshake,
 * replays project loads after a restart, enforces deadlines, a memory ceiling and an idle shutdown,
 * and retries a request once when the process dies under it.
 */
export class RoslynHost {
  private readonly options: RoslynHostOptions;
  private proc: HostProcess | null = null;
  private starting: Promise<HostProcess> | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly loads = new Map<string, LoadProjectParams>();
  private nextId = 1;
  private disposed = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private memoryTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private readonly stderrTail: string[] = [];
  private starts = 0;
  private restarts = 0;
  private oomRestarts = 0;
  private lastStartMs: number | null = null;
  private peakRss = 0;
  private lastRss = 0;

  constructor(options: RoslynHostOptions = {}) {
    this.options = options;
  }

  /** The last handshake, or null before the first start. */
  get handshake(): InitializeResult | null {
    return this.proc?.handshake ?? null;
  }

  /** Process id of the running host, or null. */
  get pid(): number | null {
    return this.proc && !this.proc.exited ? this.proc.pid : null;
  }

  stats(): RoslynHostStats {
    this.sampleMemory();
    return {
      pid: this.pid,
      starts: this.starts,
      restarts: this.restarts,
      oomRestarts: this.oomRestarts,
      lastStartMs: this.lastStartMs,
      peakRssBytes: this.peakRss,
      lastRssBytes: this.lastRss,
    };
  }

  /** Starts the host (if needed) and returns its handshake. */
  async start(): Promise<InitializeResult> {
    const proc = await this.ensureProcess();
    return proc.handshake!;
  }

  /** Loads a project in safe mode; remembered so a restarted host reloads it before retrying work. */
  loadProject(params: LoadProjectParams, options?: RequestOptions): Promise<LoadProjectResult> {
    return this.request('loadProject', params, options);
  }

  analyze(params: AnalyzeParams, options?: RequestOptions): Promise<AnalyzeResult> {
    return this.request('analyze', params, options);
  }

  unloadProject(params: UnloadProjectParams = {}, options?: RequestOptions): Promise<UnloadProjectResult> {
    return this.request('unloadProject', params, options);
  }

  ping(options?: RequestOptions): Promise<PingResult> {
    return this.request('ping', undefined, options);
  }

  /** Sends one request. Rejects with a CaError (code timeout, oom_restart, backpressure, project_load_failed, …). */
  request<M extends MethodName>(method: M, params: MethodMap[M]['params'], options: RequestOptions = {}): Promise<MethodMap[M]['result']> {
    if (this.disposed) return Promise.reject(new CaError('semantic_unavailable', 'roslyn-host supervisor is disposed'));
    return this.enqueue(method, params, options, false) as Promise<MethodMap[M]['result']>;
  }

  /** Graceful stop (the next request starts a new host). */
  async shutdown(): Promise<void> {
    this.clearIdle();
    const proc = this.proc;
    if (!proc || proc.exited) return;
    proc.killReason = 'shutdown';
    try {
      proc.child.stdin.write(`${JSON.stringify({ id: this.nextId++, method: 'shutdown' })}\n`);
      proc.child.stdin.end();
    } catch {
      // already gone
    }
    // While we wait for the exit, the child and the timer must hold the event loop: with both
    // unref'd, Node would drain the loop and exit with the caller's await still pending.
    proc.child.ref();
    unrefStream(proc.child.stdout, true);
    unrefStream(proc.child.stderr, true);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), 3000);
    });
    try {
      if ((await Promise.race([proc.exitedPromise, timeout])) === 'timeout') proc.child.kill('SIGKILL');
      await proc.exitedPromise;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the host for good; pending requests reject with semantic_unavailable. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.shutdown();
    for (const p of [...this.pending.values()]) this.settle(p, new CaError('semantic_unavailable', 'roslyn-host supervisor disposed'));
  }

  /** Kills the host process abruptly (tests and operators); in-flight requests are retried once. */
  killForTesting(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.proc?.child.kill(signal);
  }

  // ------------------------------------------------------------------ internals

  private enqueue(method: MethodName, params: unknown, options: RequestOptions, internal: boolean, proc?: HostProcess): Promise<unknown> {
    this.clearIdle();
    return new Promise((resolvePromise, rejectPromise) => {
      const deadlineMs = options.deadlineMs ?? defaultDeadline(method);
      const p: Pending = {
        method,
        params,
        deadlineMs,
        internal,
        signal: options.signal,
        resolve: resolvePromise,
        reject: rejectPromise,
        attempt: 0,
        id: 0,
        proc: null,
        settled: false,
        timer: null,
        onAbort: null,
      };
      if (options.signal?.aborted) {
        rejectPromise(options.signal.reason);
        return;
      }
      if (options.signal) {
        p.onAbort = () => {
          if (p.proc && !p.proc.exited && p.id) this.writeFrame(p.proc, { id: this.nextId++, method: 'cancel', params: { id: p.id } });
          this.settle(p, options.signal!.reason);
        };
        options.signal.addEventListener('abort', p.onAbort, { once: true });
      }
      // The caller's deadline covers queueing, restarts and replays: the host enforces deadlineMs itself,
      // this timer only catches a host that stopped answering.
      p.timer = setTimeout(() => {
        if (p.proc && !p.proc.exited && p.id) this.writeFrame(p.proc, { id: this.nextId++, method: 'cancel', params: { id: p.id } });
        this.settle(p, new CaError('timeout', `roslyn-host did not answer ${method} within ${deadlineMs} ms`, { context: { method, deadlineMs } }));
      }, deadlineMs + (this.options.deadlineGraceMs ?? 5000));
      this.dispatch(p, proc);
    });
  }

  private dispatch(p: Pending, proc?: HostProcess): void {
    if (p.settled) return;
    const target = proc ? Promise.resolve(proc) : this.ensureProcess();
    target.then(
      (live) => {
        if (p.settled) return;
        if (live.exited) {
          this.onLost(p, live);
          return;
        }
        p.proc = live;
        p.id = this.nextId++;
        this.pending.set(p.id, p);
        this.updateRef();
        this.writeFrame(live, { id: p.id, method: p.method, params: p.params, deadlineMs: p.deadlineMs });
      },
      (error: unknown) => this.settle(p, error),
    );
  }

  private writeFrame(proc: HostProcess, frame: object): void {
    try {
      proc.child.stdin.write(`${JSON.stringify(frame)}\n`);
    } catch {
      // The exit handler deals with requests of a dead process.
    }
  }

  private settle(p: Pending, error: unknown, value?: unknown): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
    if (p.id) this.pending.delete(p.id);
    if (error !== undefined) p.reject(error);
    else p.resolve(value);
    this.updateRef();
    if (this.pending.size === 0) this.armIdle();
  }

  private ensureProcess(): Promise<HostProcess> {
    if (this.proc && !this.proc.exited && this.proc.handshake) return Promise.resolve(this.proc);
    if (this.starting) return this.starting;
    if (this.disposed) return Promise.reject(new CaError('semantic_unavailable', 'roslyn-host supervisor is disposed'));
    this.starting = this.spawnHost().finally(() => {
      this.starting = null;
      this.updateRef();
    });
    return this.starting;
  }

  private async spawnHost(): Promise<HostProcess> {
    const availability = isRoslynAvailable(this.options);
    if (!availability.ok) throw new CaError('semantic_unavailable', availability.reason);
    const dotnet = findDotnet(this.options)!;
    const dll = locateRoslynHost(this.options).dllPath!;
    const started = Date.now();
    const child = spawn(dotnet, [dll, ...(this.options.hostArgs ?? [])], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
    });
    let markExited!: () => void;
    const proc: HostProcess = {
      child,
      pid: child.pid ?? -1,
      spawnedAt: started,
      handshake: null,
      killReason: null,
      exited: false,
      exitedPromise: new Promise<void>((r) => (markExited = r)),
    };
    if (this.proc && !this.proc.exited) this.proc.child.kill('SIGKILL');
    this.proc = proc;
    this.starts++;
    child.on('error', (e) => this.log(`spawn error: ${e.message}`));
    child.on('exit', (code, signal) => {
      proc.exited = true;
      markExited();
      this.onExit(proc, code, signal);
    });
    createInterface({ input: child.stdout }).on('line', (line) => this.onFrame(proc, line));
    createInterface({ input: child.stderr }).on('line', (line) => this.log(line));
    child.stdin.on('error', () => undefined);

    const handshake = (await this.enqueue(
      'initialize',
      { protocolVersion: PROTOCOL_VERSION, clientName: '@ca/parse-cs' },
      { deadlineMs: this.options.startTimeoutMs ?? 30_000 },
      true,
      proc,
    ).catch((e: unknown) => {
      child.kill('SIGKILL');
      throw new CaError('semantic_unavailable', `roslyn-host failed to start: ${(e as Error).message}. ${this.stderrTail.slice(-5).join(' | ')}`, {
        cause: e,
      });
    })) as InitializeResult;
    proc.handshake = handshake;
    this.lastStartMs = Date.now() - started;
    this.startMonitors(proc);
    // A restarted host knows nothing: reload what the previous one had before retried work runs.
    for (const params of this.loads.values()) {
      try {
        await this.enqueue('loadProject', params, {}, true, proc);
      } catch (e) {
        this.log(`replaying loadProject ${params.projectPath} failed: ${(e as Error).message}`);
      }
    }
    return proc;
  }

  private onFrame(proc: HostProcess, line: string): void {
    let frame: ResponseFrame;
    try {
      frame = JSON.parse(line) as ResponseFrame;
    } catch {
      this.log(`unreadable frame from host: ${line.slice(0, 200)}`);
      return;
    }
    if (frame.id === null) {
      this.log(`host rejected a frame: ${frame.error?.message ?? 'unknown'}`);
      return;
    }
    const p = this.pending.get(frame.id);
    if (!p || p.proc !== proc) return;
    if (frame.error) {
      const { code, message, data } = frame.error;
      if (code === 'cancelled') {
        this.settle(p, p.signal?.reason ?? new CaError('timeout', message, { context: { method: p.method } }));
        return;
      }
      const caCode = CA_CODES[code] ?? 'internal';
      this.settle(p, new CaError(caCode, message, { context: { method: p.method, wireCode: code, data } }));
      if (code === 'oom_restart') this.kill(proc, 'oom');
      return;
    }
    if (p.method === 'loadProject' && !p.internal) {
      const params = p.params as LoadProjectParams;
      this.loads.set(`${resolve(params.repoRoot)}\u0000${resolve(params.repoRoot, params.projectPath)}`, params);
    }
    if (p.method === 'unloadProject') {
      const id = (p.params as UnloadProjectParams | undefined)?.projectId;
      if (id === undefined) this.loads.clear();
      else for (const [k, v] of this.loads) if (v.projectPath === id || resolve(v.repoRoot, v.projectPath) === resolve(v.repoRoot, id)) this.loads.delete(k);
    }
    this.settle(p, undefined, frame.result);
  }

  private onExit(proc: HostProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.proc === proc) {
      this.proc = null;
      this.stopMonitors();
    }
    const reason = proc.killReason;
    if (reason === 'oom') this.oomRestarts++;
    if (reason !== 'shutdown' && proc.handshake) this.restarts++;
    this.log(`host ${proc.pid} exited (code ${code}, signal ${signal}${reason ? `, ${reason}` : ''})`);
    const lost = [...this.pending.values()].filter((p) => p.proc === proc);
    for (const p of lost) this.onLost(p, proc);
  }

  /** A request whose process died: oom → oom_restart; otherwise retried once on a new process. */
  private onLost(p: Pending, proc: HostProcess): void {
    if (p.id) this.pending.delete(p.id);
    p.id = 0;
    p.proc = null;
    const reason = proc.killReason;
    if (reason === 'oom') {
      this.settle(
        p,
        new CaError('oom_restart', `roslyn-host exceeded its memory ceiling during ${p.method} and was restarted`, { context: { method: p.method } }),
      );
      return;
    }
    if (reason === 'shutdown' || p.internal || p.attempt >= 1 || this.disposed) {
      const tail = this.stderrTail.slice(-3).join(' | ');
      this.settle(
        p,
        new CaError('semantic_unavailable', `roslyn-host exited during ${p.method}${p.attempt >= 1 ? ' (after one retry)' : ''}${tail ? `: ${tail}` : ''}`, {
          context: { method: p.method },
        }),
      );
      return;
    }
    p.attempt++;
    this.dispatch(p);
  }

  private kill(proc: HostProcess, reason: KillReason): void {
    if (proc.exited) return;
    proc.killReason ??= reason;
    proc.child.kill('SIGKILL');
  }

  private startMonitors(proc: HostProcess): void {
    this.stopMonitors();
    const ceiling = this.options.memoryCeilingBytes ?? 2 * GIB;
    this.memoryTimer = setInterval(() => {
      const mem = this.sampleMemory();
      if (mem && mem.rss > ceiling) {
        this.log(`host RSS ${mem.rss} bytes exceeds the ceiling ${ceiling}: restarting`);
        this.kill(proc, 'oom');
      }
    }, this.options.memoryCheckIntervalMs ?? 1000);
    this.memoryTimer.unref();
    const health = this.options.healthCheckIntervalMs ?? 30_000;
    if (health > 0) {
      this.healthTimer = setInterval(() => {
        if (proc.exited || !proc.handshake) return;
        this.enqueue('ping', undefined, { deadlineMs: 10_000 }, true, proc).catch((e: unknown) => {
          if (e instanceof CaError && e.code === 'timeout') {
            this.log('host did not answer a health ping: restarting');
            this.kill(proc, 'unhealthy');
          }
        });
      }, health);
      this.healthTimer.unref();
    }
  }

  private stopMonitors(): void {
    if (this.memoryTimer) clearInterval(this.memoryTimer);
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.memoryTimer = null;
    this.healthTimer = null;
  }

  private sampleMemory(): { rss: number; peak: number } | null {
    const proc = this.proc;
    if (!proc || proc.exited) return null;
    const mem = readProcessMemory(proc.pid);
    if (mem) {
      this.lastRss = mem.rss;
      this.peakRss = Math.max(this.peakRss, mem.peak, mem.rss);
    }
    return mem;
  }

  private armIdle(): void {
    this.clearIdle();
    if (!this.proc || this.disposed) return;
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) void this.shutdown();
    }, this.options.idleShutdownMs ?? 15 * 60_000);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** An idle host must not keep the Node process alive; a busy one must. */
  private updateRef(): void {
    const proc = this.proc;
    if (!proc || proc.exited) return;
    const busy = this.pending.size > 0 || this.starting !== null;
    if (busy) proc.child.ref();
    else proc.child.unref();
    unrefStream(proc.child.stdout, busy);
    unrefStream(proc.child.stderr, busy);
    unrefStream(proc.child.stdin, busy);
  }

  private log(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > 50) this.stderrTail.shift();
    this.options.onLog?.(line);
  }
}
