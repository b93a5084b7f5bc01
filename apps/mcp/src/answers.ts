import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { budgetAnswer, estimateTokens, type BudgetPage, type SearchResult } from '@ca/engine';
import { CaError, toCaError } from '@ca/schema';

/**
 * Tokens an answer's text may take by default: well under the 25K-token cut of Claude Code's
 * tool output, leaving room for the JSON overhead and for more than one call in a turn.
 */
export const DEFAULT_ANSWER_TOKENS = 10_000;

/** Options of a budgeted page: what its units count as, and how its notice says where to go on. */
export interface PageOptions<U> {
  readonly kinds?: (u: U) => readonly string[];
  readonly continuation?: (next: number) => string;
}

/** An answer already rendered within the budget (`answer` returns it as it is). */
export class Budgeted {
  constructor(readonly result: CallToolResult) {}
}

/**
 * The answer budget of one call: the token cap and the refresh warning the answer will carry,
 * so that every page is measured as exactly the text the client receives. Every tool answers
 * through it: lists as pages of units (`json`, `page`), single values checked whole (`whole`).
 */
export class AnswerBudget {
  constructor(
    readonly cap: number,
    readonly warning: string | null,
  ) {}

  /** The JSON page of `units` from `offset` that fits: `build` makes the answer value of a page. */
  json<U>(units: readonly U[], offset: number, build: (units: readonly U[], page: BudgetPage, notice: string | null) => object, options: PageOptions<U> = {}): Budgeted {
    return this.page(units, offset, (u, p, n) => jsonResult(build(u, p, n), this.warning), options);
  }

  /** The page of `units` from `offset` that fits, rendered by `render` (which adds the warning itself). */
  page<U>(units: readonly U[], offset: number, render: (units: readonly U[], page: BudgetPage, notice: string | null) => CallToolResult, options: PageOptions<U> = {}): Budgeted {
    const r = budgetAnswer({ units, offset, cap: this.cap, render, texts: resultTexts, ...options });
    return new Budgeted(r.rendered);
  }

  /** A value without units: returned whole when it fits, else a `usage` error naming the cap. */
  whole(value: object): Budgeted {
    return this.json([], 0, () => value);
  }
}

/** The text items of a result, as the client receives them. */
export function resultTexts(result: CallToolResult): string[] {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '');
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
