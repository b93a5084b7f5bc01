import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { symbolKey, type Diagnostic, type FileIndex, type LanguageAdapter, type SourceFile } from '@ca/schema';
import type { Tree } from 'web-tree-sitter';
import { DeadlineExceeded, extract } from './extract.js';
import { isGeneratedCs } from './generated.js';
import { loadCSharpLanguage } from './grammar.js';
import { applyPreprocessor, DEFAULT_PREPROCESSOR_SYMBOLS } from './preprocessor.js';
import { countLines, utf8Offsets } from './text.js';
import { extractRazor } from './razor/extract.js';
import { isRazorPath, type RazorProject } from './razor/names.js';

/** Options of {@link createCsAdapter}. */
export interface CsAdapterOptions {
  /**
   * Preprocessor symbols for a file (usually `preprocessorSymbolsFor(project)` of the project
   * owning it). Default: {@link DEFAULT_PREPROCESSOR_SYMBOLS} (Release build of net8.0).
   */
  readonly preprocessorSymbols?: (path: string) => readonly string[];
  /** The project a `.razor`/`.cshtml` file belongs to (its root namespace names components). Default: none. */
  readonly razorProject?: (path: string) => RazorProject | null;
}

/** Bumped whenever extraction output changes shape or content for the same input. */
export const CS_EXTRACTOR_VERSION = 'cs-syntax-8';
/** Bumped whenever the Razor pass's output changes for the same `.razor`/`.cshtml` input. */
export const RAZOR_EXTRACTOR_VERSION = 'razor-syntax-1';

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

  /** The C# pass over a Razor file's wrapped code blocks (no preprocessor: Razor has its own `#if` rules). */
  function razor(file: SourceFile, parseOptions?: { readonly deadlineMs?: number }): FileIndex {
    const deadline = performance.now() + (parseOptions?.deadlineMs ?? DEFAULT_DEADLINE_MS);
    const lineCount = countLines(file.text);
    const failed = (code: string, message: string): FileIndex => ({
      path: file.path,
      language: 'cs',
      parseStatus: 'error',
      generated: false,
      lineCount,
      nodes: [fileNodeOnly(file.path, file.text, lineCount)],
      edges: [],
      diagnostics: [{ severity: 'error', code, message }],
      exports: [],
      reExports: [],
    });
    try {
      return extractRazor({
        path: file.path,
        text: file.text,
        project: options.razorProject?.(file.path) ?? null,
        extractCs: (cs) => {
          const tree = parser.parse(cs, null, { progressCallback: () => performance.now() > deadline });
          if (!tree) throw new DeadlineExceeded();
          try {
            return extract({ path: file.path, original: cs, text: cs, tree, deadline });
          } finally {
            tree.delete();
          }
        },
      });
    } catch (e) {
      parser.reset();
      if (e instanceof DeadlineExceeded) return failed('parse_timeout', `parse exceeded its deadline of ${parseOptions?.deadlineMs ?? DEFAULT_DEADLINE_MS} ms`);
      return failed('parse_failed', (e as Error).message);
    }
  }

  function parse(file: SourceFile, parseOptions?: { readonly deadlineMs?: number }): FileIndex {
    if (isRazorPath(file.path)) return razor(file, parseOptions);
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
    extensions: ['.cs', '.razor', '.cshtml'],
    extractorVersion: CS_EXTRACTOR_VERSION,
    // A project's preprocessor symbols decide which `#if` branches are parsed: a file must be
    // parsed again when they change (a new TargetFramework or DefineConstants), text unchanged.
    extractorFor: (path) => {
      if (isRazorPath(path)) {
        // A component's namespace comes from its project's root namespace.
        const p = options.razorProject?.(path);
        return `razor@${RAZOR_EXTRACTOR_VERSION}#${createHash('sha1').update(p ? `${p.dir}|${p.rootNamespace}` : '').digest('hex').slice(0, 10)}`;
      }
      const symbols = options.preprocessorSymbols ? [...new Set(options.preprocessorSymbols(path))].sort().join(';') : DEFAULT_SYMBOLS_KEY;
      return `cs@${CS_EXTRACTOR_VERSION}#${createHash('sha1').update(symbols).digest('hex').slice(0, 10)}`;
    },
    languageOf: (path) => (path.toLowerCase().endsWith('.cs') || isRazorPath(path) ? 'cs' : null),
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
