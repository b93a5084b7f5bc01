import { describe, expect, it } from 'vitest';
import { CONFIDENCES, EDGE_TYPES } from '@ca/schema';
import { GRAPH_FORMATS, parseGraphFormat, renderGraphText, renderNavigationGraph, type GraphEdgeOut, type GraphNodeOut } from '../src/index.js';
import { checkDot, checkGraphml, checkJson, checkMermaid, graphvizMissing } from './graphCheckers.js';
import { seededRandom } from './helpers.js';

// ---------------------------------------------------------------------------------------------
// Generated graphs

/** Pieces names are built of: markup, quotes, format syntax, unicode (astral too), line breaks, controls. */
const PIECES = ['<', '>', '&', '"', "'", '#', ';', '|', '%%', '-->', '--', '{', '}', '[', ']', '(', ')', '\\', '`', '\n', '\r\n', '\t', '\u0001', ' ', 'é', 'Ж', '名前', '😀', '<img src=x onerror=alert(1)>', 'end', 'graph', 'node', 'a', 'Z', '0', '_', '.', '$', '#quot;', '&amp;', ']]>', '<!--', '\\n'];

function generatedName(random: () => number): string {
  const length = 1 + Math.floor(random() * 6);
  let s = '';
  for (let i = 0; i < length; i++) s += PIECES[Math.floor(random() * PIECES.length)]!;
  return s;
}

/** A graph of `nodeCount` nodes with generated names and 2 edges per node, one in five unresolved (targets named alike). */
function generatedGraph(seed: number, nodeCount: number): { nodes: GraphNodeOut[]; edges: GraphEdgeOut[] } {
  const random = seededRandom(seed);
  const nodes: GraphNodeOut[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = generatedName(random);
    nodes.push({ id: String(100 + i), kind: 'method', name, qualifiedName: `${generatedName(random)}.${name}`, path: `src/${generatedName(random)}.ts`, startLine: i + 1, endLine: i + 3, language: 'ts' });
  }
  const edges: GraphEdgeOut[] = [];
  for (const from of nodes) {
    for (let k = 0; k < 2; k++) {
      const unresolved = random() < 0.2;
      const target = nodes[Math.floor(random() * nodes.length)]!;
      edges.push({
        from: from.id,
        to: unresolved ? null : target.id,
        type: EDGE_TYPES[Math.floor(random() * EDGE_TYPES.length)]!,
        confidence: CONFIDENCES[Math.floor(random() * CONFIDENCES.length)]!,
        path: from.path,
        line: from.startLine,
        targetName: unresolved ? generatedName(random) : target.name,
      });
    }
  }
  return { nodes, edges };
}

/**
 * What every format must hold for a generated graph: each node once (id `n<id>`), one
 * unresolved node per distinct unresolved name (`u1`, `u2`, … in order of first use), each edge once.
 */
function expectedOf(g: { nodes: GraphNodeOut[]; edges: GraphEdgeOut[] }, nameOf: (n: GraphNodeOut) => string) {
  const nodes = new Map<string, string>(g.nodes.map((n) => [`n${n.id}`, nameOf(n)]));
  const unresolved = new Map<string, string>();
  const edges = g.edges.map((e) => {
    let to = e.to === null ? null : `n${e.to}`;
    if (to === null) {
      to = unresolved.get(e.targetName) ?? `u${unresolved.size + 1}`;
      unresolved.set(e.targetName, to);
    }
    return `n${e.from}>${to} ${e.type} ${e.confidence}`;
  });
  return { nodes, unresolved, edges };
}

/** GraphML and XML cannot hold C0 controls but tab, LF, CR: they are written as U+FFFD. */
function xmlVisible(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '\uFFFD');
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];
const SUMMARY = { truncated: true, notices: ['kept the first 3 of 9 nodes -- a "notice" with <markup> & {braces} */ %%{init}%%\nsecond line'] };

describe('graph formats over generated names (each checked by its own parser)', () => {
  it('GraphML: well-formed, keys declared, every name read back exactly', () => {
    for (const seed of SEEDS) {
      const g = generatedGraph(seed, 12);
      const parsed = checkGraphml(renderGraphText('graphml', g.nodes, g.edges, SUMMARY));
      const want = expectedOf(g, (n) => xmlVisible(n.name));
      for (const [name, id] of want.unresolved) want.nodes.set(id, xmlVisible(name));
      expect(parsed.nodes).toEqual(want.nodes);
      expect(parsed.edges).toEqual(want.edges);
    }
  });

  it('JSON: the documented schema, every name read back exactly', () => {
    for (const seed of SEEDS) {
      const g = generatedGraph(seed, 12);
      const text = renderGraphText('json', g.nodes, g.edges, SUMMARY);
      const parsed = checkJson(text);
      const want = expectedOf(g, (n) => n.name);
      for (const [name, id] of want.unresolved) want.nodes.set(id, name);
      expect(parsed.nodes).toEqual(want.nodes);
      expect(parsed.edges).toEqual(want.edges);
      expect(JSON.parse(text).truncated).toBe(true);
      expect(JSON.parse(text).notices).toEqual(SUMMARY.notices);
    }
  });

  it('Mermaid: mermaid.parse accepts it, and its flowchart holds every node (label decoded) and edge', async () => {
    for (const seed of SEEDS) {
      const g = generatedGraph(seed, 12);
      const parsed = await checkMermaid(renderGraphText('mermaid', g.nodes, g.edges, SUMMARY));
      // Labels are qualified names, every special or control character an entity code read back exactly; unresolved ones end with " ?".
      const want = expectedOf(g, (n) => n.qualifiedName);
      for (const [name, id] of want.unresolved) want.nodes.set(id, `${name} ?`);
      expect(parsed.nodes).toEqual(want.nodes);
      expect(parsed.edges).toEqual(want.edges);
    }
  });

  const noDot = graphvizMissing();
  it.skipIf(noDot !== null)('DOT: dot -Tsvg accepts it, and dot -Tjson reads back every node and edge', () => {
    for (const seed of SEEDS) {
      const g = generatedGraph(seed, 12);
      const want = expectedOf(g, (n) => n.name);
      checkDot(renderGraphText('dot', g.nodes, g.edges, SUMMARY), { nodes: g.nodes.length + want.unresolved.size, edges: g.edges.length });
    }
  });

  it('an empty graph is valid in every format', async () => {
    const empty = { truncated: false, notices: [] };
    expect(checkGraphml(renderGraphText('graphml', [], [], empty))).toEqual({ nodes: new Map(), edges: [] });
    expect(JSON.parse(renderGraphText('json', [], [], empty))).toEqual({ nodes: [], edges: [], unresolved: [], truncated: false, notices: [] });
    expect(await checkMermaid(renderGraphText('mermaid', [], [], empty))).toEqual({ nodes: new Map(), edges: [] });
    if (noDot === null) checkDot(renderGraphText('dot', [], [], empty), { nodes: 0, edges: 0 });
  });

  it('--format accepts the four formats and names them in its error', () => {
    expect(GRAPH_FORMATS.map((f) => parseGraphFormat(f))).toEqual(['graphml', 'json', 'dot', 'mermaid']);
    expect(() => parseGraphFormat('svg')).toThrow('--format must be one of graphml, json, dot, mermaid (got "svg")');
  });
});

describe('the checkers refuse broken output (each check can fail)', () => {
  const node: GraphNodeOut = { id: '1', kind: 'class', name: 'A', qualifiedName: 'A', path: 'a.ts', startLine: 1, endLine: 2, language: 'ts' };
  const good = (format: 'graphml' | 'json' | 'mermaid' | 'dot') => renderGraphText(format, [node], [{ from: '1', to: '1', type: 'calls', confidence: 'exact', path: 'a.ts', line: 1, targetName: 'A' }], { truncated: false, notices: [] });

  it('GraphML: an unescaped "<", a data key never declared, an edge to no node', () => {
    expect(() => checkGraphml(good('graphml').replace('>A<', '>A<B<'))).toThrow('not well-formed');
    expect(() => checkGraphml(good('graphml').replace('key="n_kind"', 'key="n_colour"'))).toThrow('uses no key declared for node');
    expect(() => checkGraphml(good('graphml').replace('target="n1"', 'target="n2"'))).toThrow('has an end that is no node');
  });

  it('JSON: a missing field, an edge to no node', () => {
    expect(() => checkJson(good('json').replace('"truncated":false,', ''))).toThrow('does not hold its schema');
    expect(() => checkJson(good('json').replace('"to":"1"', '"to":"7"'))).toThrow('has an end that is no node');
  });

  it('Mermaid: a raw quote inside a label', async () => {
    await expect(checkMermaid(good('mermaid').replace('["A"]', '["A"B"]'))).rejects.toThrow('Parse error');
  });

  it.skipIf(graphvizMissing() !== null)('DOT: a string left open by a trailing backslash', () => {
    expect(() => checkDot(good('dot').replace('label="A"', 'label="A\\"'), { nodes: 1, edges: 1 })).toThrow('dot -Tsvg refused');
  });
});

describe('navigation answers drawn with hostile names', () => {
  // Regression: the former renderGraph (navigation.ts) turned `"` into `'`, left `\` unescaped in
  // DOT (a name ending with one left the string open: dot refused the graph) and wrote Mermaid
  // labels raw (`#quot;` rendered as a quote, `<b>` as markup).
  const names = ['src/x\\', 'src/#quot;.ts', 'src/<b>x</b>.ts', 'say "hi"', 'two\nlines'];
  const nodeOf = (id: string, name: string) => ({ id, name, qualifiedName: name, kind: 'file' as const, language: 'ts' as const, path: name, startLine: 1, endLine: 1, depth: 1, signature: '', doc: null, modifiers: [], isPublicApi: false });
  const result = {
    navigation: 'deps' as const,
    symbol: nodeOf('1', 'main.ts'),
    complete: true,
    gaps: [],
    nodes: names.map((n, i) => nodeOf(String(i + 2), n)),
    edges: names.map((n, i) => ({ from: '1', to: String(i + 2), type: 'imports' as const, confidence: 'exact' as const, path: 'main.ts', line: i + 1, targetName: n })),
    truncated: false,
    maxNodes: 50_000,
    totalReached: names.length,
    totalReachedExact: true,
  };

  it('Mermaid reads every name back exactly; GraphML and JSON too', async () => {
    const want = new Map([['n1', 'main.ts'], ...names.map((n, i) => [`n${i + 2}`, n] as [string, string])]);
    expect((await checkMermaid(renderNavigationGraph(result, 'mermaid'))).nodes).toEqual(want);
    expect(checkGraphml(renderNavigationGraph(result, 'graphml')).nodes).toEqual(want);
    expect(checkJson(renderNavigationGraph(result, 'json')).nodes).toEqual(want);
  });

  it.skipIf(graphvizMissing() !== null)('dot -Tsvg accepts the DOT', () => {
    checkDot(renderNavigationGraph(result, 'dot'), { nodes: 6, edges: 5 });
  });
});
