import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_PREPROCESSOR_SYMBOLS, preprocessorSymbolsFor, readCsproj } from '@ca/parse-cs';
import { CONFIG_READ_MAX_BYTES, safeReadText } from '@ca/schema';

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
      // A FIFO, a link or a huge file named *.csproj is refused (discovery records why): default symbols.
      const read = safeReadText(join(abs, csproj), { root: repoRoot, maxBytes: CONFIG_READ_MAX_BYTES });
      try {
        const rel = relDir === '.' || relDir === '' ? csproj : `${relDir}/${csproj}`;
        result = read.ok ? preprocessorSymbolsFor(readCsproj(read.text, rel)) : DEFAULT_PREPROCESSOR_SYMBOLS;
      } catch {
        // A malformed project defines nothing we can read: the default symbols stand.
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
