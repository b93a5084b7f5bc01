import {
  andFilters,
  CaError,
  CALLABLE_KINDS,
  DOC_KINDS,
  filterTerms,
  filterFromOptions,
  formatFilter,
  parseFilter,
  projectDisplayName,
  toCaError,
  TYPE_KINDS,
  type EdgeType,
  type FilterNode,
  type Language,
  type NodeKind,
} from '@ca/schema';
import { BROAD_FILTER_FRACTION, isRestrictive, type CodeLocation, type IndexReader, type NodeFacts, type NodeFilter, type NodeRecord, type RankedHit } from '@ca/store';
import { estimateTokens, expandChildren } from './budget.js';
import { reciprocalRankFusion, type ChannelRanking, type FusedHit } from './fusion.js';
import { analyzeQuery, type AnalyzedQuery, type Intent } from './queryAnalysis.js';
import { isTestPath } from './testCode.js';
import { rerank } from './rerank.js';
import { crowded, minSimilarityOf, perFileOf, perFileDiversity, SEMANTIC_ONLY_NOTICE, similarityFloor, underFloorNotice } from './relevance.js';

export type Channel = 'bm25' | 'name' | 'vector' | 'graph';

export interface SearchOptions {
  readonly limit?: number;
  readonly languages?: readonly Language[];
  readonly kinds?: readonly NodeKind[];
  /** Glob over repo-relative paths (`src/**`, `*.tsx`; the `path:` field of the filter language). */
  readonly pathGlob?: string;
  /**
   * A filter expression (`lang:cs and kind:method and not is:test`, @ca/schema `parseFilter`),
   * ANDed with `languages`, `kinds` and `pathGlob`; applied inside every channel before fusion.
   */
  readonly filter?: string | FilterNode;
  /** Do not rank test code down. */
  readonly includeTests?: boolean;
  /**
   * Bring documentation sections and configuration keys (kinds `doc`, `config`, and the file nodes
   * of Markdown/JSON/YAML files) into the results. Without it they are left out, unless the filter
   * names one of those kinds (`kind:doc`): they live in a partition of their own that code searches
   * do not read (decision 039).
   */
  readonly includeDocs?: boolean;
  /** Channels to use (default: all available). */
  readonly channels?: readonly Channel[];
  /** RRF constant (default 60). */
  readonly rrfK?: number;
  /** Candidates per channel before fusion (default 50; doubled for cross-cutting queries). */
  readonly channelK?: number;
  /** Structural enrichment (hub elevation); default true. Off for ablations. */
  readonly hub?: boolean;
  /** Definition boost; default true. Off for ablations. */
  readonly definitionBoost?: boolean;
  /** Token budget of all returned code (default 16384; estimator in budget.ts). */
  readonly budget?: number;
  /**
   * Relevance gate, relative: drop results whose fused score is under this fraction of the best
   * result's (0-1, default 0). Fused scores have no absolute scale; `minSimilarity` has one.
   */
  readonly minScore?: number;
  /**
   * Relevance floor, absolute: when no lexical channel (names, BM25, graph) matched anything,
   * results whose cosine similarity to the query (−1…1) is under this are dropped (default
   * DEFAULT_MIN_SIMILARITY); -1 keeps them all.
   */
  readonly minSimilarity?: number;
  /** Results one file may hold before other files' results come first (default MAX_RESULTS_PER_FILE). */
  readonly perFile?: number;
  /**
   * RRF weight per channel, over the defaults (`DEFAULT_WEIGHTS`, per intent): a weight given
   * here applies to every intent.
   */
  readonly channelWeights?: Readonly<Partial<Record<Channel, number>>>;
  /**
   * Graph facts on each result (caller count, neighbour names) and the other locations of
   * identical code; default true. Off for ablations and benchmarks of the ranking alone.
   */
  readonly facts?: boolean;
  /**
   * The ranking of the top candidates: `hand` (the fixed weights and boosts, the default) or
   * `learned` (the shipped linear model over per-candidate features, decision 043). A learned
   * model that cannot be used (wrong format) falls back to `hand` with a notice.
   */
  readonly ranker?: 'hand' | 'learned';
  /** A weights object to use instead of the shipped one (`ranker: 'learned'`; eval and tests). */
  readonly rankerWeights?: unknown;
  /** Each learned-ranked result carries its features' contributions (`contributions`). */
  readonly explain?: boolean;
  /** The response carries the rerank stage's candidates with their features (training dumps). */
  readonly candidates?: boolean;
}

/** Node ids a filter allows (a `Set`, or the store's bitmap `NodeIdSet`). */
export interface AllowedIds {
  has(id: number): boolean;
}

/** The vector channel, provided by the caller (the engine embeds the query). */
export interface VectorChannel {
  /**
   * Nearest nodes to the query, best first (cosine), restricted to `allow` when given: exactly
   * `k` when at least `k` allowed nodes have vectors, however few the filter leaves.
   */
  search(k: number, allow: AllowedIds | null): { nodeId: number; score: number }[];
  /**
   * `search` among the nodes `check` accepts, asked about the nearest nodes a batch at a time
   * (a broad filter not seen before: no allowed set to compute). The same answer as `search`
   * with the accepted set, or null when too many near nodes failed (`passRate`, the fraction
   * expected to pass, was wrong there) and the caller should pass the set after all.
   */
  searchChecked?(k: number, check: (ids: readonly number[]) => AllowedIds, passRate: number): { nodeId: number; score: number }[] | null;
}

export interface SearchContext {
  readonly reader: IndexReader;
  /** The vector channel, or null with the reason it is off. */
  readonly vector: VectorChannel | null;
  readonly vectorOffReason?: string;
}

export interface SearchResult {
  readonly id: string;
  readonly qualifiedName: string;
  readonly name: string;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly score: number;
  readonly matchedBy: readonly string[];
  /** The repository the result comes from (multi-repository search only). */
  readonly repo?: string;
  /** The package breadcrumb: the nearest package.json name or .csproj (null at the repository root). */
  readonly package: string | null;
  /** Whether the symbol is public API (exported, public in a public type). */
  readonly isPublicApi: boolean;
  /** Distinct symbols calling it (exact and approximate call edges). */
  readonly callerCount?: number;
  /** Qualified names of the alphabetically first three distinct callers and callees (the symbol itself left out). */
  readonly callers?: readonly string[];
  readonly callees?: readonly string[];
  /**
   * Identical code elsewhere (same chunk hash: a copied file, a vendored duplicate): every
   * location, this one included, in path order (at most 20; `locationCount` has them all).
   * Absent when the code stands in one place.
   */
  readonly locations?: readonly ResultLocation[];
  readonly locationCount?: number;
  readonly code: string;
  /** Per-channel 1-based ranks (printed with --explain). */
  readonly ranks: Readonly<Record<string, number>>;
  /** Ids of children expanded inside `code` (parent/child merge). */
  readonly expandedChildren?: readonly string[];
  /** Learned ranking with `explain`: each non-zero feature contribution to the score, largest first. */
  readonly contributions?: Readonly<Record<string, number>>;
  /** Set when the result is test code: a test path, or a node of a test project (decision 051). */
  readonly testCode?: true;
}

/** One candidate of the rerank stage with its features (`SearchOptions.candidates`). */
export interface RankCandidate {
  readonly id: string;
  readonly qualifiedName: string;
  readonly name: string;
  readonly path: string;
  readonly kind: NodeKind;
  /** `FEATURE_NAMES` order. */
  readonly features: readonly number[];
}

/** One place identical code stands. */
export interface ResultLocation {
  readonly repo?: string;
  readonly id: string;
  readonly qualifiedName: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** One index of a multi-repository search: its name (shown on each result) and its channels. */
export interface SearchSource {
  readonly name: string;
  readonly ctx: SearchContext;
}

export interface SearchResponse {
  readonly query: string;
  readonly intent: Intent;
  readonly results: readonly SearchResult[];
  readonly tookMs: number;
  /** Human-readable notes about degraded channels ("vector channel off: …"). */
  readonly notices: readonly string[];
  /** Estimated tokens of all returned code. */
  readonly tokens: number;
  /** The rerank stage's candidates, best first by the ranking used (only with `candidates`). */
  readonly candidates?: readonly RankCandidate[];
}

const TEST_PENALTY = 0.5;
const GENERATED_PENALTY = 0.3;
const SYNTACTIC_ONLY_PENALTY = 0.8;
/** Added to an exact qualified-name hit: always above any fused score. */
const EXACT_NAME_BONUS = 1;
const HUB_SEEDS = 10;
/**
 * Links to top results a hub needs. With 2 or 3, hubs lowered train-split NDCG@10 on the real
 * sets; with 4 they are within noise of no hubs everywhere and still add the symbol four top
 * results all use (docs/benchmarks.md, "Figures behind choices in the code").
 */
const HUB_MIN_LINKS = 4;
const HUB_EDGE_TYPES: readonly EdgeType[] = ['calls', 'references', 'implements', 'inherits'];
const MAX_QUERY_CHARS = 8192;
/**
 * RRF weights per intent, chosen on the train split of the eval sets (docs/benchmarks.md,
 * "Ranking changes"). The graph channel only answers dependents questions ("callers of X"),
 * where its edges are the answer itself: weight 2 lifted impact NDCG@10 on every set. Questions
 * in words (exploratory) lean on the vector channel: 1.5 over BM25, whose matches on common
 * words are noise there (figures: docs/benchmarks.md, "Figures behind choices in the code").
 */
const DEFAULT_WEIGHTS: Readonly<Record<Intent, Readonly<Partial<Record<Channel, number>>>>> = {
  targeted: { graph: 2 },
  cross_cutting: { graph: 2 },
  exploratory: { graph: 2, vector: 1.5 },
};
/**
 * Long queries (a bug report, a commit message: 10+ words) share their vocabulary with the code
 * they are about, while one embedding of several sentences blurs: BM25 counts triple there.
 * On the train split (Porter-stemmed FTS) this lifted both mined sets and left the hand-written
 * ones within noise (docs/benchmarks.md, "Ranking changes").
 */
const LONG_QUERY_WORDS = 10;
const LONG_QUERY_WEIGHTS: Readonly<Partial<Record<Channel, number>>> = { bm25: 3, vector: 1 };
/**
 * The RRF weights of a query's channels, as `search` fuses them: per intent, BM25 counted more
 * for long queries, then `overrides`; none when one channel answers alone. Other backends (the
 * team store) fuse with the same weights through this.
 */
export function fusionWeights(
  intent: Intent,
  text: string,
  channels: number,
  overrides?: Readonly<Partial<Record<Channel, number>>>,
): Readonly<Partial<Record<Channel, number>>> {
  if (channels <= 1) return {};
  const long = text.split(/\s+/).length >= LONG_QUERY_WORDS;
  return { ...DEFAULT_WEIGHTS[intent], ...(long ? LONG_QUERY_WEIGHTS : {}), ...overrides };
}

/** Edges whose sources depend on their target (the graph channel of "callers of X" questions). */
export const GRAPH_EDGE_TYPES: readonly EdgeType[] = ['calls', 'references', 'implements', 'inherits', 'overrides'];
/** The graph channel's seeds: at most this many of the symbols the query names. */
export const GRAPH_SEEDS = 8;

/**
 * The filter of a search: the expression (parsed when given as text) ANDed with the older
 * `languages`, `kinds` and `pathGlob` options; a bad expression is an `invalid_query` error
 * naming its column.
 */
export function searchFilter(options: Pick<SearchOptions, 'filter' | 'languages' | 'kinds' | 'pathGlob'>): FilterNode | null {
  const parsed = typeof options.filter === 'string' ? parseFilter(options.filter) : (options.filter ?? null);
  return andFilters(filterFromOptions(options), parsed);
}

/**
 * Whether a search reads the documentation partition too (Markdown sections, JSON/YAML keys and
 * their files' nodes; decision 039): when asked (`includeDocs`) or when the filter names
 * `kind:doc` / `kind:config`. Otherwise the channels read the code's partition alone — no filter
 * is added, so a code search is the search it was before documentation was indexed.
 */
export function searchesDocs(options: Pick<SearchOptions, 'includeDocs' | 'kinds'>, filter: FilterNode | null): boolean {
  if (options.includeDocs === true) return true;
  return filter !== null && filterTerms(filter).some((t) => t.field === 'kind' && (DOC_KINDS as readonly string[]).includes(t.value));
}

/** Validates user-facing numeric options; bad values are usage errors, never SQL errors. */
/** The numeric options checked (`invalid_query` naming the option) with their defaults: every backend checks them before reading. */
export function validateSearchOptions(options: SearchOptions): { limit: number; budget: number; minScore: number; minSimilarity: number } {
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new CaError('invalid_query', `--limit must be an integer from 1 to 1000 (got ${String(options.limit)})`);
  }
  const budget = options.budget ?? 16384;
  if (!Number.isInteger(budget) || budget < 0) throw new CaError('invalid_query', `--budget must be a non-negative integer (got ${String(options.budget)})`);
  const minScore = options.minScore ?? 0;
  if (!(minScore >= 0 && minScore <= 1)) throw new CaError('invalid_query', `--min-score must be between 0 and 1 (got ${String(options.minScore)})`);
  return { limit, budget, minScore, minSimilarity: minSimilarityOf(options.minSimilarity) };
}

/**
 * Ids across indexes: source `s`'s node `n` is `s × SOURCE_STRIDE + n`, so one index (source 0)
 * keeps its own node ids and fusion, selection and merging work on plain numbers.
 */
const SOURCE_STRIDE = 2 ** 32;
const keyOf = (source: number, nodeId: number): number => source * SOURCE_STRIDE + nodeId;
const sourceOf = (key: number): number => Math.floor(key / SOURCE_STRIDE);
const nodeIdOf = (key: number): number => key % SOURCE_STRIDE;

/** A fused, rescored candidate as `selectResults` takes it (other backends build these too). */
export interface Scored {
  /** `keyOf(source, node.id)`. */
  key: number;
  source: number;
  node: NodeRecord;
  score: number;
  /** Score before the exact-name bonus (the relevance gate compares these). */
  base: number;
  ranks: Record<string, number>;
  hub: boolean;
  /** Test code: a test path or a test project's node (ranked down unless the query is about tests). */
  test: boolean;
  /** The fused RRF score and the files calling it (features of the learned ranker). */
  fused: number;
  callerFiles: number;
  /** Feature contributions (learned ranking with `explain`). */
  contributions?: Record<string, number>;
}

function moduleOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

/** One index as the pipeline sees it: its reader and its filter. */
interface Source {
  readonly name: string;
  readonly ctx: SearchContext;
  readonly filter: NodeFilter;
  /** Whether the filter restricts anything. */
  readonly restrictive: boolean;
  /** Whether an earlier search on this connection used the same filter (the index unchanged since). */
  readonly repeated: boolean;
  /** Which of `ids` pass the filter (null: all pass); a check of these ids, not a scan. */
  passing(ids: readonly number[]): AllowedIds | null;
  /** Every node passing the filter (null: no filter); read once per search, cached across searches by the store. */
  allowed(): AllowedIds | null;
}

/** A channel's hits in one index: node ids best first, with the channel's own score when it has one. */
interface SourceHits {
  readonly ids: readonly number[];
  readonly scores?: readonly number[];
}

/**
 * Hybrid search over one label: qualified-name, BM25 and vector channels (each filtered before
 * fusion), reciprocal rank fusion, then exact-name-first, definition boost, penalties
 * (generated, syntactic-only, test code), small boosts (caller files, public API), hub
 * elevation, cross-cutting diversity, identical code once, a relevance gate, and selection
 * under a token budget with parent/child merging.
 */
export function search(ctx: SearchContext, query: string, options: SearchOptions = {}): SearchResponse {
  return searchSources([{ name: '', ctx }], query, options);
}

/**
 * `search` over several indexes (a workspace of repositories) merged into one ranking: each
 * channel's hits of every index are merged into one list first — by the channel's score where
 * indexes share its scale (BM25, cosine), by rank otherwise (names, graph) — and fused once, so
 * the best answer of the second repository can come first. Results name their repository
 * (`repo`) when there is more than one source.
 */
export function searchSources(
  inputs: readonly SearchSource[],
  query: string,
  options: SearchOptions = {},
  how: { readonly named?: boolean } = {},
): SearchResponse {
  const started = performance.now();
  const { limit } = validateSearchOptions(options);
  const notices: string[] = [];
  let text = query.trim();
  if (text.length > MAX_QUERY_CHARS) {
    text = text.slice(0, MAX_QUERY_CHARS);
    notices.push(`query truncated to ${MAX_QUERY_CHARS} characters`);
  }
  const analyzed = analyzeQuery(text);
  const done = (results: SearchResult[], tokens = 0): SearchResponse => ({
    query,
    intent: analyzed.intent,
    results,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
    notices,
    tokens,
  });
  const expression = searchFilter(options);
  const docs = searchesDocs(options, expression);
  // Results name their repository in a workspace search, even when one index alone answers.
  const multi = how.named ?? inputs.length > 1;
  const prefix = (name: string) => (multi ? `${name}: ` : '');
  /**
   * Sources that failed while answering (a corrupt page, a lock): dropped with a notice in a
   * workspace search, so the other indexes still answer. One index's failure is the answer's.
   */
  const failed = new Set<number>();
  const guard = <T>(s: number, fallback: T, read: () => T): T => {
    if (failed.has(s)) return fallback;
    if (!multi) return read();
    try {
      return read();
    } catch (e) {
      const err = toCaError(e);
      if (!isIndexFailure(e, err.code)) throw e;
      failed.add(s);
      notices.push(`${inputs[s]!.name}: index unavailable: ${err.code}: ${err.message}`);
      return fallback;
    }
  };
  const wanted = new Set<Channel>(options.channels ?? ['name', 'bm25', 'vector', 'graph']);
  for (const src of inputs) {
    if (wanted.has('vector') && !src.ctx.vector) notices.push(`${prefix(src.name)}vector channel off: ${src.ctx.vectorOffReason ?? 'no embedding model'}`);
  }
  if (text === '') {
    notices.push('empty query');
    return done([]);
  }
  const sources: Source[] = inputs.map((input, s) => {
    const filter: NodeFilter = expression ? { expression } : {};
    const restrictive = isRestrictive(filter);
    let allowed: AllowedIds | null | undefined;
    return {
      name: input.name,
      ctx: input.ctx,
      filter,
      restrictive,
      // Asked before any channel samples the filter: a fraction known now was sampled by an earlier search.
      repeated: restrictive && guard(s, null, () => input.ctx.reader.knownPassingFraction(filter)) !== null,
      passing: (ids) => (restrictive ? input.ctx.reader.idsPassing(filter, ids) : null),
      // The whole allowed set is read once per search, and only when a channel needs it.
      allowed: () => (allowed === undefined ? (allowed = restrictive ? input.ctx.reader.nodeIdsMatching(filter) : null) : allowed),
    };
  });
  if (expression) sources.forEach((src, s) => guard(s, [], () => src.ctx.reader.filterNotices(src.filter)).forEach((n) => notices.push(`${prefix(src.name)}${n}`)));
  // A channel never returns fewer candidates than the results asked for.
  const channelK = Math.max(limit, (options.channelK ?? 50) * (analyzed.intent === 'cross_cutting' ? 2 : 1));
  const rankings: ChannelRanking[] = [];
  const exact = new Set<number>();
  const named = new Set<number>();

  if (wanted.has('name') || wanted.has('graph')) {
    const perSource = sources.map((src, s): SourceHits => guard(s, { ids: [] }, () => {
      const { reader } = src.ctx;
      const ids: number[] = [];
      const seen = new Set<number>();
      const push = (nodes: NodeRecord[]) => {
        for (const n of nodes) if (!seen.has(n.id)) (seen.add(n.id), ids.push(n.id));
      };
      for (const ident of analyzed.identifiers) {
        const exactHits = reader.byQualifiedName(ident, src.filter, channelK, docs);
        for (const n of exactHits) exact.add(keyOf(s, n.id));
        push(exactHits);
      }
      for (const ident of analyzed.identifiers) {
        const suffixHits = reader.bySuffix(ident, src.filter, channelK, docs);
        // A symbol the user named exactly (`issueToken`, `Billing.terminatePlan`) is returned as itself.
        const simple = ident.split(/\.|::/).pop()!;
        for (const n of suffixHits) if (n.name === simple) named.add(keyOf(s, n.id));
        push(suffixHits);
      }
      return { ids };
    }));
    for (const key of exact) named.add(key);
    if (wanted.has('name')) rankings.push({ channel: 'name', ids: mergeHits(perSource, channelK) });
  }
  const bm25Scores = new Map<number, number>();
  if (wanted.has('bm25')) {
    const perSource = sources.map((src, s): SourceHits =>
      guard(s, { ids: [], scores: [] }, () => {
        const code = src.ctx.reader.bm25(text, src.filter, channelK);
        const hits = docs ? byScore(code, src.ctx.reader.bm25Docs(text, src.filter, channelK), channelK) : code;
        for (const h of hits) bm25Scores.set(keyOf(s, h.nodeId), h.score);
        return { ids: hits.map((h) => h.nodeId), scores: hits.map((h) => h.score) };
      }),
    );
    rankings.push({ channel: 'bm25', ids: mergeHits(perSource, channelK) });
  }
  if (wanted.has('graph') && analyzed.asksDependents && named.size > 0) {
    // "callers of X", "what breaks if X changes": X's dependents, most-connected first.
    const perSource = sources.map((src, s): SourceHits =>
      guard(s, { ids: [] }, () => {
        const seeds = [...named].filter((k) => sourceOf(k) === s).slice(0, GRAPH_SEEDS).map(nodeIdOf);
        if (seeds.length === 0) return { ids: [] };
        const deps = src.ctx.reader.dependentsOf(seeds, GRAPH_EDGE_TYPES, channelK * 2).map((d) => d.nodeId);
        const allow = src.passing(deps);
        return { ids: (allow ? deps.filter((id) => allow.has(id)) : deps).slice(0, channelK) };
      }),
    );
    rankings.push({ channel: 'graph', ids: mergeHits(perSource, channelK) });
  }
  const cosine = new Map<number, number>();
  if (wanted.has('vector') && sources.some((src) => src.ctx.vector)) {
    const perSource = sources.map((src, s): SourceHits =>
      guard(s, { ids: [], scores: [] }, () => {
        if (!src.ctx.vector) return { ids: [], scores: [] };
        const hits = filteredNearest(src, src.ctx.vector, channelK);
        for (const h of hits) cosine.set(keyOf(s, h.nodeId), h.score);
        return { ids: hits.map((h) => h.nodeId), scores: hits.map((h) => h.score) };
      }),
    );
    rankings.push({ channel: 'vector', ids: mergeHits(perSource, channelK) });
  }

  // Weights only balance channels against each other: one channel alone is ranked as it is.
  const weights = fusionWeights(analyzed.intent, text, rankings.length, options.channelWeights);
  const fused = reciprocalRankFusion(rankings, options.rrfK ?? 60, weights);
  const scored = rescore(sources, fused, exact, options, analyzed.aboutTests, guard);
  if (options.hub !== false && scored.length > 0) elevateHubs(sources, scored, guard);
  // Without the lexical channels asked for (an ablation), there is no "no lexical match" to tell.
  const lexical = !(wanted.has('name') || wanted.has('bm25')) || rankings.some((r) => r.channel !== 'vector' && r.ids.length > 0);
  const repoNames = multi ? sources.map((s) => s.name) : null;
  const ranked = finishRanking(scored, { text, analyzed, exact, named, bm25: bm25Scores, cosine, lexical, options, notices, repoNames });
  let results = ranked.results;
  if (options.facts !== false) results = withFacts(sources, results, ranked.sources, guard);
  if (analyzed.intent === 'cross_cutting') results = groupByModule(results);
  const response = done(results, ranked.tokens);
  return ranked.candidates ? { ...response, candidates: ranked.candidates } : response;
}

/** What the stages after fusion and hub elevation need of a search (`finishRanking`). */
export interface RankingInput {
  readonly text: string;
  readonly analyzed: AnalyzedQuery;
  /** Keys of exact qualified-name hits (kept by the relevance gate) and of symbols named as themselves. */
  readonly exact: ReadonlySet<number>;
  readonly named: ReadonlySet<number>;
  /** Channel scores by key (the learned ranker's features; cosine also the similarity floor's). */
  readonly bm25: ReadonlyMap<number, number>;
  readonly cosine: ReadonlyMap<number, number>;
  /** Whether a lexical channel found anything (or none was asked for): else the similarity floor applies. */
  readonly lexical: boolean;
  readonly options: SearchOptions;
  /** Notices are appended here. */
  readonly notices: string[];
  /** Repository names of a multi-repository search (null: one index). */
  readonly repoNames: readonly string[] | null;
}

/**
 * The ranking after fusion, rescoring and hub elevation, for every backend (the local index's
 * `searchSources`, the team store's search): sorted, the rerank stage, cross-cutting diversity,
 * identical code once (with facts), the similarity floor, the `--min-score` gate relative to
 * the best base score, selection under the limit and budget, the per-file pass. The results
 * carry no facts yet (the caller's reads add them) and are not grouped by module.
 */
export function finishRanking(
  candidates: Scored[],
  input: RankingInput,
): { scored: Scored[]; results: SearchResult[]; sources: number[]; tokens: number; candidates: RankCandidate[] | null } {
  const { options, notices, analyzed, exact, named, repoNames, text } = input;
  const { limit, budget, minScore, minSimilarity } = validateSearchOptions(options);
  let scored = candidates;
  scored.sort((a, b) => b.score - a.score);
  const reranked = rerankStage(scored, input);
  if (analyzed.intent === 'cross_cutting') diversify(scored);
  if (options.facts !== false) scored = oncePerChunk(scored);
  const floor = similarityFloor(scored, input.lexical, input.cosine, minSimilarity);
  scored = floor.kept;
  if (!input.lexical && scored.length > 0) notices.push(SEMANTIC_ONLY_NOTICE);
  else if (floor.dropped > 0 && scored.length === 0) notices.push(underFloorNotice(minSimilarity));
  // Relevance gate, relative to the best base score.
  const top = scored.reduce((m, s) => Math.max(m, s.base), 0);
  const gated = minScore > 0 ? scored.filter((s) => s.base >= minScore * top || exact.has(s.key)) : scored;
  let selected = select(gated, limit, budget, named, repoNames);
  // One file over its share of the results: its further candidates go behind other files'.
  const perFile = options.perFile ?? perFileOf(limit);
  if (options.pathGlob === undefined && crowded(selected.results, perFile, text)) selected = select(perFileDiversity(gated, text, perFile, false), limit, budget, named, repoNames);
  if (selected.overBudget > 0) {
    const n = selected.overBudget;
    notices.push(`token budget: ${n} matching result${n === 1 ? '' : 's'} left out (over the budget of ${budget} tokens; raise it to see ${n === 1 ? 'it' : 'them'})`);
  }
  return { scored, results: selected.results, sources: selected.sources, tokens: selected.tokens, candidates: reranked };
}

/**
 * Two BM25 rankings (the code's and the documentation's partition) as one, by score, at most
 * `k`; code first on a tie. Each is scored against its own partition's term statistics.
 */
function byScore(code: readonly RankedHit[], docs: readonly RankedHit[], k: number): RankedHit[] {
  return [...code, ...docs].sort((a, b) => b.score - a.score).slice(0, k);
}

/**
 * One channel's hits of every index as one list of keys, best first, at most `k`. With one
 * index, its list as it is. With several: by the channel's score when every list has one
 * (BM25 and cosine are on one scale across indexes), else by rank, index order breaking ties.
 */
function mergeHits(perSource: readonly SourceHits[], k: number): number[] {
  if (perSource.length === 1) return perSource[0]!.ids.slice(0, k).map((id) => keyOf(0, id));
  const all: { key: number; rank: number; source: number; score: number }[] = [];
  const scored = perSource.every((h) => h.scores !== undefined);
  perSource.forEach((h, s) => h.ids.forEach((id, rank) => all.push({ key: keyOf(s, id), rank, source: s, score: scored ? h.scores![rank]! : 0 })));
  all.sort((a, b) => (scored ? b.score - a.score : 0) || a.rank - b.rank || a.source - b.source);
  return all.slice(0, k).map((x) => x.key);
}

/**
 * The nearest nodes passing the source's filter: `k` of them when that many pass and have
 * vectors, exactly the top of the filtered ranking. The filter's allowed set is used when the
 * store has it cached, when a sample says few nodes pass (BM25 reads it then too), or when the
 * filter comes again (an agent repeats its filters: the set is read once and cached for the
 * searches that follow). A broad filter seen for the first time is checked on the nearest nodes
 * a batch at a time instead (`searchChecked`), and its set read only when that gives up — so a
 * filter leaving one node deep in the ranking still finds it, and a selective one still
 * returns `k`.
 */
function filteredNearest(src: Source, vector: VectorChannel, k: number): { nodeId: number; score: number }[] {
  if (!src.restrictive) return vector.search(k, null);
  const { reader } = src.ctx;
  const cached = reader.cachedNodeIdsMatching(src.filter);
  if (cached) return vector.search(k, cached);
  const fraction = reader.passingFraction(src.filter);
  if (fraction >= BROAD_FILTER_FRACTION && !src.repeated && vector.searchChecked) {
    const hits = vector.searchChecked(k, (ids) => src.passing(ids) ?? EVERY_ID, fraction);
    if (hits) return hits;
  }
  return vector.search(k, src.allowed());
}

const EVERY_ID: AllowedIds = { has: () => true };

/** Runs one index's reads, or drops the index with a notice when it fails (workspace search). */
type Guard = <T>(source: number, fallback: T, read: () => T) => T;

/** Errors of an index itself (not of the query): the index is left out of a workspace answer. */
function isIndexFailure(e: unknown, code: string): boolean {
  return code === 'db_corrupt' || code === 'db_locked' || code === 'io_error' || code === 'schema_too_new' || (e instanceof Error && e.name === 'SqliteError');
}

function rescore(sources: readonly Source[], fused: FusedHit[], exact: ReadonlySet<number>, options: SearchOptions, aboutTests: boolean, guard: Guard): Scored[] {
  const nodes = new Map<number, NodeRecord>();
  const callerFiles = new Map<number, number>();
  sources.forEach((src, s) => {
    const ids = fused.filter((h) => sourceOf(h.nodeId) === s).map((h) => nodeIdOf(h.nodeId));
    if (ids.length === 0) return;
    guard(s, null, () => {
      for (const n of src.ctx.reader.nodesByIds(ids)) nodes.set(keyOf(s, n.id), n);
      for (const [id, c] of src.ctx.reader.callerFileCounts(ids)) callerFiles.set(keyOf(s, id), c);
      return null;
    });
  });
  return rescoreHits(fused, nodes, callerFiles, exact, options, aboutTests, sourceOf, testCodeOf(sources, guard));
}

/**
 * Whether a candidate is test code: its path (`isTestPath`), or its project is one of its
 * index's test projects (decision 051). A failed index counts none.
 */
function testCodeOf(sources: readonly Source[], guard: Guard): (key: number, n: NodeRecord) => boolean {
  const projects = sources.map((src, s) => guard(s, EMPTY_PROJECTS, () => src.ctx.reader.testProjects()));
  return (key, n) => isTestPath(n.path) || (projects[sourceOf(key)]?.has(n.project) ?? false);
}

const EMPTY_PROJECTS: ReadonlySet<string> = new Set();

/** Test code by path alone: backends that record no test projects. */
const testCodeByPath = (_key: number, n: NodeRecord): boolean => isTestPath(n.path);

/**
 * Fused hits rescored (every backend's): definition boost, generated / syntactic-only / test
 * penalties, the caller-file and public-API boosts, the exact-name bonus; `nodes` and
 * `callerFiles` by fused key, hits without a node (or of a failed parse) dropped. `source` maps a
 * key to its index (another backend with one index and its own ids: `() => 0`, so a key is the
 * node's id and parents are found by it).
 */
export function rescoreHits(
  fused: readonly FusedHit[], nodes: ReadonlyMap<number, NodeRecord>, callerFiles: ReadonlyMap<number, number>,
  exact: ReadonlySet<number>, options: SearchOptions, aboutTests: boolean, source: (key: number) => number = sourceOf,
  isTest: (key: number, n: NodeRecord) => boolean = testCodeByPath,
): Scored[] {
  const includeTests = options.includeTests === true || aboutTests;
  const out: Scored[] = [];
  for (const hit of fused) {
    const n = nodes.get(hit.nodeId);
    if (!n || n.parseStatus === 'error') continue; // failed parses are excluded
    let score = hit.score;
    if (options.definitionBoost !== false) {
      if (TYPE_KINDS.has(n.kind) || CALLABLE_KINDS.has(n.kind)) score *= 1.1;
      if (n.kind === 'file' || n.kind === 'module') score *= 0.8;
    }
    if (n.generated) score *= GENERATED_PENALTY;
    if (n.semanticState !== 'ok') score *= SYNTACTIC_ONLY_PENALTY;
    const test = isTest(hit.nodeId, n);
    if (!includeTests && test) score *= TEST_PENALTY;
    // Small additive boosts: widely used symbols and public API (≤ ~10% of a top RRF score).
    score += Math.min(callerFiles.get(hit.nodeId) ?? 0, 10) * 0.0002;
    if (n.isPublicApi) score += 0.0005;
    const base = score;
    if (exact.has(hit.nodeId)) score += EXACT_NAME_BONUS;
    out.push({ key: hit.nodeId, source: source(hit.nodeId), node: n, score, base, ranks: { ...hit.ranks }, hub: false, test, fused: hit.score, callerFiles: callerFiles.get(hit.nodeId) ?? 0 });
  }
  return out;
}

/**
 * Hub elevation: a symbol connected (one hop of calls/references/implements/inherits) to at
 * least HUB_MIN_LINKS (four) of the top results is added even if no channel returned it; its score is half the
 * summed base scores of the results it connects, capped under the weakest of them. Edges stay
 * inside one index, so each index's hubs come from its own top results.
 */
function elevateHubs(sources: readonly Source[], scored: Scored[], guard: Guard): void {
  // Every index's hubs come from the candidates before any hub was added.
  const before = [...scored];
  sources.forEach((src, s) => guard(s, undefined, () => {
    const seeds = hubSeeds(before, s);
    if (seeds.length === 0) return;
    const { reader } = src.ctx;
    const links = hubLinks(before, s, reader.neighbours(seeds.map((x) => x.node.id), HUB_EDGE_TYPES));
    if (links.size === 0) return;
    const ids = [...links.keys()];
    const testProjects = reader.testProjects();
    const isTest = (_key: number, n: NodeRecord): boolean => isTestPath(n.path) || testProjects.has(n.project);
    scored.push(...hubCandidates(before, s, links, new Map(reader.nodesByIds(ids).map((n) => [n.id, n])), src.passing(ids), isTest));
  }));
}

/** The edge types that link a hub to the top results. */
export const HUB_LINK_TYPES: readonly EdgeType[] = HUB_EDGE_TYPES;

/**
 * Hub elevation's seeds in one index (`source`): its candidates among the best HUB_SEEDS of all,
 * or none when fewer than HUB_MIN_LINKS (no hub could link that many).
 */
export function hubSeeds(scored: readonly Scored[], source: number): Scored[] {
  const seeds = [...scored].sort((a, b) => b.score - a.score).slice(0, HUB_SEEDS).filter((x) => x.source === source);
  return seeds.length < HUB_MIN_LINKS ? [] : seeds;
}

/**
 * The hubs among the seeds' one-hop neighbours (`pairs`, node ids of that index): each
 * neighbour, not a candidate already, linked to at least HUB_MIN_LINKS seeds, with those seeds.
 */
export function hubLinks(scored: readonly Scored[], source: number, pairs: readonly { neighbour: number; seed: number }[]): Map<number, Set<number>> {
  const keys = new Set(scored.map((s) => s.key));
  const links = new Map<number, Set<number>>();
  for (const { neighbour, seed } of pairs) {
    if (neighbour === seed || keys.has(keyOf(source, neighbour))) continue;
    let set = links.get(neighbour);
    if (!set) links.set(neighbour, (set = new Set()));
    set.add(seed);
  }
  return new Map([...links.entries()].filter(([, linked]) => linked.size >= HUB_MIN_LINKS));
}

/**
 * The hubs as candidates (`nodes` by id; `allowed` the ids the filter passes, null: all): a file
 * or module never; the score half the linked seeds' summed base scores, under the weakest's.
 */
export function hubCandidates(
  scored: readonly Scored[], source: number, links: ReadonlyMap<number, ReadonlySet<number>>, nodes: ReadonlyMap<number, NodeRecord>, allowed: AllowedIds | null,
  isTest: (key: number, n: NodeRecord) => boolean = testCodeByPath,
): Scored[] {
  const byKey = new Map(scored.map((s) => [s.key, s]));
  const out: Scored[] = [];
  for (const [id, linked] of links) {
    const n = nodes.get(id);
    if (!n || n.kind === 'file' || n.kind === 'module' || (allowed && !allowed.has(id))) continue;
    const seedScores = [...linked].map((seed) => byKey.get(keyOf(source, seed))!.base);
    const score = Math.min(seedScores.reduce((a, b) => a + b, 0) * 0.5, Math.min(...seedScores) * 0.99);
    const key = keyOf(source, id);
    out.push({ key, source, node: n, score, base: score, ranks: {}, hub: true, test: isTest(key, n), fused: 0, callerFiles: 0 });
  }
  return out;
}

/** Cross-cutting queries: each further result from the same file is damped (0.85^k). */
function diversify(scored: Scored[]): void {
  const seen = new Map<string, number>();
  for (const s of scored) {
    const file = `${s.source}\0${s.node.path}`;
    const k = seen.get(file) ?? 0;
    s.score *= 0.85 ** k;
    seen.set(file, k + 1);
  }
  scored.sort((a, b) => b.score - a.score);
}

/**
 * Identical code (the same chunk hash: a copied file, a vendored duplicate, in any index) is one
 * candidate, the best-scored; its other places are listed on the result (`withFacts`).
 */
function oncePerChunk(scored: readonly Scored[]): Scored[] {
  const seen = new Set<string>();
  return scored.filter((s) => {
    const hash = s.node.chunkHash;
    if (!hash) return true;
    const key = `${s.node.kind}\0${hash}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Neighbour names a result lists per side (every backend's). */
export const NEIGHBOURS_PER_SIDE = 3;

/**
 * Facts a result carries so the agent need not ask again: caller count and neighbour names from
 * its own index, and every location of identical code across the indexes.
 */
function withFacts(sources: readonly Source[], results: SearchResult[], resultSources: readonly number[], guard: Guard): SearchResult[] {
  const facts = sources.map((src, s) => {
    const ids = results.filter((_, i) => resultSources[i] === s).map((r) => Number(r.id));
    return ids.length > 0 ? guard(s, new Map<number, NodeFacts>(), () => src.ctx.reader.nodeFacts(ids, NEIGHBOURS_PER_SIDE)) : new Map<number, NodeFacts>();
  });
  const hashes = [...new Set(results.map((r) => chunkHashOf.get(r)).filter((h): h is string => h !== undefined))];
  const multi = results.some((r) => r.repo !== undefined);
  const locationsOf = sources.map((src, s) =>
    hashes.length > 0 ? guard(s, new Map<string, { locations: CodeLocation[]; total: number }>(), () => src.ctx.reader.locationsByChunkHash(hashes)) : new Map<string, { locations: CodeLocation[]; total: number }>(),
  );
  return results.map((r, i) => {
    const s = resultSources[i]!;
    const f = facts[s]!.get(Number(r.id));
    const hash = chunkHashOf.get(r);
    const locations: ResultLocation[] = [];
    let total = 0;
    if (hash) {
      sources.forEach((src, t) => {
        const entry = locationsOf[t]!.get(hash);
        if (!entry) return;
        total += entry.total;
        for (const loc of entry.locations) {
          locations.push({ ...(multi ? { repo: src.name } : {}), id: String(loc.id), qualifiedName: loc.qualifiedName, path: loc.path, startLine: loc.startLine, endLine: loc.endLine });
        }
      });
    }
    return resultWithFacts(r, f, locations, total);
  });
}

/** Locations a result lists at most (`locationCount` counts them all). */
export const MAX_RESULT_LOCATIONS = 20;

/**
 * A result with its facts, in the shape every backend answers (the local `withFacts`, the team
 * store's search): the caller count and neighbour names (none known: 0 and empty), then the
 * locations of its identical code when it stands in more than one place (`total`), the first
 * MAX_RESULT_LOCATIONS of `locations`; the code last.
 */
export function resultWithFacts(r: SearchResult, facts: NodeFacts | undefined, locations: readonly ResultLocation[], total: number): SearchResult {
  const { code, ...head } = r;
  return {
    ...head,
    callerCount: facts?.callerCount ?? 0,
    callers: facts?.callers ?? [],
    callees: facts?.callees ?? [],
    ...(total > 1 ? { locations: locations.slice(0, MAX_RESULT_LOCATIONS), locationCount: total } : {}),
    code,
  };
}

/** The chunk hash behind each emitted result (kept off the public shape). */
const chunkHashOf = new WeakMap<SearchResult, string>();

interface Unit {
  head: Scored;
  kids: Scored[];
}

/**
 * Selection under the limit and the token budget, then parent/child merging inside it.
 *
 * The selection is the best `limit` results; a parent and a child of it that are BOTH selected
 * become one result (the parent's code with that child expanded, the other children collapsed),
 * at the better of the two positions, and the slot it frees goes to the next candidate. A
 * parent is never pulled in because a child ranked well: a weakly matching class in the
 * candidate tail would otherwise replace its strongly matching method (which cost NDCG@10 on
 * every fixture set, decision 006). An exact-name hit always stands on its own.
 * Each result is kept only if it fits the remaining budget; the budget is never exceeded.
 * `repoNames` (several indexes) names each result's repository.
 */
/**
 * The results of a ranking: the best `limit` units within `budget` tokens, a child merged into
 * its parent where the parent's code shows it (never a child the user named). Exported as
 * `selectResults` so another backend's candidates (the team store's) are selected the same way.
 */
export function select(
  scored: readonly Scored[],
  limit: number,
  budget: number,
  named: ReadonlySet<number>,
  repoNames: readonly string[] | null,
): { results: SearchResult[]; sources: number[]; tokens: number; overBudget: number } {
  const candidates = scored.slice(0, Math.max(limit * 3, 30));
  // A child merges only where the parent's code shows it collapsed (or in full): one that
  // cannot be located there keeps its own place in the ranking.
  const mergeable = (child: Scored, parent: Scored): boolean =>
    child.source === parent.source &&
    child.node.parentId === parent.node.id &&
    parent.node.kind !== 'file' &&
    parent.node.kind !== 'module' &&
    !named.has(child.key) &&
    expandChildren(parent.node.chunkText, [{ code: child.node.chunkText }]).merged[0] === true;
  const units: Unit[] = [];
  const unitOf = new Map<number, Unit>();
  const results: SearchResult[] = [];
  const sources: number[] = [];
  let tokens = 0;
  let overBudget = 0;
  let next = 0;
  while (results.length < limit && next < candidates.length) {
    // Grow the selection to `limit` units (merges do not use a slot).
    const start = units.length;
    while (units.length - start < limit - results.length && next < candidates.length) {
      const c = candidates[next++]!;
      if (unitOf.has(c.key)) continue;
      const parentKey = c.node.parentId === null ? null : keyOf(c.source, c.node.parentId);
      const parentUnit = parentKey === null ? undefined : unitOf.get(parentKey);
      if (parentUnit && parentUnit.head.key === parentKey && mergeable(c, parentUnit.head) && units.indexOf(parentUnit) >= start) {
        parentUnit.kids.push(c);
        unitOf.set(c.key, parentUnit);
        continue;
      }
      // A parent arriving after some of its children: they join it, at the first child's place.
      const childUnits = units.slice(start).filter((u) => u.kids.length === 0 && mergeable(u.head, c));
      if (childUnits.length > 0) {
        const first = childUnits[0]!;
        const kids = childUnits.map((u) => u.head);
        first.kids = kids;
        first.head = c;
        for (const u of childUnits.slice(1)) units.splice(units.indexOf(u), 1);
        unitOf.set(c.key, first);
        for (const k of kids) unitOf.set(k.key, first);
        continue;
      }
      const unit: Unit = { head: c, kids: [] };
      units.push(unit);
      unitOf.set(c.key, unit);
    }
    if (units.length === start) break;
    for (const unit of units.slice(start)) {
      if (results.length >= limit) break;
      const { emitted, left } = emitUnit(unit, budget - tokens, repoNames);
      overBudget += left;
      for (const r of emitted) {
        tokens += estimateTokens(r.code);
        results.push(r);
        sources.push(unit.head.source);
      }
    }
  }
  const kept = results.slice(0, limit);
  return { results: kept, sources: sources.slice(0, limit), tokens: kept.reduce((t, r) => t + estimateTokens(r.code), 0), overBudget };
}

/**
 * The results of one selected unit within `room` tokens: the parent with its selected children
 * expanded; when that does not fit (or a child cannot be located in the parent's code), the
 * members on their own, best first, as far as they fit. `left` counts the members that did not.
 */
function emitUnit(unit: Unit, room: number, repoNames: readonly string[] | null): { emitted: SearchResult[]; left: number } {
  const result = (s: Scored, code: string, expanded: readonly Scored[]): SearchResult => {
    const matchedBy = new Set(Object.keys(s.ranks));
    if (s.hub) matchedBy.add('hub');
    let score = s.score;
    for (const k of expanded) {
      for (const c of Object.keys(k.ranks)) matchedBy.add(c);
      if (k.hub) matchedBy.add('hub');
      score = Math.max(score, k.score);
    }
    const r: SearchResult = {
      ...toSearchResult(s.node, score, [...matchedBy], s.ranks, code, repoNames ? repoNames[s.source] : undefined),
      ...(expanded.length > 0 ? { expandedChildren: expanded.map((k) => String(k.node.id)) } : {}),
      ...(s.contributions ? { contributions: s.contributions } : {}),
      ...(s.test ? { testCode: true as const } : {}),
    };
    if (s.node.chunkHash) chunkHashOf.set(r, s.node.chunkHash);
    return r;
  };
  const out: SearchResult[] = [];
  let members = [unit.head, ...unit.kids];
  if (unit.kids.length > 0) {
    const { code, merged } = expandChildren(unit.head.node.chunkText, unit.kids.map((k) => ({ code: k.node.chunkText })));
    const inside = unit.kids.filter((_, i) => merged[i]);
    if (inside.length > 0 && estimateTokens(code) <= room) {
      out.push(result(unit.head, code, inside));
      room -= estimateTokens(code);
      members = unit.kids.filter((_, i) => !merged[i]);
    }
  }
  let left = 0;
  for (const m of [...members].sort((a, b) => b.score - a.score)) {
    const cost = estimateTokens(m.node.chunkText);
    if (cost > room) {
      left++;
      continue;
    }
    out.push(result(m, m.node.chunkText, []));
    room -= cost;
  }
  return { emitted: out, left };
}

/** The result shape of a node (search, `ca similar`); `code` defaults to its chunk text. */
export function toSearchResult(
  n: NodeRecord,
  score: number,
  matchedBy: readonly string[],
  ranks: Readonly<Record<string, number>>,
  code = n.chunkText,
  repo?: string,
): SearchResult {
  return {
    id: String(n.id),
    qualifiedName: n.qualifiedName,
    name: n.name,
    kind: n.kind,
    language: n.language,
    path: n.path,
    startLine: n.startLine,
    endLine: n.endLine,
    score: Math.round(score * 1e6) / 1e6,
    matchedBy,
    ...(repo !== undefined ? { repo } : {}),
    package: projectDisplayName(n.project),
    isPublicApi: n.isPublicApi,
    code,
    ranks,
  };
}

/** Cross-cutting answers: results of one module (directory) stand together, best module first. */
export function groupByModule(results: SearchResult[]): SearchResult[] {
  const order: string[] = [];
  const groups = new Map<string, SearchResult[]>();
  for (const r of results) {
    const m = `${r.repo ?? ''}\0${moduleOf(r.path)}`;
    if (!groups.has(m)) (order.push(m), groups.set(m, []));
    groups.get(m)!.push(r);
  }
  return order.flatMap((m) => groups.get(m)!);
}

/** The canonical text of a search's filter (answers echo it), or null without one. */
export function filterText(options: Pick<SearchOptions, 'filter' | 'languages' | 'kinds' | 'pathGlob'>): string | null {
  const f = searchFilter(options);
  return f ? formatFilter(f) : null;
}

/** What the rerank stage needs of the search. */
interface RerankInput {
  readonly text: string;
  readonly analyzed: ReturnType<typeof analyzeQuery>;
  readonly exact: ReadonlySet<number>;
  readonly named: ReadonlySet<number>;
  readonly bm25: ReadonlyMap<number, number>;
  readonly cosine: ReadonlyMap<number, number>;
  readonly options: SearchOptions;
  readonly notices: string[];
}

/**
 * The rerank stage: with the learned ranker, the top candidates are scored by the model (and
 * `scored` re-sorted); with `candidates`, their features are returned (for training dumps).
 * Nothing is computed for the hand ranking without `candidates`.
 */
function rerankStage(scored: Scored[], input: RerankInput): RankCandidate[] | null {
  const { options } = input;
  const learned = options.ranker === 'learned';
  if (!learned && options.candidates !== true) return null;
  const out = rerank(scored, {
    text: input.text,
    hasIdentifiers: input.analyzed.identifiers.length > 0,
    aboutTests: input.analyzed.aboutTests,
    exact: input.exact,
    named: input.named,
    bm25: input.bm25,
    cosine: input.cosine,
    learned,
    weights: options.rankerWeights,
    explain: options.explain === true,
  });
  if (out.notice) input.notices.push(out.notice);
  return options.candidates === true
    ? out.candidates.map((c) => ({ id: String(c.item.node.id), qualifiedName: c.item.node.qualifiedName, name: c.item.node.name, path: c.item.node.path, kind: c.item.node.kind, features: c.features }))
    : null;
}
