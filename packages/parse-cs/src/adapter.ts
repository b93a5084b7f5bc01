import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { symbolKey, type Diagnostic, type FileIndex, type LanguageAdapter, type SourceFile } from '@ca/schema';
import type { Tree } from 'web-tree-sitter';
import { DeadlineExceeded, extract } from './extract.js';
import { isGeneratedCs } from './generated.js';
import { loadCSharpLanguage } from './grammar.js';
import { applyPreprocessor, DEFAULT_PREPROCESSOR_SYMBOLS } from './preprocessor.js';
import { countLines, utf8Offsets } from './text.js';

/** Options of {@link createCsAdapter}. */
export interface CsAdapterOptions {
  /**
   * Preprocessor symbols for a file (usually `preprocessorSymbolsFor(project)` of the project
   * owning it). Default: {@link DEFAULT_PREPROCESSOR_SYMBOLS} (Release build of net8.0).
   */
  readonly preprocessorSymbols?: (path: string) => readonly string[];
}

/** Bumped whenever extraction output changes shape or content for the same input. */
export const CS_EXTRACTOR_VERSION = 'cs-syntax-3';

const DEFAULT_DEADLINE_MS = 5000;
const DEFAULT_SYMBOLS_KEY = [...DEFAULT_PREPROCESSOR_SYMBOLS].sort().join(';');

/**
 * Creates the C# syntactic adapter (web-tree-sitter + tree-sitter-c-sharp WASM). Safe to call
 * inside a worker thread; each adapter owns one parser, parsing is synchronous per file.
 */
export async function createCsAdapter(options: CsAdapterOptions = {}): Promise<LanguageAdapter> {
  const language = await loadCSharpLanguage();
  // The runtime module loadCSharpLanguage initialised (already in the module cache).
  const { Parser } = await import('web-tree-sitter');
  const parser = new Parser();
  parser.setLanguage(language);
  const defaultSymbols = new Set(DEFAULT_PREPROCESSOR_SYMBOLS);

  function parse(file: SourceFile, parseOptions?: { readonly deadlineMs?: number }): FileIndex {
    const original = file.text;
    const generated = isGeneratedCs(file.path, original);
    const lineCount = countLines(original);
    const started = performance.now();
    const deadline = started + (parseOptions?.deadlineMs ?? DEFAULT_DEADLINE_MS);
    const symbols = options.preprocessorSymbols ? new Set(options.preprocessorSymbols(file.path)) : defaultSymbols;
    const pre = applyPreprocessor(original, symbols);
    const diagnostics: Diagnostic[] = [...pre.diagnostics];
    const base = { path: file.path, language: 'cs' as const, generated, lineCount, exports: [] as string[], reExports: [] };

    const timedOut = (): FileIndex => {
      parser.reset();
      return {
        ...base,
        parseStatus: 'error',
        nodes: [fileNodeOnly(file.path, original, lineCount)],
        edges: [],
        diagnostics: [
          ...diagnostics,
          { severity: 'error', code: 'parse_timeout', message: `parse exceeded its deadline of ${parseOptions?.deadlineMs ?? DEFAULT_DEADLINE_MS} ms` },
        ],
      };
    };

    let tree: Tree | null = null;
    try {
      try {
        tree = parser.parse(pre.text, null, {
          progressCallback: () => performance.now() > deadline,
        });
      } catch (e) {
        parser.reset();
        return {
          ...base,
          parseStatus: 'error',
          nodes: [fileNodeOnly(file.path, original, lineCount)],
          edges: [],
          diagnostics: [...diagnostics, { severity: 'error', code: 'parse_failed', message: (e as Error).message }],
        };
      }
      if (!tree) return timedOut();
      let result;
      try {
        result = extract({ path: file.path, original, text: pre.text, tree, deadline });
      } catch (e) {
        if (e instanceof DeadlineExceeded) return timedOut();
        throw e;
      }
      diagnostics.push(...result.diagnostics);
      return {
        ...base,
        parseStatus: result.hasError ? 'partial' : 'ok',
        nodes: result.nodes,
        edges: result.edges,
        diagnostics,
        exports: result.exports,
      };
    } finally {
      tree?.delete();
    }
  }

  return {
    id: 'cs',
    extensions: ['.cs'],
    extractorVersion: CS_EXTRACTOR_VERSION,
    // A project's preprocessor symbols decide which `#if` branches are parsed: a file must be
    // parsed again when they change (a new TargetFramework or DefineConstants), text unchanged.
    extractorFor: (path) => {
      const symbols = options.preprocessorSymbols ? [...new Set(options.preprocessorSymbols(path))].sort().join(';') : DEFAULT_SYMBOLS_KEY;
      return `cs@${CS_EXTRACTOR_VERSION}#${createHash('sha1').update(symbols).digest('hex').slice(0, 10)}`;
    },
    languageOf: (path) => (path.toLowerCase().endsWith('.cs') ? 'cs' : null),
    parse,
    dispose: () => parser.delete(),
  };
}

function fileNodeOnly(path: string, text: string, lineCount: number): FileIndex['nodes'][number] {
  return {
    localId: 'n0',
    kind: 'file',
    name: basename(path),
    qualifiedName: path,
    symbolKey: symbolKey({ language: 'cs', scope: { kind: 'file', path }, containers: [], name: '', kind: 'file' }),
    disambiguator: 0,
    parentLocalId: null,
    span: { startLine: 1, endLine: Math.max(1, lineCount), startByte: 0, endByte: utf8Offsets(text)(text.length) },
    signature: '',
    parameterCount: null,
    returnType: null,
    modifiers: [],
    isPublicApi: false,
    doc: null,
    // A file that could not be parsed is still searchable by its text.
    chunkText: text,
  };
}
