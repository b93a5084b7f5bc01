import { ftsTextOf, pathTokens } from '@ca/schema';
import { porterStem } from './porter.js';

// The team store's full-text rows, built here rather than by PostgreSQL's parser (which splits
// `get_user` and reads `myapp.core` as a host name): the tokens of SQLite's FTS5 table
// (`porter unicode61 remove_diacritics 2 tokenchars '_.$:@'`, @ca/store's FTS_TOKENIZE) from
// the same column texts (@ca/schema `ftsTextOf`, `pathTokens`). Each node gets two tsvectors:
// a small head (name, qualified name, split name, path tokens) and the body (signature, doc,
// split body), with the FTS column encoded as the lexeme's weight, so BM25 can weigh columns as
// SQLite's `bm25(fts_nodes, …)` does (decision 046).

/** Characters of a token: unicode61's default categories (L*, N*, Co) and the tokenchars. */
const TOKEN = /[\p{L}\p{N}\p{Co}_.$:@]+/gu;
const MARKS = /\p{M}/gu;

/** One token as FTS5 stores it: case folded, diacritics removed, Porter-stemmed. */
export function foldToken(raw: string): string {
  const folded = /^[\x00-\x7f]*$/.test(raw) ? raw.toLowerCase() : raw.normalize('NFD').replace(MARKS, '').toLowerCase();
  return porterStem(folded);
}

/** The tokens of a text as the local index's FTS5 table holds them, in order. */
export function ftsTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) out.push(foldToken(m[0]));
  return out;
}

/** The BM25 column weights of the local index (@ca/store's reader), by tsvector weight letter. */
export const HEAD_WEIGHTS = { A: 10, B: 8, C: 5, D: 1.5 } as const; // name, qualified_name, split, path
export const BODY_WEIGHTS = { A: 3, B: 2, D: 1 } as const; // signature, doc, body

// tsvector limits: a lexeme under 2 KB, positions 1..16383, at most 256 positions per lexeme, a
// vector under 1 MB. Positions here count a lexeme's occurrences (its position list is its term
// frequency), so only a lexeme seen more than 256 times in one vector is cut.
const MAX_LEXEME_BYTES = 2046;
const MAX_POSITIONS = 256;
const MAX_VECTOR_BYTES = 900_000;

/** A tsvector literal of weighted columns: each lexeme with one position per occurrence. */
function tsvectorLiteral(columns: readonly (readonly [string, readonly string[]])[]): string {
  const byLexeme = new Map<string, string[]>();
  for (const [weight, tokens] of columns) {
    for (const t of tokens) {
      let list = byLexeme.get(t);
      if (!list) byLexeme.set(t, (list = []));
      if (list.length < MAX_POSITIONS) list.push(`${list.length + 1}${weight}`);
    }
  }
  const parts: string[] = [];
  let bytes = 0;
  for (const [lexeme, positions] of byLexeme) {
    const size = Buffer.byteLength(lexeme);
    if (size > MAX_LEXEME_BYTES) continue; // no query term is this long
    bytes += size + positions.length * 2 + 8;
    if (bytes > MAX_VECTOR_BYTES) break; // a minified giant: the rest of its words are not searchable
    parts.push(`'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${positions.join(',')}`);
  }
  return parts.join(' ');
}

/** What a node's full-text row is made of (the fields `ftsTextOf` and the FTS columns read). */
export interface TextSource {
  readonly name: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly signature: string;
  readonly doc: string | null;
  readonly chunkText: string;
  readonly path: string;
}

/**
 * One lexeme of a node as BM25 scores it (the team store's postings, decision 046): its
 * occurrences weighted by column as `bm25(fts_nodes, 10, 8, 5, 3, 2, 1.5, 1)` weighs them — in
 * all seven columns (`freq`), in the name columns name, qualified_name, split (`names`: a term
 * matched there only), and in name and split (`prefixNames`: what a prefix phrase matches).
 */
export interface TermFrequency {
  readonly lexeme: string;
  readonly freq: number;
  readonly names: number;
  readonly prefixNames: number;
}

/** A node's head and body tsvectors, its length in tokens (all seven FTS columns, as FTS5 counts) and its postings. */
export interface NodeText {
  readonly head: string;
  readonly body: string;
  readonly length: number;
  readonly terms: readonly TermFrequency[];
}

/** The weighted frequencies of every lexeme of the seven columns (uncapped, as FTS5 counts them). */
function termFrequencies(columns: { readonly name: readonly string[]; readonly qualified: readonly string[]; readonly split: readonly string[]; readonly path: readonly string[]; readonly signature: readonly string[]; readonly doc: readonly string[]; readonly body: readonly string[] }): TermFrequency[] {
  const byLexeme = new Map<string, { freq: number; names: number; prefixNames: number }>();
  const add = (tokens: readonly string[], weight: number, inNames: boolean, inPrefixNames: boolean): void => {
    for (const t of tokens) {
      let f = byLexeme.get(t);
      if (!f) byLexeme.set(t, (f = { freq: 0, names: 0, prefixNames: 0 }));
      f.freq += weight;
      if (inNames) f.names += weight;
      if (inPrefixNames) f.prefixNames += weight;
    }
  };
  add(columns.name, HEAD_WEIGHTS.A, true, true);
  add(columns.qualified, HEAD_WEIGHTS.B, true, false);
  add(columns.split, HEAD_WEIGHTS.C, true, true);
  add(columns.path, HEAD_WEIGHTS.D, false, false);
  add(columns.signature, BODY_WEIGHTS.A, false, false);
  add(columns.doc, BODY_WEIGHTS.B, false, false);
  add(columns.body, BODY_WEIGHTS.D, false, false);
  const out: TermFrequency[] = [];
  // A lexeme too long for a btree entry is left out, as the tsvectors leave it out: no query term is this long.
  for (const [lexeme, f] of byLexeme) if (Buffer.byteLength(lexeme) <= MAX_LEXEME_BYTES) out.push({ lexeme, ...f });
  return out;
}

/** The head and body tsvectors of one node (the local index's seven FTS columns). */
export function nodeText(n: TextSource): NodeText {
  const fts = ftsTextOf(n);
  const name = ftsTokens(n.name);
  const qualified = ftsTokens(n.qualifiedName);
  const split = ftsTokens(fts.split);
  const path = ftsTokens(pathTokens(n.path));
  const signature = ftsTokens(n.signature);
  const doc = ftsTokens(n.doc ?? '');
  const body = ftsTokens(fts.body);
  return {
    head: tsvectorLiteral([['A', name], ['B', qualified], ['C', split], ['D', path]]),
    body: tsvectorLiteral([['A', signature], ['B', doc], ['D', body]]),
    length: name.length + qualified.length + split.length + path.length + signature.length + doc.length + body.length,
    terms: termFrequencies({ name, qualified, split, path, signature, doc, body }),
  };
}

/** One query term as a tsquery operand (a quoted lexeme, `:*AC` for a prefix on name and split). */
export function tsqueryTerm(lexeme: string, prefix: boolean): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${prefix ? ':*AC' : ''}`;
}
