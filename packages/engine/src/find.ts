/**
 * Filter-only queries (`ca find EXPR`, the spec's `filter_nodes`): every symbol of the index a
 * filter expression selects, in a stable order (path, then position in the file), one page at a
 * time by `offset` or by an opaque `cursor` that stays valid while the index changes.
 */
import { CaError, DOC_KINDS, filterTerms, formatFilter, parseFilter, projectDisplayName, type FilterNode } from '@ca/schema';
import { FIND_MAX_LIMIT, type FindCursor, type IndexReader } from '@ca/store';
import { toSymbolView, type SymbolView } from './symbolView.js';

export interface FindOptions {
  /** Results per page (default 50, at most 1,000). */
  readonly limit?: number;
  /** Results to skip (default 0). */
  readonly offset?: number;
  /** Continue after the page that returned this `nextCursor`. */
  readonly cursor?: string;
}

/** One symbol of a `find` answer: its view plus the package breadcrumb. */
export interface FindResult extends SymbolView {
  readonly package: string | null;
}

/** The `ca find --json` answer. */
export interface FindResponse {
  /** The filter as parsed (canonical form). */
  readonly filter: string;
  /** Symbols matching, all pages together. */
  readonly total: number;
  readonly offset: number;
  readonly results: readonly FindResult[];
  /** Pass as `cursor` for the next page; null on the last one. */
  readonly nextCursor: string | null;
  readonly notices: readonly string[];
}

export const FIND_DEFAULT_LIMIT = 50;

function encodeCursor(c: FindCursor): string {
  return Buffer.from(JSON.stringify([c.path, c.startByte, c.id])).toString('base64url');
}

function decodeCursor(raw: string): FindCursor {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 3 && typeof v[0] === 'string' && Number.isInteger(v[1]) && Number.isInteger(v[2])) {
      return { path: v[0], startByte: v[1] as number, id: v[2] as number };
    }
  } catch (e) {
    throw new CaError('usage', `invalid --cursor "${raw}": pass the nextCursor of a previous answer`, { cause: e });
  }
  throw new CaError('usage', `invalid --cursor "${raw}": pass the nextCursor of a previous answer`);
}

/**
 * The symbols a filter selects. File and module nodes are left out unless the filter asks for
 * them (`kind:file`, `kind:module`): "all public methods returning X" means symbols. So are the
 * nodes of documentation files unless it names `kind:doc` or `kind:config`.
 */
export function findSymbols(reader: IndexReader, expression: string | FilterNode, options: FindOptions = {}): FindResponse {
  const filter = typeof expression === 'string' ? parseFilter(expression) : expression;
  const limit = options.limit ?? FIND_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > FIND_MAX_LIMIT) throw new CaError('usage', `--limit must be an integer from 1 to ${FIND_MAX_LIMIT} (got ${String(options.limit)})`);
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new CaError('usage', `--offset must be a non-negative integer (got ${String(options.offset)})`);
  if (options.cursor !== undefined && options.offset !== undefined) throw new CaError('usage', 'give --cursor or --offset, not both');
  const after = options.cursor !== undefined ? decodeCursor(options.cursor) : null;
  const wantsFiles = filterTerms(filter).some((t) => t.field === 'kind' && (t.value === 'file' || t.value === 'module'));
  // Sections and keys (and the files holding them) are listed when the filter names their kinds,
  // as search brings them in (decision 039).
  const wantsDocs = filterTerms(filter).some((t) => t.field === 'kind' && (DOC_KINDS as readonly string[]).includes(t.value));
  const nodeFilter = { expression: filter, ...(wantsFiles ? {} : { symbolsOnly: true }), ...(wantsDocs ? {} : { codeOnly: true }) };
  const page = reader.find(nodeFilter, { limit, offset, after });
  return {
    filter: formatFilter(filter),
    total: page.total,
    offset,
    results: page.nodes.map((n) => ({ ...toSymbolView(n), package: projectDisplayName(n.project) })),
    nextCursor: page.next ? encodeCursor(page.next) : null,
    notices: reader.filterNotices(nodeFilter),
  };
}
