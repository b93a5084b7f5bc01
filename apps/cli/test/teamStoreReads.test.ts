import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, navigateOf, navigateReads, outlineOf, sourceOf, symbolsOf, type GraphReads, type Navigation, type NavigationResult, type NodeRecord } from '@ca/engine';
import { openGraphReads, publish } from '@ca/store-postgres';
import { defaultConfig, isDocLanguage } from '@ca/schema';
import { ca, cleanEnv, ROOT } from './helpers.js';

// The read path of the team store (decision 042): one navigation suite with hand-derived answers,
// run against both backends of the async read contract — the local SQLite index's label and the
// snapshot it was published as on the real PostgreSQL test server (tools/pg-test-server.sh:
// CA_TEST_PG_URL publishes, CA_TEST_PG_RO_URL, a read-only role, reads). Under
// CA_REQUIRE_POSTGRES=1 (.ci/run) a missing server fails; elsewhere the suite is skipped with the
// reason printed.
const RW = process.env['CA_TEST_PG_URL'];
const RO = process.env['CA_TEST_PG_RO_URL'];
const haveServer = Boolean(RW && RO);
if (!haveServer) {
  if (process.env['CA_REQUIRE_POSTGRES'] === '1') throw new Error('CA_REQUIRE_POSTGRES=1 but CA_TEST_PG_URL / CA_TEST_PG_RO_URL are not set');
  console.warn('skipping the team store read tests: no PostgreSQL (eval "$(bash tools/pg-test-server.sh)")');
}
process.env['CA_EMBEDDING_MODEL_DIR'] = '/nonexistent/models';

const LIMITS = defaultConfig().graph;
const FIXTURES = ['ts-app', 'cs-solution', 'fullstack'] as const;
type Fixture = (typeof FIXTURES)[number];
type Backend = 'sqlite' | 'postgres';

interface Published {
  readonly engine: Engine;
  readonly label: string;
  readonly repository: string;
}

const run = `${process.pid}-${Date.now().toString(36)}`;
const published = new Map<Fixture, Published>();

/** A copy of the fixture indexed locally and published as label `main` of a repository of its own. */
async function indexAndPublish(fixture: Fixture): Promise<Published> {
  const repo = join(mkdtempSync(join(tmpdir(), 'ca-pgread-')), fixture);
  cpSync(join(ROOT, 'fixtures', fixture), repo, { recursive: true });
  if (fixture !== 'ts-app') {
    // C# edges depend on whether roslyn-host is built here: the C# fixtures are indexed
    // syntactically everywhere, so the expected answers hold on every machine.
    mkdirSync(join(repo, '.codeagent'), { recursive: true });
    writeFileSync(join(repo, '.codeagent', 'config.json'), JSON.stringify({ semantic: { enabled: false } }));
  }
  const engine = Engine.open(repo, {});
  const report = await engine.index({});
  const repository = `pgread-${fixture}-${run}`;
  await publish(RW!, repository, engine.store.snapshotSource(report.label), { label: 'main' });
  return { engine, label: report.label, repository };
}

async function readsOf(fixture: Fixture, backend: Backend): Promise<GraphReads> {
  const p = published.get(fixture)!;
  return backend === 'sqlite' ? p.engine.graphReads(p.label) : openGraphReads(RO!, p.repository, 'main');
}

/** An answer's edges as `from -type-> to @path:line` in answer order (ends named by qualified name; an unresolved target by its written name). */
function edgeLines(r: NavigationResult): string[] {
  const names = new Map<string, string>([[r.symbol.id, r.symbol.qualifiedName], ...r.nodes.map((n) => [n.id, n.qualifiedName] as const)]);
  return r.edges.map((e) => `${names.get(e.from) ?? `#${e.from}`} -${e.type}-> ${e.to === null ? `${e.targetName} (unresolved)` : (names.get(e.to) ?? `#${e.to}`)} @${e.path}:${e.line}`);
}

interface Expected {
  readonly fixture: Fixture;
  readonly navigation: Navigation;
  readonly symbol: string;
  readonly edges: readonly string[];
  /** The gap scopes (empty: the answer is complete). */
  readonly gaps: readonly string[];
}

// Hand-derived from the fixtures' sources (line numbers are the use sites).
const EXPECTED: readonly Expected[] = [
  // ts-app/src/App.jsx:13 `await auth.login(…)` inside App's handleLogin (a nested function, not a symbol: App is the caller).
  { fixture: 'ts-app', navigation: 'callers', symbol: 'AuthService.login', edges: ['App -calls-> AuthService.login @src/App.jsx:13'], gaps: [] },
  // authService.ts login(): `new Error` (25, 29: the built-in, no symbol of the repository, unresolved), this.checkPassword (27),
  // this.issueToken (32), this.store.save (33: store is a TokenStore, so the interface member). `failedAttempts.get/set/delete`
  // are Map methods: no edge.
  {
    fixture: 'ts-app', navigation: 'callees', symbol: 'AuthService.login', gaps: [],
    edges: [
      'AuthService.login -calls-> Error (unresolved) @src/auth/authService.ts:25',
      'AuthService.login -calls-> AuthService.checkPassword @src/auth/authService.ts:27',
      'AuthService.login -calls-> Error (unresolved) @src/auth/authService.ts:29',
      'AuthService.login -calls-> AuthService.issueToken @src/auth/authService.ts:32',
      'AuthService.login -calls-> TokenStore.save @src/auth/authService.ts:33',
    ],
  },
  // tokenStore.ts:21 `save(…)` of `class MemoryTokenStore implements TokenStore`.
  { fixture: 'ts-app', navigation: 'impls', symbol: 'TokenStore.save', edges: ['MemoryTokenStore.save -implements-> TokenStore.save @src/auth/tokenStore.ts:21'], gaps: [] },
  // The import in authService.ts:2, describe()'s call (61), helpers.js's require-style reference (1) and call in stamp() (24), formatDateTime (format.ts:20).
  {
    fixture: 'ts-app', navigation: 'refs', symbol: 'formatDate', gaps: [],
    edges: [
      'src/auth/authService.ts -imports-> formatDate @src/auth/authService.ts:2',
      'AuthService.describe -calls-> formatDate @src/auth/authService.ts:61',
      'src/legacy/helpers.js -references-> formatDate @src/legacy/helpers.js:1',
      'stamp -calls-> formatDate @src/legacy/helpers.js:24',
      'formatDateTime -calls-> formatDate @src/utils/format.ts:20',
    ],
  },
  // format.ts:8 `date.toISOString().slice(0, 10)`: two calls of library members, unresolved, in source order.
  {
    fixture: 'ts-app', navigation: 'callees', symbol: 'formatDate', gaps: [],
    edges: ['formatDate -calls-> slice (unresolved) @src/utils/format.ts:8', 'formatDate -calls-> date.toISOString (unresolved) @src/utils/format.ts:8'],
  },
  // PaymentGateways.cs StripeGateway.ChargeAsync: `await Task.Delay(…)` (14) and `customer.Charge(amount)` (15). Indexed
  // syntactically, C# call targets stay unresolved (names only), and the file's project is reported as a gap.
  {
    fixture: 'cs-solution', navigation: 'callees', symbol: 'StripeGateway.ChargeAsync', gaps: ['project src/Acme.Core/Acme.Core.csproj (cs)'],
    edges: [
      'Acme.Core.Payments.StripeGateway.ChargeAsync -calls-> Task.Delay (unresolved) @src/Acme.Core/Payments/PaymentGateways.cs:14',
      'Acme.Core.Payments.StripeGateway.ChargeAsync -calls-> customer.Charge (unresolved) @src/Acme.Core/Payments/PaymentGateways.cs:15',
    ],
  },
  // Customer.Billing.cs:26 `BalanceChanged?.Invoke(…)` in Charge: an event's delegate call, unresolved syntactically.
  {
    fixture: 'cs-solution', navigation: 'callees', symbol: 'Customer.Charge', gaps: ['project src/Acme.Core/Acme.Core.csproj (cs)'],
    edges: ['Acme.Core.Domain.Customer.Charge -calls-> BalanceChanged.Invoke (unresolved) @src/Acme.Core/Domain/Customer.Billing.cs:26'],
  },
  // Across HTTP (decision 038): GetById handles GET /api/orders/{id} ([HttpGet(ById)], OrdersController.cs:15); the
  // endpoint is crossed within the hop to its two client calls (client/src/api/orders.ts:8 and the generated client's :27).
  {
    fixture: 'fullstack', navigation: 'callers', symbol: 'OrdersController.GetById', gaps: ['project backend/Shop.Api.csproj (cs)'],
    edges: [
      'GET /api/orders/{id} -handles-> Shop.Api.Controllers.OrdersController.GetById @backend/Controllers/OrdersController.cs:15',
      // The OpenAPI document's operation for the same route links to the C# endpoint (decision 049).
      'GET /api/orders/{id} -handles-> GET /api/orders/{id} @backend/openapi.json:24',
      'getOrder -http_calls-> GET /api/orders/{id} @client/src/api/orders.ts:8',
      'OrdersClient.getOrder -http_calls-> GET /api/orders/{id} @client/src/generated/client.ts:27',
    ],
  },
];

describe.runIf(haveServer)('the async read contract on both backends (published fixtures)', () => {
  beforeAll(async () => {
    for (const f of FIXTURES) published.set(f, await indexAndPublish(f));
  }, 600_000);
  afterAll(() => {
    for (const p of published.values()) p.engine.close();
  });

  describe.each(['sqlite', 'postgres'] as const)('%s', (backend) => {
    it.each(EXPECTED.map((x) => [`${x.fixture} ${x.navigation} ${x.symbol}`, x] as const))('%s', async (_name, x) => {
      const reads = await readsOf(x.fixture, backend);
      try {
        const r = await navigateOf(reads, x.navigation, x.symbol, {}, LIMITS);
        expect(edgeLines(r)).toEqual(x.edges);
        expect(r.gaps.map((g) => g.scope)).toEqual(x.gaps);
        expect(r.complete).toBe(x.gaps.length === 0);
      } finally {
        await reads.close();
      }
    });

    it('resolves symbols by qualified name, by suffix (case-insensitive) and by id; outline and source read the label', async () => {
      const reads = await readsOf('ts-app', backend);
      try {
        // tokenStore.ts declares StoredToken (2 members), TokenStore (3), MemoryTokenStore (tokens + 3 methods), in source order after the file node.
        expect((await outlineOf(reads, 'src/auth/tokenStore.ts')).map((n) => n.qualifiedName)).toEqual([
          'src/auth/tokenStore.ts', 'StoredToken', 'StoredToken.value', 'StoredToken.expiresAt', 'TokenStore', 'TokenStore.save', 'TokenStore.load',
          'TokenStore.clear', 'MemoryTokenStore', 'MemoryTokenStore.tokens', 'MemoryTokenStore.save', 'MemoryTokenStore.load', 'MemoryTokenStore.clear',
        ]);
        // `save` names the interface member and the class member (suffix rule), exact case and path order.
        expect((await symbolsOf(reads, 'save')).map((n) => n.qualifiedName)).toEqual(['TokenStore.save', 'MemoryTokenStore.save']);
        expect((await symbolsOf(reads, 'authservice.LOGIN')).map((n) => n.qualifiedName)).toEqual(['AuthService.login']);
        const [login] = await symbolsOf(reads, 'AuthService.login');
        expect((await symbolsOf(reads, String(login!.id))).map((n) => n.qualifiedName)).toEqual(['AuthService.login']);
        // tokenStore.ts:21-23, the stored copy's bytes of the method.
        const { code, stale } = await sourceOf(reads, 'MemoryTokenStore.save');
        expect([code, stale]).toEqual(['save(userId: string, token: StoredToken): void {\n    this.tokens.set(userId, token);\n  }', false]);
        await expect(outlineOf(reads, 'src/nope.ts')).rejects.toMatchObject({ code: 'not_found', message: 'src/nope.ts is not in the index' });
        await expect(symbolsOf(reads, 'nothingCalledThis')).resolves.toEqual([]);
      } finally {
        await reads.close();
      }
    });
  });

  it.each(FIXTURES)('differential, %s: for every symbol, callers/callees/refs/impls from PostgreSQL equal SQLite\'s', async (fixture) => {
    const lite = await readsOf(fixture, 'sqlite');
    const pg = await readsOf(fixture, 'postgres');
    try {
      const p = published.get(fixture)!;
      const all = [...p.engine.store.reader(p.label).labelEntries().keys()].sort();
      // Markdown/JSON/YAML files are the local documentation partition: the team store publishes
      // code files only (decision 039), so PostgreSQL has none of their nodes and the comparison
      // runs over the code files.
      const isDoc = (path: string) => isDocLanguage(p.engine.store.reader(p.label).outline(path)[0]?.language);
      const docs = all.filter(isDoc);
      expect(docs.length).toBeGreaterThan(0);
      for (const path of docs) expect({ path, published: (await pg.outline(path)) ?? [] }).toEqual({ path, published: [] });
      const paths = all.filter((path) => !isDoc(path));
      let compared = 0;
      for (const path of paths) {
        const a = (await lite.outline(path)) ?? [];
        const b = (await pg.outline(path)) ?? [];
        // The same symbols of the file on both sides (same order: start byte, then widest first).
        expect(b.map(where)).toEqual(a.map(where));
        for (let i = 0; i < a.length; i++) {
          for (const nav of ['callers', 'callees', 'refs', 'impls'] as const) {
            const x = await navigateReads(lite, nav, [a[i]!], {}, LIMITS);
            const y = await navigateReads(pg, nav, [b[i]!], {}, LIMITS);
            expect({ symbol: where(b[i]!), nav, edges: edgeLines(y), gaps: y.gaps, complete: y.complete }).toEqual({ symbol: where(a[i]!), nav, edges: edgeLines(x), gaps: x.gaps, complete: x.complete });
            compared++;
          }
        }
      }
      // Every symbol of every file, four navigations each (a generator over the index, not a list).
      const symbols = paths.reduce((n, path) => n + p.engine.store.reader(p.label).outline(path).length, 0);
      expect(compared).toBe(symbols * 4);
      expect(symbols).toBeGreaterThan(50);
    } finally {
      await lite.close();
      await pg.close();
    }
  }, 300_000);
});

function where(n: NodeRecord): string {
  return `${n.path}|${n.kind}|${n.qualifiedName}|${n.startLine}-${n.endLine}`;
}

describe.runIf(haveServer)('ca symbol/outline/source/callers … --store (the CLI over the team store)', () => {
  let p: Published;
  const env = { ...cleanEnv({ CA_EMBEDDING_MODEL_DIR: '/nonexistent/models' }) };
  beforeAll(async () => {
    p = published.get('ts-app') ?? (await indexAndPublish('ts-app'));
  }, 600_000);

  const store = (args: string[], extra: string[] = ['--store', RO!, '--store-repo', p.repository]) => ca([...args, ...extra], { env, cwd: tmpdir() });

  it('answers navigation, symbol, outline and source from the store with the local output shapes', () => {
    const callers = store(['callers', 'AuthService.login', '--label', 'main', '--json']);
    expect(callers.stderr).toBe('');
    expect(callers.code).toBe(0);
    const answer = JSON.parse(callers.stdout);
    // The snapshot read (no checkout, so no freshness): the repository, the label and a snapshot id.
    expect(answer.store).toMatchObject({ backend: 'postgres', repository: p.repository, label: 'main' });
    expect(answer.freshness).toBeUndefined();
    expect(answer.edges.map((e: { type: string; path: string; line: number }) => `${e.type} ${e.path}:${e.line}`)).toEqual(['calls src/App.jsx:13']);
    expect(answer.nodes.map((n: { qualifiedName: string }) => n.qualifiedName)).toEqual(['App']);
    // Text: the local renderer's lines (login spans authService.ts:22-36; App, a component, starts at App.jsx:8; the TS semantic pass makes the edge exact).
    const text = store(['callers', 'AuthService.login']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('callers of AuthService.login (method) src/auth/authService.ts:22-36\n  calls      App (component) src/App.jsx:8  at src/App.jsx:13  [exact]\n');
    // tokenStore.ts has 37 lines; StoredToken spans 2-5 with its members at 3 and 4.
    const outline = store(['outline', 'src/auth/tokenStore.ts']);
    expect(outline.code).toBe(0);
    expect(outline.stdout.split('\n').slice(0, 4)).toEqual([
      'src/auth/tokenStore.ts (file, 37 lines)', '  interface StoredToken  2-5  export interface StoredToken', '    property value  3-3  readonly value: string',
      '    property expiresAt  4-4  readonly expiresAt: number',
    ]);
    const source = store(['source', 'MemoryTokenStore.save']);
    expect(source.stdout).toBe('// MemoryTokenStore.save — src/auth/tokenStore.ts:21-23\nsave(userId: string, token: StoredToken): void {\n    this.tokens.set(userId, token);\n  }\n');
    const symbol = store(['symbol', 'save', '--json']);
    expect(JSON.parse(symbol.stdout).symbols.map((s: { qualifiedName: string }) => s.qualifiedName)).toEqual(['TokenStore.save', 'MemoryTokenStore.save']);
  });

  it('ca search --store prints the result facts as the local search does (callers, callees, identical code)', () => {
    // formatDate (src/utils/format.ts:7) is called by AuthService.describe, stamp (legacy/helpers.js)
    // and formatDateTime, and calls nothing of the index; `email: string;` stands in UserCard.tsx:7
    // and api.generated.ts:5 (one chunk hash).
    const text = store(['search', 'formatDate', '--limit', '1', '--label', 'main']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[1]).toBe('     ts-app-fixture · public API · 3 callers (AuthService.describe, formatDateTime, stamp)');
    const time = JSON.parse(store(['search', 'formatDateTime', '--limit', '1', '--json']).stdout).results[0];
    expect([time.qualifiedName, time.callerCount, time.callers, time.callees]).toEqual(['formatDateTime', 0, [], ['formatDate']]);
    const email = store(['search', 'UserDto.email', '--limit', '1']);
    expect(email.stdout.split('\n')[2]).toBe('     identical code in 2 places, also at src/components/UserCard.tsx:7');
  });

  it('CA_STORE_URL names the store as --store does', () => {
    const r = ca(['callees', 'formatDate', '--store-repo', p.repository, '--json'], { env: { ...env, CA_STORE_URL: RO! }, cwd: tmpdir() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).edges.map((e: { targetName: string }) => e.targetName)).toEqual(['slice', 'date.toISOString']);
  });

  it('a label or repository the store does not hold is unknown_label naming what it holds (exit 2)', () => {
    const label = store(['callers', 'AuthService.login', '--label', 'nope', '--json']);
    expect(label.code).toBe(2);
    expect(JSON.parse(label.stdout).error).toEqual({ code: 'unknown_label', message: `repository "${p.repository}" of the team store has no label "nope" (its labels: main)` });
    const repo = store(['symbol', 'x'], ['--store', RO!, '--store-repo', 'no-such-repository']);
    expect(repo.code).toBe(2);
    expect(repo.stderr).toContain('the team store holds no repository "no-such-repository" (ca repos --store URL lists them; name one with --store-repo)');
  });

  it('names and symbols that try SQL injection are bound values: not found, and the store still answers', async () => {
    const hostile = [`x'; DROP TABLE labels; --`, `main' OR '1'='1`, `%`, `_`];
    for (const h of hostile) {
      await expect(openGraphReads(RO!, p.repository, h)).rejects.toMatchObject({ code: 'unknown_label' });
      await expect(openGraphReads(RO!, h, 'main')).rejects.toMatchObject({ code: 'unknown_label' });
      const reads = await openGraphReads(RO!, p.repository, 'main');
      try {
        // A symbol string reaches LIKE and = as a value: `%` and `_` match no name (no symbol is named so).
        await expect(navigateOf(reads, 'callers', h, {}, LIMITS)).rejects.toMatchObject({ code: 'not_found' });
      } finally {
        await reads.close();
      }
    }
    // Through the CLI too, and the store answers afterwards (nothing was dropped).
    const r = store(['callers', `x'; DROP TABLE labels; --`, '--label', `main' OR '1'='1`, '--json']);
    expect(JSON.parse(r.stdout).error.code).toBe('unknown_label');
    expect(JSON.parse(store(['callers', 'AuthService.login', '--json']).stdout).edges).toHaveLength(1);
  });

  it('an unreachable server is store_unreachable (exit 1), the password never shown', () => {
    const r = store(['callers', 'AuthService.login', '--json'], ['--store', 'postgres://ca_ro:secret@127.0.0.1:1/ca_test', '--store-repo', p.repository]);
    expect(r.code).toBe(1);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('store_unreachable');
    expect(error.message).not.toContain('secret');
  });
});

describe.runIf(haveServer)('reading while a label switches', () => {
  it('every answer is one snapshot\'s, never a mix; an open read keeps its snapshot after the switch', async () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'ca-pgread-')), 'ts-app');
    cpSync(join(ROOT, 'fixtures', 'ts-app'), repo, { recursive: true });
    const engine = Engine.open(repo, {});
    try {
      const repository = `pgread-switch-${run}`;
      const first = await engine.index({});
      await publish(RW!, repository, engine.store.snapshotSource(first.label), { label: 'live' });
      const answer = async (reads: GraphReads) => edgeLines(await navigateOf(reads, 'callers', 'formatDate', {}, LIMITS)).join('\n');
      const before = await openGraphReads(RO!, repository, 'live');
      const a = await answer(before);
      // Snapshot B: helpers.js's stamp() no longer calls formatDate (line 24 becomes a string), and
      // a new caller appears in format.ts — two files change, so a mix would show one change only.
      const helpers = join(repo, 'src/legacy/helpers.js');
      writeFileSync(helpers, readFileSync(helpers, 'utf8').replace(/formatDate\(/g, 'String('));
      writeFileSync(join(repo, 'src/utils/format.ts'), `${readFileSync(join(repo, 'src/utils/format.ts'), 'utf8')}\nexport function today(): string {\n  return formatDate(new Date());\n}\n`);
      const second = await engine.index({});
      let publishing = true;
      const switching = publish(RW!, repository, engine.store.snapshotSource(second.label), { label: 'live' }).finally(() => (publishing = false));
      const seen: string[] = [];
      while (publishing || seen.length < 3) {
        const reads = await openGraphReads(RO!, repository, 'live');
        try {
          seen.push(await answer(reads));
        } finally {
          await reads.close();
        }
      }
      await switching;
      const after = await openGraphReads(RO!, repository, 'live');
      const b = await answer(after);
      await after.close();
      // A: stamp's call at helpers.js:24 among the callers; B: without it, with today() at format.ts's end.
      expect(a).toContain('stamp -calls-> formatDate @src/legacy/helpers.js:24');
      expect(b).not.toContain('stamp -calls-> formatDate');
      expect(b).toContain('today -calls-> formatDate @src/utils/format.ts:');
      for (const s of seen) expect([a, b]).toContain(s);
      // The reader opened before the switch still answers A (its snapshot was dropped meanwhile).
      expect(await answer(before)).toBe(a);
      await before.close();
      // Reads run one after another: once one saw B, none after it sees A. (The last read of the
      // loop may have opened its snapshot just before the switch committed, so it may be A.)
      const firstB = seen.indexOf(b);
      if (firstB >= 0) expect(seen.slice(firstB).filter((s) => s !== b)).toEqual([]);
    } finally {
      engine.close();
    }
  }, 300_000);
});
