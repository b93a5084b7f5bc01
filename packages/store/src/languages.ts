import type { DeclaredTypeSyntax, LanguageSyntax, ModuleResolution } from '@ca/schema';
import type { SqliteDatabase } from './database.js';

/**
 * The language strategies a connection uses, by language id: module resolution (the import
 * resolver) and declared-type parsing (the `type:` filter's SQL function). The engine hands them
 * over when it opens the store; the store itself names no language.
 */
export class LanguageStrategies {
  private readonly resolution = new Map<string, ModuleResolution>();
  private readonly types = new Map<string, DeclaredTypeSyntax>();

  constructor(languages: readonly LanguageSyntax[]) {
    for (const l of languages) {
      for (const id of l.languages) {
        if (l.moduleResolution) this.resolution.set(id, l.moduleResolution);
        if (l.declaredTypes) this.types.set(id, l.declaredTypes);
      }
    }
  }

  /** Candidate files of a module path imported from a file of `language` (only the path itself without a strategy). */
  moduleCandidates(language: string | null, modulePath: string): readonly string[] {
    const strategy = language === null ? undefined : this.resolution.get(language);
    return strategy ? strategy.candidates(modulePath) : [modulePath];
  }

  /** The declared-type syntax of a language, if it has one. */
  declaredTypes(language: string): DeclaredTypeSyntax | undefined {
    return this.types.get(language);
  }
}

const NONE = new LanguageStrategies([]);
const byConnection = new WeakMap<SqliteDatabase, LanguageStrategies>();

/** Sets the strategies of a connection (`Store.open(path, { languages })`). */
export function setLanguageStrategies(db: SqliteDatabase, languages: readonly LanguageSyntax[]): void {
  byConnection.set(db, new LanguageStrategies(languages));
}

/** The strategies of a connection (none registered: every language without one). */
export function languageStrategies(db: SqliteDatabase): LanguageStrategies {
  return byConnection.get(db) ?? NONE;
}
