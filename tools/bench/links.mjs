#!/usr/bin/env node
// Endpoint ↔ client link precision and recall on a real repository (issue 31, decision 038),
// against a list of client calls labelled by hand (tools/bench/links/<name>.tsv).
//
//   node tools/bench/links.mjs /work/repos/Kavita --labels tools/bench/links/Kavita.tsv \
//     [--db /tmp/kavita.db] [--label working] [--reindex]
//
// Without --db (or with --reindex) the repository is indexed first with this checkout's `ca index
// --db` (the caller's environment decides the passes: CA_SEMANTIC_ENABLED, CA_EMBEDDING_ENABLED);
// an existing --db is reused. The links are the label's client calls (`http_calls` edges as the TS
// extractor stored them) matched against its endpoint nodes, with the label's prefix facts, by @ca/engine's `computeHttpLinks` —
// the function the index's linking pass writes — so a linker change is measured on a reused
// index, while an extractor change needs --reindex.
//
// Label rows: path, line, method, url, expect, endpoints (` | `-separated), handler. `expect`:
// - `link`: the call requests one of the endpoints listed. True positive when an exact or probable
//   link reaches one of them; each exact/probable link to another endpoint is a false positive.
// - `none`: no endpoint of the repository serves it: every exact/probable link is a false positive.
// - `approx`: a segment computed at run time picks one of the endpoints listed: an exact link is a
//   false positive ("never a wrong exact"); probable and approximate ones are not counted.
// Recall is over the `link` rows. Approximate links are reported apart (right / wrong endpoint).
// A label row matches the client calls stored at its path and line (the call expression's first line).
// A link reaches a labelled endpoint when the endpoint node's method and template equal it
// (parameter names and constraints dropped, literals case-folded: `GET /api/Series/{seriesId:int}`
// = `GET /api/series/{}`) or when the node starts at the labelled route attribute (file:line): an
// endpoint whose prefix the index could not resolve (`POST /login`) is still the right node.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { CLI, importDist } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { labels: { type: 'string' }, db: { type: 'string' }, label: { type: 'string', default: 'working' }, reindex: { type: 'boolean', default: false } },
});
const repo = positionals[0];
if (!repo || !values.labels) {
  process.stderr.write('usage: links.mjs REPO --labels FILE.tsv [--db FILE] [--label NAME] [--reindex]\n');
  process.exit(2);
}
const db = resolve(values.db ?? join(tmpdir(), `ca-links-${repo.replace(/\W+/g, '_')}.db`));
if (values.reindex || !existsSync(db)) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [CLI, 'index', resolve(repo), '--db', db, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) {
    process.stderr.write(`ca index failed (${run.status})\n`);
    process.exit(1);
  }
  const report = JSON.parse(run.stdout);
  console.log(`indexed ${report.files} files in ${((performance.now() - started) / 1000).toFixed(1)} s; httpLinks ${JSON.stringify(report.httpLinks ?? null)}`);
}

const { Store } = await importDist('store');
const { computeHttpLinks } = await importDist('engine');

/** `GET /api/Series/{seriesId:int}` → `GET /api/series/{}`. */
const normalise = (name) => {
  const space = name.indexOf(' ');
  const template = name
    .slice(space + 1)
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^\{.*\}$/.test(s) ? '{}' : s.toLowerCase()))
    .join('/');
  return `${name.slice(0, space).toUpperCase()} /${template}`;
};

const rows = readFileSync(values.labels, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  .slice(1)
  .map((l) => {
    const [path, line, method, url, expect, endpoints, handlers] = l.split('\t');
    return { path, line: Number(line), method, url, expect, endpoints: endpoints === '-' ? [] : endpoints.split(' | ').map(normalise), at: handlers === '-' ? [] : handlers.split(' | ') };
  });

const store = Store.open(db);
const calls = store.httpLinks.clientCalls(values.label);
const endpoints = store.httpLinks.endpoints(values.label);
// The label's prefix facts resolve base URLs and route prefixes declared in another file (decision 038).
const links = computeHttpLinks(calls, endpoints, store.httpLinks.prefixFacts(values.label));
store.close();
const endpointName = new Map(endpoints.map((e) => [e.id, e.name]));
// The labelled handler column is the route attribute's file:line, where the endpoint node starts.
const endpointAt = new Map(endpoints.map((e) => [e.id, `${e.path}:${e.line}`]));
const linksOf = new Map();
for (const l of links) linksOf.set(l.edgeId, [...(linksOf.get(l.edgeId) ?? []), l]);
const callsAt = new Map();
for (const c of calls) callsAt.set(`${c.path}:${c.line}`, [...(callsAt.get(`${c.path}:${c.line}`) ?? []), c]);

const indexed = new Set(endpoints.map((e) => normalise(e.name)));
const count = { callPrefixUnknown: 0, endpointMissing: 0, link: 0, tp: 0, fp: 0, fn: 0, missing: 0, approxRight: 0, approxWrong: 0 };
const report = [];
for (const row of rows) {
  const at = callsAt.get(`${row.path}:${row.line}`) ?? [];
  const where = `${row.path}:${row.line} ${row.method} ${row.url}`;
  if (at.length === 0) {
    if (row.expect === 'link') {
      count.link++;
      count.fn++;
      count.missing++;
      report.push(`FN  ${where}: no client call stored at this line (expected ${row.endpoints.join(' | ')})`);
    }
    continue;
  }
  const found = at.flatMap((c) => (linksOf.get(c.edgeId) ?? []).map((l) => ({ ...l, request: c.targetName, name: endpointName.get(l.endpointId) })));
  const sure = found.filter((l) => l.confidence !== 'approximate');
  const approx = found.filter((l) => l.confidence === 'approximate');
  const right = (l) => row.endpoints.includes(normalise(l.name)) || row.at.includes(endpointAt.get(l.endpointId));
  const request = [...new Set(at.map((c) => c.targetName))].join(', ');
  if (row.expect === 'link') {
    count.link++;
    if (sure.some(right)) count.tp++;
    else {
      count.fn++;
      // Why: the call's base URL unknown to the extractor, the labelled endpoint absent from the index under its name.
      if (at.some((c) => c.targetName.includes('~'))) count.callPrefixUnknown++;
      if (!row.endpoints.some((e) => indexed.has(e))) count.endpointMissing++;
      const seen = found.length === 0 ? 'no link' : found.map((l) => `${l.confidence} ${l.name}`).join(', ');
      report.push(`FN  ${where}: stored ${request}; ${seen} (expected ${row.endpoints.join(' | ')})`);
    }
    if (!sure.some(right)) {
      if (approx.some(right)) count.approxRight++;
      else if (approx.length > 0) count.approxWrong++;
    }
  }
  const wrong = sure.filter((l) => (row.expect === 'link' ? !right(l) : row.expect === 'none' ? true : l.confidence === 'exact'));
  for (const l of wrong) {
    count.fp++;
    report.push(`FP  ${where}: stored ${request}; ${l.confidence} ${l.name} (label: ${row.expect} ${row.endpoints.join(' | ') || '-'})`);
  }
}
for (const line of report) console.log(line);
const truePositives = count.tp;
const precision = truePositives + count.fp === 0 ? NaN : truePositives / (truePositives + count.fp);
const recall = count.link === 0 ? NaN : truePositives / count.link;
console.log(
  `\n${rows.length} labelled calls (${count.link} with an endpoint); index: ${calls.length} client calls, ${endpoints.length} endpoints, ` +
    `${new Set(links.map((l) => l.edgeId)).size} calls linked (${links.filter((l) => l.confidence === 'exact').length} exact, ` +
    `${links.filter((l) => l.confidence === 'probable').length} probable, ${links.filter((l) => l.confidence === 'approximate').length} approximate links)`,
);
console.log(`exact+probable: TP ${truePositives}, FP ${count.fp}, FN ${count.fn} (${count.missing} calls not extracted) → precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`);
console.log(`false negatives: ${count.callPrefixUnknown} with the call's base URL unknown (\`~\`), ${count.endpointMissing} whose endpoint is not indexed under its full template (a prefix not resolved)`);
console.log(`approximate only: ${count.approxRight} labelled calls reach the right endpoint, ${count.approxWrong} only a wrong one`);
