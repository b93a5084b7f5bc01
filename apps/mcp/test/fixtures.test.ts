import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, dotnetMissing, edgeRows as rows, type Connected } from './helpers.js';

describe('MCP server over fixtures/ts-monorepo (two packages, path alias)', () => {
  let repo: string;
  let mcp: Connected;
  beforeAll(async () => {
    repo = copyFixture('ts-monorepo');
    mcp = await connect({ repo });
  });
  afterAll(async () => {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('callers resolve across packages and through the alias `fmt`, exact and complete', async () => {
    const r = await mcp.call('callers', { symbol: 'formatMoney' });
    expect(r.isError).toBe(false);
    expect(r.json.complete).toBe(true);
    expect(rows(r.json)).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 8],
      ['StripeGateway.charge', 'calls', 'exact', 'packages/core/src/payments/stripeGateway.ts', 11],
      ['PriceTag', 'calls', 'exact', 'packages/web/src/PriceTag.tsx', 14],
    ]);
  });

  it('through_interfaces reaches a call made through the interface', async () => {
    expect(rows((await mcp.call('callers', { symbol: 'StripeGateway.charge' })).json)).toEqual([]);
    expect(rows((await mcp.call('callers', { symbol: 'StripeGateway.charge', through_interfaces: true })).json)).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 7],
    ]);
  });

  it('implementations of an interface member', async () => {
    const r = await mcp.call('implementations', { symbol: 'PaymentGateway.charge' });
    expect(rows(r.json).map((x: unknown[]) => x.slice(0, 3))).toEqual([
      ['PaypalGateway.charge', 'implements', 'exact'],
      ['StripeGateway.charge', 'implements', 'exact'],
    ]);
  });
});

const hasDotnet = dotnetMissing() === null;

describe.skipIf(!hasDotnet)('MCP server over fixtures/cs-solution (roslyn-host)', () => {
  let repo: string;
  let mcp: Connected;
  beforeAll(async () => {
    repo = copyFixture('cs-solution');
    mcp = await connect({ repo });
  }, 180_000);
  afterAll(async () => {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('callers of an extension method across the project reference, exact', async () => {
    const r = await mcp.call('callers', { symbol: 'Acme.Core.Text.StringExtensions.Slugify' });
    expect([r.json.complete, r.json.gaps]).toEqual([true, []]);
    expect(rows(r.json)).toEqual([['Acme.App.Program.Main', 'calls', 'exact', 'src/Acme.App/Program.cs', 18]]);
  }, 180_000);

  it('implementations of a C# interface, and a qualified-name search', async () => {
    const impls = await mcp.call('implementations', { symbol: 'Acme.Core.Payments.IPaymentGateway' });
    expect(rows(impls.json).map((x: unknown[]) => x.slice(0, 3))).toEqual([
      ['Acme.Core.Payments.StripeGateway', 'implements', 'exact'],
      ['Acme.Core.Payments.PayPalGateway', 'implements', 'exact'],
    ]);
    const found = await mcp.call('search', { query: 'Acme.Core.Billing.RateLimiter', limit: 1, language: 'cs' });
    expect(found.json.results.map((x: any) => [x.qualifiedName, x.kind, x.path, x.startLine])).toEqual([
      ['Acme.Core.Billing.RateLimiter', 'class', 'src/Acme.Core/Billing/RateLimiter.cs', 10],
    ]);
  });
});
