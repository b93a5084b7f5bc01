export { search, searchSources, searchFilter, searchesDocs, filterText, toSearchResult, fusionWeights, select as selectResults, finishRanking, rescoreHits, groupByModule, validateSearchOptions, hubSeeds, hubLinks, hubCandidates, HUB_LINK_TYPES, GRAPH_EDGE_TYPES, GRAPH_SEEDS, MAX_RESULT_LOCATIONS, NEIGHBOURS_PER_SIDE, resultWithFacts } from './search.js';
export type {
  SearchOptions,
  SearchResult,
  SearchResponse,
  Channel,
  SearchContext,
  SearchSource,
  VectorChannel,
  AllowedIds,
  ResultLocation,
  RankCandidate,
  Scored,
  RankingInput,
} from './search.js';
export { estimateTokens, expandChildren } from './budget.js';
export { analyzeQuery, asksAboutTests, isIdentifierLike } from './queryAnalysis.js';
export type { AnalyzedQuery, Intent } from './queryAnalysis.js';
export { reciprocalRankFusion } from './fusion.js';
export type { ChannelRanking, FusedHit } from './fusion.js';
export { isTestPath } from './testCode.js';
export { DEFAULT_MIN_SIMILARITY, MAX_RESULTS_PER_FILE, SEMANTIC_ONLY_NOTICE, underFloorNotice } from './relevance.js';
export { FEATURE_NAMES, extractFeatures, featureQuery, stem, withinOneEdit } from './features.js';
export type { FeatureName, FeatureQuery, FeatureCandidate, FeatureContext } from './features.js';
export { RANKER_FORMAT, loadRanker, shippedRanker, rankerScore, contributions } from './ranker.js';
export type { RankerModel, LoadedRanker } from './ranker.js';
export { RERANK_N } from './rerank.js';
