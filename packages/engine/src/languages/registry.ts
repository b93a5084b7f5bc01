import { CaError, extensionOf, type EdgeType, type Language, type LanguageSupport, type WorkerEntry } from '@ca/schema';
import type { SyntacticSkeleton } from '@ca/parse-ts';
import type { Store } from '@ca/store';
import type { IndexerContext, IndexProgress, PlannedRegion, RunOptions } from '../indexer.js';

/** A file lacking exact edges, as the store lists them. */
export type StaleFile = ReturnType<Store['semantic']['staleFiles']>[number];

/** What an index run hands a language's semantic pass. */
export interface SemanticPassInput {
  readonly ctx: IndexerContext;
  readonly label: string;
  /** The directory the compiler reads (the working tree, or a commit's files written out). */
  readonly dir: string;
  /** The label's files of the pass's languages lacking exact edges (never empty). */
  readonly stale: readonly StaleFile[];
  /** Syntactic skeletons the run's parses kept (`keepsSkeletons` languages). */
  readonly skeletons: readonly SyntacticSkeleton[];
  /** Files whose carried exact edges leave only some symbols to analyse. */
  readonly regions: readonly PlannedRegion[];
  readonly options: RunOptions;
  readonly progress: (p: IndexProgress) => void;
  /** Called once the pass's compiler has its program (the embedder loads after it). */
  readonly programReady: () => void;
}

/**
 * A language's semantic pass: the compiler glue that writes exact edges. It needs the store,
 * so it lives in the engine (engine/src/languages/), not in the adapter package (decision 031).
 */
export interface SemanticPass {
  /** The key of its report in `ca index --json` → `semantic`. */
  readonly reportKey: string;
  /** The extractor id its edges carry; a new one re-analyses every file of the language. */
  readonly extractor: string;
  /** Edge types a re-parsed file keeps for its unchanged symbols (carried to the new version); none: nothing carried. */
  readonly carries?: readonly EdgeType[];
  /** Whether the run keeps its parses' syntactic skeletons for the pass. */
  readonly keepsSkeletons?: boolean;
  /** Whether what an importer resolves to follows its module's exports (their importers are analysed again). */
  readonly importersFollowExports?: boolean;
  /**
   * The label paths a file's module augmentations (declarations merged into another module from
   * this file) may name, for the augmentations that differ between its previous nodes (at
   * `previousPath`: it may have moved) and its next ones: those modules' own files and importers
   * are analysed again (what they bind to changed).
   */
  augmentedModules?(path: string, previousPath: string, previous: readonly DeclarationFacts[], next: readonly DeclarationFacts[]): string[];
  /** Whether declarations that appear or disappear re-analyse the files naming them. */
  readonly declarationChurn?: boolean;
  /** Whether the pass calls `programReady` itself (others get it called before they start). */
  readonly signalsProgramReady?: boolean;
  /**
   * Starts, in the background, work its `run` would otherwise begin with, when it will have
   * `stale` to analyse: called for every pass with work before the first pass runs, so that work
   * overlaps the passes before it. Never awaited.
   */
  warmUp?(ctx: IndexerContext, dir: string, stale: readonly StaleFile[]): void;
  /** Starts building a partial pass's program while the run parses (returns whether it did). */
  prepare?(ctx: IndexerContext, label: string, root: string, paths: readonly string[]): boolean;
  run(input: SemanticPassInput): Promise<unknown>;
}

/** What `SemanticPass.augmentedModules` reads of a node. */
export interface DeclarationFacts {
  readonly symbolKey: string;
  readonly kind: string;
  readonly name: string;
  readonly chunkHash: string;
}

/** A language as the engine takes it: its descriptor, and its semantic pass if it has one. */
export interface EngineLanguage extends LanguageSupport {
  readonly semantic?: SemanticPass;
}

/** A registered language's pass with the language ids it covers. */
export interface RegisteredPass {
  readonly pass: SemanticPass;
  readonly languages: readonly Language[];
}

/**
 * The languages one engine indexes: which descriptor owns a path, and the per-language rules
 * the indexer and navigation ask about. Nothing outside engine/src/languages/ names a language.
 */
export class LanguageRegistry {
  private readonly byExtension = new Map<string, EngineLanguage>();
  /** Whole file names (lower case) a language claims, over its extension's owner. */
  private readonly byFileName = new Map<string, EngineLanguage>();
  private readonly byLanguage = new Map<string, EngineLanguage>();

  constructor(readonly languages: readonly EngineLanguage[]) {
    for (const l of languages) {
      for (const ext of l.extensions) {
        const other = this.byExtension.get(ext);
        if (other) throw new CaError('config_invalid', `languages ${other.id} and ${l.id} both claim ${ext} files`, { context: { extension: ext } });
        this.byExtension.set(ext, l);
      }
      for (const name of l.fileNames ?? []) {
        const other = this.byFileName.get(name);
        if (other) throw new CaError('config_invalid', `languages ${other.id} and ${l.id} both claim files named ${name}`, { context: { fileName: name } });
        this.byFileName.set(name, l);
      }
      for (const id of l.languages) {
        const other = this.byLanguage.get(id);
        if (other) throw new CaError('config_invalid', `languages ${other.id} and ${l.id} both declare the language id ${id}`, { context: { language: id } });
        this.byLanguage.set(id, l);
      }
    }
  }

  /**
   * Every extension some language handles, and the whole file names (lower case, no leading
   * dot) languages claim: discovery takes a file whose extension or name is in it.
   */
  get extensions(): ReadonlySet<string> {
    return new Set([...this.byExtension.keys(), ...this.byFileName.keys()]);
  }

  /** The language owning a path: by its file name first, else by its extension (`.d.ts` counts as `.ts`), or null. */
  supportFor(path: string): EngineLanguage | null {
    return this.byFileName.get(path.slice(path.lastIndexOf('/') + 1).toLowerCase()) ?? this.byExtension.get(extensionOf(path)) ?? null;
  }

  /** A path's language id, without loading a grammar. */
  languageOf(path: string): Language | null {
    return this.supportFor(path)?.languageOf(path) ?? null;
  }

  /** The language ids sharing a descriptor with `language` (TS and JS use each other), itself included. */
  family(language: string): readonly string[] {
    return this.byLanguage.get(language)?.languages ?? [language];
  }

  /** Other names a symbol of `language` is used by. */
  nameEquivalents(language: string, name: string): readonly string[] {
    return this.byLanguage.get(language)?.nameEquivalents?.(name) ?? [];
  }

  /** Whether a module of `language` can export a symbol under another name (text search may miss its uses). */
  exportAliases(language: string): boolean {
    return this.byLanguage.get(language)?.exportAliases === true;
  }

  /** The semantic passes, in registration order. */
  passes(): readonly RegisteredPass[] {
    return this.languages.flatMap((l) => (l.semantic ? [{ pass: l.semantic, languages: l.languages }] : []));
  }

  /** The language ids whose pass has `flag` set. */
  languagesWith(flag: (pass: SemanticPass) => boolean): readonly Language[] {
    return this.passes().flatMap((p) => (flag(p.pass) ? p.languages : []));
  }

  /** Where parse threads load each language, or null when one must parse on the main thread. */
  workerEntries(): readonly WorkerEntry[] | null {
    const entries: WorkerEntry[] = [];
    for (const l of this.languages) {
      if (!l.worker) return null;
      entries.push(l.worker);
    }
    return entries;
  }
}
