#!/usr/bin/env node
// Hybrid search on the team store (PostgreSQL, `ca search --store`) against the local index
// (SQLite) in the same run, on a repository indexed locally and published (decision 046).
// Each query is embedded once and both sides get the same vector, so the figures are the
// search alone: the local side is `Engine.searchContext` + @ca/retrieve's `search` (the engine's
// answer cache bypassed), the team side `searchTeamStore` (a connection per search, as a
// stateless server without a pool would open; its read-only snapshot transaction included).
// Usage: node tools/bench/teamSearch.mjs --repo PATH --store URL --store-repo NAME [--runs 5]
import { parseArgs } from 'node:util';
import { Engine, searchTeamStore } from '../../packages/engine/dist/index.js';
import { search } from '../../packages/retrieve/dist/index.js';

const { values } = parseArgs({ options: { repo: { type: 'string' }, store: { type: 'string' }, 'store-repo': { type: 'string' }, runs: { type: 'string', default: '5' } } });
if (!values.repo || !values.store || !values['store-repo']) {
  console.error('usage: node tools/bench/teamSearch.mjs --repo PATH --store URL --store-repo NAME [--runs 5]');
  process.exit(2);
}

// zod-oriented queries: identifiers as typed, and questions in words.
const QUERIES = [
  'safeParse', 'ZodObject', 'superRefine', 'ZodError', 'parseAsync', 'discriminatedUnion', 'coerce', 'ZodType.transform', 'flattenError', 'toJSONSchema',
  'validate an email address', 'merge two object schemas', 'parse a string into a number', 'custom error messages for a schema',
  'optional fields with default values', 'recursive schema for a tree', 'convert a schema to JSON schema', 'check that a string matches a regex',
  'infer the TypeScript type of a schema', 'handle async refinements',
];

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

const engine = Engine.open(values.repo, {});
try {
  const model = engine.store.vectors.model();
  if (!model) throw new Error('the local index has no vectors: index it with embeddings on');
  const key = `${model.modelId}@${model.revision}`;
  const vectors = new Map();
  for (const q of QUERIES) vectors.set(q, await engine.embedQuery(q));
  const options = { limit: 10 };
  const local = [];
  const team = [];
  let same = 0;
  for (let run = 0; run < Number(values.runs); run++) {
    for (const q of QUERIES) {
      const embedded = vectors.get(q);
      let t = performance.now();
      const { ctx } = await engine.searchContext(q, options, embedded);
      const a = search(ctx, q, engine.searchOptions(options));
      local.push(performance.now() - t);
      t = performance.now();
      const b = await searchTeamStore(values.store, values['store-repo'], q, { ...options, queryVector: embedded ? { vector: embedded.vector, modelId: key } : null });
      team.push(performance.now() - t);
      if (run === 0 && a.results[0]?.qualifiedName === b.results[0]?.qualifiedName) same++;
    }
  }
  const f = (xs) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms`;
  console.log(`${QUERIES.length} queries × ${values.runs} runs, top-10 hybrid (name, BM25, vector)`);
  console.log(`local (SQLite):       ${f(local)}`);
  console.log(`team (PostgreSQL):    ${f(team)}`);
  console.log(`same top-1: ${same} of ${QUERIES.length}`);
} finally {
  await engine.dispose();
}
