#!/usr/bin/env node
// Retrieval parity of the team store (`ca search --store`) with the local index (decision 046):
// a repository indexed locally is published to a PostgreSQL team store, then every query of an
// eval set (eval/*.jsonl, eval/ranking/*.mined.jsonl) is asked of both with the same query
// vector. Prints NDCG@10 of each side (apps/eval's scoring, expanded children credited), the
// per-query gap, and for the first --compare queries the top 10s side by side where they differ
// (the rank of each differing result on both sides).
// Usage: node tools/bench/teamParity.mjs --repo PATH --set eval/FILE.jsonl --store URL [--store-repo NAME] [--publish] [--compare 50] [--channels name,bm25,vector]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { scoreRanking } from '../../apps/eval/dist/index.js';
import { Engine, searchTeamStore } from '../../packages/engine/dist/index.js';
import { nodesByRefs, publish, withSnapshot } from '../../packages/store-postgres/dist/index.js';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' }, set: { type: 'string' }, store: { type: 'string' }, 'store-repo': { type: 'string' },
    publish: { type: 'boolean', default: false }, compare: { type: 'string', default: '50' }, channels: { type: 'string' },
  },
});
if (!values.repo || !values.set || !values.store) {
  console.error('usage: node tools/bench/teamParity.mjs --repo PATH --set eval/FILE.jsonl --store URL [--store-repo NAME] [--publish] [--compare 50] [--channels name,bm25,vector]');
  process.exit(2);
}
const storeRepo = values['store-repo'] ?? `parity-${values.repo.split('/').filter(Boolean).pop()}`;
const channels = values.channels ? values.channels.split(',') : undefined;
const queries = readFileSync(values.set, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)).filter((q) => q.header === undefined);

const engine = Engine.open(values.repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { allow_download: false } } });
try {
  if (values.publish) await publish(values.store, storeRepo, engine.store.snapshotSource('working'));
  const reader = engine.store.reader('working');
  const model = engine.store.vectors.model();
  const key = model ? `${model.modelId}@${model.revision}` : null;
  const asRanked = (r, kids) => ({ qualifiedName: r.qualifiedName, name: r.name, path: r.path, contains: kids.map((k) => ({ qualifiedName: k.qualifiedName, name: k.name, path: k.path })) });
  const label = (r) => `${r.path}:${r.qualifiedName}${r.expandedChildren ? `[+${r.expandedChildren.length}]` : ''}`;
  let local = 0;
  let team = 0;
  let differing = 0;
  const gaps = [];
  const compare = Number(values.compare);
  for (const [i, q] of queries.entries()) {
    const options = { limit: 10, ...(channels ? { channels } : {}) };
    const embedded = key ? await engine.embedQuery(q.query) : null;
    const a = await engine.search(q.query, options);
    const b = await searchTeamStore(values.store, storeRepo, q.query, { ...options, queryVector: embedded && key ? { vector: embedded.vector, modelId: key } : null });
    const la = a.results.map((r) => asRanked(r, reader.nodesByIds((r.expandedChildren ?? []).map(Number))));
    const lb = await withSnapshot(values.store, storeRepo, 'working', async (client, snap) =>
      Promise.all(b.results.map(async (r) => asRanked(r, await nodesByRefs(client, snap, (r.expandedChildren ?? []).map(Number))))));
    const na = scoreRanking(la, q.relevant).ndcg10;
    const nb = scoreRanking(lb, q.relevant).ndcg10;
    local += na;
    team += nb;
    if (Math.abs(na - nb) > 1e-9) gaps.push(`${(nb - na).toFixed(4)} ${q.query.slice(0, 80)}`);
    const sa = a.results.map(label);
    const sb = b.results.map(label);
    if (sa.join('\n') === sb.join('\n')) continue;
    differing++;
    if (i >= compare) continue;
    console.log(`\n#${i + 1} ${q.query.slice(0, 100)}`);
    for (let r = 0; r < Math.max(sa.length, sb.length); r++) {
      if (sa[r] === sb[r]) continue;
      const inTeam = sa[r] === undefined ? -1 : sb.indexOf(sa[r]);
      console.log(`  ${String(r + 1).padStart(2)}  local ${sa[r] ?? '-'} (team rank ${inTeam < 0 ? '-' : inTeam + 1})  |  team ${sb[r] ?? '-'}`);
    }
  }
  const n = queries.length;
  console.log(`\n${values.set}: ${n} queries; NDCG@10 local ${(local / n).toFixed(4)}, team ${(team / n).toFixed(4)} (team − local ${((team - local) / n).toFixed(4)})`);
  console.log(`${differing} of ${n} top-10 lists differ; ${gaps.length} queries score differently:`);
  for (const g of gaps) console.log(`  ${g}`);
} finally {
  engine.dispose();
}
