import { typescriptLanguage } from '@ca/parse-ts';
import { skeletonOfStored } from '../indexer.js';
import type { EngineLanguage, SemanticPass } from './registry.js';
import { runTsSemanticPass, TS_SEMANTIC_EXTRACTOR, TS_SEMANTIC_TYPES } from './tsSemantic.js';

/**
 * Stored nodes of unchanged files handed to a partial TS pass, at most: the pass names its
 * targets in those files by them instead of parsing each again (docs/benchmarks.md).
 */
const STORED_SKELETON_NODE_CAP = 250_000;
const LANGUAGES = typescriptLanguage.languages;

/** The TypeScript compiler pass (a worker holding the programs) over the label's TS/JS files. */
const typescriptPass: SemanticPass = {
  reportKey: 'ts',
  extractor: TS_SEMANTIC_EXTRACTOR,
  carries: TS_SEMANTIC_TYPES,
  keepsSkeletons: true,
  importersFollowExports: true,
  signalsProgramReady: true,
  prepare(ctx, label, root, paths) {
    if (paths.length === 0 || paths.length >= ctx.store.reader(label).countFiles(LANGUAGES)) return false;
    ctx.tsService().prepare(root, paths, { maxFileBytes: ctx.config.indexing.max_file_bytes });
    return true;
  },
  async run({ ctx, label, dir, stale, skeletons, regions, progress, programReady }) {
    const { store, config } = ctx;
    progress({ phase: 'semantic', done: 0, total: 1 });
    // Everything stale: a first index, or a scope whose context changed (then no regions).
    const partial = stale.length < store.reader(label).countFiles(LANGUAGES);
    const stalePaths = new Set(stale.map((r) => r.path));
    // The targets of a partial pass are mostly in files this run did not parse: their stored nodes.
    const parsed = new Set(skeletons.map((sk) => sk.path));
    const stored = partial
      ? store.semantic
          .storedSkeletons(label, LANGUAGES, STORED_SKELETON_NODE_CAP)
          .filter((sk) => !parsed.has(sk.path))
          .map(skeletonOfStored)
      : [];
    return runTsSemanticPass(store, dir, label, {
      ...(partial ? { files: stale.map((r) => r.path), regions: regions.filter((r) => stalePaths.has(r.path)) } : {}),
      maxOldSpaceMb: config.semantic.max_old_space_mb,
      deadlineMs: config.semantic.request_timeout_ms,
      syntactic: stored.length > 0 ? [...skeletons, ...stored] : skeletons,
      maxFileBytes: config.indexing.max_file_bytes,
      service: ctx.tsService(),
      onProgress: (done, total) => {
        programReady();
        progress({ phase: 'semantic', done, total });
      },
    });
  },
};

/** TypeScript/JavaScript as the engine indexes it: @ca/parse-ts's descriptor and the compiler pass. */
export const typescript: EngineLanguage = { ...typescriptLanguage, semantic: typescriptPass };
