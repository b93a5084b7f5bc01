import { posix } from 'node:path';
import { DiskTree } from '@ca/invalidation';
import { DEFAULT_PREPROCESSOR_SYMBOLS, preprocessorSymbolsFor, readCsproj } from '@ca/parse-cs';

/** A directory's `.csproj`: its repo path and text. */
export interface ProjectFile {
  readonly path: string;
  readonly text: string;
}

/** The `.csproj` of a directory (repo-relative, '' for the root), or null without one. */
export type ProjectReader = (dir: string) => ProjectFile | null;

/** `.csproj` files by directory, read from a tree: the first project file of each directory. */
export function projectFiles(csprojPaths: Iterable<string>, read: (path: string) => string | null): Record<string, ProjectFile> {
  const out: Record<string, ProjectFile> = {};
  for (const path of [...csprojPaths].sort()) {
    const dir = posix.dirname(path) === '.' ? '' : posix.dirname(path);
    if (dir in out) continue;
    const text = read(path);
    if (text !== null) out[dir] = { path, text };
  }
  return out;
}

/** The working tree's `.csproj` files, read as regular files inside the repository. */
export function diskProjectReader(repoRoot: string): ProjectReader {
  const tree = new DiskTree(repoRoot);
  return (dir) => {
    let name: string | undefined;
    try {
      name = tree.list(dir).find((e) => e.kind === 'file' && e.name.endsWith('.csproj'))?.name;
    } catch {
      // An unlistable directory has no .csproj we could read: the parent's project (or the defaults) applies.
      return null;
    }
    if (!name) return null;
    const path = dir === '' ? name : `${dir}/${name}`;
    const text = tree.readSmall(path, 1 << 20)?.toString('utf8');
    return text === undefined ? null : { path, text };
  };
}

/**
 * Preprocessor symbols for a C# file: those of the nearest `.csproj` (DefineConstants and the
 * target framework, read as text, never evaluated), or a modern .NET default without one.
 * Cached per directory; a malformed project falls back to the default.
 */
export function createCsSymbolLookup(readProject: ProjectReader): (path: string) => readonly string[] {
  const byDir = new Map<string, readonly string[]>();
  const lookup = (relDir: string): readonly string[] => {
    const cached = byDir.get(relDir);
    if (cached) return cached;
    let result: readonly string[] = DEFAULT_PREPROCESSOR_SYMBOLS;
    const project = readProject(relDir);
    if (project !== null) {
      try {
        result = preprocessorSymbolsFor(readCsproj(project.text, project.path));
      } catch {
        // A malformed .csproj is the user's to fix and must not stop indexing; its files parse with the default symbols.
        result = DEFAULT_PREPROCESSOR_SYMBOLS;
      }
    } else if (relDir !== '') {
      const parent = posix.dirname(relDir);
      result = lookup(parent === '.' ? '' : parent);
    }
    byDir.set(relDir, result);
    return result;
  };
  return (path: string) => {
    const dir = posix.dirname(path);
    return lookup(dir === '.' ? '' : dir);
  };
}
