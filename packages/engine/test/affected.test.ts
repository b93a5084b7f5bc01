/**
 * `Engine.affected(BASE..HEAD)` on a git copy of fixtures/fullstack (the C# backend and the React
 * client), one commit per scenario, each indexed as a label from git objects (no checkout). The
 * semantic passes are off, so the graph is the syntactic one plus the HTTP links of decision 038:
 * every expected value below is derived by hand from the fixture files and those rules.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, parseRange, resolveSide, type AffectedReport } from '../src/index.js';
import { dotnetMissing, REPO_ROOT } from './helpers.js';

const FULLSTACK = join(REPO_ROOT, 'fixtures', 'fullstack');
const OPTIONS = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

/** `change qualifiedName path:line` rows of the changed symbols. */
function changedRows(r: AffectedReport): string[] {
  return r.changed.map((c) => `${c.change} ${c.qualifiedName} ${c.path}:${c.line}${c.previousPath ? ` (from ${c.previousPath})` : ''}`);
}

/** `depth side qualifiedName confidence: hop, hop` rows of the impacted symbols, nearest first. */
function impactedRows(r: AffectedReport): string[] {
  return r.impacted.map((s) => `${s.depth} ${s.side} ${s.qualifiedName} ${s.confidence}${s.crossesLanguage ? ' cross' : ''}: ${s.via.map((h) => `${h.type}/${h.confidence}`).join(', ')}`);
}

describe('ca affected on fixtures/fullstack', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-affected-')), 'repo');
    cpSync(FULLSTACK, repo, { recursive: true });
    // A test of the client, outside the fixture (its counts stay as they are): it calls getOrder.
    writeFileSync(join(repo, 'client/src/api/orders.test.ts'), "import { getOrder } from './orders';\n\nexport function testGetOrder() {\n  return getOrder(1);\n}\n");
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    engine = Engine.open(repo, OPTIONS);
    await engine.indexCommit('base', 'HEAD');
    const scenario = async (label: string, edit: () => void) => {
      git(repo, 'checkout', '-q', '-B', label, 'main');
      edit();
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', label);
      await engine.indexCommit(label, 'HEAD');
      git(repo, 'checkout', '-q', 'main');
    };
    const replace = (path: string, from: string, to: string) => {
      const text = readFileSync(join(repo, path), 'utf8');
      if (!text.includes(from)) throw new Error(`${path} has no ${from}`);
      writeFileSync(join(repo, path), text.replace(from, to));
    };
    await scenario('action', () => replace('backend/Controllers/OrdersController.cs', 'Ok(new OrderDto(id, "open", 0m))', 'Ok(new OrderDto(id, "closed", 0m))'));
    await scenario('dto', () => replace('backend/Models/Orders.cs', 'OrderDto(int Id, string Status, decimal Total)', 'OrderDto(int Id, string Status, decimal Total, string Currency)'));
    await scenario('client', () => replace('client/src/api/orders.ts', 'const res = await fetch(`${ORDERS}/${id}`);', 'const res = await fetch(`${ORDERS}/${id}`, { cache: "no-store" });'));
    await scenario('deleted', () => replace('backend/Controllers/OrdersController.cs', '    [HttpGet(ById)]\n    public ActionResult<OrderDto> GetById([FromRoute] int id) => Ok(new OrderDto(id, "open", 0m));\n\n', ''));
    await scenario('renamed', () => git(repo, 'mv', 'client/src/api/catalog.ts', 'client/src/api/catalogApi.ts'));
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('a C# action body change reaches its endpoint, the TS clients calling it and the component and test using them', async () => {
    const r = await engine.affected('base..action');
    expect(r.files).toEqual({ added: [], removed: [], modified: ['backend/Controllers/OrdersController.cs'], renamed: [] });
    // Only GetById's text changed; the class and namespace chunks hold it, but a member explains their change.
    expect(changedRows(r)).toEqual(['body Shop.Api.Controllers.OrdersController.GetById backend/Controllers/OrdersController.cs:15']);
    expect(impactedRows(r)).toEqual([
      // Depth 1: the endpoint `[HttpGet(ById)]` handles GetById (exact: the attribute is on it), and the two clients
      // reach GetById through it within one hop (decision 038): getOrder's fetch(`${ORDERS}/${id}`) is
      // GET /api/orders/{} → exact; the NSwag client's this.baseUrl is unknown → a suffix match, approximate.
      '1 head GET /api/orders/{id} exact: handles/exact',
      // The contract operation of backend/openapi.json describing the endpoint (same method and path: exact, decision 049),
      // reached within the same hop through the endpoint.
      '1 head GET /api/orders/{id} exact cross: handles/exact, handles/exact',
      '1 head getOrder exact cross: http_calls/exact, handles/exact',
      '1 head OrdersClient.getOrder approximate cross: http_calls/approximate, handles/exact',
      // Depth 2: what uses getOrder — OrderPage.tsx imports it (a resolved import: exact) and OrderPage calls it
      // (a name-matched call with the semantic pass off: approximate); the test file likewise, listed last at its depth.
      '2 head client/src/components/OrderPage.tsx exact cross: imports/exact, http_calls/exact, handles/exact',
      '2 head OrderPage approximate cross: calls/approximate, http_calls/exact, handles/exact',
      '2 head client/src/api/orders.test.ts exact cross: imports/exact, http_calls/exact, handles/exact',
      '2 head testGetOrder approximate cross: calls/approximate, http_calls/exact, handles/exact',
    ]);
    expect(r.endpoints).toEqual([
      { name: 'GET /api/orders/{id}', path: 'backend/Controllers/OrdersController.cs', line: 15, reason: 'impacted', depth: 1 },
      // The contract operation describing it (decision 049).
      { name: 'GET /api/orders/{id}', path: 'backend/openapi.json', line: 24, reason: 'impacted', depth: 1 },
    ]);
    expect(r.tests).toEqual([
      { qualifiedName: 'client/src/api/orders.test.ts', path: 'client/src/api/orders.test.ts', line: 1, depth: 2 },
      { qualifiedName: 'testGetOrder', path: 'client/src/api/orders.test.ts', line: 3, depth: 2 },
    ]);
    // 8 dependents in 6 files (7 in 5 before the contract operation of backend/openapi.json); GetById is public; the chain crosses from C# to TS: high.
    expect(r.risk).toEqual({
      level: 'high',
      reasons: ['the impact crosses the language boundary'],
      changedSymbols: 1,
      dependents: 8,
      dependentFiles: 6,
      publicApi: ['Shop.Api.Controllers.OrdersController.GetById'],
      crossesLanguage: true,
      // openapi: the contract operation describing the endpoint (decision 049).
      languages: ['cs', 'openapi', 'ts'],
      endpoints: 2,
      tests: 2,
      removedWithDependents: 0,
    });
    // The semantic passes are off: the answer says it may miss edges.
    expect(r.complete).toBe(false);
    expect(r.gaps.length).toBeGreaterThan(0);
  });

  it('a DTO signature change: the syntactic graph has no edge into a C# type used as a return type, so it reaches nothing', async () => {
    const r = await engine.affected('base..dto');
    // The record's signature changed and the positional parameter added a property.
    expect(changedRows(r)).toEqual(['signature Shop.Api.Models.OrderDto backend/Models/Orders.cs:3', 'added Shop.Api.Models.OrderDto.Currency backend/Models/Orders.cs:3']);
    expect(r.changed[0]).toMatchObject({ previousSignature: 'public record OrderDto(int Id, string Status, decimal Total)', signature: 'public record OrderDto(int Id, string Status, decimal Total, string Currency)' });
    // `ActionResult<OrderDto>` and `new OrderDto(...)` become edges only with Roslyn (the semantic pass is off
    // here): nothing is reached, and the answer is incomplete rather than "no impact".
    expect(impactedRows(r)).toEqual([]);
    expect(r.complete).toBe(false);
    expect(r.gaps.map((g) => g.reason)).toEqual([expect.stringContaining('syntactic only')]);
    expect(r.risk).toMatchObject({ level: 'medium', reasons: ['public API changed'], dependents: 0, crossesLanguage: false });
  });

  it('a TS client change reaches its TS users and nothing in C#: http_calls go from the client to the endpoint, never back', async () => {
    const r = await engine.affected('base..client');
    expect(changedRows(r)).toEqual(['body getOrder client/src/api/orders.ts:7']);
    expect(impactedRows(r)).toEqual([
      '1 head client/src/components/OrderPage.tsx exact: imports/exact',
      '1 head OrderPage approximate: calls/approximate',
      '1 head client/src/api/orders.test.ts exact: imports/exact',
      '1 head testGetOrder approximate: calls/approximate',
    ]);
    expect(r.endpoints).toEqual([]);
    expect(r.risk).toMatchObject({ level: 'medium', reasons: ['4 dependents', 'public API changed'], crossesLanguage: false, languages: ['ts'] });
  });

  it('a deleted action: its endpoint goes with it, and its dependents are found in BASE, where they still used it', async () => {
    const r = await engine.affected('base..deleted');
    expect(changedRows(r)).toEqual([
      // Same file and line (the attribute starts both spans): by name.
      'removed GET /api/orders/{id} backend/Controllers/OrdersController.cs:15',
      'removed Shop.Api.Controllers.OrdersController.GetById backend/Controllers/OrdersController.cs:15',
    ]);
    // Walked in BASE from both removed symbols: the clients reach the removed endpoint directly (depth 1), their
    // users one hop further; every chain ends at the endpoint, the symbol they used.
    expect(impactedRows(r)).toEqual([
      // The contract operation (backend/openapi.json:24) described the removed endpoint: exact, decision 049.
      '1 base GET /api/orders/{id} exact cross: handles/exact',
      '1 base getOrder exact cross: http_calls/exact',
      '1 base OrdersClient.getOrder approximate cross: http_calls/approximate',
      '2 base client/src/components/OrderPage.tsx exact cross: imports/exact, http_calls/exact',
      '2 base OrderPage approximate cross: calls/approximate, http_calls/exact',
      '2 base client/src/api/orders.test.ts exact cross: imports/exact, http_calls/exact',
      '2 base testGetOrder approximate cross: calls/approximate, http_calls/exact',
    ]);
    expect(new Set(r.impacted.map((s) => s.changed))).toEqual(new Set(['GET /api/orders/{id}']));
    expect(r.endpoints).toEqual([
      { name: 'GET /api/orders/{id}', path: 'backend/Controllers/OrdersController.cs', line: 15, reason: 'changed', depth: 0 },
      // The contract operation that described it (decision 049).
      { name: 'GET /api/orders/{id}', path: 'backend/openapi.json', line: 24, reason: 'impacted', depth: 1 },
    ]);
    expect(r.risk).toMatchObject({
      level: 'high',
      reasons: ['1 removed symbol was used', 'the impact crosses the language boundary', 'a public signature changed or was removed and has dependents'],
      removedWithDependents: 1,
      // 6 before the contract, + the operation describing the endpoint.
      dependents: 7,
    });
  });

  it('a renamed file: its symbols moved, nothing changed, nothing impacted', async () => {
    const r = await engine.affected('base..renamed');
    expect(r.files).toEqual({ added: [], removed: [], modified: [], renamed: [{ from: 'client/src/api/catalog.ts', to: 'client/src/api/catalogApi.ts' }] });
    expect(changedRows(r)).toEqual([
      'moved listItems client/src/api/catalogApi.ts:7 (from client/src/api/catalog.ts)',
      'moved getItem client/src/api/catalogApi.ts:11 (from client/src/api/catalog.ts)',
      'moved deleteItem client/src/api/catalogApi.ts:15 (from client/src/api/catalog.ts)',
      'moved renameItem client/src/api/catalogApi.ts:19 (from client/src/api/catalog.ts)',
    ]);
    expect(r.impacted).toEqual([]);
    expect(r.risk).toMatchObject({ level: 'low', reasons: [], publicApi: [], dependents: 0 });
  });

  it('BASE..BASE changes nothing; sides resolve by label name or by the commit a label was indexed at', async () => {
    const same = await engine.affected('base..base');
    expect(same.files).toEqual({ added: [], removed: [], modified: [], renamed: [] });
    expect(same.changed).toEqual([]);
    expect(same.risk.level).toBe('low');
    const sha = git(repo, 'rev-parse', 'action');
    const bySha = await engine.affected(`base..${sha.slice(0, 10)}`);
    expect(bySha.head).toEqual({ label: 'action', commit: sha });
    expect(changedRows(bySha)).toEqual(['body Shop.Api.Controllers.OrdersController.GetById backend/Controllers/OrdersController.cs:15']);
  });

  it('bad ranges and unknown sides are clear errors', async () => {
    expect(() => parseRange('base')).toThrow(expect.objectContaining({ code: 'usage' }));
    expect(() => parseRange('..head')).toThrow(expect.objectContaining({ code: 'usage' }));
    expect(() => parseRange('base...head')).toThrow(expect.objectContaining({ code: 'usage' }));
    expect(parseRange('v1.2..v1.3')).toEqual({ base: 'v1.2', head: 'v1.3' });
    expect(parseRange('base..')).toEqual({ base: 'base', head: '' });
    await expect(engine.affected('nope..action')).rejects.toMatchObject({ code: 'unknown_label', message: expect.stringContaining('"nope" is not a label of this index') });
    // The working tree was never indexed here (only commits were): an empty HEAD says so.
    await expect(engine.affected('base..')).rejects.toMatchObject({ code: 'unknown_label', message: expect.stringContaining('the working tree is not indexed') });
    // A commit no label holds: how to index it.
    const resolver = { labels: [{ name: 'base', kind: 'commit', commit: 'a'.repeat(40), dirty: null }], workingLabel: 'working', resolveCommit: async () => 'b'.repeat(40) };
    await expect(resolveSide('feature', resolver)).rejects.toMatchObject({ code: 'unknown_label', message: expect.stringContaining('ca index --label NAME --commit feature') });
    await expect(resolveSide('main', { ...resolver, resolveCommit: async () => 'a'.repeat(40) })).resolves.toEqual({ label: 'base', commit: 'a'.repeat(40) });
  });
});

const noDotnet = dotnetMissing();

describe.skipIf(noDotnet !== null)('ca affected with the semantic passes (Roslyn and the TS checker)', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-affected-sem-')), 'repo');
    cpSync(FULLSTACK, repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const file = join(repo, 'backend/Models/Orders.cs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('OrderDto(int Id, string Status, decimal Total)', 'OrderDto(int Id, string Status, decimal Total, string Currency)'));
    git(repo, 'commit', '-q', '-am', 'dto');
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    await engine.indexCommit('base', 'HEAD~1');
    await engine.indexCommit('dto', 'HEAD');
  }, 600_000);
  afterAll(() => {
    engine?.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('a C# DTO change reaches the actions constructing it, their endpoints, the TS clients and the component', async () => {
    const r = await engine.affected('base..dto');
    expect(changedRows(r)).toEqual(['signature Shop.Api.Models.OrderDto backend/Models/Orders.cs:3', 'added Shop.Api.Models.OrderDto.Currency backend/Models/Orders.cs:3']);
    expect(impactedRows(r)).toEqual([
      // Depth 1: GetById and Create call the record's constructor (`new OrderDto(...)`), exact from Roslyn.
      // List names OrderDto only as a type argument (`ActionResult<IEnumerable<OrderDto>>`,
      // `Array.Empty<OrderDto>()`): the graph holds no edge of the walk's types for that, so it is not reached.
      // With the SDK's Razor generator (decision 052), OrderList.razor's markup `@order.Id` (its line 5)
      // is an exact reference to the record's Id property: the component is reached at depth 1.
      '1 head Shop.Api.Components.Shared.OrderList exact: references/exact',
      '1 head Shop.Api.Controllers.OrdersController.GetById exact: calls/exact',
      '1 head Shop.Api.Controllers.OrdersController.Create exact: calls/exact',
      // Depth 2: OrderBoard uses <OrderList …/> (an exact reference from the generator's C#, line 7);
      // the endpoints, and the clients through them within the same hop (decision 038).
      '2 head Shop.Api.Components.Pages.OrderBoard exact: references/exact, references/exact',
      '2 head GET /api/orders/{id} exact: handles/exact, calls/exact',
      '2 head POST /api/orders exact: handles/exact, calls/exact',
      // The OpenAPI document's operations for those routes (backend/openapi.json) handle the
      // endpoints, in the same hop as them (decision 049); another language, so `cross`.
      '2 head POST /api/orders exact cross: handles/exact, handles/exact, calls/exact',
      '2 head GET /api/orders/{id} exact cross: handles/exact, handles/exact, calls/exact',
      '2 head getOrder exact cross: http_calls/exact, handles/exact, calls/exact',
      '2 head createOrder exact cross: http_calls/exact, handles/exact, calls/exact',
      '2 head OrdersClient.getOrder approximate cross: http_calls/approximate, handles/exact, calls/exact',
      // Depth 3: the @page endpoint handled by OrderBoard; OrderPage calls getOrder — exact now that
      // the TS checker resolved the call.
      '3 head GET /board/{customerId} exact: handles/exact, references/exact, references/exact',
      '3 head client/src/components/OrderPage.tsx exact cross: imports/exact, http_calls/exact, handles/exact, calls/exact',
      '3 head OrderPage exact cross: calls/exact, http_calls/exact, handles/exact, calls/exact',
    ]);
    // The backend's Razor files are analysed through the SDK's Razor generator (decision 052): no
    // Razor gap any more (before, the three Razor files stayed syntactic and the walk said so).
    expect(r.gaps.map((g) => g.reason).filter((reason) => reason.includes('syntactic: Razor generator not run'))).toEqual([]);
    expect(r.risk).toMatchObject({
      level: 'high',
      reasons: ['the impact crosses the language boundary', 'a public signature changed or was removed and has dependents'],
      // The 14 rows above, in 7 files (openapi.json, OrderList.razor and OrderBoard.razor among
      // them); endpoints: the 2 C# endpoints, the 2 OpenAPI operations (kind `endpoint`, decision
      // 049) and the Blazor page's GET /board/{customerId}.
      dependents: 14,
      dependentFiles: 7,
      endpoints: 5,
    });
  });
});
