import type { Language, NodeKind } from '@ca/schema';
import type { SearchResponse } from '@ca/retrieve';

/** Fields of a symbol as printed by search, symbol and navigation commands. */
export interface SymbolView {
  readonly id: string;
  readonly qualifiedName: string;
  readonly name: string;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly signature: string;
  readonly doc: string | null;
  readonly modifiers: readonly string[];
  readonly isPublicApi: boolean;
}

/** The view of a node record, or of any row carrying the same fields with a numeric id (graph walks hydrate light rows). */
export function toSymbolView(n: { readonly id: number } & Omit<SymbolView, 'id'>): SymbolView {
  return {
    id: String(n.id),
    qualifiedName: n.qualifiedName,
    name: n.name,
    kind: n.kind,
    language: n.language,
    path: n.path,
    startLine: n.startLine,
    endLine: n.endLine,
    signature: n.signature,
    doc: n.doc,
    modifiers: n.modifiers,
    isPublicApi: n.isPublicApi,
  };
}


/**
 * The documented `ca search --json` shape of a response (also the MCP `search` answer):
 * per-channel ranks are dropped, or folded into `matchedBy` as `channel#rank` with `explain`.
 */
export function searchJson(response: SearchResponse, explain: boolean) {
  return {
    query: response.query,
    intent: response.intent,
    results: response.results.map(({ ranks, ...r }) => (explain ? { ...r, matchedBy: r.matchedBy.map((c) => `${c}#${ranks[c]}`) } : r)),
    tookMs: response.tookMs,
    notices: response.notices,
    tokens: response.tokens,
  };
}
