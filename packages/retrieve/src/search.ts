import picomatch from 'picomatch';
import { CaError, CALLABLE_KINDS, TYPE_KINDS, type EdgeType, type Language, type NodeKind } from '@ca/schema';
import type { IndexReader, NodeFilter, NodeRecord } from '@ca/store';
import { estimateTokens, expandChildren } from './budget.js';
import { reciprocalRankFusion, type ChannelRanking, type FusedHit } from './fusion.js';
import { analyzeQuery, type Intent } from './queryAnalysis.js';
import { isTestPath } from './testCode.js';

export type Channel = 'bm25' | 'name' | 'vector' | 'graph';

export interface SearchOptions {
  readonly limit?: number;
  readonly languages?: readonly Language[];
  readonly kinds?: readonly NodeKind[];
  /** Glob over repo-relative paths (`src/**`, `**\/*.tsx`). */
  readonly pathGlob?: string;
  /** Do not rank test code down. */
  readonly includeTests?: boolean;
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
  /** Relevance gate: drop results scoring under this fraction of the best result (0-1, default 0). */
  readonly minScore?: number;
  /**
   * RRF weight per channel, over the defaults (`DEFAULT_WEIGHTS`, per intent): a weight given
   * here applies to every intent.
   */
  readonly channelWeights?: Readonly<Partial<Record<Channel, number>>>;
}

/** The vector channel, provided by the caller (the engine embeds the query). */
export interface VectorChannel {
  /** Nearest nodes to the query, best first, restricted to `allow` when given. */
  search(k: number, allow: ReadonlySet<number> | null): { nodeId: number; score: number }[];
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
  readonly code: string;
  /** Per-channel 1-based ranks (printed with --explain). */
  readonly ranks: Readonly<Record<string, number>>;
  /** Ids of children expanded inside `code` (parent/child merge). */
  readonly expandedChildren?: readonly string[];
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
}

const TEST_PENALTY = 0.5;
const GENERATED_PENALTY = 0.3;
const SYNTACTIC_ONLY_PENALTY = 0.8;
/** Added to an exact qualified-name hit: always above any fused score. */
const EXACT_NAME_BONUS = 1;
const HUB_SEEDS = 10;
/**
 * Links to top results a hub needs. With 2, hubs lowered train-split NDCG@10 on excalidraw
 * (0.343 → 0.377 without them); with 3 they cost 0.004–0.015 on every real train set once the
 * other channels improved (2026-11-22); with 4 they are within 0.001 of no hubs everywhere and
 * still add the symbol four top results all use.
 */
const HUB_MIN_LINKS = 4;
const HUB_EDGE_TYPES: readonly EdgeType[] = ['calls', 'references', 'implements', 'inherits'];
const MAX_QUERY_CHARS = 8192;
/**
 * RRF weights per intent, chosen on the train split of the eval sets (docs/benchmarks.md,
 * "Ranking changes"). The graph channel only answers dependents questions ("callers of X"),
 * where its edges are the answer itself: weight 2 lifted impact NDCG@10 from 0.18–0.51 to
 * 0.51–0.84 per set. Questions in words (exploratory) lean on the vector channel: 1.5 over BM25,
 * whose matches on common words are noise there (+0.01–0.02 on the hand-written sets).
 */
const DEFAULT_WEIGHTS: Readonly<Record<Intent, Readonly<Partial<Record<Channel, number>>>>> = {
  targeted: { graph: 2 },
  cross_cutting: { graph: 2 },
  exploratory: { graph: 2, vector: 1.5 },
};
/**
 * Long queries (a bug report, a commit message: 10+ words) share their vocabulary with the code
 * they are about, while one embedding of several sentences blurs: BM25 counts triple there.
 * On the train split (Porter-stemmed FTS) this lifted the mined sets 0.338 → 0.349 (excalidraw)
 * and 0.359 → 0.380 (Newtonsoft.Json), the hand-written ones within ±0.01
 * (docs/benchmarks.md, "Ranking changes").
 */
const LONG_QUERY_WORDS = 10;
const LONG_QUERY_WEIGHTS: Readonly<Partial<Record<Channel, number>>> = { bm25: 3, vector: 1 };
/** Edges whose sources depend on their target (the graph channel of "callers of X" questions). */
const GRAPH_EDGE_TYPES: readonly EdgeType[] = ['calls', 'references', 'implements', 'inherits', 'overrides'];

function toFilter(options: SearchOptions): NodeFilter {
  let pathRegex: string | undefined;
  if (options.pathGlob) {
    try {
      pathRegex = picomatch.makeRe(options.pathGlob, { dot: true }).source;
    } catch (e) {
      throw new CaError('invalid_query', `invalid --path glob "${options.pathGlob}": ${(e as Error).message}`);
    }
  }
  return {
    ...(options.languages ? { languages: options.languages } : {}),
    ...(options.kinds ? { kinds: options.kinds } : {}),
    ...(pathRegex ? { pathRegex } : {}),
  };
}

/** Validates user-facing numeric options; bad values are usage errors, never SQL errors. */
function validate(options: SearchOptions): { limit: number; budget: number; minScore: number } {
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new CaError('invalid_query', `--limit must be an integer from 1 to 1000 (got ${String(options.limit)})`);
  }
  const budget = options.budget ?? 16384;
  if (!Number.isInteger(budget) || budget < 0) throw new CaError('invalid_query', `--budget must be a non-negative integer (got ${String(options.budget)})`);
  const minScore = options.minScore ?? 0;
  if (!(minScore >= 0 && minScore <= 1)) throw new CaError('invalid_query', `--min-score must be between 0 and 1 (got ${String(options.minScore)})`);
  return { limit, budget, minScore };
}

interface Scored {
  node: NodeRecord;
  score: number;
  /** Score before the exact-name bonus (the relevance gate compares these). */
  base: number;
  ranks: Record<string, number>;
  hub: boolean;
}

function moduleOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '.' : path.slice(0, i);
}

/**
 * Hybrid search over one label: qualified-name, BM25 and vector channels (each filtered before
 * fusion), reciprocal rank fusion, then exact-name-first, definition boost, penalties
 * (generated, syntactic-only, test code), small boosts (caller files, public API), hub
 * elevation, cross-cutting diversity, a relevance gate, and selection under a token budget
 * with parent/child merging.
 */
export function search(ctx: SearchContext, query: string, options: SearchOptions = {}): SearchResponse {
  const started = performance.now();
  const { limit, budget, minScore } = validate(options);
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
  const wanted = new Set<Channel>(options.channels ?? ['name', 'bm25', 'vector', 'graph']);
  if (wanted.has('vector') && !ctx.vector) notices.push(`vector channel off: ${ctx.vectorOffReason ?? 'no embedding model'}`);
  if (text === '') {
    notices.push('empty query');
    return done([]);
  }
  const { reader } = ctx;
  const filter = toFilter(options);
  const channelK = (options.channelK ?? 50) * (analyzed.intent === 'cross_cutting' ? 2 : 1);
  const rankings: ChannelRanking[] = [];
  const exact = new Set<number>();
  const named = new Set<number>();

  if (wanted.has('name') || wanted.has('graph')) {
    const ids: number[] = [];
    const seen = new Set<number>();
    const push = (nodes: NodeRecord[]) => {
      for (const n of nodes) if (!seen.has(n.id)) (seen.add(n.id), ids.push(n.id));
    };
    for (const ident of analyzed.identifiers) {
      const exactHits = reader.byQualifiedName(ident, filter, channelK);
      for (const n of exactHits) exact.add(n.id);
      push(exactHits);
    }
    for (const ident of analyzed.identifiers) {
      const suffixHits = reader.bySuffix(ident, filter, channelK);
      // A symbol the user named exactly (`issueToken`, `Billing.terminatePlan`) is returned as itself.
      const simple = ident.split(/\.|::/).pop()!;
      for (const n of suffixHits) if (n.name === simple) named.add(n.id);
      push(suffixHits);
    }
    for (const id of exact) named.add(id);
    if (wanted.has('name')) rankings.push({ channel: 'name', ids: ids.slice(0, channelK) });
  }
  if (wanted.has('bm25')) {
    rankings.push({ channel: 'bm25', ids: reader.bm25(text, filter, channelK).map((h) => h.nodeId) });
  }
  if (wanted.has('graph') && analyzed.asksDependents && named.size > 0) {
    // "callers of X", "what breaks if X changes": X's dependents, most-connected first.
    const seeds = [...named].slice(0, 8);
    const deps = reader.dependentsOf(seeds, GRAPH_EDGE_TYPES, channelK * 2).map((d) => d.nodeId);
    const hasFilter = filter.languages !== undefined || filter.kinds !== undefined || filter.pathRegex !== undefined;
    const allow = hasFilter ? reader.nodeIdsMatching(filter) : null;
    rankings.push({ channel: 'graph', ids: (allow ? deps.filter((id) => allow.has(id)) : deps).slice(0, channelK) });
  }
  if (wanted.has('vector') && ctx.vector) {
    const hasFilter = filter.languages !== undefined || filter.kinds !== undefined || filter.pathRegex !== undefined;
    const allow = hasFilter ? reader.nodeIdsMatching(filter) : null;
    rankings.push({ channel: 'vector', ids: ctx.vector.search(channelK, allow).map((h) => h.nodeId) });
  }

  // Weights only balance channels against each other: one channel alone is ranked as it is.
  const long = text.split(/\s+/).length >= LONG_QUERY_WORDS;
  const weights = rankings.length > 1 ? { ...DEFAULT_WEIGHTS[analyzed.intent], ...(long ? LONG_QUERY_WEIGHTS : {}), ...options.channelWeights } : {};
  const fused = reciprocalRankFusion(rankings, options.rrfK ?? 60, weights);
  const scored = rescore(reader, fused, exact, options, analyzed.aboutTests);
  if (options.hub !== false && scored.length > 0) elevateHubs(reader, scored, filter);
  scored.sort((a, b) => b.score - a.score);
  if (analyzed.intent === 'cross_cutting') diversify(scored);

  // Relevance gate, relative to the best base score.
  const top = scored.reduce((m, s) => Math.max(m, s.base), 0);
  const gated = minScore > 0 ? scored.filter((s) => s.base >= minScore * top || exact.has(s.node.id)) : scored;
  const selected = select(gated, limit, budget, named);
  if (selected.overBudget > 0) {
    const n = selected.overBudget;
    notices.push(`token budget: ${n} matching result${n === 1 ? '' : 's'} left out (over the budget of ${budget} tokens; raise it to see ${n === 1 ? 'it' : 'them'})`);
  }
  let results = selected.results;
  if (analyzed.intent === 'cross_cutting') results = groupByModule(results);
  return done(results, selected.tokens);
}

function rescore(reader: IndexReader, fused: FusedHit[], exact: ReadonlySet<number>, options: SearchOptions, aboutTests: boolean): Scored[] {
  const nodes = new Map(reader.nodesByIds(fused.map((h) => h.nodeId)).map((n) => [n.id, n]));
  const callerFiles = reader.callerFileCounts([...nodes.keys()]);
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
    if (!includeTests && isTestPath(n.path)) score *= TEST_PENALTY;
    // Small additive boosts: widely used symbols and public API (≤ ~10% of a top RRF score).
    score += Math.min(callerFiles.get(n.id) ?? 0, 10) * 0.0002;
    if (n.isPublicApi) score += 0.0005;
    const base = score;
    if (exact.has(n.id)) score += EXACT_NAME_BONUS;
    out.push({ node: n, score, base, ranks: { ...hit.ranks }, hub: false });
  }
  return out;
}

/**
 * Hub elevation: a symbol connected (one hop of calls/references/implements/inherits) to at
 * least HUB_MIN_LINKS (four) of the top results is added even if no channel returned it; its score is half the
 * summed base scores of the results it connects, capped under the weakest of them.
 */
function elevateHubs(reader: IndexReader, scored: Scored[], filter: NodeFilter): void {
  const sorted = [...scored].sort((a, b) => b.score - a.score).slice(0, HUB_SEEDS);
  const byId = new Map(scored.map((s) => [s.node.id, s]));
  const links = new Map<number, Set<number>>();
  for (const { neighbour, seed } of reader.neighbours(sorted.map((s) => s.node.id), HUB_EDGE_TYPES)) {
    if (neighbour === seed || byId.has(neighbour)) continue;
    let set = links.get(neighbour);
    if (!set) links.set(neighbour, (set = new Set()));
    set.add(seed);
  }
  const hubs = [...links.entries()].filter(([, seeds]) => seeds.size >= HUB_MIN_LINKS);
  if (hubs.length === 0) return;
  const allowed = filter.languages || filter.kinds || filter.pathRegex ? reader.nodeIdsMatching(filter) : null;
  const nodes = new Map(reader.nodesByIds(hubs.map(([id]) => id)).map((n) => [n.id, n]));
  for (const [id, seeds] of hubs) {
    const n = nodes.get(id);
    if (!n || n.kind === 'file' || n.kind === 'module' || (allowed && !allowed.has(id))) continue;
    const seedScores = [...seeds].map((s) => byId.get(s)!.base);
    const score = Math.min(seedScores.reduce((a, b) => a + b, 0) * 0.5, Math.min(...seedScores) * 0.99);
    scored.push({ node: n, score, base: score, ranks: {}, hub: true });
  }
}

/** Cross-cutting queries: each further result from the same file is damped (0.85^k). */
function diversify(scored: Scored[]): void {
  const seen = new Map<string, number>();
  for (const s of scored) {
    const k = seen.get(s.node.path) ?? 0;
    s.score *= 0.85 ** k;
    seen.set(s.node.path, k + 1);
  }
  scored.sort((a, b) => b.score - a.score);
}

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
 * candidate tail would otherwise replace its strongly matching method (this cost 0.2–0.45
 * NDCG@10 on the fixture sets, docs/benchmarks.md). An exact-name hit always stands on its own.
 * Each result is kept only if it fits the remaining budget; the budget is never exceeded.
 */
function select(
  scored: readonly Scored[],
  limit: number,
  budget: number,
  named: ReadonlySet<number>,
): { results: SearchResult[]; tokens: number; overBudget: number } {
  const candidates = scored.slice(0, Math.max(limit * 3, 30));
  // A child merges only where the parent's code shows it collapsed (or in full): one that
  // cannot be located there keeps its own place in the ranking.
  const mergeable = (child: Scored, parent: Scored): boolean =>
    child.node.parentId === parent.node.id &&
    parent.node.kind !== 'file' &&
    parent.node.kind !== 'module' &&
    !named.has(child.node.id) &&
    expandChildren(parent.node.chunkText, [{ code: child.node.chunkText }]).merged[0] === true;
  const units: Unit[] = [];
  const unitOf = new Map<number, Unit>();
  const results: SearchResult[] = [];
  let tokens = 0;
  let overBudget = 0;
  let next = 0;
  while (results.length < limit && next < candidates.length) {
    // Grow the selection to `limit` units (merges do not use a slot).
    const start = units.length;
    while (units.length - start < limit - results.length && next < candidates.length) {
      const c = candidates[next++]!;
      if (unitOf.has(c.node.id)) continue;
      const parentUnit = c.node.parentId === null ? undefined : unitOf.get(c.node.parentId);
      if (parentUnit && parentUnit.head.node.id === c.node.parentId && mergeable(c, parentUnit.head) && units.indexOf(parentUnit) >= start) {
        parentUnit.kids.push(c);
        unitOf.set(c.node.id, parentUnit);
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
        unitOf.set(c.node.id, first);
        for (const k of kids) unitOf.set(k.node.id, first);
        continue;
      }
      const unit: Unit = { head: c, kids: [] };
      units.push(unit);
      unitOf.set(c.node.id, unit);
    }
    if (units.length === start) break;
    for (const unit of units.slice(start)) {
      if (results.length >= limit) break;
      const { emitted, left } = emitUnit(unit, budget - tokens);
      overBudget += left;
      for (const r of emitted) {
        tokens += estimateTokens(r.code);
        results.push(r);
      }
    }
  }
  return { results: results.slice(0, limit), tokens: results.slice(0, limit).reduce((t, r) => t + estimateTokens(r.code), 0), overBudget };
}

/**
 * The results of one selected unit within `room` tokens: the parent with its selected children
 * expanded; when that does not fit (or a child cannot be located in the parent's code), the
 * members on their own, best first, as far as they fit. `left` counts the members that did not.
 */
function emitUnit(unit: Unit, room: number): { emitted: SearchResult[]; left: number } {
  const result = (s: Scored, code: string, expanded: readonly Scored[]): SearchResult => {
    const matchedBy = new Set(Object.keys(s.ranks));
    if (s.hub) matchedBy.add('hub');
    let score = s.score;
    for (const k of expanded) {
      for (const c of Object.keys(k.ranks)) matchedBy.add(c);
      if (k.hub) matchedBy.add('hub');
      score = Math.max(score, k.score);
    }
    return {
      ...toSearchResult(s.node, score, [...matchedBy], s.ranks, code),
      ...(expanded.length > 0 ? { expandedChildren: expanded.map((k) => String(k.node.id)) } : {}),
    };
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
    code,
    ranks,
  };
}

/** Cross-cutting answers: results of one module (directory) stand together, best module first. */
function groupByModule(results: SearchResult[]): SearchResult[] {
  const order: string[] = [];
  const groups = new Map<string, SearchResult[]>();
  for (const r of results) {
    const m = moduleOf(r.path);
    if (!groups.has(m)) (order.push(m), groups.set(m, []));
    groups.get(m)!.push(r);
  }
  return order.flatMap((m) => groups.get(m)!);
}
