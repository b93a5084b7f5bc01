import { disambiguate, symbolKey, type Diagnostic, type ExtractedEdge, type ExtractedNode } from '@ca/schema';
import type { Tree } from 'web-tree-sitter';
import { nodesOf } from './chunks.js';
import { DeclTable, TYPE_KIND_SET, type Sites } from './decl.js';
import { ConfigReadCollector } from './configReads.js';
import { DeclarationBuilder } from './declarations.js';
import { EndpointCollector } from './endpoints/collector.js';
import { UseSiteResolver } from './resolve.js';
import { countLines } from './text.js';
import { CsFileWalker } from './walker.js';

export { DeadlineExceeded } from './walker.js';
export { looksLikeInterface } from './resolve.js';

/** One file to extract: its texts and its parse tree. */
export interface ExtractInput {
  readonly path: string;
  /** The original text (chunks are cut from it). */
  readonly original: string;
  /** The preprocessed text the tree was parsed from (same length as `original`). */
  readonly text: string;
  readonly tree: Tree;
  readonly deadline: number;
}

/** What a file yields: nodes with chunks, edges resolved within the file, syntax diagnostics. */
export interface ExtractResult {
  readonly nodes: ExtractedNode[];
  readonly edges: ExtractedEdge[];
  readonly diagnostics: Diagnostic[];
  readonly exports: string[];
  readonly hasError: boolean;
}

/**
 * Pass over one parse tree: the walker builds declarations ({@link DeclarationBuilder}) and
 * collects use sites, the {@link UseSiteResolver} turns them into edges, then nodes get their
 * chunks. Throws `DeadlineExceeded` past `input.deadline`.
 */
export function extract(input: ExtractInput): ExtractResult {
  const { path, text, original, tree, deadline } = input;
  const table = new DeclTable();
  const sites: Sites = { calls: [], refs: [], extendsSites: [], imports: [] };
  const lastRow = Math.max(0, countLines(original) - 1);
  const fileDecl = table.add({
    kind: 'file',
    name: path.slice(path.lastIndexOf('/') + 1),
    qualifiedName: path,
    key: symbolKey({ language: 'cs', scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
    parent: null,
    childContainers: [],
    childQualified: '',
    start: 0,
    end: original.length,
    startRow: 0,
    endRow: lastRow,
    typeParams: [],
  });
  const builder = new DeclarationBuilder(text, original, lastRow, table, sites);
  const endpoints = new EndpointCollector(text);
  const config = new ConfigReadCollector(text);
  const walker = new CsFileWalker(tree, fileDecl, text, deadline, builder, sites, endpoints, config);
  walker.run();
  // Endpoints are declarations of the file (after the others, so their local ids come last).
  const found = endpoints.finish(table, fileDecl, deadline);

  const decls = table.all;
  // Disambiguators first: edge keys must match node keys.
  const disamb = disambiguate(decls);
  const edges = new UseSiteResolver(decls).resolve(fileDecl, sites);
  for (const { source, ...e } of found.edges) edges.push({ sourceLocalId: source.localId, ...e });
  for (const { source, ...e } of config.finish(fileDecl)) edges.push({ sourceLocalId: source.localId, ...e });
  const nodes = nodesOf(decls, disamb, original);
  const exportsList = decls
    .filter((d) => TYPE_KIND_SET.has(d.kind) && !(d.parent && TYPE_KIND_SET.has(d.parent.kind)))
    .map((d) => d.qualifiedName);
  return { nodes, edges, diagnostics: walker.diagnostics, exports: [...new Set(exportsList)], hasError: walker.hasError || tree.rootNode.hasError };
}
