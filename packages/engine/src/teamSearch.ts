import { defaultConfig, type Config, type FilterNode, type Language, type NodeKind } from '@ca/schema';
import {
  analyzeQuery,
  finishRanking,
  fusionWeights,
  GRAPH_EDGE_TYPES,
  GRAPH_SEEDS,
  groupByModule,
  HUB_LINK_TYPES,
  hubCandidates,
  hubLinks,
  hubSeeds,
  MAX_RESULT_LOCATIONS,
  NEIGHBOURS_PER_SIDE,
  reciprocalRankFusion,
  rescoreHits,
  resultWithFacts,
  searchFilter,
  type Channel,
  type ChannelRanking,
  type SearchOptions,
  type SearchResponse,
  type SearchResult,
  type Scored,
  validateSearchOptions,
} from '@ca/retrieve';
import type { NodeRecord } from '@ca/store';
import type { PgClient, TeamNode, TeamSnapshot, TeamStorePool } from '@ca/store-postgres';
import { QueryEmbedder } from './embedding.js';
import { queryEmbeddingText } from './engine.js';

// Search over a label of the team store (decision 046): the channels run in PostgreSQL
// (@ca/store-postgres: names, BM25 over tsvectors holding the local index's FTS tokens, pgvector),
// fusion is @ca/retrieve's (`reciprocalRankFusion` with `fusionWeights`), and the result shape is
// `ca search`'s. Rescoring (with the caller-file boost), hub elevation and every stage after it
// (rerank, diversity, identical code once, the similarity floor, `--min-score`, selection, the
// per-file pass) are @ca/retrieve's own functions, the ones the local search runs, over reads of
// the snapshot (@ca/store-postgres rankReads.ts), and so is the graph channel ("callers of X":
// the named symbols' dependents). The result facts (caller count, callers, callees, the other
// locations of identical code) are the local `withFacts`'s over the snapshot's reads
// (@ca/store-postgres factReads.ts), added before the cross-cutting grouping as there.

/** Options of `searchTeamStore`: `SearchOptions` and the label (default: decision 050's rule, `chooseLabel`). */
export interface TeamSearchOptions extends SearchOptions {
  readonly label?: string;
  /** The query embedder's configuration (default: the default configuration's). */
  readonly embedding?: Config['embedding'];
  /** The query's vector, when the caller has it (a benchmark embeds once); `modelId` is the model key (`id@revision`) the store holds. */
  readonly queryVector?: { readonly vector: Float32Array; readonly modelId: string } | null;
}

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

/** Hub elevation on the team store: @ca/retrieve's seeds, links and candidates over the snapshot's edges; the nodes it reads join `read`. */
async function teamHubs(client: PgClient, snap: TeamSnapshot, scored: readonly Scored[], filter: FilterNode | null, read: Map<number, TeamNode>): Promise<Scored[]> {
  const { neighbourPairs, nodesByRefs, refsPassing } = await import('@ca/store-postgres');
  const seeds = hubSeeds(scored, 0);
  if (seeds.length === 0) return [];
  const links = hubLinks(scored, 0, await neighbourPairs(client, snap, seeds.map((s) => s.node.id), HUB_LINK_TYPES));
  if (links.size === 0) return [];
  const ids = [...links.keys()];
  const found = await nodesByRefs(client, snap, ids);
  for (const n of found) read.set(n.ref, n);
  const nodes = new Map(found.map((n) => [n.ref, asRecord(n)]));
  return hubCandidates(scored, 0, links, nodes, await refsPassing(client, snap, ids, filter));
}

/** The nodes of `refs`: those already read in this search from `read`, the others from the snapshot (and added to it). */
async function nodesOf(client: PgClient, snap: TeamSnapshot, refs: readonly number[], read: Map<number, TeamNode>): Promise<Map<number, TeamNode>> {
  const missing = refs.filter((r) => !read.has(r));
  if (missing.length > 0) {
    const { nodesByRefs } = await import('@ca/store-postgres');
    for (const n of await nodesByRefs(client, snap, missing)) read.set(n.ref, n);
  }
  const out = new Map<number, TeamNode>();
  for (const r of refs) {
    const n = read.get(r);
    if (n) out.set(r, n);
  }
  return out;
}

/** A team store search's answer: `ca search`'s, the snapshot it read, and each result's container. */
export interface TeamSearchResponse extends SearchResponse {
  /** The snapshot read (the label the rule chose). */
  readonly store: { readonly repository: string; readonly label: string; readonly snapshotId: number | null; readonly commit: string | null };
  /** By result id: the qualified name of its parent when that is a class or namespace (not a file or module), else null. */
  readonly containers: Readonly<Record<string, string | null>>;
}

/**
 * Hybrid search over `repository`'s label on the team store at `url`: the name, BM25 and
 * vector channels (each filtered in SQL with bound parameters), fused and rescored as `ca search`
 * does, read in one read-only snapshot transaction. Result ids are the team store's node refs.
 */
export async function searchTeamStore(source: string | TeamStorePool, repository: string, query: string, options: TeamSearchOptions = {}): Promise<TeamSearchResponse> {
  const started = performance.now();
  const { limit } = validateSearchOptions(options);
  const text = query.trim();
  const analyzed = analyzeQuery(text);
  const notices: string[] = [];
  let store: TeamSearchResponse['store'] = { repository, label: options.label ?? '', snapshotId: null, commit: null };
  const done = (results: SearchResult[], tokens = 0, containers: Record<string, string | null> = {}): TeamSearchResponse => ({
    query, intent: analyzed.intent, results, tookMs: Math.round((performance.now() - started) * 100) / 100, notices, tokens, store, containers,
  });
  if (text === '') {
    notices.push('empty query');
    return done([]);
  }
  const filter = searchFilter(options);
  const wanted = new Set<Channel>(options.channels ?? ['name', 'bm25', 'vector', 'graph']);
  const embedded = wanted.has('vector') ? await queryVector(text, options) : 'not asked for';
  if (typeof embedded === 'string' && wanted.has('vector')) notices.push(`vector channel off: ${embedded}`);
  const channelK = Math.max(limit, (options.channelK ?? 50) * (analyzed.intent === 'cross_cutting' ? 2 : 1));
  // Loaded here: the PostgreSQL driver costs nothing to a user who never names a store.
  const { bm25Search, callerFileCounts, dependentRefs, nameSearch, refsPassing, vectorSearch, withSnapshot } = await import('@ca/store-postgres');
  const label = options.label ?? null;
  type Body = Parameters<typeof withSnapshot<TeamSearchResponse>>[3];
  const inSnapshot = (body: Body) => (typeof source === 'string' ? withSnapshot(source, repository, label, body) : source.withSnapshot(repository, label, body));
  return inSnapshot(async (client, snap, beside) => {
    store = { repository, label: snap.label, snapshotId: snap.snapshotId, commit: snap.commit };
    const rankings: ChannelRanking[] = [];
    let exact = new Set<number>();
    let named = new Set<number>();
    // BM25, the slowest channel, runs beside the others (on a second pooled connection in the same
    // snapshot when one is idle, decision 053); its ranking still comes second, as locally.
    const bm25Run = wanted.has('bm25') ? beside((c) => bm25Search(c, snap, text, filter, channelK)) : null;
    // Awaited below; a failure of the others first must not leave its rejection unhandled.
    bm25Run?.catch(() => undefined);
    if (wanted.has('name') || wanted.has('graph')) {
      const names = await nameSearch(client, snap, analyzed.identifiers, filter, channelK);
      exact = names.exact;
      named = names.named;
      if (wanted.has('name')) rankings.push({ channel: 'name', ids: names.refs.slice(0, channelK) });
    }
    const bm25 = new Map<number, number>();
    const cosine = new Map<number, number>();
    const graph = wanted.has('graph') && analyzed.asksDependents && named.size > 0 ? await dependentRefs(client, snap, [...named].slice(0, GRAPH_SEEDS), GRAPH_EDGE_TYPES, channelK * 2) : null;
    const vector = typeof embedded !== 'string' ? { modelId: embedded.modelId, ...(await vectorSearch(client, snap, embedded.modelId, embedded.vector, filter, channelK)) } : null;
    if (bm25Run) {
      const hits = await bm25Run;
      for (const h of hits) bm25.set(h.ref, h.score);
      rankings.push({ channel: 'bm25', ids: hits.map((h) => h.ref) });
    }
    if (graph) {
      // "callers of X", "what breaks if X changes": X's dependents, most-connected first (the local channel).
      const deps = graph.map((d) => d.ref);
      const allow = await refsPassing(client, snap, deps, filter);
      rankings.push({ channel: 'graph', ids: (allow ? deps.filter((r) => allow.has(r)) : deps).slice(0, channelK) });
    }
    if (vector) {
      if (vector.scope === 0) notices.push(`vector channel off: the team store holds no vectors of ${vector.modelId} for this label`);
      else {
        for (const h of vector.hits) cosine.set(h.ref, h.score);
        rankings.push({ channel: 'vector', ids: vector.hits.map((h) => h.ref) });
      }
    }
    const fused = reciprocalRankFusion(rankings, options.rrfK ?? 60, fusionWeights(analyzed.intent, text, rankings.length, options.channelWeights));
    const refs = fused.map((h) => h.nodeId);
    // Every node this search reads, by ref: the results and their parents are mostly among them.
    // The candidates' caller-file counts are read beside their nodes.
    const callersRun = beside((c) => callerFileCounts(c, snap, refs));
    callersRun.catch(() => undefined);
    const read = await nodesOf(client, snap, refs, new Map());
    const nodes = new Map([...read.values()].map((n) => [n.ref, asRecord(n)]));
    // One index, ids of its own: every candidate is source 0 (a key is the node's ref).
    const scored = rescoreHits(fused, nodes, await callersRun, exact, options, analyzed.aboutTests, () => 0);
    if (options.hub !== false && scored.length > 0) scored.push(...(await teamHubs(client, snap, scored, filter, read)));
    // Without the lexical channels asked for (an ablation), there is no "no lexical match" to tell.
    const lexical = !(wanted.has('name') || wanted.has('bm25')) || rankings.some((r) => r.channel !== 'vector' && r.ids.length > 0);
    const ranked = finishRanking(scored, { text, analyzed, exact, named, bm25, cosine, lexical, options, notices, repoNames: null });
    const own = await nodesOf(client, snap, ranked.results.map((r) => Number(r.id)), read);
    const faceted = options.facts !== false ? await withTeamFacts(client, snap, ranked.results, own) : ranked.results;
    const results = analyzed.intent === 'cross_cutting' ? groupByModule(faceted) : faceted;
    const response = done(results, ranked.tokens, await containersOf(client, snap, results, own, read));
    return ranked.candidates ? { ...response, candidates: ranked.candidates } : response;
  });
}

/**
 * The results with their facts, as the local `withFacts` adds them: caller count and neighbour
 * names of each result's own node, and every location of its chunk hash (the head node's, `own`
 * by ref) in the snapshot. Two reads for all results (facts, locations).
 */
async function withTeamFacts(client: PgClient, snap: TeamSnapshot, results: readonly SearchResult[], own: ReadonlyMap<number, TeamNode>): Promise<SearchResult[]> {
  const { teamLocationsByChunkHash, teamNodeFacts } = await import('@ca/store-postgres');
  const facts = await teamNodeFacts(client, snap, results.map((r) => Number(r.id)), NEIGHBOURS_PER_SIDE);
  const hashOf = (r: SearchResult) => own.get(Number(r.id))?.chunkHash || undefined;
  const hashes = [...new Set(results.map(hashOf).filter((h): h is string => h !== undefined))];
  const places = await teamLocationsByChunkHash(client, snap, hashes, MAX_RESULT_LOCATIONS);
  return results.map((r) => {
    const hash = hashOf(r);
    const entry = hash === undefined ? undefined : places.get(hash);
    const locations = (entry?.locations ?? []).map((l) => ({ id: String(l.ref), qualifiedName: l.qualifiedName, path: l.path, startLine: l.startLine, endLine: l.endLine }));
    return resultWithFacts(r, facts.get(Number(r.id)), locations, entry?.total ?? 0);
  });
}

/** Each result's container (its parent's qualified name when a class or namespace), read in the search's snapshot; `own` the results' nodes by ref, `read` the nodes the search has read. */
async function containersOf(
  client: PgClient, snap: TeamSnapshot, results: readonly SearchResult[], own: ReadonlyMap<number, TeamNode>, read: Map<number, TeamNode>,
): Promise<Record<string, string | null>> {
  const parentOf = new Map(results.map((r) => [r.id, own.get(Number(r.id))?.parentRef ?? null] as const));
  const refs = [...new Set([...parentOf.values()].filter((p): p is number => p !== null))];
  const parents = await nodesOf(client, snap, refs, read);
  const out: Record<string, string | null> = {};
  for (const [id, p] of parentOf) {
    const parent = p === null ? undefined : parents.get(p);
    out[id] = parent && parent.kind !== 'file' && parent.kind !== 'module' ? parent.qualifiedName : null;
  }
  return out;
}
