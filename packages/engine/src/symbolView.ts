import type { Language, NodeKind } from '@ca/schema';

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

