import { splitIdentifier } from '@ca/schema';

export type Intent = 'targeted' | 'cross_cutting' | 'exploratory';

export interface AnalyzedQuery {
  readonly text: string;
  /** Identifier-like terms: camelCase, PascalCase, snake_case, dotted or `::` qualified names. */
  readonly identifiers: readonly string[];
  /** Terms that look like file paths (`src/auth/service.ts`, `Foo.cs`). */
  readonly paths: readonly string[];
  /** Phrases the user quoted. */
  readonly phrases: readonly string[];
  readonly intent: Intent;
  /** True when the query asks about tests (tests are then not ranked down). */
  readonly aboutTests: boolean;
  /**
   * True when the query asks for what depends on a named symbol ("callers of issueToken",
   * "what breaks if TokenStore.save changes", "who uses toValidURL"): search then also follows
   * the graph from that symbol.
   */
  readonly asksDependents: boolean;
}

const QUANTIFIERS = /\b(all|every|each|across|everywhere|any(?:\s+place)?|whole)\b/i;
const PATH_LIKE = /(?:^|\s)((?:[\w.-]+\/)+[\w.-]+|[\w-]+\.(?:tsx?|jsx?|mts|cts|mjs|cjs|cs|csproj|json))(?=\s|$)/g;
const TOKEN = /[A-Za-z_$@][\w$@]*(?:(?:\.|::)[A-Za-z_$@][\w$@]*)*/g;
const TEMPORAL =
  /\b(?:every|each|any|all)\s+(?:other\s+|single\s+)?(?:times?|moments?|seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|morning|evening|tick|frame|run|request|call)\b/gi;
const DEPENDENT_WORDS =
  /\b(callers?|call(?:ed|s)?\s+by|who\s+(?:calls?|uses?|references?)|used\s+by|uses\s+of|usages?|depends?\s+on|dependents?|breaks?|broken|affected|affects?|impact(?:ed|s)?|references?\s+to|implementations?|implementers?|implement(?:s|ing)?|subclass(?:es)?|overrides?|consumers?\s+of)\b/i;
const TEST_WORDS = /\b(tests?|specs?|unit tests?|fixtures?|mocks?|testing)\b/i;
/** Sentence ends: `. ` / `! ` / `? `, a line break, a ` * ` list item (commit-message bodies). */
const SENTENCE_END = /(?<=[.!?])\s+|\n|\s\*\s/;

/**
 * Whether a question is about tests: its subject (the first sentence, a commit-style text's
 * title) or a sentence that asks something names tests. A test word further on ("Fix X. Add a
 * test for it.") is a detail of a question about the product code: decision 043 measured that
 * on the mined train and dev sets, this rule flags 61 queries where a test word anywhere flagged
 * 196, and still flags the same 8 of the 26 whose changed symbols include test code.
 */
export function asksAboutTests(text: string): boolean {
  const sentences = text.trim().split(SENTENCE_END);
  return TEST_WORDS.test(sentences[0] ?? '') || sentences.some((s) => s.trimEnd().endsWith('?') && TEST_WORDS.test(s));
}
/** `GET /api/orders/{id}`: an HTTP endpoint's name (decision 037), looked up as a whole. */
const ROUTE = /^\s*(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|ANY)\s+(\/\S*)\s*$/i;

/** True for a term that is clearly an identifier rather than an English word. */
export function isIdentifierLike(term: string): boolean {
  if (/[._$@]|::/.test(term.replace(/\.$/, ''))) return true;
  if (/[a-z][A-Z]|[A-Z]{2,}[a-z]/.test(term)) return true; // camelCase / PascalCase with 2+ parts
  return splitIdentifier(term).length > 1 && /[A-Z]/.test(term.slice(1));
}

/**
 * Extracts identifiers, paths, quoted phrases and the intent from a query. A query that is a
 * single identifier or names identifiers/paths is `targeted`; one with quantifiers ("all",
 * "every", "across") is `cross_cutting`; anything else (a question in words) `exploratory`.
 */
export function analyzeQuery(text: string): AnalyzedQuery {
  const phrases = [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
  const paths = [...text.matchAll(PATH_LIKE)].map((m) => m[1]!);
  const tokens = [...text.matchAll(TOKEN)].map((m) => m[0]);
  const identifiers = [...new Set(tokens.filter(isIdentifierLike))];
  const route = ROUTE.exec(text);
  // An endpoint is named by method and route: the name channel finds it by that exact name.
  if (route) identifiers.unshift(`${route[1]!.toUpperCase()} ${route[2]!.replace(/(.)\/$/, '$1')}`);
  const words = text.trim().split(/\s+/).filter(Boolean);
  // A lone word ("terminatePlan", "Button") is treated as a name too.
  if (words.length === 1 && tokens.length === 1 && !identifiers.includes(tokens[0]!)) identifiers.push(tokens[0]!);
  let intent: Intent;
  // "every month", "each time", "any second": a frequency, not a sweep over the code.
  if (QUANTIFIERS.test(text.replace(TEMPORAL, ' '))) intent = 'cross_cutting';
  else if (identifiers.length > 0 || paths.length > 0) intent = 'targeted';
  else intent = 'exploratory';
  return { text, identifiers, paths, phrases, intent, aboutTests: asksAboutTests(text), asksDependents: identifiers.length > 0 && DEPENDENT_WORDS.test(text) };
}
