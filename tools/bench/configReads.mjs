#!/usr/bin/env node
// Configuration reads on a real repository (decision 048): every .cs file (bin/ obj/ left out)
// parsed by this checkout's C# adapter, every appsettings*.json by the documentation adapter, the
// reads linked by the engine's pure linker (`computeConfigLinks`, the same code `ca index` runs).
// Prints the reads found by kind, how many linked (exact / probable), the unresolved ones with
// their reason, and with --list every read and its links (for checking a sample by hand).
//
//   node tools/bench/configReads.mjs --repo /work/repos/eShop [--list]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { values } = parseArgs({ options: { repo: { type: 'string' }, list: { type: 'boolean', default: false } } });
if (!values.repo) throw new Error('--repo is required');
const here = fileURLToPath(new URL('.', import.meta.url));
const load = (pkg) => import(pathToFileURL(join(here, `../../packages/${pkg}/dist/index.js`)).href);
const [cs, doc, engine, schema] = await Promise.all([load('parse-cs'), load('parse-doc'), load('engine'), load('schema')]);

function* walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'bin' || e.name === 'obj' || e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

const adapter = await cs.createCsAdapter();
const reads = [];
const keys = [];
let nodeId = 0;
let edgeId = 0;
for (const abs of walk(values.repo)) {
  const path = relative(values.repo, abs).split('\\').join('/');
  if (path.endsWith('.cs')) {
    const index = await adapter.parse({ path, text: readFileSync(abs, 'utf8') });
    const byId = new Map(index.nodes.map((n) => [n.localId, n.qualifiedName]));
    for (const e of index.edges) {
      if (e.type !== 'reads_config') continue;
      reads.push({ edgeId: ++edgeId, sourceId: 0, source: byId.get(e.sourceLocalId), path, line: e.line, targetKey: e.target.key, targetName: e.target.name });
    }
  } else if (doc.isAppSettings(path)) {
    const index = doc.parseDocFile({ path, text: readFileSync(abs, 'utf8') });
    for (const n of index.nodes) if (n.kind === 'config') keys.push({ id: ++nodeId, qualifiedName: n.qualifiedName, path, line: n.span.startLine });
  }
}
await adapter.dispose?.();

const { links, unresolved } = engine.computeConfigLinks(reads, keys);
const keyById = new Map(keys.map((k) => [k.id, k]));
const byKind = {};
for (const r of reads) {
  const kind = schema.parseConfigReadKey(r.targetKey)?.kind ?? '?';
  byKind[kind] = (byKind[kind] ?? 0) + 1;
}
const best = new Map();
for (const l of links) if (best.get(l.edgeId) !== 'exact') best.set(l.edgeId, l.confidence);
const linkedExact = [...best.values()].filter((c) => c === 'exact').length;
console.log(JSON.stringify({
  repo: values.repo,
  appsettingsKeys: keys.length,
  appsettingsFiles: new Set(keys.map((k) => k.path)).size,
  reads: reads.length,
  byKind,
  linked: best.size,
  linkedExact,
  linkedProbable: best.size - linkedExact,
  links: links.length,
  computed: unresolved.filter((u) => u.reason === 'computed').length,
  missing: unresolved.filter((u) => u.reason === 'missing').length,
}, null, 2));
if (values.list) {
  for (const r of reads) {
    const ls = links.filter((l) => l.edgeId === r.edgeId).map((l) => `${keyById.get(l.keyId).path}#${keyById.get(l.keyId).qualifiedName} ${l.confidence}`);
    console.log(`${r.path}:${r.line} ${r.source} ${r.targetKey} -> ${ls.length > 0 ? ls.join(', ') : '(unresolved)'}`);
  }
}
