/**
 * A navigation answer as budgeted pages: its units are the nodes, each followed by the edges
 * that reach it (edges touching no node of the walk come first), so that a page holds whole
 * nodes with their edges wherever the cap allows and the pages together hold every node and
 * every edge exactly once. `byFile` (impact) is narrowed to the page's nodes, in its own order.
 */
import { budgetAnswer, type BudgetedAnswer, type BudgetPage } from './budget.js';
import type { ImpactFile, NavigationEdge, NavigationNode, NavigationResult } from './navigation.js';

/** One unit of a paged navigation answer: a node or an edge. */
export type NavigationUnit<N, E> = { readonly node: N } | { readonly edge: E };

/** A navigation answer whose nodes and edges may carry more (code, context lines). */
export type WideNavigation<N extends NavigationNode = NavigationNode, E extends NavigationEdge = NavigationEdge> = Omit<NavigationResult, 'nodes' | 'edges'> & {
  readonly nodes: readonly N[];
  readonly edges: readonly E[];
};

/**
 * The units of a navigation answer in page order: edges touching no node of the walk (between
 * the symbol's own members, unresolved targets), then each node followed by the edges whose
 * walking end it is (the `from` end when that is a walked node, else the `to` end).
 */
export function navigationUnits<N extends NavigationNode, E extends NavigationEdge>(result: WideNavigation<N, E>): NavigationUnit<N, E>[] {
  const inWalk = new Set(result.nodes.map((n) => n.id));
  const edgesOf = new Map<string, E[]>();
  const unattached: NavigationUnit<N, E>[] = [];
  for (const edge of result.edges) {
    const end = inWalk.has(edge.from) ? edge.from : edge.to !== null && inWalk.has(edge.to) ? edge.to : null;
    if (end === null) unattached.push({ edge });
    else {
      const list = edgesOf.get(end);
      if (list) list.push(edge);
      else edgesOf.set(end, [edge]);
    }
  }
  const units = unattached;
  for (const node of result.nodes) {
    units.push({ node });
    for (const edge of edgesOf.get(node.id) ?? []) units.push({ edge });
  }
  return units;
}

/** One page of a navigation answer: the answer with its lists narrowed and the paging fields. */
export type NavigationPage<T> = T & { offset: number; nextOffset: number | null; notices: string[] };

/** The answer of one page: the head unchanged, the page's nodes and edges, `byFile` narrowed, the paging fields. */
export function navigationPageValue<N extends NavigationNode, E extends NavigationEdge, T extends WideNavigation<N, E>>(
  result: T,
  units: readonly NavigationUnit<N, E>[],
  page: BudgetPage,
  notice: string | null,
): NavigationPage<T> {
  const nodes: N[] = [];
  const edges: E[] = [];
  for (const u of units) {
    if ('node' in u) nodes.push(u.node);
    else edges.push(u.edge);
  }
  const kept = new Set(nodes.map((n) => n.id));
  const byFile = result.byFile?.map((f): ImpactFile => ({ path: f.path, symbols: f.symbols.filter((s) => kept.has(s.id)) })).filter((f) => f.symbols.length > 0);
  const earlier = (result as { notices?: readonly string[] }).notices ?? [];
  return { ...result, edges, nodes, ...(byFile ? { byFile } : {}), offset: page.offset, nextOffset: page.nextOffset, notices: [...earlier, ...(notice ? [notice] : [])] };
}

/**
 * The page of a navigation answer from `offset` that fits `cap` tokens once rendered by
 * `render` (the exact value or text returned) and measured by `texts`.
 */
export function budgetNavigation<N extends NavigationNode, E extends NavigationEdge, T extends WideNavigation<N, E>, R>(
  result: T & WideNavigation<N, E>,
  offset: number,
  cap: number,
  render: (value: NavigationPage<T>) => R,
  texts: (rendered: R) => readonly string[],
): BudgetedAnswer<R> {
  const units = navigationUnits<N, E>(result);
  return budgetAnswer({
    units,
    offset,
    cap,
    kinds: (u) => ('node' in u ? ['nodes'] : ['edges']),
    render: (page, at, notice) => render(navigationPageValue<N, E, T>(result, page, at, notice)),
    texts,
  });
}
