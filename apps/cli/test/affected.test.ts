import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ca, cleanEnv } from './helpers.js';

/**
 * `ca affected BASE..` end to end on a git copy of fixtures/fullstack (semantic passes and
 * embeddings off): the commit indexed as label `base`, GetById's body edited in the working tree.
 * The graph is the one packages/engine/test/affected.test.ts derives by hand (its scenario
 * `action`, without that test's extra test file): the endpoint and both clients at depth 1,
 * OrderPage and its file at depth 2.
 */
describe('ca affected', () => {
  let repo: string;
  const env = cleanEnv({ CA_EMBEDDING_ENABLED: 'false', CA_SEMANTIC_ENABLED: 'false' });
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-cli-affected-')), 'repo');
    cpSync(join(ROOT, 'fixtures/fullstack'), repo, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    expect(ca(['index', repo, '--label', 'base', '--commit', 'HEAD', '--json'], { env }).code).toBe(0);
    const file = join(repo, 'backend/Controllers/OrdersController.cs');
    writeFileSync(file, readFileSync(file, 'utf8').replace('Ok(new OrderDto(id, "open", 0m))', 'Ok(new OrderDto(id, "closed", 0m))'));
    expect(ca(['index', repo, '--json'], { env }).code).toBe(0);
  }, 240_000);
  afterAll(() => rmSync(join(repo, '..'), { recursive: true, force: true }));

  it('prints the review text: risk, changed, impacted with each chain, endpoints, the gap', () => {
    const r = ca(['affected', 'base..', '--repo', repo], { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^affected base @ [0-9a-f]{12} \.\. working @ [0-9a-f]{12}: files 1 modified$/);
    expect(lines.slice(1)).toEqual([
      'risk: HIGH — the impact crosses the language boundary',
      // + the contract operation of backend/openapi.json describing the endpoint (decision 049).
      '  1 changed symbol, 6 dependents in 5 files, 2 endpoints, 0 tests; languages cs, openapi, ts',
      '  public API: Shop.Api.Controllers.OrdersController.GetById',
      '',
      'Changed (1):',
      '  body       Shop.Api.Controllers.OrdersController.GetById (method, cs)  backend/Controllers/OrdersController.cs:15  public',
      '',
      'Impacted (6, depth ≤ 3, nearest first):',
      '   1  GET /api/orders/{id} (endpoint, cs)  backend/Controllers/OrdersController.cs:15  [exact]',
      '       GET /api/orders/{id} → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '   1  GET /api/orders/{id} (endpoint, openapi)  backend/openapi.json:24  [exact, crosses language]',
      '       GET /api/orders/{id} → GET /api/orders/{id} (handles exact) → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '   1  getOrder (function, ts)  client/src/api/orders.ts:7  [exact, crosses language]',
      '       getOrder → GET /api/orders/{id} (http_calls exact) → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '   1  OrdersClient.getOrder (method, ts)  client/src/generated/client.ts:16  [approximate, crosses language]',
      '       OrdersClient.getOrder → GET /api/orders/{id} (http_calls approximate) → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '   2  client/src/components/OrderPage.tsx (file, ts)  client/src/components/OrderPage.tsx:1  [exact, crosses language]',
      '       client/src/components/OrderPage.tsx → getOrder (imports exact) → GET /api/orders/{id} (http_calls exact) → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '   2  OrderPage (component, ts)  client/src/components/OrderPage.tsx:5  [approximate, crosses language]',
      '       OrderPage → getOrder (calls approximate) → GET /api/orders/{id} (http_calls exact) → Shop.Api.Controllers.OrdersController.GetById (handles exact)',
      '',
      'Endpoints (2):',
      '  GET /api/orders/{id}  backend/Controllers/OrdersController.cs:15  (impacted, depth 1)',
      '  GET /api/orders/{id}  backend/openapi.json:24  (impacted, depth 1)',
      '',
      // The semantic passes are off: both projects' edges are name-matched, and the answer says so.
      // 11: the eight .cs files (Config/ShopConfig.cs joined with decision 048) and the three Razor
      // files (OrderBoard.razor, OrderList.razor, Checkout.cshtml).
      // 13 C# files: the fixture's Components/_Imports.razor and Services/IOrderService.cs (decision 052) joined the 11.
      'note: incomplete — project backend/Shop.Api.csproj (cs): syntactic only (13 files): no semantic pass has run; call/reference edges there are approximate (name-matched) and may be missing or wrong',
      // The openapi language has no semantic pass, yet its document is counted as a gap (a known defect, decision 049's report).
      'note: incomplete — project backend/Shop.Api.csproj (openapi): syntactic only (1 file): no semantic pass has run; call/reference edges there are approximate (name-matched) and may be missing or wrong',
      // 9: the 7 before and the generated client shopApi.ts and the Invoice.tsx component.
      'note: incomplete — project fullstack-client (ts): syntactic only (9 files): no semantic pass has run; call/reference edges there are approximate (name-matched) and may be missing or wrong',
      '',
    ]);
  });

  it('--json: the report for CI; --depth 1 stops at the clients', () => {
    const r = ca(['affected', 'base..working', '--repo', repo, '--json', '--depth', '1'], { env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.depth).toBe(1);
    // The endpoint, the contract operation describing it (decision 049), the two clients.
    expect(report.impacted.map((s: { qualifiedName: string }) => s.qualifiedName)).toEqual(['GET /api/orders/{id}', 'GET /api/orders/{id}', 'getOrder', 'OrdersClient.getOrder']);
    // The endpoint, the contract operation describing it (decision 049), the two clients.
    expect(report.risk).toMatchObject({ level: 'high', dependents: 4, crossesLanguage: true });
  });

  it('bad arguments: exit 2 with the reason', () => {
    const cases: [string[], string][] = [
      [['affected', 'base', '--repo', repo], 'affected needs BASE..HEAD'],
      [['affected', '--repo', repo], 'usage: ca affected BASE..HEAD'],
      [['affected', 'base..', '--label', 'base', '--repo', repo], '--label does not apply'],
      [['affected', 'nope..', '--repo', repo], '"nope" is not a label of this index (labels: '],
      [['affected', 'base..', '--depth', '0', '--repo', repo], '--depth must be an integer from 1'],
    ];
    for (const [args, message] of cases) {
      const r = ca(args, { env });
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(message);
    }
  });
});
