import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTokens } from '@ca/engine';
import { defaultConfig } from '@ca/schema';
import { TOOL_NAMES } from '../src/index.js';
import { connect, generateHubRepo, type Answer, type Connected, type HubRepo } from './helpers.js';

/**
 * Every tool, called with the largest arguments its input schema accepts, on a generated
 * repository built to make answers large, answers within the cap: the tokens of the exact text
 * items the client receives. A tool or argument added later without a rule here fails the test.
 */
const CAPS = [10_000, 2_000];
const MAX_DEPTH = defaultConfig().graph.max_depth;

/** The largest value of each argument (by name); `undefined` leaves an argument out (it only narrows an answer). */
function largest(tool: string, arg: string, repo: HubRepo): unknown[] {
  switch (arg) {
    case 'symbol':
      // The most-connected class and its most-called method; a file for the tools that take one.
      return tool === 'get_dependencies' || tool === 'get_dependents' ? ['src/hub/hub.ts', repo.hub] : [repo.hub, repo.hubMethod];
    case 'depth':
      return [tool === 'get_directory_tree' ? 10 : MAX_DEPTH];
    case 'max_nodes':
      return [50_000];
    case 'limit':
      return [100];
    case 'budget_tokens':
      return [1_000_000];
    case 'detail':
      return [tool === 'map_symbols' ? 'signatures' : 'code'];
    case 'all':
    case 'include_tests':
    case 'include_docs':
    case 'include_ignored':
    case 'through_interfaces':
      return [true];
    case 'span':
      return ['all'];
    case 'query':
      return ['hub method value label feature'];
    case 'min_confidence':
      return ['approximate'];
    case 'path':
      if (tool === 'read_file' || tool === 'get_file_outline') return [repo.largestFile];
      if (tool === 'list_directory') return [repo.largestDirectory];
      if (tool === 'get_directory_tree') return ['.'];
      return ['src/**'];
    case 'base':
      // The hub repository's one label: the largest diff it has is none (affectedCap.test.ts pages a large one).
      return ['working'];
    case 'head':
      return [undefined];
    case 'start_line':
      return [1];
    case 'end_line':
      return [6000];
    case 'paths':
    case 'offset':
    case 'min_score':
    case 'language':
    case 'kind':
    case 'filter':
    case 'label':
    case 'allow_binary':
    case 'allow_large':
      // Paging starts at 0; the rest only narrow an answer (or name another label of the repository).
      return [undefined];
    default:
      throw new Error(`no largest value for ${tool}.${arg}: add a rule`);
  }
}

/** Every combination of the largest values of a tool's arguments. */
function argumentSets(tool: string, properties: readonly string[], repo: HubRepo): Record<string, unknown>[] {
  let sets: Record<string, unknown>[] = [{}];
  for (const p of properties) {
    const values = largest(tool, p, repo);
    sets = sets.flatMap((s) => values.map((v) => (v === undefined ? s : { ...s, [p]: v })));
  }
  return sets;
}

describe('every MCP answer stays within the answer cap (generated hub repository)', () => {
  let repo: HubRepo;
  const servers = new Map<number, Connected>();
  beforeAll(async () => {
    repo = generateHubRepo();
    for (const cap of CAPS) servers.set(cap, await connect({ repo: repo.root, answerTokens: cap }));
    // The uncut answers, to check that pages hold every unit exactly once.
    servers.set(Infinity, await connect({ repo: repo.root, answerTokens: 100_000_000 }));
  }, 600_000);
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
    rmSync(join(repo.root, '..'), { recursive: true, force: true });
  });

  it('iterates tools/list: each tool with its largest arguments answers within the cap', async () => {
    const listed = await servers.get(CAPS[0]!)!.client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    const over: string[] = [];
    let calls = 0;
    for (const cap of CAPS) {
      for (const tool of listed.tools) {
        for (const args of argumentSets(tool.name, Object.keys(tool.inputSchema.properties ?? {}), repo)) {
          const r: Answer = await servers.get(cap)!.call(tool.name, args);
          calls++;
          const tokens = answerTokens(r.texts);
          if (r.isError) over.push(`${tool.name} ${JSON.stringify(args)}: error ${r.texts[0]}`);
          else if (tokens > cap) over.push(`${tool.name} ${JSON.stringify(args)}: ${tokens} tokens over ${cap}`);
        }
      }
    }
    expect(over).toEqual([]);
    // 22 tools at each cap; the eleven that take a symbol (seven navigation tools, lookup_symbol,
    // find_similar, get_symbol, get_source_spans) are called twice, with the class and its method.
    expect(calls).toBe(CAPS.length * (22 + 11));
  }, 600_000);

  it('the generated answers are large: uncut, impact_analysis of the hub is far over both caps', async () => {
    const r = await servers.get(Infinity)!.call('impact_analysis', { symbol: repo.hub, depth: MAX_DEPTH, max_nodes: 50_000 });
    // 200 modules × (f_a, f_b, Feature, Feature.run) use the hub at some depth, plus the files importing it.
    expect(r.json.nodes.length).toBeGreaterThanOrEqual(800);
    expect(answerTokens(r.texts)).toBeGreaterThan(10 * CAPS[0]!);
  }, 120_000);

  for (const [tool, args] of [
    ['impact_analysis', { depth: MAX_DEPTH, max_nodes: 50_000 }],
    ['get_references', { depth: 3, max_nodes: 50_000, detail: 'code' }],
    ['get_dependents', { depth: 3, max_nodes: 50_000 }],
  ] as const) {
    it(`${tool}: the pages hold every node and edge of the uncut answer exactly once, each page within the cap`, async () => {
      const symbol = tool === 'get_dependents' ? 'src/hub/hub.ts' : repo.hub;
      const uncut = (await servers.get(Infinity)!.call(tool, { symbol, ...args })).json;
      const cap = CAPS[1]!;
      const nodes: string[] = [];
      const edges: string[] = [];
      const byFile: string[] = [];
      let pages = 0;
      for (let offset: number | null = 0; offset !== null; pages++) {
        const r = await servers.get(cap)!.call(tool, { symbol, ...args, offset });
        expect(r.isError).toBe(false);
        expect(answerTokens(r.texts)).toBeLessThanOrEqual(cap);
        nodes.push(...r.json.nodes.map((n: any) => JSON.stringify(n)));
        edges.push(...r.json.edges.map((e: any) => JSON.stringify(e)));
        byFile.push(...(r.json.byFile ?? []).flatMap((f: any) => f.symbols.map((s: any) => `${f.path} ${JSON.stringify(s)}`)));
        offset = r.json.nextOffset;
      }
      expect(pages).toBeGreaterThan(1);
      // Concatenated in order, the pages are the uncut lists (nothing repeated, nothing left out).
      expect(nodes).toEqual(uncut.nodes.map((n: any) => JSON.stringify(n)));
      expect(edges).toEqual(uncut.edges.map((e: any) => JSON.stringify(e)));
      expect(byFile.sort()).toEqual((uncut.byFile ?? []).flatMap((f: any) => f.symbols.map((s: any) => `${f.path} ${JSON.stringify(s)}`)).sort());
    }, 300_000);
  }

  it('read_file pages by start_line: the pages put together are the file', async () => {
    const cap = CAPS[1]!;
    const text = readFileSync(join(repo.root, repo.largestFile), 'utf8');
    const parts: string[] = [];
    for (let start: number | null = 1; start !== null; ) {
      const r = await servers.get(cap)!.call('read_file', { path: repo.largestFile, start_line: start });
      expect(answerTokens(r.texts)).toBeLessThanOrEqual(cap);
      parts.push(r.json.content);
      start = r.json.endLine < r.json.totalLines ? r.json.endLine + 1 : null;
      if (start !== null) expect(r.json.notices).toEqual([expect.stringContaining(`ask again with start_line ${start} (of ${r.json.totalLines})`)]);
    }
    expect(parts.length).toBeGreaterThan(5);
    expect(`${parts.join('\n')}\n`).toBe(text);
  }, 120_000);
});
