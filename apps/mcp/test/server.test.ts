import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caJson, connect, copyFixture, edgeRows as incoming, type Connected } from './helpers.js';

const VECTOR_OFF = 'vector channel off: embedding.enabled is false';
const names = (r: { nodes: { id: string; qualifiedName: string }[] }, ids: (string | null)[]) =>
  ids.map((id) => r.nodes.find((n) => n.id === id)?.qualifiedName ?? id);
const AUTH = 'src/auth/authService.ts';
const withoutTiming = ({ tookMs: _t, ...rest }: any) => rest;

describe('MCP server over fixtures/ts-app (in-memory transport, semantic pass on, no embeddings)', () => {
  let repo: string;
  let mcp: Connected;
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    mcp = await connect({ repo });
    mcp.app.warmUp();
  });
  afterAll(async () => {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('lists the tools, each described, read-only except index', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'search',
      'symbol',
      'callers',
      'callees',
      'references',
      'implementations',
      'dependencies',
      'dependents',
      'impact',
      'status',
      'index',
    ]);
    const search = tools.find((t) => t.name === 'search')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(['query', 'limit', 'budget', 'language', 'kind', 'path', 'include_tests', 'min_score', 'explain']);
    expect(search.inputSchema.required).toEqual(['query']);
    const callers = tools.find((t) => t.name === 'callers')!;
    expect(Object.keys(callers.inputSchema.properties ?? {})).toEqual(['symbol', 'depth', 'min_confidence', 'max_nodes', 'all', 'through_interfaces']);
    expect(Object.keys(tools.find((t) => t.name === 'impact')!.inputSchema.properties ?? {})).toEqual(['symbol', 'depth', 'min_confidence', 'max_nodes', 'all']);
    expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual(['index']);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.outputSchema?.type).toBe('object');
    }
  });

  it('search: an exact qualified name comes first, in the CLI --json shape, with structuredContent', async () => {
    const r = await mcp.call('search', { query: 'BillingAccount.terminatePlan', limit: 3 });
    expect(r.isError).toBe(false);
    expect(r.json.query).toBe('BillingAccount.terminatePlan');
    expect(r.json.intent).toBe('targeted');
    const top = r.json.results[0];
    expect(Object.keys(top)).toEqual(['id', 'qualifiedName', 'name', 'kind', 'language', 'path', 'startLine', 'endLine', 'score', 'matchedBy', 'code']);
    expect([top.qualifiedName, top.kind, top.path, top.startLine, top.endLine]).toEqual(['BillingAccount.terminatePlan', 'method', 'src/billing/billingAccount.ts', 19, 26]);
    expect(top.code.split('\n')[0]).toBe('async terminatePlan(): Promise<void> {');
    expect(r.json.notices).toEqual([VECTOR_OFF]);
    expect(r.structured).toEqual(r.json);
    // The same answer `ca search --json` prints (but for the time it took).
    expect(withoutTiming(r.json)).toEqual(withoutTiming(caJson(['search', 'BillingAccount.terminatePlan', '--repo', repo, '--limit', '3'])));
  });

  it('search options: explain ranks, filters, and a budget that says what it left out', async () => {
    const explained = await mcp.call('search', { query: 'BillingAccount.terminatePlan', limit: 1, explain: true });
    expect(explained.json.results.map((x: any) => [x.qualifiedName, x.matchedBy])).toEqual([['BillingAccount.terminatePlan', ['name#1', 'bm25#1']]]);
    const jsOnly = await mcp.call('search', { query: 'retry', language: 'js', kind: ['function'], path: 'src/legacy/**' });
    expect(jsOnly.json.results.every((x: any) => x.language === 'js' && x.kind === 'function' && x.path.startsWith('src/legacy/'))).toBe(true);
    expect(jsOnly.json.results.length).toBeGreaterThan(0);
    const none = await mcp.call('search', { query: 'BillingAccount.terminatePlan', budget: 0, limit: 1 });
    expect(none.isError).toBe(false);
    expect([none.json.results, none.json.tokens]).toEqual([[], 0]);
    expect(none.json.notices[1]).toMatch(/^token budget: \d+ matching results? left out \(over the budget of 0 tokens; raise it to see (it|them)\)$/);
  });

  it('symbol: full source read from disk and metadata', async () => {
    const r = await mcp.call('symbol', { symbol: 'AuthService.login' });
    expect(r.isError).toBe(false);
    expect(r.json.symbol).toMatchObject({
      qualifiedName: 'AuthService.login',
      kind: 'method',
      path: 'src/auth/authService.ts',
      startLine: 22,
      endLine: 36,
      signature: 'async login(user: string, password: string): Promise<Session>',
      doc: 'Logs a user in and stores a fresh session token.',
    });
    const lines = readFileSync(join(repo, 'src/auth/authService.ts'), 'utf8').split('\n');
    expect(r.json.code).toBe(lines.slice(21, 36).join('\n').trimStart());
    expect(r.json.stale).toBe(false);
    // By id, as an agent would after a search.
    expect((await mcp.call('symbol', { symbol: r.json.symbol.id })).json.symbol.qualifiedName).toBe('AuthService.login');
  });

  it('callers: the exact callers, complete, the same JSON as ca callers --json', async () => {
    const r = await mcp.call('callers', { symbol: 'AuthService.issueToken' });
    expect(r.isError).toBe(false);
    expect(incoming(r.json)).toEqual([
      ['AuthService.login', 'calls', 'exact', AUTH, 32],
      ['AuthService.refresh', 'calls', 'exact', AUTH, 46],
    ]);
    expect([r.json.complete, r.json.gaps, r.json.truncated, r.json.maxNodes]).toEqual([true, [], false, 100]);
    expect(r.structured).toEqual(r.json);
    const cli = caJson(['callers', 'AuthService.issueToken', '--repo', repo, '--max-nodes', '100']);
    expect(r.json).toEqual(cli);
  });

  it('implementations, dependencies and impact answer from the graph', async () => {
    const impls = await mcp.call('implementations', { symbol: 'TokenStore' });
    expect(incoming(impls.json)).toEqual([['MemoryTokenStore', 'implements', 'exact', 'src/auth/tokenStore.ts', 18]]);
    const deps = await mcp.call('dependencies', { symbol: 'src/components/UserCard.tsx' });
    expect(deps.json.symbol.qualifiedName).toBe('src/components/UserCard.tsx');
    // React resolves to nothing in the repository (no node_modules): its edge keeps the name only.
    expect(deps.json.edges.filter((e: any) => e.type === 'imports').map((e: any) => [e.to === null ? null : names(deps.json, [e.to])[0], e.targetName, e.line])).toEqual([
      [null, 'React', 1],
      ['Button', 'Button(ButtonProps)', 2],
      ['truncate', 'truncate(string,_)', 3],
    ]);
    // An absolute path inside the repository is the same file.
    const abs = await mcp.call('dependencies', { symbol: join(repo, 'src/components/UserCard.tsx') });
    expect(abs.json.edges).toEqual(deps.json.edges);
    const impact = await mcp.call('impact', { symbol: 'TokenStore.save', depth: 5 });
    expect(impact.json.nodes.map((n: any) => n.qualifiedName)).toEqual(['AuthService.login', 'AuthService.refresh', 'MemoryTokenStore.save', 'App']);
    expect(impact.json.byFile.map((f: any) => f.path)).toEqual(['src/auth/authService.ts', 'src/auth/tokenStore.ts', 'src/App.jsx']);
  });

  it('a node cap keeps the nearest nodes and says it cut', async () => {
    const r = await mcp.call('impact', { symbol: 'TokenStore.save', depth: 5, max_nodes: 1 });
    expect(r.isError).toBe(false);
    expect(r.json.nodes.map((n: any) => n.qualifiedName)).toEqual(['AuthService.login']);
    expect([r.json.truncated, r.json.complete, r.json.totalReached, r.json.totalReachedExact, r.json.maxNodes]).toEqual([true, false, 3, false, 1]);
  });

  it('status reports the index and that the vector channel is off, with the reason', async () => {
    const r = await mcp.call('status');
    expect(r.isError).toBe(false);
    expect([r.json.files, r.json.symbols, r.json.parseStatus.ok, r.json.problems]).toEqual([13, 79, 13, []]);
    expect(r.json.semantic).toBe('js: 3 files with exact edges; ts: 10 files with exact edges');
    expect(r.json.vectorChannel).toBe('off: embedding.enabled is false');
    expect(r.json.freshness.mode).toBe('before-each-answer');
    expect(r.json.freshness.lastError).toBe(null);
  });

  it('bad input is an error result with a clear message, and the server keeps serving', async () => {
    const error = async (name: string, args: Record<string, unknown>) => {
      const r = await mcp.call(name, args);
      expect(r.isError).toBe(true);
      return r.json?.error ?? r.texts.join('\n');
    };
    expect(await error('search', { query: '' })).toBe('MCP error -32602: Input validation error: Invalid arguments for tool search: query is empty at query');
    expect(await error('search', { query: '  \n ' })).toBe('MCP error -32602: Input validation error: Invalid arguments for tool search: query is empty at query');
    expect(await error('search', { query: 'x'.repeat(100_000) })).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool search: query is longer than 8192 characters; ask with the words or names that matter at query',
    );
    expect(await error('symbol', { symbol: 'NoSuchThing' })).toEqual({ code: 'not_found', message: 'no symbol matches "NoSuchThing"' });
    const ambiguous = await error('symbol', { symbol: 'activeUser' });
    expect(ambiguous.code).toBe('ambiguous_symbol');
    // The two share a qualified name, so each shows its signature (fixtures/ts-app/src/auth/authService.ts:52, 56).
    expect(ambiguous.message).toMatch(
      /^"activeUser" matches 2 symbols: AuthService\.activeUser \(getter\) src\/auth\/authService\.ts:52 `get activeUser\(\): string \| null` \[id \d+\]; AuthService\.activeUser \(setter\) src\/auth\/authService\.ts:56 `set activeUser\(user: string \| null\)` \[id \d+\]$/,
    );
    expect(ambiguous.candidates.map((c: any) => [c.qualifiedName, c.kind, c.startLine])).toEqual([
      ['AuthService.activeUser', 'getter', 52],
      ['AuthService.activeUser', 'setter', 56],
    ]);
    expect(await error('callers', { symbol: 'AuthService.issueToken', depth: 0 })).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool callers: depth must be at least 1 at depth',
    );
    expect(await error('callers', { symbol: 'AuthService.issueToken', depth: -3 })).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool callers: depth must be at least 1 at depth',
    );
    expect(await error('callers', { symbol: 'AuthService.issueToken', depth: 1.5 })).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool callers: depth must be a whole number of hops at depth',
    );
    expect(await error('impact', { symbol: 'AuthService.issueToken', depth: 21 })).toEqual({
      code: 'usage',
      message: '--depth 21 is over the configured cap graph.max_depth (20)',
    });
    expect(await error('references', { symbol: 'AuthService.issueToken', min_confidence: 'sure' })).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool references: min_confidence must be one of exact, probable, approximate at min_confidence',
    );
    expect(await error('dependents', { symbol: '../../etc/passwd' })).toEqual({
      code: 'invalid_path',
      message: `file is outside the repository ${repo}: ../../etc/passwd`,
    });
    expect(await error('dependencies', { symbol: '/etc/passwd' })).toEqual({ code: 'invalid_path', message: `file is outside the repository ${repo}: /etc/passwd` });
    expect(await error('search', { query: 'login', path: '../**' })).toEqual({ code: 'invalid_path', message: `path is outside the repository ${repo}: ../**` });
    expect(await error('frobnicate', {})).toBe('MCP error -32602: Tool frobnicate not found');
    // Still serving.
    expect(incoming((await mcp.call('callers', { symbol: 'AuthService.issueToken' })).json)).toEqual([
      ['AuthService.login', 'calls', 'exact', AUTH, 32],
      ['AuthService.refresh', 'calls', 'exact', AUTH, 46],
    ]);
  });

  it('an edit is visible in the next answer, and so is its undoing', async () => {
    const file = join(repo, 'src/auth/authService.ts');
    const original = readFileSync(file, 'utf8');
    // The class's closing brace (line 73) moves down: renew() spans lines 74-76 and calls issueToken on line 75.
    writeFileSync(file, original.replace(/}\n$/, '\n  renew(user: string): StoredToken {\n    return this.issueToken(user);\n  }\n}\n'));
    const after = await mcp.call('callers', { symbol: 'AuthService.issueToken' });
    expect(incoming(after.json)).toEqual([
      ['AuthService.login', 'calls', 'exact', AUTH, 32],
      ['AuthService.refresh', 'calls', 'exact', AUTH, 46],
      ['AuthService.renew', 'calls', 'exact', AUTH, 75],
    ]);
    const found = await mcp.call('search', { query: 'AuthService.renew', limit: 1 });
    expect(found.json.results.map((x: any) => [x.qualifiedName, x.startLine, x.endLine])).toEqual([['AuthService.renew', 74, 76]]);
    writeFileSync(join(repo, 'src/auth/audit.ts'), 'export function auditTrail(): string[] {\n  return [];\n}\n');
    expect((await mcp.call('symbol', { symbol: 'auditTrail' })).json.symbol.path).toBe('src/auth/audit.ts');

    writeFileSync(file, original);
    rmSync(join(repo, 'src/auth/audit.ts'));
    expect(incoming((await mcp.call('callers', { symbol: 'AuthService.issueToken' })).json)).toEqual([
      ['AuthService.login', 'calls', 'exact', AUTH, 32],
      ['AuthService.refresh', 'calls', 'exact', AUTH, 46],
    ]);
    expect((await mcp.call('symbol', { symbol: 'auditTrail' })).json.error).toEqual({ code: 'not_found', message: 'no symbol matches "auditTrail"' });
    const index = await mcp.call('index');
    expect([index.isError, index.json.files, index.json.changed, index.json.removed]).toEqual([false, 13, 0, 0]);
  }, 120_000);

  it('concurrent calls share index runs and all answer', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => mcp.call('callers', { symbol: 'AuthService.issueToken' })));
    expect(answers.map((a) => incoming(a.json).length)).toEqual([2, 2, 2, 2, 2, 2]);
  });
});

describe('MCP server without automatic refresh (--no-refresh)', () => {
  it('serves the index as it is until the index tool runs', async () => {
    const repo = copyFixture('ts-app');
    const mcp = await connect({ repo, refresh: false });
    try {
      // Nothing indexed yet: an empty index answers, and says what it holds.
      expect((await mcp.call('status')).json.files).toBe(0);
      expect((await mcp.call('index')).json).toMatchObject({ files: 13, changed: 13, removed: 0 });
      writeFileSync(join(repo, 'src/auth/audit.ts'), 'export function auditTrail(): string[] {\n  return [];\n}\n');
      expect((await mcp.call('symbol', { symbol: 'auditTrail' })).json.error.code).toBe('not_found');
      expect((await mcp.call('index')).json).toMatchObject({ files: 14, changed: 1, removed: 0 });
      expect((await mcp.call('symbol', { symbol: 'auditTrail' })).json.symbol.qualifiedName).toBe('auditTrail');
      const status = await mcp.call('status');
      expect([status.json.freshness.mode, status.json.freshness.runs, status.json.freshness.last.changed]).toEqual(['on-request', 2, 1]);
    } finally {
      await mcp.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});

describe('an index that cannot be opened', () => {
  it('is an error result on every call, and the server keeps serving', async () => {
    const repo = copyFixture('ts-app');
    // A directory where the index file should be: never opened nor moved aside (`invalid_path`, decision 017).
    const dbPath = mkdtempSync(join(tmpdir(), 'ca-mcp-db-'));
    const mcp = await connect({ repo, dbPath });
    try {
      for (const [name, args] of [
        ['status', {}],
        ['search', { query: 'login' }],
        ['callers', { symbol: 'AuthService.issueToken' }],
      ] as const) {
        const r = await mcp.call(name, args);
        expect(r.isError).toBe(true);
        expect(r.json.error.code).toBe('invalid_path');
        expect(r.json.error.message).toBe(`index path ${dbPath} is a directory, not an index file`);
      }
    } finally {
      await mcp.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
      rmSync(dbPath, { recursive: true, force: true });
    }
  });

  it('a missing repository is an invalid_path error result', async () => {
    const mcp = await connect({ repo: '/nonexistent/repo' });
    try {
      const r = await mcp.call('status');
      expect(r.isError).toBe(true);
      expect(r.json.error).toEqual({ code: 'invalid_path', message: 'repository path does not exist: /nonexistent/repo' });
    } finally {
      await mcp.close();
    }
  });
});
