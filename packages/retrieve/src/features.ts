import { CALLABLE_KINDS, projectDisplayName, splitIdentifier, TYPE_KINDS } from '@ca/schema';
import type { NodeRecord } from '@ca/store';
import { isTestPath } from './testCode.js';

/**
 * The features of one candidate of the rerank stage (the learned ranker, decision 043), in the
 * order of `FEATURE_NAMES`. Every feature is a plain number so that a linear model and the
 * training dump (`ca eval run --features-out`) share one vector.
 */
export const FEATURE_NAMES = [
  'rrf', // the fused RRF score × 60 (one channel's first place ≈ 1)
  'name_rr', // 1 / rank in each channel (0 when the channel did not return it)
  'bm25_rr',
  'vector_rr',
  'graph_rr',
  'bm25_rel', // BM25 score relative to the best BM25 candidate (0–1)
  'cosine', // cosine similarity to the query (0 when the vector channel did not return it)
  'exact_qname', // the query names its qualified name exactly
  'named', // the query names its simple name
  'name_cover', // share of the name's words found in the query (exact words)
  'query_cover', // share of the query's content words found in the name
  'stem_cover', // share of the name's words whose stem is a query word's stem
  'fuzzy_cover', // share of the name's words within one edit of a query word (5+ letters)
  'qname_cover', // share of the container's (qualified name minus name) words found in the query
  'path_cover', // share of the file name's words found in the query
  'package_cover', // share of the package's words found in the query
  'doc_cover', // share of the query's content words (stems) in the doc comment
  'body_cover', // share of the query's content words (stems) in the code (signature, body)
  'is_type',
  'is_callable',
  'is_file',
  'log_lines',
  'public_api',
  'log_caller_files',
  'is_test', // test code and the query is not about tests
  'is_test_about_tests', // test code and the query is about tests
  'generated',
  'syntactic_only',
  'hub',
  'file_hits', // log(1 + other candidates in the same file)
  'parent_in_top', // its parent is a candidate too
  'children_in_top', // log(1 + its children among the candidates)
  'no_identifier', // the query names no identifier
  'vector_rr_no_ident', // vector_rr on a query without identifiers (words only)
  'bm25_rr_long', // bm25_rr on a long query (10+ words)
  'hand_rr', // 1 / rank in the hand ranking (fusion, rescoring, hub elevation), the stage's input order
  'short_query', // the query has at most three content words (a name, a topic: "payments", "date helpers")
  'hand_rr_short', // hand_rr on a short query
  'is_type_short', // a type on a short query
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/** The query as the features see it. */
export interface FeatureQuery {
  /** Lower-case content words of the query (identifiers split, stop words out). */
  readonly words: readonly string[];
  /** The stems of `words`. */
  readonly stems: ReadonlySet<string>;
  readonly wordSet: ReadonlySet<string>;
  /** Per word, what a text must contain to match it: its stem (the word when the stem is shorter than 3). */
  readonly keys: readonly string[];
  readonly hasIdentifiers: boolean;
  readonly long: boolean;
  /** At most `SHORT_QUERY_WORDS` content words. */
  readonly short: boolean;
  readonly aboutTests: boolean;
}

/** A query of at most this many content words is short: a name or a topic rather than a sentence. */
export const SHORT_QUERY_WORDS = 3;

/** One candidate of the rerank stage, with what the pipeline knows of it. */
export interface FeatureCandidate {
  readonly key: number;
  readonly node: NodeRecord;
  /** The fused (RRF) score before any adjustment. */
  readonly fused: number;
  /** Channel → 1-based rank. */
  readonly ranks: Readonly<Record<string, number>>;
  readonly exact: boolean;
  readonly named: boolean;
  readonly hub: boolean;
  readonly callerFiles: number;
  /** Test code (a test path or a test project's node, decision 051); absent: judged by path. */
  readonly test?: boolean;
}

/** Per-candidate channel scores and the candidates' shared facts (same-file counts, parents). */
export interface FeatureContext {
  readonly bm25: ReadonlyMap<number, number>;
  readonly cosine: ReadonlyMap<number, number>;
}

const STOP_WORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in into is it its not of on or so that the their then there these this to was we were what when where which while who why will with without you add added adds fix fixed fixes use used uses support should make'.split(' '),
);

/** Suffix rules of `stem`, tried in order (the first that applies wins). */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ['sses', 'ss'],
  ['ations', 'at'],
  ['ation', 'at'],
  ['ators', 'at'],
  ['ator', 'at'],
  ['ings', ''],
  ['ing', ''],
  ['ions', ''],
  ['ion', ''],
  ['ers', ''],
  ['er', ''],
  ['ies', 'y'],
  ['ied', 'y'],
  ['es', ''],
  ['ed', ''],
  ['ly', ''],
  ['s', ''],
];

/**
 * A light suffix stemmer (plurals, -ing, -ed, -er, -ion, -ation, -ator, a final e): enough to
 * meet "validate", "validation" and "validators" at "validat"; not Porter, which the BM25
 * channel already applies to the text. A stem keeps at least three letters; "-ss" is no plural.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  for (const [suffix, replacement] of SUFFIXES) {
    if (!w.endsWith(suffix) || w.length - suffix.length < 3) continue;
    if (suffix === 's' && w.endsWith('ss')) break;
    w = w.slice(0, w.length - suffix.length) + replacement;
    break;
  }
  return w.length > 3 ? w.replace(/e$/, '') : w;
}

/** The query's content words: every token split as an identifier, lower case, stop words out, in first-seen order. */
export function featureQuery(text: string, hasIdentifiers: boolean, aboutTests: boolean): FeatureQuery {
  const tokens = text.match(/[A-Za-z_$][\w$]*/g) ?? [];
  const words: string[] = [];
  const seen = new Set<string>();
  for (const t of tokens) {
    for (const w of splitIdentifier(t)) {
      if (w.length < 2 || STOP_WORDS.has(w) || /^\d+$/.test(w) || seen.has(w)) continue;
      seen.add(w);
      words.push(w);
    }
  }
  const keys = words.map((w) => (stem(w).length >= 3 ? stem(w) : w));
  return { words, wordSet: seen, keys, stems: new Set(words.map(stem)), hasIdentifiers, long: text.trim().split(/\s+/).length >= 10, short: words.length <= SHORT_QUERY_WORDS, aboutTests };
}

/** True when `a` and `b` are within one edit (insert, delete, substitute). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Share of `words` that `test` accepts (0 for no words). */
function share(words: readonly string[], test: (w: string) => boolean): number {
  if (words.length === 0) return 0;
  let n = 0;
  for (const w of words) if (test(w)) n++;
  return n / words.length;
}

/** Distinct words of an identifier-bearing text (split as identifiers). */
function wordsOf(text: string): string[] {
  const out = new Set<string>();
  for (const t of text.match(/[A-Za-z_$][\w$]*/g) ?? []) for (const w of splitIdentifier(t)) if (w.length >= 2) out.add(w);
  return [...out];
}

/** The qualified name's container part (`A.B.c` → `A.B`), empty at top level. */
function containerOf(node: NodeRecord): string {
  const q = node.qualifiedName;
  return q.endsWith(node.name) ? q.slice(0, q.length - node.name.length) : q;
}

function fileNameOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.indexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

const rr = (rank: number | undefined): number => (rank === undefined ? 0 : 1 / rank);

/** Name-match features of one candidate: exact, split, stemmed and fuzzy word matches. */
function nameFeatures(node: NodeRecord, q: FeatureQuery): number[] {
  const nameWords = splitIdentifier(node.name).filter((w) => w.length >= 2);
  const nameSet = new Set(nameWords);
  return [
    share(nameWords, (w) => q.wordSet.has(w)),
    share(q.words, (w) => nameSet.has(w)),
    share(nameWords, (w) => q.stems.has(stem(w))),
    share(nameWords, (w) => w.length >= 5 && q.words.some((x) => x.length >= 5 && withinOneEdit(w, x))),
    share(wordsOf(containerOf(node)), (w) => q.wordSet.has(w) || q.stems.has(stem(w))),
    share(wordsOf(fileNameOf(node.path)), (w) => q.wordSet.has(w) || q.stems.has(stem(w))),
    share(wordsOf(projectDisplayName(node.project) ?? ''), (w) => q.wordSet.has(w)),
  ];
}

/**
 * Share of the query's content words whose stem occurs in a text (a substring, case-folded: a
 * stem inside an identifier counts, `validat` in `UserValidator`). A substring test rather than
 * splitting the text into words keeps bodies of any size cheap.
 */
function textCover(text: string | null, q: FeatureQuery): number {
  if (!text || q.words.length === 0) return 0;
  const lower = text.toLowerCase();
  return share(q.keys, (k) => lower.includes(k));
}

/**
 * The feature vectors of the candidates (in their order), `FEATURE_NAMES` order each. File and
 * neighbourhood features count among `candidates` themselves: the rerank stage's top N, given in
 * the hand ranking's order (`hand_rr` is the position in it).
 */
export function extractFeatures(candidates: readonly FeatureCandidate[], q: FeatureQuery, ctx: FeatureContext): number[][] {
  const perFile = new Map<string, number>();
  const ids = new Set<number>();
  const children = new Map<number, number>();
  for (const c of candidates) {
    perFile.set(c.node.path, (perFile.get(c.node.path) ?? 0) + 1);
    ids.add(c.node.id);
    if (c.node.parentId !== null) children.set(c.node.parentId, (children.get(c.node.parentId) ?? 0) + 1);
  }
  let bestBm25 = 0;
  for (const c of candidates) bestBm25 = Math.max(bestBm25, ctx.bm25.get(c.key) ?? 0);
  return candidates.map((c, position) => {
    const n = c.node;
    const handRr = 1 / (position + 1);
    const isType = TYPE_KINDS.has(n.kind) ? 1 : 0;
    const test = c.test ?? isTestPath(n.path);
    const vectorRr = rr(c.ranks['vector']);
    const bm25Rr = rr(c.ranks['bm25']);
    return [
      c.fused * 60,
      rr(c.ranks['name']),
      bm25Rr,
      vectorRr,
      rr(c.ranks['graph']),
      bestBm25 > 0 ? (ctx.bm25.get(c.key) ?? 0) / bestBm25 : 0,
      ctx.cosine.get(c.key) ?? 0,
      c.exact ? 1 : 0,
      c.named ? 1 : 0,
      ...nameFeatures(n, q),
      textCover(n.doc, q),
      textCover(n.chunkText, q),
      isType,
      CALLABLE_KINDS.has(n.kind) ? 1 : 0,
      n.kind === 'file' || n.kind === 'module' ? 1 : 0,
      Math.log1p(Math.max(0, n.endLine - n.startLine + 1)),
      n.isPublicApi ? 1 : 0,
      Math.log1p(c.callerFiles),
      test && !q.aboutTests ? 1 : 0,
      test && q.aboutTests ? 1 : 0,
      n.generated ? 1 : 0,
      n.semanticState !== 'ok' ? 1 : 0,
      c.hub ? 1 : 0,
      Math.log1p((perFile.get(n.path) ?? 1) - 1),
      n.parentId !== null && ids.has(n.parentId) ? 1 : 0,
      Math.log1p(children.get(n.id) ?? 0),
      q.hasIdentifiers ? 0 : 1,
      q.hasIdentifiers ? 0 : vectorRr,
      q.long ? bm25Rr : 0,
      handRr,
      q.short ? 1 : 0,
      q.short ? handRr : 0,
      q.short ? isType : 0,
    ];
  });
}
