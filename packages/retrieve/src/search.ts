import picomatch from 'picomatch';
import { CaError, CALLABLE_KINDS, TYPE_KINDS, type Language, type NodeKind } from '@ca/schema';
import type { IndexReader, NodeFilter, NodeRecord } from '@ca/store';
import { reciprocalRankFusion, type ChannelRanking } from './fusion.js';
import { analyzeQuery, type Intent } from './queryAnalysis.js';
import { isTestPath } from './testCode.js';

export type Channel = 'bm25' | 'name' | 'vector';

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
  /** Candidates per channel before fusion (default 50). */
  readonly channelK?: number;
  /** Structural enrichment (hub elevation); default true. Off for ablations. */
  readonly hub?: boolean;
  /** Definition boost; default true. Off for ablations. */
  readonly definitionBoost?: boolean;
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
  /** Per-channel 1-based ranks (always computed; printed with --explain). */
  readonly ranks: Readonly<Record<string, number>>;
}

export interface SearchResponse {
  readonly query: string;
  readonly intent: Intent;
  readonly results: readonly SearchResult[];
  readonly tookMs: number;
  /** Human-readable notes about degraded channels ("vector channel off: …"). */
  readonly notices: readonly string[];
}

/** Multiplier applied to test code when the query is not about tests. */
const TEST_PENALTY = 0.5;
const GENERATED_PENALTY = 0.3;
/** Extra score for an exact qualified-name hit: always above any fused score. */
const EXACT_NAME_BONUS = 1;

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

/** Validates user-facing numeric options; bad values are usage errors, not SQL errors. */
function checkLimit(limit: number | undefined): number {
  const value = limit ?? 10;
  if (!Number.isInteger(value) || value < 1 || value > 1000) {
    throw new CaError('invalid_query', `--limit must be an integer from 1 to 1000 (got ${String(limit)})`);
  }
  return value;
}

/**
 * Hybrid search over one label: qualified-name and BM25 channels (the vector channel joins
 * when an embedder is configured), fused with RRF, then exact-name-first, definition boost and
 * penalties (generated, test code). Filters apply inside each channel, before fusion.
 */
export function search(reader: IndexReader, query: string, options: SearchOptions = {}): SearchResponse {
  const started = performance.now();
  const limit = checkLimit(options.limit);
  const text = query.trim();
  const analyzed = analyzeQuery(text);
  if (text === '') {
    return { query, intent: analyzed.intent, results: [], tookMs: 0, notices: ['empty query'] };
  }
  const filter = toFilter(options);
  const channels = new Set<Channel>(options.channels ?? ['name', 'bm25']);
  const channelK = (options.channelK ?? 50) * (analyzed.intent === 'cross_cutting' ? 2 : 1);
  const rankings: ChannelRanking[] = [];
  const exact = new Set<number>();

  if (channels.has('name')) {
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
    for (const ident of analyzed.identifiers) push(reader.bySuffix(ident, filter, channelK));
    rankings.push({ channel: 'name', ids: ids.slice(0, channelK) });
  }
  if (channels.has('bm25')) {
    rankings.push({ channel: 'bm25', ids: reader.bm25(text, filter, channelK).map((h) => h.nodeId) });
  }

  const fused = reciprocalRankFusion(rankings, options.rrfK ?? 60);
  const nodes = new Map(reader.nodesByIds(fused.map((h) => h.nodeId)).map((n) => [n.id, n]));
  const includeTests = options.includeTests === true || analyzed.aboutTests;
  const scored = fused
    .map((hit) => {
      const n = nodes.get(hit.nodeId);
      if (!n || n.parseStatus === 'error') return null;
      let score = hit.score;
      // Definition boost: symbols that define something beat file/module and variable hits.
      if (options.definitionBoost !== false) {
        if (TYPE_KINDS.has(n.kind) || CALLABLE_KINDS.has(n.kind)) score *= 1.1;
        if (n.kind === 'file' || n.kind === 'module') score *= 0.8;
      }
      if (n.generated) score *= GENERATED_PENALTY;
      if (!includeTests && isTestPath(n.path)) score *= TEST_PENALTY;
      if (exact.has(n.id)) score += EXACT_NAME_BONUS;
      return { hit, node: n, score };
    })
    .filter((x): x is NonNullable<typeof x> => x !== null)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);

  const results: SearchResult[] = scored.map(({ hit, node, score }) => ({
    id: String(node.id),
    qualifiedName: node.qualifiedName,
    name: node.name,
    kind: node.kind,
    language: node.language,
    path: node.path,
    startLine: node.startLine,
    endLine: node.endLine,
    score: Math.round(score * 1e6) / 1e6,
    matchedBy: Object.keys(hit.ranks),
    code: node.chunkText,
    ranks: hit.ranks,
  }));
  return {
    query,
    intent: analyzed.intent,
    results,
    tookMs: Math.round((performance.now() - started) * 100) / 100,
    notices: [],
  };
}
