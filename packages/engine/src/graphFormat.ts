/**
 * The one serializer of graphs for every command that draws one (`ca graph`, and `--format` of
 * callers/callees/refs/impls/deps/dependents/impact): GraphML, JSON, Graphviz DOT and Mermaid,
 * written piece by piece to a sink so that a whole-repository graph is never one string.
 *
 * Nodes are written before edges (the JSON shape needs it); an edge whose target is unresolved
 * points at an explicit `unresolved` node, one per distinct target name (`u1`, `u2`, … in order
 * of first use), so no edge is dropped and no format needs a dangling end.
 */
import { CaError, CONFIDENCES, EDGE_TYPES, type Confidence, type EdgeType } from '@ca/schema';
import type { NavigationEdge } from './navigation.js';

/** The formats `--format` accepts. */
export const GRAPH_FORMATS = ['graphml', 'json', 'dot', 'mermaid'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];

/** A node as every format writes it (`id` is the index's node id, as every other answer prints it). */
export interface GraphNodeOut {
  readonly id: string;
  readonly kind: string;
  readonly name: string;
  readonly qualifiedName: string;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly language: string;
  /**
   * Edges into this node from nodes the graph does not hold (`ca graph` with a filter or a cap:
   * where the exported part meets the rest). Absent in navigation answers.
   */
  readonly inboundOutside?: number;
}

/**
 * An edge as every format writes it: a navigation answer's edge (use site `path`:`line`; `to:
 * null` is an unresolved target named `targetName`).
 */
export type GraphEdgeOut = NavigationEdge;

/** What a graph says about itself at its end. */
export interface GraphSummary {
  /** True when a node cap (`--max-nodes`) left nodes out. */
  readonly truncated: boolean;
  /** Sentences for the reader (what was cut, and why); written inside the format (comments, data). */
  readonly notices: readonly string[];
}

const text = { type: 'string' } as const;
const line = { type: 'integer', minimum: 0 } as const;

/**
 * The documented shape of `--format json` (JSON Schema, draft-07): nodes (ids as every answer
 * prints them), edges (`to` a node id or an `unresolved` entry's `u<k>`), the unresolved
 * targets, whether a cap cut the graph, and the notices.
 */
export const GRAPH_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['nodes', 'edges', 'unresolved', 'truncated', 'notices'],
  properties: {
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'kind', 'name', 'qualifiedName', 'path', 'startLine', 'endLine', 'language'],
        properties: { id: { type: 'string', pattern: '^[0-9]+$' }, kind: text, name: text, qualifiedName: text, path: text, startLine: line, endLine: line, language: text, inboundOutside: line },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to', 'type', 'confidence', 'path', 'line', 'targetName'],
        properties: {
          from: { type: 'string', pattern: '^[0-9]+$' },
          to: { type: 'string', pattern: '^(?:[0-9]+|u[1-9][0-9]*)$' },
          type: { enum: [...EDGE_TYPES] },
          confidence: { enum: [...CONFIDENCES] },
          path: text,
          line,
          targetName: text,
        },
      },
    },
    unresolved: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['id', 'name'], properties: { id: { type: 'string', pattern: '^u[1-9][0-9]*$' }, name: text } },
    },
    truncated: { type: 'boolean' },
    notices: { type: 'array', items: text },
  },
} as const;

/** Parses `--format`; a clear usage error otherwise. */
export function parseGraphFormat(raw: string): GraphFormat {
  if ((GRAPH_FORMATS as readonly string[]).includes(raw)) return raw as GraphFormat;
  throw new CaError('usage', `--format must be one of ${GRAPH_FORMATS.join(', ')} (got "${raw}")`);
}

/** Node and edge attributes of GraphML, declared once as `<key>`s (and named alike in DOT). */
const NODE_KEYS = [
  ['kind', 'string'],
  ['name', 'string'],
  ['qualifiedName', 'string'],
  ['path', 'string'],
  ['startLine', 'int'],
  ['endLine', 'int'],
  ['language', 'string'],
  ['inboundOutside', 'int'],
  ['unresolved', 'boolean'],
] as const;
const EDGE_KEYS = [
  ['type', 'string'],
  ['confidence', 'string'],
  ['path', 'string'],
  ['line', 'int'],
  ['targetName', 'string'],
] as const;
const GRAPH_KEYS = [
  ['truncated', 'boolean'],
  ['notices', 'string'],
] as const;

/**
 * Writes one graph in one format to `write`, piece by piece: `node` for every node, then `edge`
 * for every edge, then `end` once.
 */
export class GraphWriter {
  private readonly unresolved = new Map<string, string>();
  private edges = 0;
  private nodes = 0;
  private ended = false;

  constructor(
    readonly format: GraphFormat,
    private readonly write: (chunk: string) => void,
  ) {
    this.write(HEADERS[format]);
  }

  /** Writes a node (before any edge). */
  node(n: GraphNodeOut): void {
    if (this.edges > 0 || this.ended) throw new CaError('internal', 'graph nodes must be written before its edges');
    this.write(NODE_WRITERS[this.format](n, this.nodes++ === 0));
  }

  /** Writes an edge; an unresolved target gets its node the first time its name is seen. */
  edge(e: GraphEdgeOut): void {
    if (this.ended) throw new CaError('internal', 'graph already ended');
    let to = e.to === null ? null : nodeId(e.to);
    if (to === null) {
      to = this.unresolved.get(e.targetName) ?? null;
      if (to === null) {
        to = `u${this.unresolved.size + 1}`;
        this.unresolved.set(e.targetName, to);
        if (this.format !== 'json') this.write(UNRESOLVED_WRITERS[this.format](to, e.targetName));
      }
    }
    this.write(EDGE_WRITERS[this.format](e, nodeId(e.from), to, this.edges++ === 0));
  }

  /** Ends the graph with its summary (JSON writes the unresolved targets here). */
  end(summary: GraphSummary): void {
    if (this.ended) return;
    this.ended = true;
    this.write(FOOTERS[this.format](summary, [...this.unresolved].map(([name, id]) => ({ id, name })), this.edges > 0));
  }
}

/** Renders a whole graph held in memory (navigation answers) as one string. */
export function renderGraphText(format: GraphFormat, nodes: Iterable<GraphNodeOut>, edges: Iterable<GraphEdgeOut>, summary: GraphSummary): string {
  const parts: string[] = [];
  const w = new GraphWriter(format, (s) => parts.push(s));
  for (const n of nodes) w.node(n);
  for (const e of edges) w.edge(e);
  w.end(summary);
  return parts.join('');
}

/** Written ids: `n<index id>` for nodes (an XML/DOT/Mermaid-safe name), `u<k>` for unresolved targets. */
function nodeId(id: string): string {
  return `n${id}`;
}

// ---------------------------------------------------------------------------------------------
// Escaping

/** Lone surrogates (not text in any encoding) become U+FFFD. */
function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Characters XML 1.0 cannot hold even as references (controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD. */
function xmlSafe(s: string): string {
  // eslint-disable-next-line no-control-regex
  return wellFormed(s).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD');
}

function xmlText(s: string): string {
  return xmlSafe(s).replace(/[&<>"'\r\n\t]/g, (c) => XML_ENTITIES[c]!);
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;', '\n': '&#10;', '\t': '&#9;' };

/** An XML comment cannot hold `--` nor end with `-`. */
function xmlComment(s: string): string {
  return `<!-- ${xmlSafe(s).replace(/-(?=-)/g, '- ').replace(/-$/, '- ')} -->`;
}

/** A DOT double-quoted string: `"` and `\` escaped, line breaks as DOT's `\n` (a label line break). */
function dotString(s: string): string {
  const text = wellFormed(s)
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\r\n|\r|\n/g, '\\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '\uFFFD');
  return `"${text}"`;
}

/**
 * Mermaid label text inside `"…"`: every character that Mermaid's parser or its HTML rendering
 * reads specially, and every control character, becomes a `#<code>;` entity code (Mermaid's own
 * escape), so no name can end a label, start a directive or inject markup, and the name reads
 * back whole.
 */
function mermaidText(s: string): string {
  // eslint-disable-next-line no-control-regex
  const coded = wellFormed(s).replace(/[\u0000-\u001F\u007F"#&<>`\\|{}[\]();%]/g, (c) => `#${c.codePointAt(0)!};`);
  // Mermaid trims a label: its outer spaces are kept as codes.
  return coded.replace(/^ +| +$/g, (m) => '#32;'.repeat(m.length));
}

/** A comment line's text: one line, nothing Mermaid/DOT could read as a directive or a comment end. */
function commentText(s: string): string {
  // eslint-disable-next-line no-control-regex
  return wellFormed(s).replace(/[\u0000-\u001F\u007F]+/g, ' ').replace(/[{}]/g, '').replace(/\*\//g, '* /');
}

// ---------------------------------------------------------------------------------------------
// Per format

const HEADERS: Record<GraphFormat, string> = {
  graphml: [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">',
    ...NODE_KEYS.map(([name, type]) => `  <key id="n_${name}" for="node" attr.name="${name}" attr.type="${type}"/>`),
    ...EDGE_KEYS.map(([name, type]) => `  <key id="e_${name}" for="edge" attr.name="${name}" attr.type="${type}"/>`),
    ...GRAPH_KEYS.map(([name, type]) => `  <key id="g_${name}" for="graph" attr.name="${name}" attr.type="${type}"/>`),
    '  <graph id="ca" edgedefault="directed">',
    '',
  ].join('\n'),
  json: '{"nodes":[',
  dot: 'digraph ca {\n  rankdir=LR;\n  node [shape=box, fontname="monospace"];\n',
  mermaid: 'flowchart LR\n  classDef unresolved stroke-dasharray:4 4\n',
};

function graphmlData(prefix: string, key: string, value: string | number | boolean): string {
  return `<data key="${prefix}_${key}">${xmlText(String(value))}</data>`;
}

const NODE_WRITERS: Record<GraphFormat, (n: GraphNodeOut, first: boolean) => string> = {
  graphml: (n) =>
    `    <node id="${nodeId(n.id)}">${NODE_KEYS.filter(([k]) => k !== 'unresolved' && n[k as keyof GraphNodeOut] !== undefined)
      .map(([k]) => graphmlData('n', k, n[k as keyof GraphNodeOut]!))
      .join('')}</node>\n`,
  json: (n, first) => `${first ? '\n' : ',\n'}${JSON.stringify(jsonNode(n))}`,
  dot: (n) =>
    `  ${nodeId(n.id)} [label=${dotString(n.qualifiedName)}, kind=${dotString(n.kind)}, name=${dotString(n.name)}, qualified_name=${dotString(n.qualifiedName)}, path=${dotString(n.path)}, start_line=${n.startLine}, end_line=${n.endLine}, language=${dotString(n.language)}${n.inboundOutside !== undefined ? `, inbound_outside=${n.inboundOutside}` : ''}];\n`,
  // Mermaid nodes hold a label only: the count is a comment above the node.
  mermaid: (n) => `${n.inboundOutside ? `  %% ${nodeId(n.id)}: ${n.inboundOutside} inbound from outside this graph\n` : ''}  ${nodeId(n.id)}["${mermaidText(n.qualifiedName)}"]\n`,
};

function jsonNode(n: GraphNodeOut): GraphNodeOut {
  return { id: n.id, kind: n.kind, name: n.name, qualifiedName: n.qualifiedName, path: n.path, startLine: n.startLine, endLine: n.endLine, language: n.language, ...(n.inboundOutside !== undefined ? { inboundOutside: n.inboundOutside } : {}) };
}

const UNRESOLVED_WRITERS: Record<Exclude<GraphFormat, 'json'>, (id: string, name: string) => string> = {
  graphml: (id, name) => `    <node id="${id}">${graphmlData('n', 'name', name)}${graphmlData('n', 'unresolved', true)}</node>\n`,
  dot: (id, name) => `  ${id} [label=${dotString(`${name} ?`)}, name=${dotString(name)}, unresolved=true, style=dashed];\n`,
  mermaid: (id, name) => `  ${id}(["${mermaidText(name)} ?"]):::unresolved\n`,
};

const EDGE_WRITERS: Record<GraphFormat, (e: GraphEdgeOut, from: string, to: string, first: boolean) => string> = {
  graphml: (e, from, to) =>
    `    <edge source="${from}" target="${to}">${EDGE_KEYS.map(([k]) => graphmlData('e', k, e[k as keyof GraphEdgeOut] as string | number)).join('')}</edge>\n`,
  json: (e, from, to, first) =>
    `${first ? '\n],"edges":[\n' : ',\n'}${JSON.stringify({ from: e.from, to: e.to === null ? to : e.to, type: e.type, confidence: e.confidence, path: e.path, line: e.line, targetName: e.targetName })}`,
  dot: (e, from, to) =>
    `  ${from} -> ${to} [label=${dotString(e.type)}, type=${dotString(e.type)}, confidence=${dotString(e.confidence)}, path=${dotString(e.path)}, line=${e.line}${DOT_STYLE[e.confidence]}];\n`,
  mermaid: (e, from, to) => `  ${from} ${e.confidence === 'exact' ? '-->' : '-.->'}|${e.type}${e.confidence === 'exact' ? '' : ` ${e.confidence}`}| ${to}\n`,
};

const DOT_STYLE: Record<Confidence, string> = { exact: '', probable: ', style=dashed', approximate: ', style=dotted' };

const FOOTERS: Record<GraphFormat, (s: GraphSummary, unresolved: readonly { id: string; name: string }[], hadEdges: boolean) => string> = {
  graphml: (s) =>
    [
      ...s.notices.map((n) => `    ${xmlComment(`notice: ${n}`)}`),
      `    ${graphmlData('g', 'truncated', s.truncated)}`,
      ...(s.notices.length > 0 ? [`    ${graphmlData('g', 'notices', s.notices.join('\n'))}`] : []),
      '  </graph>',
      '</graphml>',
      '',
    ].join('\n'),
  // The first edge closes `nodes` and opens `edges`; without edges both happen here.
  json: (s, unresolved, hadEdges) =>
    `${hadEdges ? '\n]' : '\n],"edges":[]'}` +
    `,"unresolved":[${unresolved.map((u) => `\n${JSON.stringify({ id: u.id, name: u.name })}`).join(',')}${unresolved.length > 0 ? '\n' : ''}]` +
    `,"truncated":${s.truncated},"notices":${JSON.stringify(s.notices)}}\n`,
  dot: (s) => `${s.notices.map((n) => `  // notice: ${commentText(n)}\n`).join('')}}\n`,
  mermaid: (s) => s.notices.map((n) => `  %% notice: ${commentText(n)}\n`).join(''),
};
