// Types of lib.mjs (the differential generator and comparator), for the TypeScript tests that use it.

/** @ca/store's CanonicalDump (restated: tools/ has no dependencies of its own). */
export interface CanonicalDump {
  readonly files: ReadonlyMap<string, string>;
  readonly nodes: ReadonlyMap<string, string>;
  readonly edges: ReadonlyMap<string, number>;
  readonly reexports: ReadonlyMap<string, number>;
  readonly fts: ReadonlyMap<string, string>;
  readonly vectors: ReadonlySet<string>;
}

export interface Rng {
  next(): number;
  int(n: number): number;
  pick<T>(xs: readonly T[]): T | undefined;
}
export function prng(seed: number): Rng;
export function workspaceOf(source: string): string;

/** The parts of @ca/engine's Engine the generator and comparator use. */
export interface DifferentialEngine {
  index(): Promise<unknown>;
  close(): void;
  outline(path: string): readonly { id: number; parentId: number | null; kind: string; name: string; qualifiedName: string; path: string; startLine: number; endLine: number; modifiers: readonly string[] }[];
  navigate(navigation: 'callers' | 'callees' | 'refs' | 'impls', target: string): { complete: boolean; gaps: readonly { scope: string }[]; edges: readonly { from: string; to: string | null; type: string; confidence: string; path: string; line: number; targetName: string }[] };
  reader(): { nodeById(id: number): { path: string; symbolKey: string } | null };
  readonly store: { canonicalDump(label?: string, options?: { fts?: boolean }): CanonicalDump };
}
export interface EngineClass {
  open(repo: string, options?: unknown): DifferentialEngine;
}

export class ChangeGenerator {
  constructor(repo: string, seed: number);
  readonly repo: string;
  step(engine: DifferentialEngine, n: number): { op: string; detail: string };
}
export const OPERATION_NAMES: readonly string[];

export interface Snapshot {
  readonly dump: CanonicalDump;
  readonly answers: ReadonlyMap<string, string>;
}
export function sampleSymbols(dump: CanonicalDump, seed: number, count: number): string[];
export function navigationAnswers(engine: DifferentialEngine, names: readonly string[]): Map<string, string>;
export function snapshot(engine: DifferentialEngine, names: readonly string[], options?: { fts?: boolean }): Snapshot;
export function compare(clean: Snapshot, incremental: Snapshot, limit?: number): string[];

export interface StepResult {
  readonly step: number;
  readonly op: string;
  readonly detail: string;
  readonly incrementalMs: number;
  readonly cleanMs: number;
  readonly differences: readonly string[];
  readonly replay: string;
}
export function runDifferential(options: {
  Engine: EngineClass;
  source: string;
  seed: number;
  steps: number;
  engineOptions?: unknown;
  queries?: number;
  fts?: boolean;
  keepGoing?: boolean;
  /** Replay from this step: earlier steps are not compared and the index is rebuilt before it. */
  from?: number;
  onStep?: (result: StepResult) => void;
}): Promise<StepResult[]>;
