import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { estimateTokens, type SearchResult } from '@ca/engine';
import { CaError, toCaError } from '@ca/schema';

/**
 * Tokens an answer's text may take by default: well under the 25K-token cut of Claude Code's
 * tool output, leaving room for the JSON overhead and for more than one call in a turn.
 */
export const DEFAULT_ANSWER_TOKENS = 10_000;

/** The page an answer holds of a longer list: where the next call starts, or null when it is all there. */
export interface Page {
  readonly offset: number;
  readonly returned: number;
  readonly total: number;
  readonly nextOffset: number | null;
}

/**
 * The items of `items` from `offset` that fit in `cap` tokens (each item measured by `size`),
 * at least one so that paging always moves on.
 */
export function takePage<T>(items: readonly T[], offset: number, cap: number, size: (item: T) => number): { items: T[]; page: Page } {
  const out: T[] = [];
  let used = 0;
  for (let i = offset; i < items.length; i++) {
    const s = size(items[i]!);
    if (out.length > 0 && used + s > cap) break;
    out.push(items[i]!);
    used += s;
  }
  const next = offset + out.length;
  return { items: out, page: { offset, returned: out.length, total: items.length, nextOffset: next < items.length ? next : null } };
}

/** The sentence an answer carries when its page is not the whole list. */
export function cutNotice(page: Page, cap: number, what: string): string | null {
  if (page.nextOffset === null) return null;
  return `answer cut at about ${cap} tokens: ${page.returned} of ${page.total} ${what} from offset ${page.offset}; call again with offset ${page.nextOffset} for the rest`;
}

/** Tokens of a value as compact JSON (what the text item carries). */
export function jsonTokens(value: unknown): number {
  return estimateTokens(JSON.stringify(value) ?? '');
}

/** A JSON answer: the compact JSON as text (plus a warning item) and the same value as `structuredContent`. */
export function jsonResult(value: object, warning: string | null): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }, ...(warning ? [{ type: 'text' as const, text: `warning: ${warning}` }] : [])],
    structuredContent: value as Record<string, unknown>,
  };
}

/** The JSON a CLI `--json` error prints, as an MCP error result (`extra` adds fields such as candidates). */
export function errorResult(e: unknown, extra: Record<string, unknown> = {}): CallToolResult {
  const err = toCaError(e);
  return { content: [{ type: 'text', text: JSON.stringify({ error: { code: err.code, message: err.message, ...extra } }) }], isError: true };
}

/** A search result with the container its header names. */
export interface ShapedResult extends Omit<SearchResult, 'ranks'> {
  readonly container: string | null;
}

/** `// path:lines > Container > Symbol` then the code: how one search result reads in a content item. */
export function resultText(r: Pick<ShapedResult, 'path' | 'startLine' | 'endLine' | 'container' | 'name' | 'qualifiedName' | 'code'>): string {
  const chain = r.container ? `${r.container} > ${r.name}` : r.qualifiedName;
  return `// ${r.path}:${r.startLine}-${r.endLine} > ${chain}\n${r.code}`;
}

/**
 * A search answer for an agent: a first item saying what was found (and any notice), then one
 * item per result with `annotations.priority` (its score relative to the best, 0-1) and
 * `audience: ["assistant"]`; the full JSON as `structuredContent`.
 */
export function searchResult(summary: string, results: readonly ShapedResult[], structured: object, warning: string | null): CallToolResult {
  const best = results.reduce((m, r) => Math.max(m, r.score), 0);
  return {
    content: [
      { type: 'text', text: summary + (warning ? `\nwarning: ${warning}` : '') },
      ...results.map((r) => ({
        type: 'text' as const,
        text: resultText(r),
        annotations: { audience: ['assistant' as const], priority: best > 0 ? Math.round((r.score / best) * 1000) / 1000 : 0 },
      })),
    ],
    structuredContent: structured as Record<string, unknown>,
  };
}

/** A whole number argument within bounds, or a usage error naming the argument. */
export function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw new CaError('usage', `${name} must be a whole number from ${min} to ${max}`);
  return v;
}
