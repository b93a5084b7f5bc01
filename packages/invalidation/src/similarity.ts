/**
 * Content similarity of files and symbols, for moves that come with an edit (decision 023): a
 * text becomes a set of winnowed k-gram hashes over its identifier-normalised tokens, two sets
 * are compared by Jaccard, and candidates are paired greedily, best first. Pure functions.
 */

/** Tokens per k-gram: a shared run shorter than this is no evidence of a common origin. */
export const FINGERPRINT_K = 5;
/** Winnowing window (in k-grams): any shared run of `K + W - 1` tokens is guaranteed a common hash. */
export const FINGERPRINT_W = 4;
/** Jaccard of two fingerprints from which a deleted and a created text are one text moved. */
export const SIMILARITY_THRESHOLD = 0.8;

/** A text's winnowed k-gram hashes. */
export type Fingerprint = ReadonlySet<number>;

/** The token every identifier (that is not a keyword) becomes: a renamed local changes nothing. */
export const IDENTIFIER_TOKEN = '$';

// Keywords of TypeScript/JavaScript and C#: they shape code, so they stay as they are.
const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'abstract as async await base bool break byte case catch char checked class const constructor continue declare decimal default delegate ' +
    'delete do double else enum event explicit export extends extern false finally fixed float for foreach from function get goto if ' +
    'implements implicit import in instanceof int interface internal is keyof let lock long module namespace new null object operator ' +
    'out override params private protected public readonly record ref return sbyte sealed set short sizeof static string struct super ' +
    'switch this throw true try type typeof uint ulong unchecked undefined unsafe ushort using var virtual void volatile when where while ' +
    'with yield'
  ).split(' '),
);

// One token per match: comments and whitespace (dropped), strings, numbers, identifiers, one punctuation character.
const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|(\s+)|('(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?|`(?:[^`\\]|\\[\s\S])*`?)|(\d[\w.]*)|([A-Za-z_$@][\w$]*)|([\s\S])/g;

/**
 * The tokens of a source text as fingerprints see them: comments and whitespace dropped,
 * identifiers other than keywords replaced by `IDENTIFIER_TOKEN`, strings, numbers and
 * punctuation kept as written.
 */
export function normalizedTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    if (m[1] !== undefined || m[2] !== undefined) continue;
    const word = m[5];
    if (word !== undefined) tokens.push(KEYWORDS.has(word) ? word : IDENTIFIER_TOKEN);
    else tokens.push(m[0]);
  }
  return tokens;
}

/** 32-bit FNV-1a of a string's UTF-16 code units (stable across runs and platforms). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The hash of each run of `k` consecutive tokens (one hash of all of them when there are fewer). */
export function kgramHashes(tokens: readonly string[], k: number = FINGERPRINT_K): number[] {
  if (tokens.length === 0) return [];
  if (tokens.length < k) return [fnv1a(tokens.join('\u0000'))];
  const hashes: number[] = [];
  for (let i = 0; i + k <= tokens.length; i++) hashes.push(fnv1a(tokens.slice(i, i + k).join('\u0000')));
  return hashes;
}

/**
 * Winnowing (Schleimer, Wilkerson, Aiken 2003): the minimum hash of every window of `w`
 * consecutive hashes, the rightmost on ties, each selected position recorded once. Fewer than
 * `w` hashes form one window.
 */
export function winnow(hashes: readonly number[], w: number = FINGERPRINT_W): { readonly position: number; readonly hash: number }[] {
  const selected: { position: number; hash: number }[] = [];
  if (hashes.length === 0) return selected;
  const windows = Math.max(1, hashes.length - w + 1);
  let last = -1;
  for (let start = 0; start < windows; start++) {
    const end = Math.min(hashes.length, start + w);
    let min = start;
    for (let i = start + 1; i < end; i++) if (hashes[i]! <= hashes[min]!) min = i;
    if (min !== last) {
      selected.push({ position: min, hash: hashes[min]! });
      last = min;
    }
  }
  return selected;
}

/** A text's fingerprint: its winnowed k-gram hashes over the normalised tokens. */
export function fingerprint(text: string, k: number = FINGERPRINT_K, w: number = FINGERPRINT_W): Fingerprint {
  return new Set(winnow(kgramHashes(normalizedTokens(text), k), w).map((s) => s.hash));
}

/** |A ∩ B| / |A ∪ B|; 0 when both are empty (no evidence either way). */
export function jaccard(a: Fingerprint, b: Fingerprint): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const h of small) if (large.has(h)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * How alike two paths are, for ties between equally similar files: the directories they share
 * from the root plus the segments they share from the end (`src/a/x.ts`, `src/b/x.ts`: 2).
 */
export function pathAffinity(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let lead = 0;
  while (lead < x.length - 1 && lead < y.length - 1 && x[lead] === y[lead]) lead++;
  let tail = 0;
  while (tail < x.length - lead && tail < y.length - lead && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  return lead + tail;
}

/** One pair of `pairBySimilarity`: indexes into its two lists. */
export interface SimilarPair {
  readonly left: number;
  readonly right: number;
  readonly similarity: number;
}

/**
 * Pairs items of two lists whose fingerprints reach `threshold` (Jaccard), each item at most
 * once, best pair first: higher similarity, then the higher `preference` (for files: the
 * closer paths, so of two identical copies each pairs with its own), then the lower left index,
 * then the lower right index — deterministic for lists in a deterministic order. `compatible`
 * rules pairs out (another language, another kind of symbol). Candidates are found through the hashes they share, so
 * lists of thousands cost what their overlaps cost.
 */
export function pairBySimilarity(
  left: readonly Fingerprint[],
  right: readonly Fingerprint[],
  options: {
    readonly threshold?: number;
    readonly compatible?: (left: number, right: number) => boolean;
    readonly preference?: (left: number, right: number) => number;
  } = {},
): SimilarPair[] {
  const threshold = options.threshold ?? SIMILARITY_THRESHOLD;
  const holders = new Map<number, number[]>();
  left.forEach((fp, i) => {
    for (const h of fp) {
      const list = holders.get(h);
      if (list) list.push(i);
      else holders.set(h, [i]);
    }
  });
  const pairs: SimilarPair[] = [];
  right.forEach((fp, j) => {
    const shared = new Map<number, number>();
    for (const h of fp) for (const i of holders.get(h) ?? []) shared.set(i, (shared.get(i) ?? 0) + 1);
    for (const [i, n] of shared) {
      const similarity = n / (left[i]!.size + fp.size - n);
      if (similarity >= threshold && (options.compatible?.(i, j) ?? true)) pairs.push({ left: i, right: j, similarity });
    }
  });
  const preference = options.preference ?? (() => 0);
  pairs.sort((a, b) => b.similarity - a.similarity || preference(b.left, b.right) - preference(a.left, a.right) || a.left - b.left || a.right - b.right);
  const usedLeft = new Set<number>();
  const usedRight = new Set<number>();
  const chosen: SimilarPair[] = [];
  for (const p of pairs) {
    if (usedLeft.has(p.left) || usedRight.has(p.right)) continue;
    usedLeft.add(p.left);
    usedRight.add(p.right);
    chosen.push(p);
  }
  return chosen;
}
