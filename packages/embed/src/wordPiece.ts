import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Counts the tokens of plain-ASCII text for a BERT WordPiece tokenizer without running the
 * tokenizer: text building counts tokens several times per embedded text (token-aware cuts), and
 * transformers.js' general pipeline (normalizer, pre-tokenizer, model, post-processor) per count
 * was most of the time the indexing thread spent beside the model workers (docs/benchmarks.md,
 * problem 9). Counts equal the tokenizer's: checked on every text of both
 * benchmark repositories (packages/embed/README.md, "Tokens"), and by the tests on this package's
 * own sources. Anything the fast path does not cover returns null and goes to the tokenizer.
 */

/** `count(text)`: the tokenizer's count, or null when the text needs the tokenizer itself. */
export type FastTokenCount = (text: string) => number | null;

/**
 * Printable ASCII plus tab, newline and carriage return — no normalization beyond lower case
 * applies — and the two punctuation marks the embedding texts add (`·` between header fields,
 * `…` after a shortened doc line): each is a word of its own and one token (itself or [UNK]).
 */
const PLAIN = /^[\x20-\x7e\t\n\r\u00b7\u2026]*$/;
const WORD_CACHE_LIMIT = 100_000;

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a); // after lower-casing
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

interface TokenizerJson {
  normalizer?: { type?: string; lowercase?: boolean; clean_text?: boolean } | null;
  pre_tokenizer?: { type?: string } | null;
  model?: { type?: string; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number; vocab?: Record<string, number> };
  post_processor?: { type?: string; single?: unknown[] } | null;
  added_tokens?: { content?: string }[];
}

/**
 * The fast count for a `tokenizer.json` that is exactly BERT's uncased WordPiece setup
 * (BertNormalizer with lower case and text cleaning, BertPreTokenizer, WordPiece, a post-processor
 * adding [CLS] and [SEP]); null for any other tokenizer.
 */
export function wordPieceCounter(tokenizerJson: unknown): FastTokenCount | null {
  const t = tokenizerJson as TokenizerJson | null;
  const m = t?.model;
  if (t?.normalizer?.type !== 'BertNormalizer' || t.normalizer.lowercase !== true || t.normalizer.clean_text !== true) return null;
  if (t.pre_tokenizer?.type !== 'BertPreTokenizer') return null;
  if (m?.type !== 'WordPiece' || m.vocab === undefined || typeof m.unk_token !== 'string' || !(m.unk_token in m.vocab)) return null;
  const single = t.post_processor?.single;
  const specials =
    t.post_processor?.type === 'BertProcessing'
      ? 2
      : t.post_processor?.type === 'TemplateProcessing' && Array.isArray(single)
        ? single.filter((s) => typeof s === 'object' && s !== null && 'SpecialToken' in s).length
        : -1;
  if (specials < 0 || (Array.isArray(single) && single.length - specials !== 1)) return null;
  const vocab = new Set(Object.keys(m.vocab));
  const prefix = m.continuing_subword_prefix ?? '##';
  const maxChars = m.max_input_chars_per_word ?? 100;
  // Special tokens are split out of the raw text before normalization: leave such texts to the tokenizer.
  const added = (t.added_tokens ?? []).map((a) => a.content ?? '').filter((c) => c.length > 0);

  const words = new Map<string, number>();
  const wordTokens = (word: string): number => {
    let n = words.get(word);
    if (n !== undefined) return n;
    n = 0;
    if (word.length > maxChars) n = 1;
    else {
      // Greedy longest match first, as WordPiece does; a word with an unmatchable rest is one [UNK].
      for (let start = 0; start < word.length; ) {
        let end = word.length;
        while (end > start && !vocab.has(start > 0 ? prefix + word.slice(start, end) : word.slice(start, end))) end--;
        if (end === start) {
          n = 1;
          break;
        }
        n++;
        start = end;
      }
    }
    if (words.size >= WORD_CACHE_LIMIT) words.clear();
    words.set(word, n);
    return n;
  };

  return (text) => {
    if (!PLAIN.test(text)) return null;
    for (const a of added) if (text.includes(a)) return null;
    const s = text.toLowerCase();
    let n = specials;
    for (let i = 0; i < s.length; ) {
      const c = s.charCodeAt(i);
      if (isSpace(c)) {
        i++;
      } else if (isAlnum(c)) {
        let j = i + 1;
        while (j < s.length && isAlnum(s.charCodeAt(j))) j++;
        n += wordTokens(s.slice(i, j));
        i = j;
      } else {
        n += c < 0x80 ? wordTokens(s[i]!) : 1; // punctuation is a word of its own
        i++;
      }
    }
    return n;
  };
}

/** `wordPieceCounter` of the model folder's tokenizer.json; null when it is missing, unreadable or not BERT WordPiece. */
export function loadWordPieceCounter(modelFolder: string): FastTokenCount | null {
  try {
    return wordPieceCounter(JSON.parse(readFileSync(join(modelFolder, 'tokenizer.json'), 'utf8')));
  } catch {
    return null; // the tokenizer itself reports a broken file when it loads
  }
}
