#!/usr/bin/env node
/**
 * Embeds real code texts once for vectorBench.mjs (dev tool: this script, not @ca/store, uses
 * @ca/embed's built dist — the store itself never imports @ca/embed).
 *
 *   node packages/store/bench/embedBase.mjs [--count 5000] [--queries 150] [--out /tmp/ca-vector-base.bin]
 *
 * Texts: declarations of TypeScript 6.0.3's lib/*.d.ts (the corpus of embedBench.mjs) and of
 * this repository's own packages/*\/src/*.ts, one buildEmbeddingText (64 tokens) each; plus
 * natural-language queries. Output: a little binary file
 *   u32 dims, u32 baseCount, u32 queryCount, then float32 vectors (base, then queries).
 */
import { readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = resolve(here, '../../..');
const { buildEmbeddingText, createEmbedder, resolveModel } = await import(join(repoRoot, 'packages/embed/dist/index.js'));
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const COUNT = Number(arg('count', '5000'));
const CODE_QUERIES = Number(arg('queries', '150'));
const OUT = arg('out', '/tmp/ca-vector-base.bin');

const tsLib = join(repoRoot, 'node_modules/.pnpm/typescript@6.0.3/node_modules/typescript/lib');
const ts = createRequire(import.meta.url)(join(tsLib, 'typescript.js'));

function tsFiles() {
  const out = [];
  for (const name of readdirSync(tsLib).filter((f) => f.endsWith('.d.ts')).sort()) out.push([join(tsLib, name), `lib/${name}`]);
  const pk = join(repoRoot, 'packages');
  for (const p of readdirSync(pk).sort()) {
    const src = join(pk, p, 'src');
    try {
      if (!statSync(src).isDirectory()) continue;
    } catch {
      continue;
    }
    for (const f of readdirSync(src).filter((f) => f.endsWith('.ts')).sort()) out.push([join(src, f), `packages/${p}/src/${f}`]);
  }
  return out;
}

const KINDS = [
  ['isInterfaceDeclaration', 'interface'], ['isClassDeclaration', 'class'], ['isFunctionDeclaration', 'function'],
  ['isMethodSignature', 'method'], ['isMethodDeclaration', 'method'], ['isPropertySignature', 'property'],
  ['isPropertyDeclaration', 'property'], ['isTypeAliasDeclaration', 'type_alias'], ['isEnumDeclaration', 'enum'],
  ['isModuleDeclaration', 'namespace'],
];

function collect() {
  const out = [];
  for (const [file, path] of tsFiles()) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node, chain) => {
      let next = chain;
      const k = KINDS.find(([t]) => ts[t](node));
      const name = k && node.name ? node.name.getText(sf) : null;
      if (k && name) {
        next = [...chain, name];
        const lines = node.getText(sf).split('\n');
        const doc = ts.getJSDocCommentsAndTags(node).map((d) => d.getText(sf)).join('\n') || null;
        out.push({
          language: 'ts', path, containerChain: next, kind: k[1],
          signature: lines[0].replace(/\s*\{\s*$/, '').trim(), doc,
          chunkText: lines.length > 40 ? `${lines.slice(0, 40).join('\n')}\n/* ${lines.length - 40} lines collapsed */` : lines.join('\n'),
        });
      }
      ts.forEachChild(node, (c) => visit(c, next));
    };
    visit(sf, []);
  }
  return out;
}

function sample(items, n, offset = 0) {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step + offset) % items.length]);
}

const NL_QUERIES = [
  'where is rate limiting handled', 'parse a date string into a Date object', 'convert array buffer to string',
  'read a file asynchronously', 'add an event listener to an element', 'cancel a pending request with an abort signal',
  'format a number as currency', 'compare two strings ignoring case', 'sort an array in place', 'json serialization',
  'regular expression matching', 'promise that resolves when all promises settle', 'map with weak references',
  'typed array of 32 bit floats', 'web socket connection', 'fetch request headers', 'css style declaration',
  'canvas 2d drawing context', 'indexed database transaction', 'crypto random values', 'url search parameters',
  'intl date time formatting', 'error with a cause', 'iterate over the entries of a map', 'symbol async iterator',
  'open the sqlite database and run migrations', 'resolve imports across modules', 'full text search query builder',
  'write file nodes and edges in one transaction', 'embedding cache by content hash', 'tokenize identifiers camel case',
  'language adapter interface for parsers', 'error codes and error taxonomy', 'configuration with environment overrides',
  'worker thread message passing', 'shared array buffer atomics wait', 'proxy handler traps', 'reflect metadata',
  'string padding to a fixed length', 'bigint arithmetic', 'structured clone', 'text encoder utf-8', 'readable stream reader',
  'mutation observer callback', 'intersection observer entries', 'keyboard event key code', 'media query list',
  'local storage get item', 'history push state navigation', 'performance timing marks',
];

const env = { ...process.env, CA_EMBEDDING_MODEL_DIR: process.env.CA_EMBEDDING_MODEL_DIR ?? resolve(repoRoot, '../shared/models') };
const resolution = await resolveModel({ model: 'all-MiniLM-L6-v2', model_dir: null, allow_download: false, batch_size: 32, enabled: true }, env);
if (!resolution.ok) throw new Error(resolution.reason);
const embedder = await createEmbedder(resolution, { batchSize: 32 });
const all = collect();
const base = sample(all, COUNT);
const baseSet = new Set(base);
const held = sample(all.filter((d) => !baseSet.has(d)), CODE_QUERIES, 0.5);
const t0 = performance.now();
const baseTexts = base.map((d) => buildEmbeddingText(d, 64, embedder));
const queryTexts = [...held.map((d) => buildEmbeddingText(d, 64, embedder)), ...NL_QUERIES];
const vectors = await embedder.embed([...baseTexts, ...queryTexts]);
await embedder.dispose();
const dims = vectors[0].length;
const buf = Buffer.alloc(12 + vectors.length * dims * 4);
buf.writeUInt32LE(dims, 0);
buf.writeUInt32LE(baseTexts.length, 4);
buf.writeUInt32LE(queryTexts.length, 8);
vectors.forEach((v, i) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(buf, 12 + i * dims * 4));
writeFileSync(OUT, buf);
console.log(`declarations ${all.length}; embedded ${baseTexts.length} base + ${queryTexts.length} queries (${held.length} code, ${NL_QUERIES.length} NL) in ${((performance.now() - t0) / 1000).toFixed(0)} s → ${OUT}`);
