export { search, searchSources, searchFilter, searchesDocs, filterText, toSearchResult } from './search.js';
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
} from './search.js';
export { estimateTokens, expandChildren } from './budget.js';
export { analyzeQuery, isIdentifierLike } from './queryAnalysis.js';
export type { AnalyzedQuery, Intent } from './queryAnalysis.js';
export { reciprocalRankFusion } from './fusion.js';
export type { ChannelRanking, FusedHit } from './fusion.js';
export { isTestPath } from './testCode.js';
export { DEFAULT_MIN_SIMILARITY, MAX_RESULTS_PER_FILE, SEMANTIC_ONLY_NOTICE, underFloorNotice } from './relevance.js';
