import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtractedEdge, ExtractedNode, FileIndex } from '@ca/schema';
import { Store, type FileWrite, type NodeAction, type NodePlanner } from '@ca/store';
import pg from 'pg';

// The real PostgreSQL server these tests need: tools/pg-test-server.sh prints CA_TEST_PG_URL (a
// read-write role that may create databases) and CA_TEST_PG_RO_URL (a read-only role). Under
// CA_REQUIRE_POSTGRES=1 (.ci/run) a missing server fails the suite; elsewhere it is skipped with
// the reason printed.
const URL_RW = process.env['CA_TEST_PG_URL'];
const URL_RO = process.env['CA_TEST_PG_RO_URL'];

/** Whether the PostgreSQL tests run here (they throw when required and unavailable). */
export function postgresAvailable(): boolean {
  if (URL_RW && URL_RO) return true;
  if (process.env['CA_REQUIRE_POSTGRES'] === '1') {
    throw new Error('CA_REQUIRE_POSTGRES=1 but CA_TEST_PG_URL / CA_TEST_PG_RO_URL are not set: eval "$(bash tools/pg-test-server.sh)"');
  }
  console.warn('skipping the team store tests: no PostgreSQL (set CA_TEST_PG_URL and CA_TEST_PG_RO_URL: eval "$(bash tools/pg-test-server.sh)")');
  return false;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** A fresh database copied from the server's template (pgvector created); its read-write and read-only URLs. */
export async function freshDatabase(template = 'ca_template'): Promise<{ rw: string; ro: string; name: string }> {
  const name = `ca_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: URL_RW! });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    await client.query(`GRANT CONNECT ON DATABASE ${name} TO ca_ro`);
  } finally {
    await client.end();
  }
  return { rw: withDatabase(URL_RW!, name), ro: withDatabase(URL_RO!, name), name };
}

/** The read-write URL with another password. */
export function wrongPasswordUrl(): string {
  const u = new URL(URL_RW!);
  u.password = 'not-the-password';
  return u.toString();
}

function node(p: Partial<ExtractedNode> & Pick<ExtractedNode, 'localId' | 'name' | 'kind'>): ExtractedNode {
  return {
    qualifiedName: p.name, symbolKey: `ts:file:x#${p.name}`, disambiguator: 0, parentLocalId: null,
    span: { startLine: 1, endLine: 1, startByte: 0, endByte: 10 }, signature: p.name, parameterCount: null, returnType: null,
    modifiers: [], isPublicApi: false, doc: null, chunkText: p.name, ...p,
  };
}

/** A source file `path` with a file node and functions `names` (each one line), calling as `calls` says (`from -> to`, same file). */
export function sourceFile(path: string, blob: string, names: readonly string[], calls: readonly [string, string][] = []): FileWrite {
  const nodes: ExtractedNode[] = [node({ localId: 'f', name: path.split('/').pop()!, kind: 'file', qualifiedName: path, symbolKey: `ts:file:${path}#`, chunkText: `file ${path}` })];
  names.forEach((name, i) => nodes.push(node({
    localId: name, name, kind: 'function', parentLocalId: 'f', symbolKey: `ts:file:${path}#${name}()`, chunkText: `function ${name}() {}`,
    span: { startLine: i + 1, endLine: i + 1, startByte: i * 30, endByte: i * 30 + 20 },
  })));
  const edges: ExtractedEdge[] = calls.map(([from, to], i) => ({
    sourceLocalId: from, type: 'calls', confidence: 'probable', line: i + 1, target: { key: `ts:file:${path}#${to}()`, name: to, localId: to },
  }));
  const index: FileIndex = { path, language: 'ts', parseStatus: 'ok', generated: false, lineCount: names.length, nodes, edges, diagnostics: [], exports: [], reExports: [] };
  const text = names.map((n) => `function ${n}() {}`).join('\n');
  return {
    path, contentHash: blob, language: 'ts', size: text.length, lineCount: names.length, parseStatus: 'ok', statusReason: null, generated: false,
    project: '', mtimeMs: 1, extractor: 'test@1', index, content: new TextEncoder().encode(text),
  };
}

/** Each node continues the previous node of its key (the real planner sits above @ca/store). */
const keyPlanner: NodePlanner = ({ previous, nodes }) => {
  const left = new Map(previous.map((n) => [`${n.symbolKey}\u0000${n.disambiguator}`, n]));
  const actions = nodes.map((n): NodeAction => {
    const old = left.get(`${n.symbolKey}\u0000${n.disambiguator}`);
    if (!old) return { kind: 'insert' };
    left.delete(`${n.symbolKey}\u0000${n.disambiguator}`);
    return { kind: 'update', id: old.id, reembed: false };
  });
  return { actions, drop: [...left.values()].map((n) => ({ id: n.id, survives: n.otherSpans > 0 })), reembed: 0 };
};

/** A new local index in a temp directory holding `files` in `label`, each node with one 4-dimension vector of its chunk. */
export function localIndex(files: readonly FileWrite[], label = 'working'): Store {
  const store = Store.open(join(mkdtempSync(join(tmpdir(), 'ca-pgtest-')), 'index.db'));
  store.labels.ensure(label, 'working');
  store.writer.writeBatch(label, files, keyPlanner);
  const vectors = store.vectors;
  vectors.ensureModel({ modelId: 'test-model', revision: 'r1', dims: 4 });
  const pending = vectors.nodesNeedingEmbedding(label, 10_000);
  const ids = vectors.put(pending.map((n) => ({ hash: n.chunkHash, vector: vectorOf(n.chunkHash) })));
  vectors.assignMany(pending.map((n) => ({ nodeId: n.nodeId, windows: [{ window: 0, hash: n.chunkHash }] })));
  void ids;
  return store;
}

/** A deterministic vector of a hash (its first four bytes). */
function vectorOf(hash: string): Float32Array {
  return new Float32Array([0, 1, 2, 3].map((i) => (parseInt(hash.slice(i * 2, i * 2 + 2), 16) || 1) / 255));
}
