import type { ExtractedEdge, ExtractedNode, FileIndex } from '@ca/schema';
import type { FileWrite, NodeAction, NodePlanner, SqliteDatabase, Store } from '../src/index.js';

/** Builds an ExtractedNode with defaults; tests set only what they check. */
export function node(p: Partial<ExtractedNode> & Pick<ExtractedNode, 'localId' | 'name' | 'kind'>): ExtractedNode {
  return {
    qualifiedName: p.name,
    symbolKey: `ts:file:x#${p.name}`,
    disambiguator: 0,
    parentLocalId: null,
    span: { startLine: 1, endLine: 1, startByte: 0, endByte: 10 },
    signature: p.name,
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    chunkText: p.name,
    ...p,
  };
}

export function fileWrite(path: string, hash: string, nodes: ExtractedNode[], edges: ExtractedEdge[] = [], extra: Partial<FileIndex> = {}): FileWrite {
  const index: FileIndex = {
    path,
    language: 'ts',
    parseStatus: 'ok',
    generated: false,
    lineCount: 10,
    nodes,
    edges,
    diagnostics: [],
    exports: [],
    reExports: [],
    ...extra,
  };
  return {
    path,
    contentHash: hash,
    language: index.language,
    size: 100,
    lineCount: index.lineCount,
    parseStatus: index.parseStatus,
    statusReason: null,
    generated: index.generated,
    project: '',
    mtimeMs: 1,
    extractor: 'test@1',
    index,
  };
}

/** A file node plus the given top-level children. */
export function fileWithSymbols(path: string, hash: string, names: { name: string; body?: string; modifiers?: ExtractedNode['modifiers']; doc?: string }[]): FileWrite {
  const nodes: ExtractedNode[] = [
    node({ localId: 'f', name: path.split('/').pop()!, kind: 'file', qualifiedName: path, symbolKey: `ts:file:${path}#` }),
  ];
  names.forEach((n, i) =>
    nodes.push(
      node({
        localId: `n${i}`,
        name: n.name,
        kind: 'function',
        parentLocalId: 'f',
        symbolKey: `ts:file:${path}#${n.name}()`,
        chunkText: n.body ?? `function ${n.name}() {}`,
        modifiers: n.modifiers ?? ['export'],
        doc: n.doc ?? null,
        span: { startLine: i + 1, endLine: i + 1, startByte: i * 10, endByte: i * 10 + 9 },
      }),
    ),
  );
  return fileWrite(path, hash, nodes);
}

/**
 * A node planner for the writer's tests (the real one, @ca/invalidation's `planNodes`, sits
 * above this package): a node continues the previous node of its (key, disambiguator), a
 * `partial` fragment joins the label's node of its key, the rest of the previous nodes go.
 */
export const keyPlanner: NodePlanner = ({ path, previous, nodes, partialTarget }) => {
  const left = new Map(previous.map((n) => [`${n.symbolKey}\u0000${n.disambiguator}`, n]));
  const actions = nodes.map((n): NodeAction => {
    const target = n.modifiers.includes('partial') ? partialTarget(n) : null;
    if (target) return { kind: 'merge', id: target.id, primary: path < target.path };
    const old = left.get(`${n.symbolKey}\u0000${n.disambiguator}`);
    if (!old) return { kind: 'insert' };
    left.delete(`${n.symbolKey}\u0000${n.disambiguator}`);
    return { kind: 'update', id: old.id, reembed: false };
  });
  return { actions, drop: [...left.values()].map((n) => ({ id: n.id, survives: n.otherSpans > 0 })), reembed: 0 };
};

/** The store's connection, for assertions on tables no API exposes. */
export function dbOf(store: Store): SqliteDatabase {
  return store['db'];
}
