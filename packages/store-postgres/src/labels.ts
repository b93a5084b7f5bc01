import { CaError } from '@ca/schema';
import type { PgClient } from './connection.js';
import type { TeamSnapshot } from './search.js';

// One label default for every reader of the team store (decision 050): search, navigation, the
// command line and the server pick a repository's label by the same rule.

/** A label of a repository and the snapshot it points at now. */
export interface LabelRow {
  readonly label: string;
  readonly repoId: number;
  readonly snapshotId: number;
  readonly commit: string | null;
  readonly nodeCount: number;
  readonly textTokens: number;
  /** Embeddings (node windows) of the snapshot by model, stored at publish; null for a snapshot published before they were. */
  readonly vectorCounts: ReadonlyMap<string, number> | null;
  /** Whether the snapshot has its BM25 document frequencies (schema migration 6). */
  readonly terms: boolean;
}

/**
 * The label a read answers from (decision 050): the one asked for; else the repository's only
 * label; else `working` when the repository has one; else `unknown_label` listing the labels.
 * The same rule for search and navigation, on the command line and in the server.
 */
export function chooseLabel(labels: readonly string[], asked: string | null, repository: string): string {
  const context = { repository, label: asked };
  const names = [...labels].sort();
  if (names.length === 0) {
    return fail(new CaError('unknown_label', `the team store holds no repository ${JSON.stringify(repository)} (ca repos --store URL lists them; name one with --store-repo)`, { context }));
  }
  if (asked !== null) {
    if (names.includes(asked)) return asked;
    return fail(new CaError('unknown_label', `repository ${JSON.stringify(repository)} of the team store has no label ${JSON.stringify(asked)} (its labels: ${names.join(', ')})`, { context }));
  }
  if (names.length === 1) return names[0]!;
  if (names.includes('working')) return 'working';
  return fail(new CaError('unknown_label', `repository ${JSON.stringify(repository)} of the team store has several labels (${names.join(', ')}) and none is "working": name one with --label (a tool: label)`, { context }));
}

function fail(e: CaError): never {
  throw e;
}

/** Every label of `repository` with its snapshot, read inside the caller's transaction (none: a store nobody published to). */
export async function labelRows(client: PgClient, repository: string): Promise<LabelRow[]> {
  const r = await client
    .query<{ label: string; repo_id: string; snapshot_id: string; commit_sha: string | null; node_count: string | null; text_tokens: string | null; vector_counts: Record<string, number> | null; terms: boolean }>(
      `SELECT l.name AS label, l.repo_id, s.snapshot_id, s.commit_sha, s.node_count, s.text_tokens, s.vector_counts, s.terms
         FROM repositories r JOIN labels l ON l.repo_id = r.repo_id JOIN snapshots s ON s.repo_id = l.repo_id AND s.snapshot_id = l.snapshot_id
        WHERE r.name = $1`, [repository])
    .catch((e: unknown) => {
      // A store nobody has published to yet has no tables: it holds no label.
      if ((e as { code?: string }).code === '42P01') return { rows: [] };
      throw e;
    });
  return r.rows.map((x) => ({
    label: x.label, repoId: Number(x.repo_id), snapshotId: Number(x.snapshot_id), commit: x.commit_sha,
    nodeCount: Number(x.node_count ?? 0), textTokens: Number(x.text_tokens ?? 0),
    terms: x.terms,
    vectorCounts: x.vector_counts === null ? null : new Map(Object.entries(x.vector_counts).map(([m, n]) => [m, Number(n)])),
  }));
}

/** The snapshot a read answers from (the label rule of `chooseLabel`), inside the caller's transaction. */
export async function resolveSnapshot(client: PgClient, repository: string, label: string | null): Promise<TeamSnapshot> {
  const rows = await labelRows(client, repository);
  const chosen = chooseLabel(rows.map((r) => r.label), label, repository);
  const row = rows.find((r) => r.label === chosen)!;
  return { repository, label: chosen, repoId: row.repoId, snapshotId: row.snapshotId, commit: row.commit, nodeCount: row.nodeCount, textTokens: row.textTokens, vectorCounts: row.vectorCounts, terms: row.terms };
}
