/**
 * The repository modules a file imports by non-relative specifiers (a package name, a `paths`
 * alias): the module each resolves to, and where the compiler looks for one that resolves to
 * nothing in the repository today (the candidates of the project's `paths` patterns and its
 * `baseUrl`), as module paths (without extension, the form of `imports` edges' `target_module`).
 * Reported with a pass's results so that the file is analysed again when one of those modules
 * appears or changes its exports, though no edge of the file names it (decision 022, difference
 * 25: `import … from 'zustand/vanilla'` mapped by `paths` to `src/vanilla.ts`, which a branch
 * switch brought back; difference 26: `import { create } from 'zustand'` while `src/index.ts` did
 * not export `create`, until a branch switch restored its re-export).
 */
import { resolve } from 'node:path';
import ts from 'typescript';
import { isRepoSource, repoRelative } from './projects.js';

const MODULE_EXTENSION = /\.(d\.ts|d\.mts|d\.cts|tsx|ts|mts|cts|jsx|js|mjs|cjs)$/;

/** The module paths in the repository `sf`'s non-relative specifiers resolve to or would be looked up at, sorted. */
export function moduleLookups(sf: ts.SourceFile, checker: ts.TypeChecker, options: ts.CompilerOptions, projectDir: string, root: string): string[] {
  const out = new Set<string>();
  for (const spec of moduleSpecifiers(sf)) {
    const text = spec.text;
    if (text.startsWith('.') || text.startsWith('/')) continue; // relative: the syntactic edge names its module already
    const decl = checker.getSymbolAtLocation(spec)?.declarations?.find(ts.isSourceFile);
    if (decl !== undefined && isRepoSource(root, resolve(decl.fileName))) {
      // Resolved: its `imports` edges name the module — but only for names it exports now; an
      // import of a name it does not export has no edge (difference 26), so record it here too.
      out.add(repoRelative(root, resolve(decl.fileName)).replace(MODULE_EXTENSION, ''));
      continue;
    }
    for (const abs of pathCandidates(options, text, projectDir)) {
      if (isRepoSource(root, abs)) out.add(repoRelative(root, abs).replace(MODULE_EXTENSION, ''));
    }
  }
  return [...out].sort();
}

/** The string specifiers of a file's imports and re-exports (`import x = require('…')` included). */
function moduleSpecifiers(sf: ts.SourceFile): ts.StringLiteral[] {
  const out: ts.StringLiteral[] = [];
  for (const st of sf.statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) out.push(st.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(st) && ts.isExternalModuleReference(st.moduleReference) && ts.isStringLiteral(st.moduleReference.expression)) {
      out.push(st.moduleReference.expression);
    }
  }
  return out;
}

/**
 * Absolute paths (extension as written, often none) a specifier maps to: every `paths` pattern it
 * matches (the compiler tries the longest match first; any of them may be the one that appears)
 * and `baseUrl` joined with it.
 */
export function pathCandidates(options: ts.CompilerOptions, specifier: string, projectDir: string): string[] {
  // The compiler resolves `paths` targets against `baseUrl`, else the directory of the tsconfig that set them.
  const base = options.baseUrl ?? (options as { pathsBasePath?: string }).pathsBasePath ?? projectDir;
  const out: string[] = [];
  for (const [pattern, targets] of Object.entries(options.paths ?? {})) {
    const captured = matchPattern(pattern, specifier);
    if (captured === null) continue;
    for (const t of targets) out.push(resolve(base, t.replace('*', captured)));
  }
  if (options.baseUrl !== undefined) out.push(resolve(options.baseUrl, specifier));
  return out;
}

/** What a `paths` pattern's `*` captures of `specifier` ('' for an exact pattern), or null when it does not match. */
function matchPattern(pattern: string, specifier: string): string | null {
  const star = pattern.indexOf('*');
  if (star < 0) return pattern === specifier ? '' : null;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  if (specifier.length < prefix.length + suffix.length || !specifier.startsWith(prefix) || !specifier.endsWith(suffix)) return null;
  return specifier.slice(prefix.length, specifier.length - suffix.length);
}
