#!/usr/bin/env node
// Indexes a copy of a tree with a given build of @ca/engine and writes the working label's
// canonical dump (files, nodes, edges, re-exports; `Store.canonicalDump`) as sorted JSON, so that
// two builds can be compared byte for byte (a pure restructuring leaves the dump identical).
// The tree is copied first (the source is never written); embeddings are off and the semantic
// deadline is one hour (a pass cut by the deadline on a loaded machine would differ by timing).
//
//   node tools/dump-canonical.mjs <checkout> <tree> <out.json>
//   e.g. node tools/dump-canonical.mjs /work/main fixtures/ts-app /tmp/before.json
//        node tools/dump-canonical.mjs .          fixtures/ts-app /tmp/after.json && cmp /tmp/before.json /tmp/after.json
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [checkout, source, out] = process.argv.slice(2);
if (!checkout || !source || !out) {
  process.stderr.write('usage: node tools/dump-canonical.mjs <checkout> <tree> <out.json>\n');
  process.exit(2);
}
const { Engine } = await import(pathToFileURL(resolve(checkout, 'packages/engine/dist/index.js')).href);
const copy = join(mkdtempSync(join(tmpdir(), 'ca-dump-canonical-')), 'repo');
cpSync(resolve(source), copy, { recursive: true, filter: (p) => basename(p) !== '.codeagent' });
const engine = Engine.open(copy, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { request_timeout_ms: 3_600_000 } } });
try {
  const t0 = Date.now();
  const report = await engine.index();
  const dump = engine.store.canonicalDump('working', { fts: false });
  const sorted = (k, v) => (v instanceof Map ? [...v].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1)) : v instanceof Set ? [...v].sort() : v);
  const text = JSON.stringify(dump, sorted, 1).replaceAll(copy, '<repo>');
  writeFileSync(out, text);
  const ts = report.semantic?.ts;
  process.stdout.write(`${source}: ${Date.now() - t0} ms, ${text.length} bytes, semantic ${ts ? `${ts.projects} projects, ${ts.edges} edges, ${ts.failedProjects.length} failed` : 'none'}\n`);
} finally {
  engine.close();
  rmSync(dirname(copy), { recursive: true, force: true });
}
