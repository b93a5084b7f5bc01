/**
 * The supervisor of the TS semantic worker: forks dist/semanticWorker.js with a heap limit,
 * checks the handshake, streams per-project results, enforces the deadline, cancels
 * superseded requests, restarts the worker on a crash or when it passes its memory ceiling
 * (resuming with the projects not yet reported) and shuts it down when idle.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CaError } from '@ca/schema';
import {
  SEMANTIC_PROTOCOL_VERSION,
  type AnalyzeRequestOptions,
  type ChildMessage,
  type ParentMessage,
  type ProjectResult,
  type SemanticResult,
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
  /** Progress and lifecycle events (spawn, restart, plugin_blocked …). */
  readonly onEvent?: (event: SemanticServiceEvent) => void;
}

/** Lifecycle and progress notifications of the service. */
export interface SemanticServiceEvent {
  readonly type: 'spawned' | 'project_start' | 'project_done' | 'restart' | 'worker_event' | 'idle_shutdown';
  readonly pid?: number;
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
  /** Pid of the running worker, null when none runs (tests use it to kill the worker). */
  readonly pid: number | null;
  /** Handshake of the running worker. */
  readonly workerInfo: SemanticWorkerInfo | null;
  dispose(): Promise<void>;
}

const HANDSHAKE_TIMEOUT_MS = 30_000;
/** The worker enforces the deadline between files; the hard kill waits this much longer (spawn + one file). */
const DEADLINE_GRACE_MS = 5_000;

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
  readonly deadlineAt: number;
  plan: string[] | null;
  readonly results: Map<string, ProjectResult>;
  inFlight: string | null;
  readonly retried: Set<string>;
  restarts: number;
  settled: boolean;
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

/** Creates the supervisor. The worker is forked lazily on the first request. */
export function createTsSemanticService(opts: TsSemanticServiceOptions = {}): TsSemanticService {
  const maxOld = opts.maxOldSpaceSizeMb ?? 2048;
  const ceiling = opts.memoryCeilingMb ?? Math.floor(maxOld * 0.85);
  const idleMs = opts.idleTimeoutMs ?? 60_000;
  const maxRestarts = opts.maxRestartsPerRequest ?? 3;
  const emit = (e: SemanticServiceEvent): void => opts.onEvent?.(e);
  let worker: Worker | null = null;
  let current: Request | null = null;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | null = null;
  let disposed = false;

  const post = (w: Worker, m: ParentMessage): void => {
    if (w.proc.connected) w.proc.send(m);
  };

  const spawn = (): Worker => {
    const workerPath = opts.workerPath ?? defaultWorkerPath();
    const proc = fork(workerPath, [], {
      execArgv: [`--max-old-space-size=${maxOld}`],
      env: { ...process.env, CA_SEMANTIC_HEAP_CEILING_MB: String(ceiling) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const w: Worker = { proc, info: null, ready: Promise.resolve(), stderr: '', expectedExit: false, oomProject: null };
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

  const kill = (w: Worker): void => {
    w.expectedExit = true;
    if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
  };

  const armIdle = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    if (disposed) return;
    idleTimer = setTimeout(() => {
      if (current !== null || worker === null) return;
      const w = worker;
      worker = null;
      w.expectedExit = true;
      post(w, { type: 'shutdown' });
      setTimeout(() => kill(w), 2_000).unref();
      emit({ type: 'idle_shutdown', pid: w.proc.pid ?? 0 });
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

  const start = async (r: Request, only: string[] | null): Promise<void> => {
    if (worker === null) worker = spawn();
    const w = worker;
    try {
      await w.ready;
    } catch (e) {
      if (worker === w) worker = null;
      settle(r, { error: e });
      return;
    }
    if (r.settled || worker !== w) return;
    post(w, { type: 'analyze', id: r.id, repoRoot: r.repoRoot, files: r.files, only, deadlineAt: r.deadlineAt });
  };

  function onChildMessage(w: Worker, m: ChildMessage): void {
    if (m.type === 'event') {
      emit({ type: 'worker_event', code: m.code, message: m.message, pid: w.proc.pid ?? 0 });
      return;
    }
    if (m.type === 'hello') return;
    const r = current;
    if (r === null || m.id !== r.id || worker !== w) return;
    switch (m.type) {
      case 'plan':
        // After a restart the worker plans only the remaining projects: keep the first plan.
        r.plan ??= [...m.projects];
        break;
      case 'project_start':
        r.inFlight = m.project;
        emit({ type: 'project_start', project: m.project, pid: w.proc.pid ?? 0 });
        break;
      case 'project':
        r.results.set(m.project, m.result);
        if (r.inFlight === m.project) r.inFlight = null;
        emit({ type: 'project_done', project: m.project, pid: w.proc.pid ?? 0 });
        break;
      case 'error':
        if (m.code === 'oom_restart' && m.project !== undefined) {
          w.oomProject = m.project;
          r.results.set(m.project, failedProject(m.project, `oom_restart: ${m.message}`));
          r.inFlight = null;
        } else {
          settle(r, { error: new CaError(m.code, m.message) });
        }
        break;
      case 'done':
        settle(r, { result: assemble(r, 'semantic_unavailable: worker reported no result') });
        break;
    }
  }

  function onExit(w: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    if (worker === w) worker = null;
    const r = current;
    if (r === null || r.settled || disposed) return;
    if (w.expectedExit && w.oomProject === null) return;
    const oom = w.oomProject !== null || /heap out of memory/i.test(w.stderr);
    r.restarts++;
    emit({ type: 'restart', pid: w.proc.pid ?? 0, code: oom ? 'oom_restart' : 'crash', message: `worker exited (${signal ?? code})` });
    if (r.inFlight !== null) {
      const p = r.inFlight;
      r.inFlight = null;
      // A project that kills the worker twice (or runs it out of memory) fails alone.
      if (oom || r.retried.has(p)) {
        r.results.set(p, failedProject(p, oom ? 'oom_restart: worker ran out of memory on this project' : `semantic_unavailable: worker crashed twice (${signal ?? code})`));
      } else r.retried.add(p);
    }
    if (r.restarts > maxRestarts) {
      settle(r, { error: new CaError('semantic_unavailable', `semantic worker crashed ${r.restarts} times`) });
      return;
    }
    const remaining = r.plan === null ? null : r.plan.filter((p) => !r.results.has(p));
    if (remaining !== null && remaining.length === 0) {
      settle(r, { result: assemble(r, 'semantic_unavailable') });
      return;
    }
    void start(r, remaining);
  }

  return {
    get pid() {
      return worker?.proc.pid ?? null;
    },
    get workerInfo() {
      return worker?.info ?? null;
    },
    analyzeRepository(repoRoot, options = {}) {
      if (disposed) return Promise.reject(new CaError('semantic_unavailable', 'semantic service disposed'));
      if (idleTimer) clearTimeout(idleTimer);
      // A newer request supersedes the running one.
      const prev = current;
      if (prev !== null) {
        if (worker) post(worker, { type: 'cancel', id: prev.id });
        settle(prev, { error: new CaError('semantic_unavailable', 'superseded by a newer request', { context: { reason: 'cancelled' } }) });
      }
      const deadlineMs = options.deadlineMs ?? opts.defaultDeadlineMs ?? 300_000;
      return new Promise<SemanticResult>((resolveP, rejectP) => {
        const r: Request = {
          id: nextId++,
          repoRoot,
          files: options.files ? [...options.files] : null,
          deadlineAt: Date.now() + deadlineMs,
          plan: null,
          results: new Map(),
          inFlight: null,
          retried: new Set(),
          restarts: 0,
          settled: false,
          resolve: resolveP,
          reject: rejectP,
          timer: null,
        };
        current = r;
        // Hard deadline: the worker checks it between files; this catches a worker stuck inside one.
        r.timer = setTimeout(() => {
          if (r.settled) return;
          if (worker) kill(worker);
          worker = null;
          if (r.plan === null) settle(r, { error: new CaError('timeout', `semantic pass exceeded its ${deadlineMs} ms deadline`) });
          else settle(r, { result: assemble(r, `timeout: semantic pass exceeded its ${deadlineMs} ms deadline`) });
        }, deadlineMs + DEADLINE_GRACE_MS);
        options.signal?.addEventListener(
          'abort',
          () => {
            if (r.settled) return;
            if (worker) post(worker, { type: 'cancel', id: r.id });
            settle(r, { error: new CaError('semantic_unavailable', 'semantic request aborted', { context: { reason: 'cancelled' } }) });
          },
          { once: true },
        );
        void start(r, null);
      });
    },
    async dispose() {
      disposed = true;
      if (idleTimer) clearTimeout(idleTimer);
      if (current) settle(current, { error: new CaError('semantic_unavailable', 'semantic service disposed') });
      const w = worker;
      worker = null;
      if (w) {
        const exited = new Promise<void>((res) => {
          if (w.proc.exitCode !== null || w.proc.signalCode !== null) res();
          else w.proc.once('exit', () => res());
        });
        kill(w);
        await exited;
      }
    },
  };
}
