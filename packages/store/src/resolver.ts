import type { SqliteDatabase } from './database.js';
import { languageStrategies, type LanguageStrategies } from './languages.js';
import { cachedStatement } from './statements.js';

const MAX_REEXPORT_DEPTH = 8;

interface PendingEdge {
  id: number;
  type: string;
  target_name: string;
  target_module: string;
  imported_name: string | null;
  language: string | null;
}

/**
 * Resolves name-based edges whose target was imported from another module of the label:
 * module path → file (the candidates of the importing file's language's `ModuleResolution`:
 * extension and `/index` probing for TS/JS), then the exported symbol with that name, following
 * re-export barrels (`export * from`, `export { x } from`; a barrel's modules resolve as the
 * importing file's). Edges that stay unresolved keep their name and module, so a later run can
 * resolve them.
 */
export class ImportResolver {
  private readonly fileOf = new Map<string, number>();
  private readonly memo = new Map<string, number | null>();
  private readonly exportedStmt;
  private readonly defaultStmt;
  private readonly fileNodeStmt;
  private readonly reexportStmt;
  private readonly strategies: LanguageStrategies;
  /** The language of the edge being resolved (whose module resolution applies). */
  private language: string | null = null;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly label: string,
  ) {
    const rows = cachedStatement(db, `SELECT lf.path, lf.file_id FROM label_files lf JOIN labels l ON l.id = lf.label_id WHERE l.name = ?`)
      .all(label) as { path: string; file_id: number }[];
    for (const r of rows) this.fileOf.set(r.path, r.file_id);
    this.strategies = languageStrategies(db);
    this.exportedStmt = cachedStatement(db, `SELECT n.id FROM nodes n JOIN nodes p ON p.id = n.parent_id
      WHERE n.file_id = ? AND n.name = ? AND p.kind IN ('file','module')
      ORDER BY (' ' || n.modifiers || ' ') LIKE '% export %' DESC, n.start_byte LIMIT 1`);
    this.defaultStmt = cachedStatement(db, `SELECT n.id FROM nodes n JOIN nodes p ON p.id = n.parent_id
      WHERE n.file_id = ? AND p.kind IN ('file','module') AND (' ' || n.modifiers || ' ') LIKE '% default %'
      ORDER BY n.start_byte LIMIT 1`);
    this.fileNodeStmt = cachedStatement(db, `SELECT id FROM nodes WHERE file_id = ? AND kind IN ('file','module') LIMIT 1`);
    this.reexportStmt = cachedStatement(db, `SELECT name, target_module FROM module_reexports WHERE file_id = ?`);
  }

  /** The file id a module path imported from a file of `language` resolves to, or null. */
  fileForModule(modulePath: string, language: string | null = this.language): number | null {
    for (const candidate of this.strategies.moduleCandidates(language, modulePath)) {
      const id = this.fileOf.get(candidate);
      if (id !== undefined) return id;
    }
    return null;
  }

  /** The node exported as `name` by the module, following re-exports. */
  exportedSymbol(modulePath: string, name: string, depth = 0): number | null {
    const memoKey = `${this.language ?? ''}\u0000${modulePath}\u0000${name}`;
    if (this.memo.has(memoKey)) return this.memo.get(memoKey)!;
    this.memo.set(memoKey, null); // cycle guard
    const result = this.lookup(modulePath, name, depth);
    this.memo.set(memoKey, result);
    return result;
  }

  private lookup(modulePath: string, name: string, depth: number): number | null {
    const fileId = this.fileForModule(modulePath);
    if (fileId === null) return null;
    if (name === '*') return (this.fileNodeStmt.get(fileId) as { id: number } | undefined)?.id ?? null;
    const row =
      name === 'default'
        ? (this.defaultStmt.get(fileId) as { id: number } | undefined)
        : (this.exportedStmt.get(fileId, name) as { id: number } | undefined);
    if (row) return row.id;
    if (depth >= MAX_REEXPORT_DEPTH) return null;
    // Follow re-exports of the module: named ones first, then `export *`.
    const reexports = this.reexportStmt.all(fileId) as { name: string; target_module: string }[];
    for (const r of reexports) {
      if (r.name === name) {
        const found = this.exportedSymbol(r.target_module, name, depth + 1);
        if (found !== null) return found;
      }
    }
    for (const r of reexports) {
      if (r.name === '*') {
        const found = this.exportedSymbol(r.target_module, name, depth + 1);
        if (found !== null) return found;
      }
    }
    return null;
  }

  /** Resolves every pending edge of the label; returns how many were resolved. */
  resolvePending(): number {
    const pending = cachedStatement(this.db, `SELECT e.id, e.type, e.target_name, e.target_module, e.imported_name, f.language FROM edges e
        JOIN files f ON f.id = e.file_id
        JOIN label_files lf ON lf.file_id = e.file_id
        JOIN labels l ON l.id = lf.label_id AND l.name = ?
        WHERE e.target_id IS NULL AND e.target_module IS NOT NULL AND e.extractor NOT LIKE 'semantic:%'`)
      .all(this.label) as PendingEdge[];
    const update = cachedStatement(this.db, `UPDATE edges SET target_id = ? WHERE id = ?`);
    let resolved = 0;
    this.db.transaction(() => {
      for (const e of pending) {
        this.language = e.language;
        const target = this.targetOf(e);
        if (target !== null) {
          update.run(target, e.id);
          resolved++;
        }
      }
    })();
    return resolved;
  }

  private targetOf(e: PendingEdge): number | null {
    const imported = e.imported_name ?? e.target_name;
    if (imported === '*') {
      // Namespace import: `ns.member` names a member of the module; plain `ns` the module.
      const dot = e.target_name.indexOf('.');
      if (e.type !== 'imports' && dot > 0) return this.exportedSymbol(e.target_module, e.target_name.slice(dot + 1).split('.')[0]!);
      return this.exportedSymbol(e.target_module, '*');
    }
    return this.exportedSymbol(e.target_module, imported);
  }
}
