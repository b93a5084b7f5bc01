import type { FileIndex, LanguageAdapter } from '@ca/schema';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPreprocessor, createCsAdapter, DEFAULT_PREPROCESSOR_SYMBOLS } from '../src/index.js';
import { edgeRows, fixtureText, nodeRows, parseFixture } from './helpers.js';

let cs: LanguageAdapter;
beforeAll(async () => {
  cs = await createCsAdapter();
});
afterAll(async () => {
  await cs.dispose?.();
});

const node = (index: FileIndex, qualifiedName: string, kind?: string) => {
  const found = index.nodes.find((n) => n.qualifiedName === qualifiedName && (kind === undefined || n.kind === kind));
  if (!found) throw new Error(`no node ${qualifiedName}`);
  return found;
};

describe('adapter basics', () => {
  it('declares its extension and language', () => {
    expect(cs.id).toBe('cs');
    // Razor components and pages are read by the same adapter (decision 041).
    expect(cs.extensions).toEqual(['.cs', '.razor', '.cshtml']);
    expect(cs.languageOf('src/A.cs')).toBe('cs');
    expect(cs.languageOf('src/A.ts')).toBeNull();
  });
});

describe('node lists', () => {
  it('Customer.cs (file-scoped namespace, partial class)', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.cs');
    expect(idx.parseStatus).toBe('ok');
    expect(idx.lineCount).toBe(42);
    expect(nodeRows(idx)).toEqual([
      'file src/Acme.Core/Domain/Customer.cs 1-42',
      'namespace Acme.Core.Domain 4-42',
      'class Acme.Core.Domain.Customer 9-42',
      'constant Acme.Core.Domain.Customer.MaxTags 13-13',
      'constructor Acme.Core.Domain.Customer.Customer 18-22',
      'property Acme.Core.Domain.Customer.Name 24-24',
      'property Acme.Core.Domain.Customer.Email 26-26',
      'property Acme.Core.Domain.Customer.IsActive 28-28',
      'property Acme.Core.Domain.Customer.Tags 30-30',
      'method Acme.Core.Domain.Customer.AddTag 32-39',
      'method Acme.Core.Domain.Customer.ChangeEmail 41-41',
    ]);
    expect(idx.nodes[0]!.name).toBe('Customer.cs');
    expect(idx.nodes[0]!.symbolKey).toBe('cs:file:src/Acme.Core/Domain/Customer.cs#');
    expect(idx.exports).toEqual(['Acme.Core.Domain.Customer']);
  });

  it('Repository.cs (block namespace, generics, overloads, indexer accessors)', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Data/Repository.cs');
    expect(nodeRows(idx)).toEqual([
      'file src/Acme.Core/Data/Repository.cs 1-51',
      'namespace Acme.Core.Data 5-51',
      'interface Acme.Core.Data.IEntity 7-11',
      'property Acme.Core.Data.IEntity.Id 9-9',
      'property Acme.Core.Data.IEntity.Key 10-10',
      'class Acme.Core.Data.Repository 15-50',
      'property Acme.Core.Data.Repository.Count 19-19',
      'indexer Acme.Core.Data.Repository.this[] 21-25',
      'getter Acme.Core.Data.Repository.this[].get 23-23',
      'setter Acme.Core.Data.Repository.this[].set 24-24',
      'method Acme.Core.Data.Repository.Add 27-27',
      'method Acme.Core.Data.Repository.Find 31-34',
      'method Acme.Core.Data.Repository.Find 36-39',
      'method Acme.Core.Data.Repository.Find 41-44',
      'method Acme.Core.Data.Repository.Where 46-49',
    ]);
    expect(idx.nodes.map((n) => n.symbolKey)).toEqual([
      'cs:file:src/Acme.Core/Data/Repository.cs#',
      'cs:global#Acme.Core.Data',
      'cs:global#Acme.Core.Data.IEntity',
      'cs:global#Acme.Core.Data.IEntity.Id',
      'cs:global#Acme.Core.Data.IEntity.Key',
      'cs:global#Acme.Core.Data.Repository`1',
      'cs:global#Acme.Core.Data.Repository`1.Count',
      'cs:global#Acme.Core.Data.Repository`1.this[](int)',
      'cs:global#Acme.Core.Data.Repository`1.this[]@get(int)',
      'cs:global#Acme.Core.Data.Repository`1.this[]@set(int)',
      'cs:global#Acme.Core.Data.Repository`1.Add(T)',
      'cs:global#Acme.Core.Data.Repository`1.Find(int)',
      'cs:global#Acme.Core.Data.Repository`1.Find(string)',
      'cs:global#Acme.Core.Data.Repository`1.Find`1(TKey)',
      'cs:global#Acme.Core.Data.Repository`1.Where(Func<T,bool>)',
    ]);
    expect(idx.nodes.every((n) => n.disambiguator === 0)).toBe(true);
    const generic = idx.nodes[13]!;
    expect(generic.signature).toBe('public T? Find<TKey>(TKey key) where TKey : notnull');
    expect(generic.returnType).toBe('T?');
    expect(generic.parameterCount).toBe(1);
    expect(idx.nodes[11]!.doc).toBe('Finds an entity by id.\nReturns: The entity, or null.');
    expect(node(idx, 'Acme.Core.Data.Repository').doc).toBe('An in-memory repository.\nT: The entity type.');
    expect(node(idx, 'Acme.Core.Data.IEntity.Id').isPublicApi).toBe(true);
  });

  it('SubscriptionService.cs (#if split member list, static ctor, events, obsolete)', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Billing/SubscriptionService.cs');
    expect(idx.parseStatus).toBe('ok');
    expect(nodeRows(idx)).toEqual([
      'file src/Acme.Core/Billing/SubscriptionService.cs 1-87',
      'namespace Acme.Core.Billing 9-87',
      'class Acme.Core.Billing.SubscriptionService 12-86',
      'constructor Acme.Core.Billing.SubscriptionService.SubscriptionService 19-22',
      'constructor Acme.Core.Billing.SubscriptionService.SubscriptionService 24-28',
      'event Acme.Core.Billing.SubscriptionService.Cancelled 30-30',
      'property Acme.Core.Billing.SubscriptionService.SubscriberCount 32-32',
      'method Acme.Core.Billing.SubscriptionService.Subscribe 34-34',
      'method Acme.Core.Billing.SubscriptionService.CancelRecurringBilling 39-48',
      'method Acme.Core.Billing.SubscriptionService.ActiveEmails 50-56',
      'method Acme.Core.Billing.SubscriptionService.ChargeAllAsync 58-69',
      'property Acme.Core.Billing.SubscriptionService.Period 72-72',
      'method Acme.Core.Billing.SubscriptionService.Snapshot 74-82',
      'method Acme.Core.Billing.SubscriptionService.Cancel 84-85',
    ]);
    const [cctor, ctor] = [idx.nodes[3]!, idx.nodes[4]!];
    expect(cctor.symbolKey).toBe('cs:global#Acme.Core.Billing.SubscriptionService..cctor()');
    expect(cctor.modifiers).toEqual(['static']);
    expect(cctor.isPublicApi).toBe(false);
    expect(ctor.symbolKey).toBe('cs:global#Acme.Core.Billing.SubscriptionService..ctor(IPaymentGateway,RateLimiter)');
    const period = node(idx, 'Acme.Core.Billing.SubscriptionService.Period');
    expect(period.signature).toBe('public TimeSpan Period { get; init; }');
    const snapshot = node(idx, 'Acme.Core.Billing.SubscriptionService.Snapshot');
    expect(snapshot.returnType).toBe('IReadOnlyList<Customer>');
    const cancel = node(idx, 'Acme.Core.Billing.SubscriptionService.Cancel');
    expect(cancel.modifiers).toEqual(['public', 'deprecated']);
    expect(cancel.attributes).toEqual(['Obsolete("Use CancelRecurringBilling instead.")']);
    expect(cancel.signature).toBe('public void Cancel(Customer customer)');
    const crb = node(idx, 'Acme.Core.Billing.SubscriptionService.CancelRecurringBilling');
    expect(crb.doc).toBe('Stops recurring billing for a customer.\ncustomer: The customer to cancel.\nReturns: true when the customer was subscribed.');
    expect(crb.isPublicApi).toBe(true);
    const charge = node(idx, 'Acme.Core.Billing.SubscriptionService.ChargeAllAsync');
    expect(charge.modifiers).toEqual(['public', 'async']);
    expect(charge.returnType).toBe('Task<int>');
    expect(charge.parameterCount).toBe(2);
  });
});

describe('symbol keys', () => {
  it('partial fragments share one key and carry the partial modifier in both files', async () => {
    const a = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.cs');
    const b = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.Billing.cs');
    const ca = node(a, 'Acme.Core.Domain.Customer', 'class');
    const cb = node(b, 'Acme.Core.Domain.Customer', 'class');
    expect(ca.symbolKey).toBe('cs:global#Acme.Core.Domain.Customer');
    expect(cb.symbolKey).toBe('cs:global#Acme.Core.Domain.Customer');
    expect(ca.modifiers).toEqual(['public', 'partial']);
    expect(cb.modifiers).toEqual(['public', 'partial']);
    const dto = await parseFixture(cs, 'src/Acme.Core/Domain/CustomerDto.cs');
    const dtoGen = await parseFixture(cs, 'src/Acme.Core/Generated/CustomerDto.g.cs');
    expect(node(dto, 'Acme.Core.Domain.CustomerDto').symbolKey).toBe(node(dtoGen, 'Acme.Core.Domain.CustomerDto').symbolKey);
    expect(dto.generated).toBe(false);
    expect(dtoGen.generated).toBe(true);
  });

  it('accessors with bodies are getter/setter nodes; init is a setter noted in the signature', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.Billing.cs');
    expect(nodeRows(idx)).toEqual([
      'file src/Acme.Core/Domain/Customer.Billing.cs 1-28',
      'namespace Acme.Core.Domain 4-28',
      'class Acme.Core.Domain.Customer 6-28',
      'property Acme.Core.Domain.Customer.Balance 11-19',
      'getter Acme.Core.Domain.Customer.Balance.get 13-13',
      'setter Acme.Core.Domain.Customer.Balance.init 14-18',
      'event Acme.Core.Domain.Customer.BalanceChanged 21-21',
      'method Acme.Core.Domain.Customer.Charge 23-27',
    ]);
    const [prop, get, init] = [idx.nodes[3]!, idx.nodes[4]!, idx.nodes[5]!];
    expect(prop.symbolKey).toBe('cs:global#Acme.Core.Domain.Customer.Balance');
    expect(prop.signature).toBe('public Money Balance { get; init; }');
    expect(prop.doc).toBe('The outstanding balance.');
    expect(get.symbolKey).toBe('cs:global#Acme.Core.Domain.Customer.Balance@get');
    expect(get.parentLocalId).toBe(prop.localId);
    expect(get.returnType).toBe('Money');
    expect(init.kind).toBe('setter');
    expect(init.symbolKey).toBe('cs:global#Acme.Core.Domain.Customer.Balance@set');
    expect(init.signature).toBe('public Money Balance { init; }');
    // Auto-accessors (`{ get; private set; }`) have no body and no node.
    const customer = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.cs');
    expect(customer.nodes.filter((n) => n.kind === 'getter' || n.kind === 'setter')).toEqual([]);
  });

  it('records, operators, extension methods', async () => {
    const money = await parseFixture(cs, 'src/Acme.Core/Domain/Money.cs');
    expect(nodeRows(money)).toEqual([
      'file src/Acme.Core/Domain/Money.cs 1-21',
      'namespace Acme.Core.Domain 3-21',
      'record Acme.Core.Domain.Money 6-20',
      'property Acme.Core.Domain.Money.Amount 6-6',
      'property Acme.Core.Domain.Money.Currency 6-6',
      'method Acme.Core.Domain.Money.Zero 8-8',
      'operator Acme.Core.Domain.Money.operator + 10-17',
      'method Acme.Core.Domain.Money.ToString 19-19',
    ]);
    expect(money.nodes[2]!.signature).toBe('public record Money(decimal Amount, string Currency)');
    expect(money.nodes[3]!.signature).toBe('public decimal Amount { get; init; }');
    expect(money.nodes[6]!.symbolKey).toBe('cs:global#Acme.Core.Domain.Money.op_Addition(Money,Money)');
    expect(money.nodes[7]!.modifiers).toEqual(['public', 'override']);

    const ext = await parseFixture(cs, 'src/Acme.Core/Text/StringExtensions.cs');
    const slugify = node(ext, 'Acme.Core.Text.StringExtensions.Slugify');
    expect(slugify.symbolKey).toBe('cs:global#Acme.Core.Text.StringExtensions.Slugify(string)');
    expect(slugify.doc).toBe('Turns a title into a URL slug: Hello World becomes hello-world.');
    expect(node(ext, 'Acme.Core.Text.StringExtensions').modifiers).toEqual(['public', 'static']);
    expect(edgeRows(ext).filter((r) => r.includes(' extends '))).toEqual([
      'Acme.Core.Text.StringExtensions.Slugify extends approximate string ?string @8',
    ]);
  });
});

describe('chunks', () => {
  it('a class chunk collapses member bodies, a method chunk is its full text', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Domain/Customer.Billing.cs');
    expect(node(idx, 'Acme.Core.Domain.Customer').chunkText).toBe(
      [
        'public partial class Customer',
        '{',
        '    private Money _balance = Money.Zero("EUR");',
        '',
        '    /// <summary>The outstanding balance.</summary>',
        '    public Money Balance',
        '    {',
        '        get { /* 1 lines collapsed */ }',
        '        init { /* 4 lines collapsed */ }',
        '    }',
        '',
        '    public event EventHandler<Money>? BalanceChanged;',
        '',
        '    public void Charge(Money amount) { /* 4 lines collapsed */ }',
        '}',
      ].join('\n'),
    );
    expect(node(idx, 'Acme.Core.Domain.Customer.Charge').chunkText).toBe(
      ['public void Charge(Money amount)', '    {', '        _balance = _balance + amount;', '        BalanceChanged?.Invoke(this, _balance);', '    }'].join('\n'),
    );
  });

  it('namespaces are transparent; expression bodies collapse too', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Domain/Money.cs');
    expect(idx.nodes[0]!.chunkText).toBe(
      [
        'using System;',
        '',
        'namespace Acme.Core.Domain',
        '{',
        '    /// <summary>An amount of money in one currency.</summary>',
        '    public record Money(decimal Amount, string Currency) { /* 14 lines collapsed */ }',
        '}',
        '',
      ].join('\n'),
    );
    expect(node(idx, 'Acme.Core.Domain.Money').chunkText).toBe(
      [
        'public record Money(decimal Amount, string Currency)',
        '    {',
        '        public static Money Zero(string currency) { /* 1 lines collapsed */ }',
        '',
        '        public static Money operator +(Money left, Money right) { /* 7 lines collapsed */ }',
        '',
        '        public override string ToString() { /* 1 lines collapsed */ }',
        '    }',
      ].join('\n'),
    );
  });
});

describe('edges', () => {
  it('exact edge set of Notifier.cs', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Notifications/Notifier.cs');
    const N = 'Acme.Core.Notifications';
    expect(edgeRows(idx)).toEqual([
      `src/Acme.Core/Notifications/Notifier.cs contains exact ${N} cs:global#${N} →${N} @4`,
      `${N} contains exact Notifier cs:global#${N}.Notifier →${N}.Notifier @6`,
      `${N}.Notifier contains exact Sent cs:global#${N}.Notifier.Sent →${N}.Notifier.Sent @8`,
      `${N}.Notifier contains exact Send cs:global#${N}.Notifier.Send(Customer,string) →${N}.Notifier.Send @10`,
      `${N}.Notifier contains exact Format cs:global#${N}.Notifier.Format(string) →${N}.Notifier.Format @12`,
      `${N}.Notifier contains exact OnSent cs:global#${N}.Notifier.OnSent(string) →${N}.Notifier.OnSent @17`,
      `${N} contains exact EmailNotifier cs:global#${N}.EmailNotifier →${N}.EmailNotifier @20`,
      `${N}.EmailNotifier contains exact Send cs:global#${N}.EmailNotifier.Send(Customer,string) →${N}.EmailNotifier.Send @22`,
      `${N}.EmailNotifier contains exact Format cs:global#${N}.EmailNotifier.Format(string) →${N}.EmailNotifier.Format @28`,
      `${N} contains exact SmsNotifier cs:global#${N}.SmsNotifier →${N}.SmsNotifier @34`,
      `${N}.SmsNotifier contains exact MaxLength cs:global#${N}.SmsNotifier.MaxLength →${N}.SmsNotifier.MaxLength @36`,
      `${N}.SmsNotifier contains exact Send cs:global#${N}.SmsNotifier.Send(Customer,string) →${N}.SmsNotifier.Send @38`,
      'src/Acme.Core/Notifications/Notifier.cs imports exact System cs:global#System @1',
      'src/Acme.Core/Notifications/Notifier.cs imports exact Acme.Core.Domain cs:global#Acme.Core.Domain @2',
      `${N}.EmailNotifier inherits approximate Notifier cs:global#${N}.Notifier →${N}.Notifier @20`,
      `${N}.SmsNotifier inherits approximate Notifier cs:global#${N}.Notifier →${N}.Notifier @34`,
      `${N}.Notifier.Format calls approximate message.Trim ?message.Trim @14`,
      `${N}.Notifier.OnSent calls approximate Sent.Invoke ?Sent.Invoke @17`,
      `${N}.EmailNotifier.Send calls approximate Format cs:global#${N}.EmailNotifier.Format(string) →${N}.EmailNotifier.Format @24`,
      `${N}.EmailNotifier.Send calls approximate OnSent cs:global#${N}.Notifier.OnSent(string) →${N}.Notifier.OnSent @25`,
      `${N}.EmailNotifier.Format calls approximate Format cs:global#${N}.Notifier.Format(string) →${N}.Notifier.Format @30`,
      `${N}.SmsNotifier.Send calls approximate Format cs:global#${N}.Notifier.Format(string) →${N}.Notifier.Format @40`,
      `${N}.SmsNotifier.Send calls approximate OnSent cs:global#${N}.Notifier.OnSent(string) →${N}.Notifier.OnSent @41`,
      `${N}.SmsNotifier.Send calls approximate text.Substring ?text.Substring @41`,
      `${N}.Notifier.Sent references approximate EventHandler ?EventHandler @8`,
      `${N}.Notifier.Send references approximate Customer ?Customer @10`,
      `${N}.Notifier.OnSent references approximate Sent cs:global#${N}.Notifier.Sent →${N}.Notifier.Sent @17`,
      `${N}.EmailNotifier.Send references approximate Customer ?Customer @22`,
      `${N}.SmsNotifier.Send references approximate Customer ?Customer @38`,
      `${N}.SmsNotifier.Send references approximate MaxLength cs:global#${N}.SmsNotifier.MaxLength →${N}.SmsNotifier.MaxLength @41`,
    ]);
    expect(idx.edges.every((e) => e.confidence === (e.type === 'contains' || e.type === 'imports' ? 'exact' : 'approximate'))).toBe(true);
  });

  it('implements for I-prefixed bases; calls across the project reference stay unresolved by name', async () => {
    const gw = await parseFixture(cs, 'src/Acme.Core/Payments/PaymentGateways.cs');
    expect(edgeRows(gw).filter((r) => / (inherits|implements) /.test(r))).toEqual([
      'Acme.Core.Payments.StripeGateway implements approximate IPaymentGateway ?IPaymentGateway @8',
      'Acme.Core.Payments.PayPalGateway implements approximate IPaymentGateway ?IPaymentGateway @25',
    ]);
    const program = await parseFixture(cs, 'src/Acme.App/Program.cs');
    expect(edgeRows(program).filter((r) => r.includes(' calls '))).toEqual([
      'Acme.App.Program.Main calls approximate Customer ?Customer @17',
      'Acme.App.Program.Main calls approximate customer.AddTag ?customer.AddTag @18',
      'Acme.App.Program.Main calls approximate Slugify ?Slugify @18',
      'Acme.App.Program.Main calls approximate PayPalGateway ?PayPalGateway @20',
      'Acme.App.Program.Main calls approximate StripeGateway ?StripeGateway @20',
      'Acme.App.Program.Main calls approximate SubscriptionService ?SubscriptionService @21',
      'Acme.App.Program.Main calls approximate RateLimiter ?RateLimiter @21',
      'Acme.App.Program.Main calls approximate billing.Subscribe ?billing.Subscribe @22',
      'Acme.App.Program.Main calls approximate billing.ChargeAllAsync ?billing.ChargeAllAsync @24',
      'Acme.App.Program.Main calls approximate Money ?Money @24',
      'Acme.App.Program.Main calls approximate EmailNotifier ?EmailNotifier @25',
      'Acme.App.Program.Main calls approximate notifier.Send ?notifier.Send @26',
      'Acme.App.Program.Main calls approximate billing.CancelRecurringBilling ?billing.CancelRecurringBilling @28',
      'Acme.App.Program.Main calls approximate Console.WriteLine ?Console.WriteLine @29',
      'Acme.App.Program.Main calls approximate CustomerDto.FromCustomer ?CustomerDto.FromCustomer @29',
    ]);
  });

  it('generic overload call resolves to the same-file overload by argument count', async () => {
    const idx = await parseFixture(cs, 'src/Acme.Core/Data/Repository.cs');
    expect(edgeRows(idx).filter((r) => / (calls|references) /.test(r))).toEqual([
      'Acme.Core.Data.Repository.Find calls approximate _items.TryGetValue ?_items.TryGetValue @33',
      'Acme.Core.Data.Repository.Find calls approximate _items.Values.FirstOrDefault ?_items.Values.FirstOrDefault @38',
      'Acme.Core.Data.Repository.Find calls approximate Find cs:global#Acme.Core.Data.Repository`1.Find(int) →Acme.Core.Data.Repository.Find @43',
      'Acme.Core.Data.Repository.Find calls approximate key.ToString ?key.ToString @43',
      'Acme.Core.Data.Repository.Where calls approximate predicate ?predicate @48',
      'Acme.Core.Data.Repository references approximate Dictionary ?Dictionary @17',
      'Acme.Core.Data.Repository.Where references approximate Func ?Func @46',
      'Acme.Core.Data.Repository.Where references approximate IEnumerable ?IEnumerable @46',
    ]);
  });
});

describe('preprocessing on the fixture', () => {
  it('the #if file has parse errors without preprocessing and none with it', async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const lang = await Language.load(join(dirname(require.resolve('tree-sitter-c-sharp/package.json')), 'tree-sitter-c_sharp.wasm'));
    const parser = new Parser();
    parser.setLanguage(lang);
    const countErrors = (text: string): number => {
      const tree = parser.parse(text)!;
      try {
        let n = 0;
        const c = tree.walk();
        for (;;) {
          if (c.nodeType === 'ERROR' || c.nodeIsMissing) n++;
          if (c.gotoFirstChild()) continue;
          let up = false;
          while (!c.gotoNextSibling()) {
            if (!c.gotoParent()) {
              up = true;
              break;
            }
          }
          if (up) break;
        }
        c.delete();
        return n;
      } finally {
        tree.delete();
      }
    };
    const raw = fixtureText('src/Acme.Core/Billing/SubscriptionService.cs');
    const pre = applyPreprocessor(raw, new Set(DEFAULT_PREPROCESSOR_SYMBOLS));
    expect(countErrors(raw)).toBe(3);
    expect(countErrors(pre.text)).toBe(0);
    expect(pre.inactiveLines).toBe(3);
    parser.delete();
  });

  it('symbols from options pick the other branch', async () => {
    const legacy = await createCsAdapter({ preprocessorSymbols: () => ['NETSTANDARD2_0'] });
    const idx = await parseFixture(legacy, 'src/Acme.Core/Billing/SubscriptionService.cs');
    expect(node(idx, 'Acme.Core.Billing.SubscriptionService.Period').signature).toBe('public TimeSpan Period { get; set; }');
    expect(node(idx, 'Acme.Core.Billing.SubscriptionService.Snapshot')).toMatchObject({ returnType: 'IList<Customer>', span: { startLine: 78, endLine: 82 } });
    await legacy.dispose?.();
  });
});

describe('generated detection and bad input', () => {
  it('marks generated files by name, folder and header', async () => {
    const parse = (path: string, text = 'class A {}') => cs.parse({ path, text }) as FileIndex;
    expect(parse('a/Foo.g.cs').generated).toBe(true);
    expect(parse('a/Foo.g.i.cs').generated).toBe(true);
    expect(parse('a/Form1.Designer.cs').generated).toBe(true);
    expect(parse('a/Lib.AssemblyInfo.cs').generated).toBe(true);
    expect(parse('Properties/AssemblyInfo.cs').generated).toBe(true);
    expect(parse('src/obj/Release/X.cs').generated).toBe(true);
    expect(parse('src/X.cs', '// <auto-generated />\nclass A {}').generated).toBe(true);
    expect(parse('src/X.cs').generated).toBe(false);
    expect(parse('src/objects/X.cs').generated).toBe(false);
  });

  it('empty file: ok, only the file node', () => {
    const idx = cs.parse({ path: 'Empty.cs', text: '' }) as FileIndex;
    expect(idx.parseStatus).toBe('ok');
    expect(idx.lineCount).toBe(0);
    expect(nodeRows(idx)).toEqual(['file Empty.cs 1-1']);
    expect(idx.edges).toEqual([]);
  });

  it('10,000 nested parentheses do not overflow the stack', () => {
    const depth = 10_000;
    const text = `class Deep { int M() { return ${'('.repeat(depth)}1${')'.repeat(depth)}; } }\n`;
    const idx = cs.parse({ path: 'Deep.cs', text }, { deadlineMs: 60_000 }) as FileIndex;
    expect(['ok', 'partial']).toContain(idx.parseStatus);
    expect(nodeRows(idx)).toEqual(['file Deep.cs 1-1', 'class Deep 1-1', 'method Deep.M 1-1']);
  });

  it('a 2 MB generated file with a 1 ms deadline times out cleanly, and the parser stays usable', () => {
    const member = (i: number) => `        public int Value${i}(int x) { return x + ${i}; }\n`;
    let body = '';
    for (let i = 0; body.length < 2_000_000; i++) body += member(i);
    const text = `// <auto-generated/>\nnamespace Gen\n{\n    public class Big\n    {\n${body}    }\n}\n`;
    const idx = cs.parse({ path: 'Gen/Big.g.cs', text }, { deadlineMs: 1 }) as FileIndex;
    expect(idx.parseStatus).toBe('error');
    expect(idx.generated).toBe(true);
    expect(idx.diagnostics.map((d) => d.code)).toEqual(['parse_timeout']);
    expect(nodeRows(idx)).toEqual([`file Gen/Big.g.cs 1-${idx.lineCount}`]);
    const after = cs.parse({ path: 'A.cs', text: 'class A { void M() {} }' }) as FileIndex;
    expect(after.parseStatus).toBe('ok');
    expect(nodeRows(after)).toEqual(['file A.cs 1-1', 'class A 1-1', 'method A.M 1-1']);
  });

  it('syntax errors give partial status with diagnostics, and byte offsets are UTF-8', () => {
    const idx = cs.parse({ path: 'Bad.cs', text: 'class Ünï { void M( { }\n' }) as FileIndex;
    expect(idx.parseStatus).toBe('partial');
    expect(idx.diagnostics.length).toBeGreaterThan(0);
    expect(idx.diagnostics.every((d) => d.code === 'syntax_error' && d.line === 1)).toBe(true);
    const ok = cs.parse({ path: 'U.cs', text: '// ü\nclass B { }\n' }) as FileIndex;
    expect(ok.nodes[1]!.span).toEqual({ startLine: 2, endLine: 2, startByte: 6, endByte: 17 });
  });
});
