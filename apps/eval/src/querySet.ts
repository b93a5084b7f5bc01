import type { ChangedLines } from './context.js';
import { readFileSync } from 'node:fs';
import { CaError } from '@ca/schema';

export const ARCHETYPES = ['qualified_name', 'nl_behavioral', 'impact', 'cross_module', 'vague'] as const;
/** What kind of question a query is; metrics are reported per archetype. */
export type Archetype = (typeof ARCHETYPES)[number];

export const SPLITS = ['train', 'holdout'] as const;
export type Split = (typeof SPLITS)[number];

/**
 * One graded judgement. `symbol` is a qualified name (`AuthService.login`) or
 * `path#name` (`src/auth/authService.ts#login`, name simple or qualified). Grade 3 = the symbol
 * that answers, 2 = directly involved, 1 = related, 0 = judged not relevant.
 */
export interface Judgement {
  readonly symbol: string;
  readonly grade: 0 | 1 | 2 | 3;
}

export interface QuerySetHeader {
  /** Repository identifier (`owner/name`) or a path of a local fixture. */
  readonly repo: string;
  readonly commit?: string;
  /** How to obtain the repository at `commit`. */
  readonly fetch?: string;
  readonly language?: 'ts' | 'cs';
  /** Local directory of the repository, relative to the query-set file. */
  readonly path?: string;
  readonly description?: string;
}

export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly archetype: Archetype;
  readonly relevant: readonly Judgement[];
  readonly split: Split;
  readonly label?: string;
  /** Query text names a gold identifier (mined queries); reported with and without. */
  readonly leaky?: boolean;
  /** Symbols (simple or qualified names) that must not appear in the top 3. */
  readonly negative?: { readonly mustNotDominate: readonly string[] };
  /** Commit at which the gold was located (mined queries: the parent of the mined commit). */
  readonly commit?: string;
  /** Where the query came from (`hand`, `mine-git:<sha>`). */
  readonly source?: string;
  /**
   * Mined queries: the lines the commit changed, old side (at `commit`), per file — inclusive
   * ranges, sorted and disjoint; a pure insertion is the line it follows. Sets mined before
   * this was recorded have none: their line recall is not computed.
   */
  readonly changedLines?: readonly ChangedLines[];
}

export interface QuerySet {
  /** File the set was read from (or a label for in-memory sets). */
  readonly file: string;
  readonly header: QuerySetHeader | null;
  readonly queries: readonly EvalQuery[];
}

function fail(file: string, line: number, message: string): never {
  throw new CaError('invalid_query', `${file}:${line}: ${message}`, { context: { path: file, line } });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseHeader(file: string, line: number, raw: unknown): QuerySetHeader {
  if (!isObject(raw)) fail(file, line, '"header" must be an object');
  if (typeof raw['repo'] !== 'string' || raw['repo'] === '') fail(file, line, 'header.repo must be a non-empty string');
  for (const key of ['commit', 'fetch', 'path', 'description'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') fail(file, line, `header.${key} must be a string`);
  }
  if (raw['language'] !== undefined && raw['language'] !== 'ts' && raw['language'] !== 'cs') {
    fail(file, line, `header.language must be "ts" or "cs" (got ${JSON.stringify(raw['language'])})`);
  }
  return raw as unknown as QuerySetHeader;
}

function parseQuery(file: string, line: number, raw: Record<string, unknown>): EvalQuery {
  const id = raw['id'];
  if (typeof id !== 'string' || id === '') fail(file, line, '"id" must be a non-empty string');
  const where = `query "${id}"`;
  if (typeof raw['query'] !== 'string' || raw['query'].trim() === '') fail(file, line, `${where}: "query" must be a non-empty string`);
  const archetype = raw['archetype'];
  if (typeof archetype !== 'string' || !(ARCHETYPES as readonly string[]).includes(archetype)) {
    fail(file, line, `${where}: unknown archetype ${JSON.stringify(archetype)} (expected one of ${ARCHETYPES.join(', ')})`);
  }
  const split = raw['split'] ?? 'train';
  if (typeof split !== 'string' || !(SPLITS as readonly string[]).includes(split)) {
    fail(file, line, `${where}: unknown split ${JSON.stringify(split)} (expected train or holdout)`);
  }
  const relevant = raw['relevant'];
  if (!Array.isArray(relevant)) fail(file, line, `${where}: "relevant" must be an array`);
  const judgements: Judgement[] = relevant.map((j, i) => {
    if (!isObject(j) || typeof j['symbol'] !== 'string' || j['symbol'] === '') {
      fail(file, line, `${where}: relevant[${i}].symbol must be a non-empty string`);
    }
    const grade = j['grade'];
    if (grade !== 0 && grade !== 1 && grade !== 2 && grade !== 3) {
      fail(file, line, `${where}: relevant[${i}].grade must be 0, 1, 2 or 3 (got ${JSON.stringify(grade)})`);
    }
    return { symbol: j['symbol'], grade };
  });
  const negative = raw['negative'];
  if (negative !== undefined) {
    if (!isObject(negative) || !Array.isArray(negative['mustNotDominate']) || !negative['mustNotDominate'].every((s) => typeof s === 'string')) {
      fail(file, line, `${where}: "negative" must be {"mustNotDominate": [names]}`);
    }
  }
  if (judgements.every((j) => j.grade === 0) && negative === undefined) {
    fail(file, line, `${where}: needs at least one judgement with grade > 0 (or a "negative" block)`);
  }
  for (const key of ['label', 'commit', 'source'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') fail(file, line, `${where}: "${key}" must be a string`);
  }
  if (raw['leaky'] !== undefined && typeof raw['leaky'] !== 'boolean') fail(file, line, `${where}: "leaky" must be a boolean`);
  const changedLines = raw['changedLines'] === undefined ? undefined : parseChangedLines(file, line, where, raw['changedLines']);
  return {
    id,
    query: raw['query'],
    archetype: archetype as Archetype,
    relevant: judgements,
    split: split as Split,
    ...(typeof raw['label'] === 'string' ? { label: raw['label'] } : {}),
    ...(typeof raw['leaky'] === 'boolean' ? { leaky: raw['leaky'] } : {}),
    ...(negative !== undefined ? { negative: { mustNotDominate: (negative as { mustNotDominate: string[] }).mustNotDominate } } : {}),
    ...(typeof raw['commit'] === 'string' ? { commit: raw['commit'] } : {}),
    ...(typeof raw['source'] === 'string' ? { source: raw['source'] } : {}),
    ...(changedLines !== undefined ? { changedLines } : {}),
  };
}

/** `changedLines`: `[{"path": "src/a.cs", "lines": [[3, 5], [9, 9]]}, …]`, 1-based inclusive ranges. */
function parseChangedLines(file: string, line: number, where: string, raw: unknown): ChangedLines[] {
  const bad = (what: string): never => fail(file, line, `${where}: "changedLines" ${what}`);
  if (!Array.isArray(raw)) bad('must be an array of {"path", "lines"}');
  return (raw as unknown[]).map((entry, i) => {
    if (!isObject(entry) || typeof entry['path'] !== 'string' || entry['path'] === '') bad(`[${i}].path must be a non-empty string`);
    const e = entry as Record<string, unknown>;
    if (!Array.isArray(e['lines'])) bad(`[${i}].lines must be an array of [from, to] line ranges`);
    const lines = (e['lines'] as unknown[]).map((r, j) => {
      const ok = Array.isArray(r) && r.length === 2 && r.every((x) => Number.isInteger(x) && (x as number) >= 1) && (r[0] as number) <= (r[1] as number);
      if (!ok) bad(`[${i}].lines[${j}] must be [from, to] with 1 ≤ from ≤ to (got ${JSON.stringify(r)})`);
      const [from, to] = r as [number, number];
      return [from, to] as [number, number];
    });
    return { path: e['path'] as string, lines };
  });
}

/**
 * Parses a JSONL query set: an optional first-line `{"header": {...}}`, then one query object per
 * line. Blank lines and lines starting with `//` are ignored. Errors name the file and line.
 */
export function parseQuerySet(text: string, file = '<input>'): QuerySet {
  let header: QuerySetHeader | null = null;
  const queries: EvalQuery[] = [];
  const ids = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('//')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      fail(file, lineNo, `not valid JSON: ${(e as Error).message}`);
    }
    if (!isObject(value)) fail(file, lineNo, 'each line must be a JSON object');
    if ('header' in value) {
      if (header !== null || queries.length > 0) fail(file, lineNo, 'the header must be the first line');
      header = parseHeader(file, lineNo, value['header']);
      continue;
    }
    const q = parseQuery(file, lineNo, value);
    if (ids.has(q.id)) fail(file, lineNo, `duplicate query id "${q.id}"`);
    ids.add(q.id);
    queries.push(q);
  }
  return { file, header, queries };
}

/** Reads and parses a query-set file. */
export function readQuerySet(path: string): QuerySet {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CaError('invalid_path', `cannot read query set ${path}: ${(e as Error).message}`, { cause: e, context: { path } });
  }
  return parseQuerySet(text, path);
}

/** Serialises a query set back to JSONL (header first). */
export function formatQuerySet(header: QuerySetHeader | null, queries: readonly EvalQuery[]): string {
  const lines = header ? [JSON.stringify({ header })] : [];
  for (const q of queries) lines.push(JSON.stringify(q));
  return `${lines.join('\n')}\n`;
}
