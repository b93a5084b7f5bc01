/**
 * The supervisor of the TS semantic worker: forks dist/semanticWorker.js with a heap limit,
 * checks the handshake, streams per-project results, enforces the deadline, cancels
 * superseded requests, restarts the worker on a crash or when it passes its memory ceiling
 * (resuming with the projects not yet reported) and shuts it down when idle.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CaError } from '@ca/schema';
import { nodeIpcTransport, Supervisor, type Codec } from '@ca/supervisor';
import {
  INITIAL_PREPARE_ENV,
  PROGRAM_CACHE_ENV,
  SEMANTIC_PROTOCOL_VERSION,
  type AnalysisRegion,
  type AnalyzeRequestOptions,
  type ChildMessage,
  type ParentMessage,
  type ProjectResult,
  type SemanticResult,
  type SyntacticSkeleton,
} from './types.js';

/** Options of `createTsSemanticService`. */
export interface TsSemanticServiceOptions {
  /** V8 `--max-old-space-size` of the worker, MB. Default 2048. */
  readonly maxOldSpaceSizeMb?: number;
  /** Heap used (MB) above which the worker stops and is restarted. Default 85% of the old space. */
  readonly memoryCeilingMb?: number;
  /** The worker exits after this long without a request. Default 60 000 ms. */
  readonly idleTimeoutMs?: number;
  /** Deadline of a request that sets none. Default 300 000 ms. */
  readonly defaultDeadlineMs?: number;
  /** Worker restarts allowed within one request before it fails. Default 3. */
  readonly maxRestartsPerRequest?: number;
  /** Path of the built worker script. Default: semanticWorker.js next to the bundle, or ../dist from src. */
  readonly workerPath?: string;
  /**
   * Worker processes a request may use (each forked with its own `--max-old-space-size`). The
   * first worker discovers the projects, groups those that share a program and splits the
   * groups between the workers by the size of the files they analyse; a second worker is only
   * forked when there are at least two groups. Default `defaultSemanticWorkers(maxOldSpaceSizeMb)`.
   */
  readonly workers?: number;
  /** Progress and lifecycle events (spawn, restart, plugin_blocked …). */
  readonly onEvent?: (event: SemanticServiceEvent) => void;
  /**
   * A file where workers keep which projects share a program (the merge decision, checked
   * again on every use) between processes, so a one-shot partial pass need not decide again.
   * Absent: kept by a warm worker only.
   */
  readonly programCacheFile?: string;
}

/** Lifecycle and progress notifications of the service. */
export interface SemanticServiceEvent {
  readonly type: 'spawned' | 'project_start' | 'project_done' | 'restart' | 'worker_event' | 'idle_shutdown';
  readonly pid?: number;
  /** The project (tsconfig path) a worker event is about, when it names one. */
  readonly project?: string;
  readonly code?: string;
  readonly message?: string;
}

/** Handshake data reported by the worker. */
export interface SemanticWorkerInfo {
  readonly protocolVersion: number;
  readonly capabilities: readonly string[];
  readonly extractorVersion: string;
  readonly pid: number;
}

/** Options of one `analyzeRepository` call. */
export interface AnalyzeRepositoryOptions extends AnalyzeRequestOptions {
  /** Aborting cancels the request (the promise rejects with `semantic_unavailable`). */
  readonly signal?: AbortSignal;
  /** Projects finished of the planned total: once when the plan is known (0), then per project. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** The TS semantic pass, run out of process. */
export interface TsSemanticService {
  /**
   * Analyses every tsconfig project (and inferred project) of `repoRoot`. A newer call
   * supersedes a running one (the older promise rejects). Resolves with per-project results;
   * projects cut by the deadline come back `failed` with a `timeout:` reason. Rejects with
   * `timeout` only when nothing at all could be planned before the deadline.
   */
  analyzeRepository(repoRoot: string, options?: AnalyzeRepositoryOptions): Promise<SemanticResult>;
  /**
   * Starts the first worker (when none runs) and has it build the programs owning `files` now,
   * so that a partial `analyzeRepository` of them that follows finds them parsed and bound.
   * Best effort: returns at once, never fails.
   */
  prepare(repoRoot: string, files: readonly string[], options?: { readonly maxFileBytes?: number }): void;
  /** Pid of the first running worker, null when none runs (tests use it to kill the worker). */
  readonly pid: number | null;
  /** Pids of all running workers, by worker slot (first worker first). */
  readonly pids: readonly number[];
  /** Handshake of the running worker. */
  readonly workerInfo: SemanticWorkerInfo | null;
  dispose(): Promise<void>;
}

/**
 * How long a new worker may take to load TypeScript and say hello. Generous: on a busy machine (a
 * build beside us) starting the process alone takes tens of seconds, and a pass that gives up then
 * leaves every TS/JS file without its semantic edges. A request's own deadline still bounds what
 * its caller waits (it counts from the request, start included).
 */
const HANDSHAKE_TIMEOUT_MS = 120_000;
/** `CA_DEBUG_TSWORKER_CPU_PROF=<dir>`: workers write V8 CPU profiles there (for performance work). */
const CPU_PROFILE_DIR = process.env.CA_DEBUG_TSWORKER_CPU_PROF;
/** Longest prepare request handed to a new worker in its environment (Linux caps one variable at 128 KiB). */
const INITIAL_PREPARE_MAX_CHARS = 64 * 1024;
/** The worker enforces the deadline between files; the hard kill waits this much longer (spawn + one file). */
const DEADLINE_GRACE_MS = 5_000;

/**
 * Default worker count: one worker per 2 cores, at most 2, and only as many heaps of
 * `maxOldSpaceSizeMb` as fit in half of the RAM. One worker already keeps ~1.7 cores busy (the
 * main thread plus V8's concurrent GC and JIT threads), and a second worker parses, binds and
 * syntactically indexes the shared packages of its programs again (docs/benchmarks.md,
 * "Figures behind choices in the code"), so on 2 cores two workers do not
 * finish sooner; from 4 cores they do. More than 2 rarely helps: typical repositories have a
 * few large program groups and every worker repeats the shared parse work.
 */
export function defaultSemanticWorkers(maxOldSpaceSizeMb = 2048): number {
  const byCpu = Math.floor(availableParallelism() / 2);
  const byMemory = Math.floor(totalmem() / 2 / (maxOldSpaceSizeMb * 1024 * 1024));
  return Math.max(1, Math.min(2, byCpu, byMemory));
}

/** Locates the built worker: beside the bundle (dist), else ../dist when running from src. */
export function defaultWorkerPath(): string {
  const candidates = ['./semanticWorker.js', '../../dist/semanticWorker.js', '../dist/semanticWorker.js'];
  for (const c of candidates) {
    const p = fileURLToPath(new URL(c, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new CaError('semantic_unavailable', 'semantic worker script not found (build @ca/parse-ts: dist/semanticWorker.js)');
}

/** How long a profiled worker may take to write its CPU profile when the service is disposed. */
const PROFILE_FLUSH_MS = 10_000;

/** An `analyze` request as the supervisor frames it (the codec adds `type` and the id). */
type AnalyzePayload = Omit<Extract<ParentMessage, { type: 'analyze' }>, 'type' | 'id'>;

/** Errors the worker reported itself (an `error` message), as opposed to the supervisor's own. */
const reportedByWorker = new WeakSet<Error>();

/**
 * The worker's side of the wire, for `@ca/supervisor`: `done` ends a request, an `error` fails it
 * (except an `oom_restart` naming a project: the worker exits after it, and the project fails
 * alone), the other messages of a request are its progress; `hello` and `event` are unsolicited.
 */
export const semanticCodec: Codec<AnalyzePayload, void> = {
  encode: (id, request) => ({ type: 'analyze', id, ...request }) satisfies ParentMessage,
  decode(raw) {
    if (typeof raw !== 'object' || raw === null || typeof (raw as { type?: unknown }).type !== 'string') {
      return { kind: 'invalid', reason: `not a worker message: ${JSON.stringify(raw)?.slice(0, 80)}` };
    }
    const m = raw as ChildMessage;
    if (m.type === 'hello' || m.type === 'event') return { kind: 'event', value: m };
    if (typeof m.id !== 'number') return m.type === 'error' ? { kind: 'event', value: m } : { kind: 'invalid', reason: `${m.type} without a request id` };
    if (m.type === 'done') return { kind: 'result', id: m.id, value: undefined };
    if (m.type === 'error' && !(m.code === 'oom_restart' && m.project !== undefined)) {
      const error = new CaError(m.code, m.message);
      reportedByWorker.add(error);
      return { kind: 'error', id: m.id, error };
    }
    return { kind: 'progress', id: m.id, value: m };
  },
  cancel: (id) => ({ type: 'cancel', id }) satisfies ParentMessage,
  shutdown: () => ({ type: 'shutdown' }) satisfies ParentMessage,
};

/** One worker slot: a supervised process (started on demand) and what its last handshake said. */
interface Slot {
  readonly supervisor: Supervisor<AnalyzePayload, void>;
  info: SemanticWorkerInfo | null;
  /** The pid of the slot's latest process (kept after it exits, for the `restart` event). */
  lastPid: number;
  /** A prepare (JSON) for the next process to start with, in its environment (`INITIAL_PREPARE_ENV`). */
  initialPrepare: string | undefined;
}

interface Request {
  readonly repoRoot: string;
  readonly files: readonly string[] | null;
  readonly syntactic: readonly SyntacticSkeleton[] | null;
  readonly regions: readonly AnalysisRegion[] | null;
  readonly maxFileBytes: number | null;
  readonly deadlineMs: number;
  readonly deadlineAt: number;
  /** Aborted when the request settles: the workers still on it are told to drop it. */
  readonly abort: AbortController;
  plan: string[] | null;
  /** Project ids per worker slot, known once planned; a slot absent here has nothing to do. */
  readonly assigned: Map<number, readonly string[]>;
  /** Slots that sent `done` for this request. */
  readonly done: Set<number>;
  readonly results: Map<string, ProjectResult>;
  /** Project in flight per worker slot. */
  readonly inFlight: Map<number, string>;
  /** Slots whose worker announced it ran out of memory (it exits next). */
  readonly oomSlots: Set<number>;
  readonly retried: Set<string>;
  restarts: number;
  settled: boolean;
  readonly onProgress?: (done: number, total: number) => void;
  readonly resolve: (r: SemanticResult) => void;
  readonly reject: (e: unknown) => void;
}

function failedProject(id: string, reason: string): ProjectResult {
  return {
    tsconfig: id.startsWith('<inferred>') ? null : id,
    packageName: null,
    status: 'failed',
    reason,
    files: [],
    edges: [],
    referenceCounts: [],
    keyRefinements: [],
    fileErrors: [],
  };
}

function assemble(r: Request, missingReason: string): SemanticResult {
  return { projects: (r.plan ?? []).map((p) => r.results.get(p) ?? failedProject(p, missingReason)) };
}

/** The request's first fields (everything but the outcome bookkeeping). */
function newRequest(repoRoot: string, options: AnalyzeRepositoryOptions, deadlineMs: number, resolve: Request['resolve'], reject: Request['reject']): Request {
  return {
    repoRoot,
    files: options.files ? [...options.files] : null,
    syntactic: options.syntactic && options.syntactic.length > 0 ? options.syntactic : null,
    regions: options.files && options.regions && options.regions.length > 0 ? options.regions : null,
    maxFileBytes: options.maxFileBytes ?? null,
    deadlineMs,
    deadlineAt: Date.now() + deadlineMs,
    abort: new AbortController(),
    plan: null,
    assigned: new Map(),
    done: new Set(),
    results: new Map(),
    inFlight: new Map(),
    oomSlots: new Set(),
    retried: new Set(),
    restarts: 0,
    settled: false,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    resolve,
    reject,
  };
}

/** A start that failed (no handshake, a wrong protocol, an exit before it), as the service reports it. */
function startFailure(e: unknown): CaError | null {
  if (!(e instanceof CaError)) return null;
  if (e.code === 'semantic_unavailable') return e;
  if (e.context.reason !== 'start_failed') return null;
  return new CaError('semantic_unavailable', `semantic worker failed its handshake: ${e.message}`, { cause: e });
}

/** How a lost process ended, from the supervisor's error (`SIGKILL`, `3`). */
function exitOf(e: CaError): string {
  return String(e.context.signal ?? e.context.code ?? e.context.reason ?? e.code);
}

/** Creates the supervisor. Workers are forked lazily on the first request. */
export function createTsSemanticService(opts: TsSemanticServiceOptions = {}): TsSemanticService {
  return new SemanticService(opts);
}

/** The service: one `Slot` per worker, and the request running on them (see `TsSemanticService`). */
class SemanticService implements TsSemanticService {
  private readonly maxRestarts: number;
  private readonly workerCount: number;
  private readonly slots: (Slot | null)[];
  private current: Request | null = null;
  private disposed = false;

  constructor(private readonly opts: TsSemanticServiceOptions) {
    this.maxRestarts = opts.maxRestartsPerRequest ?? 3;
    this.workerCount = Math.max(1, Math.floor(opts.workers ?? defaultSemanticWorkers(opts.maxOldSpaceSizeMb ?? 2048)));
    this.slots = new Array<Slot | null>(this.workerCount).fill(null);
  }

  get pid(): number | null {
    return this.running()[0]?.supervisor.pid ?? null;
  }

  get pids(): readonly number[] {
    return this.running().map((s) => s.supervisor.pid ?? 0);
  }

  get workerInfo(): SemanticWorkerInfo | null {
    return this.running()[0]?.info ?? null;
  }

  prepare(repoRoot: string, files: readonly string[], options: { readonly maxFileBytes?: number } = {}): void {
    if (this.disposed || files.length === 0) return;
    const msg: Extract<ParentMessage, { type: 'prepare' }> = { type: 'prepare', repoRoot, files: [...files], ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}) };
    let s: Slot;
    try {
      s = this.slotAt(0);
    } catch {
      return; // best effort: the request that follows reports the missing worker script
    }
    // A new worker gets the request with its environment (bounded: a long list is posted).
    let sent = false;
    if (s.supervisor.pid === null) {
      const json = JSON.stringify(msg);
      sent = json.length <= INITIAL_PREPARE_MAX_CHARS;
      if (sent) s.initialPrepare = json;
    }
    s.supervisor.start().then(
      () => {
        if (!sent && !this.disposed) s.supervisor.notify(msg);
      },
      () => undefined, // best effort: the request that follows meets the failed start and reports it
    );
  }

  analyzeRepository(repoRoot: string, options: AnalyzeRepositoryOptions = {}): Promise<SemanticResult> {
    if (this.disposed) return Promise.reject(new CaError('semantic_unavailable', 'semantic service disposed'));
    // A newer request supersedes the running one.
    if (this.current !== null) this.settle(this.current, { error: new CaError('semantic_unavailable', 'superseded by a newer request', { context: { reason: 'cancelled' } }) });
    const deadlineMs = options.deadlineMs ?? this.opts.defaultDeadlineMs ?? 300_000;
    return new Promise<SemanticResult>((resolveP, rejectP) => {
      const r = newRequest(repoRoot, options, deadlineMs, resolveP, rejectP);
      this.current = r;
      options.signal?.addEventListener(
        'abort',
        () => this.settle(r, { error: new CaError('semantic_unavailable', 'semantic request aborted', { context: { reason: 'cancelled' } }) }),
        { once: true },
      );
      this.start(r, 0, null);
    });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.current) this.settle(this.current, { error: new CaError('semantic_unavailable', 'semantic service disposed') });
    // A profiled worker writes its profile when it leaves on its own (the shutdown message); a killed one writes none.
    await Promise.all(this.slots.map((s) => s?.supervisor.close(CPU_PROFILE_DIR ? PROFILE_FLUSH_MS : 0)));
  }

  private emit(e: SemanticServiceEvent): void {
    this.opts.onEvent?.(e);
  }

  /** The slot's supervisor, created on first use (creating one starts nothing). */
  private slotAt(index: number): Slot {
    return (this.slots[index] ??= createSlot(this.opts, index, (e) => this.emit(e)));
  }

  private running(): Slot[] {
    return this.slots.filter((s): s is Slot => s !== null && s.supervisor.pid !== null);
  }

  private settle(r: Request, outcome: { result?: SemanticResult; error?: unknown }): void {
    if (r.settled) return;
    r.settled = true;
    if (this.current === r) this.current = null;
    // Workers still on this request drop it (a cancel message); their late messages are ignored.
    r.abort.abort();
    if (outcome.error !== undefined) r.reject(outcome.error);
    else r.resolve(outcome.result!);
  }

  /** Settles the request once every worker slot with work has reported `done`. */
  private maybeFinish(r: Request): void {
    if (r.plan === null) return;
    for (const slot of r.assigned.keys()) if (!r.done.has(slot)) return;
    this.settle(r, { result: assemble(r, 'semantic_unavailable: worker reported no result') });
  }

  /** Sends the request to the worker of `slot` (its supervisor starts it when needed). */
  private start(r: Request, slot: number, only: readonly string[] | null): void {
    if (r.settled) return;
    let s: Slot;
    try {
      s = this.slotAt(slot);
    } catch (e) {
      this.settle(r, { error: e }); // no worker script: the request fails with semantic_unavailable
      return;
    }
    const payload: AnalyzePayload = {
      repoRoot: r.repoRoot,
      files: r.files,
      only: only === null ? null : [...only],
      deadlineAt: r.deadlineAt,
      ...(only === null && this.workerCount > 1 ? { workers: this.workerCount } : {}),
      ...(r.syntactic !== null ? { syntactic: r.syntactic } : {}),
      ...(r.regions !== null ? { regions: r.regions } : {}),
      ...(r.maxFileBytes !== null ? { maxFileBytes: r.maxFileBytes } : {}),
    };
    s.supervisor
      .request(payload, {
        // Hard deadline: the workers check it between files; this catches one stuck inside a file.
        deadlineMs: r.deadlineAt + DEADLINE_GRACE_MS - Date.now(),
        signal: r.abort.signal,
        onProgress: (m) => this.onProgress(r, slot, s, m as ChildMessage),
      })
      .then(
        () => {
          r.done.add(slot);
          this.maybeFinish(r);
        },
        (e: unknown) => this.onLost(r, slot, e),
      );
  }

  private onProgress(r: Request, slot: number, s: Slot, m: ChildMessage): void {
    if (r.settled) return;
    const pid = s.supervisor.pid ?? s.lastPid;
    switch (m.type) {
      case 'plan':
        // After a restart the worker plans only the remaining projects: keep the first plan.
        if (r.plan !== null) break;
        r.plan = [...m.projects];
        r.onProgress?.(0, r.plan.length);
        if (m.shards !== undefined && slot === 0) {
          m.shards.forEach((ids, i) => {
            if (i === 0 || ids.length > 0) r.assigned.set(i, ids);
          });
          for (const [i, ids] of r.assigned) if (i !== 0) this.start(r, i, ids);
        } else r.assigned.set(slot, [...m.projects]);
        break;
      case 'project_start':
        r.inFlight.set(slot, m.project);
        this.emit({ type: 'project_start', project: m.project, pid });
        break;
      case 'project':
        r.results.set(m.project, m.result);
        if (r.plan !== null) r.onProgress?.(Math.min(r.results.size, r.plan.length), r.plan.length);
        if (r.inFlight.get(slot) === m.project) r.inFlight.delete(slot);
        this.emit({ type: 'project_done', project: m.project, pid });
        break;
      case 'error':
        // Only an oom_restart naming its project is progress (see semanticCodec); the worker exits next.
        if (m.project === undefined) break;
        r.oomSlots.add(slot);
        r.results.set(m.project, failedProject(m.project, `oom_restart: ${m.message}`));
        r.inFlight.delete(slot);
        break;
      default:
        break;
    }
  }

  /** The slot's request failed: a worker's error, a failed start, the deadline, or a lost process. */
  private onLost(r: Request, slot: number, e: unknown): void {
    if (r.settled || this.disposed) return;
    const failedStart = startFailure(e);
    if (e instanceof Error && reportedByWorker.has(e)) this.settle(r, { error: e });
    else if (failedStart !== null) this.settle(r, { error: failedStart });
    else if (e instanceof CaError && e.code === 'deadline_exceeded') this.onDeadline(r, slot);
    else if (e instanceof CaError && (e.code === 'worker_crashed' || e.code === 'oom_restart' || e.code === 'protocol_error')) this.onCrash(r, slot, e);
    else this.settle(r, { error: e });
  }

  /** Past the hard deadline: the workers still busy with it are stopped, the unfinished projects fail with `timeout`. */
  private onDeadline(r: Request, slot: number): void {
    for (const [i, s] of this.slots.entries()) {
      if (s === null || i === slot || r.done.has(i) || (r.plan !== null && !r.assigned.has(i))) continue;
      void s.supervisor.stop(0);
    }
    if (r.plan === null) this.settle(r, { error: new CaError('timeout', `semantic pass exceeded its ${r.deadlineMs} ms deadline`) });
    else this.settle(r, { result: assemble(r, `timeout: semantic pass exceeded its ${r.deadlineMs} ms deadline`) });
  }

  /**
   * The slot's worker died with the request: the project it was on is retried once (or fails
   * alone when it ran the worker out of memory), and a new worker resumes with the projects of
   * the slot not reported yet; past `maxRestartsPerRequest` the request fails.
   */
  private onCrash(r: Request, slot: number, e: CaError): void {
    const s = this.slotAt(slot);
    const oom = r.oomSlots.delete(slot) || e.code === 'oom_restart';
    r.restarts++;
    this.emit({ type: 'restart', pid: s.lastPid, code: oom ? 'oom_restart' : 'crash', message: `worker exited (${exitOf(e)})` });
    const p = r.inFlight.get(slot);
    if (p !== undefined) {
      r.inFlight.delete(slot);
      // A project that kills the worker twice (or runs it out of memory) fails alone.
      if (oom || r.retried.has(p)) {
        r.results.set(p, failedProject(p, oom ? 'oom_restart: worker ran out of memory on this project' : `semantic_unavailable: worker crashed twice (${exitOf(e)})`));
      } else r.retried.add(p);
    }
    if (r.restarts > this.maxRestarts) {
      this.settle(r, { error: new CaError('semantic_unavailable', `semantic worker crashed ${r.restarts} times`, { cause: e }) });
      return;
    }
    // Before the plan only the first worker runs: it starts over (and shards again).
    const mine = r.plan === null ? null : (r.assigned.get(slot) ?? []);
    const remaining = mine === null ? null : mine.filter((id) => !r.results.has(id));
    if (remaining !== null && remaining.length === 0) {
      r.done.add(slot);
      this.maybeFinish(r);
      return;
    }
    this.start(r, slot, remaining);
  }
}

/**
 * The supervisor of one worker slot: a forked worker with its heap limit, the protocol check
 * of its `hello`, restarts without backoff and without a cap of their own (a request counts its
 * restarts, `maxRestartsPerRequest`), and the idle shutdown.
 */
function createSlot(opts: TsSemanticServiceOptions, index: number, emit: (e: SemanticServiceEvent) => void): Slot {
  const maxOld = opts.maxOldSpaceSizeMb ?? 2048;
  const ceiling = opts.memoryCeilingMb ?? Math.floor(maxOld * 0.85);
  const script = opts.workerPath ?? defaultWorkerPath();
  const transport = nodeIpcTransport({
    name: index === 0 ? 'semantic worker' : `semantic worker ${index + 1}`,
    script,
    // A larger young generation: the compiler allocates short-lived nodes by the million.
    execArgv: [`--max-old-space-size=${maxOld}`, '--max-semi-space-size=32', ...(CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [])],
    env: () => {
      // `initial` (a prepare, as JSON) starts as soon as the worker is up: posted after the
      // handshake instead, it would wait until this process's event loop turns, and the caller
      // is then parsing files synchronously.
      const initial = slot.initialPrepare;
      slot.initialPrepare = undefined;
      return {
        ...process.env,
        CA_SEMANTIC_HEAP_CEILING_MB: String(ceiling),
        ...(initial !== undefined ? { [INITIAL_PREPARE_ENV]: initial } : {}),
        ...(opts.programCacheFile ? { [PROGRAM_CACHE_ENV]: opts.programCacheFile } : {}),
      };
    },
  });
  const slot: Slot = {
    info: null,
    lastPid: 0,
    initialPrepare: undefined,
    supervisor: new Supervisor<AnalyzePayload, void>({
      transport,
      codec: semanticCodec,
      maxRestarts: Number.MAX_SAFE_INTEGER,
      backoffMs: 0,
      startTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      idleTimeoutMs: opts.idleTimeoutMs ?? 60_000,
      handshake: async (ctx) => {
        const hello = await ctx.waitFor((m) => ((m as ChildMessage | null)?.type === 'hello' ? (m as Extract<ChildMessage, { type: 'hello' }>) : undefined));
        if (hello.protocolVersion !== SEMANTIC_PROTOCOL_VERSION) {
          throw new CaError('semantic_unavailable', `semantic worker speaks protocol ${hello.protocolVersion}, expected ${SEMANTIC_PROTOCOL_VERSION}`);
        }
        slot.info = { protocolVersion: hello.protocolVersion, capabilities: hello.capabilities, extractorVersion: hello.extractorVersion, pid: hello.pid };
      },
      onEvent: (e) => {
        if (e.type === 'spawned') {
          slot.info = null;
          slot.lastPid = e.pid ?? 0;
          emit({ type: 'spawned', pid: slot.lastPid });
        } else if (e.type === 'idle_shutdown') emit({ type: 'idle_shutdown', pid: e.pid ?? 0 });
        else if (e.type === 'event') {
          const m = e.value as ChildMessage;
          if (m.type === 'event') emit({ type: 'worker_event', code: m.code, message: m.message, pid: e.pid ?? 0, ...(m.path !== undefined ? { project: m.path } : {}) });
        }
      },
    }),
  };
  return slot;
}
