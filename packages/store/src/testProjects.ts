/**
 * Test projects per label (decision 051): the project files a language classed as test projects
 * (a C# `.csproj` referencing a test framework, or `<IsTestProject>`), kept as a `_metadata`
 * value per label. Every node whose `project` is one of them is test code for ranking and
 * `is:test`, as a test path is. A label's value is the projects of its tree: a project file is
 * not a label member (its text does not version any node), so the fact lives beside the label.
 */
import type { ProjectTestFact } from '@ca/schema';
import type { SqliteDatabase } from './database.js';
import { cachedStatement, changeStamp, readMetadata, selectColumn } from './statements.js';

const PREFIX = 'test_projects:';

/** The `_metadata` key of a label's project facts. */
export function testProjectsKey(label: string): string {
  return `${PREFIX}${label}`;
}

/** A label's project facts by project path (empty when none were recorded). */
export function readProjectFacts(db: SqliteDatabase, label: string): Map<string, ProjectTestFact> {
  return parseFacts(readMetadata(db, testProjectsKey(label)));
}

function parseFacts(value: string | null): Map<string, ProjectTestFact> {
  const out = new Map<string, ProjectTestFact>();
  if (value === null) return out;
  const raw = JSON.parse(value) as Record<string, ProjectTestFact>;
  for (const [project, fact] of Object.entries(raw).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out.set(project, fact);
  return out;
}

/** The value a label's facts are stored as: projects in path order, so equal facts are equal text. */
export function serializeProjectFacts(facts: ReadonlyMap<string, ProjectTestFact>): string {
  const sorted = [...facts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(sorted.map(([p, f]) => [p, { test: f.test, reason: f.reason, ...(f.unreadable ? { unreadable: true } : {}) }])));
}

const labelCache = new WeakMap<SqliteDatabase, { stamp: string; byLabel: Map<string, ReadonlySet<string>> }>();

/** The test projects of a label, read again when the index changes (ranking asks on every search). */
export function testProjectsOf(db: SqliteDatabase, label: string): ReadonlySet<string> {
  const stamp = changeStamp(db);
  let cache = labelCache.get(db);
  if (!cache || cache.stamp !== stamp) labelCache.set(db, (cache = { stamp, byLabel: new Map() }));
  let set = cache.byLabel.get(label);
  if (set === undefined) {
    set = new Set([...readProjectFacts(db, label)].filter(([, f]) => f.test).map(([p]) => p));
    cache.byLabel.set(label, set);
  }
  return set;
}

/**
 * The test projects of every label together: what `is:test` selects in a filter compiled for the
 * whole index (a filter is not compiled per label; a project that is a test project in one
 * label and not in another is rare, and such a filter errs towards calling it test code).
 */
export function testProjectsOfAnyLabel(db: SqliteDatabase): ReadonlySet<string> {
  const out = new Set<string>();
  const values = selectColumn<string>(db, `SELECT value FROM _metadata WHERE key >= ? AND key < ?`, PREFIX, `${PREFIX.slice(0, -1)};`);
  for (const v of values) for (const [p, f] of parseFacts(v)) if (f.test) out.add(p);
  return out;
}

/** Moves a label's facts to another label (a crawl's staging label promoted to the label). */
export function moveProjectFacts(db: SqliteDatabase, from: string, to: string): void {
  cachedStatement(db, `DELETE FROM _metadata WHERE key = ?`).run(testProjectsKey(to));
  cachedStatement(db, `UPDATE _metadata SET key = ? WHERE key = ?`).run(testProjectsKey(to), testProjectsKey(from));
}

/** Drops a label's facts (the label was removed). */
export function dropProjectFacts(db: SqliteDatabase, label: string): void {
  cachedStatement(db, `DELETE FROM _metadata WHERE key = ?`).run(testProjectsKey(label));
}
