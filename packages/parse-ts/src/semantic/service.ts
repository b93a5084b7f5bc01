/**
 * The supervisor of the TS semantic worker: forks dist/semanticWorker.js with a heap limit,
 * checks the handshake, streams per-project results, enforces the deadline, cancels
 * superseded requests, restarts the worker on a crash or when it passes its memory ceiling
 * (resuming with the projects not yet reported) and shuts it down when idle.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CaError } from '@ca/schema';
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

const HANDSHAKE_TIMEOUT_MS = 30_000;
/** `CA_DEBUG_TSWORKER_CPU_PROF=<dir>`: workers write V8 CPU profiles there (for performance work). */
const CPU_PROFILE_DIR = process.env.CA_DEBUG_TSWORKER_CPU_PROF;
/** Longest prepare request handed to a new worker in its environment (Linux caps one variable at 128 KiB). */
const INITIAL_PREPARE_MAX_CHARS = 64 * 1024;
/** The worker enforces the deadline between files; the hard kill waits this much longer (spawn + one file). */
const DEADLINE_GRACE_MS = 5_000;

/**
 * Default worker count: one worker per 2 cores, at most 2, and only as many heaps of
 * `maxOldSpaceSizeMb` as fit in half of the RAM. One worker already keeps ~1.7 cores busy (the
 * main thread plus V8's concurrent GC and JIT threads: on excalidraw 16 s main thread + 18 s
 * helper threads for a 20 s pass), and a second worker parses, binds and syntactically indexes
 * the shared packages of its programs again (+25–30 % CPU), so on 2 cores two workers do not
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

interface Worker {
  /** Index of the worker in the service (0 = the one that plans a request). */
  readonly slot: number;
  readonly proc: ChildProcess;
  info: SemanticWorkerInfo | null;
  ready: Promise<void>;
  stderr: string;
  /** Set when the exit is ours (idle, dispose, cancel kill), so it is not treated as a crash. */
  expectedExit: boolean;
  /** Set when the worker announced an oom_restart before exiting. */
  oomProject: string | null;
}

interface Request {
  readonly id: number;
  readonly repoRoot: string;
  readonly files: readonly string[] | null;
  readonly syntactic: readonly SyntacticSkeleton[] | null;
  readonly regions: readonly AnalysisRegion[] | null;
  readonly maxFileBytes: number | null;
  readonly deadlineAt: number;
  plan: string[] | null;
  /** Project ids per worker slot, known once planned; a slot absent here has nothing to do. */
  readonly assigned: Map<number, readonly string[]>;
  /** Slots that sent `done` for this request. */
  readonly done: Set<number>;
  readonly results: Map<string, ProjectResult>;
  /** Project in flight per worker slot. */
  readonly inFlight: Map<number, string>;
  readonly retried: Set<string>;
  restarts: number;
  settled: boolean;
  readonly onProgress?: (done: number, total: number) => void;
  readonly resolve: (r: SemanticResult) => void;
  readonly reject: (e: unknown) => void;
  timer: NodeJS.Timeout | null;
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

/** Creates the supervisor. Workers are forked lazily on the first request. */
export function createTsSemanticService(opts: TsSemanticServiceOptions = {}): TsSemanticService {
  const maxOld = opts.maxOldSpaceSizeMb ?? 2048;
  const ceiling = opts.memoryCeilingMb ?? Math.floor(maxOld * 0.85);
  const idleMs = opts.idleTimeoutMs ?? 60_000;
  const maxRestarts = opts.maxRestartsPerRequest ?? 3;
  const workerCount = Math.max(1, Math.floor(opts.workers ?? defaultSemanticWorkers(maxOld)));
  const emit = (e: SemanticServiceEvent): void => opts.onEvent?.(e);
  const workers: (Worker | null)[] = new Array<Worker | null>(workerCount).fill(null);
  let current: Request | null = null;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | null = null;
  let disposed = false;

  const post = (w: Worker, m: ParentMessage): void => {
    if (w.proc.connected) w.proc.send(m);
  };
  const running = (): Worker[] => workers.filter((w): w is Worker => w !== null);

  /**
   * Forks the worker of `slot`. `initial` (a prepare, as JSON) travels in the worker's environment and
   * starts as soon as the worker is up: posted after the handshake instead, it would wait until
   * this process's event loop turns, and the caller is then parsing files synchronously.
   */
  const spawn = (slot: number, initial?: string): Worker => {
    const workerPath = opts.workerPath ?? defaultWorkerPath();
    const proc = fork(workerPath, [], {
      // A larger young generation: the compiler allocates short-lived nodes by the million
      // (excalidraw's program: 3.34 → 3.23 s, 4.5 → 4.1 CPU-s, medians of 5).
      execArgv: [`--max-old-space-size=${maxOld}`, '--max-semi-space-size=32', ...(CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROFILE_DIR}`] : [])],
      env: {
        ...process.env,
        CA_SEMANTIC_HEAP_CEILING_MB: String(ceiling),
        ...(initial !== undefined ? { [INITIAL_PREPARE_ENV]: initial } : {}),
        ...(opts.programCacheFile ? { [PROGRAM_CACHE_ENV]: opts.programCacheFile } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const w: Worker = { slot, proc, info: null, ready: Promise.resolve(), stderr: '', expectedExit: false, oomProject: null };
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (d: string) => {
      w.stderr = (w.stderr + d).slice(-4096);
    });
    w.ready = new Promise<void>((resolveReady, rejectReady) => {
      const t = setTimeout(() => {
        w.expectedExit = true;
        proc.kill('SIGKILL');
        rejectReady(new CaError('semantic_unavailable', 'semantic worker did not complete its handshake'));
      }, HANDSHAKE_TIMEOUT_MS);
      proc.once('exit', (code, signal) => {
        clearTimeout(t);
        rejectReady(new CaError('semantic_unavailable', `semantic worker exited before its handshake (${signal ?? code}): ${w.stderr.trim()}`));
      });
      proc.on('message', (raw: unknown) => {
        const m = raw as ChildMessage;
        if (m.type === 'hello') {
          clearTimeout(t);
          if (m.protocolVersion !== SEMANTIC_PROTOCOL_VERSION) {
            w.expectedExit = true;
            proc.kill('SIGKILL');
            rejectReady(new CaError('semantic_unavailable', `semantic worker speaks protocol ${m.protocolVersion}, expected ${SEMANTIC_PROTOCOL_VERSION}`));
            return;
          }
          w.info = { protocolVersion: m.protocolVersion, capabilities: m.capabilities, extractorVersion: m.extractorVersion, pid: m.pid };
          resolveReady();
          return;
        }
        onChildMessage(w, m);
      });
    });
    w.ready.catch(() => {});
    proc.on('exit', (code, signal) => onExit(w, code, signal));
    proc.on('error', () => {});
    emit({ type: 'spawned', pid: proc.pid ?? 0 });
    return w;
  };

  /**
   * A worker holds the parent's event loop only while it has work: an idle warm worker (kept
   * for the next request until the idle shutdown) never keeps a finished process alive.
   */
  const hold = (w: Worker, held: boolean): void => {
    const handles = [w.proc, w.proc.channel, w.proc.stderr] as ({ ref?: () => void; unref?: () => void } | null | undefined)[];
    for (const h of handles) (held ? h?.ref : h?.unref)?.call(h);
  };

  const kill = (w: Worker): void => {
    w.expectedExit = true;
    if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
    // A profiled worker leaves on its own when disconnected (a killed one writes no profile).
    if (CPU_PROFILE_DIR && w.proc.connected) w.proc.disconnect();
    else w.proc.kill('SIGKILL');
  };

  const armIdle = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    if (disposed) return;
    if (current === null) for (const w of running()) hold(w, false);
    idleTimer = setTimeout(() => {
      if (current !== null) return;
      for (let slot = 0; slot < workers.length; slot++) {
        const w = workers[slot];
        if (!w) continue;
        workers[slot] = null;
        w.expectedExit = true;
        post(w, { type: 'shutdown' });
        setTimeout(() => kill(w), 2_000).unref();
        emit({ type: 'idle_shutdown', pid: w.proc.pid ?? 0 });
      }
    }, idleMs);
    idleTimer.unref();
  };

  const settle = (r: Request, outcome: { result?: SemanticResult; error?: unknown }): void => {
    if (r.settled) return;
    r.settled = true;
    if (r.timer) clearTimeout(r.timer);
    if (current === r) current = null;
    if (outcome.error !== undefined) r.reject(outcome.error);
    else r.resolve(outcome.result!);
    armIdle();
  };

  const assemble = (r: Request, missingReason: string): SemanticResult => ({
    projects: (r.plan ?? []).map((p) => r.results.get(p) ?? failedProject(p, missingReason)),
  });

  /** Settles the request once every worker slot with work has reported `done`. */
  const maybeFinish = (r: Request): void => {
    if (r.plan === null) return;
    for (const slot of r.assigned.keys()) if (!r.done.has(slot)) return;
    settle(r, { result: assemble(r, 'semantic_unavailable: worker reported no result') });
  };

  /** Sends the request to the worker of `slot` (forking it when needed). */
  const start = async (r: Request, slot: number, only: readonly string[] | null): Promise<void> => {
    let w = workers[slot];
    if (!w) {
      w = spawn(slot);
      workers[slot] = w;
    }
    try {
      await w.ready;
    } catch (e) {
      if (workers[slot] === w) workers[slot] = null;
      settle(r, { error: e });
      return;
    }
    if (r.settled || workers[slot] !== w) return;
    hold(w, true);
    post(w, {
      type: 'analyze',
      id: r.id,
      repoRoot: r.repoRoot,
      files: r.files,
      only: only === null ? null : [...only],
      deadlineAt: r.deadlineAt,
      ...(only === null && workerCount > 1 ? { workers: workerCount } : {}),
      ...(r.syntactic !== null ? { syntactic: r.syntactic } : {}),
      ...(r.regions !== null ? { regions: r.regions } : {}),
      ...(r.maxFileBytes !== null ? { maxFileBytes: r.maxFileBytes } : {}),
    });
  };

  function onChildMessage(w: Worker, m: ChildMessage): void {
    if (m.type === 'event') {
      emit({ type: 'worker_event', code: m.code, message: m.message, pid: w.proc.pid ?? 0, ...(m.path !== undefined ? { project: m.path } : {}) });
      return;
    }
    if (m.type === 'hello') return;
    const r = current;
    if (r === null || m.id !== r.id || workers[w.slot] !== w) return;
    switch (m.type) {
      case 'plan':
        // After a restart the worker plans only the remaining projects: keep the first plan.
        if (r.plan === null) {
          r.plan = [...m.projects];
          r.onProgress?.(0, r.plan.length);
          if (m.shards !== undefined && w.slot === 0) {
            m.shards.forEach((ids, slot) => {
              if (slot === 0 || ids.length > 0) r.assigned.set(slot, ids);
            });
            for (const [slot, ids] of r.assigned) if (slot !== 0) void start(r, slot, ids);
          } else r.assigned.set(w.slot, [...m.projects]);
        }
        break;
      case 'project_start':
        r.inFlight.set(w.slot, m.project);
        emit({ type: 'project_start', project: m.project, pid: w.proc.pid ?? 0 });
        break;
      case 'project':
        r.results.set(m.project, m.result);
        if (r.plan !== null) r.onProgress?.(Math.min(r.results.size, r.plan.length), r.plan.length);
        if (r.inFlight.get(w.slot) === m.project) r.inFlight.delete(w.slot);
        emit({ type: 'project_done', project: m.project, pid: w.proc.pid ?? 0 });
        break;
      case 'error':
        if (m.code === 'oom_restart' && m.project !== undefined) {
          w.oomProject = m.project;
          r.results.set(m.project, failedProject(m.project, `oom_restart: ${m.message}`));
          r.inFlight.delete(w.slot);
        } else {
          settle(r, { error: new CaError(m.code, m.message) });
        }
        break;
      case 'done':
        r.done.add(w.slot);
        maybeFinish(r);
        break;
    }
  }

  function onExit(w: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (workers[w.slot] === w) workers[w.slot] = null;
    const r = current;
    if (r === null || r.settled || disposed) return;
    if (w.expectedExit && w.oomProject === null) return;
    // A worker without work in this request (finished, or never assigned) just goes away.
    if (r.plan === null && w.slot !== 0) return;
    if (r.done.has(w.slot) || (r.plan !== null && !r.assigned.has(w.slot))) return;
    const oom = w.oomProject !== null || /heap out of memory/i.test(w.stderr);
    r.restarts++;
    emit({ type: 'restart', pid: w.proc.pid ?? 0, code: oom ? 'oom_restart' : 'crash', message: `worker exited (${signal ?? code})` });
    const p = r.inFlight.get(w.slot);
    if (p !== undefined) {
      r.inFlight.delete(w.slot);
      // A project that kills the worker twice (or runs it out of memory) fails alone.
      if (oom || r.retried.has(p)) {
        r.results.set(p, failedProject(p, oom ? 'oom_restart: worker ran out of memory on this project' : `semantic_unavailable: worker crashed twice (${signal ?? code})`));
      } else r.retried.add(p);
    }
    if (r.restarts > maxRestarts) {
      settle(r, { error: new CaError('semantic_unavailable', `semantic worker crashed ${r.restarts} times`) });
      return;
    }
    // Before the plan only the first worker runs: it starts over (and shards again).
    const mine = r.plan === null ? null : (r.assigned.get(w.slot) ?? []);
    const remaining = mine === null ? null : mine.filter((id) => !r.results.has(id));
    if (remaining !== null && remaining.length === 0) {
      r.done.add(w.slot);
      maybeFinish(r);
      return;
    }
    void start(r, w.slot, remaining);
  }

  return {
    get pid() {
      return running()[0]?.proc.pid ?? null;
    },
    get pids() {
      return running().map((w) => w.proc.pid ?? 0);
    },
    get workerInfo() {
      return running()[0]?.info ?? null;
    },
    prepare(repoRoot, files, options = {}) {
      if (disposed || files.length === 0) return;
      const msg: Extract<ParentMessage, { type: 'prepare' }> = { type: 'prepare', repoRoot, files: [...files], ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}) };
      let w = workers[0];
      // A new worker gets the request with its environment (bounded: a long list is posted).
      let sent = false;
      if (!w) {
        const json = JSON.stringify(msg);
        sent = json.length <= INITIAL_PREPARE_MAX_CHARS;
        w = spawn(0, sent ? json : undefined);
        workers[0] = w;
      }
      const worker = w;
      worker.ready
        .then(() => {
          if (workers[0] !== worker || disposed) return;
          if (!sent) post(worker, msg);
          // Like an idle worker, a preparing one never keeps a finished parent alive.
          if (current === null) {
            hold(worker, false);
            armIdle();
          }
        })
        .catch(() => {});
    },
    analyzeRepository(repoRoot, options = {}) {
      if (disposed) return Promise.reject(new CaError('semantic_unavailable', 'semantic service disposed'));
      if (idleTimer) clearTimeout(idleTimer);
      // A newer request supersedes the running one.
      const prev = current;
      if (prev !== null) {
        for (const w of running()) post(w, { type: 'cancel', id: prev.id });
        settle(prev, { error: new CaError('semantic_unavailable', 'superseded by a newer request', { context: { reason: 'cancelled' } }) });
      }
      const deadlineMs = options.deadlineMs ?? opts.defaultDeadlineMs ?? 300_000;
      return new Promise<SemanticResult>((resolveP, rejectP) => {
        const r: Request = {
          id: nextId++,
          repoRoot,
          files: options.files ? [...options.files] : null,
          syntactic: options.syntactic && options.syntactic.length > 0 ? options.syntactic : null,
          regions: options.files && options.regions && options.regions.length > 0 ? options.regions : null,
          maxFileBytes: options.maxFileBytes ?? null,
          deadlineAt: Date.now() + deadlineMs,
          plan: null,
          assigned: new Map(),
          done: new Set(),
          results: new Map(),
          inFlight: new Map(),
          retried: new Set(),
          restarts: 0,
          settled: false,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          resolve: resolveP,
          reject: rejectP,
          timer: null,
        };
        current = r;
        // Hard deadline: the workers check it between files; this catches one stuck inside a file.
        r.timer = setTimeout(() => {
          if (r.settled) return;
          for (let slot = 0; slot < workers.length; slot++) {
            const w = workers[slot];
            // Only workers still busy with this request are killed.
            if (!w || r.done.has(slot)) continue;
            kill(w);
            workers[slot] = null;
          }
          if (r.plan === null) settle(r, { error: new CaError('timeout', `semantic pass exceeded its ${deadlineMs} ms deadline`) });
          else settle(r, { result: assemble(r, `timeout: semantic pass exceeded its ${deadlineMs} ms deadline`) });
        }, deadlineMs + DEADLINE_GRACE_MS);
        options.signal?.addEventListener(
          'abort',
          () => {
            if (r.settled) return;
            for (const w of running()) post(w, { type: 'cancel', id: r.id });
            settle(r, { error: new CaError('semantic_unavailable', 'semantic request aborted', { context: { reason: 'cancelled' } }) });
          },
          { once: true },
        );
        void start(r, 0, null);
      });
    },
    async dispose() {
      disposed = true;
      if (idleTimer) clearTimeout(idleTimer);
      if (current) settle(current, { error: new CaError('semantic_unavailable', 'semantic service disposed') });
      const all = running();
      workers.fill(null);
      await Promise.all(
        all.map((w) => {
          // An idle worker is unref'ed: hold it again, or a caller awaiting dispose() with
          // nothing else pending sees its event loop drain before the exit event arrives.
          hold(w, true);
          const exited = new Promise<void>((res) => {
            if (w.proc.exitCode !== null || w.proc.signalCode !== null) res();
            else w.proc.once('exit', () => res());
          });
          kill(w);
          return exited;
        }),
      );
    },
  };
}
