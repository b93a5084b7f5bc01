/**
 * Node building: settles what only the whole file decides (barrel module, exported locals,
 * components, public API), computes the symbol keys, and turns each symbol into its
 * `ExtractedNode` with its chunk text — the span with every child body collapsed.
 */
import { disambiguate, symbolKey, type ExtractedNode, type Language, type Modifier } from '@ca/schema';
import type { ByteOffsets } from '../text.js';
import type { FileFacts, Sym } from './model.js';
import { localId } from './resolve.js';

const MODIFIER_ORDER: readonly Modifier[] = [
  'export',
  'default',
  'declare',
  'public',
  'private',
  'protected',
  'internal',
  'static',
  'abstract',
  'override',
  'virtual',
  'readonly',
  'const',
  'async',
  'generator',
  'optional',
  'sealed',
  'partial',
  'extern',
  'deprecated',
];

/**
 * Decisions the walk cannot make as it goes: a barrel `index.*` with exports is a `module`;
 * names exported after their declaration (`export { x }`, `export default x`, CommonJS) mark
 * the top-level symbols of that name exported; function-like symbols returning JSX, typed FC
 * or wrapped in memo/forwardRef are components.
 */
export function settleSymbols(facts: FileFacts): void {
  const syms = facts.syms;
  const fileSym = syms[0]!;
  if (facts.barrel && facts.sawExport) fileSym.kind = 'module';
  for (const local of facts.exportedLocals) {
    for (const childIdx of fileSym.children) {
      const s = syms[childIdx]!;
      if (s.name === local) {
        s.exported = true;
        s.modifiers.add('export');
      }
    }
  }
  for (const s of syms) {
    if (s.functionLike && s.kind === 'function' && (s.returnsJsx || s.componentHint)) s.kind = 'component';
  }
}

/** Public API per symbol, pre-order so parents are decided first. */
function publicApi(syms: readonly Sym[]): boolean[] {
  const isPublic: boolean[] = new Array<boolean>(syms.length).fill(false);
  for (const s of syms) {
    if (s.idx === 0) continue;
    const p = syms[s.parent]!;
    if (p.idx === 0) isPublic[s.idx] = s.exported;
    else if (p.kind === 'namespace') isPublic[s.idx] = s.exported && isPublic[p.idx]!;
    else if (p.kind === 'class' || p.kind === 'interface' || p.kind === 'component') {
      isPublic[s.idx] = isPublic[p.idx]! && !s.modifiers.has('private') && !s.modifiers.has('protected');
    }
  }
  return isPublic;
}

function callable(s: Sym): boolean {
  return (
    s.kind === 'function' ||
    s.kind === 'method' ||
    s.kind === 'constructor' ||
    s.kind === 'getter' ||
    s.kind === 'setter' ||
    (s.kind === 'component' && s.parameterTypes !== null)
  );
}

/** The symbol key of each symbol (callables carry their parameter types, so overloads differ). */
export function symbolKeys(syms: readonly Sym[], path: string, language: Language): string[] {
  return syms.map((s) =>
    s.idx === 0
      ? symbolKey({ language, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' })
      : symbolKey({
          language,
          scope: { kind: 'file', path },
          containers: s.containers,
          name: s.name,
          // Workaround: @ca/schema's ACCESSOR_SUFFIX lookup is a plain object, so kind
          // 'constructor' hits Object.prototype.constructor. The kind only selects the
          // accessor suffix, so 'method' yields the intended key.
          kind: s.kind === 'constructor' ? 'method' : s.kind,
          parameterTypes: callable(s) ? (s.parameterTypes ?? []) : null,
        }),
  );
}

/** Everything {@link buildNodes} needs besides the facts. */
export interface NodeContext {
  readonly lineCount: number;
  readonly offsets: ByteOffsets;
  readonly keys: readonly string[];
}

/** The file's `ExtractedNode`s, in symbol order (the file node first). */
export function buildNodes(facts: FileFacts, ctx: NodeContext): ExtractedNode[] {
  const { syms, path } = facts;
  const { keys, offsets, lineCount } = ctx;
  const isPublic = publicApi(syms);
  const dis = disambiguate(keys.map((symbolKey) => ({ symbolKey })));
  return syms.map((s, i) => {
    const isFile = i === 0;
    const modifiers = [...s.modifiers].sort((a, b) => MODIFIER_ORDER.indexOf(a) - MODIFIER_ORDER.indexOf(b));
    const node: ExtractedNode = {
      localId: localId(i),
      kind: s.kind,
      name: s.name,
      qualifiedName: isFile ? path : [...s.containers, s.name].join('.'),
      symbolKey: keys[i]!,
      disambiguator: dis[i]!,
      parentLocalId: s.parent < 0 ? null : localId(s.parent),
      span: {
        startLine: s.startRow + 1,
        endLine: isFile ? Math.max(1, lineCount) : s.endRow + 1,
        startByte: offsets.at(s.start),
        endByte: offsets.at(s.end),
      },
      signature: s.signature,
      parameterCount: s.parameterTypes === null ? null : s.parameterTypes.length,
      returnType: s.returnType,
      modifiers,
      isPublicApi: isFile ? false : isPublic[i]!,
      doc: s.doc,
      chunkText: chunkTextOf(s, syms, facts.text),
      ...(s.attributes.length > 0 ? { attributes: s.attributes } : {}),
    };
    return node;
  });
}

/** The symbol's span text with every child symbol's body collapsed (children are in source order). */
export function chunkTextOf(s: Sym, syms: readonly Sym[], text: string): string {
  if (s.children.length === 0) return text.slice(s.start, s.end);
  let out = '';
  let pos = s.start;
  const stack: number[] = [...s.children].reverse();
  while (stack.length > 0) {
    const c = syms[stack.pop()!]!;
    if (c.bodyStart < 0) {
      // Bodiless child (property, overload, type alias): its own children may still have bodies.
      for (let k = c.children.length - 1; k >= 0; k--) stack.push(c.children[k]!);
      continue;
    }
    if (c.bodyStart < pos) continue;
    out += text.slice(pos, c.bodyStart);
    out += `{ /* ${c.bodyLines} ${c.bodyLines === 1 ? 'line' : 'lines'} collapsed */ }`;
    pos = c.bodyEnd;
  }
  out += text.slice(pos, s.end);
  return out;
}
