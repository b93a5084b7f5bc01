import { CALLABLE_KINDS, CaError, defaultConfig, TYPE_KINDS, type Config, type Language, type NodeKind } from '@ca/schema';
import {
  analyzeQuery,
  fusionWeights,
  isTestPath,
  reciprocalRankFusion,
  searchFilter,
  selectResults,
  type Channel,
  type ChannelRanking,
  type SearchOptions,
  type SearchResponse,
  type SearchResult,
  type Scored,
} from '@ca/retrieve';
import type { NodeRecord } from '@ca/store';
import type { TeamNode } from '@ca/store-postgres';
import { QueryEmbedder } from './embedding.js';
import { queryEmbeddingText } from './engine.js';

// Search over a label of the team store (decision 046): the channels run in PostgreSQL
// (@ca/store-postgres: names, BM25 over tsvectors holding the local index's FTS tokens, pgvector),
// fusion is @ca/retrieve's (`reciprocalRankFusion` with `fusionWeights`), and the result shape is
// `ca search`'s. The local pipeline's graph steps (graph channel, hub elevation, caller-file
// boosts, result facts) need the team store's navigation reads and are not applied here yet.

/** Options of `searchTeamStore`: `SearchOptions` and the label (default `working`). */
export interface TeamSearchOptions extends SearchOptions {
  readonly label?: string;
  /** The query embedder's configuration (default: the default configuration's). */
  readonly embedding?: Config['embedding'];
  /** The query's vector, when the caller has it (a benchmark embeds once); `modelId` is the model key (`id@revision`) the store holds. */
  readonly queryVector?: { readonly vector: Float32Array; readonly modelId: string } | null;
}

// The same factors as @ca/retrieve's rescoring of fused hits.
const TEST_PENALTY = 0.5;
const GENERATED_PENALTY = 0.3;
const SYNTACTIC_ONLY_PENALTY = 0.8;
const EXACT_NAME_BONUS = 1;

/** The query's vector and model, or the reason the vector channel is off. */
async function queryVector(query: string, options: TeamSearchOptions): Promise<{ vector: Float32Array; modelId: string } | string> {
  if (options.queryVector) return options.queryVector;
  if (options.queryVector === null) return 'no query vector';
  const embedder = new QueryEmbedder(options.embedding ?? defaultConfig().embedding);
  try {
    const reason = await embedder.unavailableReason();
    if (reason) return reason;
    // The team store keys vectors by model and revision, as the local index does.
    const modelId = await embedder.modelKey();
    if (!modelId) return 'no embedding model';
    return { vector: await embedder.embed(queryEmbeddingText(query)), modelId };
  } finally {
    await embedder.dispose();
  }
}

/** A team store node as the selection reads a node (fields it does not read are neutral). */
function asRecord(n: TeamNode): NodeRecord {
  return {
    id: n.ref, fileId: 0, parentId: n.parentRef, kind: n.kind as NodeKind, language: n.language as Language, name: n.name, qualifiedName: n.qualifiedName,
    symbolKey: n.symbolKey, project: n.project, path: n.path, startLine: n.startLine, endLine: n.endLine, startByte: n.startByte, endByte: n.endByte,
    signature: n.signature, parameterCount: null, returnType: null, modifiers: [], isPublicApi: n.isPublicApi, doc: n.doc, generated: n.generated,
    chunkText: n.code, chunkHash: n.chunkHash, parseStatus: n.parseStatus as NodeRecord['parseStatus'], semanticState: n.semanticState, referenceCount: null,
  };
}

/** Fused hits rescored as @ca/retrieve rescores them (definition boost, penalties, public API, exact names first), best first, identical code once. */
function rescore(
  fused: readonly { nodeId: number; score: number; ranks: Readonly<Record<string, number>> }[],
  nodes: ReadonlyMap<number, TeamNode>, exact: ReadonlySet<number>, options: SearchOptions, aboutTests: boolean,
): Scored[] {
  const includeTests = options.includeTests === true || aboutTests;
  const out: Scored[] = [];
  for (const hit of fused) {
    const n = nodes.get(hit.nodeId);
    if (!n || n.parseStatus === 'error') continue;
    let score = hit.score;
    if (options.definitionBoost !== false) {
      if (TYPE_KINDS.has(n.kind as NodeKind) || CALLABLE_KINDS.has(n.kind as NodeKind)) score *= 1.1;
      if (n.kind === 'file' || n.kind === 'module') score *= 0.8;
    }
    if (n.generated) score *= GENERATED_PENALTY;
    if (n.semanticState !== 'ok') score *= SYNTACTIC_ONLY_PENALTY;
    if (!includeTests && isTestPath(n.path)) score *= TEST_PENALTY;
    if (n.isPublicApi) score += 0.0005;
    const base = score;
    if (exact.has(hit.nodeId)) score += EXACT_NAME_BONUS;
    // No caller counts on the team store yet (the caller-file boost is not applied there, decision 046).
    out.push({ key: n.ref, source: 0, node: asRecord(n), score, base, ranks: { ...hit.ranks }, hub: false, fused: hit.score, callerFiles: 0 });
  }
  out.sort((a, b) => b.score - a.score);
  // Identical code is one candidate (the best-scored), as in the local pipeline.
  const seen = new Set<string>();
  return out.filter((s) => {
    const key = `${s.node.kind}\0${s.node.chunkHash}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Hybrid search over `repository`'s label on the team store at `url`: the name, BM25 and
 * vector channels (each filtered in SQL with bound parameters), fused and rescored as `ca search`
 * does, read in one read-only snapshot transaction. Result ids are the team store's node refs.
 */
export async function searchTeamStore(url: string, repository: string, query: string, options: TeamSearchOptions = {}): Promise<SearchResponse> {
  const started = performance.now();
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CaError('invalid_query', `--limit must be an integer from 1 to 1000 (got ${String(options.limit)})`);
  const text = query.trim();
  const analyzed = analyzeQuery(text);
  const notices: string[] = [];
  const done = (results: SearchResult[], tokens = 0): SearchResponse => ({
    query, intent: analyzed.intent, results, tookMs: Math.round((performance.now() - started) * 100) / 100, notices, tokens,
  });
  if (text === '') {
    notices.push('empty query');
    return done([]);
  }
  // Said, never silently dropped: options whose steps the team store does not run yet.
  if ((options.minScore ?? 0) > 0 || options.minSimilarity !== undefined) notices.push('--min-score and --min-similarity are not applied on the team store yet');
  const filter = searchFilter(options);
  const wanted = new Set<Channel>(options.channels ?? ['name', 'bm25', 'vector']);
  const embedded = wanted.has('vector') ? await queryVector(text, options) : 'not asked for';
  if (typeof embedded === 'string' && wanted.has('vector')) notices.push(`vector channel off: ${embedded}`);
  const channelK = Math.max(limit, (options.channelK ?? 50) * (analyzed.intent === 'cross_cutting' ? 2 : 1));
  // Loaded here: the PostgreSQL driver costs nothing to a user who never names a store.
  const { bm25Search, nameSearch, nodesByRefs, vectorSearch, withSnapshot } = await import('@ca/store-postgres');
  return withSnapshot(url, repository, options.label ?? 'working', async (client, snap) => {
    const rankings: ChannelRanking[] = [];
    let exact = new Set<number>();
    let named = new Set<number>();
    if (wanted.has('name')) {
      const names = await nameSearch(client, snap, analyzed.identifiers, filter, channelK);
      exact = names.exact;
      named = names.named;
      rankings.push({ channel: 'name', ids: names.refs.slice(0, channelK) });
    }
    if (wanted.has('bm25')) rankings.push({ channel: 'bm25', ids: (await bm25Search(client, snap, text, filter, channelK)).map((h) => h.ref) });
    if (typeof embedded !== 'string') {
      const v = await vectorSearch(client, snap, embedded.modelId, embedded.vector, filter, channelK);
      if (v.scope === 0) notices.push(`vector channel off: the team store holds no vectors of ${embedded.modelId} for this label`);
      else rankings.push({ channel: 'vector', ids: v.hits.map((h) => h.ref) });
    }
    const fused = reciprocalRankFusion(rankings, options.rrfK ?? 60, fusionWeights(analyzed.intent, text, rankings.length, options.channelWeights));
    const nodes = new Map((await nodesByRefs(client, snap, fused.map((h) => h.nodeId))).map((n) => [n.ref, n]));
    const scored = rescore(fused, nodes, exact, options, analyzed.aboutTests);
    // The local selection: children merged into their parents, the token budget.
    const selected = selectResults(scored, limit, options.budget ?? 16384, named, null);
    return done(selected.results, selected.tokens);
  });
}
