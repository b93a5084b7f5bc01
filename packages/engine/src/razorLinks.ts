/**
 * Links the component usages of `.razor` markup (`<OrderList Items="…">`) to the components they
 * name, by name, after each index run that changed the label (decision 041). The Razor pass is
 * syntactic and sees one file: the edge it writes names `OrderList` or `OrderList.Items`; here
 * that name is looked up among the label's components and their members, and linked only when
 * exactly one matches — or, among several, exactly one is in the usage's own project (a
 * solution often has two apps with components of one name) — `probable`, as written. No match,
 * or several left: the edge stays unresolved.
 */
import type { Store } from '@ca/store';
import type { ComponentRow } from '@ca/store';

/** One of `matches`, or the only one in `project`; null when that does not single one out. */
function single(matches: readonly ComponentRow[], project: string | undefined): number | null {
  if (matches.length === 1) return matches[0]!.id;
  if (project === undefined || matches.length === 0) return null;
  const own = matches.filter((r) => r.project === project);
  return own.length === 1 ? own[0]!.id : null;
}

/** The node a usage name (in `project`) denotes among `rows`, or null without a single match (pure). */
export function razorUseTarget(name: string, rows: readonly ComponentRow[], project?: string): number | null {
  const parts = name.split('.');
  const last = parts[parts.length - 1]!;
  const suffix = `.${name}`;
  const components = rows.filter((r) => r.parentName === null && r.name === last && (parts.length === 1 || r.qualifiedName === name || r.qualifiedName.endsWith(suffix)));
  if (components.length > 0 || parts.length < 2) return single(components, project);
  // `OrderList.Items`: a parameter (member) of a component.
  const owner = parts[parts.length - 2]!;
  const members = rows.filter((r) => r.parentName === owner && r.name === last && (parts.length === 2 || r.qualifiedName === name || r.qualifiedName.endsWith(suffix)));
  return single(members, project);
}

/** Relinks every markup usage of the label; returns how many point at a node now. */
export function linkRazorUses(store: Store, label: string): number {
  const uses = store.razorLinks.uses(label);
  if (uses.length === 0) return 0;
  const rows = store.razorLinks.components(label);
  const links = new Map<number, number | null>();
  for (const u of uses) links.set(u.edgeId, razorUseTarget(u.targetName, rows, u.project));
  return store.razorLinks.replaceLinks(label, links);
}
