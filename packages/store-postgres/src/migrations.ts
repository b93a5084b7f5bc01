import { CaError } from '@ca/schema';
import { inTransaction, type PgClient } from './connection.js';

/** One forward-only migration of the team store's schema. */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

// Per-repository tables lead with repo_id (partition- and distribution-ready). The content
// tables (blobs, chunks, embeddings) belong to no repository: they are keyed by their hash and
// shared by every repository and label (decision 036).
const INITIAL = `
CREATE TABLE repositories (
  repo_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE blobs (
  blob_id text PRIMARY KEY,
  size bigint NOT NULL,
  data bytea NOT NULL
);

CREATE TABLE chunks (
  chunk_hash text PRIMARY KEY,
  text text NOT NULL
);

CREATE TABLE embeddings (
  model text NOT NULL,
  content_hash text NOT NULL,
  vector vector NOT NULL,
  PRIMARY KEY (model, content_hash)
);

CREATE TABLE file_versions (
  repo_id bigint NOT NULL REFERENCES repositories(repo_id),
  version_id bigint GENERATED ALWAYS AS IDENTITY,
  path text NOT NULL,
  blob_id text NOT NULL,
  digest text NOT NULL,
  language text,
  size bigint NOT NULL,
  line_count integer NOT NULL,
  parse_status text NOT NULL,
  status_reason text,
  generated boolean NOT NULL,
  project text NOT NULL,
  extractor text NOT NULL,
  node_count integer NOT NULL,
  PRIMARY KEY (repo_id, version_id),
  UNIQUE (repo_id, path, blob_id, digest)
);

CREATE TABLE nodes (
  repo_id bigint NOT NULL,
  version_id bigint NOT NULL,
  ordinal integer NOT NULL,
  parent_ordinal integer,
  kind text NOT NULL,
  language text NOT NULL,
  name text NOT NULL,
  qualified_name text NOT NULL,
  symbol_key text NOT NULL,
  disambiguator integer NOT NULL,
  project text NOT NULL,
  start_line integer NOT NULL,
  end_line integer NOT NULL,
  start_byte integer NOT NULL,
  end_byte integer NOT NULL,
  signature text NOT NULL,
  parameter_count integer,
  return_type text,
  modifiers text NOT NULL,
  attributes text,
  is_public_api boolean NOT NULL,
  doc text,
  generated boolean NOT NULL,
  chunk_hash text NOT NULL,
  spans jsonb,
  PRIMARY KEY (repo_id, version_id, ordinal),
  FOREIGN KEY (repo_id, version_id) REFERENCES file_versions(repo_id, version_id)
);
CREATE INDEX nodes_qualified_name ON nodes(repo_id, qualified_name);
CREATE INDEX nodes_symbol_key ON nodes(repo_id, symbol_key);

CREATE TABLE node_vectors (
  repo_id bigint NOT NULL,
  version_id bigint NOT NULL,
  ordinal integer NOT NULL,
  "window" integer NOT NULL,
  model text NOT NULL,
  content_hash text NOT NULL,
  PRIMARY KEY (repo_id, version_id, ordinal, "window")
);

CREATE TABLE reexports (
  repo_id bigint NOT NULL,
  version_id bigint NOT NULL,
  target_module text NOT NULL,
  name text NOT NULL
);
CREATE INDEX reexports_version ON reexports(repo_id, version_id);

CREATE TABLE edge_sets (
  repo_id bigint NOT NULL,
  edge_set_id bigint GENERATED ALWAYS AS IDENTITY,
  version_id bigint NOT NULL,
  digest text NOT NULL,
  edge_count integer NOT NULL,
  PRIMARY KEY (repo_id, edge_set_id),
  UNIQUE (repo_id, version_id, digest),
  FOREIGN KEY (repo_id, version_id) REFERENCES file_versions(repo_id, version_id)
);

CREATE TABLE edges (
  repo_id bigint NOT NULL,
  edge_set_id bigint NOT NULL,
  source_ordinal integer NOT NULL,
  type text NOT NULL,
  confidence text NOT NULL,
  target_key text NOT NULL,
  target_name text NOT NULL,
  target_version_id bigint,
  target_ordinal integer,
  target_module text,
  imported_name text,
  specifier text,
  line integer NOT NULL,
  extractor text NOT NULL
);
CREATE INDEX edges_set ON edges(repo_id, edge_set_id);
CREATE INDEX edges_target ON edges(repo_id, target_version_id, target_ordinal, type);

CREATE TABLE snapshots (
  repo_id bigint NOT NULL REFERENCES repositories(repo_id),
  snapshot_id bigint GENERATED ALWAYS AS IDENTITY,
  label text NOT NULL,
  state text NOT NULL CHECK (state IN ('building', 'complete')),
  commit_sha text,
  head_ref text,
  dirty boolean,
  file_count integer,
  node_count bigint,
  edge_count bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (repo_id, snapshot_id)
);

CREATE TABLE snapshot_files (
  repo_id bigint NOT NULL,
  snapshot_id bigint NOT NULL,
  path text NOT NULL,
  version_id bigint NOT NULL,
  edge_set_id bigint,
  semantic_state text NOT NULL,
  semantic_reason text,
  PRIMARY KEY (repo_id, snapshot_id, path),
  FOREIGN KEY (repo_id, snapshot_id) REFERENCES snapshots(repo_id, snapshot_id) ON DELETE CASCADE
);

CREATE TABLE labels (
  repo_id bigint NOT NULL REFERENCES repositories(repo_id),
  name text NOT NULL,
  snapshot_id bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repo_id, name),
  FOREIGN KEY (repo_id, snapshot_id) REFERENCES snapshots(repo_id, snapshot_id)
);
`;

// Search (decision 046): per node a head and a body tsvector built in TypeScript with the local
// index's FTS tokens (textVectors.ts) and its length in tokens (BM25's document length); per
// snapshot its total tokens (BM25's average length, fixed since a snapshot is immutable); per
// embedding model the HNSW (cosine) index the publisher created for it; the lookups an HNSW walk
// makes per candidate (is this embedding in the label's snapshot?) by index.
const SEARCH = `
ALTER TABLE nodes ADD COLUMN head tsvector, ADD COLUMN body tsvector, ADD COLUMN text_length integer;
CREATE INDEX nodes_head ON nodes USING gin (head);
CREATE INDEX nodes_body ON nodes USING gin (body);
ALTER TABLE snapshots ADD COLUMN text_tokens bigint;
CREATE INDEX node_vectors_hash ON node_vectors(repo_id, model, content_hash);
CREATE INDEX snapshot_files_version ON snapshot_files(repo_id, snapshot_id, version_id);
CREATE TABLE vector_models (
  model text PRIMARY KEY,
  dims integer NOT NULL,
  index_name text NOT NULL
);
`;

// The read path (decision 042): symbol lookup is case-insensitive like SQLite's COLLATE NOCASE;
// an incoming walk keeps an edge when its edge set belongs to the snapshot, an outgoing one finds
// the frontier's files by version (that index came with migration 2).
const READ_PATH = `
CREATE INDEX nodes_qualified_name_ci ON nodes(repo_id, lower(qualified_name));
CREATE INDEX nodes_name_ci ON nodes(repo_id, lower(name));
CREATE INDEX snapshot_files_edge_set ON snapshot_files(repo_id, edge_set_id, snapshot_id);
`;

// Result facts (decision 046, amended): the other locations of a result's identical code are
// found by chunk hash within the repository, then kept when their version is the snapshot's.
const FACTS = `
CREATE INDEX IF NOT EXISTS nodes_chunk_hash ON nodes(repo_id, chunk_hash);
`;

// Search at scale (decision 046, "Search at scale"): what the vector channel's plan needs, stored
// when it is known instead of counted per query: per snapshot its embeddings (node windows) of
// each model, per model its embeddings in the whole store (refreshed by every publish). Null on
// snapshots published before: the reader counts them then.
const VECTOR_COUNTS = `
ALTER TABLE snapshots ADD COLUMN vector_counts jsonb;
ALTER TABLE vector_models ADD COLUMN vectors bigint;
`;

// BM25 at scale (decision 046, "Search at scale"): per node and lexeme its column-weighted
// frequencies (postings, written with the node; `file_versions.postings` says a version has
// them), read by an index range on the lexeme so a search reads only its terms' rows; per
// snapshot each lexeme's document frequency in all columns and in the name columns, written when
// the label switches (`snapshots.terms` says a snapshot has them), read by the term plan and never
// counted per search. The "C" collation makes a prefix phrase one range of the index. No search
// matches the tsvectors any more: their GIN indexes go (publish no longer maintains them).
const POSTINGS = `
CREATE TABLE postings (
  repo_id bigint NOT NULL,
  version_id bigint NOT NULL,
  ordinal integer NOT NULL,
  lexeme text COLLATE "C" NOT NULL,
  freq float8 NOT NULL,
  names float8 NOT NULL,
  prefix_names float8 NOT NULL,
  text_length integer NOT NULL,
  start_byte integer NOT NULL
);
CREATE INDEX postings_lexeme ON postings(repo_id, lexeme, version_id);
ALTER TABLE file_versions ADD COLUMN postings boolean NOT NULL DEFAULT false;
CREATE TABLE snapshot_terms (
  repo_id bigint NOT NULL,
  snapshot_id bigint NOT NULL,
  lexeme text COLLATE "C" NOT NULL,
  hits integer NOT NULL,
  name_hits integer NOT NULL,
  PRIMARY KEY (repo_id, snapshot_id, lexeme),
  FOREIGN KEY (repo_id, snapshot_id) REFERENCES snapshots(repo_id, snapshot_id) ON DELETE CASCADE
);
ALTER TABLE snapshots ADD COLUMN terms boolean NOT NULL DEFAULT false;
DROP INDEX IF EXISTS nodes_head;
DROP INDEX IF EXISTS nodes_body;
`;

// BM25 postings read from the index alone (decision 053): the ranking statement reads every
// column of a phrase's postings, and the heap rows of one lexeme lie on as many pages as rows
// (they are written version by version). The same keys with the other columns included let it
// scan one index range instead (an index-only scan; publish VACUUMs postings so the pages it
// wrote are all-visible); the key-only index it replaces goes.
const POSTINGS_COVER = `
CREATE INDEX IF NOT EXISTS postings_cover ON postings(repo_id, lexeme, version_id) INCLUDE (ordinal, freq, names, prefix_names, text_length, start_byte);
DROP INDEX IF EXISTS postings_lexeme;
`;

// Navigation at scale (decision 053): every navigation answer reports the label's files without
// exact edges, grouped (project, language, state); a snapshot is immutable, so publish stores the
// groups with it instead of every answer grouping all of its files. Null on snapshots published
// before: the reader groups them then.
const SEMANTIC_GAPS = `
ALTER TABLE snapshots ADD COLUMN semantic_gaps jsonb;
`;

/** The numbered migrations, oldest first (forward-only: a released one is never edited). */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, name: 'repositories, content-addressed file versions, edge sets, snapshots and labels', sql: INITIAL },
  { version: 2, name: 'search: head and body tsvectors, snapshot token totals, HNSW indexes per model', sql: SEARCH },
  { version: 3, name: 'read path: case-insensitive name lookups, snapshot files by edge set', sql: READ_PATH },
  { version: 4, name: 'result facts: nodes by chunk hash', sql: FACTS },
  { version: 5, name: 'search at scale: vector counts per snapshot and per model stored at publish', sql: VECTOR_COUNTS },
  { version: 6, name: 'search at scale: BM25 postings per version, document frequencies per snapshot', sql: POSTINGS },
  { version: 7, name: 'search at scale: BM25 postings read from a covering index', sql: POSTINGS_COVER },
  { version: 8, name: 'navigation at scale: semantic gap groups stored per snapshot', sql: SEMANTIC_GAPS },
];

/** The schema version this tool writes and reads. */
export const PG_SCHEMA_VERSION = Math.max(...PG_MIGRATIONS.map((m) => m.version));

// One advisory lock key for migrations (the two-int form's first half); publishers lock other keys.
const MIGRATION_LOCK = 0x6361_0001;

/** The server's applied schema version (0: none), or null when the migration table is missing. */
export async function serverSchemaVersion(client: PgClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('ca_schema_migrations')::text AS t`);
  if (exists.rows[0]?.t == null) return 0;
  const r = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ca_schema_migrations`);
  return r.rows[0]?.v ?? 0;
}

/** Refuses a server whose schema is newer than this tool's. */
export function assertNotNewer(version: number): void {
  if (version > PG_SCHEMA_VERSION) {
    throw new CaError('schema_too_new', `the team store's schema is version ${version}, newer than this tool's ${PG_SCHEMA_VERSION}: upgrade ca before using this store`);
  }
}

/** pgvector created in the database, or a CaError naming the fix (`extension` is the extension's name). */
export async function assertVectorExtension(client: PgClient, extension = 'vector'): Promise<void> {
  const created = await client.query(`SELECT 1 FROM pg_extension WHERE extname = $1`, [extension]);
  if (created.rowCount! > 0) return;
  const available = await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = $1`, [extension]);
  if (available.rowCount === 0) {
    throw new CaError('store_extension_missing', `pgvector ("${extension}") is not installed on the PostgreSQL server: run tools/install-postgres.sh on the server's host, then as a superuser: CREATE EXTENSION ${extension};`);
  }
  try {
    await client.query(`CREATE EXTENSION IF NOT EXISTS vector`);
  } catch (e) {
    throw new CaError('store_extension_missing', `pgvector is installed on the server but not created in this database, and this role may not create it: as a superuser run CREATE EXTENSION vector; in the database (tools/install-postgres.sh installs pgvector)`, { cause: e });
  }
}

/**
 * Brings the server's schema to this tool's version (forward-only, each migration in its own
 * transaction, under an advisory lock so concurrent tools migrate once); refuses a newer one.
 */
export async function migrate(client: PgClient): Promise<number> {
  const before = await serverSchemaVersion(client);
  assertNotNewer(before);
  if (before === PG_SCHEMA_VERSION) return before;
  await assertVectorExtension(client);
  await client.query(`SELECT pg_advisory_lock($1, 0)`, [MIGRATION_LOCK]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS ca_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const current = await serverSchemaVersion(client);
    assertNotNewer(current);
    for (const m of PG_MIGRATIONS) {
      if (m.version <= current) continue;
      await inTransaction(client, async () => {
        await client.query(m.sql);
        await client.query(`INSERT INTO ca_schema_migrations(version, name) VALUES ($1, $2)`, [m.version, m.name]);
      });
    }
  } finally {
    await client.query(`SELECT pg_advisory_unlock($1, 0)`, [MIGRATION_LOCK]).catch(() => undefined); // why: a dropped connection released the lock already
  }
  return PG_SCHEMA_VERSION;
}
