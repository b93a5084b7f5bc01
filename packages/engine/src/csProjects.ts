import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_PREPROCESSOR_SYMBOLS, preprocessorSymbolsFor, readCsproj } from '@ca/parse-cs';

/**
 * Preprocessor symbols for a C# file: those of the nearest `.csproj` (DefineConstants and the
 * target framework, read as text, never evaluated), or a modern .NET default without one.
 * Cached per directory; a malformed project falls back to the default.
 */
export function createCsSymbolLookup(repoRoot: string): (path: string) => readonly string[] {
  const byDir = new Map<string, readonly string[]>();
  const lookup = (relDir: string): readonly string[] => {
    const cached = byDir.get(relDir);
    if (cached) return cached;
    let result: readonly string[] = DEFAULT_PREPROCESSOR_SYMBOLS;
    const abs = join(repoRoot, relDir);
    let csproj: string | undefined;
    try {
      csproj = existsSync(abs) ? readdirSync(abs).find((f) => f.endsWith('.csproj')) : undefined;
    } catch {
      csproj = undefined;
    }
    if (csproj) {
      try {
        const rel = relDir === '.' || relDir === '' ? csproj : `${relDir}/${csproj}`;
        result = preprocessorSymbolsFor(readCsproj(readFileSync(join(abs, csproj), 'utf8'), rel));
      } catch {
        result = DEFAULT_PREPROCESSOR_SYMBOLS;
      }
    } else if (relDir !== '' && relDir !== '.') {
      const parent = dirname(relDir);
      result = lookup(parent === '.' ? '' : parent);
    }
    byDir.set(relDir, result);
    return result;
  };
  return (path: string) => {
    const dir = dirname(path);
    return lookup(dir === '.' ? '' : dir);
  };
}
