import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CaError, toCaError, type ErrorCode } from '@ca/schema';
import { childProcessTransport, Supervisor, type Codec, type SupervisorEvent } from '@ca/supervisor';
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
  type PrepareRazorParams,
  type PrepareRazorResult,
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
/** Ids of control frames (cancel, shutdown): far above request ids, so their replies are strays. */
const CONTROL_ID_BASE = 2 ** 40;
/** Consecutive host crashes (no answer between them) before C# semantics stay off for this supervisor. */
const MAX_CONSECUTIVE_CRASHES = 5;

/** One request as the supervisor carries it. */
interface Call {
  readonly method: MethodName;
  readonly params: unknown;
  readonly deadlineMs: number;
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
    // The process exited meanwhile or there is no /proc (not Linux): no memory figure to report.
    return null;
  }
}

/** roslyn-host's JSON-lines frames: `{ id, method, params, deadlineMs }` out, `{ id, result | error }` back. */
function hostCodec(log: (line: string) => void): Codec<Call, unknown> {
  let controlId = CONTROL_ID_BASE;
  return {
    encode: (id, call) => ({ id, method: call.method, params: call.params, deadlineMs: call.deadlineMs }),
    decode(message) {
      const frame = message as ResponseFrame;
      if (typeof frame !== 'object' || frame === null) return { kind: 'invalid', reason: 'a frame that is not an object' };
      if (frame.id === null) {
        log(`host rejected a frame: ${frame.error?.message ?? 'unknown'}`);
        return { kind: 'event', value: frame };
      }
      if (!frame.error) return { kind: 'result', id: frame.id, value: frame.result };
      const { code, message: text, data } = frame.error;
      // The host's own deadline (a cancel we sent settles the request before its answer comes).
      if (code === 'cancelled') return { kind: 'error', id: frame.id, error: new CaError('timeout', text) };
      return { kind: 'error', id: frame.id, error: new CaError(CA_CODES[code] ?? 'internal', text, { context: { wireCode: code, data } }) };
    },
    cancel: (id) => ({ id: controlId++, method: 'cancel', params: { id } }),
    shutdown: () => ({ id: controlId++, method: 'shutdown' }),
  };
}

/**
 * Supervises one roslyn-host process (`dotnet <dll>`) through `@ca/supervisor`: spawned on
 * demand, handshake, project loads replayed after a restart, deadlines, a memory ceiling, an
 * idle shutdown, health pings, and one retry of a request when the process dies under it.
 */
export class RoslynHost {
  private readonly options: RoslynHostOptions;
  private readonly supervisor: Supervisor<Call, unknown>;
  private readonly loads = new Map<string, LoadProjectParams>();
  private disposed = false;
  private handshakeResult: InitializeResult | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private readonly stderrTail: string[] = [];
  private lastStartMs: number | null = null;
  private peakRss = 0;
  private lastRss = 0;

  constructor(options: RoslynHostOptions = {}) {
    this.options = options;
    this.supervisor = this.createSupervisor();
  }

  /** The last handshake, or null before the first start. */
  get handshake(): InitializeResult | null {
    return this.handshakeResult;
  }

  /** Process id of the running host, or null. */
  get pid(): number | null {
    return this.supervisor.pid;
  }

  stats(): RoslynHostStats {
    const pid = this.pid;
    if (pid !== null) this.sampleMemory(pid);
    const s = this.supervisor.stats();
    return {
      pid,
      starts: s.starts,
      restarts: s.restarts,
      oomRestarts: s.oom,
      lastStartMs: this.lastStartMs,
      peakRssBytes: this.peakRss,
      lastRssBytes: this.lastRss,
    };
  }

  /** Starts the host (if needed) and returns its handshake. */
  async start(): Promise<InitializeResult> {
    await this.run(() => this.startChecked(), 'initialize', undefined);
    return this.handshakeResult!;
  }

  /** Loads a project in safe mode; remembered so a restarted host reloads it before retrying work. */
  loadProject(params: LoadProjectParams, options?: RequestOptions): Promise<LoadProjectResult> {
    return this.request('loadProject', params, options);
  }

  analyze(params: AnalyzeParams, options?: RequestOptions): Promise<AnalyzeResult> {
    return this.request('analyze', params, options);
  }

  /** Starts the Razor generator's first-time work in the host, in the background, ahead of a Razor project's load. */
  prepareRazor(params: PrepareRazorParams, options?: RequestOptions): Promise<PrepareRazorResult> {
    return this.request('prepareRazor', params, options);
  }

  unloadProject(params: UnloadProjectParams = {}, options?: RequestOptions): Promise<UnloadProjectResult> {
    return this.request('unloadProject', params, options);
  }

  ping(options?: RequestOptions): Promise<PingResult> {
    return this.request('ping', undefined, options);
  }

  /** Sends one request. Rejects with a CaError (code timeout, oom_restart, backpressure, project_load_failed, …). */
  async request<M extends MethodName>(method: M, params: MethodMap[M]['params'], options: RequestOptions = {}): Promise<MethodMap[M]['result']> {
    if (this.disposed) throw new CaError('semantic_unavailable', 'roslyn-host supervisor is disposed');
    const deadlineMs = options.deadlineMs ?? defaultDeadline(method);
    // The caller's deadline covers queueing, restarts and replays: the host enforces deadlineMs
    // itself, the supervisor's deadline only catches a host that stopped answering.
    const until = Date.now() + deadlineMs + (this.options.deadlineGraceMs ?? 5000);
    const send = (): Promise<unknown> =>
      this.startChecked().then(() =>
        this.supervisor.request(
          { method, params, deadlineMs },
          { deadlineMs: Math.max(1, until - Date.now()), ...(options.signal ? { signal: options.signal } : {}) },
        ),
      );
    const result = await this.run(send, method, options.signal, deadlineMs);
    this.remember(method, params);
    return result as MethodMap[M]['result'];
  }

  /** Graceful stop (the next request starts a new host). */
  async shutdown(): Promise<void> {
    await this.supervisor.stop(3000);
  }

  /** Stops the host for good; pending requests reject with semantic_unavailable. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopHealth();
    await this.supervisor.close(3000);
  }

  /** Kills the host process abruptly (tests and operators); in-flight requests are retried once. */
  killForTesting(signal: NodeJS.Signals = 'SIGKILL'): void {
    const pid = this.pid;
    if (pid !== null) process.kill(pid, signal);
  }

  // ------------------------------------------------------------------ internals

  private createSupervisor(): Supervisor<Call, unknown> {
    return new Supervisor<Call, unknown>({
      // dotnet and the dll are located at each spawn (`startChecked` made sure both exist).
      transport: {
        name: 'roslyn-host',
        start: (listener) =>
          childProcessTransport({
            name: 'roslyn-host',
            command: findDotnet(this.options) ?? 'dotnet',
            args: [locateRoslynHost(this.options).dllPath ?? '', ...(this.options.hostArgs ?? [])],
            env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
          }).start(listener),
      },
      codec: hostCodec((line) => this.log(line)),
      // The host bounds its own queue and answers `backpressure`: everything is passed on.
      maxInFlight: Number.POSITIVE_INFINITY,
      killOnDeadline: false,
      maxRestarts: MAX_CONSECUTIVE_CRASHES,
      memoryCeilingBytes: this.options.memoryCeilingBytes ?? 2 * GIB,
      memoryCheckIntervalMs: this.options.memoryCheckIntervalMs ?? 1000,
      idleTimeoutMs: this.options.idleShutdownMs ?? 15 * 60_000,
      startTimeoutMs: this.options.startTimeoutMs ?? 30_000,
      shutdownGraceMs: 3000,
      handshake: async (ctx) => {
        const started = Date.now();
        this.handshakeResult = (await ctx.request({
          method: 'initialize',
          params: { protocolVersion: PROTOCOL_VERSION, clientName: '@ca/parse-cs' },
          deadlineMs: this.options.startTimeoutMs ?? 30_000,
        })) as InitializeResult;
        this.lastStartMs = Date.now() - started;
        // A restarted host knows nothing: reload what the previous one had before retried work runs.
        for (const params of this.loads.values()) {
          try {
            await ctx.request({ method: 'loadProject', params, deadlineMs: DEFAULT_LOAD_DEADLINE_MS }, DEFAULT_LOAD_DEADLINE_MS + 5000);
          } catch (e) {
            this.log(`replaying loadProject ${params.projectPath} failed: ${(e as Error).message}`);
          }
        }
      },
      onEvent: (e) => this.onEvent(e),
    });
  }

  /** Rejects at once, without a spawn, when dotnet or the built host is missing. */
  private async startChecked(): Promise<void> {
    if (this.supervisor.pid === null) {
      const availability = isRoslynAvailable(this.options);
      if (!availability.ok) throw new CaError('semantic_unavailable', availability.reason);
    }
    await this.supervisor.start();
  }

  /** Runs `send`, retrying once when the host died under it; errors become this package's codes. */
  private async run(send: () => Promise<unknown>, method: MethodName, signal: AbortSignal | undefined, deadlineMs?: number): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (e) {
        const err = toCaError(e);
        // The host reports passing its own memory limit: it is replaced (its other requests fail).
        if (err.code === 'oom_restart' && err.context.wireCode !== undefined) this.supervisor.kill('oom');
        const lostInFlight = err.code === 'worker_crashed' && err.context.reason === 'crash';
        if (lostInFlight && attempt === 0 && !this.disposed && method !== 'initialize') continue;
        throw this.translate(err, method, signal, deadlineMs, attempt);
      }
    }
  }

  private translate(err: CaError, method: MethodName, signal: AbortSignal | undefined, deadlineMs: number | undefined, attempt: number): unknown {
    const tail = this.stderrTail.slice(-3).join(' | ');
    switch (err.code) {
      case 'cancelled':
        if (signal?.aborted) return signal.reason;
        return new CaError('semantic_unavailable', 'roslyn-host supervisor disposed', { cause: err });
      case 'deadline_exceeded':
        if (method === 'initialize' || err.context.reason === 'start_failed' || /did not start/.test(err.message)) break;
        return new CaError('timeout', `roslyn-host did not answer ${method} within ${deadlineMs} ms`, { cause: err, context: { method, deadlineMs } });
      case 'oom_restart':
        if (err.context.wireCode !== undefined) return err;
        return new CaError('oom_restart', `roslyn-host exceeded its memory ceiling during ${method} and was restarted`, { cause: err, context: { method } });
      case 'overloaded':
        return new CaError('backpressure', err.message, { cause: err });
      case 'worker_crashed':
      case 'protocol_error':
        if (err.context.reason === 'start_failed' || method === 'initialize' || /failed to start/.test(err.message)) break;
        return new CaError('semantic_unavailable', `roslyn-host exited during ${method}${attempt >= 1 ? ' (after one retry)' : ''}${tail ? `: ${tail}` : ''}`, {
          cause: err,
          context: { method },
        });
      default:
        return err;
    }
    return new CaError('semantic_unavailable', `roslyn-host failed to start: ${err.message}. ${this.stderrTail.slice(-5).join(' | ')}`, { cause: err });
  }

  /** Remembers loads (replayed after a restart) and forgets unloaded projects. */
  private remember(method: MethodName, params: unknown): void {
    if (method === 'loadProject') {
      const p = params as LoadProjectParams;
      this.loads.set(`${resolve(p.repoRoot)}\u0000${resolve(p.repoRoot, p.projectPath)}`, p);
    }
    if (method === 'unloadProject') {
      const id = (params as UnloadProjectParams | undefined)?.projectId;
      if (id === undefined) this.loads.clear();
      else for (const [k, v] of this.loads) if (v.projectPath === id || resolve(v.repoRoot, v.projectPath) === resolve(v.repoRoot, id)) this.loads.delete(k);
    }
  }

  private onEvent(e: SupervisorEvent): void {
    switch (e.type) {
      case 'log':
        this.log(String(e.value));
        break;
      case 'memory':
        if (e.pid !== undefined) this.sampleMemory(e.pid);
        break;
      case 'ready':
        this.startHealth();
        break;
      case 'exit':
        this.stopHealth();
        this.log(`host ${e.pid} exited (${e.reason})`);
        break;
      case 'restart':
        break;
      default:
        break;
    }
  }

  /** A host that does not answer a ping within its deadline is killed (the next request restarts it). */
  private startHealth(): void {
    this.stopHealth();
    const health = this.options.healthCheckIntervalMs ?? 30_000;
    if (health <= 0) return;
    this.healthTimer = setInterval(() => {
      if (this.supervisor.pid === null) return;
      this.supervisor.request({ method: 'ping', params: undefined, deadlineMs: 10_000 }, { deadlineMs: 10_000 + (this.options.deadlineGraceMs ?? 5000) }).catch((e: unknown) => {
        if (e instanceof CaError && e.code === 'deadline_exceeded') {
          this.log('host did not answer a health ping: restarting');
          this.supervisor.kill('crash');
        }
      });
    }, health);
    this.healthTimer.unref();
  }

  private stopHealth(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }

  private sampleMemory(pid: number): void {
    const mem = readProcessMemory(pid);
    if (!mem) return;
    this.lastRss = mem.rss;
    this.peakRss = Math.max(this.peakRss, mem.peak, mem.rss);
  }

  private log(line: string): void {
    this.stderrTail.push(line);
    if (this.stderrTail.length > 50) this.stderrTail.shift();
    this.options.onLog?.(line);
  }
}
