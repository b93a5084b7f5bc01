import { posix } from 'node:path';
import type { ProjectFile, ProjectReader } from '@ca/schema';
import { DiskTree } from '@ca/invalidation';
import type { LanguageRegistry } from './languages/registry.js';

/** Each language's project files by directory (language id → directory → file), as parse workers receive them. */
export type ProjectFiles = Readonly<Record<string, Readonly<Record<string, ProjectFile>>>>;

/** Project files by directory, read from a tree: the first project file of each directory. */
export function projectFilesByDir(paths: Iterable<string>, read: (path: string) => string | null): Record<string, ProjectFile> {
  const out: Record<string, ProjectFile> = {};
  for (const path of [...paths].sort()) {
    const dir = posix.dirname(path) === '.' ? '' : posix.dirname(path);
    if (dir in out) continue;
    const text = read(path);
    if (text !== null) out[dir] = { path, text };
  }
  return out;
}

/** The project files of every language that reads some (`isProjectFile`), among a tree's context files. */
export function projectFiles(registry: LanguageRegistry, contextPaths: readonly string[], read: (path: string) => string | null): ProjectFiles {
  const out: Record<string, Record<string, ProjectFile>> = {};
  for (const l of registry.languages) {
    const own = l.isProjectFile;
    if (own) out[l.id] = projectFilesByDir(contextPaths.filter((p) => own(p)), read);
  }
  return out;
}

/** A reader over `ProjectFiles` for one language (none: no project files). */
export function projectReaderOf(files: ProjectFiles): (languageId: string) => ProjectReader {
  return (id) => (dir) => files[id]?.[dir] ?? null;
}

/** The working tree's project files of each language, read as regular files inside the repository. */
export function diskProjectReader(repoRoot: string, registry: LanguageRegistry): (languageId: string) => ProjectReader {
  const tree = new DiskTree(repoRoot);
  return (id) => {
    const own = registry.languages.find((l) => l.id === id)?.isProjectFile;
    if (!own) return () => null;
    return (dir) => {
      let name: string | undefined;
      try {
        name = tree.list(dir).find((e) => e.kind === 'file' && own(e.name))?.name;
      } catch {
        // why: a directory that cannot be listed (gone, not a directory) holds no project file.
        return null;
      }
      if (!name) return null;
      const path = dir === '' ? name : `${dir}/${name}`;
      const text = tree.readSmall(path, 1 << 20)?.toString('utf8');
      return text === undefined ? null : { path, text };
    };
  };
}
