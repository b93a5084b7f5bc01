#!/usr/bin/env node
/**
 * Throughput of the TS semantic pass through the service (child process(es), worker start
 * included), on a whole repository.
 *
 *   pnpm --filter @ca/parse-ts build && node bench/throughput.mjs <repoDir>
 *
 * Prints lines analysed (newlines + 1 of every file some project reports), wall ms, lines/s,
 * CPU seconds of the worker(s) (user + system from /proc, read before they exit; also per
 * worker), edge count and failed projects, one JSON line per run; load average before each run.
 *
 * Environment:
 *   WORKERS=n        worker processes (default: the service's default)
 *   DUMP=file        write every project's result as sorted text lines (edges, reference counts,
 *                    key refinements, files, file errors, status) for diffing two builds
 *   RUNS=n           repeat n times (fresh service each) and print the median as well
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { createTsSemanticService } from '../dist/index.js';

const repo = resolve(process.argv[2] ?? '.');
const runs = Number(process.env.RUNS ?? '1');
const workers = process.env.WORKERS ? Number(process.env.WORKERS) : undefined;

function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(stat[11]) + Number(stat[12])) / 100;
  } catch {
    return 0;
  }
}

function lineCount(rel) {
  try {
    const t = readFileSync(join(repo, rel), 'utf8');
    let n = 1;
    for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) === 10) n++;
    return n;
  } catch {
    return 0;
  }
}

function dump(result) {
  const out = [];
  for (const p of result.projects) {
    const id = p.tsconfig ?? '<inferred>';
    out.push(`project ${id} ${p.status} ${p.packageName ?? '-'} ${p.reason ?? ''}`);
    for (const f of p.files) out.push(`file ${id} ${f}`);
    for (const e of p.edges) out.push(`edge ${id} ${e.type} ${e.sourcePath} ${e.sourceKey} -> ${e.targetPath} ${e.targetKey} ${e.confidence} L${e.line}`);
    for (const c of p.referenceCounts) out.push(`count ${id} ${c.path} ${c.symbolKey} ${c.count}`);
    for (const k of p.keyRefinements) out.push(`refine ${id} ${k.path} ${k.oldKey} => ${k.newKey}`);
    for (const fe of p.fileErrors) out.push(`fileError ${id} ${fe.path} ${fe.reason}`);
  }
  return out.sort().join('\n') + '\n';
}

const rows = [];
for (let i = 0; i < runs; i++) {
  const pids = new Set();
  const svc = createTsSemanticService({
    ...(workers === undefined ? {} : { workers }),
    onEvent: (e) => {
      if (e.type === 'spawned' && e.pid) pids.add(e.pid);
    },
  });
  console.log(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const t0 = performance.now();
  // CPU of workers is read while they are still alive: poll until the pass ends.
  const cpu = new Map();
  const poll = setInterval(() => {
    for (const pid of pids) cpu.set(pid, Math.max(cpu.get(pid) ?? 0, cpuOf(pid)));
  }, 200);
  const result = await svc.analyzeRepository(repo, { deadlineMs: 30 * 60_000 });
  const wallMs = performance.now() - t0;
  clearInterval(poll);
  for (const pid of pids) cpu.set(pid, Math.max(cpu.get(pid) ?? 0, cpuOf(pid)));
  await svc.dispose();
  let lines = 0;
  let edges = 0;
  const failed = [];
  for (const p of result.projects) {
    for (const f of p.files) lines += lineCount(f);
    edges += p.edges.length;
    if (p.status === 'failed') failed.push(`${p.tsconfig ?? '<inferred>'}: ${p.reason}`);
  }
  const cpuS = [...cpu.values()].reduce((a, b) => a + b, 0);
  const perWorkerCpuS = [...cpu.values()].map((c) => Number(c.toFixed(1)));
  const row = { lines, wallMs: Math.round(wallMs), linesPerS: Math.round(lines / (wallMs / 1000)), cpuS: Number(cpuS.toFixed(1)), perWorkerCpuS, workers: pids.size, edges, projects: result.projects.length, failed };
  rows.push(row);
  console.log(JSON.stringify(row));
  if (process.env.DUMP && i === 0) writeFileSync(process.env.DUMP, dump(result));
}
if (runs > 1) {
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `median of ${runs}: wall ${med(rows.map((r) => r.wallMs))} ms, ${med(rows.map((r) => r.linesPerS))} lines/s, CPU ${med(rows.map((r) => r.cpuS))} s`,
  );
}
