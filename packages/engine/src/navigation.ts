import { CaError, decodeFile, defaultConfig, PREFIX_FACT_NAMES, TYPE_KINDS, type Confidence, type EdgeType } from '@ca/schema';
import type { GraphEdge, GraphNode, GraphReader, GraphReads, IndexReader, NodeRecord, SemanticGapFile, SemanticGapRow, Traversal, TraversalOptions } from '@ca/store';
import { isTestPath } from '@ca/retrieve';
import { toSymbolView, type SymbolView } from './symbolView.js';
import { BUILTIN_LANGUAGES } from './languages/index.js';
import { LanguageRegistry } from './languages/registry.js';

export const NAVIGATIONS = ['callers', 'callees', 'refs', 'impls', 'deps', 'dependents', 'impact'] as const;
export type Navigation = (typeof NAVIGATIONS)[number];

export interface NavigationOptions {
  /** Hops to follow (default 1, capped by graph.max_depth). */
  readonly depth?: number;
  readonly minConfidence?: Confidence;
  /** Callers of an implementation also include callers of the interface/base member it implements. */
  readonly throughInterfaces?: boolean;
  /**
   * Most nodes the walk may reach besides the symbol (and, for impact/deps/dependents, its
   * members). Default: `graph.impact_max_nodes` (1,000) for `impact`, 50,000 otherwise. Applied
   * during the breadth-first walk, so the nearest nodes are the ones kept; `truncated` says it cut.
   */
  readonly maxNodes?: number;
  /**
   * A repository file's text when it is still the version in the index, else null. With it,
   * files without exact edges leave an answer incomplete only when they could hold a missing
   * edge (see `gapFilesThatMatter`); without it, every such file does.
   */
  readonly indexedText?: (path: string) => string | null;
  /** The engine's languages (their name equivalences and families); default the built-in ones. */
  readonly languages?: NavigationLanguages;
}

/** What navigation asks of the languages. */
export type NavigationLanguages = Pick<LanguageRegistry, 'family' | 'nameEquivalents' | 'exportAliases'>;

let builtins: NavigationLanguages | null = null;
function builtinLanguages(): NavigationLanguages {
  builtins ??= new LanguageRegistry(BUILTIN_LANGUAGES);
  return builtins;
}

/** The `graph` configuration section as navigation reads it. */
export interface GraphLimits {
  readonly max_depth: number;
  readonly impact_max_nodes?: number;
}

export interface NavigationEdge {
  readonly from: string;
  readonly to: string | null;
  readonly type: EdgeType;
  readonly confidence: Confidence;
  readonly path: string;
  readonly line: number;
  /** Name as written at the use site (useful for unresolved targets). */
  readonly targetName: string;
}

export interface NavigationNode extends SymbolView {
  /** Hops from the symbol (0 for the symbol itself). */
  readonly depth: number;
}

export interface Gap {
  readonly scope: string;
  readonly reason: string;
}

export interface ImpactFile {
  readonly path: string;
  readonly symbols: readonly { readonly id: string; readonly qualifiedName: string; readonly kind: string; readonly line: number; readonly depth: number; readonly via: readonly string[] }[];
}

/** The JSON answer of every navigation command. */
export interface NavigationResult {
  readonly navigation: Navigation;
  readonly symbol: SymbolView;
  /** False when part of the searched scope has no exact edges (see `gaps`): "0 callers" may be "unknown". */
  readonly complete: boolean;
  readonly gaps: readonly Gap[];
  readonly edges: readonly NavigationEdge[];
  readonly nodes: readonly NavigationNode[];
  /** True when the node cap (`maxNodes`) cut the walk: `nodes` holds the nearest ones only. */
  readonly truncated: boolean;
  /** The node cap that applied. */
  readonly maxNodes: number;
  /**
   * Distinct nodes the walk reached besides the seeds. Exact when `truncated` is false; when it
   * is true, a lower bound (`totalReachedExact: false`): the kept nodes plus the others found on
   * the level where the cap was hit — deeper levels are not walked.
   */
  readonly totalReached: number;
  readonly totalReachedExact: boolean;
  /**
   * Only for `impact`: dependents grouped by file with the chain that connects each. Files are
   * ranked nearest first (smallest depth), then by how many of their symbols are affected, then
   * by path.
   */
  readonly byFile?: readonly ImpactFile[];
}

const WALK_GUARD = 50_000;
const DEFAULT_IMPACT_MAX_NODES = defaultConfig().graph.impact_max_nodes;
// One collator instead of String#localeCompare per comparison (same order, less work).
const collator = new Intl.Collator();

const ALL_DEPENDENCY_TYPES: readonly EdgeType[] = ['imports', 'calls', 'references', 'inherits', 'implements', 'overrides', 'accepts', 'extends'];

interface Plan {
  readonly direction: 'in' | 'out';
  readonly types: readonly EdgeType[];
  readonly includeDescendants: boolean;
  /** Edge types leading to a node crossed within the same hop (an HTTP endpoint, decision 038). */
  readonly bridges?: readonly EdgeType[];
}

const PLANS: Record<Navigation, Plan> = {
  // Across HTTP: action ← handles ← endpoint ← http_calls ← client, the endpoint crossed within one hop.
  // A configuration key's readers are its callers and its references (decision 048).
  callers: { direction: 'in', types: ['calls', 'handles', 'http_calls', 'reads_config'], includeDescendants: false, bridges: ['handles'] },
  callees: { direction: 'out', types: ['calls', 'http_calls', 'handles'], includeDescendants: false, bridges: ['http_calls'] },
  refs: { direction: 'in', types: ['references', 'calls', 'imports', 'reads_config'], includeDescendants: false },
  impls: { direction: 'in', types: ['implements', 'inherits', 'overrides'], includeDescendants: false },
  deps: { direction: 'out', types: ALL_DEPENDENCY_TYPES, includeDescendants: true },
  dependents: { direction: 'in', types: ALL_DEPENDENCY_TYPES, includeDescendants: true },
  impact: {
    direction: 'in',
    types: ['calls', 'references', 'inherits', 'implements', 'imports', 'overrides', 'accepts', 'extends', 'handles', 'http_calls', 'reads_config'],
    includeDescendants: true,
    bridges: ['handles'],
  },
};

function gapReason(state: string, reason: string | null, files: number): string {
  const n = `${files} file${files === 1 ? '' : 's'}`;
  switch (state) {
    case 'failed':
      return `semantic pass failed (${n}): ${reason ?? 'unknown reason'}; edges there are approximate`;
    case 'pending':
      return `semantic pass pending (${n}); edges there are approximate until it completes`;
    default:
      return `syntactic only (${n}): ${reason ?? 'no semantic pass has run'}; call/reference edges there are approximate (name-matched) and may be missing or wrong`;
  }
}

/** Kinds whose uses need not spell their name (`new()`, `super()`, operators, indexers, delegate calls) or that are not symbols in code. */
const UNSPELLED_KINDS: ReadonlySet<string> = new Set(['file', 'project', 'module', 'namespace', 'constructor', 'destructor', 'operator', 'indexer', 'delegate']);
/** Members the languages call without naming them (foreach, using, await, deconstruction, collection initialisers, query syntax, conversions to string …). */
const IMPLICIT_NAMES: ReadonlySet<string> = new Set([
  'GetEnumerator', 'GetAsyncEnumerator', 'MoveNext', 'MoveNextAsync', 'Current', 'Dispose', 'DisposeAsync', 'GetAwaiter', 'GetResult',
  'IsCompleted', 'OnCompleted', 'UnsafeOnCompleted', 'Deconstruct', 'Add', 'Invoke', 'Item', 'Select', 'SelectMany', 'Where', 'OrderBy',
  'OrderByDescending', 'ThenBy', 'ThenByDescending', 'GroupBy', 'Join', 'GroupJoin', 'Cast', 'Finalize', 'ToString', 'Equals',
  'GetHashCode', 'Slice', 'Length', 'Count', 'GetPinnableReference', 'constructor', 'toString', 'valueOf', 'toJSON', 'then', 'default',
]);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A TS/JS module whose symbol may be imported under another name (default export, `export =`, CommonJS). */
const RENAMED_EXPORT = /\bexport\s+default\b|\bas\s+default\b|\bexport\s*=|\bmodule\.exports\s*=/;
/** Past this much text to scan, every gap file counts (a repository whose semantic pass is off altogether). */
const GAP_SCAN_MAX_BYTES = 8 * 1024 * 1024;
/** Past this many gap files, walking in, every one counts without reading any (no semantic pass at all, say). */
const GAP_SCAN_MAX_FILES = 2_000;
/** Past this many names to look for, every gap file counts. */
const GAP_SCAN_MAX_NAMES = 512;

/**
 * The files without exact edges that could hold an edge the answer misses. Walking out
 * (callees, deps) only the expanded symbols' own files can. Walking in (callers, refs, impls,
 * dependents, impact), an edge into a symbol needs its name at the use site — a call, a JSX
 * tag, an import, `extends`, an attribute (`[Obsolete]` for `ObsoleteAttribute`) — so a file
 * whose indexed text never spells any expanded symbol's name cannot hold one. Where a name need
 * not be spelled (constructors, operators, implicitly called members, default or CommonJS
 * exports, file seeds) or the text cannot be read as indexed, every gap file counts.
 */
export function gapFilesThatMatter(
  files: readonly SemanticGapFile[],
  direction: 'in' | 'out',
  expanded: readonly { readonly name: string; readonly kind: string; readonly language: string; readonly path: string }[],
  indexedText: ((path: string) => string | null) | undefined,
  importers: readonly string[] = [],
  languages: NavigationLanguages = builtinLanguages(),
): readonly SemanticGapFile[] {
  if (files.length === 0) return files;
  if (direction === 'out') {
    const paths = new Set(expanded.map((n) => n.path));
    return files.filter((f) => paths.has(f.path));
  }
  if (!indexedText) return files;
  const names = new Set<string>();
  const renamedChecked = new Map<string, boolean>();
  for (const n of expanded) {
    if (UNSPELLED_KINDS.has(n.kind) || !IDENTIFIER.test(n.name) || IMPLICIT_NAMES.has(n.name)) return files;
    // A module that can export a name under another one: its uses may not spell it.
    if (languages.exportAliases(n.language)) {
      let renamed = renamedChecked.get(n.path);
      if (renamed === undefined) {
        const text = indexedText(n.path);
        renamed = text === null || RENAMED_EXPORT.test(text);
        renamedChecked.set(n.path, renamed);
      }
      if (renamed) return files;
    }
    names.add(n.name);
    for (const other of languages.nameEquivalents(n.language, n.name)) names.add(other);
  }
  if (names.size > GAP_SCAN_MAX_NAMES) return files;
  // Names the symbols get where they are imported or re-exported (`export { History as Hist }`,
  // `using H = Acme.History;`), followed through renames of renames.
  const importerTexts: string[] = [];
  for (const path of importers) {
    const text = indexedText(path);
    if (text === null) return files;
    importerTexts.push(text);
  }
  for (let round = 0, grew = importerTexts.length > 0; grew && round < 8; round++) {
    grew = false;
    const any = alternation(names);
    const renames = new RegExp(`(?<![\\w$])${any}\\s+as\\s+([A-Za-z_$][\\w$]*)|\\busing\\s+([A-Za-z_]\\w*)\\s*=[^;]*(?<![\\w$])${any}(?![\\w$])`, 'g');
    const defaults = new RegExp(`\\bexport\\s+default\\s+${any}(?![\\w$])|\\b(?:export|module\\.exports)\\s*=\\s*${any}(?![\\w$])`);
    for (const text of importerTexts) {
      if (defaults.test(text)) return files;
      for (const m of text.matchAll(renames)) {
        const alias = m[1] ?? m[2]!;
        if (alias === 'default') return files;
        if (!names.has(alias)) {
          names.add(alias);
          grew = true;
        }
      }
    }
  }
  if (names.size === 0 || names.size > GAP_SCAN_MAX_NAMES) return files;
  const spelled = new RegExp(`(?<![\\w$])${alternation(names)}(?![\\w$])`);
  let bytes = 0;
  const kept: SemanticGapFile[] = [];
  for (const f of files) {
    const text = indexedText(f.path);
    if (text === null) {
      kept.push(f);
      continue;
    }
    bytes += text.length;
    if (bytes > GAP_SCAN_MAX_BYTES) return files;
    if (spelled.test(text)) kept.push(f);
  }
  return kept;
}

/** `(?:a|b|…)` of identifiers (`$` escaped; nothing else in an identifier needs it). */
function alternation(names: ReadonlySet<string>): string {
  return `(?:${[...names].map((n) => n.replace(/\$/g, '\\$')).join('|')})`;
}

/** Gap files → one row per project, language and state (the least reason of each, like SQL MIN). */
function groupGapFiles(files: readonly SemanticGapFile[]): SemanticGapRow[] {
  const rows = new Map<string, { project: string; language: string; state: string; reason: string | null; files: number }>();
  for (const f of files) {
    const key = `${f.project}\0${f.language}\0${f.state}`;
    const row = rows.get(key);
    if (!row) rows.set(key, { project: f.project, language: f.language, state: f.state, reason: f.reason, files: 1 });
    else {
      row.files++;
      if (f.reason !== null && (row.reason === null || f.reason < row.reason)) row.reason = f.reason;
    }
  }
  return [...rows.values()];
}

/**
 * What the navigation core asks of the graph, one batch at a time (`navigationSteps` yields these):
 * the local index answers them synchronously (`navigate`), the async read contract with one query
 * each (`navigateReads`), so both backends answer by the same rules.
 */
export type NavigationRequest =
  | { readonly op: 'descendants'; readonly ids: readonly number[] }
  | { readonly op: 'walk'; readonly seeds: readonly number[]; readonly options: TraversalOptions }
  | { readonly op: 'summaries'; readonly ids: readonly number[] }
  | { readonly op: 'nodes'; readonly ids: readonly number[] }
  | { readonly op: 'children'; readonly ids: readonly number[] }
  | { readonly op: 'gaps'; readonly languages: readonly string[] }
  | { readonly op: 'gapFiles'; readonly languages: readonly string[] }
  /** The indexed text of files (`paths`: the ones the next step may read; a lazy source may ignore them). */
  | { readonly op: 'texts'; readonly paths: readonly string[] };

type Steps<T> = Generator<NavigationRequest, T, unknown>;

/** Asks one request; the answer's type is the request's (the drivers keep to it). */
function* ask<T>(request: NavigationRequest): Steps<T> {
  return (yield request) as T;
}

/**
 * Answers callers/callees/refs/impls/deps/dependents/impact for a set of seed nodes over the
 * graph, with the completeness report. `limits` is the `graph` configuration section (a bare
 * number is read as `max_depth`, with the default impact cap).
 */
export function navigate(
  graph: GraphReader,
  reader: IndexReader,
  label: string,
  navigation: Navigation,
  seeds: readonly NodeRecord[],
  options: NavigationOptions,
  limits: number | GraphLimits,
): NavigationResult {
  const answer = (r: NavigationRequest): unknown => {
    switch (r.op) {
      case 'descendants':
        return graph.descendants(r.ids);
      case 'walk':
        return graph.walk(r.seeds, r.options);
      case 'summaries':
        return graph.nodes(r.ids);
      case 'nodes':
        return reader.nodesByIds(r.ids);
      case 'children':
        return r.ids.flatMap((id) => reader.children(id));
      case 'gaps':
        return graph.semanticGaps(label, r.languages);
      case 'gapFiles':
        return graph.semanticGapFiles(label, r.languages);
      case 'texts':
        return options.indexedText;
    }
  };
  const steps = navigationSteps(label, navigation, seeds, options, limits);
  for (let step = steps.next(); ; step = steps.next(answer(step.value))) if (step.done) return step.value;
}

/**
 * Decoded file texts per read contract object: one reads object answers one snapshot (a team
 * store's never changes; a local one is opened per request), and the gap check of every answer
 * reads the same files, so each is fetched and decoded once per object.
 */
const textCaches = new WeakMap<GraphReads, Map<string, string | null>>();

/**
 * `navigate` over the async read contract (a local index's label or a team store's snapshot):
 * one contract call per request, the indexed texts of the files the gap check reads fetched in
 * one batch.
 */
export async function navigateReads(
  reads: GraphReads,
  navigation: Navigation,
  seeds: readonly NodeRecord[],
  options: Omit<NavigationOptions, 'indexedText'>,
  limits: number | GraphLimits,
): Promise<NavigationResult> {
  const answer = async (r: NavigationRequest): Promise<unknown> => {
    switch (r.op) {
      case 'descendants':
        return reads.descendants(r.ids);
      case 'walk':
        return reads.walk(r.seeds, r.options);
      case 'summaries':
        return reads.summaries(r.ids);
      case 'nodes':
        return reads.nodes(r.ids);
      case 'children':
        return reads.children(r.ids);
      case 'gaps':
        return reads.semanticGaps(r.languages);
      case 'gapFiles':
        return reads.semanticGapFiles(r.languages);
      case 'texts': {
        let cache = textCaches.get(reads);
        if (!cache) textCaches.set(reads, (cache = new Map()));
        const missing = r.paths.filter((p) => !cache.has(p));
        if (missing.length > 0) {
          const bytes = await reads.fileContents(missing);
          for (const p of missing) {
            const b = bytes.get(p);
            cache.set(p, b === undefined ? null : decodeFile(b).text);
          }
        }
        const texts = cache;
        return (path: string): string | null => texts.get(path) ?? null;
      }
    }
  };
  const steps = navigationSteps(reads.origin.label, navigation, seeds, options, limits);
  for (let step = steps.next(); ; step = steps.next(await answer(step.value))) if (step.done) return step.value;
}

/** The navigation itself, its reads as requests (see `NavigationRequest`). */
function* navigationSteps(
  label: string,
  navigation: Navigation,
  seeds: readonly NodeRecord[],
  options: NavigationOptions,
  limits: number | GraphLimits,
): Steps<NavigationResult> {
  const { max_depth: maxDepth, impact_max_nodes: impactMaxNodes = DEFAULT_IMPACT_MAX_NODES } = typeof limits === 'number' ? { max_depth: limits } : limits;
  const depth = options.depth ?? 1;
  if (!Number.isInteger(depth) || depth < 1) throw new CaError('usage', `--depth must be a positive integer (got ${String(options.depth)})`);
  if (depth > maxDepth) throw new CaError('usage', `--depth ${depth} is over the configured cap graph.max_depth (${maxDepth})`);
  const maxNodes = options.maxNodes ?? (navigation === 'impact' ? impactMaxNodes : WALK_GUARD);
  if (!Number.isInteger(maxNodes) || maxNodes < 1) throw new CaError('usage', `--max-nodes must be a positive integer (got ${String(options.maxNodes)})`);
  const plan = PLANS[navigation];
  let seedIds = seeds.map((s) => s.id);
  if (plan.includeDescendants) seedIds = yield* ask<number[]>({ op: 'descendants', ids: seedIds });
  if (options.throughInterfaces && navigation === 'callers') {
    // Calls through an interface or base member reach this implementation at run time.
    const up = yield* ask<Traversal>({ op: 'walk', seeds: seedIds, options: { direction: 'out', types: ['implements', 'overrides'], minConfidence: options.minConfidence ?? 'approximate', depth: 5, label } });
    seedIds = [...new Set([...seedIds, ...up.depth.keys()])];
  }
  const walk = yield* ask<Traversal>({
    op: 'walk',
    seeds: seedIds,
    options: {
      label,
      direction: plan.direction,
      types: plan.types,
      minConfidence: options.minConfidence ?? 'approximate',
      depth,
      maxRows: maxNodes,
      ...(plan.bridges ? { bridges: plan.bridges } : {}),
    },
  });
  const seedSet = new Set(seedIds);
  let edges: GraphEdge[] = walk.edges.filter((e) => !(seedSet.has(e.from) && e.to !== null && seedSet.has(e.to)) && !isPrefixFact(e));
  const depthOf = new Map(walk.depth);
  if (navigation === 'impls' && seeds.length === 1) {
    const synthesized = yield* approximateMemberImpls(label, seeds[0]!, depth, options.minConfidence ?? 'approximate');
    for (const s of synthesized) {
      if (edges.some((e) => e.from === s.edge.from && e.to === s.edge.to)) continue;
      edges.push(s.edge);
      if (!depthOf.has(s.edge.from)) depthOf.set(s.edge.from, s.depth);
    }
  }
  if (plan.includeDescendants) {
    // Within-symbol edges (a class's method calling its own helper) are not dependencies.
    edges = edges.filter((e) => !(seedSet.has(e.from) && (e.to === null || seedSet.has(e.to))) || plan.direction === 'out');
    edges = edges.filter((e) => !(plan.direction === 'out' && e.to !== null && seedSet.has(e.to)));
  }
  // Every node an edge touches except the symbol itself (descendant seeds appear at depth 0).
  // Only these are hydrated, without their chunk text.
  const primary = seeds[0]!.id;
  const touched = new Set<number>();
  for (const e of edges) {
    if (e.from !== primary) touched.add(e.from);
    if (e.to !== null && e.to !== primary) touched.add(e.to);
  }
  const hydrated = yield* ask<GraphNode[]>({ op: 'summaries', ids: [...touched] });
  const nodes: NavigationNode[] = hydrated.map((n) =>
    // Extended in place: a spread copy of each view cost ~10× building it (thousands per impact answer).
    Object.assign(toSymbolView(n), { depth: seedSet.has(n.id) ? 0 : (depthOf.get(n.id) ?? 1) }),
  );
  // Product code before test code at each depth (a test file calling a helper forty times would lead otherwise).
  const testRanks = new Map<string, number>();
  const testRankOf = (path: string): number => {
    let r = testRanks.get(path);
    if (r === undefined) testRanks.set(path, (r = testRank(path)));
    return r;
  };
  nodes.sort((a, b) => a.depth - b.depth || testRankOf(a.path) - testRankOf(b.path) || collator.compare(a.path, b.path) || a.startLine - b.startLine);
  edges.sort((a, b) => testRankOf(a.path) - testRankOf(b.path)); // stable: use-site order otherwise
  const gaps = yield* navigationGaps(label, plan, seeds, seedIds, nodes, depth, options);
  const result: NavigationResult = {
    navigation,
    symbol: toSymbolView(seeds[0]!),
    complete: gaps.length === 0 && !walk.truncated,
    gaps,
    edges: edges.map((e) => ({
      from: String(e.from),
      to: e.to === null ? null : String(e.to),
      type: e.type,
      confidence: e.confidence,
      path: e.path,
      line: e.line,
      targetName: e.targetName,
    })),
    nodes,
    truncated: walk.truncated,
    maxNodes,
    totalReached: walk.reached,
    totalReachedExact: !walk.truncated,
  };
  if (navigation !== 'impact') return result;
  const seedNames = new Map<number, string>();
  for (const n of hydrated) if (seedSet.has(n.id)) seedNames.set(n.id, n.qualifiedName);
  const missing = [...seedSet].filter((id) => !seedNames.has(id));
  for (const n of yield* ask<GraphNode[]>({ op: 'summaries', ids: missing })) seedNames.set(n.id, n.qualifiedName);
  return { ...result, byFile: groupImpact(nodes.filter((n) => n.depth > 0), edges, seedSet, seedNames) };
}

/** The completeness report: the label's files without exact edges that could hold an edge the answer misses. */
function* navigationGaps(
  label: string,
  plan: Plan,
  seeds: readonly NodeRecord[],
  seedIds: readonly number[],
  nodes: readonly NavigationNode[],
  depth: number,
  options: NavigationOptions,
): Steps<Gap[]> {
  // Languages sharing a descriptor use each other (TS and JS: allowJs, imports of either from the
  // other): a gap in one can hide an edge into the other.
  const languageRules = options.languages ?? builtinLanguages();
  const languages = [...new Set([...seeds, ...nodes].flatMap((n) => languageRules.family(n.language)))];
  let gapRows = yield* ask<SemanticGapRow[]>({ op: 'gaps', languages });
  const gapFiles = gapRows.reduce((sum, g) => sum + g.files, 0);
  if (gapFiles > 0 && (plan.direction === 'out' || gapFiles <= GAP_SCAN_MAX_FILES)) {
    // Only the files that could hold an edge this answer misses leave it incomplete.
    const inner = nodes.filter((n) => n.depth > 0 && n.depth < depth);
    const expanded = [...(yield* ask<GraphNode[]>({ op: 'summaries', ids: seedIds })), ...inner];
    // Files importing or re-exporting them: where a symbol may get another name.
    const importers =
      plan.direction === 'in'
        ? [...new Set((yield* ask<Traversal>({ op: 'walk', seeds: [...seedIds, ...inner.map((n) => Number(n.id))], options: { direction: 'in', types: ['imports'], minConfidence: 'approximate', depth: 1, label } })).edges.map((e) => e.path))]
        : [];
    const files = yield* ask<readonly SemanticGapFile[]>({ op: 'gapFiles', languages });
    const indexedText =
      plan.direction === 'in' ? yield* ask<((path: string) => string | null) | undefined>({ op: 'texts', paths: [...new Set([...expanded.map((n) => n.path), ...importers, ...files.map((f) => f.path)])] }) : undefined;
    gapRows = groupGapFiles(gapFilesThatMatter(files, plan.direction, expanded, indexedText, importers, languageRules));
  }
  return gapRows.map((g) => ({
    scope: g.project ? `project ${g.project} (${g.language})` : `repository root (${g.language})`,
    reason: gapReason(g.state, g.reason, g.files),
  }));
}

/** For a member of a type: same-named members of subtypes/implementations (approximate). */
function* approximateMemberImpls(
  label: string,
  member: NodeRecord,
  depth: number,
  minConfidence: Confidence,
): Steps<{ edge: GraphEdge; depth: number }[]> {
  if (TYPE_KINDS.has(member.kind) || member.parentId === null) return [];
  const parent = (yield* ask<NodeRecord[]>({ op: 'nodes', ids: [member.parentId] }))[0];
  if (!parent || !TYPE_KINDS.has(parent.kind)) return [];
  if (minConfidence !== 'approximate') return [];
  const subtypes = yield* ask<Traversal>({ op: 'walk', seeds: [parent.id], options: { direction: 'in', types: ['implements', 'inherits'], minConfidence: 'approximate', depth, label } });
  const out: { edge: GraphEdge; depth: number }[] = [];
  const typeIds = [...subtypes.depth.keys()].filter((id) => id !== parent.id);
  // One batch for every subtype's members (each type's in source order, types in walk order).
  const children = yield* ask<NodeRecord[]>({ op: 'children', ids: typeIds });
  for (const child of children) {
    if (child.name !== member.name || child.parentId === null) continue;
    out.push({
      depth: subtypes.depth.get(child.parentId)!,
      edge: {
        id: -1,
        from: child.id,
        to: member.id,
        type: parent.kind === 'interface' ? 'implements' : 'overrides',
        confidence: 'approximate',
        path: child.path,
        line: child.startLine,
        targetName: member.name,
      },
    });
  }
  return out;
}

function groupImpact(
  nodes: readonly NavigationNode[],
  edges: readonly GraphEdge[],
  seeds: ReadonlySet<number>,
  seedNames: ReadonlyMap<number, string>,
): ImpactFile[] {
  // Parent pointer: the edge by which each node was first reached (toward the seeds).
  const depthOf = new Map(nodes.map((n) => [Number(n.id), n.depth]));
  const parent = new Map<number, number>();
  for (const e of edges) {
    if (e.to === null) continue;
    const d = depthOf.get(e.from);
    const targetDepth = seeds.has(e.to) ? 0 : depthOf.get(e.to);
    if (d === undefined || targetDepth === undefined) continue;
    // A client reaches its endpoint within the same hop (the endpoint is a bridge, decision 038); so does a
    // contract operation the endpoint it describes (a `handles` edge between two nodes of one depth, decision 049).
    const step = e.type === 'http_calls' || (e.type === 'handles' && targetDepth === d) ? d : d - 1;
    if (targetDepth !== step) continue;
    if (!parent.has(e.from)) parent.set(e.from, e.to);
  }
  const name = new Map([...seedNames, ...nodes.map((n) => [Number(n.id), n.qualifiedName] as const)]);
  const byPath = new Map<string, ImpactFile['symbols'][number][]>();
  for (const n of nodes) {
    const via: string[] = [];
    let cur = parent.get(Number(n.id));
    for (let guard = 0; cur !== undefined && guard < 64; guard++) {
      via.push(name.get(cur) ?? `#${cur}`);
      if (seeds.has(cur)) break;
      cur = parent.get(cur);
    }
    const list = byPath.get(n.path) ?? [];
    list.push({ id: n.id, qualifiedName: n.qualifiedName, kind: n.kind, line: n.startLine, depth: n.depth, via });
    byPath.set(n.path, list);
  }
  // Nearest files first, product code before tests, then the most affected, then by path.
  const rank = (symbols: readonly ImpactFile['symbols'][number][]) => symbols.reduce((m, x) => Math.min(m, x.depth), Infinity);
  return [...byPath.entries()]
    .map(([path, symbols]) => ({ path, symbols, nearest: rank(symbols) }))
    .sort((a, b) => a.nearest - b.nearest || testRank(a.path) - testRank(b.path) || b.symbols.length - a.symbols.length || collator.compare(a.path, b.path))
    .map(({ path, symbols }) => ({ path, symbols }));
}

/** 1 for test code (`isTestPath`), else 0: navigation lists product code first. */
function testRank(path: string): number {
  return isTestPath(path) ? 1 : 0;
}

/** A prefix fact's edge (decision 038): an `http_calls` edge that records a value for the HTTP linker, no call. */
function isPrefixFact(e: GraphEdge): boolean {
  return e.type === 'http_calls' && e.to === null && PREFIX_FACT_NAMES.has(e.targetName);
}
