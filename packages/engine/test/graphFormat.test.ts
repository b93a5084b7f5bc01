import { describe, expect, it } from 'vitest';
import { CONFIDENCES, EDGE_TYPES } from '@ca/schema';
import { GRAPH_FORMATS, parseGraphFormat, renderGraphText, type GraphEdgeOut, type GraphNodeOut } from '../src/index.js';
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
