import { seededRandom } from '@ca/schema';
import { FTS_TOKENIZE } from '@ca/store';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { porterStem } from '../src/porter.js';
import { ftsTokens, nodeText, tsqueryTerm } from '../src/textVectors.js';

// The team store's tokens must be exactly the local index's FTS5 tokens, or BM25 ranks differ.
// A differential test: SQLite's own tokenizer (the FTS_TOKENIZE the index uses, read back
// through fts5vocab) against `ftsTokens` on generated texts.

// English words that exercise every Porter step (plurals, -ed/-ing, -ational, -ness, -ize, …),
// code words, and separators the tokenizer must split or keep.
const WORDS = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized
  hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci
  digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism
  decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
  electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant
  replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize
  probate rate cease controll roll generalization oscillators logistics archaeology biology yelling syzygy
  getUserById get_user myapp.core global::MyApp.Core $scope @Input HTMLParser2 rateLimiter x y zz abc 42 3.14
  café naïve Ärger über résumé formatted format charging charge users services authenticating tokens`.split(/\s+/).filter(Boolean);
const SEPARATORS = [' ', '  ', '\n', '(', ')', ', ', '; ', ' = ', '=>', '"', "'", '/', '-', '+', '<', '>', '[', ']', '{', '}', '#'];

function generatedText(next: () => number, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) {
    out += WORDS[Math.floor(next() * WORDS.length)]!;
    out += SEPARATORS[Math.floor(next() * SEPARATORS.length)]!;
  }
  return out;
}

/** SQLite's tokens of each text, in order (fts5vocab 'instance' lists every token with its offset). */
function sqliteTokens(texts: readonly string[]): string[][] {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize="${FTS_TOKENIZE}"); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const insert = db.prepare(`INSERT INTO t(rowid, x) VALUES (?, ?)`);
    texts.forEach((x, i) => insert.run(i + 1, x));
    const rows = db.prepare(`SELECT doc, term, offset FROM v ORDER BY doc, offset`).all() as { doc: number; term: string; offset: number }[];
    const out = texts.map((): string[] => []);
    for (const r of rows) out[r.doc - 1]!.push(r.term);
    return out;
  } finally {
    db.close();
  }
}

describe('FTS tokens (the team store against SQLite FTS5)', () => {
  it('stems as FTS5 porter does: every word of the list, alone', () => {
    const mine = WORDS.map((w) => ftsTokens(w));
    expect(mine).toEqual(sqliteTokens(WORDS));
  });

  it('tokenizes 200 generated texts exactly as SQLite FTS5 does', () => {
    const next = seededRandom(46);
    const texts = Array.from({ length: 200 }, () => generatedText(next, 1 + Math.floor(next() * 40)));
    expect(texts.map(ftsTokens)).toEqual(sqliteTokens(texts));
  });

  it('keeps identifiers whole where PostgreSQL would split them (hand-checked examples)', () => {
    // `_`, `.`, `:`, `$`, `@` are token characters: one token each, then Porter on the whole token
    // (`get_user` → `get_us`: step 4 drops `er`; `myapp.core` → `myapp.cor`: step 5 drops `e`).
    expect(ftsTokens('get_user myapp.core global::MyApp.Core $scope users')).toEqual(['get_us', 'myapp.cor', 'global::myapp.cor', '$scope', 'user']);
    // Porter's reference steps: caresses → caress (1a), hopping → hop (1b), relational → relat (2 then 4).
    expect(['caresses', 'hopping', 'relational', 'generalization'].map(porterStem)).toEqual(['caress', 'hop', 'relat', 'gener']);
  });

  it('encodes the seven FTS columns as weights: head (name A, qualified B, split C, path D), body (signature A, doc B, body D)', () => {
    const t = nodeText({ name: 'getUser', qualifiedName: 'Api.getUser', kind: 'method', signature: 'getUser(id)', doc: "it's users", chunkText: 'getUser(id) { return users[id]; }', path: 'src/api.ts' });
    // Porter: `getuser` → `getus` (step 4 drops `er`: m("getus") = 2), `users` → `user`.
    // name `getus`; qualified `api.getus`; split of `Api.getUser` + kind: api get user getus method;
    // path tokens of `src/api.ts`: src api ts.
    expect(t.head).toBe(`'getus':1A,2C 'api.getus':1B 'api':1C,2D 'get':1C 'user':1C 'method':1C 'src':1D 'ts':1D`);
    // signature `getus`, `id`; doc `it`, `s`, `user`; body = split body then split doc:
    // get user getus id return user id, then it s user.
    expect(t.body).toBe(`'getus':1A,2D 'id':1A,2D,3D 'it':1B,2D 's':1B,2D 'user':1B,2D,3D,4D 'get':1D 'return':1D`);
    // 1 + 1 + 5 + 3 (head) + 2 + 3 + 10 (body) tokens.
    expect(t.length).toBe(25);
    expect(tsqueryTerm("o'neil\\x", true)).toBe(`'o''neil\\\\x':*AC`);
  });
});
