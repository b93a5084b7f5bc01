import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, GRAPH_FORMATS, renderNavigationGraph, type GraphFormat } from '../src/index.js';
import { checkDot, checkGraphml, checkJson, checkMermaid, graphvizMissing, type ParsedGraph } from './graphCheckers.js';
import { copyFixture, TS_APP } from './helpers.js';

/**
 * fixtures/ts-app/src/auth/tokenStore.ts with the semantic pass off (the syntactic graph, as in
 * navigation.test.ts). Its 13 symbols in source order: the file, interface StoredToken (2-5)
 * with properties value (3) and expiresAt (4), interface TokenStore (8-12) with methods save
 * (9), load (10), clear (11), class MemoryTokenStore (18-37) with property tokens (19) and
 * methods save (21-23), load (25-32), clear (34-36).
 */
const TOKEN_STORE_NODES = [
  'src/auth/tokenStore.ts file 1-37',
  'StoredToken interface 2-5',
  'StoredToken.value property 3-3',
  'StoredToken.expiresAt property 4-4',
  'TokenStore interface 8-12',
  'TokenStore.save method 9-9',
  'TokenStore.load method 10-10',
  'TokenStore.clear method 11-11',
  'MemoryTokenStore class 18-37',
  'MemoryTokenStore.tokens property 19-19',
  'MemoryTokenStore.save method 21-23',
  'MemoryTokenStore.load method 25-32',
  'MemoryTokenStore.clear method 34-36',
];

/**
 * Edges from those symbols, by the source, in (source batch, use site) order: `contains` for each
 * nesting (exact); the type annotations `StoredToken` at lines 9, 10, 19, 21, 25 (approximate:
 * name-matched); `implements TokenStore` (18); `this.tokens` read at 22, 26, 35; the call
 * `this.clear(userId)` (28) resolved by name; and the calls nothing in the index declares —
 * `new Map` (19), `this.tokens.set` (22), `.get` (26), `Date.now` (27), `.delete` (35) — to
 * unresolved targets (`?name`), one per distinct name.
 */
const TOKEN_STORE_EDGES = [
  'src/auth/tokenStore.ts contains exact StoredToken :2',
  'StoredToken contains exact StoredToken.value :3',
  'StoredToken contains exact StoredToken.expiresAt :4',
  'src/auth/tokenStore.ts contains exact TokenStore :8',
  'TokenStore contains exact TokenStore.save :9',
  'TokenStore.save references approximate StoredToken :9',
  'TokenStore contains exact TokenStore.load :10',
  'TokenStore.load references approximate StoredToken :10',
  'TokenStore contains exact TokenStore.clear :11',
  'src/auth/tokenStore.ts contains exact MemoryTokenStore :18',
  'MemoryTokenStore implements approximate TokenStore :18',
  'MemoryTokenStore contains exact MemoryTokenStore.tokens :19',
  'MemoryTokenStore.tokens calls approximate ?Map :19',
  'MemoryTokenStore.tokens references approximate StoredToken :19',
  'MemoryTokenStore contains exact MemoryTokenStore.save :21',
  'MemoryTokenStore.save references approximate StoredToken :21',
  'MemoryTokenStore.save calls approximate ?this.tokens.set :22',
  'MemoryTokenStore.save references approximate MemoryTokenStore.tokens :22',
  'MemoryTokenStore contains exact MemoryTokenStore.load :25',
  'MemoryTokenStore.load references approximate StoredToken :25',
  'MemoryTokenStore.load calls approximate ?this.tokens.get :26',
  'MemoryTokenStore.load references approximate MemoryTokenStore.tokens :26',
  'MemoryTokenStore.load calls approximate ?Date.now :27',
  'MemoryTokenStore.load calls approximate MemoryTokenStore.clear :28',
  'MemoryTokenStore contains exact MemoryTokenStore.clear :34',
  'MemoryTokenStore.clear calls approximate ?this.tokens.delete :35',
  'MemoryTokenStore.clear references approximate MemoryTokenStore.tokens :35',
];

/** The boundary notice of the tokenStore.ts part (its derivation is in the first test). */
const INBOUND_NOTICE = "7 edges from nodes not in this graph (outside the filter) into 3 of its nodes, not written: each node's inboundOutside counts them";

function sortedKeys(g: ParsedGraph): string[] {
  return [...g.nodes.keys()].sort();
}

/** Nodes and edges of a JSON export as the lists above spell them. */
function readable(text: string): { nodes: string[]; edges: string[]; unresolved: string[]; truncated: boolean; notices: string[] } {
  const g = JSON.parse(text);
  const name = new Map<string, string>(g.nodes.map((n: any) => [n.id, n.qualifiedName]));
  for (const u of g.unresolved) name.set(u.id, `?${u.name}`);
  return {
    nodes: g.nodes.map((n: any) => `${n.qualifiedName} ${n.kind} ${n.startLine}-${n.endLine}`),
    edges: g.edges.map((e: any) => `${name.get(e.from)} ${e.type} ${e.confidence} ${name.get(e.to)} :${e.line}`),
    unresolved: g.unresolved.map((u: any) => `${u.id} ${u.name}`),
    truncated: g.truncated,
    notices: g.notices,
  };
}

describe('ca graph over fixtures/ts-app', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(TS_APP), { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  });
  afterAll(() => engine.close());

  const exported = (format: GraphFormat, options: { filter?: string; maxNodes?: number } = {}) => {
    const chunks: string[] = [];
    const report = engine.graph(format, (c) => chunks.push(c), options);
    return { text: chunks.join(''), chunks, report };
  };

  it('one file by filter: exactly its symbols, the edges from them, unresolved targets named once each', () => {
    const { text, report } = exported('json', { filter: 'path:src/auth/tokenStore.ts' });
    expect(readable(text)).toEqual({
      nodes: TOKEN_STORE_NODES,
      edges: TOKEN_STORE_EDGES,
      // In order of first use.
      unresolved: ['u1 Map', 'u2 this.tokens.set', 'u3 this.tokens.get', 'u4 Date.now', 'u5 this.tokens.delete'],
      truncated: false,
      notices: [INBOUND_NOTICE],
    });
    expect(report).toEqual({ nodes: 13, totalNodes: 13, edges: 27, unresolved: 5, omittedEdges: 0, inboundOutside: 7, boundaryNodes: 3, truncated: false, notices: [INBOUND_NOTICE] });
    // Where the part meets the rest: src/auth/authService.ts line 1 imports StoredToken, TokenStore
    // and MemoryTokenStore; it names StoredToken as a type at 7 (Session.token) and 69
    // (issueToken's return), TokenStore at 19 (the constructor's parameter) and calls `new
    // MemoryTokenStore()` at 19. Every other node is reached from inside the file only.
    const inbound = JSON.parse(text).nodes.map((n: any) => [n.qualifiedName, n.inboundOutside]).filter(([, k]: [string, number]) => k > 0);
    expect(inbound).toEqual([
      ['StoredToken', 3],
      ['TokenStore', 2],
      ['MemoryTokenStore', 2],
    ]);
    expect(JSON.parse(text).nodes.every((n: any) => Number.isInteger(n.inboundOutside))).toBe(true);
  });

  it('the boundary in GraphML, DOT and Mermaid: each node says its edges from outside', () => {
    const filter = { filter: 'path:src/auth/tokenStore.ts' };
    const json = JSON.parse(exported('json', filter).text);
    const id = json.nodes.find((n: any) => n.qualifiedName === 'StoredToken').id;
    expect(exported('graphml', filter).text).toMatch(new RegExp(`<node id="n${id}">.*<data key="n_inboundOutside">3</data></node>`));
    expect(exported('dot', filter).text).toMatch(new RegExp(`  n${id} \\[label="StoredToken",.*, inbound_outside=3\\];`));
    expect(exported('mermaid', filter).text).toContain(`  %% n${id}: 3 inbound from outside this graph\n  n${id}["StoredToken"]\n`);
    // The whole graph has no outside: every node says 0, and no notice is added.
    const whole = exported('json');
    expect(JSON.parse(whole.text).nodes.every((n: any) => n.inboundOutside === 0)).toBe(true);
    expect([whole.report.inboundOutside, whole.report.boundaryNodes]).toEqual([0, 0]);
  });

  it('the same part in every format: each checker reads back the same 13 + 5 nodes and 27 edges', async () => {
    const json = checkJson(exported('json', { filter: 'path:src/auth/tokenStore.ts' }).text);
    const graphml = checkGraphml(exported('graphml', { filter: 'path:src/auth/tokenStore.ts' }).text);
    const mermaid = await checkMermaid(exported('mermaid', { filter: 'path:src/auth/tokenStore.ts' }).text);
    expect([json.nodes.size, json.edges.length]).toEqual([18, 27]);
    // Same ids with the same names (GraphML writes an unresolved node where it is first used).
    expect(graphml.nodes).toEqual(json.nodes);
    expect(graphml.edges).toEqual(json.edges);
    // Mermaid labels are qualified names (unresolved ones with " ?"): same ids.
    expect(sortedKeys(mermaid)).toEqual(sortedKeys(json));
    expect(mermaid.edges).toEqual(json.edges);
    if (graphvizMissing() === null) checkDot(exported('dot', { filter: 'path:src/auth/tokenStore.ts' }).text, { nodes: 18, edges: 27 });
  });

  it('--max-nodes: the first N in path order, the edges among them, and notices of what was cut', () => {
    const { text, report } = exported('json', { filter: 'path:src/auth/tokenStore.ts', maxNodes: 3 });
    // Kept: the file, StoredToken, StoredToken.value. Left out: file→TokenStore (8), file→MemoryTokenStore (18), StoredToken→expiresAt (4).
    // Into StoredToken from outside the 3: the 3 edges from authService.ts above, and from the
    // part's own nodes cut by the cap — TokenStore.save (9), TokenStore.load (10),
    // MemoryTokenStore.tokens (19), .save (21), .load (25) name it as a type: 8.
    const notices = [
      'kept the first 3 of 13 nodes in path order (--max-nodes 3)',
      '3 edges to nodes not in this graph (outside the filter or cut by --max-nodes) not written',
      "8 edges from nodes not in this graph (outside the filter or cut by --max-nodes) into 1 of its nodes, not written: each node's inboundOutside counts them",
    ];
    expect(readable(text)).toEqual({
      nodes: TOKEN_STORE_NODES.slice(0, 3),
      edges: ['src/auth/tokenStore.ts contains exact StoredToken :2', 'StoredToken contains exact StoredToken.value :3'],
      unresolved: [],
      truncated: true,
      notices,
    });
    expect(report).toEqual({ nodes: 3, totalNodes: 13, edges: 2, unresolved: 0, omittedEdges: 3, inboundOutside: 8, boundaryNodes: 1, truncated: true, notices });
    expect(JSON.parse(text).nodes.map((n: any) => n.inboundOutside)).toEqual([0, 8, 0]);
    // The other formats carry the cut too.
    expect(exported('graphml', { filter: 'path:src/auth/tokenStore.ts', maxNodes: 3 }).text).toContain('<data key="g_truncated">true</data>');
    expect(exported('mermaid', { filter: 'path:src/auth/tokenStore.ts', maxNodes: 3 }).text).toContain('%% notice: kept the first 3 of 13 nodes in path order (--max-nodes 3)\n');
  });

  it('the whole graph is streamed: one write per node, edge and unresolved target, each small, all formats valid', async () => {
    const json = exported('json');
    const { nodes, edges, unresolved } = json.report;
    expect(json.report.truncated).toBe(false);
    expect(json.report.omittedEdges).toBe(0);
    // Header, nodes, edges, footer (JSON lists unresolved targets in its footer).
    expect(json.chunks.length).toBe(1 + nodes + edges + 1);
    for (const format of GRAPH_FORMATS.filter((f) => f !== 'json')) {
      const out = exported(format);
      expect(out.report).toEqual(json.report);
      expect(out.chunks.length).toBe(1 + nodes + unresolved + edges + 1);
      // No chunk holds more than one element (the header with its keys is the largest).
      expect(Math.max(...out.chunks.slice(1, -1).map((c) => c.split('\n').length - 1))).toBe(1);
    }
    const parsed = checkJson(json.text);
    expect([parsed.nodes.size, parsed.edges.length]).toEqual([nodes + unresolved, edges]);
    expect(checkGraphml(exported('graphml').text).edges).toEqual(parsed.edges);
    expect((await checkMermaid(exported('mermaid').text)).edges).toEqual(parsed.edges);
    if (graphvizMissing() === null) checkDot(exported('dot').text, { nodes: nodes + unresolved, edges });
  });

  it('a filter outside the index selects nothing and says so (a notice) in a valid empty graph; a bad filter is a usage error', () => {
    const empty = ['the filter selects no nodes: the graph is empty'];
    expect(readable(exported('json', { filter: 'path:nowhere/**' }).text)).toEqual({ nodes: [], edges: [], unresolved: [], truncated: false, notices: empty });
    expect(exported('json', { filter: 'path:nowhere/**' }).report).toEqual({ nodes: 0, totalNodes: 0, edges: 0, unresolved: 0, omittedEdges: 0, inboundOutside: 0, boundaryNodes: 0, truncated: false, notices: empty });
    expect(exported('mermaid', { filter: 'path:nowhere/**' }).text).toBe('flowchart LR\n  classDef unresolved stroke-dasharray:4 4\n  %% notice: the filter selects no nodes: the graph is empty\n');
    expect(() => exported('json', { filter: 'lang:' })).toThrow();
    expect(() => exported('json', { maxNodes: 0 })).toThrow('--max-nodes must be a positive integer (got 0)');
  });
});

describe('navigation answers in the graph formats (fixtures/ts-app)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(TS_APP), { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  });
  afterAll(() => engine.close());

  it('callers of AuthService.issueToken: the symbol, its two callers, two approximate calls, the gap as a notice', async () => {
    // navigation.test.ts pins the answer: AuthService.login (line 32) and AuthService.refresh (line 46) call it.
    const r = engine.navigate('callers', 'AuthService.issueToken');
    const json = JSON.parse(renderNavigationGraph(r, 'json'));
    const name = new Map<string, string>(json.nodes.map((n: any) => [n.id, n.qualifiedName]));
    expect(json.nodes.map((n: any) => n.qualifiedName)).toEqual(['AuthService.issueToken', 'AuthService.login', 'AuthService.refresh']);
    expect(json.edges.map((e: any) => `${name.get(e.from)} ${e.type} ${e.confidence} ${name.get(e.to)} :${e.line}`)).toEqual([
      'AuthService.login calls approximate AuthService.issueToken :32',
      'AuthService.refresh calls approximate AuthService.issueToken :46',
    ]);
    expect(json.notices).toEqual([
      'incomplete: project ts-app-fixture (ts): syntactic only (1 file): no semantic pass has run; call/reference edges there are approximate (name-matched) and may be missing or wrong',
    ]);
    for (const format of ['graphml', 'mermaid'] as const) {
      const parsed = format === 'graphml' ? checkGraphml(renderNavigationGraph(r, format)) : await checkMermaid(renderNavigationGraph(r, format));
      expect(parsed.edges).toEqual(checkJson(renderNavigationGraph(r, 'json')).edges);
    }
    if (graphvizMissing() === null) checkDot(renderNavigationGraph(r, 'dot'), { nodes: 3, edges: 2 });
  });

  it('callees keep unresolved targets as explicit nodes', () => {
    // AuthService.login calls 8 things (navigation.test.ts): 2 resolved, 6 unresolved sites naming 5 distinct targets (Error twice).
    const json = JSON.parse(renderNavigationGraph(engine.navigate('callees', 'AuthService.login'), 'json'));
    expect(json.unresolved.map((u: any) => u.name)).toEqual(['this.failedAttempts.get', 'Error', 'this.failedAttempts.set', 'this.failedAttempts.delete', 'this.store.save']);
    expect(json.edges.map((e: any) => e.to)).toEqual(['u1', 'u2', expect.stringMatching(/^\d+$/), 'u3', 'u2', 'u4', expect.stringMatching(/^\d+$/), 'u5']);
  });
});

describe('ca graph of a commit label', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  let engine: Engine;
  beforeAll(async () => {
    // `main` is the fixture (the working tree); `feature` adds src/billing/refund.ts, indexed as label `feature` from git objects.
    const repo = copyFixture(TS_APP);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixture');
    git(repo, 'checkout', '-q', '-b', 'feature');
    writeFileSync(
      join(repo, 'src/billing/refund.ts'),
      `import { formatCurrency } from '../utils/format';\n\n/** The refund line. */\nexport function refundLabel(cents: number): string {\n  return 'Refund of ' + formatCurrency(cents);\n}\n`,
    );
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'refunds');
    git(repo, 'checkout', '-q', 'main');
    engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
    await engine.indexCommit('feature', 'feature');
  }, 180_000);
  afterAll(() => engine.close());

  const part = (label: string) => {
    const chunks: string[] = [];
    const report = engine.graph('json', (c) => chunks.push(c), { filter: 'path:src/billing/refund.ts or path:src/utils/format.ts', label });
    return { ...readable(chunks.join('')), report };
  };

  it('holds the label\'s files only, with edges between them', () => {
    const feature = part('feature');
    const working = part('working');
    // refund.ts exists in `feature` only: its file node and refundLabel (4-6).
    expect(feature.nodes.filter((n) => n.includes('refund'))).toEqual(['src/billing/refund.ts file 1-6', 'refundLabel function 4-6']);
    expect(working.nodes.filter((n) => n.includes('refund'))).toEqual([]);
    // format.ts is the same blob in both labels: the same nodes.
    expect(feature.nodes.filter((n) => !n.includes('refund'))).toEqual(working.nodes);
    // Edges into formatCurrency (format.ts:12): the import (refund.ts line 1, resolved by the
    // import resolver: exact), the call (line 5, name-matched: approximate), and its file's
    // `contains`; batches go in path order, so refund.ts's edges come first.
    expect(feature.edges.filter((e) => e.endsWith(' formatCurrency :1') || e.endsWith(' formatCurrency :5') || e.endsWith(' formatCurrency :12'))).toEqual([
      'src/billing/refund.ts imports exact formatCurrency :1',
      'refundLabel calls approximate formatCurrency :5',
      'src/utils/format.ts contains exact formatCurrency :12',
    ]);
    expect(working.edges.filter((e) => e.startsWith('src/billing/refund.ts ') || e.startsWith('refundLabel '))).toEqual([]);
    expect(feature.report.nodes - working.report.nodes).toBe(2);
  });
});
