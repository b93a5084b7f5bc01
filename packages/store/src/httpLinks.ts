/**
 * The rows the HTTP linker (@ca/engine `linkHttpCalls`) reads and writes: a label's client calls
 * (`http_calls` edges as the TypeScript extractor wrote them, their request in the target key),
 * its endpoint nodes, and the links, which replace the previous ones of the label in one
 * transaction. A client call's own edge carries its first link (target and confidence); each
 * further endpoint it may reach is a sibling edge of extractor {@link HTTP_LINK_EXTRACTOR}.
 */
import { ENDPOINT_INHERITS_KEY_PREFIX, OPERATION_LINK_KEY_PREFIX, PREFIX_FACT_KEY_PREFIX, type Confidence } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { inLabelJoinByLabel } from './labelScope.js';
import { replaceEdgeLinks } from './linkedEdges.js';
import { selectAll } from './statements.js';

/** The extractor of the sibling edges a client call gets for its second and further endpoints. */
export const HTTP_LINK_EXTRACTOR = 'http-link';

/** A client call's edge as the extractor wrote it. */
export interface ClientCallRow {
  readonly edgeId: number;
  readonly sourceId: number;
  readonly fileId: number;
  readonly path: string;
  readonly line: number;
  /** `http:GET /api/orders/{}` (`clientCallKey` in @ca/schema). */
  readonly targetKey: string;
  readonly targetName: string;
}

/** An endpoint node of the label. */
export interface EndpointRow {
  readonly id: number;
  /** `GET /api/orders/{id}`. */
  readonly name: string;
  readonly symbolKey: string;
  /** `GET /api/orders/{id} [route int id] (approximate: reason)` (`formatEndpointSignature` in @ca/schema). */
  readonly signature: string;
  readonly path: string;
  readonly line: number;
  /** The name its first `handles` edge gives the handler (`GetById`), or null: the operationId tie-breaker reads it. */
  readonly handler: string | null;
  /** The target key of its inherited-prefix edge (`endpointInheritsKey` in @ca/schema), or null: its route is its own. */
  readonly inheritsKey: string | null;
}

/** A contract operation's `handles` edge as the OpenAPI extractor wrote it (decision 049). */
export interface OperationEdgeRow {
  readonly edgeId: number;
  /** The operation node. */
  readonly sourceId: number;
  /** `operation:GET /api/orders/{id}` (`operationLinkKey` in @ca/schema). */
  readonly targetKey: string;
  /** The operation node's signature (operationId and tags). */
  readonly signature: string;
}

/** A prefix fact's edge (decision 038): the file declaring it and its key (`httpfact:{…}`, `prefixFactKey` in @ca/schema). */
export interface PrefixFactRow {
  readonly path: string;
  readonly targetKey: string;
}

/** One link: client call edge → endpoint node, with the match's confidence. */
export interface HttpLink {
  readonly edgeId: number;
  readonly endpointId: number;
  readonly confidence: Confidence;
}

/** A label's client calls and endpoints, and the replacement of its links. */
export class HttpLinkStore {
  constructor(private readonly db: SqliteDatabase) {}

  /** The label's client calls (their extractor's edges, not the linker's siblings), in path and line order. */
  clientCalls(label: string): ClientCallRow[] {
    return selectAll<ClientCallRow>(
      this.db,
      `SELECT e.id AS edgeId, e.source_id AS sourceId, e.file_id AS fileId, lf.path AS path, e.line AS line,
              e.target_key AS targetKey, e.target_name AS targetName
       FROM edges e ${inLabelJoinByLabel('e.file_id')}
       WHERE e.type = 'http_calls' AND e.extractor <> ? AND e.target_key LIKE 'http:%'
       ORDER BY lf.path, e.line, e.id`,
      label,
      HTTP_LINK_EXTRACTOR,
    );
  }

  /** The label's endpoint nodes, in path and line order. */
  endpoints(label: string): EndpointRow[] {
    return selectAll<EndpointRow>(
      this.db,
      `SELECT n.id AS id, n.name AS name, n.symbol_key AS symbolKey, n.signature AS signature, lf.path AS path, n.start_line AS line,
              (SELECT h.target_name FROM edges h WHERE h.source_id = n.id AND h.type = 'handles' ORDER BY h.id LIMIT 1) AS handler,
              (SELECT i.target_key FROM edges i WHERE i.source_id = n.id AND i.type = 'http_calls' AND i.target_key LIKE ? ORDER BY i.id LIMIT 1) AS inheritsKey
       FROM nodes n ${inLabelJoinByLabel('n.file_id')}
       WHERE n.kind = 'endpoint'
       ORDER BY lf.path, n.start_line, n.id`,
      `${ENDPOINT_INHERITS_KEY_PREFIX}%`,
      label,
    );
  }

  /** The label's prefix facts (values other files' URLs and routes may start with), in path and line order. */
  prefixFacts(label: string): PrefixFactRow[] {
    return selectAll<PrefixFactRow>(
      this.db,
      `SELECT lf.path AS path, e.target_key AS targetKey
       FROM edges e ${inLabelJoinByLabel('e.file_id')}
       WHERE e.type = 'http_calls' AND e.target_key LIKE ?
       ORDER BY lf.path, e.line, e.id`,
      label,
      `${PREFIX_FACT_KEY_PREFIX}%`,
    );
  }

  /** The label's contract operations' `handles` edges (the extractor's, not the linker's siblings), in path and line order. */
  operationEdges(label: string): OperationEdgeRow[] {
    return selectAll<OperationEdgeRow>(
      this.db,
      `SELECT e.id AS edgeId, e.source_id AS sourceId, e.target_key AS targetKey, n.signature AS signature
       FROM edges e ${inLabelJoinByLabel('e.file_id')} JOIN nodes n ON n.id = e.source_id
       WHERE e.type = 'handles' AND e.extractor <> ? AND e.target_key LIKE ?
       ORDER BY lf.path, e.line, e.id`,
      label,
      HTTP_LINK_EXTRACTOR,
      `${OPERATION_LINK_KEY_PREFIX}%`,
    );
  }

  /**
   * Replaces the label's links with `links` in one transaction: every client call of the label
   * goes back to unlinked (no target, `approximate`), the linker's siblings go, then each call's
   * first link is written on its own edge and the others as siblings. Returns the edges written.
   */
  replaceLinks(label: string, links: readonly HttpLink[]): number {
    return this.replace(label, 'http_calls', 'http:%', links);
  }

  /** {@link replaceLinks} for the contract operations' `handles` edges (`operation:` keys). */
  replaceOperationLinks(label: string, links: readonly HttpLink[]): number {
    return this.replace(label, 'handles', `${OPERATION_LINK_KEY_PREFIX}%`, links);
  }

  private replace(label: string, type: 'http_calls' | 'handles', keyPattern: string, links: readonly HttpLink[]): number {
    return replaceEdgeLinks(this.db, label, { type, keyPattern, siblingExtractor: HTTP_LINK_EXTRACTOR }, links.map((l) => ({ edgeId: l.edgeId, targetId: l.endpointId, confidence: l.confidence })));
  }
}
