import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CaError } from '@ca/schema';
import type { Language } from 'web-tree-sitter';

let loading: Promise<Language> | null = null;

/**
 * Loads web-tree-sitter and the C# WASM grammar once per thread (each worker thread has its
 * own WebAssembly instance, so this module-level cache is per thread by construction).
 */
export function loadCSharpLanguage(): Promise<Language> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    try {
      // Loaded here, not at the top: a command that only reads the index never loads the runtime.
      const { Language, Parser } = await import('web-tree-sitter');
      const runtimeWasm = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
      await Parser.init({ locateFile: () => runtimeWasm });
      const grammarDir = dirname(require.resolve('tree-sitter-c-sharp/package.json'));
      return await Language.load(join(grammarDir, 'tree-sitter-c_sharp.wasm'));
    } catch (e) {
      loading = null;
      throw new CaError('grammar_unavailable', `cannot load the C# tree-sitter grammar: ${(e as Error).message}`, { cause: e });
    }
  })();
  return loading;
}
