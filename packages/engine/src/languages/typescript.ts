import { posix } from 'node:path';
import { typescriptLanguage } from '@ca/parse-ts';
import { skeletonOfStored } from '../indexer.js';
import type { DeclarationFacts, EngineLanguage, SemanticPass } from './registry.js';
import { runTsSemanticPass, TS_SEMANTIC_EXTRACTOR, TS_SEMANTIC_TYPES } from './tsSemantic.js';

/**
 * Stored nodes of unchanged files handed to a partial TS pass, at most: the pass names its
 * targets in those files by them instead of parsing each again (docs/benchmarks.md).
 */
const STORED_SKELETON_NODE_CAP = 250_000;
const LANGUAGES = typescriptLanguage.languages;

/** The extensions a relative module specifier may name a file by (and `index` files of a folder). */
const MODULE_FILES = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * `declare module '../vanilla' { … }` is a namespace node named by its relative specifier; its
 * members are qualified under it. The augmentations whose declarations differ between the two
 * versions — compared by the module they resolve to, so a file moved to another folder augments
 * another module with the same text — name the candidate files of their modules (bare
 * specifiers, a package's augmentation, are not followed: no file of the label is named by them).
 */
function augmentedModules(path: string, previousPath: string, previous: readonly DeclarationFacts[], next: readonly DeclarationFacts[]): string[] {
  const before = augmentationTexts(previousPath, previous);
  const after = augmentationTexts(path, next);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((base) => before.get(base) !== after.get(base));
  return changed.flatMap((base) => [...MODULE_FILES.map((ext) => `${base}${ext}`), ...MODULE_FILES.map((ext) => `${base}/index${ext}`)]);
}

/**
 * Each relative augmentation of the file at `path`: the module path it resolves to (no
 * extension) → its declarations (qualified names — the part of the keys after `#`, members may
 * be keyed by file or by package — with their chunk hashes, sorted).
 */
function augmentationTexts(path: string, nodes: readonly DeclarationFacts[]): Map<string, string> {
  const qualified = (n: DeclarationFacts) => n.symbolKey.slice(n.symbolKey.lastIndexOf('#') + 1);
  const out = new Map<string, string>();
  for (const spec of new Set(nodes.filter((n) => n.kind === 'namespace' && /^\.\.?\//.test(n.name) && qualified(n) === n.name).map((n) => n.name))) {
    const base = posix.normalize(posix.join(posix.dirname(path), spec)).replace(/\.(d\.ts|[mc]?[tj]sx?)$/, '');
    if (base.startsWith('../')) continue;
    const members = nodes.filter((m) => qualified(m) === spec || qualified(m).startsWith(`${spec}.`)).map((m) => `${qualified(m)}=${m.chunkHash}`);
    out.set(base, [...(out.get(base)?.split('\n') ?? []), ...members].sort().join('\n'));
  }
  return out;
}

/** The TypeScript compiler pass (a worker holding the programs) over the label's TS/JS files. */
const typescriptPass: SemanticPass = {
  reportKey: 'ts',
  extractor: TS_SEMANTIC_EXTRACTOR,
  carries: TS_SEMANTIC_TYPES,
  keepsSkeletons: true,
  importersFollowExports: true,
  signalsProgramReady: true,
  augmentedModules,
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
