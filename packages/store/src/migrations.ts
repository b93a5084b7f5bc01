/**
 * Numbered, forward-only migrations. Each runs in its own transaction and is recorded in
 * `_migration_log`; `_metadata.schema_version` holds the newest applied version.
 */
import { DOC_LANGUAGES, ftsTextOf, pathTokens } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { MERGEABLE_KINDS } from './writer.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** Runs after `sql`, in the same transaction (data that SQL alone cannot derive). */
  readonly run?: (db: SqliteDatabase) => void;
  /**
   * A table rebuild (SQLite's create-copy-drop-rename): foreign keys are off while it runs, or
   * dropping the old table would cascade into every table referencing it; their integrity is
   * checked before the transaction commits.
   */
  readonly rebuildsTables?: boolean;
}

/** FTS5 tokenizer of schema 1–4: identifiers with `_ . $ : @` stay whole tokens (`global::myapp.core`). */
const FTS_TOKENIZE_V1 = `unicode61 remove_diacritics 2 tokenchars '_.$:@'`;
/**
 * FTS5 tokenizer since schema 5: the same tokens, Porter-stemmed (`formatted` and `format`,
 * `charging` and `charge` meet). Queries are stemmed the same way, so identifiers still match
 * themselves. Chosen by eval (docs/benchmarks.md, "Ranking changes").
 */
export const FTS_TOKENIZE = `porter ${FTS_TOKENIZE_V1}`;

const FTS_TABLE = `CREATE VIRTUAL TABLE fts_nodes USING fts5(
  name, qualified_name, split, signature, doc, path, body,
  content='', contentless_delete=1,
  tokenize="${FTS_TOKENIZE}",
  prefix='2 3 4'
);`;

/**
 * The documentation partition's full-text table: the rows of every node of a Markdown, JSON or
 * YAML file (@ca/schema `DOC_LANGUAGES`), apart from the code's so that their terms do not change
 * the code's BM25 statistics (decision 039). Same columns and tokenizer as `fts_nodes`.
 */
const FTS_DOCS_TABLE = FTS_TABLE.replace('fts_nodes', 'IF NOT EXISTS fts_docs');

/** The SQL list of the documentation languages (constants of @ca/schema, not user input). */
const DOC_LANGUAGE_LIST = DOC_LANGUAGES.map((l) => `'${l}'`).join(', ');

/** Re-creates every FTS row from the nodes (the text is derived exactly as the writer derives it). */
function refillFts(db: SqliteDatabase): void {
  fillFts(db, 'fts_nodes', '');
}

/** Writes the FTS rows of the nodes `where` selects (an SQL condition on `n`, or '') into `table`. */
function fillFts(db: SqliteDatabase, table: 'fts_nodes' | 'fts_docs', where: string): void {
  const insert = db.prepare(`INSERT INTO ${table}(rowid, name, qualified_name, split, signature, doc, path, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const page = db.prepare(
    `SELECT n.id, n.name, n.qualified_name AS qualifiedName, n.kind, n.chunk_text AS chunkText, n.doc, n.signature, f.path
     FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.id > ? ${where} ORDER BY n.id LIMIT 2000`,
  );
  type Row = { id: number; name: string; qualifiedName: string; kind: string; chunkText: string; doc: string | null; signature: string; path: string };
  for (let after = 0; ; ) {
    const rows = page.all(after) as Row[];
    if (rows.length === 0) break;
    for (const r of rows) {
      const fts = ftsTextOf(r);
      insert.run(r.id, r.name, r.qualifiedName, fts.split, r.signature, r.doc ?? '', pathTokens(r.path), fts.body);
    }
    after = rows[rows.length - 1]!.id;
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  language TEXT,
  size INTEGER NOT NULL,
  line_count INTEGER NOT NULL DEFAULT 0,
  parse_status TEXT NOT NULL CHECK (parse_status IN ('ok','partial','error','no_grammar','skipped')),
  status_reason TEXT,
  generated INTEGER NOT NULL DEFAULT 0,
  project TEXT NOT NULL DEFAULT '',
  semantic_state TEXT NOT NULL DEFAULT 'none' CHECK (semantic_state IN ('none','pending','ok','failed')),
  semantic_reason TEXT,
  extractor TEXT NOT NULL DEFAULT '',
  indexed_at TEXT NOT NULL,
  UNIQUE (path, content_hash)
);

CREATE TABLE labels (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  commit_sha TEXT,
  updated_at TEXT NOT NULL
);

CREATE TABLE label_files (
  label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  mtime_ms INTEGER,
  PRIMARY KEY (label_id, path)
) WITHOUT ROWID;
CREATE INDEX label_files_file ON label_files(file_id);

CREATE TABLE nodes (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
  kind TEXT NOT NULL,
  language TEXT NOT NULL,
  name TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  symbol_key TEXT NOT NULL,
  disambiguator INTEGER NOT NULL DEFAULT 0,
  project TEXT NOT NULL DEFAULT '',
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  signature TEXT NOT NULL DEFAULT '',
  parameter_count INTEGER,
  return_type TEXT,
  modifiers TEXT NOT NULL DEFAULT '',
  attributes TEXT,
  is_public_api INTEGER NOT NULL DEFAULT 0,
  doc TEXT,
  generated INTEGER NOT NULL DEFAULT 0,
  chunk_text TEXT NOT NULL DEFAULT '',
  chunk_hash TEXT NOT NULL DEFAULT '',
  reference_count INTEGER,
  UNIQUE (file_id, symbol_key, disambiguator)
);
CREATE INDEX nodes_name ON nodes(name COLLATE NOCASE);
CREATE INDEX nodes_qualified_name ON nodes(qualified_name COLLATE NOCASE);
CREATE INDEX nodes_symbol_key ON nodes(symbol_key);
CREATE INDEX nodes_parent ON nodes(parent_id);

CREATE TABLE node_spans (
  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  start_byte INTEGER NOT NULL,
  end_byte INTEGER NOT NULL,
  PRIMARY KEY (node_id, file_id, start_byte)
) WITHOUT ROWID;
CREATE INDEX node_spans_file ON node_spans(file_id);

CREATE TABLE edges (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  confidence TEXT NOT NULL CHECK (confidence IN ('exact','probable','approximate')),
  target_key TEXT NOT NULL,
  target_name TEXT NOT NULL,
  target_id INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
  target_module TEXT,
  imported_name TEXT,
  specifier TEXT,
  line INTEGER NOT NULL,
  extractor TEXT NOT NULL
);
CREATE INDEX edges_source ON edges(source_id, type);
CREATE INDEX edges_target ON edges(target_id, type);
CREATE INDEX edges_file ON edges(file_id);
CREATE INDEX edges_unresolved ON edges(target_module) WHERE target_id IS NULL;

-- Re-exports of a module (\`export * from './x'\`, \`export { a } from './x'\`), for import resolution.
CREATE TABLE module_reexports (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  target_module TEXT NOT NULL,
  name TEXT NOT NULL
);
CREATE INDEX module_reexports_file ON module_reexports(file_id);

CREATE VIRTUAL TABLE fts_nodes USING fts5(
  name, qualified_name, split, signature, doc, path, body,
  content='', contentless_delete=1,
  tokenize="${FTS_TOKENIZE_V1}",
  prefix='2 3 4'
);

CREATE TABLE embeddings (
  id INTEGER PRIMARY KEY,
  model_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (model_id, content_hash)
);

CREATE TABLE node_embeddings (
  node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  window INTEGER NOT NULL DEFAULT 0,
  embedding_id INTEGER NOT NULL REFERENCES embeddings(id) ON DELETE CASCADE,
  PRIMARY KEY (node_id, window)
) WITHOUT ROWID;
CREATE INDEX node_embeddings_embedding ON node_embeddings(embedding_id);

-- Vector index over embeddings.id (rowid). Recreated with other dimensions on a model change.
CREATE VIRTUAL TABLE vec_embeddings USING vec0(embedding float[384]);

CREATE TABLE deletion_log (
  id INTEGER PRIMARY KEY,
  node_id INTEGER NOT NULL,
  symbol_key TEXT NOT NULL,
  qualified_name TEXT NOT NULL,
  kind TEXT NOT NULL,
  path TEXT NOT NULL,
  snapshot TEXT NOT NULL,
  reason TEXT NOT NULL,
  deleted_at TEXT NOT NULL
);

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  path TEXT,
  message TEXT NOT NULL,
  data TEXT
);
CREATE INDEX events_kind ON events(kind, id);
`,
  },
  {
    version: 2,
    name: 'vector freshness counters and stale-embedding triggers',
    sql: `
-- In-memory vector indexes (VectorStore) compare these counters on every query: generation
-- moves on any change to the vectors or their node assignments, epoch only when embeddings are
-- deleted or rewritten (then an incremental refresh is not enough).
INSERT OR IGNORE INTO _metadata(key, value) VALUES ('vectors_generation', '0');
INSERT OR IGNORE INTO _metadata(key, value) VALUES ('vectors_epoch', '0');

-- Node deletions cascade here without going through VectorStore: count them too.
CREATE TRIGGER node_embeddings_deleted AFTER DELETE ON node_embeddings BEGIN
  UPDATE _metadata SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_generation';
END;

-- A node whose chunk changed no longer has a valid vector: drop its assignment so it is never
-- served stale and VectorStore.nodesNeedingEmbedding finds it again.
CREATE TRIGGER nodes_chunk_changed AFTER UPDATE OF chunk_hash ON nodes
WHEN old.chunk_hash IS NOT new.chunk_hash BEGIN
  DELETE FROM node_embeddings WHERE node_id = new.id;
END;
`,
  },
  {
    version: 3,
    name: 'index on semantic state for completeness reports',
    sql: `CREATE INDEX files_semantic_state ON files(semantic_state, language);`,
  },
  {
    version: 4,
    name: 'persisted quantised vector index (cold start)',
    // The in-memory vector index as it was built (quantised rows in parts of up to 65,536
    // vectors), so a new process copies it instead of reading every float vector and
    // quantising it again. Valid while the vectors epoch (deletions, rewrites) is unchanged;
    // vectors added since are appended from the embeddings table. The header in _metadata
    // ('vectors_snapshot') is written last, in the same transaction.
    sql: `
CREATE TABLE vector_snapshot_parts (
  part INTEGER PRIMARY KEY,
  ids BLOB NOT NULL,
  inv_norm BLOB NOT NULL,
  f32 BLOB,
  i8 BLOB,
  bits BLOB
);
`,
  },
  {
    version: 5,
    name: 'Porter-stemmed full-text index',
    sql: `DROP TABLE fts_nodes;\n${FTS_TABLE}`,
    run: refillFts,
  },
  {
    version: 6,
    name: 'covering index of edge targets with their file',
    // Search counts the distinct files calling each candidate (IndexReader.callerFileCounts):
    // with file_id in the index that is an index-only scan. Every query of the old index
    // (target_id, type) is served by the new one.
    sql: `CREATE INDEX IF NOT EXISTS edges_target_file ON edges(target_id, type, file_id);\nDROP INDEX IF EXISTS edges_target;`,
  },
  {
    version: 7,
    name: 'reference counts kept by triggers from the semantic edges',
    // nodes.reference_count = the semantic `calls` + `references` edges into the node (one per
    // using symbol and line), NULL when there are none. Triggers keep it exact through every
    // write path: a semantic pass of some files, a re-parsed or deleted file (its edges go,
    // cascades included), a target resolved later. Before, each pass wrote the counts of the
    // files it had analysed, so a partial pass or a second project overwrote the totals.
    sql: `
CREATE TRIGGER IF NOT EXISTS edges_count_insert AFTER INSERT ON edges
  WHEN new.target_id IS NOT NULL AND new.type IN ('calls','references') AND new.extractor LIKE 'semantic:%'
BEGIN
  UPDATE nodes SET reference_count = coalesce(reference_count, 0) + 1 WHERE id = new.target_id;
END;
CREATE TRIGGER IF NOT EXISTS edges_count_delete AFTER DELETE ON edges
  WHEN old.target_id IS NOT NULL AND old.type IN ('calls','references') AND old.extractor LIKE 'semantic:%'
BEGIN
  UPDATE nodes SET reference_count = nullif(reference_count - 1, 0) WHERE id = old.target_id;
END;
CREATE TRIGGER IF NOT EXISTS edges_count_update AFTER UPDATE OF target_id, type, extractor ON edges
BEGIN
  UPDATE nodes SET reference_count = nullif(reference_count - 1, 0)
    WHERE id = old.target_id AND old.type IN ('calls','references') AND old.extractor LIKE 'semantic:%';
  UPDATE nodes SET reference_count = coalesce(reference_count, 0) + 1
    WHERE id = new.target_id AND new.type IN ('calls','references') AND new.extractor LIKE 'semantic:%';
END;
UPDATE nodes SET reference_count = (
  SELECT nullif(count(*), 0) FROM edges e
  WHERE e.target_id = nodes.id AND e.type IN ('calls','references') AND e.extractor LIKE 'semantic:%'
);
`,
  },
  {
    version: 8,
    name: 'syntactic edges set aside by a semantic pass',
    // A semantic pass used to delete the syntactic edge of every use it resolved. When the
    // file's semantic context later changed (a tsconfig alias removed, a project broken into
    // invalid JSON) and the new pass resolved less or failed, those uses had no edge at all
    // until the file itself was edited. The pass now moves them here; the next pass of the
    // file, or its degradation to syntactic-only, moves them back (decision 012). Same columns
    // and cascades as `edges`; no trigger reads this table (reference counts are semantic).
    sql: `
CREATE TABLE IF NOT EXISTS superseded_edges (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  confidence TEXT NOT NULL,
  target_key TEXT NOT NULL,
  target_name TEXT NOT NULL,
  target_id INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
  target_module TEXT,
  imported_name TEXT,
  specifier TEXT,
  line INTEGER NOT NULL,
  extractor TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS superseded_edges_file ON superseded_edges(file_id);
CREATE INDEX IF NOT EXISTS superseded_edges_source ON superseded_edges(source_id);
CREATE INDEX IF NOT EXISTS superseded_edges_target ON superseded_edges(target_id);
`,
  },
  {
    version: 9,
    name: 'labels of commits and worktrees, file contents, sweepable journal',
    // A label is the working tree ('working', or 'working@<worktree>' for a linked git worktree)
    // or a commit ('commit'); a crawl of a commit fills a staging label ('staging', named
    // '~<label>') that replaces its label in one transaction when complete, so an interrupted
    // crawl leaves the label as it was and resumes from what it staged. commit_sha is the
    // commit a label was indexed at (for the working tree: HEAD then), head_ref the branch HEAD
    // was on, dirty whether indexed files differed from that commit. file_contents keeps each
    // version's bytes (deflated), content-addressed like files.content_hash, so a file of a
    // label whose commit is not checked out can be shown.
    sql: `
CREATE TABLE IF NOT EXISTS file_contents (
  content_hash TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  data BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_content_hash ON files(content_hash);
CREATE INDEX IF NOT EXISTS deletion_log_at ON deletion_log(deleted_at);
`,
    run: (db) => {
      // Columns are added only where missing (an index rewound to an older schema keeps them).
      const have = new Set((db.prepare(`PRAGMA table_info(labels)`).all() as { name: string }[]).map((c) => c.name));
      const columns: [string, string][] = [
        ['kind', `TEXT NOT NULL DEFAULT 'working' CHECK (kind IN ('working','commit','staging'))`],
        ['target_sha', 'TEXT'],
        ['head_ref', 'TEXT'],
        ['dirty', 'INTEGER'],
        ['worktree', 'TEXT'],
        ['indexed_at', 'TEXT'],
      ];
      for (const [name, type] of columns) if (!have.has(name)) db.exec(`ALTER TABLE labels ADD COLUMN ${name} ${type}`);
    },
  },
  {
    version: 10,
    name: 'indexes for identical code and filters',
    // Search returns identical code (a copied file, a vendored duplicate) once with every
    // location listed: the other locations of a result are looked up by its chunk hash.
    // A filter's allowed set (the vector channel scans only it) reads every node of the label:
    // from this covering index, a tenth of the pages of the rows with their chunk text
    // (docs/benchmarks.md, "Filters").
    sql: `CREATE INDEX IF NOT EXISTS nodes_chunk_hash ON nodes(chunk_hash);
CREATE INDEX IF NOT EXISTS nodes_filter ON nodes(file_id, kind, language, is_public_api, generated, project, name, qualified_name, return_type);`,
  },
  {
    version: 11,
    name: 'unresolved edges by the name they use',
    // A C# declaration that appears revisits the files whose unresolved uses name it
    // (`markNameUsersPending`, decision 022): looked up by name, not by scanning every edge.
    sql: `CREATE INDEX IF NOT EXISTS edges_unresolved_name ON edges(target_name) WHERE target_id IS NULL;`,
  },
  // 12 was never released (a branch's number for the documentation partition, now 14).
  {
    version: 13,
    name: 'a file version per merge context',
    // A version holding a C# `partial` fragment belongs to its label's merge (decision 047): the
    // unique key gains `merge_scope` ('' shareable, '#<id>' one label's own), so the same bytes
    // can be a version per merge context, and the extractor (the same bytes under other C#
    // defines are another version, never re-extracted in place of one another label holds).
    sql: '',
    rebuildsTables: true,
    run: scopeFileVersions,
  },
  {
    version: 14,
    name: 'documentation partition: a full-text table of its own',
    // Rows of documentation nodes an index already holds (none unless it was built with doc
    // chunks in fts_nodes) move to fts_docs.
    sql: FTS_DOCS_TABLE,
    run: (db) => {
      const ids = db.prepare(`SELECT id FROM nodes WHERE language IN (${DOC_LANGUAGE_LIST})`).pluck().all() as number[];
      if (ids.length === 0) return;
      const drop = db.prepare(`DELETE FROM fts_nodes WHERE rowid = ?`);
      for (const id of ids) drop.run(id);
      fillFts(db, 'fts_docs', `AND n.language IN (${DOC_LANGUAGE_LIST})`);
    },
  },
  {
    version: 15,
    name: 'where unresolved imports would be found',
    // A TS file importing a module by a `paths` alias that resolves to nothing yet binds again
    // when that module appears (\`SemanticStore.markImportersPending\`, decision 022, difference 25).
    // Filled by the semantic pass; an index built before has none until its files are analysed
    // again (the TS extractor version changed with it, so they are).
    sql: `CREATE TABLE IF NOT EXISTS module_lookups (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  module TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS module_lookups_module ON module_lookups(module);
CREATE INDEX IF NOT EXISTS module_lookups_file ON module_lookups(file_id);`,
  },
];

/**
 * Migration 13: rebuilds `files` with `extractor` and `merge_scope` in its unique key. Versions already holding a
 * mergeable fragment get an own scope: no other label takes them from now on (one that two labels
 * hold stays theirs until either indexes that path again). Skipped when the column is there (an
 * index rewound to an older schema).
 */
function scopeFileVersions(db: SqliteDatabase): void {
  const columns = (db.prepare(`PRAGMA table_info(files)`).all() as { name: string }[]).map((c) => c.name);
  if (columns.includes('merge_scope')) return;
  db.exec(`
CREATE TABLE files_rebuilt (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  language TEXT,
  size INTEGER NOT NULL,
  line_count INTEGER NOT NULL DEFAULT 0,
  parse_status TEXT NOT NULL CHECK (parse_status IN ('ok','partial','error','no_grammar','skipped')),
  status_reason TEXT,
  generated INTEGER NOT NULL DEFAULT 0,
  project TEXT NOT NULL DEFAULT '',
  semantic_state TEXT NOT NULL DEFAULT 'none' CHECK (semantic_state IN ('none','pending','ok','failed')),
  semantic_reason TEXT,
  extractor TEXT NOT NULL DEFAULT '',
  indexed_at TEXT NOT NULL,
  merge_scope TEXT NOT NULL DEFAULT '',
  UNIQUE (path, content_hash, extractor, merge_scope)
);
INSERT INTO files_rebuilt(id, path, content_hash, language, size, line_count, parse_status, status_reason, generated, project,
    semantic_state, semantic_reason, extractor, indexed_at)
  SELECT id, path, content_hash, language, size, line_count, parse_status, status_reason, generated, project,
    semantic_state, semantic_reason, extractor, indexed_at FROM files;
DROP TABLE files;
ALTER TABLE files_rebuilt RENAME TO files;
CREATE INDEX IF NOT EXISTS files_semantic_state ON files(semantic_state, language);
CREATE INDEX IF NOT EXISTS files_content_hash ON files(content_hash);
`);
  const kinds = [...MERGEABLE_KINDS];
  db.prepare(`UPDATE files SET merge_scope = '#' || id WHERE id IN (
      SELECT file_id FROM nodes WHERE kind IN (${kinds.map(() => '?').join(',')}) AND (' ' || modifiers || ' ') LIKE '% partial %')`).run(...kinds);
}

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
