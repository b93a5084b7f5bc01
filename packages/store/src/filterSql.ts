/**
 * Compilation of a filter expression (@ca/schema `parseFilter`) into a SQL condition over
 * `nodes n JOIN files f`, and the per-connection functions and caches it relies on.
 *
 * A filter may have to be checked on every node of the index (the vector channel needs the
 * allowed set), so each field is compiled to the cheapest test that is exact: path fields
 * (`path:`, `is:test`) are matched once per file in JavaScript and become a list of file ids;
 * `project:` and `label:` are resolved against the index into `IN` lists; name globs become
 * SQL `LIKE` where they can (a function called back per row costs about ten times more); type
 * fields narrow the rows with a `LIKE` on their literal part before a registered function reads
 * the signature.
 */
import { CaError, globLiteral, globToLike, globToRegExp, isTestPath, projectDisplayName, type FilterNode, type FilterTerm } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { declaredTypes, typeMatches } from './declaredTypes.js';
import { cachedRaw, changeStamp, selectColumn, selectOne, selectValue } from './statements.js';
import { inLabelExists, inLabelSet, labelEntriesCondition } from './labelScope.js';
import { languageStrategies } from './languages.js';
import { testProjectsOfAnyLabel } from './testProjects.js';

/** A filter as a SQL condition (`sql`, with `?` placeholders bound to `params`). */
export interface CompiledFilter {
  readonly sql: string;
  readonly params: readonly unknown[];
  /** Things the user should know (a `project:` naming no project of this index). */
  readonly notices: readonly string[];
}

const registered = new WeakSet<SqliteDatabase>();
const patterns = new Map<string, RegExp>();

/** A compiled glob by its key (`mode\0glob`), kept across queries (bounded). */
function patternOf(key: string): RegExp {
  let re = patterns.get(key);
  if (!re) {
    if (patterns.size > 512) patterns.clear();
    const sep = key.indexOf('\0');
    re = globToRegExp(key.slice(sep + 1), key.slice(0, sep) as 'path' | 'text');
    patterns.set(key, re);
  }
  return re;
}

/**
 * Registers the SQL functions compiled filters call (once per connection):
 * `ca_glob(key, value)`, `ca_type_glob(glob, typeText)` and
 * `ca_declared_type_glob(glob, kind, language, name, signature, returnType)`; each returns 0 or 1,
 * never NULL, so `NOT` behaves.
 */
function registerFunctions(db: SqliteDatabase): void {
  if (registered.has(db)) return;
  db.function('ca_glob', { deterministic: true }, (key: unknown, value: unknown) =>
    value === null || value === undefined ? 0 : patternOf(String(key)).test(String(value)) ? 1 : 0,
  );
  db.function('ca_type_glob', { deterministic: true }, (glob: unknown, text: unknown) =>
    typeof text === 'string' && text !== '' && typeMatches(patternOf(`text\0${String(glob)}`), text) ? 1 : 0,
  );
  db.function('ca_declared_type_glob', { deterministic: true }, (glob: unknown, kind: unknown, language: unknown, name: unknown, signature: unknown, returnType: unknown) => {
    const re = patternOf(`text\0${String(glob)}`);
    const types = declaredTypes(String(kind), languageStrategies(db).declaredTypes(String(language)), String(name ?? ''), String(signature ?? ''), typeof returnType === 'string' ? returnType : null);
    return types.some((t) => typeMatches(re, t)) ? 1 : 0;
  });
  registered.add(db);
}

const projectCache = new WeakMap<SqliteDatabase, { stamp: string; projects: string[] }>();

/** Every project value of the index (files of any label), read again when the index changes. */
function projectsOf(db: SqliteDatabase): string[] {
  const stamp = changeStamp(db);
  const cached = projectCache.get(db);
  if (cached && cached.stamp === stamp) return cached.projects;
  const projects = selectColumn<string>(db, `SELECT DISTINCT project FROM files ORDER BY project`);
  projectCache.set(db, { stamp, projects });
  return projects;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Every file of the index (all labels) as parallel id/path/project arrays, read again when the index changes. */
const fileCache = new WeakMap<SqliteDatabase, { stamp: string; ids: number[]; paths: string[]; projects: string[]; matches: Map<string, string> }>();

/**
 * A condition selecting the nodes of files that pass `test` (path and project): each file is
 * tested once here, and the condition lists the matching file ids — or, when most files match,
 * the others behind a NOT (the shorter list). `key` names the test in the per-connection cache.
 */
function filesWhere(db: SqliteDatabase, key: string, test: (path: string, project: string) => boolean, params: unknown[]): string {
  const stamp = changeStamp(db);
  let files = fileCache.get(db);
  if (!files || files.stamp !== stamp) {
    const rows = cachedRaw(db, `SELECT id, path, project FROM files`).all() as [number, string, string][];
    files = { stamp, ids: rows.map((r) => r[0]), paths: rows.map((r) => r[1]), projects: rows.map((r) => r[2]), matches: new Map() };
    fileCache.set(db, files);
  }
  let list = files.matches.get(key);
  if (list === undefined) {
    const yes: number[] = [];
    const no: number[] = [];
    files.paths.forEach((p, i) => (test(p, files!.projects[i]!) ? yes : no).push(files!.ids[i]!));
    list = yes.length <= no.length ? `+${JSON.stringify(yes)}` : `-${JSON.stringify(no)}`;
    if (files.matches.size > 64) files.matches.clear();
    files.matches.set(key, list);
  }
  params.push(list.slice(1));
  return `n.file_id ${list.startsWith('+') ? 'IN' : 'NOT IN'} (SELECT value FROM json_each(?))`;
}

/** `is:test`: test paths, and every file of a test project of any label (decision 051). */
function testFilesWhere(db: SqliteDatabase, params: unknown[]): string {
  const projects = testProjectsOfAnyLabel(db);
  return filesWhere(db, 'is:test', (path, project) => isTestPath(path) || projects.has(project), params);
}

function column(term: FilterTerm): string {
  return `column ${term.position + 1}`;
}

/**
 * Compiles a filter to a SQL condition over `n` (nodes) and `f` (files). Fails with
 * `unknown_label` (a usage error) for a label the index does not hold; a `project:` that names no project is
 * not an error (another repository of a workspace may hold it) but a notice.
 */
export function compileFilter(db: SqliteDatabase, node: FilterNode): CompiledFilter {
  registerFunctions(db);
  const params: unknown[] = [];
  const notices: string[] = [];
  const walk = (x: FilterNode): string => {
    switch (x.op) {
      case 'and':
      case 'or':
        return `(${x.args.map(walk).join(x.op === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return `(NOT ${walk(x.arg)})`;
      default:
        return termSql(db, x, params, notices);
    }
  };
  return { sql: walk(node), params, notices };
}

function termSql(db: SqliteDatabase, term: FilterTerm, params: unknown[], notices: string[]): string {
  switch (term.field) {
    case 'lang':
      params.push(term.value);
      return `n.language = ?`;
    case 'kind':
      params.push(term.value);
      return `n.kind = ?`;
    case 'path': {
      const re = patternOf(`path\0${term.value}`);
      return filesWhere(db, `path\0${term.value}`, (path) => re.test(path), params);
    }
    case 'name': {
      const likes = globToLike(term.value);
      if (likes) {
        params.push(...likes.flatMap((l) => [l, l]));
        return `(${likes.map(() => `n.name LIKE ? ESCAPE '\\' OR n.qualified_name LIKE ? ESCAPE '\\'`).join(' OR ')})`;
      }
      params.push(`text\0${term.value}`, `text\0${term.value}`);
      return `(ca_glob(?, n.name) OR ca_glob(?, n.qualified_name))`;
    }
    case 'is':
      if (term.value === 'public') return `n.is_public_api = 1`;
      if (term.value === 'generated') return `(n.generated = 1 OR f.generated = 1)`;
      return testFilesWhere(db, params);
    case 'returns': {
      const like = `%${escapeLike(globLiteral(term.value))}%`;
      params.push(like, term.value);
      return `(coalesce(n.return_type, '') LIKE ? ESCAPE '\\' AND ca_type_glob(?, n.return_type))`;
    }
    case 'type': {
      // Every declared type is written in the signature, or (C# members) in the return type.
      const like = `%${escapeLike(globLiteral(term.value))}%`;
      params.push(like, like, term.value);
      return `((n.signature LIKE ? ESCAPE '\\' OR coalesce(n.return_type, '') LIKE ? ESCAPE '\\') AND ca_declared_type_glob(?, n.kind, n.language, n.name, n.signature, n.return_type))`;
    }
    case 'project': {
      const re = patternOf(`text\0${term.value}`);
      const all = projectsOf(db);
      const hit = all.filter((p) => re.test(p) || re.test(projectDisplayName(p) ?? ''));
      if (hit.length === 0) {
        const names = [...new Set(all.map((p) => projectDisplayName(p)).filter((p): p is string => p !== null))];
        notices.push(`filter project:${term.value} (${column(term)}) matches no project of this index${names.length > 0 ? ` (projects: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''})` : ''}`);
        return `0`;
      }
      params.push(JSON.stringify(hit));
      return `n.project IN (SELECT value FROM json_each(?))`;
    }
    case 'label': {
      const id = selectValue<number>(db, `SELECT id FROM labels WHERE name = ?`, term.value);
      if (id === undefined) {
        const names = selectColumn<string>(db, `SELECT name FROM labels ORDER BY name`);
        throw new CaError('unknown_label', `invalid filter at ${column(term)}: unknown label "${term.value}" (labels: ${names.join(', ') || 'none yet'})`, {
          context: { position: term.position, label: term.value },
        });
      }
      params.push(id);
      return inLabelSet('n.file_id', 'id');
    }
  }
}

/** Node ids passing a filter, as a bitmap (`has` is one array read; search scans ~100K nodes with it). */
export class NodeIdSet {
  constructor(
    private readonly bits: Uint8Array,
    /** How many nodes passed. */
    readonly size: number,
  ) {}

  has(id: number): boolean {
    return id < this.bits.length && this.bits[id] === 1;
  }

  /** The ids, ascending. */
  *[Symbol.iterator](): IterableIterator<number> {
    for (let i = 0; i < this.bits.length; i++) if (this.bits[i] === 1) yield i;
  }

  static of(ids: readonly number[]): NodeIdSet {
    let max = -1;
    for (const id of ids) if (id > max) max = id;
    const bits = new Uint8Array(max + 1);
    for (const id of ids) bits[id] = 1;
    return new NodeIdSet(bits, ids.length);
  }
}

/** Allowed sets per connection, keyed by label and condition, kept until the index changes. */
const allowedCache = new WeakMap<SqliteDatabase, { stamp: string; sets: Map<string, NodeIdSet> }>();
const ALLOWED_CACHE_ENTRIES = 16;

/** Where a filter's nodes are looked for: one label's, or every node when the label holds every file version of the index. */
export interface FilterScope {
  readonly label: string;
  /** Every file version of the index belongs to the label (`IndexReader.exclusive`): its check is skipped. */
  readonly wholeIndex: boolean;
}

/** The files table joined as `f` when a condition reads it (compiled conditions name it `f.` and nothing else so: values are parameters). */
function filesJoin(where: string): string {
  return /\bf\./.test(where) ? 'JOIN files f ON f.id = n.file_id' : '';
}

/**
 * The joins and condition that keep `n` to the scope's nodes and bring in `f` when `where`
 * reads it, for a query whose nodes come first (`… nodes n ${joins} WHERE … ${condition}`). A
 * per-node label check and file lookup cost more than the filter's own columns, read from the
 * covering index `nodes_filter` (docs/benchmarks.md, "Filters"); `params` gets the label first.
 */
function scopeSql(scope: FilterScope, where: string, params: unknown[]): { joins: string; condition: string } {
  const joins = filesJoin(where);
  if (scope.wholeIndex) return { joins, condition: '' };
  params.push(scope.label);
  return { joins, condition: `AND ${inLabelExists('n.file_id')}` };
}

/**
 * The ids of the scope's nodes passing `where` (a condition over `n` and `f`), cached per
 * connection until any write: an agent repeats a filter across queries, and computing the set
 * reads every node of the label (docs/benchmarks.md, "Filters"). `onlyCached`: null unless it is cached.
 */
export function allowedNodeIds(db: SqliteDatabase, scope: FilterScope, where: string, params: readonly unknown[], onlyCached = false): NodeIdSet | null {
  const stamp = changeStamp(db);
  let cache = allowedCache.get(db);
  if (!cache || cache.stamp !== stamp) allowedCache.set(db, (cache = { stamp, sets: new Map() }));
  const key = JSON.stringify([scope.label, where, params]);
  let set = cache.sets.get(key);
  if (set) {
    cache.sets.delete(key);
    cache.sets.set(key, set);
    return set;
  }
  if (onlyCached) return null;
  // Prepared per call: conditions vary with every filter and must not fill the statement cache.
  const joins = filesJoin(where);
  const ids = (
    scope.wholeIndex
      ? db.prepare(`SELECT n.id FROM nodes n ${joins} WHERE 1 = 1 ${where}`).pluck().all(...params)
      : // The label's files first, then their nodes through the covering index.
        db
          .prepare(
            `SELECT n.id FROM label_files lf CROSS JOIN nodes n ON n.file_id = lf.file_id ${joins}
             WHERE ${labelEntriesCondition()} ${where}`,
          )
          .pluck()
          .all(scope.label, ...params)
  ) as number[];
  set = NodeIdSet.of(ids);
  cache.sets.set(key, set);
  if (cache.sets.size > ALLOWED_CACHE_ENTRIES) cache.sets.delete(cache.sets.keys().next().value!);
  return set;
}

/**
 * Which of `ids` are nodes of the scope passing `where`: the ids drive the loop, so the cost is
 * per id, not per node of the index.
 */
export function idsPassingWhere(db: SqliteDatabase, scope: FilterScope, where: string, whereParams: readonly unknown[], ids: readonly number[]): Set<number> {
  if (ids.length === 0) return new Set();
  // In id order: neighbouring lookups then share node pages.
  const params: unknown[] = [JSON.stringify(Array.from(Float64Array.from(ids).sort()))];
  const { joins, condition } = scopeSql(scope, where, params);
  const rows = db
    .prepare(`SELECT n.id FROM json_each(?) t CROSS JOIN nodes n ON n.id = t.value ${joins} WHERE 1 = 1 ${condition} ${where}`)
    .pluck()
    .all(...params, ...whereParams) as number[];
  return new Set(rows);
}

/** Files whose nodes a selectivity estimate checks (evenly spread over the file ids). */
const SAMPLE_FILES = 48;
const fractionCache = new WeakMap<SqliteDatabase, { stamp: string; fractions: Map<string, number> }>();

/**
 * The fraction of the label's nodes passing `where`, estimated on the nodes of SAMPLE_FILES
 * files spread evenly over the file ids (read through the covering index `nodes_filter`: a few
 * hundred nodes, where random node lookups over a large label cost far more), cached like
 * allowed sets. Channels use it to choose between checking their best
 * unfiltered candidates and reading the filter's whole allowed set; a wrong guess costs time,
 * never results. `onlyCached`: null unless it is cached (the filter was used before).
 */
export function passingFraction(db: SqliteDatabase, scope: FilterScope, where: string, params: readonly unknown[], onlyCached = false): number | null {
  const stamp = changeStamp(db);
  let cache = fractionCache.get(db);
  if (!cache || cache.stamp !== stamp) fractionCache.set(db, (cache = { stamp, fractions: new Map() }));
  const key = JSON.stringify([scope.label, where, params]);
  const known = cache.fractions.get(key);
  if (known !== undefined) return known;
  if (onlyCached) return null;
  const { lo, hi } = selectOne<{ lo: number | null; hi: number | null }>(db, `SELECT min(id) AS lo, max(id) AS hi FROM files`)!;
  let fraction = 1;
  if (lo !== null && hi !== null) {
    const step = Math.max(1, (hi - lo + 1) / SAMPLE_FILES);
    const ids = [...new Set(Array.from({ length: SAMPLE_FILES }, (_, i) => Math.floor(lo + i * step)))];
    const scoped: unknown[] = [];
    const { joins, condition } = scopeSql(scope, where, scoped);
    const row = db
      .prepare(
        `SELECT count(*) AS total, coalesce(sum(CASE WHEN 1 = 1 ${where} THEN 1 ELSE 0 END), 0) AS pass
         FROM json_each(?) t CROSS JOIN nodes n ON n.file_id = t.value ${joins} WHERE 1 = 1 ${condition}`,
      )
      .get(...params, JSON.stringify(ids), ...scoped) as { total: number; pass: number };
    fraction = row.total > 0 ? row.pass / row.total : 1;
  }
  if (cache.fractions.size > 256) cache.fractions.clear();
  cache.fractions.set(key, fraction);
  return fraction;
}
