#!/usr/bin/env node
// One cold query: a new process imports the engine, opens the index and answers one hybrid
// query (model load, vector index load and query embedding included). Prints one JSON line as
// soon as the first result is in; `performance.now()` counts from this process's start.
// Usage: node tools/bench/coldStart.mjs DB_PATH REPO_DIR QUERY
const [dbPath, repo, query] = process.argv.slice(2);
const t0 = performance.now();
const { Engine } = await import(new URL('../../packages/engine/dist/index.js', import.meta.url).href);
const tImport = performance.now();
const engine = Engine.open(repo, { dbPath });
const tOpen = performance.now();
const res = await engine.search(query, { limit: 10 });
const tFirst = performance.now();
process.stdout.write(
  `${JSON.stringify({
    bootMs: t0,
    importMs: tImport - t0,
    openMs: tOpen - tImport,
    firstQueryMs: tFirst - tOpen,
    sinceProcessStartMs: tFirst,
    results: res.results.length,
    channels: [...new Set(res.results.flatMap((r) => r.matchedBy))],
    notices: res.notices,
  })}\n`,
);
await engine.dispose();
