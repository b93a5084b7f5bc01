/**
 * Two guards against junk in place of "nothing found" (docs/decisions/026): a similarity floor
 * for results only the vector channel found when no lexical channel matched anything, and
 * per-file diversity so that one huge (generated) file cannot take every slot.
 */
import { CaError } from '@ca/schema';

/**
 * Default floor on the cosine similarity (all-MiniLM-L6-v2 embeddings, −1…1) of results only
 * the vector channel found, applied when no lexical channel (names, BM25, graph) matched.
 */
export const DEFAULT_MIN_SIMILARITY = 0.2;

/** Results one file may hold, at least, before the results of other files are placed first. */
export const MAX_RESULTS_PER_FILE = 3;

/** The per-file cap for `limit` results: half the slots, at least MAX_RESULTS_PER_FILE. */
export function perFileOf(limit: number): number {
  return Math.max(MAX_RESULTS_PER_FILE, Math.ceil(limit / 2));
}

/** The notice of an answer only the vector channel found. */
export const SEMANTIC_ONLY_NOTICE = 'no lexical match: results are only semantically similar';

/** The notice of a query nothing matched lexically whose nearest symbols were all under the floor. */
export function underFloorNotice(minSimilarity: number): string {
  return `no lexical match, and no symbol is similar enough in meaning (cosine < ${minSimilarity}; see --min-similarity)`;
}

/** `minSimilarity` as given, or the default; out of −1…1 is a usage error. */
export function minSimilarityOf(value: number | undefined): number {
  const v = value ?? DEFAULT_MIN_SIMILARITY;
  if (!(v >= -1 && v <= 1)) throw new CaError('invalid_query', `--min-similarity must be a number from -1 to 1 (got ${String(value)})`);
  return v;
}

interface Candidate {
  readonly key: number;
  readonly source: number;
  readonly node: { readonly path: string };
  readonly ranks: Record<string, number>;
  readonly hub: boolean;
}

/**
 * Without a lexical match, the candidates whose cosine reaches `minSimilarity` (the others are
 * `dropped`); with one, all of them. `cosine` holds the vector channel's score per key.
 */
export function similarityFloor<T extends Candidate>(scored: readonly T[], lexical: boolean, cosine: ReadonlyMap<number, number>, minSimilarity: number): { kept: T[]; dropped: number } {
  if (lexical) return { kept: [...scored], dropped: 0 };
  const kept = scored.filter((s) => s.hub || (cosine.get(s.key) ?? -Infinity) >= minSimilarity);
  return { kept, dropped: scored.length - kept.length };
}

/**
 * At most `perFile` candidates of one file first, in score order; a file's further candidates
 * follow all of those, so they fill slots only when other files run out. A file the query names
 * (its path or file name appears in the query) or a search narrowed by path keeps its order.
 */
export function perFileDiversity<T extends Candidate>(scored: readonly T[], query: string, perFile: number, narrowedByPath: boolean): T[] {
  if (narrowedByPath) return [...scored];
  const text = query.toLowerCase();
  const first: T[] = [];
  const later: T[] = [];
  const seen = new Map<string, number>();
  for (const s of scored) {
    const file = `${s.source}\0${s.node.path}`;
    const n = seen.get(file) ?? 0;
    seen.set(file, n + 1);
    if (n < perFile || namesFile(text, s.node.path)) first.push(s);
    else later.push(s);
  }
  return [...first, ...later];
}

/** Whether a file the query does not name holds more than `perFile` of `results`. */
export function crowded(results: readonly { readonly path: string; readonly repo?: string }[], perFile: number, query: string): boolean {
  const text = query.toLowerCase();
  const counts = new Map<string, number>();
  for (const r of results) {
    const file = `${r.repo ?? ''}\0${r.path}`;
    const n = (counts.get(file) ?? 0) + 1;
    counts.set(file, n);
    if (n > perFile && !namesFile(text, r.path)) return true;
  }
  return false;
}

function namesFile(lowerQuery: string, path: string): boolean {
  const p = path.toLowerCase();
  return lowerQuery.includes(p) || lowerQuery.includes(p.slice(p.lastIndexOf('/') + 1));
}
