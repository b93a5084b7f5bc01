import type { ExtractedNode } from '@ca/schema';
import type { Decl } from './decl.js';
import { utf8Offsets } from './text.js';

/**
 * The chunk text of a declaration: its source where each nearest descendant declaration that
 * has a body is collapsed to its header plus `{ /* N lines collapsed *\/ }`, N being the
 * lines from the body's first line (`{` or `=>`) to the member's last line. Declarations
 * without a body (namespaces, properties with accessors) are transparent: their own
 * descendants are collapsed instead. The declaration's own body is never collapsed.
 */
export function chunkOf(d: Decl, source: string): string {
  let out = '';
  let pos = d.start;
  const stack: Decl[] = [...d.children].reverse();
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c.start < pos) continue;
    if (c.bodyStart !== null) {
      const header = source.slice(pos, c.bodyStart).replace(/\s+$/, '');
      const lines = Math.max(c.startRow, c.endRow) - c.bodyStartRow + 1;
      out += `${header} { /* ${lines} lines collapsed */ }`;
      pos = c.end;
    } else {
      for (let k = c.children.length - 1; k >= 0; k--) stack.push(c.children[k]!);
    }
  }
  return out + source.slice(pos, d.end);
}

/** The extracted nodes: declarations with spans in bytes of `original`, disambiguators and chunks. */
export function nodesOf(decls: readonly Decl[], disambiguators: readonly number[], original: string): ExtractedNode[] {
  const byteAt = utf8Offsets(original);
  return decls.map((d, i) => ({
    localId: d.localId,
    kind: d.kind,
    name: d.name,
    qualifiedName: d.qualifiedName,
    symbolKey: d.symbolKey,
    disambiguator: disambiguators[i]!,
    parentLocalId: d.parent?.localId ?? null,
    span: {
      startLine: d.startRow + 1,
      endLine: Math.max(d.startRow, d.endRow) + 1,
      startByte: byteAt(d.start),
      endByte: byteAt(d.end),
    },
    signature: d.signature,
    parameterCount: d.parameterCount,
    returnType: d.returnType,
    modifiers: d.modifiers,
    isPublicApi: d.isPublicApi,
    doc: d.doc,
    chunkText: chunkOf(d, original),
    ...(d.attributes.length > 0 ? { attributes: d.attributes } : {}),
  }));
}
