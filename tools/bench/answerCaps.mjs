// The largest answer of every MCP tool on a real repository, in tokens (estimateTokens of the
// text items the client receives), with each tool's largest arguments: max depth, max_nodes,
// limit, detail code, the most-connected symbol, the largest file and directory.
//
//   node tools/bench/answerCaps.mjs [REPO] [--symbol NAME] [--file PATH] [--root CHECKOUT] [--cap N]
//
// REPO defaults to /work/repos/hono (copied to a temp dir, indexed without embeddings). --root
// measures another checkout's built server (e.g. the main branch before a change); --cap sets the
// server's --max-answer-tokens (default its own default).
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CLI, ROOT, copyRepo, tempDir } from './lib.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { symbol: { type: 'string' }, file: { type: 'string' }, root: { type: 'string' }, cap: { type: 'string' } },
});
const source = resolve(positionals[0] ?? '/work/repos/hono');
const checkout = resolve(values.root ?? ROOT);
const symbol = values.symbol ?? 'Context';
const fileSymbol = values.file ?? 'src/context.ts';

const requireMcp = createRequire(join(checkout, 'apps/mcp/package.json'));
const load = (id) => import(pathToFileURL(requireMcp.resolve(id)).href);
const { createServer } = await import(pathToFileURL(join(checkout, 'apps/mcp/dist/index.js')).href);
const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
const { InMemoryTransport } = await load('@modelcontextprotocol/sdk/inMemory.js');

const work = tempDir('answer-caps');
const repo = copyRepo(source, join(work, 'repo'));
const env = { ...process.env, CA_EMBEDDING_ENABLED: 'false' };
const indexed = spawnSync(process.execPath, [CLI, 'index', repo, '--json'], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
if (indexed.status !== 0) throw new Error(`ca index failed: ${indexed.stderr}`);

/** The largest file and the directory with the most entries (skipping dot folders). */
function largestPaths(root) {
  let file = { path: '', size: -1 };
  let dir = { path: '.', entries: -1 };
  const walk = (rel) => {
    const entries = readdirSync(join(root, rel), { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
    if (entries.length > dir.entries) dir = { path: rel || '.', entries: entries.length };
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx|js|jsx|cs)$/.test(e.name)) {
        const size = statSync(join(root, p)).size;
        if (size > file.size) file = { path: p, size };
      }
    }
  };
  walk('');
  return { file: file.path, dir: dir.path };
}
const largest = largestPaths(repo);

/** The largest value of each argument, by name (see apps/mcp/test/answerCaps.test.ts). */
function argValues(tool, arg) {
  const navigation = ['get_callers', 'get_callees', 'get_references', 'get_implementations', 'get_dependencies', 'get_dependents', 'impact_analysis'];
  switch (arg) {
    case 'symbol':
      // The name (every match with `all`) and the id of its definition in --file (tools without `all`).
      return tool === 'get_dependencies' || tool === 'get_dependents' ? [fileSymbol, symbol, symbolId] : [symbol, symbolId];
    case 'depth':
      return tool === 'get_directory_tree' ? [10] : navigation.includes(tool) ? [1, 3, 20] : [undefined];
    case 'max_nodes':
      return [undefined, 1000];
    case 'limit':
      return [100];
    case 'budget_tokens':
      return [1_000_000];
    case 'detail':
      return [tool === 'map_symbols' ? 'signatures' : 'code'];
    case 'all':
    case 'include_tests':
    case 'through_interfaces':
      return [true];
    case 'span':
      return ['all'];
    case 'query':
      return ['context request response handler'];
    case 'path':
      if (tool === 'read_file' || tool === 'get_file_outline') return [largest.file, fileSymbol];
      if (tool === 'list_directory') return [largest.dir];
      if (tool === 'get_directory_tree') return ['.'];
      return ['src/**'];
    default:
      return [undefined];
  }
}

const app = createServer({ repo, refresh: false, log: () => {}, env: {}, configOverrides: { embedding: { enabled: false } }, ...(values.cap ? { answerTokens: Number(values.cap) } : {}) });
const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
await app.server.connect(serverSide);
const client = new Client({ name: 'answer-caps', version: '0.0.0' });
await client.connect(clientSide);
const lookup = await client.callTool({ name: 'lookup_symbol', arguments: { symbol, limit: 100 } });
const symbolId = lookup.structuredContent?.matches?.find((m) => m.path === fileSymbol)?.id ?? JSON.parse(lookup.content[0].text).matches.find((m) => m.path === fileSymbol)?.id;
if (symbolId === undefined) throw new Error(`${symbol} has no definition in ${fileSymbol}`);
const tokens = (texts) => texts.reduce((n, t) => n + Math.ceil(t.length / 3.5), 0);

const rows = [];
for (const tool of (await client.listTools()).tools) {
  let sets = [{}];
  for (const p of Object.keys(tool.inputSchema.properties ?? {})) sets = sets.flatMap((s) => argValues(tool.name, p).map((v) => (v === undefined ? s : { ...s, [p]: v })));
  let best = null;
  for (const args of sets) {
    if (tool.name === 'index_files') continue; // writes the index; its answer is a small report
    const r = await client.callTool({ name: tool.name, arguments: args });
    const texts = r.content.map((c) => c.text ?? '');
    const n = tokens(texts);
    if (!best || n > best.tokens) best = { tokens: n, args, error: r.isError === true ? texts[0].slice(0, 80) : null };
  }
  if (best) rows.push({ tool: tool.name, ...best });
}
await client.close();
await app.close();
rmSync(work, { recursive: true, force: true });

console.log(`repository ${source}, server ${checkout}${values.cap ? `, --max-answer-tokens ${values.cap}` : ''}`);
console.log('| tool | largest answer (tokens) | arguments |');
console.log('| --- | ---: | --- |');
for (const r of rows) console.log(`| ${r.tool} | ${r.tokens.toLocaleString('en-US')}${r.error ? ` (error: ${r.error})` : ''} | \`${JSON.stringify(r.args)}\` |`);
