import type { Confidence, EdgeType } from '@ca/schema';
import type { GraphNode, GraphReader, SemanticGapFile, SemanticGapRow, Traversal, TraversalOptions } from './graph.js';
import type { IndexReader } from './reader.js';
import type { NodeRecord } from './rows.js';
import type { WalkEdgeRow } from './walk.js';

/** Where a set of graph reads comes from: a local index's label, or one snapshot of a team store. */
export interface GraphReadsOrigin {
  /** `sqlite` or `postgres` (for messages and tests; nothing branches on it). */
  readonly backend: string;
  readonly label: string;
  /** The team store's repository (null for a local index). */
  readonly repository: string | null;
  /** The snapshot read (null for a local index). */
  readonly snapshotId: number | null;
  /** The commit the label was indexed at, when known. */
  readonly commit: string | null;
}

/** One level of a walk: the edges at the near end of `ids` (see `GraphReads.edges`). */
export interface EdgeQuery {
  readonly direction: 'in' | 'out';
  readonly types: readonly EdgeType[];
  readonly minConfidence: Confidence;
}

/**
 * The backend-neutral, asynchronous read contract of one label's graph (decision 042): what
 * symbol lookup, outline, source and navigation need, each a single query whatever the number of
 * ids it is given (no per-node round trips). Node ids are the backend's own: stable within one
 * `GraphReads`, not across backends. A team-store implementation reads one snapshot for its whole
 * life (every call sees the same data); `close()` releases it.
 */
export interface GraphReads {
  readonly origin: GraphReadsOrigin;
  /** Full node records by id, in the order of `ids` (unknown ids dropped). */
  nodes(ids: readonly number[]): Promise<NodeRecord[]>;
  /** The printed fields of nodes by id, in the order of `ids` (no chunk text). */
  summaries(ids: readonly number[]): Promise<GraphNode[]>;
  /** Exact (case-insensitive) qualified-name matches, exact case first (then file/module last, path, line), at most 50. */
  byQualifiedName(qualifiedName: string): Promise<NodeRecord[]>;
  /** Nodes whose qualified name ends with `.<suffix>` or whose name is `suffix` (the SQLite reader's `bySuffix` order), at most 50. */
  bySuffix(suffix: string): Promise<NodeRecord[]>;
  /** The nodes of the label's file at `path` in source order; null when the label has no such file. */
  outline(path: string): Promise<NodeRecord[] | null>;
  /** The children of each of `ids` (one list, each parent's in source order). */
  children(ids: readonly number[]): Promise<NodeRecord[]>;
  /** The ids and every node they contain, recursively. */
  descendants(ids: readonly number[]): Promise<number[]>;
  /** The stored bytes of the label's files at `paths` (paths without a stored copy are absent). */
  fileContents(paths: readonly string[]): Promise<Map<string, Buffer>>;
  /** For a set of nodes: the edges into them (`in`) or out of them (`out`) of these types and confidences, in one query. */
  edges(ids: readonly number[], query: EdgeQuery): Promise<WalkEdgeRow[]>;
  /** A breadth-first walk (the rules of `GraphReader.walk`), one `edges` query per level. */
  walk(seeds: readonly number[], options: TraversalOptions): Promise<Traversal>;
  /** The label's files of `languages` without exact edges (project, language, state, path order). */
  semanticGapFiles(languages: readonly string[]): Promise<readonly SemanticGapFile[]>;
  /** Those files grouped by project, language and state (that order; the least reason, the count): `GraphReader.semanticGaps`. */
  semanticGaps(languages: readonly string[]): Promise<SemanticGapRow[]>;
  /** Ends the reads (a team store's transaction and connection); the object answers nothing after. */
  close(): Promise<void>;
}

/**
 * The contract over a local SQLite index's label: today's synchronous readers, each answer a
 * resolved promise. Walks keep the label-scoped SQLite walk (`GraphReader.walk`, which maps other
 * versions of a symbol into the label).
 */
export class SqliteGraphReads implements GraphReads {
  readonly origin: GraphReadsOrigin;

  constructor(
    private readonly reader: IndexReader,
    private readonly graph: GraphReader,
    commit: string | null = null,
  ) {
    this.origin = { backend: 'sqlite', label: reader.label, repository: null, snapshotId: null, commit };
  }

  async nodes(ids: readonly number[]): Promise<NodeRecord[]> {
    return this.reader.nodesByIds(ids);
  }

  async summaries(ids: readonly number[]): Promise<GraphNode[]> {
    return this.graph.nodes(ids);
  }

  async byQualifiedName(qualifiedName: string): Promise<NodeRecord[]> {
    return this.reader.byQualifiedName(qualifiedName);
  }

  async bySuffix(suffix: string): Promise<NodeRecord[]> {
    return this.reader.bySuffix(suffix);
  }

  async outline(path: string): Promise<NodeRecord[] | null> {
    const nodes = this.reader.outline(path);
    if (nodes.length > 0) return nodes;
    return this.reader.labelEntry(path) ? [] : null;
  }

  async children(ids: readonly number[]): Promise<NodeRecord[]> {
    return ids.flatMap((id) => this.reader.children(id));
  }

  async descendants(ids: readonly number[]): Promise<number[]> {
    return this.graph.descendants(ids);
  }

  async fileContents(paths: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const p of paths) {
      const bytes = this.reader.fileContent(p);
      if (bytes) out.set(p, bytes);
    }
    return out;
  }

  async edges(ids: readonly number[], query: EdgeQuery): Promise<WalkEdgeRow[]> {
    // One level of the label-scoped walk: depth 1, no cap, the near end's edges only.
    const t = this.graph.walk(ids, { ...query, depth: 1, label: this.reader.label });
    return [...t.edges];
  }

  async walk(seeds: readonly number[], options: TraversalOptions): Promise<Traversal> {
    return this.graph.walk(seeds, { ...options, label: this.reader.label });
  }

  async semanticGapFiles(languages: readonly string[]): Promise<readonly SemanticGapFile[]> {
    return this.graph.semanticGapFiles(this.reader.label, languages);
  }

  async semanticGaps(languages: readonly string[]): Promise<SemanticGapRow[]> {
    return this.graph.semanticGaps(this.reader.label, languages);
  }

  async close(): Promise<void> {
    // The local index belongs to its Store: nothing to release here.
  }
}

