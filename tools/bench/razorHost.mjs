#!/usr/bin/env node
// roslyn-host alone over a repository's C# projects, as `ca index`'s C# pass drives it (decision
// 052): `loadProject` then `analyze` per project, in the engine's order (the .csproj paths in
// ordinal order), with `prepareRazor` first when the repository has Razor files. Prints one JSON
// line: the host's wall time, its CPU time (utime + stime of the process), documents, edges and the
// Razor documents the generator produced. Without the engine around it (no TS pass, no store), so
// the generator's cost shows undiluted; run it interleaved with and without the generator
// (`CA_RAZOR_GENERATOR_DIR=<empty dir>`), and from another worktree for another build.
//
//   node tools/bench/razorHost.mjs --repo /work/repos/eShop [--no-prepare] [--checkout DIR] [--label TEXT]
//
// `--checkout DIR`: another checkout's build (its packages/parse-cs and roslyn-host), e.g. main's in a
// second worktree; `--no-prepare` for a build without `prepareRazor`.
// `CA_ROSLYN_HOST_LOG=FILE` makes the host write its timings (loads, generator stages, analyses) to FILE.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { values } = parseArgs({
  options: {
    repo: { type: 'string' },
    'no-prepare': { type: 'boolean', default: false },
    checkout: { type: 'string' },
    label: { type: 'string', default: '' },
  },
});
if (!values.repo) {
  process.stderr.write('usage: razorHost.mjs --repo DIR [--no-prepare] [--checkout DIR] [--label TEXT]\n');
  process.exit(2);
}
const checkout = values.checkout ?? join(fileURLToPath(new URL('.', import.meta.url)), '../..');
// The host is located from the package: the checkout's own roslyn-host build.
const { RoslynHost, isRazorPath } = await import(pathToFileURL(join(checkout, 'packages/parse-cs/dist/index.js')).href);

const skipped = new Set(['bin', 'obj', 'node_modules', '.git']);
function walk(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !skipped.has(e.name) && !e.name.startsWith('.')) walk(join(dir, e.name), out);
    else if (e.isFile()) out.push(join(dir, e.name));
  }
  return out;
}
const files = walk(values.repo).map((f) => relative(values.repo, f).split('\\').join('/'));
const projects = files.filter((f) => f.endsWith('.csproj')).sort();
// The first Razor file's project (the nearest .csproj above it), as the engine names it.
const firstRazor = files.filter((f) => isRazorPath(f)).sort()[0];
const razorProject = firstRazor && projects.filter((p) => firstRazor.startsWith(p.slice(0, p.lastIndexOf('/') + 1))).sort((a, b) => b.length - a.length)[0];

const host = new RoslynHost();
const started = performance.now();
await host.start();
if (razorProject && !values['no-prepare']) await host.prepareRazor({ projectPath: razorProject, repoRoot: values.repo });
let documents = 0;
let edges = 0;
let razorDocuments = 0;
for (const projectPath of projects) {
  const load = await host.loadProject({ projectPath, repoRoot: values.repo, safeMode: true, loadReferences: true }, { deadlineMs: 600_000 });
  razorDocuments += load.projects.find((p) => p.projectId === projectPath)?.razor?.documents.length ?? 0;
  const result = await host.analyze({ projectId: projectPath, includeReferenceCounts: false, includeExternalTargets: true }, { deadlineMs: 600_000 });
  documents += result.documents.length;
  for (const d of result.documents) edges += d.edges.length;
}
const wallMs = Math.round(performance.now() - started);
// utime and stime, in clock ticks (100 per second on Linux), fields 14 and 15 of /proc/<pid>/stat.
const stat = readFileSync(`/proc/${host.pid}/stat`, 'utf8').split(') ')[1].split(' ');
const cpuMs = (Number(stat[11]) + Number(stat[12])) * 10;
await host.dispose();
const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(JSON.stringify({ label: values.label, projects: projects.length, wallMs, hostCpuMs: cpuMs, documents, edges, razorDocuments, load1 }));
