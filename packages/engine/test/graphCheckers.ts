import { spawnSync } from 'node:child_process';
import { Ajv } from 'ajv';
import DOMPurify from 'dompurify';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';
import { GRAPH_JSON_SCHEMA } from '../src/index.js';

/** Each graph format's own checker, for the graph tests (graphFormat.test.ts, graphExport.test.ts). */

/** A parsed graph: written node ids with their names (unresolved ones too) and edges as `from>to type confidence`. */
export interface ParsedGraph {
  readonly nodes: Map<string, string>;
  readonly edges: string[];
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (_name: string, _path: unknown, _leaf: boolean, isAttribute: boolean) => !isAttribute, parseTagValue: false, trimValues: false, processEntities: true, htmlEntities: true });

/**
 * GraphML: a well-formed XML document (fast-xml-parser's validator), every `<key>` declared with
 * `for` and `attr.name`, every `<data>` of a node/edge/graph using a key declared for it, every
 * edge's ends written nodes. Returns nodes (id → name) and edges.
 */
export function checkGraphml(text: string): ParsedGraph {
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`GraphML is not well-formed XML: ${JSON.stringify(valid.err)}`);
  const doc = xml.parse(text) as any;
  const root = doc.graphml[0];
  expect(root['@xmlns']).toBe('http://graphml.graphdrawing.org/xmlns');
  const keys = new Map<string, { for: string; name: string }>();
  for (const k of root.key) {
    expect(['node', 'edge', 'graph']).toContain(k['@for']);
    expect(typeof k['@attr.name']).toBe('string');
    keys.set(k['@id'], { for: k['@for'], name: k['@attr.name'] });
  }
  const graph = root.graph[0];
  const dataOf = (el: any, kind: string): Map<string, string> => {
    const out = new Map<string, string>();
    for (const d of el.data ?? []) {
      const key = keys.get(d['@key']);
      if (!key || key.for !== kind) throw new Error(`<data key="${d['@key']}"> on a ${kind} uses no key declared for ${kind}`);
      out.set(key.name, typeof d === 'string' ? d : String(d['#text'] ?? ''));
    }
    return out;
  };
  dataOf(graph, 'graph');
  const nodes = new Map<string, string>();
  for (const n of graph.node ?? []) {
    if (nodes.has(n['@id'])) throw new Error(`node ${n['@id']} written twice`);
    nodes.set(n['@id'], dataOf(n, 'node').get('name') ?? '');
  }
  const edges: string[] = [];
  for (const e of graph.edge ?? []) {
    const data = dataOf(e, 'edge');
    if (!nodes.has(e['@source']) || !nodes.has(e['@target'])) throw new Error(`edge ${e['@source']} → ${e['@target']} has an end that is no node`);
    edges.push(`${e['@source']}>${e['@target']} ${data.get('type')} ${data.get('confidence')}`);
  }
  return { nodes, edges };
}

/** JSON: parses, and holds the documented shape (GRAPH_JSON_SCHEMA, checked by Ajv); every edge's `to` a node or unresolved id. */
export function checkJson(text: string): ParsedGraph {
  const value = JSON.parse(text);
  const validate = new Ajv({ allErrors: true }).compile(GRAPH_JSON_SCHEMA);
  if (!validate(value)) throw new Error(`JSON graph does not hold its schema: ${JSON.stringify(validate.errors)}`);
  const nodes = new Map<string, string>();
  for (const n of value.nodes) nodes.set(`n${n.id}`, n.name);
  for (const u of value.unresolved) nodes.set(u.id, u.name);
  const edges = value.edges.map((e: any) => {
    const to = /^u/.test(e.to) ? e.to : `n${e.to}`;
    if (!nodes.has(`n${e.from}`) || !nodes.has(to)) throw new Error(`edge ${e.from} → ${e.to} has an end that is no node`);
    return `n${e.from}>${to} ${e.type} ${e.confidence}`;
  });
  return { nodes, edges };
}

/** Why `dot` cannot check DOT here, or null when Graphviz is installed. */
export function graphvizMissing(): string | null {
  const r = spawnSync('dot', ['-V'], { encoding: 'utf8' });
  if (r.status === 0) return null;
  const reason = 'Graphviz `dot` is not installed (apt-get install graphviz): the DOT outputs are not checked by dot -Tsvg';
  if (process.env['CA_REQUIRE_GRAPHVIZ'] === '1') throw new Error(`CA_REQUIRE_GRAPHVIZ=1 but ${reason}`);
  console.warn(`skipping: ${reason}`);
  return reason;
}

/**
 * DOT: `dot -Tsvg` renders it without an error or warning, and `dot -Tjson` reads back as many
 * nodes and edges as were written (no name merged two nodes or cut one short).
 */
export function checkDot(text: string, expected: { nodes: number; edges: number }): void {
  const svg = spawnSync('dot', ['-Tsvg'], { input: text, encoding: 'utf8' });
  if (svg.status !== 0 || svg.stderr !== '') throw new Error(`dot -Tsvg refused the DOT (status ${svg.status}): ${svg.stderr}\n${text}`);
  expect(svg.stdout).toContain('<svg');
  const json = spawnSync('dot', ['-Tjson'], { input: text, encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(json.status).toBe(0);
  const parsed = JSON.parse(json.stdout) as { objects?: unknown[]; edges?: unknown[] };
  expect([parsed.objects?.length ?? 0, parsed.edges?.length ?? 0]).toEqual([expected.nodes, expected.edges]);
}

// Mermaid's own parser (the `mermaid` package) runs in Node once DOMPurify, which it calls only
// to sanitize rendered labels in a browser, is given no-op hooks (there is no DOM here).
const purify = DOMPurify as unknown as Record<string, unknown>;
purify['addHook'] = () => undefined;
purify['removeHook'] = () => undefined;
purify['removeHooks'] = () => undefined;
purify['sanitize'] = (s: string) => s;
const mermaid = (await import('mermaid')).default;

/** Mermaid's entity placeholders (`#35;` is held as `ﬂ°°35¶ß` until rendering) back to characters. */
function mermaidDecode(s: string): string {
  return s.replace(/ﬂ°°(\d+)¶ß/g, (_, code: string) => String.fromCodePoint(Number(code)));
}

/** Mermaid: accepted by `mermaid.parse`, then read back from the flowchart's database (vertex labels decoded). */
export async function checkMermaid(text: string): Promise<ParsedGraph> {
  await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db as unknown as { getVertices(): Map<string, { id: string; text: string }>; getEdges(): { start: string; end: string; text: string; stroke: string }[] };
  const nodes = new Map<string, string>();
  for (const v of db.getVertices().values()) nodes.set(v.id, mermaidDecode(v.text));
  const edges = db.getEdges().map((e) => {
    const [type, confidence = 'exact'] = e.text.split(' ');
    expect(e.stroke).toBe(confidence === 'exact' ? 'normal' : 'dotted');
    return `${e.start}>${e.end} ${type} ${confidence}`;
  });
  return { nodes, edges };
}

