export { runEvalCli, EVAL_USAGE } from './cli.js';
export { runEval, evaluateSet, resolveRepoDir, defaultDbPath, withContained, featureRow, tokensToFirst } from './runner.js';
export { walkCommits, orderCommits } from './commitWalk.js';
export type { CommitWalkOptions, CommitStep } from './commitWalk.js';
export type { RunOptions, EvalReport, SetReport, ConfigReport, QueryOutcome, LatencySummary, SplitChoice, FeatureRow } from './runner.js';
export { CONFIGURATIONS, selectConfigurations, channelsOff } from './configurations.js';
export type { Configuration, ChannelName } from './configurations.js';
export { parseQuerySet, readQuerySet, formatQuerySet, ARCHETYPES, SPLITS } from './querySet.js';
export type { QuerySet, QuerySetHeader, EvalQuery, Judgement, Archetype, Split } from './querySet.js';
export {
  matchesJudgement,
  judgeRanking,
  ndcgAtK,
  precisionAtK,
  recallAtK,
  reciprocalRank,
  successAtK,
  allRelevantInTopK,
  percentile,
  scoreRanking,
  aggregate,
} from './metrics.js';
export type { RankedSymbol, JudgedRanking, QueryMetrics, AggregateMetrics } from './metrics.js';
export { changedLineRecall, contextMetrics } from './context.js';
export type { ChangedLines, ContextMetrics, ContextRow, LocatedResult } from './context.js';
export { mineGit, changedLineRanges, cleanCommitMessage, dropReason, isLeaky, isTestFile, parseZeroContextDiff, touchedCallables, isGoldCallable, MINE_LIMITS } from './mineGit.js';
export type { MineOptions, MineResult, OldSideChange } from './mineGit.js';
export { checkGate, baselineFromReport, readBaseline, writeBaseline, DEFAULT_TOLERANCE } from './gate.js';
export type { Baseline, GateResult } from './gate.js';
export { renderHtmlReport, archetypeBarChart, latencyChart } from './html.js';
export { renderReportTable, renderSetTable } from './table.js';
