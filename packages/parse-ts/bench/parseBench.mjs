// Parse throughput of the built adapter (run `pnpm build` first):
//   node bench/parseBench.mjs [dir]
// Default corpus: the .ts/.d.ts files shipped in typescript@6.0.3/lib.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTsAdapter } from '../dist/index.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = process.argv[2] ?? join(root, 'node_modules/.pnpm/typescript@6.0.3/node_modules/typescript/lib');

function collect(d, out) {
  for (const name of readdirSync(d)) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (/\.(d\.)?ts$/.test(name)) out.push(p);
  }
  return out;
}

const files = collect(dir, []).map((p) => ({ path: relative(dir, p).replaceAll('\\', '/'), text: readFileSync(p, 'utf8') }));
const lines = files.reduce((n, f) => n + f.text.split('\n').length, 0);
const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
const adapter = await createTsAdapter();

// Warm-up on a few files so JIT and WASM tiering do not dominate the measurement.
for (const f of files.slice(0, 5)) adapter.parse(f);

let nodes = 0;
let edges = 0;
const statuses = {};
const t0 = performance.now();
for (const f of files) {
  const r = adapter.parse(f);
  nodes += r.nodes.length;
  edges += r.edges.length;
  statuses[r.parseStatus] = (statuses[r.parseStatus] ?? 0) + 1;
}
const secs = (performance.now() - t0) / 1000;
console.log(`${files.length} files, ${lines} lines, ${(bytes / 1e6).toFixed(1)} MB in ${secs.toFixed(2)} s`);
console.log(`${Math.round(lines / secs)} lines/s, ${Math.round(files.length / secs)} files/s, ${(bytes / 1e6 / secs).toFixed(2)} MB/s`);
console.log(`${nodes} nodes, ${edges} edges, status ${JSON.stringify(statuses)}`);
await adapter.dispose?.();
