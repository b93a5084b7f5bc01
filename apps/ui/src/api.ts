import { answerPaths, NAVIGATIONS, searchJson, toSymbolView, type Engine, type IndexPhase, type Navigation, type NavigationResult } from '@ca/engine';
import { CONFIDENCES, type Confidence } from '@ca/schema';

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

/** One index run at a time, started from the viewer, with its progress kept for polling. */
export class IndexRuns {
  private current: Promise<void> | null = null;
  private state: IndexState = { running: false, phase: null, done: 0, total: 0, runs: 0, error: null, last: null };

  constructor(
    private readonly engine: Engine,
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
    this.current = this.engine
      .index({ onProgress: (p) => (this.state = { ...this.state, phase: p.phase, done: p.done, total: p.total }) })
      .then(
        (r) => {
          this.state = { ...this.state, running: false, last: { files: r.files, symbols: r.symbols, changed: r.changed, ms: r.ms } };
        },
        (e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          this.log(`index run failed: ${message}`);
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

/** `/api/symbol/ID`: the symbol with its source, callers, callees, references and implementations. */
function symbolPage(engine: Engine, id: string, url: URL) {
  const opts = label(url);
  const { node, code, stale } = engine.source(id, opts);
  const nav = (n: Navigation) => engine.navigate(n, id, opts);
  const callers = nav('callers');
  const callees = nav('callees');
  const refs = nav('refs');
  const impls = nav('impls');
  const freshness = engine.freshness(engine.labelOf(opts.label), answerPaths([node], callers.nodes, callees.nodes));
  return { symbol: toSymbolView(node), code, stale, callers, callees, refs, impls, freshness };
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

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    // A malformed escape (`%E0%A4%A`) is the caller's mistake, not a server error.
    throw new ApiError(400, 'usage', `malformed URL escape in ${JSON.stringify(part)}`);
  }
}

/** Routes one `/api/…` request to the engine. Throws CaError or ApiError for refusals. */
export async function handleApi(engine: Engine, runs: IndexRuns, method: string, url: URL): Promise<unknown> {
  const parts = url.pathname.split('/').slice(2).map(decodePart);
  const [route, a, b] = parts;
  if (route === 'index') {
    if (method === 'POST') return runs.start();
    return runs.get();
  }
  if (method !== 'GET') throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`);
  switch (route) {
    case 'status': {
      const { repo: _repo, db: _db, ...status } = engine.status(label(url));
      return status;
    }
    case 'labels':
      return { labels: engine.labels(), working: engine.labelOf(undefined) };
    case 'search': {
      const q = url.searchParams.get('q') ?? '';
      if (q.trim() === '') throw new ApiError(400, 'usage', 'q is required');
      const limit = positiveInt(url, 'limit', 100);
      const response = await engine.search(q, { ...label(url), ...(limit !== undefined ? { limit } : {}) });
      const freshness = engine.freshness(engine.labelOf(label(url).label), answerPaths(response.results));
      return { ...searchJson(response, false), freshness };
    }
    case 'symbol':
      if (!a) throw new ApiError(400, 'usage', 'a symbol id is required');
      return symbolPage(engine, a, url);
    case 'nav':
      if (!a || !(NAVIGATIONS as readonly string[]).includes(a)) throw new ApiError(404, 'not_found', `no navigation ${JSON.stringify(a ?? '')} (one of ${NAVIGATIONS.join(', ')})`);
      if (!b) throw new ApiError(400, 'usage', 'a symbol id is required');
      return navigation(engine, a as Navigation, b, url);
    case 'file':
      return filePage(engine, url);
    default:
      throw new ApiError(404, 'not_found', `no API ${url.pathname}`);
  }
}
