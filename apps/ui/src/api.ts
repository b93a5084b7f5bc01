import { answerPaths, NAVIGATIONS, searchJson, toSymbolView, type Engine, type IndexPhase, type Navigation, type NavigationResult } from '@ca/engine';
import { CaError, CONFIDENCES, FILTER_FIELDS, FILTER_FLAGS, LANGUAGES, NODE_KINDS, type Confidence } from '@ca/schema';
import type { UiRepo } from './repos.js';

/** An API refusal with its HTTP status and a stable code (for what is not an engine error). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The re-index button's run, as `GET /api/index` reports it. */
export interface IndexState {
  readonly running: boolean;
  readonly phase: IndexPhase | null;
  readonly done: number;
  readonly total: number;
  /** Runs started since the viewer started. */
  readonly runs: number;
  readonly error: string | null;
  /** The last finished run: files, symbols, changed files and its time. */
  readonly last: { readonly files: number; readonly symbols: number; readonly changed: number; readonly ms: number } | null;
}

/** One index run at a time per repository, started from the viewer, with its progress kept for polling. */
export class IndexRuns {
  private current: Promise<void> | null = null;
  private state: IndexState = { running: false, phase: null, done: 0, total: 0, runs: 0, error: null, last: null };

  constructor(
    private readonly repo: UiRepo,
    private readonly log: (line: string) => void,
  ) {}

  /** The run's progress now. */
  get(): IndexState {
    return this.state;
  }

  /** Starts a run unless one is under way (then the answer is that run's state). */
  start(): IndexState {
    if (this.current) return this.state;
    this.state = { ...this.state, running: true, phase: 'discover', done: 0, total: 0, runs: this.state.runs + 1, error: null };
    this.current = this.repo
      .use((engine) => engine.index({ onProgress: (p) => (this.state = { ...this.state, phase: p.phase, done: p.done, total: p.total }) }))
      .then(
        (r) => {
          this.state = { ...this.state, running: false, last: { files: r.files, symbols: r.symbols, changed: r.changed, ms: r.ms } };
        },
        (e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          this.log(`index run of ${this.repo.name} failed: ${message}`);
          this.state = { ...this.state, running: false, error: message };
        },
      )
      .finally(() => {
        this.current = null;
      });
    return this.state;
  }

  /** Resolves when no run is under way. */
  async settled(): Promise<void> {
    await this.current;
  }
}

/** The repositories a viewer serves, each with its re-index runs. */
export class UiRepoSet {
  private readonly runs: Map<string, IndexRuns>;

  constructor(
    readonly repos: readonly UiRepo[],
    log: (line: string) => void,
  ) {
    if (repos.length === 0) throw new CaError('usage', 'the viewer needs at least one repository');
    this.runs = new Map(repos.map((r) => [r.name, new IndexRuns(r, log)]));
  }

  /**
   * The repository `?repo=` names (default: the first). Only a served repository's name is
   * accepted — the value is never read as a path — so anything else is a 404.
   */
  pick(url: URL): UiRepo {
    const name = url.searchParams.get('repo');
    if (name === null || name === '') return this.repos[0]!;
    const repo = this.repos.find((r) => r.name === name);
    if (!repo) throw new ApiError(404, 'unknown_repo', `no repository ${JSON.stringify(name)} is served here (one of ${this.repos.map((r) => r.name).join(', ')})`);
    return repo;
  }

  /** The re-index runs of a repository. */
  runsOf(repo: UiRepo): IndexRuns {
    return this.runs.get(repo.name)!;
  }

  /** Resolves when no run of any repository is under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.runs.values()].map((r) => r.settled()));
  }
}

function label(url: URL): { label?: string } {
  const l = url.searchParams.get('label');
  return l ? { label: l } : {};
}

function positiveInt(url: URL, name: string, max: number): number | undefined {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) throw new ApiError(400, 'usage', `${name} must be a whole number from 1 to ${max} (got "${v}")`);
  return Number(v);
}

/** A navigation answer with the freshness of the files it comes from. */
function navigation(engine: Engine, nav: Navigation, id: string, url: URL): NavigationResult & { freshness: ReturnType<Engine['freshness']>; projects: Record<string, string> } {
  const min = url.searchParams.get('minConfidence');
  if (min !== null && min !== '' && !(CONFIDENCES as readonly string[]).includes(min)) throw new ApiError(400, 'usage', `minConfidence must be one of ${CONFIDENCES.join(', ')}`);
  const depth = positiveInt(url, 'depth', 20);
  const maxNodes = positiveInt(url, 'maxNodes', 50_000);
  const result = engine.navigate(nav, id, {
    ...label(url),
    ...(depth !== undefined ? { depth } : {}),
    ...(maxNodes !== undefined ? { maxNodes } : {}),
    ...(min ? { minConfidence: min as Confidence } : {}),
  });
  const freshness = engine.freshness(engine.labelOf(label(url).label), answerPaths([result.symbol], result.nodes, result.edges));
  return { ...result, freshness, projects: projectsOf(engine, label(url).label, [result.symbol.id, ...result.nodes.map((n) => n.id)]) };
}

/** Each node's package (TS: its package.json's name) or project (C#), for the graph's "group by package"; '' at the repository root. */
function projectsOf(engine: Engine, labelName: string | undefined, ids: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of engine.reader(labelName).nodesByIds(ids.map(Number))) out[String(n.id)] = n.project;
  return out;
}

/** `/api/symbol/ID`: the symbol with its source, callers, callees, references, implementations and dependents. */
function symbolPage(engine: Engine, id: string, url: URL) {
  const opts = label(url);
  const { node, code, stale } = engine.source(id, opts);
  const nav = (n: Navigation) => engine.navigate(n, id, opts);
  const callers = nav('callers');
  const callees = nav('callees');
  const refs = nav('refs');
  const impls = nav('impls');
  const dependents = nav('dependents');
  const freshness = engine.freshness(engine.labelOf(opts.label), answerPaths([node], callers.nodes, callees.nodes));
  return { symbol: toSymbolView(node), code, stale, callers, callees, refs, impls, dependents, freshness };
}

/** `/api/source/ID`: one symbol's code (expanding a collapsed child of a search result). */
function sourceOf(engine: Engine, id: string, url: URL) {
  const { node, code, stale } = engine.source(id, label(url));
  return { symbol: toSymbolView(node), code, stale };
}

/** `/api/file?path=P`: the file as the label indexed it, with its outline. */
function filePage(engine: Engine, url: URL) {
  const path = url.searchParams.get('path');
  if (!path) throw new ApiError(400, 'usage', 'path is required');
  const opts = label(url);
  const view = engine.view(path, {}, opts);
  const outline = engine.outline(view.path, opts).map(toSymbolView);
  return { ...view, outline, freshness: engine.freshness(engine.labelOf(opts.label), [view.path]) };
}

/** A `field:value` term of the filter language in the query box (`not` written as a leading `-`). */
const FILTER_TERM_RE = new RegExp(`^(-?)(${[...FILTER_FIELDS, 'language', 'package'].join('|')}):(\\S+)$`);

/**
 * The query box's text split into search words and filter terms: `formatDate kind:function
 * -is:test` searches "formatDate" with the filter `kind:function and not is:test`.
 */
export function splitQuery(q: string): { text: string; filter: string | null } {
  const words: string[] = [];
  const terms: string[] = [];
  for (const w of q.trim().split(/\s+/)) {
    const m = FILTER_TERM_RE.exec(w);
    if (m) terms.push(`${m[1] ? 'not ' : ''}${m[2]}:${m[3]}`);
    else if (w !== '') words.push(w);
  }
  return { text: words.join(' '), filter: terms.length > 0 ? terms.join(' and ') : null };
}

// Matches the line a collapsed child body stands on: `header { /* N lines collapsed */ }`.
const COLLAPSED_RE = /\{ \/\* (\d+) lines? collapsed \*\/ \}/;

/**
 * The collapsed children of a result's code: the file line each stands on (a collapsed line
 * stands for the child's N lines, so the lines after it move on by N) and the child's id, from
 * the file's outline (the symbol starting at that line).
 */
function collapsedChildren(engine: Engine, r: { path: string; startLine: number; code: string }, opts: { label?: string }): { line: number; id: string; name: string }[] {
  const out: { line: number; id: string; name: string }[] = [];
  let line = r.startLine;
  let outline: ReturnType<Engine['outline']> | null = null;
  for (const text of r.code.split('\n')) {
    const m = COLLAPSED_RE.exec(text);
    if (m) {
      outline ??= engine.outline(r.path, opts);
      const child = outline.find((n) => n.startLine === line && n.kind !== 'file');
      if (child) out.push({ line, id: String(child.id), name: child.qualifiedName });
      line += Number(m[1]);
    } else line += 1;
  }
  return out;
}

async function searchPage(engine: Engine, url: URL) {
  const q = url.searchParams.get('q') ?? '';
  const { text, filter } = splitQuery(q);
  if (text === '') throw new ApiError(400, 'usage', filter ? 'q needs words to search besides its filter terms' : 'q is required');
  const limit = positiveInt(url, 'limit', 100);
  const opts = label(url);
  const response = await engine.search(text, { ...opts, ...(filter ? { filter } : {}), ...(limit !== undefined ? { limit } : {}) });
  const freshness = engine.freshness(engine.labelOf(opts.label), answerPaths(response.results));
  const json = searchJson(response, false);
  const results = json.results.map((r) => ({ ...r, collapsed: collapsedChildren(engine, r, opts) }));
  return { ...json, results, filter, freshness };
}

/** Most values one completion answer lists. */
const COMPLETION_MAX = 50;

/** Directories and files of the label (each directory once, with a trailing `/`). */
function pathValues(engine: Engine, opts: { label?: string }): string[] {
  const paths = new Set<string>();
  for (const f of engine.reader(engine.labelOf(opts.label)).fileStatuses()) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) paths.add(`${parts.slice(0, i).join('/')}/`);
    paths.add(f.path);
  }
  return [...paths].sort();
}

/** How long a field's values are reused while the user types (each keystroke asks again). */
const VALUES_TTL_MS = 30_000;
const valuesCache = new WeakMap<Engine, Map<string, { at: number; values: string[] }>>();

/**
 * The values a filter field takes in this index, reused for a while: listing the kinds present
 * asks the index once per kind, too much to repeat on every keystroke of a large repository.
 */
function fieldValues(engine: Engine, field: string, opts: { label?: string }): string[] {
  const key = `${field}\u0000${engine.labelOf(opts.label)}`;
  let cache = valuesCache.get(engine);
  if (!cache) valuesCache.set(engine, (cache = new Map()));
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < VALUES_TTL_MS) return hit.values;
  const values = freshFieldValues(engine, field, opts);
  cache.set(key, { at: Date.now(), values });
  return values;
}

/** The values a filter field takes in this index: kinds and languages present, labels, paths, flags. */
function freshFieldValues(engine: Engine, field: string, opts: { label?: string }): string[] {
  const present = (term: string) => engine.find(term, { ...opts, limit: 1 }).total > 0;
  switch (field) {
    case 'kind':
      return NODE_KINDS.filter((k) => present(`kind:${k}`));
    case 'lang':
    case 'language':
      return LANGUAGES.filter((l) => present(`lang:${l}`));
    case 'is':
      return [...FILTER_FLAGS];
    case 'label':
      return engine.labels().map((l) => l.name);
    case 'path':
      return pathValues(engine, opts);
    default:
      return [];
  }
}

/**
 * `/api/complete?field=&prefix=`: completion of the query box — without a field, the fields
 * (`kind:` …); with one, its values in this index that start with the prefix.
 */
function complete(engine: Engine, url: URL): { field: string | null; values: string[] } {
  const field = url.searchParams.get('field');
  const prefix = (url.searchParams.get('prefix') ?? '').toLowerCase();
  const all = field ? fieldValues(engine, field, label(url)) : FILTER_FIELDS.map((f) => `${f}:`);
  return { field, values: all.filter((v) => v.toLowerCase().startsWith(prefix)).slice(0, COMPLETION_MAX) };
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    // A malformed escape (`%E0%A4%A`) is the caller's mistake, not a server error.
    throw new ApiError(400, 'usage', `malformed URL escape in ${JSON.stringify(part)}`);
  }
}

/** Routes one `/api/…` request to the engine of the repository it names. Throws CaError or ApiError for refusals. */
export async function handleApi(set: UiRepoSet, method: string, url: URL): Promise<unknown> {
  const parts = url.pathname.split('/').slice(2).map(decodePart);
  const [route] = parts;
  if (route === 'repos') return { repos: set.repos.map((r) => ({ name: r.name })) };
  const repo = set.pick(url);
  if (route === 'index') {
    const runs = set.runsOf(repo);
    return method === 'POST' ? runs.start() : runs.get();
  }
  if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`);
  return repo.use((engine) => engineRoute(engine, parts, url));
}

/** The read-only routes, over one repository's engine. */
async function engineRoute(engine: Engine, parts: readonly string[], url: URL): Promise<unknown> {
  const [route, a, b] = parts;
  const need = (id: string | undefined): string => {
    if (!id) throw new ApiError(400, 'usage', 'a symbol id is required');
    return id;
  };
  switch (route) {
    case 'status': {
      const { repo: _repo, db: _db, ...status } = engine.status(label(url));
      return status;
    }
    case 'labels':
      return { labels: engine.labels(), working: engine.labelOf(undefined) };
    case 'search':
      return searchPage(engine, url);
    case 'complete':
      return complete(engine, url);
    case 'symbol':
      return symbolPage(engine, need(a), url);
    case 'source':
      return sourceOf(engine, need(a), url);
    case 'nav':
      if (!a || !(NAVIGATIONS as readonly string[]).includes(a)) throw new ApiError(404, 'not_found', `no navigation ${JSON.stringify(a ?? '')} (one of ${NAVIGATIONS.join(', ')})`);
      return navigation(engine, a as Navigation, need(b), url);
    case 'file':
      return filePage(engine, url);
    default:
      throw new ApiError(404, 'not_found', `no API ${url.pathname}`);
  }
}
