/**
 * The rows the Razor linker (@ca/engine `linkRazorUses`) reads and writes: the component usages
 * a `.razor` file's markup names (`<OrderList Items="…">` → `references` edges to `OrderList` and
 * `OrderList.Items`, as the Razor pass wrote them with a name only), and their targets: the
 * label's components and their members. Cross-file C# names are otherwise Roslyn's to resolve;
 * Razor files are not analysed by it (decision 041), so their markup is linked here by name.
 */
import type { SqliteDatabase } from './database.js';
import { inLabelJoinByLabel, inLabelSet } from './labelScope.js';
import { cachedStatement, selectAll } from './statements.js';

/** A component usage edge of a `.razor` file, unresolved as the extractor wrote it. */
export interface RazorUseRow {
  readonly edgeId: number;
  /** `OrderList` or `OrderList.Items` (a parameter), or a dotted `Shop.Web.OrderList`. */
  readonly targetName: string;
  /** The project of the file the usage is in (its `.csproj`). */
  readonly project: string;
}

/** A component of the label, or a member of one (`parentName` set). */
export interface ComponentRow {
  readonly id: number;
  readonly name: string;
  readonly qualifiedName: string;
  /** The component's name for a member; null for a component. */
  readonly parentName: string | null;
  /** The project of the file it is declared in. */
  readonly project: string;
}

/** A label's Razor usages and components, and the replacement of their links. */
export class RazorLinkStore {
  constructor(private readonly db: SqliteDatabase) {}

  /** The label's markup usages: `references` edges of `.razor` files with a name-only target. */
  uses(label: string): RazorUseRow[] {
    return selectAll<RazorUseRow>(
      this.db,
      `SELECT e.id AS edgeId, e.target_name AS targetName, f.project AS project
       FROM edges e ${inLabelJoinByLabel('e.file_id')} JOIN files f ON f.id = e.file_id
       WHERE e.type = 'references' AND e.confidence = 'probable' AND e.target_key LIKE '?%' AND lower(lf.path) LIKE '%.razor'
       ORDER BY e.id`,
      label,
    );
  }

  /** The label's components and their direct members. */
  components(label: string): ComponentRow[] {
    return selectAll<ComponentRow>(
      this.db,
      `SELECT n.id AS id, n.name AS name, n.qualified_name AS qualifiedName, NULL AS parentName, n.project AS project
       FROM nodes n ${inLabelJoinByLabel('n.file_id')} WHERE n.kind = 'component'
       UNION ALL
       SELECT m.id, m.name, m.qualified_name, n.name, m.project
       FROM nodes n ${inLabelJoinByLabel('n.file_id')} JOIN nodes m ON m.parent_id = n.id WHERE n.kind = 'component'`,
      label,
      label,
    );
  }

  /** Sets the usages' targets in one transaction (null: no single match); returns the edges linked. */
  replaceLinks(label: string, links: ReadonlyMap<number, number | null>): number {
    let linked = 0;
    this.db.transaction(() => {
      const set = cachedStatement(this.db, `UPDATE edges SET target_id = ? WHERE id = ? AND ${inLabelSet('file_id')}`);
      for (const [edgeId, target] of links) {
        set.run(target, edgeId, label);
        if (target !== null) linked++;
      }
    })();
    return linked;
  }
}
