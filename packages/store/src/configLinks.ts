/**
 * The rows the configuration linker (@ca/engine `linkConfigReads`, decision 048) reads and writes:
 * a label's configuration reads (`reads_config` edges as the C# extractor wrote them, what they
 * read in the target key), its JSON `config` nodes (the linker keeps the appsettings files'), and
 * the links, which replace the previous ones of the label in one transaction. A read's own edge
 * carries its first link; each further key it reaches (the same key in appsettings.json and
 * appsettings.Development.json …) is a sibling edge of extractor {@link CONFIG_LINK_EXTRACTOR}.
 */
import type { Confidence } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { inLabelJoinByLabel } from './labelScope.js';
import { replaceEdgeLinks } from './linkedEdges.js';
import { selectAll } from './statements.js';

/** The extractor of the sibling edges a read gets for its second and further keys. */
export const CONFIG_LINK_EXTRACTOR = 'config-link';

/** A configuration read's edge as the extractor wrote it. */
export interface ConfigReadRow {
  readonly edgeId: number;
  readonly sourceId: number;
  /** The reading symbol's qualified name. */
  readonly source: string;
  readonly path: string;
  readonly line: number;
  /** `config:value:A:B` (`configReadKey` in @ca/schema). */
  readonly targetKey: string;
  readonly targetName: string;
}

/** A `config` node of a JSON file of the label. */
export interface ConfigKeyRow {
  readonly id: number;
  /** `Features:Search:Enabled`. */
  readonly qualifiedName: string;
  readonly path: string;
  readonly line: number;
}

/** One link: read edge → config node, with its confidence. */
export interface ConfigLink {
  readonly edgeId: number;
  readonly keyId: number;
  readonly confidence: Confidence;
}

/** A label's configuration reads and keys, and the replacement of its links. */
export class ConfigLinkStore {
  constructor(private readonly db: SqliteDatabase) {}

  /** The label's configuration reads (the extractor's edges, not the linker's siblings), in path and line order. */
  reads(label: string): ConfigReadRow[] {
    return selectAll<ConfigReadRow>(
      this.db,
      `SELECT e.id AS edgeId, e.source_id AS sourceId, s.qualified_name AS source, lf.path AS path, e.line AS line,
              e.target_key AS targetKey, e.target_name AS targetName
       FROM edges e JOIN nodes s ON s.id = e.source_id ${inLabelJoinByLabel('e.file_id')}
       WHERE e.type = 'reads_config' AND e.extractor <> ? AND e.target_key LIKE 'config:%'
       ORDER BY lf.path, e.line, e.id`,
      label,
      CONFIG_LINK_EXTRACTOR,
    );
  }

  /** The `config` nodes of the label's JSON files, in path and line order. */
  keys(label: string): ConfigKeyRow[] {
    return selectAll<ConfigKeyRow>(
      this.db,
      `SELECT n.id AS id, n.qualified_name AS qualifiedName, lf.path AS path, n.start_line AS line
       FROM nodes n JOIN files f ON f.id = n.file_id ${inLabelJoinByLabel('n.file_id')}
       WHERE n.kind = 'config' AND f.language = 'json'
       ORDER BY lf.path, n.start_line, n.id`,
      label,
    );
  }

  /**
   * Replaces the label's links with `links` in one transaction: every read of the label goes back
   * to unlinked (no target, `approximate`), the linker's siblings go, then each read's first link
   * is written on its own edge and the others as siblings. Returns the edges written.
   */
  replaceLinks(label: string, links: readonly ConfigLink[]): number {
    const edges = { type: 'reads_config', keyPattern: 'config:%', siblingExtractor: CONFIG_LINK_EXTRACTOR };
    return replaceEdgeLinks(this.db, label, edges, links.map((l) => ({ edgeId: l.edgeId, targetId: l.keyId, confidence: l.confidence })));
  }
}
