import { symbolKey, unresolvedKey, type EdgeTarget, type EdgeType, type ExtractedEdge } from '@ca/schema';
import {
  BODY_OWNER_KINDS,
  enclosingType,
  isTypeParam,
  TYPE_KIND_SET,
  VALUE_MEMBER_KINDS,
  type CallSite,
  type Decl,
  type RefSite,
  type Sites,
} from './decl.js';

const isCallable = (d: Decl): boolean => d.kind === 'method' || d.kind === 'function';
const isValueMember = (d: Decl): boolean => VALUE_MEMBER_KINDS.has(d.kind);

/** `IPaymentGateway` → true; `Item`, `I`, `Io` → false. */
export function looksLikeInterface(name: string): boolean {
  const simple = name.slice(name.lastIndexOf('.') + 1);
  return /^I[A-Z]/.test(simple);
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The best overload: the type argument count narrows, then the argument count picks. */
function pickOverload(cands: Decl[], argCount: number, typeArgCount: number): Decl | null {
  if (cands.length === 0) return null;
  const byArity = cands.filter((c) => (typeArgCount > 0 ? c.typeParams.length === typeArgCount : true));
  const pool = byArity.length > 0 ? byArity : cands;
  return pool.find((c) => c.parameterCount === argCount) ?? pool[0]!;
}

function isShadowed(owner: Decl, name: string): boolean {
  for (let cur: Decl | null = owner; cur && !TYPE_KIND_SET.has(cur.kind); cur = cur.parent) {
    if (cur.locals.has(name)) return true;
  }
  return false;
}

/**
 * Turns one file's declarations and use sites into edges, resolving names against the
 * declarations of the same file only (members of the enclosing types and their same-file base
 * classes, local functions, types by simple name); what does not resolve gets an unresolved
 * key. Edges come out in a fixed order: contains, imports, bases, extends, calls, references.
 */
export class UseSiteResolver {
  private readonly typesByName = new Map<string, Decl[]>();
  private readonly typesByKey = new Map<string, Decl[]>();
  private readonly seen = new Set<string>();
  readonly edges: ExtractedEdge[] = [];

  constructor(private readonly decls: readonly Decl[]) {
    for (const d of decls) {
      if (!TYPE_KIND_SET.has(d.kind)) continue;
      push(this.typesByName, d.name, d);
      push(this.typesByKey, d.symbolKey, d);
    }
  }

  /** All edges of the file, `fileDecl` owning its imports. */
  resolve(fileDecl: Decl, sites: Sites): ExtractedEdge[] {
    for (const d of this.decls) {
      if (d.parent) this.addEdge(d.parent, 'contains', { key: d.symbolKey, name: d.name, localId: d.localId }, d.startRow, 'exact');
    }
    for (const imp of sites.imports) this.importEdge(fileDecl, imp);
    for (const d of this.decls) this.baseEdges(d);
    for (const e of sites.extendsSites) this.addEdge(e.owner, 'extends', this.targetOf(e.name, this.sameFileType(e.name)), e.row);
    for (const c of sites.calls) this.addEdge(c.owner, 'calls', this.targetOf(c.name, this.resolveCall(c)), c.row);
    for (const r of sites.refs) this.refEdge(r);
    return this.edges;
  }

  private ownMembersNamed(type: Decl, name: string): Decl[] {
    const out: Decl[] = [];
    // Partial fragments in the same file share a key: their members are one type's members.
    for (const fragment of this.typesByKey.get(type.symbolKey) ?? [type]) {
      for (const c of fragment.children) if (c.name === name && c.kind !== 'getter' && c.kind !== 'setter') out.push(c);
    }
    return out;
  }

  /** The type followed by its base classes declared in this file (first base entry only). */
  private withSameFileBases(type: Decl): Decl[] {
    const out = [type];
    for (let cur: Decl | undefined = type; cur && out.length < 16; ) {
      const first: { name: string; row: number } | undefined = cur.bases[0];
      const base: Decl | null = first ? this.sameFileType(first.name) : null;
      if (!base || out.includes(base) || base.kind === 'interface') break;
      out.push(base);
      cur = base;
    }
    return out;
  }

  /** Members by name on the type or, failing that, its same-file base classes. */
  private membersNamed(type: Decl, name: string, skipSelf = false): Decl[] {
    const chain = this.withSameFileBases(type);
    for (const t of skipSelf ? chain.slice(1) : chain) {
      const found = this.ownMembersNamed(t, name);
      if (found.length > 0) return found;
    }
    return [];
  }

  /** The nearest scope around `owner` declaring `name`: local functions, then type members. */
  private chainLookup(owner: Decl, name: string, want: (d: Decl) => boolean, includeLocalFunctions: boolean): Decl[] {
    for (let cur: Decl | null = owner; cur; cur = cur.parent) {
      if (includeLocalFunctions && BODY_OWNER_KINDS.has(cur.kind)) {
        const fns = cur.children.filter((c) => c.kind === 'function' && c.name === name);
        if (fns.length > 0) return fns;
      }
      if (TYPE_KIND_SET.has(cur.kind)) {
        const found = this.membersNamed(cur, name).filter(want);
        if (found.length > 0) return found;
      }
    }
    return [];
  }

  private sameFileType(name: string): Decl | null {
    const simple = name.slice(name.lastIndexOf('.') + 1);
    const found = this.typesByName.get(simple);
    return found?.[0] ?? null;
  }

  /** The same-file type a receiver names, unless a local or a value member of that name hides it. */
  private receiverType(owner: Decl, receiverName: string): Decl | null {
    const recvType = this.sameFileType(receiverName);
    const firstSegment = receiverName.split('.')[0]!;
    if (recvType && !isShadowed(owner, firstSegment) && this.chainLookup(owner, firstSegment, isValueMember, false).length === 0) return recvType;
    return null;
  }

  private addEdge(source: Decl, type: EdgeType, target: EdgeTarget, row: number, confidence: ExtractedEdge['confidence'] = 'approximate'): void {
    const sig = `${source.localId}|${type}|${target.key}|${target.name}|${row}`;
    if (this.seen.has(sig)) return;
    this.seen.add(sig);
    this.edges.push({ sourceLocalId: source.localId, type, confidence, target, line: row + 1 });
  }

  private targetOf(name: string, resolved: Decl | null): EdgeTarget {
    return resolved ? { key: resolved.symbolKey, name, localId: resolved.localId } : { key: unresolvedKey(name), name };
  }

  private importEdge(fileDecl: Decl, imp: { name: string; row: number }): void {
    const parts = imp.name.split('.');
    const key = symbolKey({
      language: 'cs',
      scope: { kind: 'global' },
      containers: parts.slice(0, -1),
      name: parts[parts.length - 1] ?? '',
      kind: 'namespace',
    });
    this.addEdge(fileDecl, 'imports', { key, name: imp.name }, imp.row, 'exact');
  }

  /** `inherits`/`implements` per base list entry: by the declaration's kind, position and target. */
  private baseEdges(d: Decl): void {
    d.bases.forEach((b, i) => {
      const resolved = this.sameFileType(b.name);
      const target = resolved && resolved !== d ? resolved : null;
      let type: EdgeType;
      if (d.kind === 'interface') type = 'inherits';
      else if (d.kind === 'struct' || (d.kind === 'record' && d.recordStruct)) type = 'implements';
      else if (i > 0) type = 'implements';
      else if (target) type = target.kind === 'interface' ? 'implements' : 'inherits';
      else type = looksLikeInterface(b.name) ? 'implements' : 'inherits';
      this.addEdge(d, type, this.targetOf(b.name, target), b.row);
    });
  }

  private resolveCall(c: CallSite): Decl | null {
    if (c.isNew) return this.sameFileType(c.member);
    if (c.receiver === 'none' || c.receiver === 'this') {
      return pickOverload(this.chainLookup(c.owner, c.member, isCallable, c.receiver === 'none'), c.argCount, c.typeArgCount);
    }
    if (c.receiver === 'base') {
      const type = enclosingType(c.owner);
      return type ? pickOverload(this.membersNamed(type, c.member, true).filter(isCallable), c.argCount, c.typeArgCount) : null;
    }
    if (c.receiver === 'other' && c.receiverName) {
      const recvType = this.receiverType(c.owner, c.receiverName);
      if (recvType) return pickOverload(this.membersNamed(recvType, c.member).filter(isCallable), c.argCount, c.typeArgCount);
    }
    return null;
  }

  /** A type reference always gets an edge; a value reference only when it resolves here. */
  private refEdge(r: RefSite): void {
    if (r.typeRef) {
      this.addEdge(r.owner, 'references', this.targetOf(r.name, this.sameFileType(r.name)), r.row);
      return;
    }
    let resolved: Decl | null = null;
    if (r.receiver === 'none') {
      if (isTypeParam(r.owner, r.member)) return;
      if (!isShadowed(r.owner, r.member)) resolved = this.chainLookup(r.owner, r.member, isValueMember, false)[0] ?? null;
      if (!resolved && !isShadowed(r.owner, r.member)) resolved = this.sameFileType(r.name);
    } else if (r.receiver === 'this') {
      resolved = this.chainLookup(r.owner, r.member, isValueMember, false)[0] ?? null;
    } else if (r.receiver === 'other' && r.receiverName) {
      const recvType = this.receiverType(r.owner, r.receiverName);
      if (recvType) resolved = this.membersNamed(recvType, r.member).filter(isValueMember)[0] ?? null;
    }
    if (resolved && resolved !== r.owner) this.addEdge(r.owner, 'references', this.targetOf(r.name, resolved), r.row);
  }
}
