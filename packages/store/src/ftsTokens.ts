import BetterSqlite3 from 'better-sqlite3';
import { FTS_TOKENIZE } from './migrations.js';

/**
 * A private in-memory connection holding an FTS5 table with the index's tokenizer: writing a
 * query's terms there yields the tokens the index stores for them (Porter-stemmed), without
 * writing to the index's own connection (whose change counter invalidates caches).
 */
let scratch: { clear: BetterSqlite3.Statement; add: BetterSqlite3.Statement; tokens: BetterSqlite3.Statement } | null = null;

/** The indexed tokens of each term, in order (`listeners` → `['listen']`, `a.b c` → two tokens). */
export function indexedTokens(terms: readonly string[]): string[][] {
  if (terms.length === 0) return [];
  if (!scratch) {
    const db = new BetterSqlite3(':memory:');
    db.exec(`CREATE VIRTUAL TABLE terms USING fts5(term, tokenize="${FTS_TOKENIZE}");
             CREATE VIRTUAL TABLE terms_vocab USING fts5vocab(terms, instance);`);
    scratch = {
      clear: db.prepare(`DELETE FROM terms`),
      add: db.prepare(`INSERT INTO terms(rowid, term) VALUES (?, ?)`),
      tokens: db.prepare(`SELECT doc, term FROM terms_vocab ORDER BY doc, offset`),
    };
  }
  const s = scratch;
  s.clear.run();
  terms.forEach((t, i) => s.add.run(i + 1, t));
  const out: string[][] = terms.map(() => []);
  for (const r of s.tokens.all() as { doc: number; term: string }[]) out[r.doc - 1]!.push(r.term);
  return out;
}
