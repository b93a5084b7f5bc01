/**
 * Several repositories searched as one: `ca search QUERY --repo A --repo B`, or a workspace
 * file (`.codeagent/workspace.json`) listing the repositories whose indexes to search. The
 * query is embedded once; every index's channels are merged per channel and fused into one
 * ranking (@ca/retrieve `searchSources`), each result naming its repository. An index that is
 * missing, corrupt or locked is reported in `notices` and the others still answer. Navigation
 * stays per repository: `resolveRepo` picks one by workspace name or path.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { CaError, CONFIG_DIR, toCaError } from '@ca/schema';
import { searchSources, type SearchOptions, type SearchResponse, type SearchSource } from '@ca/retrieve';
import { Engine, type EngineOptions } from './engine.js';
import { IndexedTexts, resultsWithContext, validateViewOptions, type ViewOptions } from './views.js';

/** The workspace file's name inside a `.codeagent/` folder. */
export const WORKSPACE_FILE = 'workspace.json';

/** One repository of a workspace. */
export interface WorkspaceRepo {
  /** Its name on results (`repo`) and for `--repo NAME`. */
  readonly name: string;
  /** Absolute path of the repository root. */
  readonly root: string;
  /** Absolute path of its index, when not `<root>/.codeagent/index.db`. */
  readonly dbPath?: string;
}

/** Where a repository of a workspace search stands. */
export interface RepoStatus {
  readonly name: string;
  readonly root: string;
  readonly status: 'ok' | 'unavailable';
  /** Why it did not answer (missing, corrupt or locked index). */
  readonly reason?: string;
}

/** A search over several indexes: one ranking, plus how each repository fared. */
export interface WorkspaceSearchResponse extends SearchResponse {
  readonly repos: readonly RepoStatus[];
}

/** The workspace file a path names: the file itself, or `<dir>/.codeagent/workspace.json`. */
export function workspaceFileOf(path: string): string {
  const abs = resolve(path);
  try {
    if (statSync(abs).isDirectory()) return join(abs, CONFIG_DIR, WORKSPACE_FILE);
  } catch (e) {
    throw new CaError('invalid_path', `workspace ${path} does not exist`, { cause: e, context: { path } });
  }
  return abs;
}

/**
 * Reads a workspace file: `{"repos": ["../api", {"name": "web", "path": "../web", "db": "…"}]}`.
 * Paths are relative to the folder holding `.codeagent/` (or to the file's folder when it lies
 * elsewhere). Names default to the folder name and must be unique. Errors are `config_invalid`
 * naming the file and the entry.
 */
export function loadWorkspace(path: string): WorkspaceRepo[] {
  const file = workspaceFileOf(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CaError('invalid_path', `cannot read workspace file ${file}: ${(e as Error).message}`, { cause: e, context: { path: file } });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new CaError('config_invalid', `${file}: ${(e as Error).message}`, { cause: e, context: { path: file } });
  }
  const fail = (message: string) => new CaError('config_invalid', `${file}: ${message}`, { context: { path: file } });
  const repos = (raw as { repos?: unknown } | null)?.repos;
  if (!Array.isArray(repos) || repos.length === 0) throw fail('"repos" must be a non-empty list of paths or {"name", "path", "db"} objects');
  const dir = dirname(file);
  const base = basename(dir) === CONFIG_DIR ? dirname(dir) : dir;
  const out: WorkspaceRepo[] = [];
  repos.forEach((entry: unknown, i) => {
    const e = typeof entry === 'string' ? { path: entry } : entry;
    if (typeof e !== 'object' || e === null || typeof (e as { path?: unknown }).path !== 'string' || (e as { path: string }).path === '') {
      throw fail(`repos.${i}: expected a path or an object with a "path"`);
    }
    const { path: p, name, db } = e as { path: string; name?: unknown; db?: unknown };
    if (name !== undefined && (typeof name !== 'string' || name === '')) throw fail(`repos.${i}.name: expected a non-empty string`);
    if (db !== undefined && (typeof db !== 'string' || db === '')) throw fail(`repos.${i}.db: expected a path`);
    const root = isAbsolute(p) ? p : resolve(base, p);
    const repoName = (name as string | undefined) ?? basename(root);
    if (out.some((r) => r.name === repoName)) throw fail(`repos.${i}: the name "${repoName}" is used twice (give each repository a "name")`);
    out.push({ name: repoName, root, ...(db !== undefined ? { dbPath: isAbsolute(db as string) ? (db as string) : resolve(base, db as string) } : {}) });
  });
  return out;
}

/** The workspace file of a folder, when it has one (`<dir>/.codeagent/workspace.json`). */
export function findWorkspace(dir: string): string | null {
  const file = join(resolve(dir), CONFIG_DIR, WORKSPACE_FILE);
  return existsSync(file) ? file : null;
}

/**
 * The repository a `--repo` argument names: a workspace repository by name, else a folder,
 * which must exist (`invalid_path`, a usage error, otherwise).
 */
export function resolveRepo(arg: string, workspace: readonly WorkspaceRepo[] | null = null): WorkspaceRepo {
  const named = workspace?.find((r) => r.name === arg);
  if (named) return named;
  const root = resolve(arg);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch (e) {
    const known = workspace && workspace.length > 0 ? ` (workspace repositories: ${workspace.map((r) => r.name).join(', ')})` : '';
    throw new CaError('invalid_path', `--repo ${arg}: no such repository folder${known}`, { cause: e, context: { path: arg } });
  }
  if (!isDir) throw new CaError('invalid_path', `--repo ${arg}: not a folder`, { context: { path: arg } });
  return { name: basename(root), root };
}

/** Repositories named on the command line, each name made unique (`app`, `app-2`). */
export function uniqueNames(repos: readonly WorkspaceRepo[]): WorkspaceRepo[] {
  const used = new Map<string, number>();
  return repos.map((r) => {
    const n = (used.get(r.name) ?? 0) + 1;
    used.set(r.name, n);
    return n === 1 ? r : { ...r, name: `${r.name}-${n}` };
  });
}

/** The index of a repository opened for reading, or why it cannot be. */
function openIndex(repo: WorkspaceRepo, options: EngineOptions): Engine | string {
  const dbPath = repo.dbPath ?? join(repo.root, CONFIG_DIR, 'index.db');
  if (!existsSync(repo.root)) return `repository folder ${repo.root} does not exist`;
  if (!existsSync(dbPath)) return `no index at ${dbPath} (run ca index ${repo.root})`;
  let engine: Engine | null = null;
  try {
    // The default location is the engine's to find (a linked worktree's is the main one's); a
    // path given in the workspace file is the user's (never moved aside when it is not an index).
    engine = Engine.open(repo.root, { ...options, ...(repo.dbPath ? { dbPath: repo.dbPath } : {}), requireIndex: true });
    // A first read: a file that is not a database, or a locked one, fails here rather than mid-answer.
    engine.reader().metadata('schema_version');
    return engine;
  } catch (e) {
    engine?.close();
    const err = toCaError(e);
    return `${err.code}: ${err.message}`;
  }
}

/**
 * Several repositories' indexes open together for searching (a long-lived process keeps one and
 * asks it many questions; `searchWorkspace` opens, asks once and closes). Repositories whose
 * index is missing, corrupt or locked are reported by every answer and left out.
 */
export class Workspace {
  private constructor(
    private readonly open: readonly { readonly name: string; readonly engine: Engine }[],
    /** Every repository asked for, with whether its index opened. */
    readonly repos: readonly RepoStatus[],
  ) {}

  /**
   * A workspace over engines opened elsewhere (a server's warm engines); `unavailable` lists the
   * repositories that could not be opened, reported in every answer's notices.
   */
  static of(engines: readonly { readonly name: string; readonly engine: Engine }[], unavailable: readonly RepoStatus[] = []): Workspace {
    if (engines.length === 0) throw new CaError('not_found', `no repository of the search could answer: ${unavailable.map((s) => `${s.name}: ${s.reason ?? ''}`).join('; ')}`);
    return new Workspace(engines, [...engines.map((e) => ({ name: e.name, root: e.engine.repoRoot, status: 'ok' as const })), ...unavailable]);
  }

  /** Opens the indexes of `repos` (never creating one); fails only when none of them opens. */
  static open(repos: readonly WorkspaceRepo[], engineOptions: EngineOptions = {}): Workspace {
    const statuses: RepoStatus[] = [];
    const open: { name: string; engine: Engine }[] = [];
    for (const repo of repos) {
      const opened = openIndex(repo, engineOptions);
      if (typeof opened === 'string') statuses.push({ name: repo.name, root: repo.root, status: 'unavailable', reason: opened });
      else {
        statuses.push({ name: repo.name, root: repo.root, status: 'ok' });
        open.push({ name: repo.name, engine: opened });
      }
    }
    if (open.length === 0) {
      throw new CaError('not_found', `no repository of the search could answer: ${statuses.map((s) => `${s.name}: ${s.reason ?? ''}`).join('; ')}`);
    }
    return new Workspace(open, statuses);
  }

  /**
   * One ranking over every open index (see the module comment), with the lines around each
   * result when `view` asks for them. The search options of the first open repository apply.
   */
  async search(query: string, options: SearchOptions = {}, view?: ViewOptions): Promise<WorkspaceSearchResponse> {
    const started = performance.now();
    if (view) validateViewOptions(view);
    const statuses = [...this.repos];
    const notices = statuses.filter((s) => s.status === 'unavailable').map((s) => `${s.name}: index unavailable: ${s.reason ?? 'unknown'}`);
    const open = this.open;
    // One embedding of the query for every index holding vectors of the same model.
    let embedded: { vector: Float32Array; modelId: string } | null = null;
    const wantsVector = (options.channels ?? ['vector']).includes('vector');
    for (const { engine } of wantsVector ? open : []) {
      embedded = await engine.embedQuery(query);
      if (embedded) break;
    }
    const sources: SearchSource[] = [];
    for (const { name, engine } of open) {
      const { ctx, notices: extra } = await engine.searchContext(query, options, embedded);
      for (const n of extra) notices.push(`${name}: ${n}`);
      sources.push({ name, ctx });
    }
    const searched = searchSources(sources, query, open[0]!.engine.searchOptions(options), { named: true });
    let response: SearchResponse = searched;
    if (view) {
      const texts = new Map(open.map(({ name, engine }) => [name, new IndexedTexts((path) => engine.fileBytes(path))]));
      const viewed = resultsWithContext(searched.results, (r) => texts.get(r.repo ?? open[0]!.name)!, view);
      response = { ...searched, results: viewed.results, notices: [...searched.notices, ...viewed.notices] };
    }
    // An index that failed while answering is named in the notices (see searchSources).
    for (const n of response.notices) {
      const failed = /^(.+?): index unavailable: (.*)$/.exec(n);
      const i = failed ? statuses.findIndex((s) => s.name === failed[1] && s.status === 'ok') : -1;
      if (i >= 0) statuses[i] = { ...statuses[i]!, status: 'unavailable', reason: failed![2]! };
    }
    return {
      ...response,
      notices: [...notices, ...response.notices],
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      repos: statuses,
    };
  }

  /** Closes every index and its query-side model. */
  async dispose(): Promise<void> {
    await Promise.all(this.open.map(({ engine }) => engine.dispose()));
  }
}

/**
 * Searches several repositories' indexes as one, once (`Workspace.open`, `search`, `dispose`).
 * Fails only when none of them can answer.
 */
export async function searchWorkspace(
  repos: readonly WorkspaceRepo[],
  query: string,
  options: SearchOptions = {},
  more: { readonly engine?: EngineOptions; readonly view?: ViewOptions } = {},
): Promise<WorkspaceSearchResponse> {
  if (more.view) validateViewOptions(more.view);
  const workspace = Workspace.open(repos, more.engine ?? {});
  try {
    return await workspace.search(query, options, more.view);
  } finally {
    await workspace.dispose();
  }
}
