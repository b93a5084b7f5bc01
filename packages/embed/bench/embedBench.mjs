#!/usr/bin/env node
/**
 * Embedding throughput on realistic symbol texts (uses the built dist: `pnpm --filter @ca/embed build`).
 *
 *   node packages/embed/bench/embedBench.mjs [--count 2000] [--budgets 32,64,128] [--worker] [--workers N] [--batch 16] [--batch-tokens 512]
 *
 * `--worker` embeds through createWorkerEmbedder (`--workers N` model workers, default: the engine's).
 *
 * Texts: one per declaration (interfaces, classes, functions, methods, properties, type aliases,
 * enums, namespaces) of TypeScript's own lib/*.d.ts, sampled evenly, built with buildEmbeddingText.
 * Model dir: CA_EMBEDDING_MODEL_DIR, else ../shared/models beside the repository.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { buildEmbeddingText, createEmbedder, createWorkerEmbedder, defaultEmbeddingWorkers, loadTokenCounter, resolveModel } from '../dist/index.js';
import { arg, flag, modelDir, repoRoot } from './benchArgs.mjs';

const COUNT = Number(arg('count', '2000'));
const BUDGETS = arg('budgets', '32,64,128').split(',').map(Number);
const BATCH = Number(arg('batch', '16'));
const USE_WORKER = flag('worker');
const WORKERS = Number(arg('workers', '0'));
const BATCH_TOKENS = Number(arg('batch-tokens', '512'));

const tsLib = join(repoRoot, 'node_modules/.pnpm/typescript@6.0.3/node_modules/typescript/lib');
const ts = createRequire(import.meta.url)(join(tsLib, 'typescript.js'));

/** One EmbeddingTextInput per declaration, as a parser would produce it. */
function collectDeclarations() {
  const out = [];
  for (const name of readdirSync(tsLib).filter((f) => f.endsWith('.d.ts')).sort()) {
    const text = readFileSync(join(tsLib, name), 'utf8');
    const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const path = `lib/${name}`;
    const visit = (node, chain) => {
      const info = describe(node);
      let nextChain = chain;
      if (info) {
        nextChain = [...chain, info.name];
        const full = node.getText(sf);
        const lines = full.split('\n');
        const doc = ts.getJSDocCommentsAndTags(node).map((d) => d.getText(sf)).join('\n') || null;
        out.push({
          language: 'ts',
          path,
          containerChain: nextChain,
          kind: info.kind,
          signature: lines[0].replace(/\s*\{\s*$/, '').trim(),
          doc,
          // Containers are collapsed to a header plus member signatures, as chunk text does.
          chunkText: lines.length > 40 ? `${lines.slice(0, 40).join('\n')}\n/* ${lines.length - 40} lines collapsed */` : full,
        });
      }
      ts.forEachChild(node, (child) => visit(child, nextChain));
    };
    visit(sf, []);
  }
  return out;
}

function describe(node) {
  const nameOf = (n) => (n.name && ts.isIdentifier(n.name) ? n.name.text : n.name?.getText?.() ?? null);
  const kinds = [
    [ts.isInterfaceDeclaration, 'interface'],
    [ts.isClassDeclaration, 'class'],
    [ts.isFunctionDeclaration, 'function'],
    [ts.isMethodSignature, 'method'],
    [ts.isMethodDeclaration, 'method'],
    [ts.isPropertySignature, 'property'],
    [ts.isPropertyDeclaration, 'property'],
    [ts.isTypeAliasDeclaration, 'type_alias'],
    [ts.isEnumDeclaration, 'enum'],
    [ts.isModuleDeclaration, 'namespace'],
  ];
  for (const [test, kind] of kinds) {
    if (test(node)) {
      const name = nameOf(node);
      return name ? { name, kind } : null;
    }
  }
  return null;
}

function sample(items, n) {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]);
}

const env = { ...process.env, CA_EMBEDDING_MODEL_DIR: modelDir };
const resolution = await resolveModel({ model: 'all-MiniLM-L6-v2', model_dir: null, allow_download: false, batch_size: BATCH, enabled: true }, env);
if (!resolution.ok) {
  console.error(resolution.reason);
  process.exit(1);
}

const all = collectDeclarations();
const inputs = sample(all, COUNT);
const counter = await loadTokenCounter(resolution);
const t0 = performance.now();
const embedder = USE_WORKER ? await createWorkerEmbedder(resolution, { batchSize: BATCH, batchTokens: BATCH_TOKENS, workers: WORKERS }) : await createEmbedder(resolution, { batchSize: BATCH, batchTokens: BATCH_TOKENS });
const loadMs = performance.now() - t0;
console.log(`declarations: ${all.length} in ${new Set(all.map((d) => d.path)).size} files; sampled ${inputs.length}`);
console.log(`embedder: ${USE_WORKER ? `worker threads (${WORKERS || defaultEmbeddingWorkers()})` : 'in-process'}, batch ${BATCH} (≤ ${BATCH_TOKENS || '∞'} tokens), ${cpus().length} cpus, load ${loadMs.toFixed(0)} ms`);
console.log('budget | avg tokens | build texts ms | embed s | symbols/s | tokens/s');

// Warm-up (first run pays for graph initialisation).
await embedder.embed(inputs.slice(0, 32).map((d) => buildEmbeddingText(d, 32, counter)));

for (const budget of BUDGETS) {
  const b0 = performance.now();
  const texts = inputs.map((d) => buildEmbeddingText(d, budget, counter));
  const buildMs = performance.now() - b0;
  const tokens = texts.reduce((n, t) => n + Math.min(counter.countTokens(t), embedder.maxTokens), 0);
  const e0 = performance.now();
  const vectors = await embedder.embed(texts);
  const secs = (performance.now() - e0) / 1000;
  if (vectors.length !== texts.length) throw new Error('vector count mismatch');
  console.log(
    `${String(budget).padStart(6)} | ${(tokens / texts.length).toFixed(1).padStart(10)} | ${buildMs.toFixed(0).padStart(14)} | ${secs.toFixed(1).padStart(7)} | ${(texts.length / secs).toFixed(0).padStart(9)} | ${(tokens / secs).toFixed(0).padStart(8)}`,
  );
}
await embedder.dispose();
