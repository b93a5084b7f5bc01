import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceOf } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { againstClean as cleanDiff } from './cleanIndex.js';
import { dotnetMissing, REPO_ROOT } from './helpers.js';

// A C# type that disappears or appears changes what unchanged files' uses bind to: the compiler
// of a clean index binds (or no longer binds) them, so the incremental index must analyse those
// files again (decision 022, differences 7 and 8). Each step is compared with a clean index of
// the same tree by the differential comparator: no difference at all is expected.

const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = dotnetMissing() === null;
const options = {
  env: {},
  configOverrides: { indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 }, embedding: { enabled: false } },
};

// A generic interface of its own file, and an unchanged file that names it only as implemented
// generic interface, generic argument and through `typeof(IHandler<>)` (the MediatR shape).
const HANDLER = 'src/Acme.Core/Handlers/IHandler.cs';
const HANDLER_TEXT = 'namespace Acme.Core.Handlers;\n\npublic interface IHandler<T>\n{\n    void Handle(T item);\n}\n';
const USERS = 'src/Acme.Core/Handlers/Registry.cs';
const USERS_TEXT = [
  'using System;',
  'using System.Collections.Generic;',
  'using Acme.Core.Domain;',
  '',
  'namespace Acme.Core.Handlers;',
  '',
  'public sealed class MoneyHandler : IHandler<Money>',
  '{',
  '    public void Handle(Money item) { }',
  '}',
  '',
  'public static class Registry',
  '{',
  '    public static readonly Type Open = typeof(IHandler<>);',
  '    public static readonly List<IHandler<Money>> All = new();',
  '}',
  '',
].join('\n');
const GATEWAY = 'src/Acme.Core/Payments/IPaymentGateway.cs';

const againstClean = (engine: Engine, repo: string) => cleanDiff(engine, repo, options);

describe.skipIf(!hasDotnet)('a C# type that disappears or appears', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(CS);
    mkdirSync(join(repo, dirname(HANDLER)), { recursive: true });
    writeFileSync(join(repo, HANDLER), HANDLER_TEXT);
    writeFileSync(join(repo, USERS), USERS_TEXT);
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('a deleted generic interface: its unchanged users (implements, generic argument, typeof) are analysed again', async () => {
    unlinkSync(join(repo, HANDLER));
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
  }, 300_000);

  it('the generic interface re-created: its unchanged users bind to it again', async () => {
    writeFileSync(join(repo, HANDLER), HANDLER_TEXT);
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
  }, 300_000);

  it('a deleted interface its unchanged users name as field, parameter and base type, then re-created', async () => {
    unlinkSync(join(repo, GATEWAY));
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
    writeFileSync(join(repo, GATEWAY), 'namespace Acme.Core.Payments;\n\npublic interface IPaymentGateway\n{\n    string Name { get; }\n}\n');
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
  }, 300_000);
});

// An interface member that appears (MediatR seed 1 step 128: `IPipelineBehavior.Handle` gained a
// parameter the implementers already had, difference 17) makes unchanged implementers' members
// implement it: the compiler of a clean index binds them. PayPalGateway is split so that the
// implementing member is in a fragment (PayPalGateway.Refunds.cs) of a class whose other fragment
// holds the base list, as MediatR's `RequestPostProcessorBehavior.Part101.cs`.
const REFUND = '    Task RefundAsync(string transactionId, CancellationToken cancellationToken = default);\n';
const PAYPAL_REFUNDS = 'src/Acme.Core/Payments/PayPalGateway.Refunds.cs';

describe.skipIf(!hasDotnet)('an interface member that appears', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(CS);
    const gateway = join(repo, GATEWAY);
    writeFileSync(gateway, readFileSync(gateway, 'utf8').replace(`\n${REFUND}`, ''));
    const gateways = join(repo, 'src/Acme.Core/Payments/PaymentGateways.cs');
    const text = readFileSync(gateways, 'utf8');
    const refund = text.slice(text.lastIndexOf('    public async Task RefundAsync'), text.lastIndexOf('}'));
    writeFileSync(gateways, text.replace(refund, '').replace('public sealed class PayPalGateway', 'public sealed partial class PayPalGateway'));
    writeFileSync(
      join(repo, PAYPAL_REFUNDS),
      `using System.Threading;\nusing System.Threading.Tasks;\n\nnamespace Acme.Core.Payments;\n\npublic sealed partial class PayPalGateway\n{\n${refund}}\n`,
    );
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  /** The exact `implements` edges into IPaymentGateway.RefundAsync (source member, file:line). */
  const implementers = () =>
    engine
      .navigate('impls', 'Acme.Core.Payments.IPaymentGateway.RefundAsync')
      .edges.filter((e) => e.confidence === 'exact')
      .map((e) => `${engine.reader().nodeById(Number(e.from))!.qualifiedName} -${e.type}-> @${e.path}:${e.line}`)
      .sort();

  it('unchanged implementers (one a fragment of a partial class) implement it, as in a clean index', async () => {
    const gateway = join(repo, GATEWAY);
    const text = readFileSync(gateway, 'utf8');
    writeFileSync(gateway, `${text.slice(0, text.lastIndexOf('}'))}\n${REFUND}}\n`);
    await engine.index();
    // StripeGateway.RefundAsync is line 19 of PaymentGateways.cs (unchanged by the setup, which
    // only cut PayPalGateway's member below it); PayPalGateway.RefundAsync is line 8 of the fragment.
    expect(implementers()).toEqual([
      'Acme.Core.Payments.PayPalGateway.RefundAsync -implements-> @src/Acme.Core/Payments/PayPalGateway.Refunds.cs:8',
      'Acme.Core.Payments.StripeGateway.RefundAsync -implements-> @src/Acme.Core/Payments/PaymentGateways.cs:19',
    ]);
    expect(await againstClean(engine, repo)).toEqual([]);
  }, 300_000);
});

describe.skipIf(!hasDotnet)('the cost: only appearing or disappearing declarations revisit other files', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(CS);
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  /** How many C# documents the run's semantic pass analysed. */
  const analysed = async () => (await engine.index()).semantic?.cs?.documents;

  it('a body-only edit analyses the edited file alone', async () => {
    const money = join(repo, 'src/Acme.Core/Domain/Money.cs');
    writeFileSync(money, readFileSync(money, 'utf8').replace('"currency mismatch"', '"currencies differ"'));
    // Money.cs keeps every declaration key: nothing appeared or disappeared.
    expect(await analysed()).toBe(1);
  }, 300_000);

  it('a new type no file names analyses its own file alone', async () => {
    writeFileSync(join(repo, 'src/Acme.Core/Domain/AuditTrail.cs'), 'namespace Acme.Core.Domain;\n\npublic sealed class AuditTrail\n{\n}\n');
    // No file of the fixture writes `AuditTrail` (grep), and a class has no unresolved uses by name.
    expect(await analysed()).toBe(1);
  }, 300_000);

  it('a type that disappears analyses the files naming it', async () => {
    unlinkSync(join(repo, 'src/Acme.Core/Payments/IPaymentGateway.cs'));
    // IPaymentGateway is named by PaymentGateways.cs (base lists, lines 8 and 25),
    // SubscriptionService.cs (field and constructor parameter) and Program.cs (a local, line 20).
    expect(await analysed()).toBe(3);
  }, 300_000);
});
