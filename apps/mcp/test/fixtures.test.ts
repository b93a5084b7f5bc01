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
    const r = await mcp.call('get_callers', { symbol: 'formatMoney' });
    expect(r.isError).toBe(false);
    expect(r.json.complete).toBe(true);
    expect(rows(r.json)).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 8],
      ['StripeGateway.charge', 'calls', 'exact', 'packages/core/src/payments/stripeGateway.ts', 11],
      ['PriceTag', 'calls', 'exact', 'packages/web/src/PriceTag.tsx', 14],
    ]);
  });

  it('through_interfaces reaches a call made through the interface', async () => {
    expect(rows((await mcp.call('get_callers', { symbol: 'StripeGateway.charge' })).json)).toEqual([]);
    expect(rows((await mcp.call('get_callers', { symbol: 'StripeGateway.charge', through_interfaces: true })).json)).toEqual([
      ['checkout', 'calls', 'exact', 'packages/core/src/checkout.ts', 7],
    ]);
  });

  it('map_symbols and get_file_outline of a package file: exports, a non-exported helper, imports through the alias', async () => {
    // packages/core/src/money.ts: interface Money (1), let defaultCurrency (6), helper roundCents (8, not exported), formatMoney (13), parseMoney (17).
    const map = await mcp.call('map_symbols', { path: 'packages/core/src/money.ts', detail: 'names' });
    expect(map.json.files[0].symbols.map((s: any) => [s.name, s.line, s.exported])).toEqual([
      ['Money', 1, true],
      ['defaultCurrency', 6, true],
      ['roundCents', 8, false],
      ['formatMoney', 13, true],
      ['parseMoney', 17, true],
    ]);
    expect(map.json.files[0].exports).toEqual(['Money', 'defaultCurrency', 'formatMoney', 'parseMoney']);
    const dirs = await mcp.call('discover_directories', { query: 'formatMoney' });
    expect(dirs.json.directories[0].path).toBe('packages/core/src');
  });

  it('implementations of an interface member', async () => {
    const r = await mcp.call('get_implementations', { symbol: 'PaymentGateway.charge' });
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
    const r = await mcp.call('get_callers', { symbol: 'Acme.Core.Text.StringExtensions.Slugify' });
    expect([r.json.complete, r.json.gaps]).toEqual([true, []]);
    expect(rows(r.json)).toEqual([['Acme.App.Program.Main', 'calls', 'exact', 'src/Acme.App/Program.cs', 18]]);
  }, 180_000);

  it('a partial class: get_source_spans gives both parts, get_symbol counts them, map_symbols lists each part in its file', async () => {
    // Customer is declared in Customer.Billing.cs (lines 6-28, its primary span) and Customer.cs (lines 9-42).
    const spans = await mcp.call('get_source_spans', { symbol: 'Acme.Core.Domain.Customer', span: 'all', start_line: 1, end_line: 10 });
    expect(spans.json.spans.map((s: any) => [s.path, s.startLine, s.endLine, s.primary, s.code.split('\n')[0]])).toEqual([
      ['src/Acme.Core/Domain/Customer.Billing.cs', 6, 10, true, 'public partial class Customer'],
      ['src/Acme.Core/Domain/Customer.cs', 9, 10, false, 'public partial class Customer'],
    ]);
    expect(spans.json.totalSpans).toBe(2);
    const second = await mcp.call('get_source_spans', { symbol: 'Acme.Core.Domain.Customer', span: 1 });
    expect([second.json.spans[0].path, second.json.spans[0].startLine, second.json.spans[0].endLine]).toEqual(['src/Acme.Core/Domain/Customer.cs', 9, 42]);
    const symbol = await mcp.call('get_symbol', { symbol: 'Acme.Core.Domain.Customer' });
    expect([symbol.json.spans, symbol.json.container, symbol.json.project, symbol.json.exactEdges]).toEqual([2, 'Acme.Core.Domain', 'src/Acme.Core/Acme.Core.csproj', true]);
    const map = await mcp.call('map_symbols', { path: 'src/Acme.Core/Domain/Customer.Billing.cs', detail: 'names' });
    expect(map.json.files[0].symbols.map((s: any) => [s.name, s.kind, s.line, s.members])).toEqual([['Customer', 'class', 6, ['Balance', 'BalanceChanged', 'Charge']]]);
    expect(map.json.files[0].imports.map((i: any) => [i.name, i.line])).toEqual([
      ['System', 1],
      ['Acme.Core.Billing', 2],
    ]);
  });

  it('implementations of a C# interface, and a qualified-name search', async () => {
    const impls = await mcp.call('get_implementations', { symbol: 'Acme.Core.Payments.IPaymentGateway' });
    expect(rows(impls.json).map((x: unknown[]) => x.slice(0, 3))).toEqual([
      ['Acme.Core.Payments.StripeGateway', 'implements', 'exact'],
      ['Acme.Core.Payments.PayPalGateway', 'implements', 'exact'],
    ]);
    const found = await mcp.call('search_code', { query: 'Acme.Core.Billing.RateLimiter', limit: 1, language: 'cs' });
    expect(found.json.results.map((x: any) => [x.qualifiedName, x.kind, x.path, x.startLine])).toEqual([
      ['Acme.Core.Billing.RateLimiter', 'class', 'src/Acme.Core/Billing/RateLimiter.cs', 10],
    ]);
  });
});
