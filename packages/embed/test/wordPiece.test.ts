import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenCounter, wordPieceCounter } from '../src/index.js';
import { MODEL_ID, MODEL_MISSING, MODELS_DIR, REPO_ROOT } from './helpers.js';

/** A BERT-style tokenizer.json with a tiny vocabulary. */
function bertJson(vocab: string[], overrides: Record<string, unknown> = {}): unknown {
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  return {
    added_tokens: special.map((content, id) => ({ id, content, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
    },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries([...special, ...vocab].map((t, i) => [t, i])),
    },
    ...overrides,
  };
}

const VOCAB = ['get', '##user', '##s', 'user', 'id', 'by', '##id', '(', ')', ':', '_', 'a'];

describe('wordPieceCounter', () => {
  const count = wordPieceCounter(bertJson(VOCAB))!;

  it('counts greedy longest-match WordPiece tokens plus [CLS] and [SEP] (values by hand)', () => {
    // "getusers" → get ##user ##s; "(" "id" ")" → 3; + 2 specials.
    expect(count('getUsers(id)')).toBe(3 + 3 + 2);
    // Whitespace of any kind carries nothing; "_" is punctuation, a word of its own: user _ id.
    expect(count('  USER_id\t\r\n')).toBe(3 + 2);
    // "userid" → user ##id; "byid" → by ##id.
    expect(count('userid byid')).toBe(4 + 2);
    // A word with an unmatchable rest is one [UNK]: "getx" → get, then no "##x".
    expect(count('getx zzz')).toBe(2 + 2);
    // A word over max_input_chars_per_word is one [UNK] whatever it holds.
    expect(count('a'.repeat(101))).toBe(1 + 2);
    expect(count('a'.repeat(100))).toBe(1 + 2);
    expect(count('')).toBe(2);
    // The two marks the embedding texts add are words of their own, one token each: ts · a … → 4.
    expect(count('ts · a…')).toBe(4 + 2);
  });

  it('leaves to the tokenizer what needs more than lower-casing: non-ASCII, control characters, special tokens', () => {
    expect(count('naïve')).toBeNull();
    expect(count('日本')).toBeNull();
    expect(count('a\x7fb')).toBeNull();
    expect(count('a\x0bb')).toBeNull();
    expect(count('see [MASK] here')).toBeNull();
    // Added tokens match case-sensitively, so this is plain text: see, [, mask, ], here — five
    // words outside the tiny vocabulary, one [UNK] each.
    expect(count('see [mask] here')).toBe(5 + 2);
  });

  it('is null for tokenizers that are not BERT uncased WordPiece', () => {
    expect(wordPieceCounter(bertJson(VOCAB, { normalizer: { type: 'BertNormalizer', clean_text: true, lowercase: false } }))).toBeNull();
    expect(wordPieceCounter(bertJson(VOCAB, { pre_tokenizer: { type: 'Whitespace' } }))).toBeNull();
    expect(wordPieceCounter(bertJson(VOCAB, { model: { type: 'BPE', vocab: {} } }))).toBeNull();
    expect(wordPieceCounter(bertJson(VOCAB, { post_processor: { type: 'ByteLevel' } }))).toBeNull();
    expect(wordPieceCounter(null)).toBeNull();
    expect(wordPieceCounter('not json')).toBeNull();
  });

  it('createTokenCounter uses it and falls back to the tokenizer for the rest', () => {
    const seen: string[] = [];
    const counter = createTokenCounter({ encode: (t) => (seen.push(t), Array.from({ length: 42 }, () => 0)) }, count);
    expect(counter.countTokens('getUsers(id)')).toBe(8);
    expect(counter.countTokens('naïve')).toBe(42);
    expect(seen).toEqual(['naïve']); // the tokenizer sees only what the fast count leaves
  });
});

describe.skipIf(MODEL_MISSING !== null)('wordPieceCounter on the real tokenizer', () => {
  it('gives the tokenizer’s count for every line, prefix and file of this package’s sources', async () => {
    const { loadTokenizer } = await import('../runtime/modelRunner.mjs');
    const tokenizer = await loadTokenizer(MODELS_DIR, MODEL_ID);
    const count = wordPieceCounter(JSON.parse(readFileSync(join(MODELS_DIR, MODEL_ID, 'tokenizer.json'), 'utf8')))!;
    expect(count).not.toBeNull();
    const dir = join(REPO_ROOT, 'packages/embed/src');
    const texts: string[] = [];
    for (const f of readdirSync(dir).sort()) {
      const source = readFileSync(join(dir, f), 'utf8');
      texts.push(source);
      for (const line of source.split('\n')) texts.push(line, line.slice(0, Math.floor(line.length / 2)));
    }
    // Header lines and shortened docs as the embedding texts have them.
    texts.push('ts · src/billing/billingAccount.ts · BillingAccount > terminatePlan · method', 'Ends the plan and…', '·…·x…y');
    let fastCounted = 0;
    const mismatches: string[] = [];
    for (const t of texts) {
      const fast = count(t);
      if (fast === null) continue;
      fastCounted++;
      if (fast !== tokenizer.encode(t).length) mismatches.push(t);
    }
    expect(mismatches).toEqual([]);
    expect(fastCounted).toBeGreaterThan(texts.length * 0.9); // nearly all source text is plain ASCII
  }, 60_000);
});
