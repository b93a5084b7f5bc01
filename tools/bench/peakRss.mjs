#!/usr/bin/env node
// Peak memory of a command and every process it starts (the TS semantic worker, roslyn-host …):
// samples /proc every 100 ms and reports the peak of the summed RSS of the process tree, the
// peak of each command name, the wall time and the load average. Linux only.
//
//   node tools/bench/peakRss.mjs -- node apps/cli/dist/main.js index /tmp/repo --json
//
// Prints one JSON line: {"peakTreeRssMb","peakByCommand":{…},"exitCode","wallMs","load":[before,after],"command"}.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const sep = process.argv.indexOf('--');
const argv = sep >= 0 ? process.argv.slice(sep + 1) : process.argv.slice(2);
if (argv.length === 0) {
  process.stderr.write('usage: node tools/bench/peakRss.mjs -- COMMAND [ARGS…]\n');
  process.exit(2);
}

/** pid → { ppid, comm, rssKb } for every process readable in /proc. */
function processes() {
  const out = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      // Name a process by its script when it is node (the CLI, the TS semantic worker, …), else by its command.
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const script = args.find((a, i) => i > 0 && !a.startsWith('-'));
      const base = (p) => p.split('/').pop();
      const comm = args[0] && base(args[0]) === 'node' && script ? base(script) : (/^Name:\s+(.+)$/m.exec(status)?.[1] ?? '?');
      out.set(Number(name), { ppid, comm, rssKb: rss });
    } catch {
      // The process ended between readdir and read: it holds no memory any more.
    }
  }
  return out;
}

/** The RSS of `root` and its descendants, summed and by command name. */
function treeRss(root) {
  const procs = processes();
  const children = new Map();
  for (const [pid, p] of procs) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(pid);
  }
  let total = 0;
  const byComm = {};
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop();
    const p = procs.get(pid);
    if (p) {
      total += p.rssKb;
      byComm[p.comm] = (byComm[p.comm] ?? 0) + p.rssKb;
    }
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  return { total, byComm };
}

const loadBefore = loadavg()[0];
const started = performance.now();
const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
let peak = 0;
const peakByCommand = {};
const timer = setInterval(() => {
  const { total, byComm } = treeRss(child.pid);
  peak = Math.max(peak, total);
  for (const [k, v] of Object.entries(byComm)) peakByCommand[k] = Math.max(peakByCommand[k] ?? 0, v);
}, 100);
child.on('exit', (code) => {
  clearInterval(timer);
  const mb = (kb) => Math.round(kb / 1024);
  process.stdout.write(
    `${JSON.stringify({
      peakTreeRssMb: mb(peak),
      peakByCommand: Object.fromEntries(Object.entries(peakByCommand).map(([k, v]) => [k, mb(v)])),
      exitCode: code,
      wallMs: Math.round(performance.now() - started),
      load: [Number(loadBefore.toFixed(2)), Number(loadavg()[0].toFixed(2))],
      command: argv.join(' '),
    })}\n`,
  );
});
