#!/usr/bin/env node
// Rename detection against git's (decision 023; docs/benchmarks.md, "Moves with an edit"):
//
//   node tools/bench/renames.mjs REPO [--max 3000] [--threshold 0.8] [--show 10]
//
// For every non-merge commit of REPO's history (newest first, at most --max) that deletes and
// adds source files (.ts/.tsx/.js/.jsx/.mjs/.cjs/.mts/.cts, .cs), compares the pairs git's
// rename detection reports (`git diff-tree -M`, git's default 50% similarity) with the pairs
// @ca/invalidation's matcher makes (winnowed fingerprints, Jaccard ≥ threshold, best pair first,
// same language) from the deleted files at the parent and the added files at the commit.
// Prints one JSON object: git's renames, the matcher's pairs, both, git only (with git's score
// and the Jaccard), matcher only (to inspect for false matches), and `ms`: the time spent
// fingerprinting and pairing (git's reads excluded). Reads git objects only; build
// first (`pnpm build`).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const { fingerprint, jaccard, pairBySimilarity, pathAffinity, SIMILARITY_THRESHOLD } = await import(resolve(ROOT, 'packages/invalidation/dist/index.js'));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { max: { type: 'string', default: '3000' }, threshold: { type: 'string' }, show: { type: 'string', default: '10' } },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/renames.mjs REPO [--max N] [--threshold J] [--show N]');
  process.exit(2);
}
const repo = resolve(positionals[0]);
const threshold = values.threshold === undefined ? SIMILARITY_THRESHOLD : Number(values.threshold);
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const languageOf = (path) => (/\.(c|m)?(t|j)sx?$/.test(path) ? 'ts' : /\.cs$/.test(path) ? 'cs' : null);

/** `status path [path]` records of `git diff-tree -z --name-status`. */
function statusRecords(out) {
  const fields = out.split('\0').filter((f) => f !== '');
  const records = [];
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++];
    const paths = status.startsWith('R') || status.startsWith('C') ? [fields[i++], fields[i++]] : [fields[i++]];
    records.push({ status, paths });
  }
  return records;
}

// Every commit's added and deleted paths from one `git log` (no renames: git's pairs come next).
const commits = [];
for (const line of git('log', '--no-merges', `--max-count=${values.max}`, '--no-renames', '--diff-filter=AD', '--name-status', '--format=@@%H %P', 'HEAD').split('\n')) {
  if (line.startsWith('@@')) {
    const [commit, parent] = line.slice(2).split(' ');
    commits.push({ commit, parent, deleted: [], added: [] });
    continue;
  }
  const m = /^([AD])\t(.+)$/.exec(line);
  if (m && languageOf(m[2]) && commits.length > 0) commits[commits.length - 1][m[1] === 'A' ? 'added' : 'deleted'].push(m[2]);
}
const totals = { commits: commits.length, commitsWithCandidates: 0, deleted: 0, added: 0, git: 0, matcher: 0, both: 0, gitOnly: 0, matcherOnly: 0, ms: 0 };
const gitOnly = [];
const matcherOnly = [];
const started = performance.now();
for (const { commit, parent, deleted: d, added: a } of commits) {
  if (parent === undefined || parent === '') continue;
  const deleted = d.sort();
  const added = a.sort();
  if (deleted.length === 0 || added.length === 0) continue;
  totals.commitsWithCandidates++;
  totals.deleted += deleted.length;
  totals.added += added.length;
  const gitPairs = new Map();
  for (const r of statusRecords(git('diff-tree', '-r', '-z', '-M', '--name-status', '--diff-filter=R', parent, commit))) {
    if (languageOf(r.paths[0]) && languageOf(r.paths[1])) gitPairs.set(`${r.paths[0]} -> ${r.paths[1]}`, r.status);
  }
  const read = (rev, path) => git('cat-file', 'blob', `${rev}:${path}`);
  const oldTexts = deleted.map((p) => read(parent, p));
  const newTexts = added.map((p) => read(commit, p));
  // Timed: fingerprints and pairing only (as the engine does them), not git's reads.
  const t0 = performance.now();
  const olds = oldTexts.map((t) => fingerprint(t));
  const news = newTexts.map((t) => fingerprint(t));
  const pairs = pairBySimilarity(olds, news, {
    threshold,
    compatible: (l, r) => languageOf(deleted[l]) === languageOf(added[r]),
    preference: (l, r) => pathAffinity(deleted[l], added[r]),
  });
  totals.ms += performance.now() - t0;
  const mine = new Map(pairs.map((p) => [`${deleted[p.left]} -> ${added[p.right]}`, p.similarity]));
  totals.git += gitPairs.size;
  totals.matcher += mine.size;
  for (const [pair, status] of gitPairs) {
    if (mine.has(pair)) totals.both++;
    else {
      totals.gitOnly++;
      const [from, to] = pair.split(' -> ');
      const j = jaccard(olds[deleted.indexOf(from)], news[added.indexOf(to)]);
      gitOnly.push({ commit: commit.slice(0, 10), pair, git: status, jaccard: Math.round(j * 100) / 100 });
    }
  }
  for (const [pair, similarity] of mine) {
    if (gitPairs.has(pair)) continue;
    totals.matcherOnly++;
    matcherOnly.push({ commit: commit.slice(0, 10), pair, jaccard: Math.round(similarity * 100) / 100 });
  }
}
totals.ms = Math.round(totals.ms);
const show = Number(values.show);
console.log(
  JSON.stringify(
    { repo, threshold, totals, wallMs: Math.round(performance.now() - started), gitOnly: gitOnly.slice(0, show), matcherOnly: matcherOnly.slice(0, show), gitOnlyJaccardAtLeast: { '0.6': gitOnly.filter((g) => g.jaccard >= 0.6).length, '0.4': gitOnly.filter((g) => g.jaccard >= 0.4).length } },
    null,
    2,
  ),
);
