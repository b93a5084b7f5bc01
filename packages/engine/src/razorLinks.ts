/**
 * Links the component usages of `.razor` markup (`<OrderList Items="…">`) to the components they
 * name, by name, after each index run that changed the label (decision 041). The Razor pass is
 * syntactic and sees one file: the edge it writes names `OrderList` or `OrderList.Items`; here
 * that name is looked up among the label's components and their members, and linked only when
 * exactly one matches (`probable`, as written). No match or several: the edge stays unresolved.
 */
import type { Store } from '@ca/store';
import type { ComponentRow } from '@ca/store';

/** The node a usage name denotes among `rows`, or null without a single match (pure). */
export function razorUseTarget(name: string, rows: readonly ComponentRow[]): number | null {
  const parts = name.split('.');
  const last = parts[parts.length - 1]!;
  const suffix = `.${name}`;
  const components = rows.filter((r) => r.parentName === null && r.name === last && (parts.length === 1 || r.qualifiedName === name || r.qualifiedName.endsWith(suffix)));
  if (components.length === 1) return components[0]!.id;
  if (components.length > 1 || parts.length < 2) return null;
  // `OrderList.Items`: a parameter (member) of a component.
  const owner = parts[parts.length - 2]!;
  const members = rows.filter((r) => r.parentName === owner && r.name === last && (parts.length === 2 || r.qualifiedName.endsWith(suffix)));
  return members.length === 1 ? members[0]!.id : null;
}

/** Relinks every markup usage of the label; returns how many point at a node now. */
export function linkRazorUses(store: Store, label: string): number {
  const uses = store.razorLinks.uses(label);
  if (uses.length === 0) return 0;
  const rows = store.razorLinks.components(label);
  const links = new Map<number, number | null>();
  for (const u of uses) links.set(u.edgeId, razorUseTarget(u.targetName, rows));
  return store.razorLinks.replaceLinks(label, links);
}
