#!/usr/bin/env node
// Codecs for index artifacts (decision 045): compresses an index database with gzip 1/6/9 and
// brotli 4/6 (Node zlib, in memory) and prints size and times. Figures: docs/benchmarks.md ("Index artifacts").
// Usage: node tools/bench/artifactCodecs.mjs INDEX.db
import { readFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync, gunzipSync, brotliDecompressSync } from 'node:zlib';
const buf = readFileSync(process.argv[2]);
const runs = [
  ['gzip 1', () => gzipSync(buf, { level: 1 }), gunzipSync],
  ['gzip 6', () => gzipSync(buf, { level: 6 }), gunzipSync],
  ['gzip 9', () => gzipSync(buf, { level: 9 }), gunzipSync],
  ['brotli 4', () => brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }), brotliDecompressSync],
  ['brotli 6', () => brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }), brotliDecompressSync],
];
console.log(JSON.stringify({ file: process.argv[2], bytes: buf.length }));
for (const [name, c, d] of runs) {
  let t = performance.now();
  const out = c();
  const cms = Math.round(performance.now() - t);
  t = performance.now();
  d(out);
  const dms = Math.round(performance.now() - t);
  console.log(JSON.stringify({ codec: name, bytes: out.length, ratio: +(out.length / buf.length).toFixed(3), compressMs: cms, decompressMs: dms }));
}
