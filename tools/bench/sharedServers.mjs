#!/usr/bin/env node
// Several MCP servers on one repository (several agent sessions), after an edit (issue 22;
// docs/reliability.md, "Concurrency"):
//
//   node tools/bench/sharedServers.mjs REPO [--servers 5] [--edits 20] [--model DIR]
//
// REPO is copied first. Indexes the copy with `ca index`, starts SERVERS stdio servers
// (`ca-mcp REPO`, as an agent's client does) and waits for each one's first answer; then appends
// a function to EDITS source files, runs `ca index` once, and asks every server at the same time
// to find one of the new functions by name. Reports, per server, the time to that answer and
// whether it found the function, and how many files all servers together re-parsed (from their
// logs). Prints one JSON object. Build first (`pnpm build`).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const require = createRequire(join(ROOT, 'apps/mcp/package.json'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { servers: { type: 'string', default: '5' }, edits: { type: 'string', default: '20' }, model: { type: 'string' } },
});
if (positionals.length !== 1) {
  console.error('usage: node tools/bench/sharedServers.mjs REPO [--servers N] [--edits N] [--model DIR]');
  process.exit(2);
}
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CA_'))),
  ...(values.model ? { CA_EMBEDDING_MODEL_DIR: resolve(values.model) } : { CA_EMBEDDING_ENABLED: 'false' }),
};
const log = (s) => process.stderr.write(`${s}\n`);
const dir = join(mkdtempSync(join(tmpdir(), 'ca-bench-shared-')), 'repo');
cpSync(resolve(positionals[0]), dir, { recursive: true, filter: (p) => !p.includes('/.codeagent') });
const out = { repo: resolve(positionals[0]), servers: Number(values.servers), edits: Number(values.edits), load: loadavg().map((x) => Math.round(x * 100) / 100) };

const cli = (args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ca ${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t;
};
out.indexMs = Math.round(cli(['index', dir]));

const servers = [];
for (let i = 0; i < out.servers; i++) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'apps/mcp/dist/main.js'), dir], env, stderr: 'pipe' });
  const lines = [];
  transport.stderr?.on('data', (d) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const client = new Client({ name: 'bench-shared', version: '0' });
  await client.connect(transport);
  servers.push({ client, lines });
}
const call = (s, name, args) => s.client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
let t = performance.now();
await Promise.all(servers.map((s) => call(s, 'get_status', {})));
out.firstAnswersMs = Math.round(performance.now() - t);
const parsed = () => servers.reduce((n, s) => n + s.lines.reduce((m, l) => m + Number(/^ca-mcp: indexed: (\d+) changed/.exec(l)?.[1] ?? 0), 0), 0);
const parsedBefore = parsed();

const files = execFileSync('git', ['ls-files', '*.ts'], { cwd: dir, encoding: 'utf8' })
  .split('\n')
  .filter((p) => p && !p.endsWith('.d.ts') && !/test|spec|bench/.test(p))
  // Sources under src/ when there are (build/ and dist/ are excluded by the default configuration).
  .sort((a, b) => Number(!a.startsWith('src/')) - Number(!b.startsWith('src/')) || a.localeCompare(b))
  .slice(0, out.edits);
files.forEach((f, i) => writeFileSync(join(dir, f), `${readFileSync(join(dir, f), 'utf8')}\nexport function sharedBench${i}(): number {\n  return ${i};\n}\n`));
t = performance.now();
out.reindexMs = Math.round(cli(['index', dir]));
const answers = await Promise.all(
  servers.map(async (s, i) => {
    const started = performance.now();
    const r = await call(s, 'lookup_symbol', { symbol: `sharedBench${i % files.length}` });
    const found = JSON.stringify(r.structuredContent ?? r.content).includes(`sharedBench${i % files.length}`);
    return { ms: Math.round(performance.now() - started), sinceEditMs: Math.round(performance.now() - t), error: r.isError === true, found };
  }),
);
out.answers = answers;
out.within60s = answers.filter((a) => a.sinceEditMs <= 60_000 && a.found && !a.error).length;
out.filesReparsedByServers = parsed() - parsedBefore;
out.loadAfter = loadavg().map((x) => Math.round(x * 100) / 100);
for (const s of servers) await s.client.close();
rmSync(resolve(dir, '..'), { recursive: true, force: true });
console.log(JSON.stringify(out, null, 2));
