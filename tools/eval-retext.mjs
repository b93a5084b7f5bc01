#!/usr/bin/env node
// Rewrites the text of mined queries from their commits with today's cleaning rules, without
// mining again: each query's `source` names its commit (`mine-git:<sha>`); its gold is kept.
// `leaky` is recomputed from the new text and the gold's names.
//
//   node tools/eval-retext.mjs --repo DIR SET.mined.jsonl
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cleanCommitMessage, formatQuerySet, isLeaky, parseQuerySet } from '../apps/eval/dist/index.js';

const { values, positionals } = parseArgs({ options: { repo: { type: 'string' } }, allowPositionals: true });
if (!values.repo || positionals.length !== 1) {
  console.error('usage: node tools/eval-retext.mjs --repo DIR SET.mined.jsonl');
  process.exit(2);
}
const file = positionals[0];
const set = parseQuerySet(readFileSync(file, 'utf8'), file);
let changed = 0;
const queries = set.queries.map((q) => {
  const sha = /^mine-git:([0-9a-f]{40})$/.exec(q.source ?? '')?.[1];
  if (!sha) return q;
  const [subject, body] = execFileSync('git', ['-C', values.repo, 'log', '-1', '--format=%s%x00%b', sha], { encoding: 'utf8' }).split('\0');
  const text = cleanCommitMessage(subject.trim(), (body ?? '').replace(/\n$/, ''));
  // The gold's own names, as the miner takes them (the last part of the qualified name).
  const names = q.relevant.map((r) => r.symbol.slice(r.symbol.indexOf('#') + 1).split('.').pop());
  if (text !== q.query) changed++;
  return { ...q, query: text, leaky: isLeaky(text, names) };
});
writeFileSync(file, formatQuerySet(set.header, queries));
console.log(`${file}: ${changed} of ${queries.length} query texts rewritten`);
