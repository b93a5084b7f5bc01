import { csharpLanguage } from '@ca/parse-cs';
import type { EngineLanguage, SemanticPass } from './registry.js';
import { CS_SEMANTIC_EXTRACTOR, runCsSemanticPass, warmUpRazorGenerator } from './csSemantic.js';

/** Roslyn over the C# projects of the stale files (roslyn-host, safe mode). */
const csharpPass: SemanticPass = {
  reportKey: 'cs',
  extractor: CS_SEMANTIC_EXTRACTOR,
  declarationChurn: true,
  warmUp(ctx, dir, stale) {
    warmUpRazorGenerator(ctx.csHost(), dir, stale);
  },
  run({ ctx, label, dir, stale, progress }) {
    return runCsSemanticPass(ctx.store, dir, label, {
      safeMode: ctx.config.indexing.safe_mode,
      projects: [...new Set(stale.map((r) => r.project))],
      files: stale.map((r) => r.path),
      host: ctx.csHost(),
      maxFileBytes: ctx.config.indexing.max_file_bytes,
      requestTimeoutMs: ctx.config.semantic.request_timeout_ms,
      onProgress: (done, total) => progress({ phase: 'semantic', done, total }),
    });
  },
};

/** C# as the engine indexes it: @ca/parse-cs's descriptor and the Roslyn pass. */
export const csharp: EngineLanguage = { ...csharpLanguage, semantic: csharpPass };
