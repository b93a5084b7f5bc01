/**
 * Use-site resolution: after the walk, turns the collected facts into edges, in a fixed order —
 * `contains` (every symbol from its parent), `imports`, heritage (`inherits` / `implements`),
 * then the use sites' `calls` / `references`, deduplicated per source, target and line. Names
 * resolve within the file first (innermost namespace outwards, then top level), else through
 * the import bindings; what resolves nowhere stays an unresolved name.
 */
import { unresolvedKey, type EdgeTarget, type ExtractedEdge } from '@ca/schema';
import { UseKind, type FileFacts, type Sym, type Use } from './model.js';

/** The local id of symbol `i`. */
export function localId(i: number): string {
  return `n${i}`;
}

/** Resolves one file's facts into its edges; `keys[i]` is symbol `i`'s symbol key. */
export class UseSiteResolver {
  private readonly syms: readonly Sym[];
  /** First symbol of each qualified name (containers and name, dotted). */
  private readonly byQName = new Map<string, number>();

  constructor(
    private readonly facts: FileFacts,
    private readonly keys: readonly string[],
  ) {
    this.syms = facts.syms;
    for (const s of this.syms) {
      if (s.idx === 0) continue;
      const q = [...s.containers, s.name].join('.');
      if (!this.byQName.has(q)) this.byQName.set(q, s.idx);
    }
  }

  /** All edges of the file, in emission order. */
  edges(): ExtractedEdge[] {
    const edges: ExtractedEdge[] = [];
    this.containsEdges(edges);
    this.importEdges(edges);
    this.heritageEdges(edges);
    this.useEdges(edges);
    return edges;
  }

  private containsEdges(edges: ExtractedEdge[]): void {
    for (const s of this.syms) {
      if (s.parent < 0) continue;
      edges.push({
        sourceLocalId: localId(s.parent),
        type: 'contains',
        confidence: 'exact',
        target: { key: this.keys[s.idx]!, name: s.name, localId: localId(s.idx) },
        line: s.startRow + 1,
      });
    }
  }

  private importEdges(edges: ExtractedEdge[]): void {
    for (const imp of this.facts.importEdges) {
      const name = imp.name === '' ? imp.binding.specifier : imp.name;
      const target: EdgeTarget = {
        key: unresolvedKey(name),
        name,
        specifier: imp.binding.specifier,
        importedName: imp.binding.importedName,
        ...(imp.binding.modulePath !== null ? { modulePath: imp.binding.modulePath } : {}),
      };
      edges.push({ sourceLocalId: localId(0), type: 'imports', confidence: 'exact', target, line: imp.line });
    }
  }

  private heritageEdges(edges: ExtractedEdge[]): void {
    for (const h of this.facts.heritage) {
      const local = this.resolveLocal(h.name, h.src);
      const target = this.targetFor(h.name, local === h.src ? -1 : local) ?? { key: unresolvedKey(h.name), name: h.name };
      edges.push({ sourceLocalId: localId(h.src), type: h.type, confidence: 'approximate', target, line: h.line });
    }
  }

  private useEdges(edges: ExtractedEdge[]): void {
    const seen = new Set<string>();
    for (const u of this.facts.uses) {
      const target = u.kind === UseKind.ThisCall || u.kind === UseKind.ThisRef ? this.thisTarget(u) : this.nameTarget(u);
      if (target === null) continue;
      const type = u.kind === UseKind.Call || u.kind === UseKind.ThisCall ? 'calls' : 'references';
      const dedupe = `${type}\u0000${u.src}\u0000${target.key}\u0000${target.name}\u0000${u.line}`;
      if (seen.has(dedupe)) continue;
      seen.add(dedupe);
      edges.push({ sourceLocalId: localId(u.src), type, confidence: 'approximate', target, line: u.line });
    }
  }

  /** `this.x` / `this.x()`: the enclosing class's member; an unknown member is kept only when called. */
  private thisTarget(u: Use): EdgeTarget | null {
    const m = this.memberOf(u.cls, u.name);
    if (m >= 0) return { key: this.keys[m]!, name: u.name, localId: localId(m) };
    return u.kind === UseKind.ThisCall ? { key: unresolvedKey(u.name), name: u.name } : null;
  }

  /** A name as written: local symbol, else import binding; an unknown name is kept only when called. */
  private nameTarget(u: Use): EdgeTarget | null {
    let target = this.targetFor(u.name, this.resolveLocal(u.name, u.src));
    // A whole module called or constructed (`const make = require('./make'); make()`,
    // `new Shape()`): CommonJS `module.exports = fn`, i.e. the module's default export.
    if (u.kind === UseKind.Call && target?.importedName === '*' && !target.name.includes('.')) target = { ...target, importedName: 'default' };
    if (target === null && u.kind === UseKind.Call) target = { key: unresolvedKey(u.name), name: u.name };
    return target;
  }

  /** The same-file symbol `name` means at `src`: namespace scopes from the innermost outwards, then top level; -1 when none. */
  private resolveLocal(name: string, src: number): number {
    const syms = this.syms;
    for (let a = src; a > 0; a = syms[a]!.parent) {
      const s = syms[a]!;
      if (s.kind === 'namespace') {
        const hit = this.byQName.get(`${[...s.containers, s.name].join('.')}.${name}`);
        if (hit !== undefined) return hit;
      }
    }
    const top = this.byQName.get(name);
    if (top !== undefined) {
      const p = syms[top]!.parent;
      if (name.includes('.') || p === 0 || syms[p]!.kind === 'namespace') return top;
    }
    return -1;
  }

  private memberOf(cls: number, name: string): number {
    if (cls < 0) return -1;
    for (const c of this.syms[cls]!.children) if (this.syms[c]!.name === name) return c;
    return -1;
  }

  /** The target of `name`: local symbol `local`, else through the import binding of its first segment; null when neither. */
  private targetFor(name: string, local: number): EdgeTarget | null {
    if (local >= 0) return { key: this.keys[local]!, name, localId: localId(local) };
    const dot = name.indexOf('.');
    const first = dot < 0 ? name : name.slice(0, dot);
    const binding = this.facts.imports.get(first);
    if (binding === undefined) return null;
    let importedName = binding.importedName;
    const rest = dot < 0 ? '' : name.slice(dot + 1);
    // `ns.foo` through `import * as ns`: the module's export `foo`.
    if (importedName === '*' && rest !== '' && !rest.includes('.')) importedName = rest;
    return {
      key: unresolvedKey(name),
      name,
      importedName,
      specifier: binding.specifier,
      ...(binding.modulePath !== null ? { modulePath: binding.modulePath } : {}),
    };
  }
}
