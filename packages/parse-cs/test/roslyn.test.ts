import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoslynHost } from '../src/roslyn/index.js';
import type { AnalyzeResult, LoadProjectResult } from '../src/roslyn/index.js';
import { doc, edgeLines, ensureHostBuilt, fixtureRoot, hasDotnet } from './roslynHelpers.js';

// Exact semantic edges on fixtures/cs-solution (expected values written by hand from its sources).
describe.skipIf(!hasDotnet)('roslyn-host on fixtures/cs-solution', () => {
  let host: RoslynHost;
  let load: LoadProjectResult;
  let all: AnalyzeResult;

  beforeAll(async () => {
    ensureHostBuilt();
    host = new RoslynHost();
    load = await host.loadProject({ projectPath: 'src/Acme.App/Acme.App.csproj', repoRoot: fixtureRoot });
    all = await host.analyze({});
  }, 600_000);

  afterAll(async () => {
    await host?.dispose();
  });

  it('answers the handshake with protocol version, extractor version and capabilities', () => {
    const hs = host.handshake!;
    expect(hs.protocolVersion).toBe(1);
    expect(hs.extractorVersion).toBe('roslyn-host/1.1.0');
    expect(hs.capabilities.safeMode).toBe(true);
    expect(hs.capabilities.unsafeMode).toBe(false);
    expect(hs.capabilities.queueSize).toBe(64);
    expect(hs.capabilities.methods).toEqual(['initialize', 'ping', 'cancel', 'shutdown', 'loadProject', 'analyze', 'unloadProject', 'prepareRazor']);
  });

  it('loads the project and its ProjectReference without MSBuild', () => {
    expect(load.projects.map((p) => p.projectId)).toEqual(['src/Acme.App/Acme.App.csproj', 'src/Acme.Core/Acme.Core.csproj']);
    const [app, core] = load.projects;
    expect(app!.assemblyName).toBe('acme');
    expect(app!.projectReferences).toEqual(['src/Acme.Core/Acme.Core.csproj']);
    expect(app!.documents).toEqual(['src/Acme.App/Program.cs']);
    expect(core!.documents).toEqual([
      'src/Acme.Core/Billing/RateLimiter.cs',
      'src/Acme.Core/Billing/SubscriptionService.cs',
      'src/Acme.Core/Data/Repository.cs',
      'src/Acme.Core/Domain/Customer.Billing.cs',
      'src/Acme.Core/Domain/Customer.cs',
      'src/Acme.Core/Domain/CustomerDto.cs',
      'src/Acme.Core/Domain/Money.cs',
      'src/Acme.Core/Generated/CustomerDto.g.cs',
      'src/Acme.Core/Notifications/Notifier.cs',
      'src/Acme.Core/Payments/IPaymentGateway.cs',
      'src/Acme.Core/Payments/PaymentGateways.cs',
      'src/Acme.Core/Text/StringExtensions.cs',
    ]);
    // DefineConstants (unconditional group) + TFM symbols + configuration; the Debug-only group is not applied.
    expect(core!.preprocessorSymbols).toContain('ACME_BILLING');
    expect(core!.preprocessorSymbols).toContain('NET8_0');
    expect(core!.preprocessorSymbols).toContain('NET8_0_OR_GREATER');
    expect(core!.preprocessorSymbols).toContain('RELEASE');
    expect(core!.preprocessorSymbols).not.toContain('ACME_VERBOSE');
    expect(core!.errorCount).toBe(0);
  });

  it('emits the exact call and reference edges of Program.Main, across the project reference', () => {
    const program = doc(all, 'src/Acme.App/Program.cs');
    const inSource = program.edges.filter((e) => e.targetPath !== undefined);
    expect(new Set(inSource.map((e) => e.sourceKey))).toEqual(new Set(['M:Acme.App.Program.Main(System.String[])']));
    expect(inSource.every((e) => e.confidence === 'exact')).toBe(true);
    expect(edgeLines(inSource)).toEqual(
      [
        'calls 17 M:Acme.Core.Domain.Customer.#ctor(System.String,System.String)',
        'calls 18 M:Acme.Core.Domain.Customer.AddTag(System.String)',
        'calls 18 M:Acme.Core.Text.StringExtensions.Slugify(System.String)',
        'calls 20 M:Acme.Core.Payments.PayPalGateway.#ctor',
        'calls 20 M:Acme.Core.Payments.StripeGateway.#ctor',
        'calls 21 M:Acme.Core.Billing.RateLimiter.#ctor(System.Int32)',
        'calls 21 M:Acme.Core.Billing.SubscriptionService.#ctor(Acme.Core.Payments.IPaymentGateway,Acme.Core.Billing.RateLimiter)',
        'calls 22 M:Acme.Core.Billing.SubscriptionService.Subscribe(Acme.Core.Domain.Customer)',
        'calls 24 M:Acme.Core.Billing.SubscriptionService.ChargeAllAsync(Acme.Core.Domain.Money,System.Threading.CancellationToken)',
        'calls 24 M:Acme.Core.Domain.Money.#ctor(System.Decimal,System.String)',
        'calls 25 M:Acme.Core.Notifications.EmailNotifier.#ctor',
        'calls 26 M:Acme.Core.Notifications.Notifier.Send(Acme.Core.Domain.Customer,System.String)',
        'calls 28 M:Acme.Core.Billing.SubscriptionService.CancelRecurringBilling(Acme.Core.Domain.Customer)',
        'calls 29 M:Acme.Core.Domain.CustomerDto.FromCustomer(Acme.Core.Domain.Customer)',
        'references 29 P:Acme.Core.Domain.CustomerDto.Name read',
      ].sort(),
    );
    // The extension call targets the static method it was reduced from, located in source.
    const slugify = inSource.find((e) => e.targetKey.includes('Slugify'))!;
    expect([slugify.targetPath, slugify.targetLine, slugify.targetKind, slugify.targetName]).toEqual([
      'src/Acme.Core/Text/StringExtensions.cs',
      8,
      'method',
      'Slugify',
    ]);
    // An implicit default constructor points at its type's declaration.
    const paypal = inSource.find((e) => e.targetKey === 'M:Acme.Core.Payments.PayPalGateway.#ctor')!;
    expect([paypal.targetPath, paypal.targetLine, paypal.targetKind]).toEqual(['src/Acme.Core/Payments/PaymentGateways.cs', 25, 'constructor']);
  });

  it('keys generic overloads of Repository<T> by documentation comment ID', () => {
    const repo = doc(all, 'src/Acme.Core/Data/Repository.cs');
    const finds = repo.symbols.filter((s) => s.name === 'Find').map((s) => [s.key, s.metadataName, s.arity, s.parameterTypes, s.startLine, s.endLine]);
    expect(finds).toEqual([
      ['M:Acme.Core.Data.Repository`1.Find(System.Int32)', 'Acme.Core.Data.Repository`1.Find', 0, ['int'], 31, 34],
      ['M:Acme.Core.Data.Repository`1.Find(System.String)', 'Acme.Core.Data.Repository`1.Find', 0, ['string'], 36, 39],
      ['M:Acme.Core.Data.Repository`1.Find``1(``0)', 'Acme.Core.Data.Repository`1.Find', 1, ['TKey'], 41, 44],
    ]);
    const cls = repo.symbols.find((s) => s.key === 'T:Acme.Core.Data.Repository`1')!;
    expect([cls.kind, cls.metadataName, cls.arity, cls.namespace]).toEqual(['class', 'Acme.Core.Data.Repository`1', 1, 'Acme.Core.Data']);
    // Find<TKey> delegates to the string overload; the LINQ query in Where desugars to Enumerable.Where (select is degenerate).
    expect(edgeLines(repo.edges, (e) => e.type === 'calls' && (e.line === 43 || e.line === 48))).toEqual([
      'calls 43 M:Acme.Core.Data.Repository`1.Find(System.String)',
      'calls 43 M:System.Object.ToString',
      'calls 48 M:System.Linq.Enumerable.Where``1(System.Collections.Generic.IEnumerable{``0},System.Func{``0,System.Boolean})',
    ]);
  });

  it('desugars LINQ query clauses into calls and attributes lambdas to their containing method', () => {
    const svc = doc(all, 'src/Acme.Core/Billing/SubscriptionService.cs');
    const activeEmails = svc.edges.filter((e) => e.sourceKey === 'M:Acme.Core.Billing.SubscriptionService.ActiveEmails');
    expect(edgeLines(activeEmails)).toEqual([
      'calls 53 M:System.Linq.Enumerable.Where``1(System.Collections.Generic.IEnumerable{``0},System.Func{``0,System.Boolean})',
      'calls 54 M:System.Linq.Enumerable.OrderBy``2(System.Collections.Generic.IEnumerable{``0},System.Func{``0,``1})',
      'calls 55 M:System.Linq.Enumerable.Select``2(System.Collections.Generic.IEnumerable{``0},System.Func{``0,``1})',
      'references 52 F:Acme.Core.Billing.SubscriptionService._subscribers read',
      'references 53 P:Acme.Core.Domain.Customer.IsActive read',
      'references 54 P:Acme.Core.Domain.Customer.Name read',
      'references 55 P:Acme.Core.Domain.Customer.Email read',
    ]);
    const charge = svc.edges.filter(
      (e) => e.sourceKey === 'M:Acme.Core.Billing.SubscriptionService.ChargeAllAsync(Acme.Core.Domain.Money,System.Threading.CancellationToken)',
    );
    expect(edgeLines(charge)).toEqual([
      'calls 61 M:System.Linq.Enumerable.Where``1(System.Collections.Generic.IEnumerable{``0},System.Func{``0,System.Boolean})',
      'calls 63 M:Acme.Core.Billing.RateLimiter.ExecuteAsync``1(System.Func{System.Threading.CancellationToken,System.Threading.Tasks.Task{``0}},System.Threading.CancellationToken)',
      'calls 64 M:Acme.Core.Payments.IPaymentGateway.ChargeAsync(Acme.Core.Domain.Customer,Acme.Core.Domain.Money,System.Threading.CancellationToken)',
      'references 61 F:Acme.Core.Billing.SubscriptionService._subscribers read',
      'references 61 P:Acme.Core.Domain.Customer.IsActive read',
      'references 63 F:Acme.Core.Billing.SubscriptionService._limiter read',
      'references 64 F:Acme.Core.Billing.SubscriptionService._gateway read',
    ]);
    // Event invocation through ?.Invoke is a call to the event; the write of IsActive is a write.
    const cancel = svc.edges.filter((e) => e.sourceKey === 'M:Acme.Core.Billing.SubscriptionService.CancelRecurringBilling(Acme.Core.Domain.Customer)');
    expect(edgeLines(cancel, (e) => e.targetPath !== undefined)).toEqual([
      'calls 46 E:Acme.Core.Billing.SubscriptionService.Cancelled',
      'references 41 F:Acme.Core.Billing.SubscriptionService._subscribers read',
      'references 45 P:Acme.Core.Domain.Customer.IsActive write',
      'references 46 E:Acme.Core.Billing.SubscriptionService.Cancelled read',
    ]);
  });

  it('emits implements (type and member), inherits and overrides edges', () => {
    const gateways = doc(all, 'src/Acme.Core/Payments/PaymentGateways.cs');
    const decl = gateways.edges.filter((e) => e.type === 'implements').map((e) => `${e.sourceKey} -> ${e.targetKey} @${e.line}`);
    expect(decl).toEqual([
      'T:Acme.Core.Payments.StripeGateway -> T:Acme.Core.Payments.IPaymentGateway @8',
      'P:Acme.Core.Payments.StripeGateway.Name -> P:Acme.Core.Payments.IPaymentGateway.Name @10',
      'M:Acme.Core.Payments.StripeGateway.ChargeAsync(Acme.Core.Domain.Customer,Acme.Core.Domain.Money,System.Threading.CancellationToken) -> M:Acme.Core.Payments.IPaymentGateway.ChargeAsync(Acme.Core.Domain.Customer,Acme.Core.Domain.Money,System.Threading.CancellationToken) @12',
      'M:Acme.Core.Payments.StripeGateway.RefundAsync(System.String,System.Threading.CancellationToken) -> M:Acme.Core.Payments.IPaymentGateway.RefundAsync(System.String,System.Threading.CancellationToken) @19',
      'T:Acme.Core.Payments.PayPalGateway -> T:Acme.Core.Payments.IPaymentGateway @25',
      'P:Acme.Core.Payments.PayPalGateway.Name -> P:Acme.Core.Payments.IPaymentGateway.Name @29',
      'M:Acme.Core.Payments.PayPalGateway.ChargeAsync(Acme.Core.Domain.Customer,Acme.Core.Domain.Money,System.Threading.CancellationToken) -> M:Acme.Core.Payments.IPaymentGateway.ChargeAsync(Acme.Core.Domain.Customer,Acme.Core.Domain.Money,System.Threading.CancellationToken) @31',
      'M:Acme.Core.Payments.PayPalGateway.RefundAsync(System.String,System.Threading.CancellationToken) -> M:Acme.Core.Payments.IPaymentGateway.RefundAsync(System.String,System.Threading.CancellationToken) @40',
    ]);
    const notifier = doc(all, 'src/Acme.Core/Notifications/Notifier.cs');
    expect(notifier.edges.filter((e) => e.type === 'inherits' || e.type === 'overrides').map((e) => `${e.type} ${e.sourceKey} -> ${e.targetKey}`)).toEqual([
      'inherits T:Acme.Core.Notifications.EmailNotifier -> T:Acme.Core.Notifications.Notifier',
      'overrides M:Acme.Core.Notifications.EmailNotifier.Send(Acme.Core.Domain.Customer,System.String) -> M:Acme.Core.Notifications.Notifier.Send(Acme.Core.Domain.Customer,System.String)',
      'overrides M:Acme.Core.Notifications.EmailNotifier.Format(System.String) -> M:Acme.Core.Notifications.Notifier.Format(System.String)',
      'inherits T:Acme.Core.Notifications.SmsNotifier -> T:Acme.Core.Notifications.Notifier',
      'overrides M:Acme.Core.Notifications.SmsNotifier.Send(Acme.Core.Domain.Customer,System.String) -> M:Acme.Core.Notifications.Notifier.Send(Acme.Core.Domain.Customer,System.String)',
    ]);
    // base.Format(...) is a call to the overridden member.
    expect(edgeLines(notifier.edges, (e) => e.line === 30)).toEqual(['calls 30 M:Acme.Core.Notifications.Notifier.Format(System.String)']);
  });

  it('records the record Money, its user-defined operator use and the implicit IEquatable<Money>', () => {
    const money = doc(all, 'src/Acme.Core/Domain/Money.cs');
    expect(money.symbols.map((s) => `${s.kind} ${s.key} ${s.startLine}-${s.endLine}`)).toEqual([
      'namespace N:Acme.Core.Domain 3-21',
      'record T:Acme.Core.Domain.Money 6-20',
      'constructor M:Acme.Core.Domain.Money.#ctor(System.Decimal,System.String) 6-20',
      'property P:Acme.Core.Domain.Money.Amount 6-6',
      'property P:Acme.Core.Domain.Money.Currency 6-6',
      'method M:Acme.Core.Domain.Money.Zero(System.String) 8-8',
      'operator M:Acme.Core.Domain.Money.op_Addition(Acme.Core.Domain.Money,Acme.Core.Domain.Money) 10-17',
      'method M:Acme.Core.Domain.Money.ToString 19-19',
    ]);
    expect(edgeLines(money.edges, (e) => e.type !== 'calls' && e.type !== 'references')).toEqual([
      'implements 6 T:System.IEquatable`1',
      'overrides 19 M:System.Object.ToString',
    ]);
    const billing = doc(all, 'src/Acme.Core/Domain/Customer.Billing.cs');
    expect(edgeLines(billing.edges, (e) => e.type === 'calls')).toEqual([
      'calls 16 M:System.ArgumentOutOfRangeException.#ctor(System.String)',
      'calls 25 M:Acme.Core.Domain.Money.op_Addition(Acme.Core.Domain.Money,Acme.Core.Domain.Money)',
      'calls 26 E:Acme.Core.Domain.Customer.BalanceChanged',
      'calls 8 M:Acme.Core.Domain.Money.Zero(System.String)',
    ]);
    // A field initializer's uses belong to the field.
    expect(billing.edges.find((e) => e.line === 8)!.sourceKey).toBe('F:Acme.Core.Domain.Customer._balance');
  });

  it('emits extends for the extension method and marks the .g.cs partial as generated', () => {
    const ext = doc(all, 'src/Acme.Core/Text/StringExtensions.cs');
    expect(edgeLines(ext.edges, (e) => e.type === 'extends')).toEqual(['extends 8 T:System.String']);
    const gen = doc(all, 'src/Acme.Core/Generated/CustomerDto.g.cs');
    expect(gen.generated).toBe(true);
    expect(doc(all, 'src/Acme.Core/Domain/CustomerDto.cs').generated).toBe(false);
    // Both partial parts declare the same type key, each with its own span.
    const parts = all.documents.flatMap((d) => d.symbols.filter((s) => s.key === 'T:Acme.Core.Domain.Customer').map((s) => `${s.path}:${s.startLine}-${s.endLine}`));
    expect(parts).toEqual(['src/Acme.Core/Domain/Customer.Billing.cs:6-28', 'src/Acme.Core/Domain/Customer.cs:9-42']);
  });

  it('counts reference and call sites per declared symbol across both projects', () => {
    const customer = doc(all, 'src/Acme.Core/Domain/Customer.cs');
    const count = (key: string): number | undefined => customer.symbols.find((s) => s.key === key)?.referenceCount;
    // Email: ctor write, ChangeEmail, ActiveEmails (LINQ select), EmailNotifier.Send, CustomerDto.FromCustomer.
    expect(count('P:Acme.Core.Domain.Customer.Email')).toBe(5);
    // AddTag: Program.Main only (other project).
    expect(count('M:Acme.Core.Domain.Customer.AddTag(System.String)')).toBe(1);
    expect(count('M:Acme.Core.Domain.Customer.ChangeEmail(System.String)')).toBe(0);
  });

  it('analyses a batch of paths and reports unknown ones as missing', async () => {
    const r = await host.analyze({ paths: ['src/Acme.Core/Text/StringExtensions.cs', 'src/Nope.cs'], includeExternalTargets: false });
    expect(r.documents.map((d) => d.path)).toEqual(['src/Acme.Core/Text/StringExtensions.cs']);
    expect(r.missing).toEqual(['src/Nope.cs']);
    expect(r.documents[0]!.edges).toEqual([]);
  });
});

if (!hasDotnet) {
  describe('roslyn-host on fixtures/cs-solution', () => {
    it('is skipped because dotnet is not installed', () => {
      console.warn('[roslyn tests] SKIPPED: dotnet not installed');
      expect(hasDotnet).toBe(false);
    });
  });
}
