import { splitIdentifier } from '@ca/schema';

/** Words that carry no signal in a code question; dropped from BM25 queries. */
const STOP_WORDS = new Set(
  `a an and are as at be been but by can could do does did for from has have how i if in into is it its
   me my no not of on or our should so than that the their them then there these this those to too was
   we were what when where which who why will with would you your all any each every where's what's
   does find show get code function method class file files use used using please implement implemented
   handled handle handles happen happens`
    .split(/\s+/)
    .filter(Boolean),
);

/** Characters that may appear inside one query term; everything else separates terms. */
const TERM = /[\p{L}\p{N}_$@]+(?:(?:\.|::)[\p{L}\p{N}_$@]+)*/gu;

export interface FtsQuery {
  /** The FTS5 MATCH expression, or null when the text has no searchable term. */
  readonly match: string | null;
  /** The distinct terms used, lower case (for explain output and tests). */
  readonly terms: readonly string[];
}

/** The name columns, where a rarest term over the budget is matched (see `IndexReader.termPlan`). */
export const BM25_HEAD_COLUMNS = ['name', 'qualified_name', 'split'] as const;

/** One term as an FTS5 string (a phrase when it holds several tokens): never FTS syntax. */
export function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** The MATCH expression of one term in `BM25_HEAD_COLUMNS` only. */
export function headsMatch(term: string): string {
  return `{${BM25_HEAD_COLUMNS.join(' ')}} : ${quote(term)}`;
}

/** The terms of a BM25 query before they become an FTS5 expression (the team store builds a tsquery from them). */
export interface FtsQueryParts {
  /** The distinct terms, lower case, in query order. */
  readonly terms: readonly string[];
  /** Terms matched as prefixes on the name and split columns (short queries only). */
  readonly prefixes: readonly string[];
}

/**
 * The terms and prefix terms of user text, as `buildFtsQuery` reads them: words and identifiers
 * (stop words dropped unless identifier-like), identifiers' split words and joined form, and
 * for short queries (three terms or fewer) identifier-ish words of 4+ characters as prefixes.
 * `drop` removes terms; `heads` terms are never prefixes.
 */
export function ftsQueryParts(
  text: string,
  options: { maxTerms?: number; drop?: ReadonlySet<string>; heads?: ReadonlySet<string> } = {},
): FtsQueryParts {
  const maxTerms = options.maxTerms ?? 32;
  const drop = options.drop;
  const terms = new Set<string>();
  const prefixTerms = new Set<string>();
  const input = text.length > 4096 ? text.slice(0, 4096) : text;
  for (const m of input.matchAll(TERM)) {
    const raw = m[0];
    const lower = raw.toLowerCase();
    const words = splitIdentifier(raw);
    const isIdentifier = words.length > 1 || /[._$@:]/.test(raw);
    if (!STOP_WORDS.has(lower) || isIdentifier) {
      terms.add(lower);
      // Prefix matches only for identifier-ish words of 4+ characters: short prefixes (`get*`)
      // match a large share of a big index and make every query slow.
      if (lower.length >= 4 && /^[\p{L}\p{N}_]+$/u.test(lower)) prefixTerms.add(lower);
    }
    if (words.length > 1) {
      for (const w of words) if (!STOP_WORDS.has(w) && w.length > 1) terms.add(w);
      terms.add(words.join(''));
    }
    if (terms.size >= maxTerms) break;
  }
  // Decided on the whole query: a question whose common words were dropped is still a question.
  const short = terms.size <= 3;
  for (const t of [...(drop ?? []), ...(options.heads ?? [])]) prefixTerms.delete(t);
  for (const t of drop ?? []) terms.delete(t);
  // Only for short queries (a name being typed), never for sentence-style questions.
  return { terms: [...terms], prefixes: short && terms.size > 0 ? [...prefixTerms] : [] };
}

/**
 * Builds an FTS5 MATCH expression from user text. Every term is quoted, so FTS syntax in the
 * input (`"`, `*`, `NEAR(`, `OR`, `:`, `^`, parentheses) is treated as plain words and can never
 * change the query structure. Terms are joined with OR (any significant term may match; bm25()
 * ranks), identifiers also contribute their split words (`getUserById` → `get`, `user`, `by`,
 * `id`), and identifier-like terms add a prefix match on the name columns. `drop` removes terms
 * (the reader drops the most common ones of a query that would match too many rows).
 */
export function buildFtsQuery(
  text: string,
  options: { maxTerms?: number; drop?: ReadonlySet<string>; heads?: ReadonlySet<string> } = {},
): FtsQuery {
  const { terms, prefixes } = ftsQueryParts(text, options);
  if (terms.length === 0) return { match: null, terms: [] };
  const heads = options.heads;
  const parts = terms.map((t) => (heads?.has(t) ? headsMatch(t) : quote(t)));
  for (const p of prefixes) parts.push(`{name split} : ${quote(p)} *`);
  return { match: parts.join(' OR '), terms: [...terms] };
}
