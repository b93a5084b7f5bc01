import type { Language, LanguageAdapter } from '@ca/schema';
import { createCsAdapter } from '@ca/parse-cs';
import { createTsAdapter } from '@ca/parse-ts';
import { createCsSymbolLookup, type ProjectReader } from './csProjects.js';

/** The language adapters this build ships, keyed by file extension. */
export interface AdapterSet {
  readonly adapters: readonly LanguageAdapter[];
  readonly extensions: ReadonlySet<string>;
  forPath(path: string): LanguageAdapter | null;
  /** Reads `.csproj` files through `readProject` from now on (a long-lived set calls it before each index run). */
  refreshProjects(readProject: ProjectReader): void;
  dispose(): Promise<void>;
}

/** Extension of a path as adapters see it (`.d.ts` counts as `.ts`). */
function ext(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash ? path.slice(dot).toLowerCase() : '';
}

/**
 * Creates the TS/JS and C# adapters. `readProject` gives the C# adapter each project's
 * `.csproj` text (its preprocessor symbols), from the tree being indexed.
 */
export async function createAdapters(readProject: ProjectReader): Promise<AdapterSet> {
  let symbols = createCsSymbolLookup(readProject);
  const adapters: LanguageAdapter[] = [
    await createTsAdapter(),
    await createCsAdapter({ preprocessorSymbols: (path) => symbols(path) }),
  ];
  const byExt = new Map<string, LanguageAdapter>();
  for (const a of adapters) for (const e of a.extensions) byExt.set(e, a);
  return {
    adapters,
    extensions: new Set(byExt.keys()),
    forPath: (path) => byExt.get(ext(path)) ?? null,
    refreshProjects: (read) => {
      symbols = createCsSymbolLookup(read);
    },
    dispose: async () => {
      for (const a of adapters) await a.dispose?.();
    },
  };
}

/** Languages by extension without loading any grammar (for status output). */
export function languageForExtension(extension: string): Language | null {
  switch (extension) {
    case '.ts':
    case '.tsx':
    case '.mts':
    case '.cts':
      return 'ts';
    case '.js':
    case '.jsx':
    case '.mjs':
    case '.cjs':
      return 'js';
    case '.cs':
      return 'cs';
    default:
      return null;
  }
}
