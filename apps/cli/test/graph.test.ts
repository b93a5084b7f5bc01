import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ca, cleanEnv } from './helpers.js';

/**
 * `ca graph` and `--format` of the navigation commands, end to end on fixtures/ts-app with the
 * semantic pass off (the syntactic graph; packages/engine/test/graphExport.test.ts derives the
 * same part node by node). src/auth/tokenStore.ts holds 13 symbols and 27 edges from them, 5 of
 * which go to unresolved names.
 */
describe('ca graph', () => {
  let repo: string;
  const env = cleanEnv({ CA_EMBEDDING_ENABLED: 'false', CA_SEMANTIC_ENABLED: 'false' });
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-graph-')), 'repo');
    cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
    expect(ca(['index', repo, '--json'], { env }).code).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(join(repo, '..'), { recursive: true, force: true }));

  const graph = (...args: string[]) => ca(['graph', '--repo', repo, ...args], { env });

  it('--format json to stdout: the filtered part; on stderr only the boundary notice', () => {
    const r = graph('--filter', 'path:src/auth/tokenStore.ts', '--format', 'json');
    // authService.ts imports StoredToken, TokenStore and MemoryTokenStore (line 1), names
    // StoredToken at 7 and 69, TokenStore at 19 and calls new MemoryTokenStore() at 19: 7 edges
    // into 3 of the part's nodes (packages/engine/test/graphExport.test.ts lists them).
    expect([r.code, r.stderr]).toEqual([0, "notice: 7 edges from nodes not in this graph (outside the filter) into 3 of its nodes, not written: each node's inboundOutside counts them\n"]);
    const g = JSON.parse(r.stdout);
    expect([g.nodes.length, g.edges.length, g.unresolved.length, g.truncated]).toEqual([13, 27, 5, false]);
    expect(g.nodes[0]).toEqual({ id: expect.stringMatching(/^\d+$/), kind: 'file', name: 'tokenStore.ts', qualifiedName: 'src/auth/tokenStore.ts', path: 'src/auth/tokenStore.ts', startLine: 1, endLine: 37, language: 'ts', inboundOutside: 0 });
    expect(g.nodes.filter((n: { inboundOutside: number }) => n.inboundOutside > 0).map((n: { qualifiedName: string; inboundOutside: number }) => `${n.qualifiedName} ${n.inboundOutside}`)).toEqual(['StoredToken 3', 'TokenStore 2', 'MemoryTokenStore 2']);
  }, 60_000);

  it('a filter that selects nothing: a valid empty graph, exit 0, and a notice saying it is empty', () => {
    const r = graph('--filter', 'path:nowhere/**', '--format', 'json');
    expect([r.code, r.stderr]).toEqual([0, 'notice: the filter selects no nodes: the graph is empty\n']);
    expect(JSON.parse(r.stdout)).toEqual({ nodes: [], edges: [], unresolved: [], truncated: false, notices: ['the filter selects no nodes: the graph is empty'] });
  }, 60_000);

  it('GraphML by default; --out FILE writes the file and says what it wrote; --max-nodes notices go to stderr', () => {
    const out = join(repo, '..', 'g.graphml');
    const r = graph('--filter', 'path:src/auth/tokenStore.ts', '--out', out, '--max-nodes', '3');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote 3 nodes, 2 edges (0 unresolved targets) to ${out}\n`);
    expect(r.stderr).toBe(
      'notice: kept the first 3 of 13 nodes in path order (--max-nodes 3)\nnotice: 3 edges to nodes not in this graph (outside the filter or cut by --max-nodes) not written\n' +
        "notice: 8 edges from nodes not in this graph (outside the filter or cut by --max-nodes) into 1 of its nodes, not written: each node's inboundOutside counts them\n",
    );
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<graphml ')).toBe(true);
    expect(text.match(/<node /g)?.length).toBe(3);
    expect(text.match(/<edge /g)?.length).toBe(2);
    // The temporary file it wrote was renamed over FILE.
    expect(readdirSync(join(repo, '..')).filter((f) => f.includes('.tmp-'))).toEqual([]);
  }, 60_000);

  it('bad input is a usage error (exit 2) and an existing --out file is left as it was', () => {
    const out = join(repo, '..', 'keep.txt');
    writeFileSync(out, 'precious');
    const bad = graph('--format', 'svg', '--out', out);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, 'ca: --format must be one of graphml, json, dot, mermaid (got "svg")']);
    const badFilter = graph('--filter', 'lang:', '--out', out);
    expect(badFilter.code).toBe(2);
    expect(graph('--max-nodes', '0').stderr.trim()).toBe('ca: --max-nodes must be a positive integer (got "0")');
    expect(readFileSync(out, 'utf8')).toBe('precious');
  }, 60_000);

  it('navigation commands take the same formats: callers as Mermaid and JSON', () => {
    const m = ca(['callers', 'AuthService.issueToken', '--repo', repo, '--format', 'mermaid'], { env });
    expect(m.code).toBe(0);
    const lines = m.stdout.split('\n');
    expect(lines[0]).toBe('flowchart LR');
    // navigation.test.ts: AuthService.login and AuthService.refresh call it, both approximate (name-matched).
    expect(lines.filter((l) => l.includes('-.->|calls approximate|')).length).toBe(2);
    const j = JSON.parse(ca(['callers', 'AuthService.issueToken', '--repo', repo, '--format', 'json'], { env }).stdout);
    expect(j.nodes.map((n: { qualifiedName: string }) => n.qualifiedName)).toEqual(['AuthService.issueToken', 'AuthService.login', 'AuthService.refresh']);
    expect(ca(['callers', 'AuthService.issueToken', '--repo', repo, '--format', 'png'], { env }).code).toBe(2);
  }, 60_000);
});
