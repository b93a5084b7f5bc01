#!/usr/bin/env node
// Dumps, for the TRAIN queries of query sets, each channel's candidates with scores and the
// judged grade of every candidate, for offline fusion experiments (tools/tune-search.mjs runs
// the real pipeline). Output: JSON on stdout.
import { Engine } from '../packages/engine/dist/index.js';
import { analyzeQuery, isTestPath } from '../packages/retrieve/dist/index.js';
import { readQuerySet, resolveRepoDir, defaultDbPath, matchesJudgement } from '../apps/eval/dist/index.js';

const K = 50;
const out = [];
for (const file of process.argv.slice(2)) {
  const set = readQuerySet(file);
  const repoDir = resolveRepoDir(set, {});
  const engine = Engine.open(repoDir, { dbPath: defaultDbPath(repoDir) });
  const reader = engine.reader();
  const queries = set.queries.filter((q) => q.split === 'train' && q.relevant.some((j) => j.grade > 0));
  for (const q of queries) {
    const a = analyzeQuery(q.query);
    const name = [];
    const exact = new Set();
    for (const ident of a.identifiers) for (const n of reader.byQualifiedName(ident, {}, K)) (exact.add(n.id), name.push(n.id));
    for (const ident of a.identifiers) for (const n of reader.bySuffix(ident, {}, K)) if (!name.includes(n.id)) name.push(n.id);
    const bm25 = reader.bm25(q.query, {}, K);
    const qv = await engine.queryEmbedder.embed(q.query.trim().slice(0, 2000));
    const vector = engine.vectors().knn(qv, K, {});
    const ids = [...new Set([...name.slice(0, K), ...bm25.map((h) => h.nodeId), ...vector.map((h) => h.nodeId)])];
    const nodes = reader.nodesByIds(ids);
    const callers = reader.callerFileCounts(ids);
    const meta = {};
    for (const n of nodes) {
      let grade = 0;
      const js = [];
      q.relevant.forEach((j, i) => {
        if (matchesJudgement(n, j.symbol)) (grade = Math.max(grade, j.grade), js.push(i));
      });
      meta[n.id] = { kind: n.kind, test: isTestPath(n.path), sem: n.semanticState, gen: n.generated, err: n.parseStatus === 'error', pub: n.isPublicApi, callers: callers.get(n.id) ?? 0, parent: n.parentId, grade, js, exact: exact.has(n.id) };
    }
    out.push({ set: file, id: q.id, query: q.query, archetype: q.archetype, intent: a.intent, aboutTests: a.aboutTests, judged: q.relevant.map((j) => j.grade), terms: q.query, name: name.slice(0, K), bm25: bm25.map((h) => [h.nodeId, h.score]), vector: vector.map((h) => [h.nodeId, h.score]), meta });
  }
  engine.close();
}
process.stdout.write(JSON.stringify(out));
