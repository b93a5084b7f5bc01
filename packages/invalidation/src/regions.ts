import type { ExtractedNode } from '@ca/schema';

/**
 * Declaration-scoped semantic invalidation (the invalidation matrix's first row,
 * docs/architecture.md: a source symbol's exact edges are recomputed when *its* text changed). A
 * re-parsed file keeps the exact edges of every symbol whose own text (its chunk, children
 * collapsed) is unchanged: they are carried to the new version with their lines moved, and the
 * semantic pass resolves only the uses inside the symbols that changed — plus the unchanged symbols
 * that name something the change batch declared, removed or re-declared (`dirtyNames`), so an
 * unchanged method calling a method that was just added, renamed or retyped is resolved again. Pure
 * functions, no I/O.
 */

const MARKER = /\{ \/\* (\d+) lines? collapsed \*\/ \}/g;

/** A chunk with its collapse markers' line counts removed: equal for two versions whose own text is equal. */
export function normalizedChunk(chunk: string): string {
  return chunk.replace(MARKER, '{ /* collapsed */ }');
}

/**
 * The source line of every position of a chunk's own text: per chunk line, the line of each
 * segment between collapse markers (a marker `{ /* N lines collapsed *\/ }` stands for N source
 * lines, so the text after it is N - 1 lines further down).
 */
export function chunkLines(chunk: string, startLine: number): number[][] {
  const out: number[][] = [];
  let line = startLine;
  for (const text of chunk.split('\n')) {
    const segments = [line];
    MARKER.lastIndex = 0;
    for (let m = MARKER.exec(text); m !== null; m = MARKER.exec(text)) {
      line += Number(m[1]) - 1;
      segments.push(line);
    }
    out.push(segments);
    line++;
  }
  return out;
}

/**
 * Old source line → new source line for the own text of a symbol whose two chunks are equal but
 * for their markers' line counts, or null when they are not (or the lines do not add up to the
 * spans). A line that could map to two lines (text before and after a one-line body on it) is
 * left out: an edge on it cannot be carried.
 */
export function carriedLines(
  previous: { readonly chunkText: string; readonly startLine: number; readonly endLine: number },
  next: { readonly chunkText: string; readonly startLine: number; readonly endLine: number },
): ReadonlyMap<number, number> | null {
  if (normalizedChunk(previous.chunkText) !== normalizedChunk(next.chunkText)) return null;
  const a = chunkLines(previous.chunkText, previous.startLine);
  const b = chunkLines(next.chunkText, next.startLine);
  // The last line holding text (a file's chunk ends with its final newline).
  const lastOf = (x: number[][], chunk: string) => x[x.length - 1]![x[x.length - 1]!.length - 1]! - (chunk.endsWith('\n') ? 1 : 0);
  // A marker-like text inside the code would break the line count: then nothing is carried.
  if (lastOf(a, previous.chunkText) > previous.endLine || lastOf(b, next.chunkText) > next.endLine) return null;
  const map = new Map<number, number>();
  const ambiguous = new Set<number>();
  for (let i = 0; i < a.length; i++) {
    const sa = a[i]!;
    const sb = b[i]!;
    for (let k = 0; k < sa.length; k++) {
      const from = sa[k]!;
      const to = sb[k]!;
      const seen = map.get(from);
      if (seen !== undefined && seen !== to) ambiguous.add(from);
      map.set(from, to);
    }
  }
  for (const l of ambiguous) map.delete(l);
  return map;
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/** The identifier-like words of a text (string contents included: `AppState["zoom"]` names `zoom`). */
export function identifiersOf(text: string): Set<string> {
  return new Set(text.match(IDENTIFIER) ?? []);
}

/** Words of the language that never name a symbol: not worth a re-resolution. */
const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue declare default delete do else enum export extends false finally for ' +
    'from function get global if implements import in infer instanceof interface is keyof let module namespace new null of private ' +
    'protected public readonly require return satisfies set static super switch this throw true try type typeof undefined unique var void while with yield ' +
    'collapsed lines line'
  ).split(' '),
);

/**
 * What a file's own text binds for the symbols in it: its import and export statements (each
 * whole, however many lines) and the lines that start a top-level declaration. Top-level code
 * that binds nothing (a test's `describe(…)` calls) is left out.
 */
function fileBindings(chunk: string): string[] {
  const out: string[] = [];
  // Entries start with `import`, `export` or `declare` (what changedFileNames tells apart).
  const bare = (text: string) => text.replace(/\s+/g, ' ').trim();
  // One-line statements, and braced lists over several lines: `import {\n  a,\n} from './x';`.
  // A statement compares with its module specifier (another module: other meanings).
  for (const m of chunk.matchAll(/^[ \t]*(?:import|export)\s*(?:type\s+)?\{[^}]*\}[^;\n]*;?/gm)) out.push(bare(m[0]));
  for (const m of chunk.matchAll(/^[ \t]*(?:import|export)\b[^\n]*/gm)) {
    // `export const x = …`, `export class X …`: the declared name, not the code after it.
    const decl = /^\s*export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+|async\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace|module)\s+([^=:(<{]*)/.exec(m[0]);
    out.push(decl ? `export ${bare(decl[1]!)}` : bare(m[0]));
  }
  for (const line of chunk.split('\n')) {
    const decl = /^(?:declare\s+)?(?:abstract\s+|async\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace|module|global)\b\s*([^=:(<{]*(?:\{[^}]*\}|\[[^\]]*\])?)/.exec(line);
    if (decl) out.push(`declare ${bare(decl[1]!)}`);
  }
  return out;
}

/**
 * The names a file's own text binds differently between two versions: `imported` (its import
 * statements: they change what names mean in this file only) and `exported` (exports and
 * top-level declarations: other files may name them too).
 */
export function changedFileNames(previousChunk: string, nextChunk: string): { readonly imported: string[]; readonly exported: string[] } {
  const a = fileBindings(normalizedChunk(previousChunk));
  const b = fileBindings(normalizedChunk(nextChunk));
  const imported = new Set<string>();
  const exported = new Set<string>();
  for (const l of [...linesOnlyIn(a, b), ...linesOnlyIn(b, a)]) {
    const into = l.startsWith('import') ? imported : exported;
    // Strings are module specifiers or values, never names a use resolves to.
    const names = l.replace(/(['"`])(?:\\.|(?!\1)[^\\\n])*\1/g, ' ');
    for (const id of identifiersOf(names)) if (!KEYWORDS.has(id)) into.add(id);
  }
  return { imported: [...imported].sort(), exported: [...exported].sort() };
}

/**
 * Whether what other modules can import from a file may differ between two versions: its export
 * and re-export statements and top-level declaration lines, compared as multisets (a re-export
 * `export * from './x'` names nothing, yet changes what importers resolve to).
 */
export function exportSurfaceChanged(previousChunk: string, nextChunk: string): boolean {
  const surface = (chunk: string) => fileBindings(normalizedChunk(chunk)).filter((l) => !l.startsWith('import'));
  const a = surface(previousChunk);
  const b = surface(nextChunk);
  return linesOnlyIn(a, b).length > 0 || linesOnlyIn(b, a).length > 0;
}

/** Lines of `a` not in `b`, as multisets. */
function linesOnlyIn(a: readonly string[], b: readonly string[]): string[] {
  const count = new Map<string, number>();
  for (const l of b) count.set(l, (count.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of a) {
    const n = count.get(l) ?? 0;
    if (n > 0) count.set(l, n - 1);
    else out.push(l);
  }
  return out;
}

/**
 * The names whose meaning a changed symbol may have changed for the uses around it: a new or
 * removed symbol's name; a changed symbol's name when its header (signature) changed — a body
 * change is the matrix's "target body changed: none", and a container's members speak for
 * themselves; for
 * a file, every identifier of its import/export statements and top-level declaration lines that
 * differ (code that binds nothing, a test's `describe(…)`, names nothing).
 */
export function changedNames(
  previous: { readonly kind: string; readonly name: string; readonly chunkText: string; readonly signature: string } | null,
  next: { readonly kind: string; readonly name: string; readonly chunkText: string; readonly signature: string } | null,
): string[] {
  if (previous === null || next === null) {
    const n = (next ?? previous)!;
    return n.kind === 'file' ? [] : [n.name];
  }
  if (normalizedChunk(previous.chunkText) === normalizedChunk(next.chunkText)) return [];
  if (next.kind === 'file') {
    const f = changedFileNames(previous.chunkText, next.chunkText);
    return [...new Set([...f.imported, ...f.exported])];
  }
  // A body-only change is the matrix's "target body changed": no use of the symbol is affected
  // (an inferred type that follows the body is the documented exception, as across files).
  if (previous.signature === next.signature) return [];
  return [next.name];
}

/**
 * The syntactic keys of a re-parsed file whose uses the semantic pass must resolve: every symbol
 * whose exact edges were not carried, and every carried one whose own text names one of
 * `dirty`. Null when that is every key (the file is analysed whole).
 */
export function semanticRegion(
  nodes: readonly Pick<ExtractedNode, 'symbolKey' | 'chunkText'>[],
  carried: ReadonlySet<string>,
  dirty: ReadonlySet<string>,
): string[] | null {
  const all = new Set(nodes.map((n) => n.symbolKey));
  const keep = new Set<string>();
  for (const n of nodes) {
    if (!carried.has(n.symbolKey)) keep.add(n.symbolKey);
    else if (dirty.size > 0) {
      for (const id of identifiersOf(n.chunkText)) {
        if (dirty.has(id)) {
          keep.add(n.symbolKey);
          break;
        }
      }
    }
  }
  return keep.size === all.size ? null : [...keep].sort();
}
