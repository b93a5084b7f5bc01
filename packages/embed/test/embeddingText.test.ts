import { beforeAll, describe, expect, it } from 'vitest';
import {
  bodyWindows,
  buildEmbeddingText,
  buildEmbeddingTexts,
  buildFileEmbeddingText,
  collapseLines,
  docSummary,
  loadTokenCounter,
} from '../src/index.js';
import type { EmbeddingTextInput, TokenCounter } from '../src/index.js';
import { MODEL_MISSING, RESOLVED } from './helpers.js';

const HEADER = 'ts · src/billing/billingAccount.ts · BillingAccount > terminatePlan · method';

const terminatePlan: EmbeddingTextInput = {
  language: 'ts',
  path: 'src/billing/billingAccount.ts',
  containerChain: ['BillingAccount', 'terminatePlan'],
  kind: 'method',
  signature: 'terminatePlan(reason: string): Promise<void>',
  doc: '/**\n * Ends the current plan and schedules the final invoice.\n * Refunds unused days.\n * @param reason why\n */',
  chunkText: [
    '  async terminatePlan(reason: string): Promise<void> {',
    '    const plan = this.currentPlan();',
    '',
    "    if (!plan) throw new Error('no plan');",
    '    await this.invoices.scheduleFinal(plan, reason);',
    "    this.events.emit('plan-terminated', plan.id);",
    '  }',
  ].join('\n'),
};

const COLLAPSED_BODY = [
  'async terminatePlan(reason: string): Promise<void> {',
  'const plan = this.currentPlan();',
  "if (!plan) throw new Error('no plan');",
  'await this.invoices.scheduleFinal(plan, reason);',
  "this.events.emit('plan-terminated', plan.id);",
  '}',
].join('\n');

// Token counts below were derived from tokenizer.json (see tokenCounter.test.ts for the method):
// the header line alone is 22 tokens + [CLS] [SEP] = 24 ("billingAccount" → billing ##ac ##co ##unt).
describe.skipIf(MODEL_MISSING !== null)('embedding texts', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await loadTokenCounter(RESOLVED);
  });

  it('collapses whitespace per line and drops blank lines', () => {
    expect(collapseLines(terminatePlan.chunkText)).toBe(COLLAPSED_BODY);
  });

  it('summarises TS and C# doc comments', () => {
    expect(docSummary(terminatePlan.doc)).toBe('Ends the current plan and schedules the final invoice. Refunds unused days.');
    expect(docSummary('/// <summary>\n/// Closes the <see cref="Account"/> for good.\n/// </summary>\n/// <param name="id">the id</param>')).toBe(
      'Closes the Account for good. the id',
    );
    expect(docSummary(null)).toBe('');
  });

  it('builds header, doc, then the collapsed chunk; the signature is dropped when the chunk starts with it', () => {
    expect(buildEmbeddingText(terminatePlan, 256, counter)).toBe(
      `${HEADER}\nEnds the current plan and schedules the final invoice. Refunds unused days.\n${COLLAPSED_BODY}`,
    );
  });

  it('keeps the signature when the chunk does not show it, and appends referenced types', () => {
    const input: EmbeddingTextInput = {
      language: 'cs',
      path: 'src/Billing/BillingAccount.cs',
      containerChain: ['MyApp.Billing', 'BillingAccount', 'Balance'],
      kind: 'property',
      signature: 'public decimal Balance { get; }',
      doc: null,
      chunkText: '[JsonIgnore]\npublic decimal Balance => _ledger.Sum();',
      referencedTypeSignatures: ['class Ledger', 'decimal Sum()'],
    };
    expect(buildEmbeddingText(input, 256, counter)).toBe(
      [
        'cs · src/Billing/BillingAccount.cs · MyApp.Billing > BillingAccount > Balance · property',
        'public decimal Balance { get; }',
        '[JsonIgnore]',
        'public decimal Balance => _ledger.Sum();',
        'uses: class Ledger; decimal Sum()',
      ].join('\n'),
    );
  });

  it('truncates token-aware to the budget', () => {
    expect(buildEmbeddingText(terminatePlan, 32, counter)).toBe(`${HEADER}\nEnds the current plan and schedules`);
    expect(buildEmbeddingText(terminatePlan, 24, counter)).toBe(
      'ts · src/billing/billingAccount.ts · BillingAccount > terminatePlan',
    );
    for (const budget of [16, 24, 32, 48, 64, 96]) {
      expect(counter.countTokens(buildEmbeddingText(terminatePlan, budget, counter))).toBeLessThanOrEqual(budget);
    }
  });

  it('splits a body into windows within the budget, preferring line ends', () => {
    expect(bodyWindows(terminatePlan.chunkText, 16, counter, 3)).toEqual([
      'async terminatePlan(reason: string): Promise<',
      'void> {\nconst plan = this.currentPlan()',
      ";\nif (!plan) throw new Error('no plan'",
    ]);
    // A generous window takes the whole body at once.
    expect(bodyWindows(terminatePlan.chunkText, 256, counter, 3)).toEqual([COLLAPSED_BODY]);
    expect(bodyWindows(terminatePlan.chunkText, 2, counter, 3)).toEqual([]);
  });

  it('adds header-prefixed windows for the part of the body the main text could not hold', () => {
    const texts = buildEmbeddingTexts(terminatePlan, { tokenBudget: 48, windowTokens: 40, maxWindows: 2 }, counter);
    expect(texts).toEqual([
      `${HEADER}\nEnds the current plan and schedules the final invoice. Refunds unused days.\nasync`,
      `${HEADER}\nterminatePlan(reason: string): Promise<void> {`,
      `${HEADER}\nconst plan = this.currentPlan();`,
    ]);
    for (const t of texts.slice(1)) expect(counter.countTokens(t)).toBeLessThanOrEqual(40);
    // When the main text holds everything, there are no windows.
    expect(buildEmbeddingTexts(terminatePlan, { tokenBudget: 256 }, counter)).toEqual([buildEmbeddingText(terminatePlan, 256, counter)]);
    expect(buildEmbeddingTexts(terminatePlan, { tokenBudget: 48, maxWindows: 0 }, counter)).toHaveLength(1);
  });

  it('builds file texts from exports, imports and the header doc', () => {
    const text = buildFileEmbeddingText(
      {
        path: 'src/billing/index.ts',
        language: 'ts',
        exports: ['BillingAccount', 'terminatePlan'],
        imports: ['./billingAccount', 'date-fns'],
        headerDoc: '/** Billing: accounts, plans and invoices. */',
      },
      256,
      counter,
    );
    expect(text).toBe(
      [
        'ts · src/billing/index.ts · file',
        'Billing: accounts, plans and invoices.',
        'exports: BillingAccount, terminatePlan',
        'imports: ./billingAccount, date-fns',
      ].join('\n'),
    );
    const many = buildFileEmbeddingText(
      { path: 'index.ts', language: 'ts', exports: Array.from({ length: 30 }, (_, i) => `e${i}`), imports: [], headerDoc: null },
      1000,
      counter,
    );
    expect(many).toBe(`ts · index.ts · file\nexports: ${Array.from({ length: 24 }, (_, i) => `e${i}`).join(', ')}, … (6 more)`);
    expect(counter.countTokens(buildFileEmbeddingText({ path: 'a.ts', language: 'ts', exports: ['x'], imports: [], headerDoc: null }, 5, counter))).toBeLessThanOrEqual(5);
  });
});
