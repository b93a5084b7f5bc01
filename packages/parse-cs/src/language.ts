import { posix } from 'node:path';
import { splitTopLevel, type DeclaredTypeSyntax, type LanguageSupport, type ProjectReader } from '@ca/schema';
import { createCsAdapter } from './adapter.js';
import { DEFAULT_PREPROCESSOR_SYMBOLS } from './preprocessor.js';
import { preprocessorSymbolsFor, readCsproj } from './project.js';
import { isRazorPath, type RazorProject } from './razor/names.js';

const PARAMETER_MODIFIERS = /^(?:(?:this|ref|out|in|params|scoped|readonly)\s+)+/;

/**
 * C# declared types: a parameter's type is everything before its name (`[Attr] ref T name =
 * default`); properties, fields and events carry their type as their return type, so a value's
 * signature adds nothing.
 */
export const csDeclaredTypes: DeclaredTypeSyntax = {
  parameterType(param) {
    let p = splitTopLevel(param, '=')[0]!.trim();
    while (p.startsWith('[')) {
      const end = p.indexOf(']');
      if (end < 0) break;
      p = p.slice(end + 1).trim();
    }
    p = p.replace(PARAMETER_MODIFIERS, '');
    const m = /^(.*\S)\s+@?[A-Za-z_][\w]*$/.exec(p);
    return m ? m[1]!.trim() : null;
  },
  valueType: () => null,
};

/**
 * What the nearest `.csproj` up from a file's directory says (`fromProject`), or `none` without
 * one; cached per directory, a directory without a project answering as its parent.
 */
function nearestProjectLookup<T>(readProject: ProjectReader, fromProject: (project: { path: string; text: string }, relDir: string) => T, none: T): (path: string) => T {
  const byDir = new Map<string, T>();
  const lookup = (relDir: string): T => {
    if (byDir.has(relDir)) return byDir.get(relDir)!;
    const project = readProject(relDir);
    let result = none;
    if (project !== null) result = fromProject(project, relDir);
    else if (relDir !== '') {
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

/**
 * Preprocessor symbols for a C# file: those of the nearest `.csproj` (DefineConstants and the
 * target framework, read as text, never evaluated), or a modern .NET default without one.
 * Cached per directory; a malformed project falls back to the default.
 */
export function createCsSymbolLookup(readProject: ProjectReader): (path: string) => readonly string[] {
  return nearestProjectLookup<readonly string[]>(readProject, (project) => {
    try {
      return preprocessorSymbolsFor(readCsproj(project.text, project.path));
    } catch {
      // why: a project file that does not read as XML parses its files as a default .NET project would.
      return DEFAULT_PREPROCESSOR_SYMBOLS;
    }
  }, DEFAULT_PREPROCESSOR_SYMBOLS);
}

/**
 * The project of a Razor file: the nearest `.csproj` up from its directory, with its
 * `<RootNamespace>` (else its file name, MSBuild's default). Cached per directory; a malformed
 * project still names its components by its file name.
 */
export function createRazorProjectLookup(readProject: ProjectReader): (path: string) => RazorProject | null {
  return nearestProjectLookup<RazorProject | null>(readProject, (project, relDir) => {
    const stem = posix.basename(project.path).replace(/\.[^.]+$/, '');
    try {
      return { dir: relDir, rootNamespace: readCsproj(project.text, project.path).rootNamespace ?? stem };
    } catch {
      // why: a project file that does not read as XML keeps MSBuild's default, its file name.
      return { dir: relDir, rootNamespace: stem };
    }
  }, null);
}

/** C# (`cs`): the tree-sitter adapter (preprocessor symbols from `.csproj` files) and declared types. */
export const csharpLanguage: LanguageSupport = {
  id: 'csharp',
  languages: ['cs'],
  // Razor components and pages are C# classes: their files are C# files the Razor pass reads.
  extensions: ['.cs', '.razor', '.cshtml'],
  languageOf: (path) => (path.toLowerCase().endsWith('.cs') || isRazorPath(path) ? 'cs' : null),
  createAdapter: (context) => {
    // The project reader changes between runs: symbols are looked up again under a new one.
    let reader: ProjectReader | null = null;
    let symbols: (path: string) => readonly string[] = () => DEFAULT_PREPROCESSOR_SYMBOLS;
    let razorProjects: (path: string) => RazorProject | null = () => null;
    const refresh = (): void => {
      const current = context.projects();
      if (current !== reader) {
        reader = current;
        symbols = createCsSymbolLookup(current);
        razorProjects = createRazorProjectLookup(current);
      }
    };
    return createCsAdapter({
      preprocessorSymbols: (path) => {
        refresh();
        return symbols(path);
      },
      razorProject: (path) => {
        refresh();
        return razorProjects(path);
      },
    });
  },
  worker: { module: '@ca/parse-cs', export: 'csharpLanguage' },
  declaredTypes: csDeclaredTypes,
  isProjectFile: (path) => path.toLowerCase().endsWith('.csproj'),
  // An attribute class `FooAttribute` is applied as `[Foo]`.
  nameEquivalents: (name) => (name.length > 'Attribute'.length && name.endsWith('Attribute') ? [name.slice(0, -'Attribute'.length)] : []),
};
