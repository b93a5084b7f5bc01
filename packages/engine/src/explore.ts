import { dirname, join } from 'node:path/posix';
import picomatch from 'picomatch';
import { CaError, decodeSpan, type EdgeType } from '@ca/schema';
import type { ExploreReader, FileImport, FileSummary, NodeRecord } from '@ca/store';
import type { Engine } from './engine.js';
import { toSymbolView, type SymbolView } from './symbolView.js';

/** What the explore answers read of the engine's label (the working tree unless told otherwise). */
function exploreReader(engine: Engine, label?: string): ExploreReader {
  return engine.store.explore(engine.labelOf(label));
}

/** A symbol with what an agent asks before reading it: where it sits and how connected it is. */
export interface SymbolDetails {
  readonly symbol: SymbolView;
  /** The project (package.json name, .csproj path) the symbol belongs to. */
  readonly project: string;
  /** The qualified name of the containing symbol, or null at the top of a file. */
  readonly container: string | null;
  /** Distinct callers, callees, referencing symbols, implementations (implementing, inheriting or overriding symbols). */
  readonly counts: { readonly callers: number; readonly callees: number; readonly references: number; readonly implementations: number };
  /** Incoming and outgoing edges per edge type (distinct other ends). */
  readonly edges: { readonly incoming: Partial<Record<EdgeType, number>>; readonly outgoing: Partial<Record<EdgeType, number>> };
  /** 1 plus the number of extra spans (parts of a partial class, merged declarations). */
  readonly spans: number;
  /** True when the file has compiler-resolved (exact) edges; else counts come from name matching. */
  readonly exactEdges: boolean;
}

/** `get_symbol`: metadata, signature, doc, project and edge counts of one symbol (resolved like `source`). */
export function symbolDetails(engine: Engine, name: string, label?: string): SymbolDetails {
  const node = engine.resolveSymbol(name, label);
  const reader = exploreReader(engine, label);
  const edges = reader.edgeCounts(node.id);
  const parent = node.parentId === null ? null : engine.reader(label).nodeById(node.parentId);
  const implementations = (edges.incoming.implements ?? 0) + (edges.incoming.inherits ?? 0) + (edges.incoming.overrides ?? 0);
  return {
    symbol: toSymbolView(node),
    project: node.project,
    container: parent && parent.kind !== 'file' ? parent.qualifiedName : null,
    counts: {
      callers: edges.incoming.calls ?? 0,
      callees: edges.outgoing.calls ?? 0,
      references: (edges.incoming.references ?? 0) + (edges.incoming.calls ?? 0),
      implementations,
    },
    edges,
    spans: 1 + reader.extraSpans(node.id).length,
    exactEdges: node.semanticState === 'ok',
  };
}

export interface SourceSpan {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  /** The span's code read from disk, or the indexed (collapsed) text when the file changed since (`stale`). */
  readonly code: string;
  readonly stale: boolean;
  readonly primary: boolean;
}

export interface SourceSpansOptions {
  /** `primary` (default), `all` (every part of a partial class or merged declaration), or the 0-based index of one span. */
  readonly span?: 'primary' | 'all' | number;
  /** Keep only these lines of each span (1-based file lines, inclusive). */
  readonly startLine?: number;
  readonly endLine?: number;
  /** The label to read (default: the working tree). */
  readonly label?: string;
}

/** `get_source_spans`: a symbol's source, one span, or every span of a symbol declared in parts. */
export function sourceSpans(engine: Engine, name: string, options: SourceSpansOptions = {}): { symbol: SymbolView; spans: SourceSpan[]; totalSpans: number } {
  const node = engine.resolveSymbol(name, options.label);
  const extra = exploreReader(engine, options.label).extraSpans(node.id);
  const all = [{ path: node.path, startLine: node.startLine, endLine: node.endLine, startByte: node.startByte, endByte: node.endByte, primary: true }, ...extra.map((s) => ({ ...s, primary: false }))];
  const which = options.span ?? 'primary';
  let chosen: typeof all;
  if (which === 'all') chosen = all;
  else if (which === 'primary') chosen = [all[0]!];
  else {
    const one = all[which];
    if (!one) throw new CaError('usage', `span ${which} does not exist: ${node.qualifiedName} has ${all.length} span${all.length === 1 ? '' : 's'} (0-${all.length - 1})`, { context: { symbol: name } });
    chosen = [one];
  }
  const spans = chosen.map((s) => {
    const bytes = engine.fileBytes(s.path, options.label);
    let code = bytes ? decodeSpan(bytes, s.startByte, s.endByte) : s.primary ? node.chunkText : '';
    let startLine = s.startLine;
    let endLine = s.endLine;
    if (options.startLine !== undefined || options.endLine !== undefined) {
      // The code starts at the span's first byte, which may be mid-line: line i of `code` is file line startLine + i.
      const lines = code.split('\n');
      const from = Math.max(startLine, options.startLine ?? startLine);
      const to = Math.min(endLine, options.endLine ?? endLine);
      code = from > to ? '' : lines.slice(from - startLine, to - startLine + 1).join('\n');
      [startLine, endLine] = from > to ? [from, from - 1] : [from, to];
    }
    return { path: s.path, startLine, endLine, code, stale: bytes === null, primary: s.primary };
  });
  return { symbol: toSymbolView(node), spans, totalSpans: all.length };
}

/** A symbol of an outline tree. */
export interface OutlineNode {
  readonly id: string;
  readonly name: string;
  readonly qualifiedName: string;
  readonly kind: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly signature: string;
  readonly exported: boolean;
  readonly children: OutlineNode[];
}

/** Whether a node is visible outside its file (exported, public API). */
function isExported(n: Pick<NodeRecord, 'modifiers' | 'isPublicApi'>): boolean {
  return n.isPublicApi || n.modifiers.includes('export') || n.modifiers.includes('public');
}

/** `get_file_outline`: the symbols of a file as a tree (containers hold their members), in source order. */
export function fileOutline(engine: Engine, path: string, label?: string): { path: string; language: string | null; lines: number; symbols: OutlineNode[]; count: number } {
  const nodes = engine.outline(path, label === undefined ? {} : { label });
  const rel = nodes[0]?.path ?? path;
  const summary = exploreReader(engine, label).file(rel);
  return { path: rel, language: summary?.language ?? null, lines: summary?.lineCount ?? 0, ...outlineTree(nodes) };
}

/** A file's nodes (source order) as the outline tree: containers hold their members; the file node left out. */
export function outlineTree(nodes: readonly NodeRecord[]): { symbols: OutlineNode[]; count: number } {
  const byId = new Map<number, OutlineNode & { parent: number | null }>();
  let count = 0;
  for (const n of nodes) {
    if (n.kind === 'file') continue;
    count++;
    byId.set(n.id, {
      id: String(n.id),
      name: n.name,
      qualifiedName: n.qualifiedName,
      kind: n.kind,
      startLine: n.startLine,
      endLine: n.endLine,
      signature: n.signature,
      exported: isExported(n),
      children: [],
      parent: n.parentId,
    });
  }
  const roots: OutlineNode[] = [];
  for (const entry of byId.values()) {
    const { parent, ...node } = entry;
    const holder = parent === null ? undefined : byId.get(parent);
    if (holder) holder.children.push(node);
    else roots.push(node);
  }
  // The children arrays above hold the entries without `parent`: strip it from the roots' descendants too.
  const strip = (n: OutlineNode): OutlineNode => ({ id: n.id, name: n.name, qualifiedName: n.qualifiedName, kind: n.kind, startLine: n.startLine, endLine: n.endLine, signature: n.signature, exported: n.exported, children: n.children.map(strip) });
  return { symbols: roots.map(strip), count };
}

/** `lookup_symbol`: every definition a qualified or bare name matches (up to `limit`), with the total. */
export function lookupSymbols(engine: Engine, name: string, limit = 20, label?: string): { matches: (SymbolView & { project: string })[]; total: number } {
  const found = engine.findSymbols(name, label);
  return { matches: found.slice(0, limit).map((n) => ({ ...toSymbolView(n), project: n.project })), total: found.length };
}

/** A directory ranked by `discover_directories`. */
export interface RankedDirectory {
  readonly path: string;
  /** Sum of the search scores of the matching symbols in it (without a query: its symbol count). */
  readonly score: number;
  readonly files: number;
  readonly symbols: number;
  /** Files per language, most first. */
  readonly languages: Record<string, number>;
  /** Its best-matching symbols (without a query: its largest ones). */
  readonly mainSymbols: readonly { readonly qualifiedName: string; readonly kind: string; readonly path: string; readonly line: number }[];
}

export interface DiscoverOptions {
  readonly limit?: number;
  /** Symbols the search draws from (default 100). */
  readonly breadth?: number;
  readonly pathGlob?: string;
  readonly includeTests?: boolean;
}

function directoryOf(path: string): string {
  const d = dirname(path);
  return d === '' ? '.' : d;
}

/**
 * `discover_directories`: directories ranked by how much code relevant to `query` they hold
 * (the summed scores of the search's top symbols, grouped by their file's directory), with their
 * main symbols and languages. Without a query: directories by symbol count.
 */
export async function discoverDirectories(engine: Engine, query: string | undefined, options: DiscoverOptions = {}): Promise<{ directories: RankedDirectory[]; total: number; notices: readonly string[] }> {
  const limit = options.limit ?? 10;
  const files = exploreReader(engine).files();
  const match = options.pathGlob ? picomatch(options.pathGlob, { dot: true }) : null;
  const perDir = new Map<string, { files: number; symbols: number; languages: Map<string, number> }>();
  for (const f of files) {
    if (match && !match(f.path)) continue;
    const d = directoryOf(f.path);
    let e = perDir.get(d);
    if (!e) perDir.set(d, (e = { files: 0, symbols: 0, languages: new Map() }));
    e.files++;
    e.symbols += f.symbols;
    if (f.language) e.languages.set(f.language, (e.languages.get(f.language) ?? 0) + 1);
  }
  const scored = new Map<string, { score: number; symbols: { qualifiedName: string; kind: string; path: string; line: number; score: number }[] }>();
  let notices: readonly string[] = [];
  if (query !== undefined && query.trim() !== '') {
    const r = await engine.search(query, {
      limit: options.breadth ?? 100,
      budget: Number.MAX_SAFE_INTEGER,
      includeTests: options.includeTests === true,
      ...(options.pathGlob ? { pathGlob: options.pathGlob } : {}),
    });
    notices = r.notices;
    for (const x of r.results) {
      const d = directoryOf(x.path);
      let e = scored.get(d);
      if (!e) scored.set(d, (e = { score: 0, symbols: [] }));
      e.score += x.score;
      e.symbols.push({ qualifiedName: x.qualifiedName, kind: x.kind, path: x.path, line: x.startLine, score: x.score });
    }
  } else {
    const reader = engine.reader();
    for (const [d, e] of perDir) {
      if (e.symbols === 0) continue;
      const top = files
        .filter((f) => directoryOf(f.path) === d && f.symbols > 0)
        .flatMap((f) => reader.outline(f.path).filter((n) => n.kind !== 'file' && n.kind !== 'module' && (n.parentId === null || reader.nodeById(n.parentId)?.kind === 'file')))
        .map((n) => ({ qualifiedName: n.qualifiedName, kind: n.kind, path: n.path, line: n.startLine, score: n.endLine - n.startLine + 1 }));
      scored.set(d, { score: e.symbols, symbols: top });
    }
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const directories = [...scored.entries()]
    .map(([path, s]): RankedDirectory => {
      const d = perDir.get(path) ?? { files: 0, symbols: 0, languages: new Map<string, number>() };
      return {
        path,
        score: round(s.score),
        files: d.files,
        symbols: d.symbols,
        languages: Object.fromEntries([...d.languages.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))),
        mainSymbols: [...s.symbols].sort((a, b) => b.score - a.score).slice(0, 5).map(({ score: _s, ...rest }) => rest),
      };
    })
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { directories: directories.slice(0, limit), total: directories.length, notices };
}

/** One file of a symbol map. */
export interface FileMap {
  readonly path: string;
  readonly language: string | null;
  readonly lines: number;
  /** Top-level symbols with their members' names (signatures only with `signatures`). */
  readonly symbols: readonly { readonly name: string; readonly kind: string; readonly line: number; readonly signature?: string; readonly exported: boolean; readonly members?: readonly string[] }[];
  readonly imports: readonly { readonly name: string; readonly from: string | null; readonly line: number }[];
  /** Names of the exported top-level symbols. */
  readonly exports: readonly string[];
}

export interface MapOptions {
  /** Files whose repository path matches this glob. */
  readonly pathGlob?: string;
  /** Or the files holding the best matches of this query. */
  readonly query?: string;
  /** Most files (default 20). */
  readonly limit?: number;
  /** Skip this many files first (paging). */
  readonly offset?: number;
  /** Include each symbol's signature (default true). */
  readonly signatures?: boolean;
}

/**
 * `map_symbols`: for the files matching a glob (in path order) or holding a query's best matches
 * (best first), each file's top-level symbols with their members, its imports and its exports.
 */
export async function mapSymbols(engine: Engine, options: MapOptions): Promise<{ files: FileMap[]; total: number; offset: number; notices: readonly string[] }> {
  if (!options.pathGlob && !options.query) throw new CaError('usage', 'map_symbols needs a path glob or a query');
  const limit = options.limit ?? 20;
  const offset = options.offset ?? 0;
  const reader = exploreReader(engine);
  const all = reader.files();
  const byPath = new Map(all.map((f) => [f.path, f] as const));
  let paths: string[];
  let notices: readonly string[] = [];
  if (options.query) {
    const r = await engine.search(options.query, { limit: 100, budget: Number.MAX_SAFE_INTEGER, ...(options.pathGlob ? { pathGlob: options.pathGlob } : {}) });
    notices = r.notices;
    paths = [...new Set(r.results.map((x) => x.path))];
  } else {
    let match: (p: string) => boolean;
    try {
      match = picomatch(options.pathGlob!, { dot: true });
    } catch (e) {
      throw new CaError('invalid_query', `invalid path glob "${options.pathGlob}": ${(e as Error).message}`, { cause: e });
    }
    paths = all.filter((f) => f.symbols > 0 && match(f.path)).map((f) => f.path);
  }
  const page = paths.slice(offset, offset + limit);
  const imports = new Map<string, FileImport[]>();
  for (const i of reader.importsOf(page)) {
    const list = imports.get(i.path) ?? [];
    list.push(i);
    imports.set(i.path, list);
  }
  const files = page.map((path) => fileMap(engine, path, byPath.get(path), imports.get(path) ?? [], options.signatures !== false));
  return { files, total: paths.length, offset, notices };
}

function fileMap(engine: Engine, path: string, summary: FileSummary | undefined, imports: readonly FileImport[], signatures: boolean): FileMap {
  const nodes = engine.reader().outline(path);
  // Files, modules and namespaces are containers, not symbols: what they hold is top-level. A
  // member whose container lives in another file (a part of a C# partial class) is top-level here too.
  const containers = new Set(nodes.filter((n) => n.kind === 'file' || n.kind === 'module' || n.kind === 'namespace').map((n) => n.id));
  const inFile = new Set(nodes.map((n) => n.id));
  const top = nodes.filter((n) => !containers.has(n.id) && (n.parentId === null || containers.has(n.parentId) || !inFile.has(n.parentId)));
  const symbols = top.map((n) => {
    const members = nodes.filter((m) => m.parentId === n.id).map((m) => m.name);
    return {
      name: n.name,
      kind: n.kind,
      line: n.startLine,
      ...(signatures ? { signature: n.signature } : {}),
      exported: isExported(n),
      ...(members.length > 0 ? { members } : {}),
    };
  });
  return {
    path,
    language: summary?.language ?? null,
    lines: summary?.lineCount ?? 0,
    symbols,
    imports: imports.map((i) => ({ name: i.targetName, from: i.targetPath ?? i.specifier, line: i.line })),
    exports: top.filter(isExported).map((n) => n.name),
  };
}

/** Per indexed file: language, lines and symbol count (list_directory and get_directory_tree annotate entries with them). */
export function indexedFiles(engine: Engine): Map<string, FileSummary> {
  return new Map(exploreReader(engine).files().map((f) => [f.path, f] as const));
}
