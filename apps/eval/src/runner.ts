import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { analyzeQuery, Engine, estimateTokens, type SearchOptions, type SearchResponse } from '@ca/engine';
import { CaError } from '@ca/schema';
import { changedLineRecall, contextMetrics, type ContextMetrics, type ContextRow } from './context.js';
import { walkCommits } from './commitWalk.js';
import { gitText } from './git.js';
import { channelsOff, selectConfigurations, type Configuration } from './configurations.js';
import { aggregate, matchesJudgement, percentile, scoreRanking, type AggregateMetrics, type QueryMetrics, type RankedSymbol } from './metrics.js';
import { ARCHETYPES, type Archetype, type EvalQuery, type QuerySet } from './querySet.js';

export type SplitChoice = 'train' | 'holdout' | 'all';

export interface RunOptions {
  /** Which split to report (default train: holdout must be asked for explicitly). */
  readonly split?: SplitChoice;
  /** Configuration ids to run (default all; hybrid always runs). */
  readonly configurations?: readonly string[];
  /** Repository directory for every set (overrides the header). */
  readonly repo?: string;
  /** Index file (only with a single repository). */
  readonly db?: string;
  /** Where fetched real repositories live (`<reposDir>/<name>`); default $CA_EVAL_REPOS or ./.eval-repos. */
  readonly reposDir?: string;
  /** Cold-latency samples per configuration (each opens a fresh engine); default 10. */
  readonly coldSamples?: number;
  /** Bring the index up to date before evaluating (default true). */
  readonly index?: boolean;
  /** Evaluate queries that carry a commit on an index of that commit (default false: HEAD's index). */
  readonly atCommit?: boolean;
  readonly onProgress?: (message: string) => void;
  readonly env?: Record<string, string | undefined>;
  /** Evaluate only the first N queries of each set's chosen split (cheap runs over many sets). */
  readonly maxQueries?: number;
  /** Weights object for the `learned` configuration instead of the shipped one (model selection). */
  readonly rankerWeights?: unknown;
  /** Receives, per scored query, the hybrid run's rerank candidates with features and labels. */
  readonly onFeatures?: (row: FeatureRow) => void;
}

/** One query's training row (`ca eval run --features-out`): its candidates' features and gold labels. */
export interface FeatureRow {
  readonly set: string;
  readonly id: string;
  readonly query: string;
  readonly language: string | null;
  readonly split: string;
  readonly leaky: boolean;
  /** Whether the query names an identifier (the no-identifier subset is reported on its own). */
  readonly identifiers: boolean;
  /** Relevant judgements (grade > 0) that resolved in the index. */
  readonly relevant: number;
  readonly candidates: readonly {
    readonly id: string;
    readonly qualifiedName: string;
    readonly path: string;
    /** `symbol`: a relevant symbol (grade > 0); `file`: in a relevant symbol's file; `none`. */
    readonly label: 'symbol' | 'file' | 'none';
    readonly grade: number;
    readonly features: readonly number[];
  }[];
}

export interface LatencySummary {
  readonly n: number;
  readonly p50: number | null;
  readonly p95: number | null;
}

export interface ConfigReport {
  readonly id: string;
  readonly label: string;
  /** `unavailable`: every channel it asks for reported off; `degraded`: some did. */
  readonly status: 'ok' | 'degraded' | 'unavailable';
  readonly notices: readonly string[];
  /** Null when unavailable. */
  readonly overall: AggregateMetrics | null;
  /** Overall without queries tagged leaky (null when the set has no leaky query). */
  readonly overallNonLeaky: AggregateMetrics | null;
  readonly byArchetype: Partial<Record<Archetype, AggregateMetrics>>;
  /** hand-written vs mined queries. */
  readonly byOrigin: { readonly hand?: AggregateMetrics; readonly mined?: AggregateMetrics };
  readonly latency: { readonly cold: LatencySummary; readonly warm: LatencySummary; readonly warmSamples: readonly number[] };
  readonly negative: { readonly queries: number; readonly violations: number; readonly rate: number | null; readonly violating: readonly string[] };
  /** Set when the ranking equalled hybrid's on every query (the switch had no effect). */
  readonly identicalToHybrid: boolean;
  /** Context efficiency over the scored queries (test share, tokens to the first relevant, line recall); null when unavailable. */
  readonly context: ContextMetrics | null;
}

export interface QueryOutcome {
  readonly id: string;
  readonly query: string;
  readonly archetype: Archetype;
  readonly split: string;
  readonly leaky: boolean;
  readonly mined: boolean;
  readonly relevant: readonly { symbol: string; grade: number; resolved: boolean }[];
  /** Per configuration: metrics and the top 10 as `qualifiedName path:line` with their grades. */
  readonly configs: Record<
    string,
    {
      metrics: QueryMetrics | null;
      top: readonly string[];
      grades: readonly number[];
      ms: number;
      negativeViolation?: boolean;
      /** Estimated tokens of the results up to and including the first relevant one (null: none relevant). */
      tokensToFirstRelevant?: number | null;
      /** Test-code results in the top 10 (`testCode`: a test path or a test project's node). */
      testsInTop10?: number;
      /** Results in the top 10 (the test share's denominator). */
      resultsInTop10?: number;
      /** Line recall@10 of the query's changed lines (judged at its own commit; null: no line recorded). */
      changedLineRecall?: number | null;
    }
  >;
}

export interface SetReport {
  readonly file: string;
  readonly name: string;
  readonly repo: string;
  readonly commit: string | null;
  readonly repoDir: string;
  readonly headCommit: string | null;
  readonly dbPath: string;
  readonly index: { readonly files: number; readonly symbols: number; readonly lines: number; readonly ms: number } | null;
  readonly totalQueries: number;
  /** Queries in the chosen split that were scored (relevance metrics). */
  readonly evaluated: number;
  readonly excluded: readonly { id: string; reason: string }[];
  readonly warnings: readonly string[];
  readonly notes: readonly string[];
  readonly configs: readonly ConfigReport[];
  readonly queries: readonly QueryOutcome[];
}

export interface EvalReport {
  readonly tool: 'ca eval';
  readonly startedAt: string;
  readonly split: SplitChoice;
  readonly configurations: readonly { id: string; label: string }[];
  readonly sets: readonly SetReport[];
}

const TOP_K = 20;

function headOf(dir: string): string | null {
  try {
    return gitText(dir, ['rev-parse', 'HEAD']).trim();
  } catch {
    // Not a git checkout (or no commit yet): the result records no HEAD.
    return null;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    // A missing or unreadable path is not a directory; the caller reports the missing repository.
    return false;
  }
}

/** Finds the local checkout a query set applies to. */
export function resolveRepoDir(set: QuerySet, options: Pick<RunOptions, 'repo' | 'reposDir' | 'env'>): string {
  if (options.repo) {
    if (!isDir(options.repo)) throw new CaError('invalid_path', `--repo ${options.repo} is not a directory`, { context: { path: options.repo } });
    return resolve(options.repo);
  }
  const h = set.header;
  if (h?.path) {
    const p = resolve(dirname(set.file), h.path);
    if (isDir(p)) return p;
  }
  if (h?.repo) {
    const env = options.env ?? process.env;
    const reposDir = options.reposDir ?? env['CA_EVAL_REPOS'] ?? resolve('.eval-repos');
    const p = join(reposDir, basename(h.repo));
    if (isDir(p)) return resolve(p);
    if (isDir(h.repo)) return resolve(h.repo);
    throw new CaError(
      'invalid_path',
      `${set.file}: repository ${h.repo}${h.commit ? `@${h.commit}` : ''} not found at ${p}; ${h.fetch ?? 'fetch it'} (or pass --repo DIR / --repos-dir DIR; tools/fetch-eval-repos.sh)`,
      { context: { path: p } },
    );
  }
  throw new CaError('usage', `${set.file}: no header naming its repository; pass --repo DIR`);
}

/** Default index location for a repository: a reusable cache outside the repository. */
export function defaultDbPath(repoDir: string): string {
  const dir = join(tmpdir(), 'ca-eval');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${basename(repoDir)}-${createHash('sha1').update(repoDir).digest('hex').slice(0, 8)}.db`);
}

function inSplit(q: EvalQuery, split: SplitChoice): boolean {
  return split === 'all' || q.split === split;
}

function hasPositive(q: EvalQuery): boolean {
  return q.relevant.some((j) => j.grade > 0);
}

/** Does any indexed symbol satisfy the judgement? (A typo in a hand-written set shows up here.) */
function judgementResolves(engine: Engine, symbol: string): boolean {
  const hash = symbol.indexOf('#');
  if (hash > 0) {
    const path = symbol.slice(0, hash);
    const name = symbol.slice(hash + 1);
    try {
      return engine.outline(path).some((n) => n.name === name || n.qualifiedName === name);
    } catch {
      // The file is not in the index, so the symbol is not there: the query is counted as unresolvable.
      return false;
    }
  }
  return engine.reader().byQualifiedName(symbol, undefined, 1).length > 0;
}

function violatesNegative(response: SearchResponse, names: readonly string[]): boolean {
  return response.results.slice(0, 3).some((r) => names.some((n) => r.name === n || r.qualifiedName === n || r.qualifiedName.endsWith(`.${n}`)));
}

function summarize(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { n: 0, p50: null, p95: null };
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: samples.length, p50: round(percentile(samples, 50)), p95: round(percentile(samples, 95)) };
}

/** Results as the judge sees them: each with the children it carries expanded (parent/child merge). */
export function withContained(engine: Engine, results: SearchResponse['results']): RankedSymbol[] {
  const ids = results.flatMap((r) => (r.expandedChildren ?? []).map(Number));
  if (ids.length === 0) return [...results];
  const nodes = new Map(engine.reader().nodesByIds(ids).map((n) => [String(n.id), n]));
  return results.map((r) =>
    r.expandedChildren && r.expandedChildren.length > 0
      ? { ...r, contains: r.expandedChildren.flatMap((id) => nodes.get(id) ?? []).map((n) => ({ qualifiedName: n.qualifiedName, name: n.name, path: n.path })) }
      : r,
  );
}

/** `engine.search` may be sync or async depending on the engine build; awaiting covers both. */
async function timedSearch(engine: Engine, query: string, config: Configuration, extra: SearchOptions = {}): Promise<{ response: SearchResponse; ms: number }> {
  const t0 = performance.now();
  const response = await engine.search(query, { ...config.options, ...extra, limit: TOP_K });
  return { response, ms: performance.now() - t0 };
}

/** Which queries can be scored, and why the others cannot: filled by `judgeQueries`. */
interface Judged {
  readonly scoredIds: Set<string>;
  readonly excluded: { id: string; reason: string }[];
  readonly warnings: string[];
  /** Per query: does each judgement's symbol resolve in the index it was judged on? */
  readonly resolution: Map<string, Map<string, boolean>>;
}

/** Judges `queries` on `engine`'s index (a query is scored when a positive judgement resolves) and returns the scored ones. */
function judgeQueries(engine: Engine, queries: readonly EvalQuery[], judged: Judged): EvalQuery[] {
  const cache = new Map<string, boolean>();
  const out: EvalQuery[] = [];
  for (const q of queries) {
    for (const j of q.relevant) if (!cache.has(j.symbol)) cache.set(j.symbol, judgementResolves(engine, j.symbol));
    judged.resolution.set(q.id, cache);
    if (!hasPositive(q)) continue; // negative-only query
    const positives = q.relevant.filter((j) => j.grade > 0);
    const unresolved = positives.filter((j) => !cache.get(j.symbol));
    if (unresolved.length === positives.length) {
      judged.excluded.push({ id: q.id, reason: `no relevant symbol is in the index (${unresolved.map((j) => j.symbol).join(', ')})` });
      continue;
    }
    if (unresolved.length > 0 && q.commit === undefined) {
      judged.warnings.push(`${q.id}: judgement(s) match no indexed symbol: ${unresolved.map((j) => j.symbol).join(', ')}`);
    }
    judged.scoredIds.add(q.id);
    out.push(q);
  }
  return out;
}

/** What the warm passes collect per configuration and per query (one pass per index). */
class WarmPasses {
  readonly outcomes = new Map<string, QueryOutcome>();
  readonly samples = new Map<string, number[]>();
  readonly notices = new Map<string, Set<string>>();
  /** Result ids per query, to tell a configuration that changed nothing. */
  readonly rankings = new Map<string, Map<string, string>>();

  constructor(
    private readonly configs: readonly Configuration[],
    private readonly judged: Judged,
    private readonly progress: (message: string) => void,
    private readonly extras: { readonly rankerWeights?: unknown; readonly onFeatures?: (q: EvalQuery, response: SearchResponse) => void } = {},
  ) {
    for (const c of configs) (this.samples.set(c.id, []), this.notices.set(c.id, new Set()), this.rankings.set(c.id, new Map()));
  }

  /**
   * One warm-up query per configuration, then every query of `workload` under each configuration.
   * `atOwnCommit`: the index is of each query's own commit (`--at-commit`), so the lines its
   * commit changed can be looked for.
   */
  async run(engine: Engine, workload: readonly EvalQuery[], atOwnCommit = false): Promise<void> {
    // The warm-up text is not a workload query, so the engine's query cache cannot serve a measured query.
    for (const c of this.configs) await timedSearch(engine, 'warm up the engine before measuring', c);
    for (const c of this.configs) {
      if (workload.length > 1) this.progress(`${c.label}: ${workload.length} queries`);
      for (const q of workload) {
        const dump = c.id === 'hybrid' && this.extras.onFeatures !== undefined && this.judged.scoredIds.has(q.id);
        const extra: SearchOptions = {
          ...(dump ? { candidates: true } : {}),
          ...(c.id === 'learned' && this.extras.rankerWeights !== undefined ? { rankerWeights: this.extras.rankerWeights } : {}),
        };
        const { response, ms } = await timedSearch(engine, q.query, c, extra);
        if (dump) this.extras.onFeatures!(q, response);
        this.samples.get(c.id)!.push(ms);
        for (const n of response.notices ?? []) this.notices.get(c.id)!.add(n);
        this.rankings.get(c.id)!.set(q.id, response.results.map((r) => r.id).join(','));
        const m = this.judged.scoredIds.has(q.id) ? scoreRanking(withContained(engine, response.results), q.relevant) : null;
        this.outcomeOf(q).configs[c.id] = {
          metrics: m ? { ndcg10: m.ndcg10, p5: m.p5, r20: m.r20, mrr: m.mrr, s1: m.s1, s5: m.s5, allInTop10: m.allInTop10 } : null,
          top: response.results.slice(0, 10).map((r) => `${r.qualifiedName} ${r.path}:${r.startLine}`),
          grades: m ? m.grades.slice(0, 10) : [],
          ms: Math.round(ms * 100) / 100,
          ...(q.negative ? { negativeViolation: violatesNegative(response, q.negative.mustNotDominate) } : {}),
          testsInTop10: response.results.slice(0, 10).filter((r) => r.testCode === true).length,
          resultsInTop10: Math.min(response.results.length, 10),
          ...(m ? { tokensToFirstRelevant: tokensToFirst(response.results, m.grades) } : {}),
          ...(m && atOwnCommit && q.changedLines ? { changedLineRecall: changedLineRecall(response.results, q.changedLines) } : {}),
        };
      }
    }
  }

  private outcomeOf(q: EvalQuery): QueryOutcome {
    let o = this.outcomes.get(q.id);
    if (!o) {
      const resolved = this.judged.resolution.get(q.id);
      o = {
        id: q.id,
        query: q.query,
        archetype: q.archetype,
        split: q.split,
        leaky: q.leaky === true,
        mined: q.commit !== undefined,
        relevant: q.relevant.map((j) => ({ symbol: j.symbol, grade: j.grade, resolved: resolved?.get(j.symbol) ?? false })),
        configs: {},
      };
      this.outcomes.set(q.id, o);
    }
    return o;
  }
}

/** Estimated tokens an agent reads before the first relevant result (that one included); null when none is relevant. */
export function tokensToFirst(results: readonly { readonly code: string }[], grades: readonly number[]): number | null {
  let tokens = 0;
  for (let i = 0; i < results.length; i++) {
    tokens += estimateTokens(results[i]!.code);
    if ((grades[i] ?? 0) > 0) return tokens;
  }
  return null;
}

/** A query's training row: the candidates of `response` labelled against the query's positive judgements. */
export function featureRow(set: QuerySet, q: EvalQuery, response: SearchResponse, resolved: ReadonlyMap<string, boolean> | undefined): FeatureRow {
  const positives = q.relevant.filter((j) => j.grade > 0);
  const files = new Set(positives.map((j) => (j.symbol.indexOf('#') > 0 ? j.symbol.slice(0, j.symbol.indexOf('#')) : null)).filter((p): p is string => p !== null));
  return {
    set: basename(set.file).replace(/\.jsonl$/, ''),
    id: q.id,
    query: q.query,
    language: set.header?.language ?? null,
    split: q.split,
    leaky: q.leaky === true,
    identifiers: analyzeQuery(q.query).identifiers.length > 0,
    relevant: positives.filter((j) => resolved?.get(j.symbol) !== false).length,
    candidates: (response.candidates ?? []).map((c) => {
      const grade = positives.reduce((g, j) => (matchesJudgement(c, j.symbol) ? Math.max(g, j.grade) : g), 0);
      return { id: c.id, qualifiedName: c.qualifiedName, path: c.path, label: grade > 0 ? 'symbol' : files.has(c.path) ? 'file' : 'none', grade, features: c.features };
    }),
  };
}

/** One configuration's figures over the scored queries (metrics, latency, negative set). */
function configReport(
  c: Configuration,
  passes: WarmPasses,
  cold: readonly number[],
  scored: readonly EvalQuery[],
  negatives: readonly EvalQuery[],
): ConfigReport {
  const notices = [...passes.notices.get(c.id)!];
  const off = channelsOff(notices);
  const missing = c.channels.filter((ch) => off.has(ch));
  const status: ConfigReport['status'] = missing.length === c.channels.length ? 'unavailable' : missing.length > 0 ? 'degraded' : 'ok';
  const relevantNotices = notices.filter((n) => {
    const o = channelsOff([n]);
    return o.size === 0 || c.channels.some((ch) => o.has(ch));
  });
  const metricsOf = (qs: readonly EvalQuery[]) => aggregate(qs.map((q) => passes.outcomes.get(q.id)!.configs[c.id]!.metrics!));
  const byArchetype: Partial<Record<Archetype, AggregateMetrics>> = {};
  for (const a of ARCHETYPES) {
    const qs = scored.filter((q) => q.archetype === a);
    if (qs.length > 0) byArchetype[a] = metricsOf(qs);
  }
  const hand = scored.filter((q) => q.commit === undefined);
  const mined = scored.filter((q) => q.commit !== undefined);
  const nonLeaky = scored.filter((q) => q.leaky !== true);
  const violating = negatives.filter((q) => passes.outcomes.get(q.id)?.configs[c.id]?.negativeViolation === true).map((q) => q.id);
  const workload = [...scored, ...negatives.filter((q) => !scored.includes(q))];
  const ranks = passes.rankings.get(c.id)!;
  const hybridRanks = passes.rankings.get('hybrid')!;
  const identical = c.id !== 'hybrid' && workload.length > 0 && workload.every((q) => ranks.get(q.id) === hybridRanks.get(q.id));
  const available = status !== 'unavailable';
  const warm = passes.samples.get(c.id)!;
  return {
    id: c.id,
    label: c.label,
    status,
    notices: relevantNotices,
    overall: available ? metricsOf(scored) : null,
    overallNonLeaky: available && nonLeaky.length < scored.length ? metricsOf(nonLeaky) : null,
    byArchetype: available ? byArchetype : {},
    byOrigin: available ? { ...(hand.length > 0 ? { hand: metricsOf(hand) } : {}), ...(mined.length > 0 ? { mined: metricsOf(mined) } : {}) } : {},
    latency: { cold: summarize(cold), warm: summarize(warm), warmSamples: warm.map((x) => Math.round(x * 100) / 100) },
    negative: {
      queries: negatives.length,
      violations: violating.length,
      rate: negatives.length > 0 && available ? violating.length / negatives.length : null,
      violating,
    },
    identicalToHybrid: identical,
    context: available ? contextMetrics(scored.map((q) => contextRow(q, passes.outcomes.get(q.id)!.configs[c.id]!))) : null,
  };
}

/** A scored query's context figures under one configuration. */
function contextRow(q: EvalQuery, o: QueryOutcome['configs'][string]): ContextRow {
  return {
    aboutTests: analyzeQuery(q.query).aboutTests,
    top10: o.resultsInTop10 ?? 0,
    testsInTop10: o.testsInTop10 ?? 0,
    tokensToFirstRelevant: o.tokensToFirstRelevant ?? null,
    ...(o.changedLineRecall !== undefined ? { changedLineRecall: o.changedLineRecall } : {}),
  };
}

/** Evaluates one query set against its repository. */
export async function evaluateSet(set: QuerySet, options: RunOptions = {}): Promise<SetReport> {
  const progress = options.onProgress ?? (() => {});
  const split = options.split ?? 'train';
  const { selected: configs } = selectConfigurations(options.configurations);
  const repoDir = resolveRepoDir(set, options);
  const dbPath = options.db ? resolve(options.db) : defaultDbPath(repoDir);
  const engineOptions = { dbPath, ...(options.env ? { env: options.env } : {}) };
  const notes: string[] = [];
  const judged: Judged = { scoredIds: new Set(), excluded: [], warnings: [], resolution: new Map() };
  const headCommit = existsSync(join(repoDir, '.git')) ? headOf(repoDir) : null;
  const commit = set.header?.commit ?? null;
  if (commit && headCommit && !headCommit.startsWith(commit) && !commit.startsWith(headCommit)) {
    judged.warnings.push(`query set recorded commit ${commit} but ${repoDir} is at ${headCommit}`);
  }

  const inChosenSplit = set.queries.filter((q) => inSplit(q, split));
  const chosen = options.maxQueries !== undefined ? inChosenSplit.slice(0, options.maxQueries) : inChosenSplit;
  // With --at-commit, queries that carry a commit are judged on an index of that commit.
  const byCommit = new Map<string, EvalQuery[]>();
  if (options.atCommit === true) for (const q of chosen) if (q.commit !== undefined) byCommit.set(q.commit, [...(byCommit.get(q.commit) ?? []), q]);
  const atHead = chosen.filter((q) => !(q.commit !== undefined && byCommit.has(q.commit)));
  let indexInfo: SetReport['index'] = null;
  let engine = Engine.open(repoDir, engineOptions);
  let headScored: EvalQuery[];
  try {
    if (options.index !== false) {
      progress(`indexing ${repoDir}`);
      const r = await engine.index();
      indexInfo = { files: r.files, symbols: r.symbols, lines: r.lines, ms: r.ms };
    }
    headScored = judgeQueries(engine, atHead, judged);
  } finally {
    engine.close();
  }
  const negatives = chosen.filter((q) => q.negative && q.negative.mustNotDominate.length > 0);
  const headWorkload = [...headScored, ...negatives.filter((q) => !headScored.includes(q))];

  // Cold latency: the first query after opening the engine, on fresh engines (HEAD's index; the
  // texts of queries judged at other commits serve as samples too).
  const latencyWorkload = [...headWorkload, ...[...byCommit.values()].flat().filter(hasPositive)];
  const cold = new Map<string, number[]>(configs.map((c) => [c.id, []]));
  const coldN = Math.min(options.coldSamples ?? 10, latencyWorkload.length);
  progress(`cold latency: ${coldN} samples × ${configs.length} configurations`);
  for (let i = 0; i < coldN; i++) {
    // Spread the samples over the workload: sets are ordered by archetype, and the first queries
    // (qualified names) are much cheaper than sentences.
    const sample = latencyWorkload[Math.floor((i * latencyWorkload.length) / coldN)]!;
    for (const c of configs) {
      engine = Engine.open(repoDir, engineOptions);
      try {
        cold.get(c.id)!.push((await timedSearch(engine, sample.query, c)).ms);
      } finally {
        engine.close();
      }
    }
  }

  // Warm passes: one per index (HEAD's, then each commit's).
  const onFeatures = options.onFeatures;
  const passes = new WarmPasses(configs, judged, progress, {
    ...(options.rankerWeights !== undefined ? { rankerWeights: options.rankerWeights } : {}),
    ...(onFeatures ? { onFeatures: (q: EvalQuery, response: SearchResponse) => onFeatures(featureRow(set, q, response, judged.resolution.get(q.id))) } : {}),
  });
  engine = Engine.open(repoDir, engineOptions);
  try {
    await passes.run(engine, headWorkload);
  } finally {
    engine.close();
  }
  let walked = 0;
  let walkMs = 0;
  if (byCommit.size > 0) {
    const scratchDir = `${dbPath.replace(/\.db$/, '')}.commits`;
    progress(`at-commit: ${byCommit.size} commits, scratch index in ${scratchDir}`);
    await walkCommits(
      [...byCommit.keys()],
      { repoDir, headDb: dbPath, scratchDir, onProgress: progress, ...(options.env ? { env: options.env } : {}) },
      async (step) => {
        const queries = byCommit.get(step.commit) ?? [];
        if (step.engine === null) {
          for (const q of queries) judged.excluded.push({ id: q.id, reason: step.reason ?? `commit ${step.commit} unavailable` });
          return;
        }
        walked++;
        walkMs += step.indexMs;
        await passes.run(step.engine, judgeQueries(step.engine, queries, judged), true);
      },
    );
  }
  const scored = chosen.filter((q) => judged.scoredIds.has(q.id));
  const minedCount = scored.filter((q) => q.commit !== undefined).length;
  if (minedCount > 0 && byCommit.size > 0) {
    notes.push(
      `${minedCount} mined queries were evaluated on an index of their own commit (the parent of the mined commit), ` +
        `built incrementally from the HEAD index: ${walked} commits, ${Math.round(walkMs / 1000)} s of indexing.`,
    );
  } else if (minedCount > 0) {
    notes.push(
      `${minedCount} mined queries: gold symbols were located at each commit's parent but are evaluated against the current (HEAD) index; ` +
        `gold renamed, moved or deleted since then is unmatched (queries with no gold left are excluded), and code written after the commit ` +
        `competes with it. --at-commit evaluates each on an index of its own commit.`,
    );
  }
  return {
    file: set.file,
    name: basename(set.file).replace(/\.jsonl$/, ''),
    repo: set.header?.repo ?? repoDir,
    commit,
    repoDir,
    headCommit,
    dbPath,
    index: indexInfo,
    totalQueries: set.queries.length,
    evaluated: scored.length,
    excluded: judged.excluded,
    warnings: judged.warnings,
    notes,
    configs: configs.map((c) => configReport(c, passes, cold.get(c.id)!, scored, negatives)),
    queries: [...passes.outcomes.values()],
  };
}

/** Evaluates every query set; sets whose repository is shared may pass one `--repo`. */
export async function runEval(sets: readonly QuerySet[], options: RunOptions = {}): Promise<EvalReport> {
  if (options.db && sets.length > 1) throw new CaError('usage', '--db can only be used with a single query set');
  const { selected, unknown } = selectConfigurations(options.configurations);
  if (unknown.length > 0) throw new CaError('usage', `unknown configuration(s): ${unknown.join(', ')}`);
  const startedAt = new Date().toISOString();
  const reports: SetReport[] = [];
  for (const s of sets) reports.push(await evaluateSet(s, options));
  return {
    tool: 'ca eval',
    startedAt,
    split: options.split ?? 'train',
    configurations: selected.map((c) => ({ id: c.id, label: c.label })),
    sets: reports,
  };
}
