import type { Generated } from 'kysely';

/** Row shapes of the index tables, for Kysely's typed queries. */
export interface FilesTable {
  id: Generated<number>;
  path: string;
  content_hash: string;
  language: string | null;
  size: number;
  line_count: number;
  parse_status: string;
  status_reason: string | null;
  generated: number;
  project: string;
  semantic_state: string;
  semantic_reason: string | null;
  extractor: string;
  indexed_at: string;
}

export interface LabelsTable {
  id: Generated<number>;
  name: string;
  commit_sha: string | null;
  updated_at: string;
}

export interface LabelFilesTable {
  label_id: number;
  path: string;
  file_id: number;
  mtime_ms: number | null;
}

export interface NodesTable {
  id: Generated<number>;
  file_id: number;
  parent_id: number | null;
  kind: string;
  language: string;
  name: string;
  qualified_name: string;
  symbol_key: string;
  disambiguator: number;
  project: string;
  start_line: number;
  end_line: number;
  start_byte: number;
  end_byte: number;
  signature: string;
  parameter_count: number | null;
  return_type: string | null;
  modifiers: string;
  attributes: string | null;
  is_public_api: number;
  doc: string | null;
  generated: number;
  chunk_text: string;
  chunk_hash: string;
  reference_count: number | null;
}

export interface EdgesTable {
  id: Generated<number>;
  source_id: number;
  file_id: number;
  type: string;
  confidence: string;
  target_key: string;
  target_name: string;
  target_id: number | null;
  target_module: string | null;
  imported_name: string | null;
  specifier: string | null;
  line: number;
  extractor: string;
}

export interface MetadataTable {
  key: string;
  value: string;
}

export interface EventsTable {
  id: Generated<number>;
  at: string;
  kind: string;
  path: string | null;
  message: string;
  data: string | null;
}

export interface Database {
  files: FilesTable;
  labels: LabelsTable;
  label_files: LabelFilesTable;
  nodes: NodesTable;
  edges: EdgesTable;
  _metadata: MetadataTable;
  events: EventsTable;
}
