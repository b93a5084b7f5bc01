/**
 * The syntactic extractor: one iterative TreeCursor walk over a tree-sitter tree that
 * collects symbols, imports/exports, heritage and raw use sites, followed by a resolution
 * pass that turns use sites into approximate `calls`/`references` edges.
 *
 * The units, in the shape of scip-typescript's `FileIndexer` (docs/decisions/028-extractors-as-walkers.md):
 * the walker (`extract/walker.ts`: walk state in fields, one method per node kind dispatched from
 * a table), declaration building (`extract/declarations.ts`), import/export facts
 * (`extract/modules.ts`), use-site resolution into edges (`extract/resolve.ts`) and node building
 * with chunk texts (`extract/nodes.ts`). This file wires them together.
 */
import type { Tree } from 'web-tree-sitter';
import { symbolKey, type Diagnostic, type FileIndex, type Language } from '@ca/schema';
import { DeclarationBuilder, type CommentAt } from './extract/declarations.js';
import { httpCallEdges } from './extract/http.js';
import { FileFacts } from './extract/model.js';
import { buildNodes, settleSymbols, symbolKeys } from './extract/nodes.js';
import { UseSiteResolver } from './extract/resolve.js';
import { TsFileWalker } from './extract/walker.js';
import { ByteOffsets, countLines, isGeneratedFile } from './text.js';

export { DeadlineExceeded } from './extract/model.js';

/** Options for `extractFile`. */
export interface ExtractOptions {
  readonly path: string;
  readonly text: string;
  readonly language: Language;
  /** `performance.now()` value after which extraction aborts, or Infinity. */
  readonly deadlineAt: number;
}

/**
 * Extracts one file from an already parsed tree. Throws `DeadlineExceeded` when the
 * deadline passes during the walk.
 */
export function extractFile(tree: Tree, opts: ExtractOptions): FileIndex {
  const { path, text, language } = opts;
  const lineCount = countLines(text);
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  const facts = new FileFacts(path, text, fileName);
  const commentAt: CommentAt = [null];
  const build = new DeclarationBuilder(facts, commentAt);
  build.fileSymbol(fileName, lineCount);
  new TsFileWalker(tree, facts, build, commentAt, opts.deadlineAt).run();

  settleSymbols(facts);
  const keys = symbolKeys(facts.syms, path, language);
  const nodes = buildNodes(facts, { lineCount, offsets: new ByteOffsets(text), keys });
  const edges = new UseSiteResolver(facts, keys).edges();
  edges.push(...httpCallEdges(tree, text, facts.httpSites));
  return {
    path,
    language,
    parseStatus: facts.syntaxErrors > 0 || tree.rootNode.hasError ? 'partial' : 'ok',
    generated: isGeneratedFile(path, text),
    lineCount,
    nodes,
    edges,
    diagnostics: syntaxDiagnostics(facts),
    exports: facts.exportNames,
    reExports: facts.reExports,
  };
}

/** One `syntax_error` warning (with the first error line) when the walk met ERROR/MISSING nodes. */
function syntaxDiagnostics(facts: FileFacts): Diagnostic[] {
  if (facts.syntaxErrors === 0) return [];
  const n = facts.syntaxErrors;
  return [
    {
      severity: 'warning',
      code: 'syntax_error',
      message: `${n} syntax error${n === 1 ? '' : 's'} (ERROR/MISSING nodes); symbols may be incomplete`,
      line: facts.firstErrorLine,
    },
  ];
}

/** The file-only result used when parsing failed or timed out. */
export function errorFileIndex(path: string, text: string, language: Language, diagnostic: Diagnostic): FileIndex {
  const lineCount = countLines(text);
  const offsets = new ByteOffsets(text);
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    path,
    language,
    parseStatus: 'error',
    generated: isGeneratedFile(path, text),
    lineCount,
    nodes: [
      {
        localId: 'n0',
        kind: 'file',
        name,
        qualifiedName: path,
        symbolKey: symbolKey({ language, scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
        disambiguator: 0,
        parentLocalId: null,
        span: { startLine: 1, endLine: Math.max(1, lineCount), startByte: 0, endByte: offsets.byteLength },
        signature: path,
        parameterCount: null,
        returnType: null,
        modifiers: [],
        isPublicApi: false,
        doc: null,
        chunkText: text,
      },
    ],
    edges: [],
    diagnostics: [diagnostic],
    exports: [],
    reExports: [],
  };
}
