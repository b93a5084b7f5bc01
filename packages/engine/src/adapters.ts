import type { LanguageAdapter, ProjectReader } from '@ca/schema';
import type { LanguageRegistry } from './languages/registry.js';

/** The adapters of an engine's languages, found by path. */
export interface AdapterSet {
  readonly adapters: readonly LanguageAdapter[];
  readonly extensions: ReadonlySet<string>;
  forPath(path: string): LanguageAdapter | null;
  /** Adapters read project files (`.csproj`) through `read` from now on (a long-lived set calls it before each index run). */
  refreshProjects(read: (languageId: string) => ProjectReader): void;
  dispose(): Promise<void>;
}

/**
 * Creates the adapters of the registry's languages. `projects(id)` gives the language `id` the
 * reader of its project files in the tree being indexed.
 */
export async function createAdapters(registry: LanguageRegistry, projects: (languageId: string) => ProjectReader): Promise<AdapterSet> {
  let read = projects;
  // One reader per language until the next refresh: an adapter caches what it derived from it.
  let readers = new Map<string, ProjectReader>();
  const readerOf = (id: string): ProjectReader => {
    let r = readers.get(id);
    if (r === undefined) readers.set(id, (r = read(id)));
    return r;
  };
  const byLanguage = new Map<string, LanguageAdapter>();
  for (const l of registry.languages) {
    byLanguage.set(l.id, await l.createAdapter({ projects: () => readerOf(l.id) }));
  }
  const adapters = [...byLanguage.values()];
  return {
    adapters,
    extensions: registry.extensions,
    forPath: (path) => {
      const l = registry.supportFor(path);
      return l ? (byLanguage.get(l.id) ?? null) : null;
    },
    refreshProjects: (next) => {
      read = next;
      readers = new Map();
    },
    dispose: async () => {
      for (const a of adapters) await a.dispose?.();
    },
  };
}
