/**
 * Context-efficiency metrics (issue 33): how much of what a configuration returns an agent
 * could do without. Pure functions over per-query figures; the runner collects those.
 */
import { percentile } from './metrics.js';

/** Old-side changed lines of one file: inclusive ranges, sorted and disjoint. */
export interface ChangedLines {
  readonly path: string;
  readonly lines: readonly (readonly [number, number])[];
}

/** A result's location as the line recall sees it. */
export interface LocatedResult {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
}

/**
 * The share of changed lines that lie inside some result's line span (same path) among the
 * first `k` results; null when no line changed. Overlapping results count a line once.
 */
export function changedLineRecall(results: readonly LocatedResult[], changed: readonly ChangedLines[], k = 10): number | null {
  const top = results.slice(0, k);
  let total = 0;
  let covered = 0;
  for (const file of changed) {
    const spans = top.filter((r) => r.path === file.path);
    for (const [from, to] of file.lines) {
      for (let line = from; line <= to; line++) {
        total++;
        if (spans.some((r) => r.startLine <= line && line <= r.endLine)) covered++;
      }
    }
  }
  return total === 0 ? null : covered / total;
}

/** One scored query's figures under one configuration. */
export interface ContextRow {
  /** The query is about tests (`analyzeQuery(text).aboutTests`): left out of the test share. */
  readonly aboutTests: boolean;
  /** Results in the top 10, and how many of them are test code. */
  readonly top10: number;
  readonly testsInTop10: number;
  /** Tokens up to and including the first relevant result; null: no result was relevant. */
  readonly tokensToFirstRelevant: number | null;
  /** Line recall of the changed lines in the top 10; absent when the query records none or was not judged at its commit. */
  readonly changedLineRecall?: number | null;
}

/** A configuration's context-efficiency figures over its scored queries. */
export interface ContextMetrics {
  /** Test-code results / results in the top 10, summed over the queries not about tests (null: no result at all). */
  readonly testShareTop10: number | null;
  /** The queries not about tests the share counts. */
  readonly testShareQueries: number;
  /** Over the queries with a relevant result: the mean and median tokens read up to it. */
  readonly tokensToFirstRelevant: { readonly mean: number | null; readonly median: number | null; readonly queries: number };
  /** Queries without any relevant result (no token figure). */
  readonly withoutRelevant: number;
  /** Mean line recall@10 of changed lines over the queries that have one (null: none). */
  readonly changedLineRecall10: number | null;
  readonly changedLineQueries: number;
}

/** Aggregates per-query context rows (see `ContextMetrics`). */
export function contextMetrics(rows: readonly ContextRow[]): ContextMetrics {
  const product = rows.filter((r) => !r.aboutTests);
  const shown = product.reduce((s, r) => s + r.top10, 0);
  const tests = product.reduce((s, r) => s + r.testsInTop10, 0);
  const tokens = rows.map((r) => r.tokensToFirstRelevant).filter((t): t is number => t !== null);
  const recalls = rows.map((r) => r.changedLineRecall).filter((x): x is number => typeof x === 'number');
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    testShareTop10: shown === 0 ? null : tests / shown,
    testShareQueries: product.length,
    tokensToFirstRelevant: {
      mean: tokens.length === 0 ? null : round(tokens.reduce((a, b) => a + b, 0) / tokens.length),
      median: tokens.length === 0 ? null : round(percentile(tokens, 50)),
      queries: tokens.length,
    },
    withoutRelevant: rows.length - tokens.length,
    changedLineRecall10: recalls.length === 0 ? null : recalls.reduce((a, b) => a + b, 0) / recalls.length,
    changedLineQueries: recalls.length,
  };
}
