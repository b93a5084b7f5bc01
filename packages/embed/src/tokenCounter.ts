import type { FastTokenCount } from './wordPiece.js';

/** Counts and truncates text in the model's own tokens. */
export interface TokenCounter {
  /**
   * Tokens the model sees for `text`, special tokens ([CLS], [SEP]) included, before any
   * truncation: `countTokens('')` is 2 for BERT-style models.
   */
  countTokens(text: string): number;
  /**
   * The longest prefix of `text`, cut at a word boundary and right-trimmed, whose
   * `countTokens` is at most `maxTokens` (special tokens included). Falls back to a cut
   * inside a word only when the first word alone is over budget.
   */
  truncateToTokens(text: string, maxTokens: number): string;
}

/** The one tokenizer call the counter needs (transformers.js `PreTrainedTokenizer.encode`). */
export interface EncodingTokenizer {
  encode(text: string): number[];
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
// BERT tokenizes each CJK ideograph as its own word, so a cut between two of them is clean.
const CJK_RANGES = '\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u{20000}-\\u{2fa1f}';
const CJK = new RegExp(`[${CJK_RANGES}]`, 'u');

function isWordChar(ch: string): boolean {
  return WORD_CHAR.test(ch) && !CJK.test(ch);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * True when `text.slice(0, i)` ends on a pre-token boundary: the tokenizer splits words on
 * whitespace and punctuation, so the tokens of such a prefix are exactly the first tokens of
 * the whole text. That makes the count monotone over boundaries, which the binary search needs.
 */
function isBoundary(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return true;
  if (isLowSurrogate(text.charCodeAt(i))) return false;
  const before = text.codePointAt(i - 1 - (isLowSurrogate(text.charCodeAt(i - 1)) ? 1 : 0)) ?? 0;
  const after = text.codePointAt(i) ?? 0;
  return !isWordChar(String.fromCodePoint(before)) || !isWordChar(String.fromCodePoint(after));
}

/**
 * The pieces the tokenizer splits text into before WordPiece: whitespace runs (no tokens), runs of
 * word characters (CJK ideographs excepted: each is its own word), and any other single character.
 * Their ends are the boundaries `isBoundary` accepts, whitespace runs aside.
 */
const PIECE = new RegExp(`\\s+|(?:(?![${CJK_RANGES}])[\\p{L}\\p{N}\\p{M}])+|[^]`, 'gu');
const PIECE_CACHE_LIMIT = 100_000;

/**
 * Wraps a tokenizer into a TokenCounter (exact counts, token-aware truncation). `fast`, when
 * given, counts the texts it can (`wordPieceCounter`: plain ASCII for BERT WordPiece) with the
 * tokenizer's result, without running the tokenizer; the rest go to `tokenizer.encode`.
 */
export function createTokenCounter(tokenizer: EncodingTokenizer, fast?: FastTokenCount | null): TokenCounter {
  const encoded = (text: string): number => tokenizer.encode(text).length;
  const countTokens = fast ? (text: string): number => fast(text) ?? encoded(text) : encoded;
  const overhead = countTokens('');
  // Tokens of one piece on its own, cached: code repeats its words, so most are lookups.
  const pieces = new Map<string, number>();
  const pieceTokens = (piece: string): number => {
    let n = pieces.get(piece);
    if (n === undefined) {
      if (pieces.size >= PIECE_CACHE_LIMIT) pieces.clear();
      n = countTokens(piece) - overhead;
      pieces.set(piece, n);
    }
    return n;
  };

  /**
   * The cut from summed piece counts, confirmed with two real counts (the cut fits, one more
   * piece does not), which under the monotonicity the search below relies on is exactly the
   * search's answer; null when the sum was off (then the search runs). Two tokenizations
   * instead of ~10 per cut, which is most of the cost of building embedding texts
   * (docs/benchmarks.md, "Figures behind choices in the code").
   */
  const estimatedCut = (text: string, maxTokens: number, fits: (end: number) => boolean): string | null => {
    let total = overhead;
    let best = 0;
    PIECE.lastIndex = 0;
    for (let m = PIECE.exec(text); m !== null; m = PIECE.exec(text)) {
      const piece = m[0];
      const end = m.index + piece.length;
      if (/^\s/.test(piece)) continue;
      total += pieceTokens(piece);
      if (total > maxTokens) return best > 0 && fits(best) && !fits(end) ? text.slice(0, best) : null;
      best = end;
    }
    return countTokens(text) <= maxTokens ? text : null;
  };

  const truncateToTokens = (text: string, maxTokens: number): string => {
    if (maxTokens <= overhead || text.length === 0) return '';
    const fits = (end: number): boolean => countTokens(text.slice(0, end)) <= maxTokens;
    const estimated = estimatedCut(text, maxTokens, fits);
    if (estimated !== null) return estimated;
    // Bracket the cut without tokenizing a huge text in full: code averages 3–4 characters
    // per token, so 6x the budget in characters nearly always overshoots.
    let lo = 0;
    let hi = text.length;
    let probe = Math.min(text.length, maxTokens * 6);
    for (;;) {
      if (!fits(probe)) {
        hi = probe;
        break;
      }
      if (probe === text.length) return text;
      lo = probe;
      probe = Math.min(text.length, probe * 2);
    }
    // `lo` fits but may sit inside a word; the boundary at or before it fits too.
    while (lo > 0 && !isBoundary(text, lo)) lo--;
    const boundaries: number[] = [];
    for (let i = lo + 1; i < hi; i++) if (isBoundary(text, i)) boundaries.push(i);
    let a = -1; // index into boundaries of the best fitting cut (-1: `lo`)
    let b = boundaries.length; // first index known not to fit
    while (b - a > 1) {
      const mid = (a + b) >>> 1;
      if (fits(boundaries[mid]!)) a = mid;
      else b = mid;
    }
    const best = a >= 0 ? boundaries[a]! : lo;
    const cut = text.slice(0, best).trimEnd();
    if (cut.length > 0) return cut;
    return cutInsideWord(text, hi, fits);
  };

  return { countTokens, truncateToTokens };
}

/** Last resort for a first word longer than the budget: bisect on characters (not monotone; good enough). */
function cutInsideWord(text: string, hi: number, fits: (end: number) => boolean): string {
  let lo = 0;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  if (lo > 0 && isLowSurrogate(text.charCodeAt(lo))) lo--;
  return text.slice(0, lo).trimEnd();
}
