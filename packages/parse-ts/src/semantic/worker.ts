/**
 * The semantic worker: the child process forked by `createTsSemanticService`. It talks to the
 * supervisor over the Node IPC channel only (stdout stays unused, logs go to stderr), runs one
 * request at a time, and checks cancellation, the deadline and its heap between files.
 *
 * Built by tsup as dist/semanticWorker.js. Never imports anything from the analysed repository.
 */
import { gitBlobId, type ErrorCode, type LanguageAdapter } from '@ca/schema';
import { createTsAdapter } from '../adapter.js';
import {
  analyzeProject,
  buildProgram,
  createBuiltProgram,
  PassStopped,
  programKey,
  programState,
  releaseSourceFiles,
  sourceFileKey,
  stillCurrent,
  type AnalyzeContext,
  type BuiltProgram,
  type ProgramState,
  type SyntacticFile,
} from './analyze.js';
import { createMergeCache, loadMergeCache, mergeGroups, saveMergeCache, type MergeCache } from './merge.js';
import { discoverRepo, groupProjects, restrictGroups, shardProjects, type LoadedProject, type ProgramGroup, type RepoLayout } from './projects.js';
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type ts from 'typescript';
// Not process.memoryUsage(): it also reads the RSS from /proc on every call, which adds up over a pass.
import { getHeapStatistics } from 'node:v8';
import {
  INITIAL_PREPARE_ENV,
  PROGRAM_CACHE_ENV,
  SEMANTIC_CAPABILITIES,
  SEMANTIC_PROTOCOL_VERSION,
  TS_SEMANTIC_EXTRACTOR_VERSION,
  type ChildMessage,
  type ParentMessage,
  type ProjectResult,
  type SyntacticSkeleton,
} from './types.js';

/**
 * `CA_DEBUG_SEMANTIC_TIMING=<file>`: the discovery and merge times and each program's and
 * project's CPU seconds are appended there (not a `CA_SEMANTIC_*` name: those are configuration
 * keys the CLI validates).
 */
const TIMING_FILE = process.env.CA_DEBUG_SEMANTIC_TIMING;
const timing = (line: string): void => {
  if (TIMING_FILE) appendFileSync(TIMING_FILE, `${line}\n`);
};
/** CPU seconds of this process (all threads) since `start`. */
const cpuSince = (start: NodeJS.CpuUsage): string => {
  const c = process.cpuUsage(start);
  return ((c.user + c.system) / 1e6).toFixed(2);
};

const send = (m: ChildMessage): void => {
  process.send?.(m);
};

/** Heap ceiling in bytes; passing it stops the pass with `oom_restart` and exits (a fresh process is cheaper than a fragmented heap). */
const ceilingBytes = Number(process.env.CA_SEMANTIC_HEAP_CEILING_MB ?? '0') * 1024 * 1024;
const cancelled = new Set<number>();
/** Where merge decisions persist between processes (PROGRAM_CACHE_ENV), if anywhere. */
const programCacheFile = process.env[PROGRAM_CACHE_ENV];
/** Which projects share a program, with the checks that keep it valid (`mergeGroups`). */
const mergeGroupsOf = (layout: RepoLayout, requested: ReadonlySet<string> | null): ProgramGroup[] => {
  const merged = mergeGroups(groupProjects(layout.projects), layout.packages, warm.merge, requested, layout.root);
  if (programCacheFile) saveMergeCache(warm.merge, programCacheFile);
  return merged;
};
/**
 * What a warm worker keeps between requests: parsed and bound files (reused while their size
 * and mtime are unchanged) and syntactic indexes (reused while the text is the same), so an
 * edit re-parses and re-binds only the edited files. A full pass starts from nothing and
 * releases files as it goes (one program alive at a time); partial passes keep what they used.
 */
const warm: {
  sourceFiles: NonNullable<AnalyzeContext['sourceFiles']>;
  syntactic: Map<string, SyntacticFile>;
  merge: MergeCache;
  /** Programs the last `prepare` built, each taken by the request that needs it while still current. */
  prepared: BuiltProgram[];
} = {
  sourceFiles: new Map(),
  syntactic: new Map(),
  merge: programCacheFile ? loadMergeCache(programCacheFile) : createMergeCache(),
  prepared: [],
};
/** Past this many cached files a request starts cold (bounds a long-lived worker's heap). */
const WARM_MAX_FILES = 20_000;
/** Whether the warm caches passed their bound (the request starts cold). */
const warmIsFull = (): boolean => warm.sourceFiles.size > WARM_MAX_FILES || warm.syntactic.size > WARM_MAX_FILES;
/** The root files of a program shared by `projects`. */
const rootsOf = (projects: readonly LoadedProject[]): string[] => [...new Set(projects.flatMap((q) => q.rootNames))];
let adapterPromise: Promise<LanguageAdapter> | null = null;
let queue: Promise<void> = Promise.resolve();

function failed(p: LoadedProject, reason: string): ProjectResult {
  return {
    tsconfig: p.tsconfig,
    packageName: p.packageName,
    status: 'failed',
    reason,
    files: [],
    edges: [],
    referenceCounts: [],
    keyRefinements: [],
    fileErrors: [],
  };
}

/** What a request runs: the projects wanted, their program groups and this worker's share. */
interface RequestPlan {
  readonly requested: ReadonlySet<string> | null;
  readonly groups: ProgramGroup[];
  /** This worker's projects, in the order they run. */
  readonly mine: LoadedProject[];
  /** The projects of `mine` sharing each one's program, with the program's options. */
  readonly groupOf: Map<string, { members: LoadedProject[]; options: ts.CompilerOptions }>;
}

async function run(msg: Extract<ParentMessage, { type: 'analyze' }>): Promise<void> {
  const { id } = msg;
  if (cancelled.has(id)) return;
  let layout;
  const td = Date.now();
  try {
    layout = discoverRepo(msg.repoRoot, msg.maxFileBytes !== undefined ? { maxFileBytes: msg.maxFileBytes } : {});
  } catch (e) {
    send({ type: 'error', id, code: 'semantic_unavailable', message: `cannot read repository: ${e instanceof Error ? e.message : String(e)}` });
    return;
  }
  timing(`discover ${Date.now() - td} ms`);
  const plan = planRequest(msg, layout);
  adapterPromise ??= createTsAdapter();
  const adapter = await adapterPromise;
  const partial = msg.files !== null;
  const skeletons = new Map<string, SyntacticSkeleton>();
  for (const sk of msg.syntactic ?? []) skeletons.set(resolve(layout.root, sk.path), sk);
  const prepared = warm.prepared;
  warm.prepared = [];
  resetWarm(partial, plan.requested, skeletons);
  const ctx = requestContext(msg, layout, adapter, plan.requested, skeletons);
  if ((await runProjects(msg, ctx, plan, prepared)) === 'cancelled') return;
  // A full pass indexed every file syntactically: too much to keep for the edits that follow.
  if (!partial) warm.syntactic.clear();
  send({ type: 'done', id });
}

/** Picks the request's projects and program groups, sends the plan (with the shards of a parallel request) and orders this worker's share. */
function planRequest(msg: Extract<ParentMessage, { type: 'analyze' }>, layout: RepoLayout): RequestPlan {
  const { id } = msg;
  const requested = msg.files === null ? null : new Set(msg.files.map((f) => resolve(layout.root, f)));
  const wanted = layout.projects.filter((p) => {
    if (msg.only !== null && !msg.only.includes(p.id)) return false;
    if (requested === null) return true;
    if (p.status === 'failed') return [...requested].some((f) => f.startsWith(p.dir + '/'));
    return p.owned.some((f) => requested.has(f));
  });
  // Projects with the same program key share one program (a shared package is checked once),
  // and groups whose files resolve alike are merged (decided over all projects, so a partial
  // pass builds its program with the same options as a full one).
  const tm = Date.now();
  const merged = mergeGroupsOf(layout, requested);
  timing(`merge ${Date.now() - tm} ms`);
  const groups = restrictGroups(merged, wanted, requested);
  const order = wanted.map((p) => p.id);
  let mine: LoadedProject[];
  if (msg.only === null && (msg.workers ?? 1) > 1) {
    // First worker of a parallel request: split the program groups between the workers; the
    // supervisor starts the others with `only` = their shard.
    const failedIds = wanted.filter((p) => p.status !== 'ok').map((p) => p.id);
    const shards = shardProjects(order, groups, msg.workers ?? 1, failedIds);
    const own = new Set(shards[0]);
    mine = wanted.filter((p) => own.has(p.id));
    send({ type: 'plan', id, projects: order, shards });
  } else {
    mine = wanted;
    send({ type: 'plan', id, projects: order });
  }
  const groupOf = new Map<string, { members: LoadedProject[]; options: ts.CompilerOptions }>();
  for (const g of groups) {
    const members = g.projects.filter((q) => mine.includes(q));
    for (const p of members) groupOf.set(p.id, { members, options: g.options });
  }
  // Run each group's projects back to back so only one program is alive at a time (failed
  // projects first: they cost nothing).
  const rank = new Map<LoadedProject, number>();
  for (const p of mine) if (p.status !== 'ok') rank.set(p, rank.size);
  for (const g of groups) for (const p of g.projects) if (mine.includes(p)) rank.set(p, rank.size);
  mine = [...mine].sort((a, b) => rank.get(a)! - rank.get(b)!);
  return { requested, groups, mine, groupOf };
}

/** Empties the warm caches for a full pass (or past their bound); for a partial one drops the requested files' stale parses. */
function resetWarm(partial: boolean, requested: ReadonlySet<string> | null, skeletons: ReadonlyMap<string, SyntacticSkeleton>): void {
  if (!partial || warmIsFull()) {
    warm.sourceFiles.clear();
    warm.syntactic.clear();
  } else if (requested !== null) {
    // The files of the request changed: never trust size + mtime for them (an edit within the
    // file system's timestamp granularity keeps both), only a text whose hash is the one the
    // caller parsed (its skeleton's).
    for (const [k, cached] of [...warm.sourceFiles]) {
      const abs = resolve(k.slice(k.lastIndexOf('\0') + 1));
      if (!requested.has(abs)) continue;
      const sk = skeletons.get(abs);
      if (sk === undefined || gitBlobId(cached.sf.text) !== sk.contentHash) warm.sourceFiles.delete(k);
    }
  }
}

/** The analysis context of one request: its caches, and the checks that stop it (cancel, deadline, heap). */
function requestContext(
  msg: Extract<ParentMessage, { type: 'analyze' }>,
  layout: RepoLayout,
  adapter: LanguageAdapter,
  requested: ReadonlySet<string> | null,
  skeletons: ReadonlyMap<string, SyntacticSkeleton>,
): AnalyzeContext {
  const { id } = msg;
  const stopIfNeeded = (): void => {
    if (cancelled.has(id)) throw new PassStopped('cancelled', 'superseded by a newer request');
    if (Date.now() > msg.deadlineAt) throw new PassStopped('timeout', 'deadline exceeded');
    if (ceilingBytes > 0 && getHeapStatistics().used_heap_size > ceilingBytes) {
      throw new PassStopped('oom_restart', `heap passed the ${Math.round(ceilingBytes / 1048576)} MB ceiling`);
    }
  };
  const regions = new Map<string, ReadonlySet<string>>();
  for (const r of msg.regions ?? []) regions.set(resolve(layout.root, r.path), new Set(r.keys));
  return {
    layout,
    adapter,
    requested,
    skeletons,
    regions,
    timing,
    syntactic: warm.syntactic,
    sourceFiles: warm.sourceFiles,
    tooDeep: new Map(),
    checkSync: () => {
      if (Date.now() > msg.deadlineAt) throw new PassStopped('timeout', 'deadline exceeded');
    },
    checkpoint: async () => {
      // Yielding lets IPC messages (cancel) arrive while a pass is running.
      await new Promise<void>((r) => setImmediate(r));
      stopIfNeeded();
    },
  };
}

/**
 * Analyses this worker's projects in order, sending each result. One program per group, built
 * when its first project starts and dropped after its last. `cancelled` when a newer request
 * superseded this one (nothing more is sent).
 */
async function runProjects(
  msg: Extract<ParentMessage, { type: 'analyze' }>,
  ctx: AnalyzeContext,
  plan: RequestPlan,
  prepared: readonly BuiltProgram[],
): Promise<'finished' | 'cancelled'> {
  const { id } = msg;
  const { mine, groupOf } = plan;
  const partial = msg.files !== null;
  const programs = new Map<LoadedProject[], ProgramState>();
  for (let i = 0; i < mine.length; i++) {
    const p = mine[i]!;
    for (const plugin of p.strippedPlugins) {
      send({ type: 'event', code: 'plugin_blocked', message: `compiler plugin '${plugin}' stripped (plugins never run)`, path: p.tsconfig ?? undefined });
    }
    if (p.status === 'failed') {
      send({ type: 'project', id, project: p.id, result: failed(p, p.reason ?? 'project_load_failed') });
      continue;
    }
    send({ type: 'project_start', id, project: p.id });
    const { members: group, options } = groupOf.get(p.id) ?? { members: [p], options: p.options };
    try {
      let state = programs.get(group);
      if (state === undefined) {
        state = programFor(ctx, p, group, options, partial ? prepared : []);
        programs.set(group, state);
      }
      const t1 = process.cpuUsage();
      const result = await analyzeProject(ctx, p, state);
      timing(`project ${p.id} owned=${p.owned.length} edges=${result.edges.length} cpu=${cpuSince(t1)}`);
      if (group[group.length - 1] === p) {
        programs.delete(group);
        // Parsed files of this parse key are kept only while a later project still needs them.
        const key = sourceFileKey(options);
        const later = mine.slice(i + 1).filter((q) => q.status === 'ok');
        if (!partial && !later.some((q) => sourceFileKey(groupOf.get(q.id)?.options ?? q.options) === key)) releaseSourceFiles(ctx, options);
      }
      send({ type: 'project', id, project: p.id, result });
    } catch (e) {
      if (group[group.length - 1] === p) programs.delete(group);
      if (!(e instanceof PassStopped)) {
        const code: ErrorCode = 'semantic_unavailable';
        if (process.env.CA_SEMANTIC_DEBUG) process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
        send({ type: 'project', id, project: p.id, result: failed(p, `${code}: ${e instanceof Error ? e.message : String(e)}`) });
        continue;
      }
      if (e.code === 'cancelled') return 'cancelled';
      if (e.code === 'oom_restart') {
        send({ type: 'error', id, code: 'oom_restart', message: e.message, project: p.id });
        // Let the IPC message flush, then leave: the supervisor starts a fresh worker.
        setTimeout(() => process.exit(0), 50);
        await new Promise(() => {});
      }
      for (const rest of mine.slice(i)) {
        send({ type: 'project', id, project: rest.id, result: failed(rest, `timeout: ${e.message}`) });
      }
      break;
    }
  }
  return 'finished';
}

/** The program of `group`: the one `prepare` built while none of its files changed since, else a new one. */
function programFor(ctx: AnalyzeContext, p: LoadedProject, group: LoadedProject[], options: ts.CompilerOptions, prepared: readonly BuiltProgram[]): ProgramState {
  const roots = rootsOf(group);
  const t0 = process.cpuUsage();
  const key = programKey(options, roots);
  const ready = prepared.find((b) => b.key === key && stillCurrent(b, warm.sourceFiles));
  if (ready !== undefined) for (const [f, reason] of ready.excluded) ctx.tooDeep!.set(f, reason);
  const state = ready !== undefined ? programState(ctx, ready) : buildProgram(ctx, options, roots);
  timing(`program ${p.id} roots=${roots.length} files=${state.program.getSourceFiles().length} cpu=${cpuSince(t0)}${ready !== undefined ? ' (prepared)' : ''}`);
  return state;
}

/**
 * Builds the programs owning `files` (parse, module resolution, binding) and keeps their files
 * warm for the partial request that follows; the caller parses and writes its files meanwhile.
 * Best effort: any failure is left to that request to meet and report.
 */
async function prepare(msg: Extract<ParentMessage, { type: 'prepare' }>): Promise<void> {
  const t0 = Date.now();
  warm.prepared = [];
  try {
    const layout = discoverRepo(msg.repoRoot, msg.maxFileBytes !== undefined ? { maxFileBytes: msg.maxFileBytes } : {});
    const requested = new Set(msg.files.map((f) => resolve(layout.root, f)));
    const wanted = layout.projects.filter((p) => p.status === 'ok' && p.owned.some((f) => requested.has(f)));
    if (wanted.length === 0) return;
    const tm = Date.now();
    const groups = restrictGroups(mergeGroupsOf(layout, requested), wanted, requested);
    timing(`prepare: discover ${tm - t0} ms, merge ${Date.now() - tm} ms`);
    if (warmIsFull()) {
      warm.sourceFiles.clear();
      warm.syntactic.clear();
    }
    // The request's syntactic indexes need the adapter: its grammars load meanwhile.
    adapterPromise ??= createTsAdapter();
    const ctx = { layout, sourceFiles: warm.sourceFiles, tooDeep: new Map<string, string>(), timing };
    warm.prepared = groups.map((g) => createBuiltProgram(ctx, g.options, rootsOf(g.projects)));
    timing(`prepare ${Date.now() - t0} ms (${groups.length} programs)`);
  } catch (e) {
    timing(`prepare failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function onMessage(raw: unknown): void {
  const msg = raw as ParentMessage;
  switch (msg.type) {
    case 'prepare':
      queue = queue.then(() => prepare(msg));
      break;
    case 'analyze':
      queue = queue.then(() =>
        run(msg).catch((e: unknown) => {
          send({ type: 'error', id: msg.id, code: 'semantic_unavailable', message: e instanceof Error ? e.message : String(e) });
        }),
      );
      break;
    case 'cancel':
      cancelled.add(msg.id);
      break;
    case 'shutdown':
      process.disconnect?.();
      process.exit(0);
  }
}

if (typeof process.send !== 'function') {
  process.stderr.write('semanticWorker must be started with child_process.fork (IPC channel missing)\n');
  process.exit(2);
}
process.on('message', onMessage);
// Parent gone: nothing left to serve.
process.on('disconnect', () => process.exit(0));
send({
  type: 'hello',
  protocolVersion: SEMANTIC_PROTOCOL_VERSION,
  capabilities: SEMANTIC_CAPABILITIES,
  extractorVersion: TS_SEMANTIC_EXTRACTOR_VERSION,
  pid: process.pid,
});
// A prepare the supervisor handed over with the fork starts now (see INITIAL_PREPARE_ENV).
const initial = process.env[INITIAL_PREPARE_ENV];
delete process.env[INITIAL_PREPARE_ENV];
if (initial !== undefined) {
  try {
    const msg = JSON.parse(initial) as ParentMessage;
    if (msg.type === 'prepare') onMessage(msg);
  } catch {
    // Best effort, as every prepare: the request that follows builds what it needs.
  }
}
