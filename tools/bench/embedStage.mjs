// Embedding throughput on realistic symbol texts: runs packages/embed/bench/embedBench.mjs
// (TypeScript lib declarations, buildEmbeddingText at the default 64-token budget, in-process)
// and parses its table.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, benchEnv } from './lib.mjs';

export async function embedBench({ count = 600, budget = 64, worker = false }) {
  const args = [join(ROOT, 'packages/embed/bench/embedBench.mjs'), '--count', String(count), '--budgets', String(budget)];
  if (worker) args.push('--worker');
  const out = execFileSync(process.execPath, args, { env: benchEnv(), encoding: 'utf8', maxBuffer: 16 << 20 });
  console.log(out.trim());
  const row = out
    .split('\n')
    .map((l) => l.split('|').map((c) => c.trim()))
    .find((c) => c.length === 6 && c[0] === String(budget));
  if (!row) throw new Error(`unexpected embedBench output:\n${out}`);
  const load = /load (\d+) ms/.exec(out);
  return {
    texts: count,
    budget,
    embedder: worker ? 'worker' : 'in-process',
    modelLoadMs: load ? Number(load[1]) : null,
    avgTokens: Number(row[1]),
    buildTextsMs: Number(row[2]),
    embedSeconds: Number(row[3]),
    symbolsPerSecond: Number(row[4]),
    tokensPerSecond: Number(row[5]),
  };
}
