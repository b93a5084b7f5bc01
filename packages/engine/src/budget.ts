/**
 * One answer budget for every MCP tool and CLI navigation command: an answer is a head (the
 * fields every page repeats) and a sequence of units (nodes, edges, results, entries, lines …);
 * a page holds the units from an offset that fit the cap when the page is rendered exactly as it
 * is returned — head, units, JSON structure, the notice itself — and says what it left out.
 * Pages partition the units: reading every page from offset 0 to the last yields each unit once.
 */
import { CaError } from '@ca/schema';
import { estimateTokens } from '@ca/retrieve';

/** Where a page sits in its answer's units. */
export interface BudgetPage {
  /** First unit on the page. */
  readonly offset: number;
  /** Units on the page. */
  readonly returned: number;
  /** Units of the whole (uncut) answer. */
  readonly total: number;
  /** Where the next page starts, or null when this page reaches the end. */
  readonly nextOffset: number | null;
}

/** Tokens of an answer's text items (each counted on its own, as a client receives them). */
export function answerTokens(texts: readonly string[]): number {
  return texts.reduce((sum, t) => sum + estimateTokens(t), 0);
}

/**
 * What a cut page holds, per kind of unit (`kinds(u)` names the kinds one unit adds to, e.g.
 * `['nodes']`), against the whole answer: "kept 80 of 400 nodes and 120 of 950 edges".
 */
export function keptCounts<U>(all: readonly U[], page: BudgetPage, kinds: (u: U) => readonly string[]): string {
  const total = new Map<string, number>();
  const kept = new Map<string, number>();
  all.forEach((u, i) => {
    const inPage = i >= page.offset && i < page.offset + page.returned;
    for (const k of kinds(u)) {
      total.set(k, (total.get(k) ?? 0) + 1);
      if (inPage) kept.set(k, (kept.get(k) ?? 0) + 1);
    }
  });
  return [...total].map(([k, n]) => `${kept.get(k) ?? 0} of ${n} ${k}`).join(' and ');
}

/** The sentence a cut page carries: what it kept of what, and the offset of the next page. */
export function budgetNotice(cap: number, counts: string, page: BudgetPage, continuation: (next: number) => string = offsetContinuation): string | null {
  if (page.nextOffset === null) return null;
  return `answer cut at ${cap} tokens: kept ${counts} (from offset ${page.offset}); ${continuation(page.nextOffset)}`;
}

/** How a cut page says where the next one starts, for answers paged by `offset`. */
export function offsetContinuation(next: number): string {
  return `call again with offset ${next} for the next page`;
}

/** A budgeted answer: its units, the page to return, and how a page renders. */
export interface BudgetSpec<U, R> {
  readonly units: readonly U[];
  readonly offset: number;
  /** Token cap of the rendered page. */
  readonly cap: number;
  /** The kinds of unit each unit counts as, for the notice (default: `items`). */
  readonly kinds?: (u: U) => readonly string[];
  /** How the notice says where the next page starts (default: `call again with offset N for the next page`). */
  readonly continuation?: (next: number) => string;
  /** The page as returned: `units` are the page's units, `notice` the cut sentence (null when whole). */
  readonly render: (units: readonly U[], page: BudgetPage, notice: string | null) => R;
  /** The exact text items the client receives for a rendered page. */
  readonly texts: (rendered: R) => readonly string[];
}

/** A page within the budget. */
export interface BudgetedAnswer<R> {
  readonly rendered: R;
  readonly page: BudgetPage;
  readonly notice: string | null;
  /** Tokens of the rendered page's text. */
  readonly tokens: number;
}

/**
 * The largest page from `spec.offset` whose rendered text fits the cap (searched by doubling,
 * then halving; every candidate is rendered and measured, so the cap holds for what is returned,
 * not for an estimate of its parts). A first unit that alone is over the cap has its longest
 * strings cut (marked `… [cut N chars]`) so that paging always moves on; a head that alone is
 * over the cap is a `usage` error naming the cap.
 */
export function budgetAnswer<U, R>(spec: BudgetSpec<U, R>): BudgetedAnswer<R> {
  const { units, cap } = spec;
  const total = units.length;
  const offset = Math.min(Math.max(0, spec.offset), total);
  const kinds = spec.kinds ?? (() => ['items']);
  const attempt = (end: number, list: readonly U[] = units.slice(offset, end)): BudgetedAnswer<R> => {
    const page: BudgetPage = { offset, returned: end - offset, total, nextOffset: end < total ? end : null };
    const notice = budgetNotice(cap, keptCounts(units, page, kinds), page, spec.continuation);
    const rendered = spec.render(list, page, notice);
    return { rendered, page, notice, tokens: answerTokens(spec.texts(rendered)) };
  };
  const whole = attempt(total);
  if (whole.tokens <= cap) return whole;
  const empty = attempt(offset);
  if (empty.tokens > cap && offset < total) {
    // Even without units the page is over: only a shortened first unit can make paging move on.
    return shortenedFirst(spec, offset, attempt) ?? tooLarge(cap, empty.tokens);
  }
  if (offset === total) return empty.tokens <= cap ? empty : tooLarge(cap, empty.tokens);
  // Doubling from one unit finds a bound past the largest fitting page, halving finds the page.
  let good = empty;
  let lo = offset;
  let hi = total;
  for (let step = 1; offset + step < total; step *= 2) {
    const a = attempt(offset + step);
    if (a.tokens > cap) {
      hi = offset + step;
      break;
    }
    good = a;
    lo = offset + step;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const a = attempt(mid);
    if (a.tokens <= cap) {
      good = a;
      lo = mid;
    } else hi = mid;
  }
  if (good.page.returned > 0) return good;
  return shortenedFirst(spec, offset, attempt) ?? tooLarge(cap, attempt(offset + 1).tokens);
}

function tooLarge(cap: number, tokens: number): never {
  throw new CaError('usage', `the answer needs about ${tokens} tokens even for its first item, over the answer cap of ${cap} tokens; raise the cap (--max-answer-tokens, --max-tokens)`);
}

/** The page with only the first unit, its longest strings cut until the page fits; null when it cannot. */
function shortenedFirst<U, R>(spec: BudgetSpec<U, R>, offset: number, attempt: (end: number, list?: readonly U[]) => BudgetedAnswer<R>): BudgetedAnswer<R> | null {
  let unit = spec.units[offset]!;
  for (let round = 0; round < 64; round++) {
    const a = attempt(offset + 1, [unit]);
    if (a.tokens <= spec.cap) return a;
    const next = cutLongestString(unit, Math.ceil((a.tokens - spec.cap) * 3.5) + 64);
    if (next === null) return null;
    unit = next;
  }
  return null;
}

/** Marker that ends a string the budget cut. */
const cutMarker = (n: number) => `… [cut ${n} chars]`;
/** Strings shorter than this are not worth cutting (the marker would take most of it). */
const MIN_CUT_STRING = 80;

/**
 * A copy of `value` whose longest string is cut by about `chars` characters (at least half of
 * it), with a marker saying how much was cut; null when no string is long enough to cut.
 */
export function cutLongestString<T>(value: T, chars: number): T | null {
  let longest: { length: number; path: (string | number)[] } | null = null;
  const visit = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === 'string') {
      if (v.length >= MIN_CUT_STRING && (longest === null || v.length > longest.length)) longest = { length: v.length, path };
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, [...path, k]);
  };
  visit(value, []);
  const target = longest as { length: number; path: (string | number)[] } | null;
  if (target === null) return null;
  const keep = Math.max(0, Math.min(Math.floor(target.length / 2), target.length - chars));
  const replace = (v: unknown, depth: number): unknown => {
    if (depth === target.path.length) {
      const s = v as string;
      return s.slice(0, keep) + cutMarker(s.length - keep);
    }
    const key = target.path[depth]!;
    if (Array.isArray(v)) return v.map((x, i) => (i === key ? replace(x, depth + 1) : x));
    const o = v as Record<string, unknown>;
    return { ...o, [key]: replace(o[key as string], depth + 1) };
  };
  return replace(value, 0) as T;
}
