/**
 * The TypeScript/JavaScript `LanguageAdapter`: loads the web-tree-sitter runtime and the
 * TS/TSX/JS WASM grammars once per thread (workers each create their own adapter), picks a
 * grammar by extension, parses with a deadline and hands the tree to the extractor.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language as TsLanguage, Parser } from 'web-tree-sitter';
import { CaError, type FileIndex, type Language, type LanguageAdapter, type SourceFile } from '@ca/schema';
import { DeadlineExceeded, errorFileIndex, extractFile } from './extract.js';

/** Bumped whenever extraction output changes, so stored files are re-parsed. */
export const TS_EXTRACTOR_VERSION = 'ts-syntactic-6';

/** Extensions handled by the TS adapter, lower case with dot. */
export const TS_EXTENSIONS: readonly string[] = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** Options for `createTsAdapter`. */
export interface TsAdapterOptions {
  /**
   * Directory holding `tree-sitter-typescript.wasm`, `tree-sitter-tsx.wasm` and
   * `tree-sitter-javascript.wasm`. Default: the files shipped in the grammar npm packages.
   */
  readonly wasmDir?: string;
}

/** The tree-sitter grammars the adapter loads. */
export type Grammar = 'typescript' | 'tsx' | 'javascript';

/** Grammar and language of a path, or null when the extension is not handled. */
export function classifyTsPath(path: string): { grammar: Grammar; language: Language } | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  switch (path.slice(dot).toLowerCase()) {
    case '.ts':
    case '.mts':
    case '.cts':
      return { grammar: 'typescript', language: 'ts' };
    case '.tsx':
      return { grammar: 'tsx', language: 'ts' };
    case '.js':
    case '.jsx':
    case '.mjs':
    case '.cjs':
      return { grammar: 'javascript', language: 'js' };
    default:
      return null;
  }
}

type TreeSitter = typeof import('web-tree-sitter');
let runtimeInit: Promise<TreeSitter> | null = null;

/**
 * web-tree-sitter, loaded and initialised on the first adapter (`Parser.init()` is per module
 * instance, i.e. once per thread): a command that only reads the index never loads it.
 */
function initRuntime(): Promise<TreeSitter> {
  runtimeInit ??= import('web-tree-sitter')
    .then(async (treeSitter) => {
      await treeSitter.Parser.init();
      return treeSitter;
    })
    .catch((e: unknown) => {
      runtimeInit = null;
      throw new CaError('grammar_unavailable', `web-tree-sitter failed to initialise: ${String(e)}`, { cause: e });
    });
  return runtimeInit;
}

/** Grammars loaded in this thread, by file: shared by every parser of the thread. */
const languages = new Map<string, Promise<TsLanguage>>();

/**
 * Loads a grammar once per thread. Each load links the grammar's module into the runtime's one
 * function table, which never shrinks: a process creating adapters again and again (an engine
 * per repository, a test harness) ran out of table entries (`RuntimeError: table index is out of
 * bounds` in `new Parser()` after ~2,000 loads).
 */
function loadLanguage(treeSitter: TreeSitter, file: string): Promise<TsLanguage> {
  let loading = languages.get(file);
  if (loading === undefined) {
    loading = treeSitter.Language.load(file);
    languages.set(file, loading);
    // A failed load is tried again by the next adapter.
    loading.catch(() => languages.delete(file));
  }
  return loading;
}

function grammarPath(grammar: Grammar, wasmDir: string | undefined): string {
  const file = `tree-sitter-${grammar}.wasm`;
  if (wasmDir !== undefined) return join(wasmDir, file);
  const require = createRequire(import.meta.url);
  const pkg = grammar === 'javascript' ? 'tree-sitter-javascript' : 'tree-sitter-typescript';
  return join(dirname(require.resolve(`${pkg}/package.json`)), file);
}

/**
 * Creates the TS/JS adapter. Loads the runtime and the three grammars eagerly so a missing
 * grammar fails here (code `grammar_unavailable`) rather than on the first file.
 */
export async function createTsAdapter(options: TsAdapterOptions = {}): Promise<LanguageAdapter> {
  const parser = await createTsParser(options);
  const parse = (file: SourceFile, parseOptions?: { readonly deadlineMs?: number }): FileIndex => {
    const cls = classifyTsPath(file.path);
    if (cls === null) {
      throw new CaError('invalid_path', `not a TypeScript/JavaScript file: ${file.path}`, { context: { path: file.path } });
    }
    return parser.parseAs(file, cls, parseOptions);
  };
  return {
    id: 'ts',
    extensions: TS_EXTENSIONS,
    extractorVersion: TS_EXTRACTOR_VERSION,
    languageOf: (path: string) => classifyTsPath(path)?.language ?? null,
    parse,
    dispose: parser.dispose,
  };
}

/** The grammars of the TS adapter, parsing a file with a grammar and language chosen by the caller. */
export interface TsParser {
  /** Parses `file` with `cls.grammar` and labels its symbols `cls.language` (never throws for bad input). */
  parseAs(file: SourceFile, cls: { readonly grammar: Grammar; readonly language: Language }, options?: { readonly deadlineMs?: number }): FileIndex;
  dispose(): void;
}

/** Loads the runtime and the three grammars (`grammar_unavailable` when one is missing). */
export async function createTsParser(options: TsAdapterOptions = {}): Promise<TsParser> {
  const treeSitter = await initRuntime();
  const parsers = new Map<Grammar, Parser>();
  for (const grammar of ['typescript', 'tsx', 'javascript'] as const) {
    const file = grammarPath(grammar, options.wasmDir);
    let language: TsLanguage;
    try {
      language = await loadLanguage(treeSitter, file);
    } catch (e) {
      for (const p of parsers.values()) p.delete();
      throw new CaError('grammar_unavailable', `cannot load tree-sitter grammar ${file}: ${String(e)}`, {
        cause: e,
        context: { path: file },
      });
    }
    const parser = new treeSitter.Parser();
    parser.setLanguage(language);
    parsers.set(grammar, parser);
  }
  let disposed = false;

  const parseAs = (file: SourceFile, cls: { readonly grammar: Grammar; readonly language: Language }, parseOptions?: { readonly deadlineMs?: number }): FileIndex => {
    if (disposed) throw new CaError('internal', 'TS adapter used after dispose()', { context: { path: file.path } });
    const parser = parsers.get(cls.grammar)!;
    const started = performance.now();
    const deadlineMs = parseOptions?.deadlineMs;
    const deadlineAt = deadlineMs !== undefined && deadlineMs >= 0 ? started + deadlineMs : Number.POSITIVE_INFINITY;
    let timedOut = false;
    let tree;
    try {
      tree = parser.parse(
        file.text,
        null,
        deadlineAt === Number.POSITIVE_INFINITY
          ? undefined
          : {
              // Returning true cancels the parse (the .d.ts types it as void, the runtime honours it).
              progressCallback: () => {
                if (performance.now() > deadlineAt) timedOut = true;
                return timedOut;
              },
            },
      );
    } catch (e) {
      parser.reset();
      return errorFileIndex(file.path, file.text, cls.language, {
        severity: 'error',
        code: 'parse_failed',
        message: `tree-sitter failed: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
    if (tree === null) {
      // A cancelled parse would otherwise resume on the next call.
      parser.reset();
      return errorFileIndex(file.path, file.text, cls.language, {
        severity: 'error',
        code: timedOut ? 'parse_timeout' : 'parse_failed',
        message: timedOut
          ? `parse exceeded the ${deadlineMs} ms deadline`
          : 'tree-sitter returned no tree',
      });
    }
    try {
      return extractFile(tree, { path: file.path, text: file.text, language: cls.language, deadlineAt });
    } catch (e) {
      if (e instanceof DeadlineExceeded) {
        return errorFileIndex(file.path, file.text, cls.language, {
          severity: 'error',
          code: 'parse_timeout',
          message: `symbol extraction exceeded the ${deadlineMs} ms deadline`,
        });
      }
      return errorFileIndex(file.path, file.text, cls.language, {
        severity: 'error',
        code: 'parse_failed',
        message: `extraction failed: ${e instanceof Error ? e.message : String(e)}`,
      });
    } finally {
      tree.delete();
    }
  };

  return {
    parseAs,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      for (const p of parsers.values()) p.delete();
      parsers.clear();
    },
  };
}
