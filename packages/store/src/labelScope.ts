/**
 * "Rows visible in label L": the one spelling of the label join. A label holds file versions
 * (`label_files`); a row of any per-file table (nodes, edges, spans, re-exports, files) is
 * visible in the label when its file id is one of them. Every fragment here is fixed text: the
 * label (its name or its id) is always a bound parameter (`?`), never pasted into the SQL, so one
 * prepared statement serves every label and no label name can change what a query means.
 *
 * The only text a caller passes in is the column holding the file id (`n.file_id`), which must be
 * a qualified column name written in the store's own code (checked here).
 */

/** How the bound parameter names the label: by name (resolved to its id inside the query) or by id. */
export type LabelRef = 'name' | 'id';

const LABEL_ID: Readonly<Record<LabelRef, string>> = {
  name: '(SELECT id FROM labels WHERE name = ?)',
  id: '?',
};

/** A qualified column (`alias.column`) or a bare one: identifiers only, nothing a value could hide in. */
const COLUMN = /^(?:[a-z][a-z0-9_]*\.)?[a-z][a-z0-9_]*$/;

function column(fileId: string): string {
  if (!COLUMN.test(fileId)) throw new Error(`labelScope: ${JSON.stringify(fileId)} is not a column name`);
  return fileId;
}

/** The SQL expression of the label's id: one bound parameter (`?`), a name or an id per `by`. */
export function labelIdSql(by: LabelRef = 'name'): string {
  return LABEL_ID[by];
}

/**
 * `JOIN label_files <alias> ON <alias>.file_id = <fileId> AND <alias>.label_id = <label>`: keeps the
 * rows whose file version the label holds, and gives the label's path of it (`<alias>.path`).
 * Binds one parameter, at the position of the fragment in the statement.
 */
export function inLabelJoin(fileId: string, by: LabelRef = 'name', alias = 'lf'): string {
  return `JOIN label_files ${column(alias)} ON ${alias}.file_id = ${column(fileId)} AND ${alias}.label_id = ${LABEL_ID[by]}`;
}

/**
 * `inLabelJoin`'s rows, planned from the label: a join to `labels` by name lets SQLite start from
 * the label's own entries (the `label_files` primary key) and reach the other table by id. For a
 * scan of a whole label with conditions on indexed file columns (language, semantic state), where
 * the scalar-subquery form lets the planner start from those columns' index over every version of
 * every label instead. Binds one parameter (the label's name).
 */
export function inLabelJoinByLabel(fileId: string, alias = 'lf'): string {
  const a = column(alias);
  return `JOIN label_files ${a} ON ${a}.file_id = ${column(fileId)} JOIN labels ${a}_label ON ${a}_label.id = ${a}.label_id AND ${a}_label.name = ?`;
}

/**
 * `EXISTS (…)`: the same condition as `inLabelJoin` as a predicate (for a WHERE clause, where a
 * join would change the row count or the plan). Binds one parameter.
 */
export function inLabelExists(fileId: string, by: LabelRef = 'name'): string {
  return `EXISTS (SELECT 1 FROM label_files lf WHERE lf.file_id = ${column(fileId)} AND lf.label_id = ${LABEL_ID[by]})`;
}

/**
 * `<fileId> IN (SELECT file_id FROM label_files WHERE label_id = <label>)`: the condition as a set
 * membership (SQLite builds the label's file set once per statement; a filter term uses it).
 * Binds one parameter.
 */
export function inLabelSet(fileId: string, by: LabelRef = 'name'): string {
  return `${column(fileId)} IN (SELECT file_id FROM label_files WHERE label_id = ${LABEL_ID[by]})`;
}

/**
 * `label_files lf WHERE lf.label_id = <label>` without the WHERE: the condition to put after a
 * `FROM label_files lf …` that starts from the label's own entries. Binds one parameter.
 */
export function labelEntriesCondition(by: LabelRef = 'name', alias = 'lf'): string {
  return `${column(alias)}.label_id = ${LABEL_ID[by]}`;
}
