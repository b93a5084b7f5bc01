#!/usr/bin/env node
// Compares two configurations of `ca eval run --json` reports (decision 043):
//   node tools/train-ranker-report.mjs [--a hybrid] [--b learned] REPORT.json...
// Per set and per language: symbol NDCG@10 of both, the no-identifier subset on its own, the test
// share of the top 10 on product queries (no relevant judgement in test code) and the mean and
// median tokens to the first relevant result (queries where both found one).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzeQuery } from '../packages/retrieve/dist/index.js';
import { isTestPath } from '../packages/schema/dist/index.js';

const { values, positionals } = parseArgs({ options: { a: { type: 'string', default: 'hybrid' }, b: { type: 'string', default: 'learned' } }, allowPositionals: true });
const A = values.a;
const B = values.b;
const mean = (xs) => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);
const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f3 = (x) => (Number.isNaN(x) ? '–' : x.toFixed(3));

/** The figures of a group of scored query outcomes. */
function figures(outcomes) {
  const scored = outcomes.filter((o) => o.configs[A]?.metrics && o.configs[B]?.metrics);
  const noIdent = scored.filter((o) => analyzeQuery(o.query).identifiers.length === 0);
  const product = scored.filter((o) => !o.relevant.some((j) => j.grade > 0 && isTestPath(j.symbol.split('#')[0])));
  const testShare = (c) => {
    const shown = product.reduce((s, o) => s + Math.min(10, o.configs[c].top.length), 0);
    const tests = product.reduce((s, o) => s + (o.configs[c].testsInTop10 ?? 0), 0);
    return shown === 0 ? NaN : tests / shown;
  };
  const both = scored.filter((o) => o.configs[A].tokensToFirstRelevant != null && o.configs[B].tokensToFirstRelevant != null);
  const tokens = (c) => both.map((o) => o.configs[c].tokensToFirstRelevant);
  return {
    n: scored.length,
    ndcg: [mean(scored.map((o) => o.configs[A].metrics.ndcg10)), mean(scored.map((o) => o.configs[B].metrics.ndcg10))],
    noIdent: { n: noIdent.length, ndcg: [mean(noIdent.map((o) => o.configs[A].metrics.ndcg10)), mean(noIdent.map((o) => o.configs[B].metrics.ndcg10))] },
    testShare: { n: product.length, share: [testShare(A), testShare(B)] },
    tokens: { n: both.length, mean: [mean(tokens(A)), mean(tokens(B))], median: [median(tokens(A)), median(tokens(B))] },
  };
}

function line(name, f) {
  return `| ${name} | ${f.n} | ${f3(f.ndcg[0])} | ${f3(f.ndcg[1])} | ${f.noIdent.n}: ${f3(f.noIdent.ndcg[0])} → ${f3(f.noIdent.ndcg[1])} | ${(f.testShare.share[0] * 100).toFixed(1)}% → ${(f.testShare.share[1] * 100).toFixed(1)}% | ${Math.round(f.tokens.mean[0])} → ${Math.round(f.tokens.mean[1])} (median ${Math.round(f.tokens.median[0])} → ${Math.round(f.tokens.median[1])}, n ${f.tokens.n}) |`;
}

const byLanguage = new Map();
process.stdout.write(`| set | queries | NDCG@10 ${A} | NDCG@10 ${B} | no identifier: n, ${A} → ${B} | tests in top 10 (product queries) | tokens to first relevant, mean |\n| --- | --- | --- | --- | --- | --- | --- |\n`);
for (const file of positionals) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const set of report.sets) {
    const language = languageOf(set);
    process.stdout.write(`${line(set.name, figures(set.queries))}\n`);
    byLanguage.set(language, [...(byLanguage.get(language) ?? []), ...set.queries]);
  }
}
for (const [language, outcomes] of byLanguage) process.stdout.write(`${line(`all ${language}`, figures(outcomes))}\n`);

/** A set's language from its query set header (read again: the report does not keep it). */
function languageOf(set) {
  try {
    const head = JSON.parse(readFileSync(set.file, 'utf8').split('\n')[0]);
    return head.header?.language ?? 'unknown';
  } catch {
    // A set file moved since the run: the language is unknown, the figures still stand.
    return 'unknown';
  }
}
