import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { search as runSearch, type VectorChannel } from '@ca/retrieve';
import { CaError, parseFilter } from '@ca/schema';
import { BROAD_FILTER_FRACTION } from '@ca/store';
import { Engine, searchWorkspace, type FindResponse, type ResultContext, type SearchResult, type SiteContext } from '../src/index.js';
import { copyFixture, REPO_ROOT, TS_APP, testModels } from './helpers.js';

const CS_SOLUTION = join(REPO_ROOT, 'fixtures', 'cs-solution');
const TS_MONOREPO = join(REPO_ROOT, 'fixtures', 'ts-monorepo');
/** No semantic pass, no vectors: syntactic edges and the name and BM25 channels (fast, no model). */
const PLAIN = { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } };

/** `qualifiedName` of every result of a `find` (all pages: the fixtures are small). */
function names(r: FindResponse): string[] {
  return r.results.map((x) => x.qualifiedName);
}

/** The message of the CaError `fn` throws, with its code. */
function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof CaError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('did not throw');
}

/**
 * A test file added to the ts-app copy (the fixture itself has none): `is:test` selects its
 * symbol, and search ranks it down.
 */
const TEST_FILE = `import { AuthService } from './authService';

export function loginTwice(service: AuthService): void {
  void service.login('a', 'password1');
  void service.login('b', 'password2');
}
`;

describe('filter fields and filter-only queries on fixtures/ts-app', () => {
  let engine: Engine;
  beforeAll(async () => {
    const repo = copyFixture(TS_APP);
    writeFileSync(join(repo, 'src/auth/authService.test.ts'), TEST_FILE);
    engine = Engine.open(repo, PLAIN);
    await engine.index();
  });
  afterAll(() => engine.close());

  it('lang: — the four JS/JSX symbols (App.jsx, legacy/helpers.js; config.js has only its file node)', () => {
    expect(names(engine.find('lang:js'))).toEqual(['App', 'retry', 'sleep', 'stamp']);
    expect(names(engine.find('language:javascript'))).toEqual(['App', 'retry', 'sleep', 'stamp']);
  });

  it('kind: — the one enum', () => {
    expect(names(engine.find('kind:enum'))).toEqual(['InvoiceStatus']);
  });

  it('path: — a folder, a glob without slash (any depth), an anchored glob', () => {
    expect(names(engine.find('path:src/legacy'))).toEqual(['retry', 'sleep', 'stamp']);
    // Button.tsx (interface + 3 props + component), UserCard.tsx (interface + 3 props + component).
    expect(names(engine.find('path:*.tsx'))).toEqual([
      'ButtonProps',
      'ButtonProps.label',
      'ButtonProps.onClick',
      'ButtonProps.variant',
      'Button',
      'UserCardProps',
      'UserCardProps.name',
      'UserCardProps.email',
      'UserCardProps.onLogout',
      'UserCard',
    ]);
    expect(names(engine.find('path:src/*/format.ts and kind:variable'))).toEqual(['MAX_LOGIN_ATTEMPTS', 'DEFAULT_LOCALE']);
  });

  it('name: — a glob over the name or the qualified name, case-insensitive', () => {
    expect(names(engine.find('name:*props'))).toEqual(['ButtonProps', 'UserCardProps']);
    // Qualified names: the members of Billing (TAX_RATE, Invoice and its four members), in file order.
    expect(names(engine.find('name:Billing.*'))).toEqual([
      'Billing.TAX_RATE',
      'Billing.Invoice',
      'Billing.Invoice.status',
      'Billing.Invoice.constructor',
      'Billing.Invoice.total',
      'Billing.Invoice.void',
    ]);
  });

  it('project: / package: — the nearest package.json name', () => {
    expect(engine.find('package:ts-app-fixture').total).toBe(80);
    const none = engine.find('project:other');
    expect([none.total, none.notices]).toEqual([0, ['filter project:other (column 1) matches no project of this index (projects: ts-app-fixture)']]);
  });

  it('is:test, is:generated, is:public', () => {
    expect(names(engine.find('is:test'))).toEqual(['loginTwice']);
    // authService.test.ts sorts before authService.ts ("te" < "ts").
    expect(names(engine.find('name:login*'))).toEqual(['loginTwice', 'AuthService.login']);
    expect(names(engine.find('name:login* and not is:test'))).toEqual(['AuthService.login']);
    expect(names(engine.find('is:generated'))).toEqual(['UserDto', 'UserDto.id', 'UserDto.email', 'getUser']);
    // Non-exported functions of format.ts and helpers.js are not public API; exported ones are.
    expect(names(engine.find('kind:function and not is:public'))).toEqual(['sleep', 'pad']);
  });

  it('returns: — a type name inside the return type (Promise<Session>, Session | null)', () => {
    expect(names(engine.find('returns:Session'))).toEqual(['AuthService.login', 'AuthService.refresh', 'AuthService.refresh', 'AuthService.refresh']);
    expect(names(engine.find('returns:"Promise<*>" and kind:method'))).toEqual([
      'AuthService.login',
      'BillingAccount.terminatePlan',
      'PaymentProvider.charge',
      'PaymentProvider.cancelSubscription',
      'StripeProvider.charge',
      'StripeProvider.cancelSubscription',
    ]);
  });

  it('type: — parameter types of callables and declared types of properties', () => {
    // refresh(session: Session), refresh(arg: Session | string), describe(session: Session);
    // refresh(userId: string): Session | null only returns one.
    expect(names(engine.find('type:Session'))).toEqual(['AuthService.refresh', 'AuthService.refresh', 'AuthService.describe']);
    // Session.token: StoredToken; save(userId: string, token: StoredToken) twice.
    expect(names(engine.find('type:StoredToken'))).toEqual(['Session.token', 'TokenStore.save', 'MemoryTokenStore.save']);
    // loginTwice(service: AuthService) in the test file.
    expect(names(engine.find('type:AuthService'))).toEqual(['loginTwice']);
  });

  it('label: — the working label; any other is an unknown label', () => {
    expect(names(engine.find('label:working and kind:enum'))).toEqual(['InvoiceStatus']);
    expect(failure(() => engine.find('kind:enum and label:main'))).toEqual({
      code: 'unknown_label',
      message: 'invalid filter at column 15: unknown label "main" (labels: working)',
    });
  });

  it('and binds tighter than or; parentheses change it', () => {
    // lang:js or (kind:interface and name:*Props): the four JS symbols and the two *Props interfaces.
    expect(names(engine.find('lang:js or kind:interface and name:*Props'))).toEqual(['App', 'ButtonProps', 'UserCardProps', 'retry', 'sleep', 'stamp']);
    expect(names(engine.find('(lang:js or kind:interface) and name:*Props'))).toEqual(['ButtonProps', 'UserCardProps']);
    expect(names(engine.find('not (lang:ts or kind:component)'))).toEqual(['retry', 'sleep', 'stamp']);
  });

  it('pages in a stable order by offset and by cursor', () => {
    const all = engine.find('kind:property and lang:ts', { limit: 100 });
    // 17 TS properties: Session (2), AuthService (2), StoredToken (2), MemoryTokenStore (1),
    // BillingAccount (1), Billing.Invoice (1), ButtonProps (3), UserCardProps (3), UserDto (2).
    expect(all.total).toBe(17);
    expect(all.nextCursor).toBeNull();
    const first = engine.find('kind:property and lang:ts', { limit: 5 });
    expect([first.total, names(first)]).toEqual([17, names(all).slice(0, 5)]);
    const second = engine.find('kind:property and lang:ts', { limit: 5, cursor: first.nextCursor! });
    expect(names(second)).toEqual(names(all).slice(5, 10));
    const byOffset = engine.find('kind:property and lang:ts', { limit: 5, offset: 15 });
    expect([names(byOffset), byOffset.nextCursor]).toEqual([names(all).slice(15), null]);
    expect(failure(() => engine.find('kind:property', { cursor: 'nonsense' })).code).toBe('usage');
    expect(failure(() => engine.find('kind:property', { limit: 0 })).message).toBe('--limit must be an integer from 1 to 1000 (got 0)');
  });

  it('lists file nodes only when the filter asks for them', () => {
    expect(names(engine.find('kind:file and path:src/legacy'))).toEqual(['src/legacy/config.js', 'src/legacy/helpers.js']);
  });

  it('a filtered BM25 channel answers the unfiltered ranking with the failing rows left out', () => {
    const reader = engine.reader();
    // lang:ts passes most nodes (the best unfiltered rows are checked), lang:js few (its allowed
    // set is read); either way the answer is the unfiltered ranking, filtered. `not
    // path:src/auth/**` passes two thirds of the nodes but only 4 of the 31 best rows for this
    // query (the head read for limit 10: 2 × 10 ÷ 0.66), so the whole ranking is read after it.
    for (const f of ['lang:ts', 'lang:js', 'name:*token* or is:test', 'not kind:property', 'not path:src/auth/**']) {
      const filter = { expression: parseFilter(f) };
      const all = reader.bm25('token session user login', undefined, 1000);
      const pass = reader.idsPassing(filter, all.map((h) => h.nodeId));
      const exact = all.filter((h) => pass.has(h.nodeId));
      for (const limit of [1, 3, 10]) {
        expect([f, limit, reader.bm25('token session user login', filter, limit)]).toEqual([f, limit, exact.slice(0, limit)]);
      }
    }
  });

  it('search applies the filter in every channel and ANDs the older options', async () => {
    const r = await engine.search('token', { filter: 'lang:js or is:generated' });
    expect(r.results.every((x) => x.language === 'js' || x.path === 'src/generated/api.generated.ts')).toBe(true);
    // The test file's function and its file node (whose text says "login") pass; nothing else.
    const both = await engine.search('login', { filter: 'is:test', languages: ['ts'] });
    expect(both.results.map((x) => x.qualifiedName)).toEqual(['loginTwice', 'src/auth/authService.test.ts']);
    await expect(engine.search('login', { filter: 'kind:method and (' })).rejects.toThrow('invalid filter at column 17: unbalanced parentheses: this ( is never closed');
  });
});

describe('facts, identical code and context lines on fixtures/ts-app', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = copyFixture(TS_APP);
    // A vendored copy of format.ts: every symbol of it stands in two places.
    mkdirSync(join(repo, 'vendor'));
    cpSync(join(repo, 'src/utils/format.ts'), join(repo, 'vendor/format.ts'));
    engine = Engine.open(repo, PLAIN);
    await engine.index();
  });
  afterAll(() => engine.close());

  it('a result carries its package, public API flag, caller count and neighbour names', async () => {
    const r = await engine.search('AuthService.issueToken', { channels: ['name'], limit: 1 });
    // login() (line 32) and refresh() (line 46) call this.issueToken(); it calls nothing of the index.
    expect(r.results.map((x) => [x.qualifiedName, x.package, x.isPublicApi, x.callerCount, x.callers, x.callees])).toEqual([
      ['AuthService.issueToken', 'ts-app-fixture', false, 2, ['AuthService.login', 'AuthService.refresh'], []],
    ]);
  });

  it('identical code comes back once with every location', async () => {
    const r = await engine.search('formatDuration', { channels: ['name'] });
    expect(r.results.map((x) => [x.qualifiedName, x.path, x.locationCount, x.locations?.map((l) => `${l.path}:${l.startLine}`)])).toEqual([
      ['formatDuration', 'src/utils/format.ts', 2, ['src/utils/format.ts:32', 'vendor/format.ts:32']],
    ]);
    // Code in one place lists no locations.
    const one = await engine.search('AuthService.describe', { channels: ['name'], limit: 1 });
    expect([one.results[0]!.locations, one.results[0]!.locationCount]).toEqual([undefined, undefined]);
  });

  it('context lines stop at the start and the end of the file', async () => {
    const lines = async (query: string, before: number, after: number) => {
      const r = engine.withContext(await engine.search(query, { channels: ['name'], limit: 1 }), { before, after });
      const top = r.results[0] as SearchResult & { context?: ResultContext };
      return [top.qualifiedName, top.startLine, top.endLine, top.context];
    };
    // InvoiceStatus spans lines 2-7 of invoice.ts: one line above it, three below.
    expect(await lines('InvoiceStatus', 3, 3)).toEqual([
      'InvoiceStatus',
      2,
      7,
      { before: ['/** Lifecycle of an invoice. */'], after: ['', '/** One billed item, amounts in cents. */', 'export type LineItem = { description: string; amountCents: number; quantity: number };'] },
    ]);
    // Billing spans 12-31, the last line of the file: nothing below it.
    expect(await lines('Billing', 2, 5)).toEqual([
      'Billing',
      12,
      31,
      { before: ['export type LineItem = { description: string; amountCents: number; quantity: number };', ''], after: [] },
    ]);
  });

  it('caps long lines with a marker', async () => {
    const r = engine.withContext(await engine.search('InvoiceStatus', { channels: ['name'], limit: 1 }), { before: 1, maxLineLength: 12 });
    const top = r.results[0] as SearchResult & { context?: ResultContext };
    // "export enum InvoiceStatus {" is 27 characters: 12 kept, 15 left out.
    expect(top.code.split('\n')[0]).toBe('export enum … [+15 chars]');
    // "/** Lifecycle of an invoice. */" is 31 characters: 12 kept, 19 left out.
    expect(top.context).toEqual({ before: ['/** Lifecycl… [+19 chars]'], after: [] });
  });

  it('navigation sites carry the lines around them', () => {
    const r = engine.navigationContext(engine.navigate('callers', 'sleep'), { before: 1, after: 1 });
    // retry() calls sleep() at helpers.js:14.
    expect(r.edges.map((e) => [e.path, e.line, (e as { context?: SiteContext }).context])).toEqual([
      ['src/legacy/helpers.js', 14, { startLine: 13, lines: ['      if (i === attempts - 1) throw error;', '      await sleep(delayMs * 2 ** i);', '    }'] }],
    ]);
    expect(() => engine.navigationContext(r, { before: -1 })).toThrow('--context-before must be an integer from 0 to 1000 (got -1)');
    expect(() => engine.navigationContext(r, { after: 1_000_000_000 })).toThrow('--context-after must be an integer from 0 to 1000 (got 1000000000)');
  });

  it('view prints a file as indexed, by line range or by symbol number', () => {
    const whole = engine.view('src/legacy/helpers.js');
    expect([whole.totalLines, whole.startLine, whole.endLine, whole.text]).toEqual([27, 1, 27, require('node:fs').readFileSync(join(repo, 'src/legacy/helpers.js'), 'utf8')]);
    // helpers.js symbols in order: retry (8-17), sleep (19-21), stamp (23-25).
    expect(whole.chunks.map((c) => [c.id, c.qualifiedName, c.startLine, c.endLine])).toEqual([
      [1, 'retry', 8, 17],
      [2, 'sleep', 19, 21],
      [3, 'stamp', 23, 25],
    ]);
    expect(engine.view('src/legacy/helpers.js', { selector: 'id:2' }).text).toBe('function sleep(ms) {\n  return new Promise((resolve) => setTimeout(resolve, ms));\n}\n');
    const tail = engine.view('src/legacy/helpers.js', { selector: 'id:2-end' });
    expect([tail.startLine, tail.endLine]).toEqual([19, 25]);
    expect(engine.view('src/legacy/helpers.js', { lines: '26-27' }).text).toBe('\nmodule.exports = { retry, stamp };\n');
    expect(engine.view(join(repo, 'src/legacy/helpers.js'), { selector: 'id:1-1' }).startLine).toBe(8);
  });

  it('view refuses what it cannot show, with the reason', () => {
    expect(failure(() => engine.view('src/legacy/helpers.js', { selector: 'id:4' }))).toEqual({ code: 'usage', message: 'id:4: symbol 4 is out of range (the file has 3 symbols: 1-3)' });
    expect(failure(() => engine.view('src/legacy/helpers.js', { selector: 'id:3-2' })).message).toBe('id:3-2: the range ends before it starts');
    expect(failure(() => engine.view('src/legacy/helpers.js', { lines: '20-28' })).message).toBe('--lines 20-28: line 28 is out of range (the file has 27 lines: 1-27)');
    expect(failure(() => engine.view('src/legacy/helpers.js', { lines: 'x' })).message).toBe('--lines x: expected N, N-M or N-end');
    expect(failure(() => engine.view('../outside.ts'))).toEqual({ code: 'invalid_path', message: `../outside.ts is outside the repository ${repo}` });
    // package.json is indexed now (configuration keys, decision 039): a file written after indexing is not.
    writeFileSync(join(repo, 'notes.txt'), 'not indexed\n');
    expect(failure(() => engine.view('notes.txt'))).toEqual({ code: 'invalid_path', message: 'notes.txt is not in the index (not a file of the repository, or excluded from indexing)' });
  });

  it('view shows the indexed version of a file edited since (the copy the index keeps)', () => {
    const indexed = require('node:fs').readFileSync(join(repo, 'src/legacy/config.js'), 'utf8');
    writeFileSync(join(repo, 'src/legacy/config.js'), '// edited after indexing\n');
    expect(engine.view('src/legacy/config.js').text).toBe(indexed);
  });
});

describe('view of a label whose commit is not checked out', () => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

  it('prints the file of the label byte for byte as git show REV:FILE does, and its symbols by number', async () => {
    const repo = copyFixture(TS_APP);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fixture');
    // The commit adds a function to helpers.js (CRLF line ends and no final newline: bytes, not lines).
    writeFileSync(join(repo, 'src/legacy/helpers.js'), `${require('node:fs').readFileSync(join(repo, 'src/legacy/helpers.js'), 'utf8')}\r\nfunction later() {\r\n  return 1;\r\n}`);
    git(repo, 'commit', '-q', '-am', 'later');
    const rev = git(repo, 'rev-parse', 'HEAD').trim();
    git(repo, 'checkout', '-q', 'HEAD~1');
    const engine = Engine.open(repo, PLAIN);
    try {
      await engine.index();
      await engine.indexCommit('later', rev);
      const shown = engine.view('src/legacy/helpers.js', {}, { label: 'later' }).text;
      expect(Buffer.from(shown)).toEqual(execFileSync('git', ['show', `${rev}:src/legacy/helpers.js`], { cwd: repo }));
      // The working tree (checked out at the first commit) has three symbols; the label four.
      expect(engine.view('src/legacy/helpers.js').chunks.map((c) => c.qualifiedName)).toEqual(['retry', 'sleep', 'stamp']);
      // helpers.js had 27 lines ending in a newline; "\r\n" adds line 28 (a lone CR), so later() is 29-31.
      const later = engine.view('src/legacy/helpers.js', { selector: 'id:4' }, { label: 'later' });
      expect([later.startLine, later.endLine, later.text]).toEqual([29, 31, 'function later() {\r\n  return 1;\r\n}\n']);
      expect(failure(() => engine.view('src/legacy/helpers.js', {}, { label: 'nope' })).code).toBe('unknown_label');
    } finally {
      engine.close();
    }
  }, 120_000);
});

describe('filters on the C# solution and the TS monorepo', () => {
  let cs: Engine;
  let mono: Engine;
  beforeAll(async () => {
    cs = Engine.open(copyFixture(CS_SOLUTION), PLAIN);
    mono = Engine.open(copyFixture(TS_MONOREPO), PLAIN);
    await cs.index();
    await mono.index();
  });
  afterAll(() => {
    cs.close();
    mono.close();
  });

  it('project: names a .csproj by its file name', () => {
    // src/Acme.App/Acme.App.csproj holds Program.cs: namespace, class, Main.
    expect(names(cs.find('project:Acme.App'))).toEqual(['Acme.App', 'Acme.App.Program', 'Acme.App.Program.Main']);
    expect(cs.find('project:src/Acme.App/Acme.App.csproj').total).toBe(3);
    expect(cs.find('project:Acme.*').total).toBe(cs.find('lang:cs').total);
  });

  it('package: names a package.json name', () => {
    expect(names(mono.find('package:@mono/web and kind:component'))).toEqual(['App', 'Button', 'PriceTag']);
  });

  it('returns: and type: read C# return and parameter types', () => {
    // Task<int> Main, Task<T> ExecuteAsync, Task WaitForTokenAsync, Task ChargeAllAsync, and the
    // gateway interface and two implementations (ChargeAsync: Task<bool>, RefundAsync: Task).
    expect(names(cs.find('returns:Task'))).toEqual([
      'Acme.App.Program.Main',
      'Acme.Core.Billing.RateLimiter.ExecuteAsync',
      'Acme.Core.Billing.RateLimiter.WaitForTokenAsync',
      'Acme.Core.Billing.SubscriptionService.ChargeAllAsync',
      'Acme.Core.Payments.IPaymentGateway.ChargeAsync',
      'Acme.Core.Payments.IPaymentGateway.RefundAsync',
      'Acme.Core.Payments.StripeGateway.ChargeAsync',
      'Acme.Core.Payments.StripeGateway.RefundAsync',
      'Acme.Core.Payments.PayPalGateway.ChargeAsync',
      'Acme.Core.Payments.PayPalGateway.RefundAsync',
    ]);
    // Parameters of type Money, and the Money-typed property and event.
    expect(names(cs.find('type:Money'))).toEqual([
      'Acme.Core.Billing.SubscriptionService.ChargeAllAsync',
      'Acme.Core.Domain.Customer.Balance',
      'Acme.Core.Domain.Customer.BalanceChanged',
      'Acme.Core.Domain.Customer.Charge',
      'Acme.Core.Domain.Money.operator +',
      'Acme.Core.Payments.IPaymentGateway.ChargeAsync',
      'Acme.Core.Payments.StripeGateway.ChargeAsync',
      'Acme.Core.Payments.PayPalGateway.ChargeAsync',
    ]);
    expect(names(cs.find('kind:method and returns:IEnumerable* and is:public'))).toEqual(['Acme.Core.Billing.SubscriptionService.ActiveEmails', 'Acme.Core.Data.Repository.Where']);
  });
});

describe('several repositories in one search', () => {
  let app: string;
  let core: string;
  beforeAll(async () => {
    app = copyFixture(TS_APP);
    core = copyFixture(CS_SOLUTION);
    for (const repo of [app, core]) {
      const e = Engine.open(repo, PLAIN);
      await e.index();
      e.close();
    }
  });

  it('merges both indexes into one ranking; the best result may come from the second', async () => {
    // BM25 scores share one scale across indexes: RateLimiter's doc says "token bucket" (both
    // terms), the app's symbols say "token" only, so the second repository's class ranks first
    // and the first repository's token store follows.
    const r = await searchWorkspace(
      [
        { name: 'app', root: app },
        { name: 'core', root: core },
      ],
      'token bucket',
      { limit: 5 },
      { engine: PLAIN },
    );
    expect(r.results.slice(0, 2).map((x) => [x.repo, x.qualifiedName])).toEqual([
      ['core', 'Acme.Core.Billing.RateLimiter'],
      ['app', 'TokenStore'],
    ]);
    expect(r.results.every((x) => x.repo === 'app' || x.repo === 'core')).toBe(true);
    expect(r.repos).toEqual([
      { name: 'app', root: app, status: 'ok' },
      { name: 'core', root: core, status: 'ok' },
    ]);
    // A question both repositories answer: results from each, in one list.
    const both = await searchWorkspace([{ name: 'app', root: app }, { name: 'core', root: core }], 'retry backoff', { limit: 10 }, { engine: PLAIN });
    expect(new Set(both.results.map((x) => x.repo))).toEqual(new Set(['app', 'core']));
  });

  it('a corrupt or missing index is a notice; the others answer', async () => {
    const broken = copyFixture(CS_SOLUTION);
    const e = Engine.open(broken, PLAIN);
    await e.index();
    e.close();
    const db = join(broken, '.codeagent', 'index.db');
    rmSync(`${db}-wal`, { force: true });
    rmSync(`${db}-shm`, { force: true });
    writeFileSync(db, Buffer.alloc(8192, 7));
    const unindexed = copyFixture(TS_MONOREPO);
    const r = await searchWorkspace(
      [
        { name: 'app', root: app },
        { name: 'core', root: broken },
        { name: 'mono', root: unindexed },
      ],
      'RateLimiter',
      { limit: 5 },
      { engine: PLAIN },
    );
    expect(r.results.length).toBeGreaterThan(0);
    expect(r.results.every((x) => x.repo === 'app')).toBe(true);
    expect(r.repos.map((x) => [x.name, x.status])).toEqual([
      ['app', 'ok'],
      ['core', 'unavailable'],
      ['mono', 'unavailable'],
    ]);
    expect(r.notices.filter((n) => !n.includes('vector channel off'))).toEqual([
      `core: index unavailable: db_corrupt: ${db} is not a valid index database: file is not a database`,
      `mono: index unavailable: no index at ${join(resolve(unindexed), '.codeagent', 'index.db')} (run ca index ${unindexed})`,
    ]);
  });

  it('fails when no repository can answer', async () => {
    const unindexed = copyFixture(TS_MONOREPO);
    await expect(searchWorkspace([{ name: 'mono', root: unindexed }], 'x', {}, { engine: PLAIN })).rejects.toThrow('no repository of the search could answer');
  });
});

const { dir: MODELS, missing: MODEL_MISSING } = testModels();

describe.skipIf(MODEL_MISSING !== null)('filters and the vector channel (with vectors)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = Engine.open(copyFixture(TS_APP), { env: {}, configOverrides: { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } } });
    const report = await engine.index();
    expect(report.embeddings?.off).toBeNull();
  });
  afterAll(async () => engine.dispose());

  it('a filter leaving one symbol far down the vector ranking still finds it', async () => {
    const query = 'stop charging this customer every month';
    // Unfiltered, the vector channel's first three hits do not include stamp() (a log-line helper).
    const top = await engine.search(query, { channels: ['vector'], channelK: 3, limit: 3, facts: false });
    expect(top.results.some((x) => x.qualifiedName === 'stamp')).toBe(false);
    const filtered = await engine.search(query, { channels: ['vector'], channelK: 3, filter: 'name:stamp' });
    expect(filtered.results.map((x) => [x.qualifiedName, x.matchedBy])).toEqual([['stamp', ['vector']]]);
    // No lexical channel matches: the similarity floor (decision 026) would drop stamp(); this test is about the filter, so it is off.
    const hybrid = await engine.search(query, { channelK: 3, filter: 'name:stamp and lang:js', minSimilarity: -1 });
    expect(hybrid.results.map((x) => x.qualifiedName)).toEqual(['stamp']);
    expect((await engine.search(query, { channelK: 3, filter: 'name:stamp and lang:js' })).results).toEqual([]);
  });

  it('the filtered vector channel is the unfiltered ranking with the failing nodes left out', async () => {
    const reader = engine.reader();
    const embedded = (await engine.embedQuery('retry a failed payment with a delay'))!;
    const { ctx } = await engine.searchContext('retry a failed payment with a delay', {}, embedded);
    const all = ctx.vector!.search(1000, null);
    for (const f of ['lang:ts', 'lang:js', 'kind:method or kind:function']) {
      const filter = { expression: parseFilter(f) };
      const pass = reader.idsPassing(filter, all.map((h) => h.nodeId));
      const expected = all.filter((h) => pass.has(h.nodeId)).slice(0, 5).map((h) => h.nodeId);
      const r = await engine.search('retry a failed payment with a delay', { channels: ['vector'], channelK: 5, limit: 5, filter: f, facts: false });
      // Selection may show a child inside its selected parent: the same five symbols either way.
      const shown = r.results.flatMap((x) => [x.id, ...(x.expandedChildren ?? [])]).map(Number);
      expect([f, shown.sort((a, b) => a - b)]).toEqual([f, [...expected].sort((a, b) => a - b)]);
    }
  });

  it('a broad filter seen for the first time is checked on the nearest nodes; its allowed set is read when it comes again or checking gives up', async () => {
    const query = 'retry a failed payment with a delay';
    const reader = engine.reader();
    const { ctx } = await engine.searchContext(query, {}, await engine.embedQuery(query));
    const all = ctx.vector!.search(1000, null);
    const nameOf = new Map(reader.nodesByIds(all.map((h) => h.nodeId)).map((n) => [n.id, n.qualifiedName]));
    /** The vector channel alone, through a channel that records how it was asked (`gaveUp`: checking answers null). */
    const run = (filter: string, gaveUp = false) => {
      const calls: string[] = [];
      const vector: VectorChannel = {
        search: (k, allow) => (calls.push(allow ? 'set' : 'unfiltered'), ctx.vector!.search(k, allow)),
        searchChecked: (k, check, passRate) => (calls.push('checked'), gaveUp ? null : ctx.vector!.searchChecked!(k, check, passRate)),
      };
      const r = runSearch({ reader, vector }, query, { channels: ['vector'], channelK: 5, limit: 5, filter, facts: false });
      // Selection may show a child inside its selected parent: the same five symbols either way.
      const ids = r.results.flatMap((x) => [x.id, ...(x.expandedChildren ?? [])]).map(Number);
      return { calls, names: ids.map((id) => nameOf.get(id)).sort() };
    };
    /** The unfiltered ranking's first five that pass. */
    const expected = (filter: string) => {
      const pass = reader.idsPassing({ expression: parseFilter(filter) }, all.map((h) => h.nodeId));
      return all.filter((h) => pass.has(h.nodeId)).slice(0, 5).map((h) => nameOf.get(h.nodeId)).sort();
    };
    // Unfiltered, the best hit is `retry`, the JS helper; the next ones are TS symbols of billing
    // with close scores (their order can change with the embedding batch: compared as sets).
    expect(nameOf.get(all[0]!.nodeId)).toBe('retry');
    const billing = expected('lang:ts');
    expect(billing).toHaveLength(5);
    expect(billing).not.toContain('retry');
    expect(billing).toEqual(expect.arrayContaining(['StripeProvider', 'StripeProvider.charge']));
    // Every filter text is new to the connection, so no allowed set is cached. `lang:ts` passes
    // most nodes of the fixture (92% in the sample: one JS file): checked on the nearest nodes.
    const broad = 'lang:ts and not name:neverSeen1';
    expect(reader.knownPassingFraction({ expression: parseFilter(broad) })).toBeNull();
    expect(run(broad)).toEqual({ calls: ['checked'], names: billing });
    expect(reader.knownPassingFraction({ expression: parseFilter(broad) })).toBeGreaterThanOrEqual(BROAD_FILTER_FRACTION);
    // The same filter again: its allowed set is read (and cached for the searches that follow).
    expect(reader.cachedNodeIdsMatching({ expression: parseFilter(broad) })).toBeNull();
    expect(run(broad)).toEqual({ calls: ['set'], names: billing });
    expect(reader.cachedNodeIdsMatching({ expression: parseFilter(broad) })).not.toBeNull();
    // When checking gives up, the same answer from the allowed set.
    const again = 'lang:ts and not name:neverSeen2';
    expect(run(again, true)).toEqual({ calls: ['checked', 'set'], names: billing });
    // A selective filter (the JS file's symbols) reads its allowed set at once.
    const selective = 'lang:js and not name:neverSeen3';
    expect(reader.passingFraction({ expression: parseFilter(selective) })).toBeLessThan(BROAD_FILTER_FRACTION);
    const js = run(selective);
    expect(js).toEqual({ calls: ['set'], names: expected(selective) });
    expect(js.names).toContain('retry');
    // A filter whose allowed set is cached (the fallback above read it) uses it.
    expect(run(again)).toEqual({ calls: ['set'], names: billing });
  });

  it('a selective filter still returns the limit when that many symbols pass it', async () => {
    // 17 TS properties, UserDto.email and UserCardProps.email identical ("email: string"): 16 distinct.
    // Words no property holds: only the vector channel answers, so the similarity floor is off here (decision 026).
    const r = await engine.search('weather forecast for tomorrow', { filter: 'kind:property and lang:ts', limit: 16, minSimilarity: -1 });
    expect(r.results.length).toBe(16);
    expect(r.results.every((x) => x.kind === 'property')).toBe(true);
    const email = r.results.find((x) => x.name === 'email')!;
    expect(email.locations?.map((l) => l.qualifiedName)).toEqual(['UserCardProps.email', 'UserDto.email']);
  });

  it('two repositories with vectors: the query is embedded once and the best answer comes from the second', async () => {
    const core = copyFixture(CS_SOLUTION);
    const options = { env: {}, configOverrides: { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } } };
    const e = Engine.open(core, options);
    await e.index();
    await e.dispose();
    const r = await searchWorkspace(
      [
        { name: 'app', root: engine.repoRoot },
        { name: 'core', root: core },
      ],
      'token bucket that limits requests per second',
      { limit: 5 },
      { engine: options },
    );
    expect([r.results[0]!.repo, r.results[0]!.qualifiedName]).toEqual(['core', 'Acme.Core.Billing.RateLimiter']);
    expect(r.notices).toEqual([]);
  });
});
