import type { SqliteDatabase } from './database.js';
import { inLabelJoin } from './labelScope.js';
import { cachedStatement, selectAll } from './statements.js';

/**
 * A label's index in a form that does not depend on how it was built: every row named by what
 * it is about (paths, symbol keys) instead of row ids, one canonical line per row. Two indexes of
 * the same tree, one built incrementally and one from scratch, must give equal dumps
 * (differential testing, decision 022).
 */
export interface CanonicalDump {
  /** Per path: content hash, language, parse status, generated flag, project, extractor, semantic state. */
  readonly files: ReadonlyMap<string, string>;
  /** Per node (`path|symbol key|disambiguator`): its facts, parent, spans and reference count. */
  readonly nodes: ReadonlyMap<string, string>;
  /** Edge lines (source node, type, confidence, line, semantic or syntactic, target node or name) with their multiplicity. */
  readonly edges: ReadonlyMap<string, number>;
  /** Re-export lines (`path -> module name`) with their multiplicity. */
  readonly reexports: ReadonlyMap<string, number>;
  /** Per node with a full-text row: its indexed terms (column, term and position, in order). */
  readonly fts: ReadonlyMap<string, string>;
  /** `node|window|content hash` of every node vector. */
  readonly vectors: ReadonlySet<string>;
}

interface NodeRow {
  id: number;
  path: string;
  symbol_key: string;
  disambiguator: number;
  parent_id: number | null;
  kind: string;
  name: string;
  qualified_name: string;
  project: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  signature: string;
  parameter_count: number | null;
  return_type: string | null;
  modifiers: string;
  attributes: string | null;
  is_public_api: number;
  doc: string | null;
  generated: number;
  chunk_hash: string;
  reference_count: number | null;
}

/** Reads the canonical dump of `label` (see `CanonicalDump`); `fts: false` leaves the full-text terms out (they are the slow part). */
export function canonicalDump(db: SqliteDatabase, label: string, options: { readonly fts?: boolean } = {}): CanonicalDump {
  const inLabel = inLabelJoin('f.id');
  const files = new Map<string, string>();
  for (const r of selectAll<Record<string, unknown>>(
    db,
    `SELECT lf.path, f.content_hash, f.language, f.parse_status, f.generated, f.project, f.extractor, f.semantic_state
       FROM files f ${inLabel}`, label)) {
    // A skipped file's stamp is `skipped:size:mtime:reason` (it is never read, so no hash): the
    // modification time belongs to the copy of the tree, not to what was indexed.
    const hash = String(r['content_hash']).replace(/^(skipped:\d+:)\d+:/, '$1');
    files.set(String(r['path']), [hash, r['language'], r['parse_status'], r['generated'], r['project'], r['extractor'], r['semantic_state']].join(' '));
  }
  const rows = selectAll<NodeRow>(db, `SELECT n.*, lf.path FROM nodes n JOIN files f ON f.id = n.file_id ${inLabel}`, label);
  const keyOf = new Map<number, string>();
  for (const n of rows) keyOf.set(n.id, `${n.path}|${n.symbol_key}|${n.disambiguator}`);
  const spans = new Map<number, string[]>();
  for (const s of selectAll<{ node_id: number; path: string; start_line: number; end_line: number; start_byte: number; end_byte: number }>(
    db,
    `SELECT ns.node_id, lf.path, ns.start_line, ns.end_line, ns.start_byte, ns.end_byte FROM node_spans ns
       JOIN files f ON f.id = ns.file_id ${inLabel}`, label)) {
    const list = spans.get(s.node_id) ?? [];
    list.push(`${s.path}:${s.start_line}-${s.end_line}/${s.start_byte}-${s.end_byte}`);
    spans.set(s.node_id, list);
  }
  const nodes = new Map<string, string>();
  for (const n of rows) {
    const parent = n.parent_id === null ? '-' : (keyOf.get(n.parent_id) ?? 'outside the label');
    const facts = [
      n.kind, n.name, n.qualified_name, n.project, `${n.start_line}-${n.end_line}/${n.start_byte}-${n.end_byte}`, n.signature,
      n.parameter_count, n.return_type, n.modifiers, n.attributes, n.is_public_api, n.doc, n.generated, n.chunk_hash,
      `refs=${n.reference_count ?? 0}`, `parent=${parent}`, `spans=${(spans.get(n.id) ?? []).sort().join(',')}`,
    ];
    nodes.set(keyOf.get(n.id)!, facts.map((x) => (x === null ? '∅' : String(x))).join(' ¦ '));
  }
  const edges = new Map<string, number>();
  for (const e of selectAll<Record<string, unknown>>(
    db,
    `SELECT e.source_id, e.type, e.confidence, e.line, e.extractor, e.target_id, e.target_key, e.target_name, e.target_module,
            e.imported_name, e.specifier
       FROM edges e JOIN files f ON f.id = e.file_id ${inLabel}`, label)) {
    const targetId = e['target_id'] as number | null;
    // A resolved edge is named by its target node; an unresolved one by what it names.
    const target = targetId !== null ? `node ${keyOf.get(targetId) ?? 'outside the label'}` : `unresolved ${e['target_key']} ${e['target_name']}`;
    const extractor = String(e['extractor']).startsWith('semantic:') ? 'semantic' : 'syntactic';
    const line = `${keyOf.get(e['source_id'] as number) ?? '?'} -${e['type']}/${e['confidence']}/${extractor}-> ${target} @${e['line']} module=${e['target_module'] ?? '-'} imported=${e['imported_name'] ?? '-'} specifier=${e['specifier'] ?? '-'}`;
    edges.set(line, (edges.get(line) ?? 0) + 1);
  }
  const reexports = new Map<string, number>();
  for (const r of selectAll<{ path: string; target_module: string; name: string }>(db, `SELECT lf.path, m.target_module, m.name FROM module_reexports m JOIN files f ON f.id = m.file_id ${inLabel}`, label,)) {
    const line = `${r.path} -> ${r.target_module} ${r.name}`;
    reexports.set(line, (reexports.get(line) ?? 0) + 1);
  }
  const vectors = new Set<string>();
  for (const v of selectAll<{ node_id: number; window: number; content_hash: string }>(
    db,
    `SELECT ne.node_id, ne.window, em.content_hash FROM node_embeddings ne JOIN embeddings em ON em.id = ne.embedding_id
       JOIN nodes n ON n.id = ne.node_id JOIN files f ON f.id = n.file_id ${inLabel}`, label)) {
    vectors.add(`${keyOf.get(v.node_id)}|${v.window}|${v.content_hash}`);
  }
  return { files, nodes, edges, reexports, fts: options.fts === false ? new Map() : ftsTerms(db, keyOf), vectors };
}

/** The terms of each node's full-text row (the table keeps no text: its term index is what search reads). */
function ftsTerms(db: SqliteDatabase, keyOf: ReadonlyMap<number, string>): Map<string, string> {
  cachedStatement(db, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_nodes_instances USING fts5vocab(main, fts_nodes, instance)`).run();
  const out = new Map<string, string[]>();
  for (const r of selectAll<{
    doc: number;
    col: string;
    term: string;
    offset: number;
  }>(db, `SELECT doc, col, term, offset FROM temp.fts_nodes_instances`)) {
    const key = keyOf.get(r.doc);
    // Rows of other labels' nodes are not this label's.
    if (key === undefined) continue;
    const list = out.get(key) ?? [];
    list.push(`${r.col}:${r.offset}:${r.term}`);
    out.set(key, list);
  }
  return new Map([...out].map(([k, v]) => [k, v.sort().join(' ')]));
}
