import { CaError } from '@ca/schema';
import type { GraphReads, NodeRecord } from '@ca/store';

/**
 * The candidates of a SYMBOL argument: a node id, an exact qualified name, or a (suffix of a)
 * qualified name / bare name — in that order of precedence, the first rule that matches wins
 * (`Engine.findSymbols`'s rules, over the async read contract).
 */
export async function findSymbolsIn(reads: Pick<GraphReads, 'nodes' | 'byQualifiedName' | 'bySuffix'>, name: string): Promise<NodeRecord[]> {
  const trimmed = name.trim();
  if (trimmed === '') throw new CaError('usage', 'a symbol name is required');
  if (/^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) {
    const [n] = await reads.nodes([Number(trimmed)]);
    if (n) return [n];
  }
  const exact = (await reads.byQualifiedName(trimmed)).filter((n) => n.kind !== 'file');
  if (exact.length > 0) return exact;
  return (await reads.bySuffix(trimmed)).filter((n) => n.kind !== 'file' && n.kind !== 'module');
}

/** Exactly one of `found`, or `not_found` / `ambiguous_symbol` listing the candidates. */
export function oneSymbol(name: string, found: readonly NodeRecord[]): NodeRecord {
  if (found.length === 0) throw new CaError('not_found', `no symbol matches "${name}"`, { context: { symbol: name } });
  if (found.length > 1) {
    // Overloads, accessor pairs and generic arities share a qualified name: their signatures tell them apart.
    const shared = new Set(found.filter((n, i) => found.findIndex((m) => m.qualifiedName === n.qualifiedName) !== i).map((n) => n.qualifiedName));
    const list = found
      .slice(0, 20)
      .map((n) => {
        const sig = shared.has(n.qualifiedName) ? oneLineSignature(n.signature) : '';
        return `${n.qualifiedName} (${n.kind}) ${n.path}:${n.startLine}${sig ? ` \`${sig}\`` : ''} [id ${n.id}]`;
      })
      .join('; ');
    throw new CaError('ambiguous_symbol', `"${name}" matches ${found.length} symbols: ${list}`, {
      context: { symbol: name, candidates: found.map((n) => n.id) },
    });
  }
  return found[0]!;
}

/** A signature on one line, at most 120 characters (ambiguity lists). */
function oneLineSignature(signature: string): string {
  const flat = signature.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
