import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, loadTokenCounter } from '../src/index.js';
import type { TokenCounter } from '../src/index.js';
import { MODEL_MISSING, RESOLVED } from './helpers.js';

// Expected values derived by hand from tokenizer.json (BertNormalizer lower-cases, BertPreTokenizer
// splits on whitespace and punctuation, greedy longest-match WordPiece over the vocabulary):
//   "getUserById(userId: string): Promise<User>" →
//     get ##user ##by ##id ( user ##id : string ) : promise < user >      = 15 + [CLS] [SEP] = 17
//     ("getuserbyid", "getu", "##byid", "##userbyid" are not in the vocabulary; "get", "##user", "##by", "##id" are)
//   "parse a configuration file and return defaults for missing keys" →
//     par ##se a configuration file and return default ##s for missing keys = 12 + 2 = 14
//     ("parse" and "defaults" are not in the vocabulary); reference.json's upstream count is 14 too.
const SIG = 'getUserById(userId: string): Promise<User>';
const SENTENCE = 'parse a configuration file and return defaults for missing keys';

describe.skipIf(MODEL_MISSING !== null)('token counter (model tokenizer)', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await loadTokenCounter(RESOLVED);
  });

  it('counts tokens including [CLS] and [SEP]', () => {
    expect(counter.countTokens('')).toBe(2);
    expect(counter.countTokens(SIG)).toBe(17);
    expect(counter.countTokens(SENTENCE)).toBe(14);
    // Indentation and newlines carry no tokens.
    expect(counter.countTokens(`  ${SENTENCE.replaceAll(' ', '\n   ')}  `)).toBe(14);
  });

  it('truncates at word boundaries to the largest prefix within the budget', () => {
    expect(counter.truncateToTokens(SENTENCE, 8)).toBe('parse a configuration file and');
    expect(counter.truncateToTokens(SENTENCE, 9)).toBe('parse a configuration file and return');
    // "defaults" is two tokens (default ##s): with room for one, the word is left out, not split.
    expect(counter.truncateToTokens(SENTENCE, 10)).toBe('parse a configuration file and return');
    expect(counter.truncateToTokens(SENTENCE, 11)).toBe('parse a configuration file and return defaults');
    expect(counter.truncateToTokens(SENTENCE, 14)).toBe(SENTENCE);
    expect(counter.truncateToTokens(SIG, 6)).toBe('getUserById');
    expect(counter.truncateToTokens(SIG, 7)).toBe('getUserById(');
    expect(counter.truncateToTokens(SIG, 10)).toBe('getUserById(userId:');
    expect(counter.truncateToTokens(SIG, 16)).toBe('getUserById(userId: string): Promise<User');
    expect(counter.truncateToTokens(SIG, 17)).toBe(SIG);
  });

  it('cuts inside a word only when the first word alone is over budget', () => {
    // get(3) getUser(4: get ##user) getUserBy(5) getUserById(6), special tokens included.
    expect(counter.truncateToTokens(SIG, 3)).toBe('get');
    expect(counter.truncateToTokens(SIG, 5)).toBe('getUserBy');
    expect(counter.truncateToTokens(SIG, 2)).toBe('');
  });

  it('handles long texts and never exceeds the budget', () => {
    const long = Array.from({ length: 400 }, (_, i) => `const value${i} = compute(input${i}, options);`).join('\n');
    for (const budget of [3, 32, 64, 256]) {
      const cut = counter.truncateToTokens(long, budget);
      expect(long.startsWith(cut)).toBe(true);
      expect(counter.countTokens(cut)).toBeLessThanOrEqual(budget);
      // Word-boundary search finds the tightest cut: one more word would overflow.
      const next = long.slice(cut.length).match(/^\s*(\w+|[^\w\s])/)![0];
      expect(counter.countTokens(cut + next)).toBeGreaterThan(budget);
    }
  });

  it('does not split surrogate pairs', () => {
    const text = 'ok 🚀🚀🚀 done';
    for (let budget = 3; budget <= counter.countTokens(text); budget++) {
      const cut = counter.truncateToTokens(text, budget);
      // A lone surrogate does not survive a UTF-8 round trip (it becomes U+FFFD).
      expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
    }
  });

  it('cuts where a search over every word boundary would, on code, prose, CJK, emoji and punctuation runs', () => {
    // The reference: the longest prefix ending on a pre-token boundary (a non-word character on
    // either side; CJK ideographs are words of their own) whose real count fits, right-trimmed.
    const word = (ch: string) => /[\p{L}\p{N}\p{M}]/u.test(ch) && !/[\u3400-\u4dbf\u4e00-\u9fff]/u.test(ch);
    const reference = (text: string, budget: number): string => {
      const chars = [...text];
      for (let k = chars.length; k > 0; k--) {
        if (k < chars.length && word(chars[k - 1]!) && word(chars[k]!)) continue;
        const cut = chars.slice(0, k).join('');
        if (counter.countTokens(cut) <= budget && cut.trimEnd().length > 0) return cut.trimEnd();
      }
      return '';
    };
    const texts = [
      'export function renderScene(ctx: CanvasRenderingContext2D, elements: readonly Element[]) {\n  if (!ctx) return;\n  ctx.save();',
      'if (a===b&&c!==d) { x+=1; } // ¿qué? naïve café — résumé',
      '用户登录服务 handles 登录 and 注册 of users',
      'launch 🚀 the rocket 🚀🚀 then land',
      '   leading spaces, then words;;; and ((nested)) [brackets] {braces} <angles>',
    ];
    for (const text of texts) {
      for (let budget = 3; budget <= counter.countTokens(text); budget++) {
        expect(counter.truncateToTokens(text, budget), `${budget} tokens of ${text}`).toBe(reference(text, budget));
      }
    }
  });

  it('works over any tokenizer with encode()', () => {
    // One token per whitespace-separated word, no special tokens.
    const words = createTokenCounter({ encode: (t) => t.split(/\s+/).filter(Boolean).map(() => 1) });
    expect(words.countTokens('a b c')).toBe(3);
    expect(words.truncateToTokens('alpha beta gamma delta', 2)).toBe('alpha beta');
  });
});
