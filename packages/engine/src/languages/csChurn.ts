import { TYPE_KINDS, type ExtractedNode, type NodeKind } from '@ca/schema';
import type { PreviousNode, Store } from '@ca/store';

// An endpoint (decision 037) is named by its route: no compiler binds a use to it.
const NOT_DECLARATIONS: ReadonlySet<string> = new Set(['file', 'project', 'module', 'namespace', 'endpoint']);

/** The reason a file is analysed again because a declaration it names appeared or disappeared. */
export const NAMED_DECLARATION_CHANGED = 'a declaration it names appeared or disappeared';

/**
 * The C# declarations one index run made appear or disappear (decision 022, differences 7 and
 * 8). The compiler binds a use by name: a type that appears binds uses the previous pass left
 * unresolved, and one that disappears unbinds uses that were never resolved to its node
 * (`typeof(I<>)`). Only declarations whose key is new or gone count, so an edit that declares
 * nothing new revisits no other file (declaration-scoped, as decision 021 for TS).
 */
export class DeclarationChurn {
  /** Type names that appeared or disappeared: their users are found by the text naming them. */
  readonly types = new Set<string>();
  /** Member names that appeared: their users are the unresolved edges naming them. */
  readonly members = new Set<string>();
  /**
   * Names of the types a member appeared in: what their subtypes' members implement or override
   * may have changed (an interface method gaining a parameter: difference 17).
   */
  readonly owners = new Set<string>();

  /**
   * A re-parsed file: its keys the previous version lacked appeared, those it lost disappeared.
   * A C# key does not name its project, so a version continued into another project (a move that
   * keeps its nodes' ids) keeps its keys while what can see them changes: its declarations count
   * as gone from the old project and new in `project` (difference 20).
   */
  noteFile(previous: readonly PreviousNode[], next: readonly ExtractedNode[], project?: string): void {
    const key = (n: { symbolKey: string; disambiguator: number }) => `${n.symbolKey}\u0000${n.disambiguator}`;
    const elsewhere = (n: PreviousNode) => project !== undefined && n.project !== undefined && n.project !== null && n.project !== project;
    const before = new Set(previous.filter((n) => !elsewhere(n)).map(key));
    const after = new Set(next.map(key));
    const byLocal = new Map(next.map((n) => [n.localId, n]));
    for (const n of next) {
      if (before.has(key(n))) continue;
      this.note(n.name, n.kind, true);
      const owner = n.parentLocalId === null ? undefined : byLocal.get(n.parentLocalId);
      if (owner !== undefined && !TYPE_KINDS.has(n.kind as NodeKind) && !NOT_DECLARATIONS.has(n.kind) && TYPE_KINDS.has(owner.kind as NodeKind)) this.owners.add(owner.name);
    }
    for (const n of previous) if (n.name !== undefined && (!after.has(key(n)) || elsewhere(n))) this.note(n.name, n.kind, false);
  }

  /** A node deleted with its file. */
  noteDropped(name: string, kind: string): void {
    this.note(name, kind, false);
  }

  /** Marks pending the analysed C# files of the label that name what appeared or disappeared; returns them. */
  markUsers(store: Store, label: string): number[] {
    if (this.types.size === 0 && this.members.size === 0) return [];
    const names = { types: [...this.types].sort(), members: [...this.members].sort(), owners: [...this.owners].sort() };
    return store.semantic.markNameUsersPending(label, ['cs'], names, NAMED_DECLARATION_CHANGED);
  }

  private note(name: string, kind: string, appeared: boolean): void {
    // A namespace is re-declared by every file of it; its uses (`using`) bind whatever declares types in it.
    if (NOT_DECLARATIONS.has(kind)) return;
    if (TYPE_KINDS.has(kind as NodeKind)) this.types.add(name);
    // A member that disappears leaves exact edges resolved to its node: the writer marks their files.
    else if (appeared) this.members.add(name);
  }
}
