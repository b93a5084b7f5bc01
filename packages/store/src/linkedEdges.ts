/**
 * The replacement step the cross-file linkers share (HTTP client calls, contract operations,
 * configuration reads): an extractor wrote an edge per use with a key and no target; a linker
 * matches the keys to nodes after each run and writes the links here. A use's own edge carries
 * its first link; each further match is a sibling edge of the linker's own extractor.
 */
import type { Confidence } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { inLabelSet } from './labelScope.js';
import { cachedStatement } from './statements.js';

/** One link: a use's edge → the node it reaches, with the match's confidence. */
export interface EdgeLink {
  readonly edgeId: number;
  readonly targetId: number;
  readonly confidence: Confidence;
}

/** Which edges a linker owns: their type, the pattern of their keys and the extractor of its siblings. */
export interface LinkedEdges {
  readonly type: string;
  readonly keyPattern: string;
  readonly siblingExtractor: string;
}

/**
 * Replaces the label's links of `edges` with `links` in one transaction: every use goes back to
 * unlinked (no target, `approximate`), the linker's siblings go, then each use's first link is
 * written on its own edge and the others as siblings. Returns the edges written.
 */
export function replaceEdgeLinks(db: SqliteDatabase, label: string, edges: LinkedEdges, links: readonly EdgeLink[]): number {
  const { type, keyPattern, siblingExtractor } = edges;
  let written = 0;
  db.transaction(() => {
    cachedStatement(db, `DELETE FROM edges WHERE type = ? AND extractor = ? AND target_key LIKE ? AND ${inLabelSet('file_id')}`).run(type, siblingExtractor, keyPattern, label);
    cachedStatement(
      db,
      `UPDATE edges SET target_id = NULL, confidence = 'approximate'
       WHERE type = ? AND target_key LIKE ? AND (target_id IS NOT NULL OR confidence <> 'approximate') AND ${inLabelSet('file_id')}`,
    ).run(type, keyPattern, label);
    const link = cachedStatement(db, `UPDATE edges SET target_id = ?, confidence = ? WHERE id = ?`);
    const sibling = cachedStatement(
      db,
      `INSERT INTO edges(source_id, file_id, type, confidence, target_key, target_name, target_id, target_module, imported_name, specifier, line, extractor)
       SELECT source_id, file_id, type, ?, target_key, target_name, ?, NULL, NULL, NULL, line, ? FROM edges WHERE id = ?`,
    );
    const linked = new Set<number>();
    for (const l of links) {
      if (linked.has(l.edgeId)) sibling.run(l.confidence, l.targetId, siblingExtractor, l.edgeId);
      else link.run(l.targetId, l.confidence, l.edgeId);
      linked.add(l.edgeId);
      written++;
    }
  })();
  return written;
}
