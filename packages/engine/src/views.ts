/**
 * Views of indexed code: the lines around a search result or a navigation site (`--context`),
 * long lines capped (`--max-line-length`), and `ca view FILE` — a file as the index holds it,
 * whole, by line range or by chunk selector (`id:N`, `id:N-M`, `id:N-end` over the file's
 * symbols in order).
 *
 * Text comes from `IndexedTexts`: the version of the file the label indexed — for the working
 * tree the file on disk while its git blob id is still the recorded content hash, else the copy
 * the index stores (content-addressed, so a label whose commit is not checked out is shown too).
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CaError, decodeFile, type TextEncodingName } from '@ca/schema';
import type { IndexReader, NodeRecord } from '@ca/store';
import type { SearchResult } from '@ca/retrieve';
import type { NavigationEdge, NavigationResult } from './navigation.js';

/** Most context lines on one side (`--context 1000000000` is a mistake, not a request). */
export const MAX_CONTEXT_LINES = 1000;
/** Longest `--max-line-length`. */
export const MAX_LINE_LENGTH_LIMIT = 1_000_000;

/** Lines around a result or a site, and the cap on printed line length. */
export interface ViewOptions {
  /** Lines before the symbol or site (0: none). */
  readonly before?: number;
  /** Lines after it. */
  readonly after?: number;
  /** Lines longer than this are cut, with a marker saying how much was left out. */
  readonly maxLineLength?: number;
}

/** Checks view options: counts are integers from 0 to MAX_CONTEXT_LINES, the line length ≥ 1. */
export function validateViewOptions(options: ViewOptions): void {
  for (const [flag, v] of [
    ['--context-before', options.before],
    ['--context-after', options.after],
  ] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > MAX_CONTEXT_LINES)) {
      throw new CaError('usage', `${flag} must be an integer from 0 to ${MAX_CONTEXT_LINES} (got ${String(v)})`);
    }
  }
  const m = options.maxLineLength;
  if (m !== undefined && (!Number.isInteger(m) || m < 1 || m > MAX_LINE_LENGTH_LIMIT)) {
    throw new CaError('usage', `--max-line-length must be an integer from 1 to ${MAX_LINE_LENGTH_LIMIT} (got ${String(m)})`);
  }
}

/** A line cut to `max` characters with a marker (`… [+120 chars]`); shorter lines unchanged. */
export function capLine(line: string, max: number | undefined): string {
  if (max === undefined || line.length <= max) return line;
  return `${line.slice(0, max)}… [+${line.length - max} chars]`;
}

/** Every line of `text` capped (see `capLine`). */
export function capLines(text: string, max: number | undefined): string {
  if (max === undefined) return text;
  return text
    .split('\n')
    .map((l) => capLine(l, max))
    .join('\n');
}

/** The lines of a text (a final newline ends the last line; it does not start an empty one). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Files of one label as the index holds them, each read once per answer through `read` (the
 * engine's `fileBytes`: for the working tree, the file on disk while it is still the indexed
 * version, else the copy the index stored; for other labels, the stored copy), or null when
 * neither is available.
 */
export class IndexedTexts {
  private readonly bytes = new Map<string, Buffer | null>();
  private readonly lines = new Map<string, string[] | null>();

  constructor(private readonly read: (path: string) => Buffer | null) {}

  /** The indexed bytes of `path` (repo-relative), or null. */
  fileBytes(path: string): Buffer | null {
    let b = this.bytes.get(path);
    if (b === undefined) {
      b = this.read(path);
      this.bytes.set(path, b);
    }
    return b;
  }

  /** The indexed lines of `path`, or null. */
  fileLines(path: string): string[] | null {
    let l = this.lines.get(path);
    if (l === undefined) {
      const b = this.fileBytes(path);
      l = b ? splitLines(decodeFile(b).text) : null;
      this.lines.set(path, l);
    }
    return l;
  }
}

/** Lines around a search result: up to `before` lines above its first line and `after` below its last. */
export interface ResultContext {
  readonly before: readonly string[];
  readonly after: readonly string[];
}

/**
 * Search results with the lines around them (`context`) and long lines capped. A result whose
 * file changed since indexing gets no context; one notice says which files.
 */
export function resultsWithContext(
  results: readonly SearchResult[],
  textsOf: (result: SearchResult) => IndexedTexts,
  options: ViewOptions,
): { results: (SearchResult & { context?: ResultContext })[]; notices: string[] } {
  const before = options.before ?? 0;
  const after = options.after ?? 0;
  const max = options.maxLineLength;
  const stale = new Set<string>();
  const out = results.map((r) => {
    const capped = max === undefined ? r : { ...r, code: capLines(r.code, max) };
    if (before === 0 && after === 0) return capped;
    const lines = textsOf(r).fileLines(r.path);
    if (!lines) {
      stale.add(r.repo ? `${r.repo}:${r.path}` : r.path);
      return capped;
    }
    const context: ResultContext = {
      before: lines.slice(Math.max(0, r.startLine - 1 - before), r.startLine - 1).map((l) => capLine(l, max)),
      after: lines.slice(r.endLine, r.endLine + after).map((l) => capLine(l, max)),
    };
    return { ...capped, context };
  });
  const notices = stale.size > 0 ? [`no context lines for ${[...stale].join(', ')}: changed since indexed and no copy kept (run ca index)`] : [];
  return { results: out, notices };
}

/** A navigation site with the lines around it: `lines` start at `startLine` and include the site's own line. */
export interface SiteContext {
  readonly startLine: number;
  readonly lines: readonly string[];
}

/** A navigation answer whose edges carry the lines around their sites (`context`). */
export function navigationWithContext(
  result: NavigationResult,
  texts: IndexedTexts,
  options: ViewOptions,
): NavigationResult & { edges: readonly (NavigationEdge & { context?: SiteContext })[]; notices?: readonly string[] } {
  const before = options.before ?? 0;
  const after = options.after ?? 0;
  if (before === 0 && after === 0) return result;
  const stale = new Set<string>();
  const edges = result.edges.map((e) => {
    const lines = texts.fileLines(e.path);
    if (!lines || e.line < 1 || e.line > lines.length) {
      if (!lines) stale.add(e.path);
      return e;
    }
    const start = Math.max(1, e.line - before);
    const context: SiteContext = { startLine: start, lines: lines.slice(start - 1, e.line + after).map((l) => capLine(l, options.maxLineLength)) };
    return { ...e, context };
  });
  return { ...result, edges, ...(stale.size > 0 ? { notices: [`no context lines for ${[...stale].join(', ')}: changed since indexed and no copy kept (run ca index)`] } : {}) };
}

/** One symbol of a file as `ca view` numbers it (`id:N`). */
export interface ViewChunk {
  readonly id: number;
  readonly symbolId: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly startLine: number;
  readonly endLine: number;
}

/** A file, or part of it, as the index holds it. */
export interface FileView {
  readonly path: string;
  /** Git blob id of the indexed content. */
  readonly contentHash: string;
  /**
   * How the file's bytes encode `text` (decision 025): `encodeText(text, encoding)` gives the
   * file's bytes back (the whole file) or those of the selected lines.
   */
  readonly encoding: TextEncodingName;
  readonly totalLines: number;
  /** The lines shown (1-based, inclusive); the whole file unless a range or selector was given. */
  readonly startLine: number;
  readonly endLine: number;
  /** The text shown: the file byte for byte when whole, else the selected lines, each ending in a newline. */
  readonly text: string;
  /** The file's symbols in order, numbered for `id:` selectors. */
  readonly chunks: readonly ViewChunk[];
}

/** What part of a file to show: a line range (`--lines A-B`) or a chunk selector (`id:N`, `id:N-M`, `id:N-end`). */
export interface ViewSelection {
  readonly lines?: string;
  readonly selector?: string;
}

/** A repository-relative POSIX path for a user-given one; outside the repository is `invalid_path`. */
function viewPathOf(repoRoot: string, path: string): string {
  if (path.trim() === '') throw new CaError('usage', 'a FILE path is required');
  const abs = isAbsolute(path) ? resolve(path) : resolve(repoRoot, path);
  const rel = relative(resolve(repoRoot), abs);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new CaError('invalid_path', `${path} is outside the repository ${repoRoot}`, { context: { path } });
  }
  return rel.split(sep).join('/');
}

/** The symbols `id:` selectors number: every node of the file but the file or module node itself, in source order. */
export function viewChunks(outline: readonly NodeRecord[]): ViewChunk[] {
  return outline
    .filter((n) => n.kind !== 'file' && n.kind !== 'module')
    .map((n, i) => ({ id: i + 1, symbolId: String(n.id), qualifiedName: n.qualifiedName, kind: n.kind, startLine: n.startLine, endLine: n.endLine }));
}

/** `N`, `N-M` or `N-end` within 1..count; `label` names the argument in errors (`--lines 9-3`, `id:12`). */
function parseRange(raw: string, label: string, count: number, unit: string): { from: number; to: number } {
  const m = /^(\d+)(?:-(\d+|end))?$/.exec(raw.trim());
  if (!m) throw new CaError('usage', `${label}: expected N, N-M or N-end`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : m[2] === 'end' ? count : Number(m[2]);
  const has = `the file has ${count} ${unit}${count === 1 ? '' : 's'}${count > 0 ? `: 1-${count}` : ''}`;
  if (from < 1 || from > count) throw new CaError('usage', `${label}: ${unit} ${from} is out of range (${has})`);
  if (to < from) throw new CaError('usage', `${label}: the range ends before it starts`);
  if (to > count) throw new CaError('usage', `${label}: ${unit} ${to} is out of range (${has})`);
  return { from, to };
}

/**
 * A file as the index holds it: whole, or the lines of `--lines A-B`, or the span of symbols
 * `id:N` … `id:M` (from the first one's first line to the furthest last line among them).
 * Fails with `invalid_path` (usage) when the path is outside the repository or not in the
 * index, `usage` for a bad or out-of-range selection, and `io_error` when the indexed version
 * is available neither on disk nor as a stored copy.
 */
export function viewFile(repoRoot: string, reader: IndexReader, texts: IndexedTexts, path: string, selection: ViewSelection = {}): FileView {
  const rel = viewPathOf(repoRoot, path);
  const file = reader.indexedFile(rel);
  if (!file) throw new CaError('invalid_path', `${rel} is not in the index (not a file of the repository, or excluded from indexing)`, { context: { path: rel } });
  if (selection.lines !== undefined && selection.selector !== undefined) throw new CaError('usage', 'give either --lines or an id: selector, not both');
  const bytes = texts.fileBytes(rel);
  if (!bytes && file.parseStatus === 'skipped') {
    // A skipped path (a symlink out of the repository, a FIFO, an oversized file) was never read:
    // there is no indexed text to show, and the path is the caller's to fix, not an I/O failure.
    throw new CaError('invalid_path', `${rel} was skipped when indexed (ca status lists the reason): the index holds no text of it`, { context: { path: rel } });
  }
  if (!bytes) {
    throw new CaError('io_error', `${rel} changed since it was indexed and the index kept no copy of that version (over the size cap, indexed by an older ca, or imported without contents); run ca index`, {
      context: { path: rel },
    });
  }
  const { text, encoding } = decodeFile(bytes);
  const lines = splitLines(text);
  const total = text === '' ? 0 : lines.length;
  const chunks = viewChunks(reader.outline(rel));
  let from = 1;
  let to = total;
  if (selection.lines !== undefined) {
    ({ from, to } = parseRange(selection.lines, `--lines ${selection.lines}`, total, 'line'));
  } else if (selection.selector !== undefined) {
    const m = /^id:(.*)$/.exec(selection.selector.trim());
    if (!m) throw new CaError('usage', `a selector is id:N, id:N-M or id:N-end (got "${selection.selector}")`);
    const range = parseRange(m[1]!, `id:${m[1]!}`, chunks.length, 'symbol');
    const picked = chunks.slice(range.from - 1, range.to);
    from = picked[0]!.startLine;
    to = Math.max(...picked.map((c) => c.endLine));
  } else {
    return { path: rel, contentHash: file.contentHash, encoding, totalLines: total, startLine: total === 0 ? 0 : 1, endLine: total, text, chunks };
  }
  const shown = lines.slice(from - 1, to).map((l) => `${l}\n`).join('');
  return { path: rel, contentHash: file.contentHash, encoding, totalLines: total, startLine: from, endLine: to, text: shown, chunks };
}
