import type { Language, LanguageAdapter } from '@ca/schema';
import { createCsAdapter } from '@ca/parse-cs';
import { createTsAdapter } from '@ca/parse-ts';
import { createCsSymbolLookup } from './csProjects.js';

/** The language adapters this build ships, keyed by file extension. */
export interface AdapterSet {
  readonly adapters: readonly LanguageAdapter[];
  readonly extensions: ReadonlySet<string>;
  forPath(path: string): LanguageAdapter | null;
  /** Forgets the `.csproj` facts read so far (a long-lived set calls it before each index run). */
  refreshProjects(): void;
  dispose(): Promise<void>;
}

/** Extension of a path as adapters see it (`.d.ts` counts as `.ts`). */
function ext(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash ? path.slice(dot).toLowerCase() : '';
}

/**
 * Creates the TS/JS and C# adapters. `repoRoot` lets the C# adapter read each project's
 * preprocessor symbols from its `.csproj` (as text).
 */
export async function createAdapters(repoRoot: string): Promise<AdapterSet> {
  let symbols = createCsSymbolLookup(repoRoot);
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
    refreshProjects: () => {
      symbols = createCsSymbolLookup(repoRoot);
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
