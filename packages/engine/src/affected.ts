/**
 * `ca affected BASE..HEAD`: the symbols a diff between two indexed labels changed, and what they
 * impact across both languages (decision 044). Everything is read from the index: no checkout,
 * no git diff — two labels' file versions are compared by blob id, their symbols by content hash.
 */
import { CaError, CONFIDENCES, isCaError, type Confidence, type EdgeType, type Language, type NodeKind } from '@ca/schema';
import type { GraphReader, IndexReader, LabelEntry, NodeRecord } from '@ca/store';
import { isTestPath } from '@ca/retrieve';
import { navigate, type Gap, type GraphLimits, type NavigationLanguages, type NavigationResult } from './navigation.js';

/** One side of the comparison: the label read and the commit it was indexed at. */
export interface AffectedSide {
  readonly label: string;
  readonly commit: string | null;
}

/** How a symbol differs between BASE and HEAD. */
export type SymbolChange = 'added' | 'removed' | 'signature' | 'body' | 'moved';

/** A symbol the diff changed. `id` is HEAD's node (BASE's for a removed symbol). */
export interface ChangedSymbol {
  readonly change: SymbolChange;
  readonly id: string;
  readonly qualifiedName: string;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly path: string;
  readonly line: number;
  readonly signature: string;
  readonly isPublicApi: boolean;
  /** BASE's signature when the signature changed; BASE's path when the symbol moved to another file. */
  readonly previousSignature?: string;
  readonly previousPath?: string;
}

/** One step of the chain from an impacted symbol to a changed one (edge direction: `from` uses `to`). */
export interface AffectedHop {
  readonly from: string;
  readonly to: string;
  readonly type: EdgeType;
  readonly confidence: Confidence;
}

/** A symbol a changed symbol reaches through the graph (its dependents, transitively). */
export interface ImpactedSymbol {
  readonly id: string;
  readonly qualifiedName: string;
  readonly kind: NodeKind;
  readonly language: Language;
  readonly path: string;
  readonly line: number;
  /** Hops from the nearest changed symbol (an endpoint is crossed within its client's hop, decision 038). */
  readonly depth: number;
  /** The label whose graph reached it: `head`, or `base` for dependents of a removed symbol. */
  readonly side: 'head' | 'base';
  /** The weakest confidence along `via`. */
  readonly confidence: Confidence;
  /** The hops from this symbol to the changed one, nearest first. */
  readonly via: readonly AffectedHop[];
  /** The changed symbol the chain ends at. */
  readonly changed: string;
  /** True when this symbol's language is not the changed symbol's (e.g. a TS client of a C# action). */
  readonly crossesLanguage: boolean;
  readonly isTest: boolean;
}

/** The files the two labels hold differently. */
export interface AffectedFiles {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly modified: readonly string[];
  /** A path removed and another added with the same blob: the file moved unchanged. */
  readonly renamed: readonly { readonly from: string; readonly to: string }[];
}

/** What a reviewer or a CI gate looks at first. */
export interface AffectedRisk {
  /** `high`, `medium` or `low` by the rule of decision 044; `reasons` says which parts applied. */
  readonly level: 'high' | 'medium' | 'low';
  readonly reasons: readonly string[];
  readonly changedSymbols: number;
  /** Distinct impacted symbols, and the files holding them. */
  readonly dependents: number;
  readonly dependentFiles: number;
  /** Changed, added or removed public symbols (qualified names). */
  readonly publicApi: readonly string[];
  /** True when an impacted symbol is in another language than the changed symbol its chain ends at. */
  readonly crossesLanguage: boolean;
  readonly languages: readonly Language[];
  readonly endpoints: number;
  readonly tests: number;
  /** Removed symbols that something else used in BASE. */
  readonly removedWithDependents: number;
}

/** The answer of `ca affected` (`--json`) and of the MCP tool `affected`. */
export interface AffectedReport {
  readonly base: AffectedSide;
  readonly head: AffectedSide;
  readonly depth: number;
  readonly files: AffectedFiles;
  readonly changed: readonly ChangedSymbol[];
  readonly impacted: readonly ImpactedSymbol[];
  /** Endpoints changed or reached (`reason`), nearest first. */
  readonly endpoints: readonly { readonly name: string; readonly path: string; readonly line: number; readonly reason: 'changed' | 'impacted'; readonly depth: number }[];
  /** Test code reached (`isTestPath`), nearest first. */
  readonly tests: readonly { readonly qualifiedName: string; readonly path: string; readonly line: number; readonly depth: number }[];
  readonly risk: AffectedRisk;
  /** False when a walk was cut by the node cap or part of a graph has no exact edges (see `gaps`). */
  readonly complete: boolean;
  readonly truncated: boolean;
  readonly gaps: readonly Gap[];
}

/** Options of `affected`. */
export interface AffectedOptions {
  /** Hops of the impact walk (default 3, capped by graph.max_depth). */
  readonly depth?: number;
  readonly minConfidence?: Confidence;
  /** Most impacted nodes each walk keeps (default graph.impact_max_nodes). */
  readonly maxNodes?: number;
}

/** One label as `computeAffected` reads it. */
export interface AffectedInput extends AffectedSide {
  readonly reader: IndexReader;
  readonly indexedText: (path: string) => string | null;
}

/** The default number of hops: a change, its callers, theirs (a client of an action is one hop, decision 038). */
export const AFFECTED_DEFAULT_DEPTH = 3;

/** Node kinds that are containers of a file's text: their hash changes with any edit, so they are not reported. */
const FILE_KINDS: ReadonlySet<string> = new Set(['file', 'module']);
const collator = new Intl.Collator();

/** Compares two labels' files: added, removed, modified, and renames (same blob at another path). */
export function diffFiles(base: ReadonlyMap<string, LabelEntry>, head: ReadonlyMap<string, LabelEntry>): AffectedFiles {
  const added: string[] = [];
  const removed: string[] = [];
  const modified: string[] = [];
  for (const [path, entry] of head) {
    const old = base.get(path);
    if (!old) added.push(path);
    else if (old.contentHash !== entry.contentHash) modified.push(path);
  }
  for (const path of base.keys()) if (!head.has(path)) removed.push(path);
  // A removed and an added path holding one blob (first of each, in path order) are one file moved.
  const addedByBlob = new Map<string, string[]>();
  for (const p of added.sort(collator.compare)) addedByBlob.set(head.get(p)!.contentHash, [...(addedByBlob.get(head.get(p)!.contentHash) ?? []), p]);
  const renamed: { from: string; to: string }[] = [];
  for (const p of removed.sort(collator.compare)) {
    const candidates = addedByBlob.get(base.get(p)!.contentHash);
    const to = candidates?.shift();
    if (to !== undefined) renamed.push({ from: p, to });
  }
  const moved = new Set(renamed.flatMap((r) => [r.from, r.to]));
  return {
    added: added.filter((p) => !moved.has(p)),
    removed: removed.filter((p) => !moved.has(p)),
    modified: modified.sort(collator.compare),
    renamed,
  };
}

type Pair = { readonly base: NodeRecord | null; readonly head: NodeRecord | null };

/**
 * Pairs BASE's and HEAD's symbols of the changed files: first by symbol key (it holds the
 * signature's parameter types), then by kind and qualified name in the same file (or its
 * renamed path), then by kind and qualified name anywhere when that is unique on both sides (a
 * symbol moved to another file). Whatever is left was removed or added.
 */
export function pairSymbols(base: readonly NodeRecord[], head: readonly NodeRecord[], renamedTo: ReadonlyMap<string, string>): Pair[] {
  const pairs: Pair[] = [];
  let leftBase = [...base];
  let leftHead = [...head];
  const pass = (keyOf: (n: NodeRecord, side: 'base' | 'head') => string | null, unique: boolean): void => {
    const byKey = new Map<string, NodeRecord[]>();
    for (const h of leftHead) {
      const k = keyOf(h, 'head');
      if (k !== null) byKey.set(k, [...(byKey.get(k) ?? []), h]);
    }
    const baseCounts = new Map<string, number>();
    if (unique) for (const b of leftBase) baseCounts.set(keyOf(b, 'base') ?? '', (baseCounts.get(keyOf(b, 'base') ?? '') ?? 0) + 1);
    const usedHead = new Set<NodeRecord>();
    const stillBase: NodeRecord[] = [];
    for (const b of leftBase) {
      const k = keyOf(b, 'base');
      const list = k === null ? undefined : byKey.get(k);
      if (!list || list.length === 0 || (unique && (list.length !== 1 || baseCounts.get(k!) !== 1))) {
        stillBase.push(b);
        continue;
      }
      const h = list.shift()!;
      usedHead.add(h);
      pairs.push({ base: b, head: h });
    }
    leftBase = stillBase;
    leftHead = leftHead.filter((h) => !usedHead.has(h));
  };
  const pathOf = (n: NodeRecord, side: 'base' | 'head') => (side === 'base' ? (renamedTo.get(n.path) ?? n.path) : n.path);
  pass((n, side) => `${n.language}|${n.kind}|${pathOf(n, side)}|${n.symbolKey}`, false);
  pass((n, side) => `${n.language}|${n.kind}|${pathOf(n, side)}|${n.qualifiedName}`, false);
  // TS keys start with the file (`ts:file:a.ts#f()`): a moved file's symbols keep their names only.
  pass((n) => `${n.language}|${n.kind}|${n.qualifiedName}`, true);
  for (const b of leftBase) pairs.push({ base: b, head: null });
  for (const h of leftHead) pairs.push({ base: null, head: h });
  return pairs;
}

/**
 * What changed of each pair. A container (a class, a namespace) whose text changed only
 * because a member did is not reported: the member is. Its own change shows in its signature,
 * or in a text change none of its members explains.
 */
export function classify(pairs: readonly Pair[]): ChangedSymbol[] {
  const changedHeadIds = new Set<number>();
  const changedBaseIds = new Set<number>();
  const raw: { pair: Pair; change: SymbolChange }[] = [];
  for (const p of pairs) {
    const change = changeOf(p);
    if (change === null) continue;
    raw.push({ pair: p, change });
    if (p.head && change !== 'moved') changedHeadIds.add(p.head.id);
    if (p.base && change !== 'moved') changedBaseIds.add(p.base.id);
  }
  // Parent ids of every changed member, up to the file: a body change there is the member's.
  const headParents = parentsOf(pairs.flatMap((p) => (p.head ? [p.head] : [])), changedHeadIds);
  const baseParents = parentsOf(pairs.flatMap((p) => (p.base ? [p.base] : [])), changedBaseIds);
  const out: ChangedSymbol[] = [];
  for (const { pair, change } of raw) {
    if (change === 'body' && (headParents.has(pair.head!.id) || baseParents.has(pair.base!.id))) continue;
    out.push(changedSymbol(pair, change));
  }
  return out.sort((a, b) => collator.compare(a.path, b.path) || a.line - b.line || collator.compare(a.qualifiedName, b.qualifiedName));
}

function changeOf(p: Pair): SymbolChange | null {
  const n = p.head ?? p.base!;
  if (FILE_KINDS.has(n.kind)) return null;
  if (!p.base) return 'added';
  if (!p.head) return 'removed';
  if (p.base.signature !== p.head.signature) return 'signature';
  if (p.base.chunkHash !== p.head.chunkHash) return 'body';
  return p.base.path !== p.head.path ? 'moved' : null;
}

/** Ids of the ancestors of `changed` among `nodes` (the changed files' symbols). */
function parentsOf(nodes: readonly NodeRecord[], changed: ReadonlySet<number>): Set<number> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out = new Set<number>();
  for (const id of changed) {
    let parent = byId.get(id)?.parentId ?? null;
    for (let guard = 0; parent !== null && guard < 64 && !out.has(parent); guard++) {
      out.add(parent);
      parent = byId.get(parent)?.parentId ?? null;
    }
  }
  return out;
}

function changedSymbol(p: Pair, change: SymbolChange): ChangedSymbol {
  const n = change === 'removed' ? p.base! : p.head!;
  return {
    change,
    id: String(n.id),
    qualifiedName: n.qualifiedName,
    kind: n.kind,
    language: n.language,
    path: n.path,
    line: n.startLine,
    signature: n.signature,
    isPublicApi: n.isPublicApi || (p.base?.isPublicApi ?? false),
    ...(change === 'signature' ? { previousSignature: p.base!.signature } : {}),
    ...(p.base && p.head && p.base.path !== p.head.path ? { previousPath: p.base.path } : {}),
  };
}

/** The parts of the engine `computeAffected` reads. */
export interface AffectedContext {
  readonly graph: GraphReader;
  readonly limits: GraphLimits;
  readonly languages: NavigationLanguages;
}

/** The whole answer: files, changed symbols, the impact walks of both labels, endpoints, tests, risk. */
export function computeAffected(ctx: AffectedContext, base: AffectedInput, head: AffectedInput, options: AffectedOptions = {}): AffectedReport {
  const depth = options.depth ?? Math.min(AFFECTED_DEFAULT_DEPTH, ctx.limits.max_depth);
  const files = diffFiles(base.reader.labelEntries(), head.reader.labelEntries());
  const renamedTo = new Map(files.renamed.map((r) => [r.from, r.to]));
  const basePaths = [...files.removed, ...files.modified, ...files.renamed.map((r) => r.from)];
  const headPaths = [...files.added, ...files.modified, ...files.renamed.map((r) => r.to)];
  const changed = classify(pairSymbols(basePaths.flatMap((p) => base.reader.outline(p)), headPaths.flatMap((p) => head.reader.outline(p)), renamedTo));
  // Moved symbols are listed but not walked from: their users already name them where they are.
  const headSeeds = changed.filter((c) => c.change !== 'removed' && c.change !== 'moved').map((c) => Number(c.id));
  const baseSeeds = changed.filter((c) => c.change === 'removed').map((c) => Number(c.id));
  const walkOptions = { depth, ...(options.minConfidence ? { minConfidence: options.minConfidence } : {}), ...(options.maxNodes ? { maxNodes: options.maxNodes } : {}) };
  const walks = [walkFrom(ctx, head, 'head', headSeeds, walkOptions), walkFrom(ctx, base, 'base', baseSeeds, walkOptions)];
  const changedKeys = new Set(changed.map(identity));
  const impacted = mergeImpacted(walks.flatMap((w) => w.impacted)).filter((s) => !changedKeys.has(identity(s)));
  const removedWithDependents = new Set(impacted.filter((s) => s.side === 'base').map((s) => s.changed)).size;
  const endpoints = [
    ...changed.filter((c) => c.kind === 'endpoint').map((c) => ({ name: c.qualifiedName, path: c.path, line: c.line, reason: 'changed' as const, depth: 0 })),
    ...impacted.filter((s) => s.kind === 'endpoint').map((s) => ({ name: s.qualifiedName, path: s.path, line: s.line, reason: 'impacted' as const, depth: s.depth })),
  ];
  const tests = impacted.filter((s) => s.isTest).map((s) => ({ qualifiedName: s.qualifiedName, path: s.path, line: s.line, depth: s.depth }));
  const gaps = dedupeGaps(walks.flatMap((w) => w.gaps));
  const truncated = walks.some((w) => w.truncated);
  return {
    base: { label: base.label, commit: base.commit },
    head: { label: head.label, commit: head.commit },
    depth,
    files,
    changed,
    impacted,
    endpoints,
    tests,
    risk: riskOf(changed, impacted, endpoints.length, tests.length, removedWithDependents),
    complete: !truncated && gaps.length === 0,
    truncated,
    gaps,
  };
}

/** What one symbol is across labels: its file, kind and qualified name. */
function identity(s: { readonly path: string; readonly kind: string; readonly qualifiedName: string }): string {
  return `${s.path}|${s.kind}|${s.qualifiedName}`;
}

interface Walk {
  readonly impacted: ImpactedSymbol[];
  readonly gaps: readonly Gap[];
  readonly truncated: boolean;
}

/** The impact walk of one label from its seeds, each reached node with its chain of hops. */
function walkFrom(ctx: AffectedContext, input: AffectedInput, side: 'head' | 'base', seedIds: readonly number[], options: { depth: number; minConfidence?: Confidence; maxNodes?: number }): Walk {
  if (seedIds.length === 0) return { impacted: [], gaps: [], truncated: false };
  const seeds = input.reader.nodesByIds(seedIds);
  const result = navigate(ctx.graph, input.reader, input.label, 'impact', seeds, { ...options, indexedText: input.indexedText, languages: ctx.languages }, ctx.limits);
  return { impacted: chains(result, seeds, side, (a, b) => ctx.languages.family(a).includes(b)), gaps: result.gaps, truncated: result.truncated };
}

/**
 * Each reached node (depth > 0) with the edges that connect it back to a seed: the first edge
 * by which it was reached from one level nearer (an `http_calls` edge reaches its endpoint on
 * the same level, the endpoint being crossed within the hop, decision 038).
 */
function chains(result: NavigationResult, seeds: readonly NodeRecord[], side: 'head' | 'base', sameFamily: (a: Language, b: Language) => boolean): ImpactedSymbol[] {
  const depthOf = new Map<number, number>(result.nodes.map((n) => [Number(n.id), n.depth]));
  for (const s of seeds) depthOf.set(s.id, 0);
  const language = new Map<number, Language>([...seeds.map((s) => [s.id, s.language] as const), ...result.nodes.map((n) => [Number(n.id), n.language] as const)]);
  const name = new Map<number, string>([...seeds.map((s) => [s.id, s.qualifiedName] as const), ...result.nodes.map((n) => [Number(n.id), n.qualifiedName] as const)]);
  const parent = new Map<number, (typeof result.edges)[number]>();
  for (const e of result.edges) {
    if (e.to === null) continue;
    const from = Number(e.from);
    const d = depthOf.get(from);
    const target = depthOf.get(Number(e.to));
    if (d === undefined || target === undefined || d === 0) continue;
    // A client reaches an endpoint within its own hop, or a level nearer when the endpoint is a changed symbol itself.
    // A contract operation reaches the endpoint it describes within the same hop too (`handles`, decision 049).
    if (target !== d - 1 && !((e.type === 'http_calls' || e.type === 'handles') && target === d)) continue;
    if (!parent.has(from)) parent.set(from, e);
  }
  const out: ImpactedSymbol[] = [];
  for (const n of result.nodes) {
    if (n.depth === 0) continue;
    const via: AffectedHop[] = [];
    let cur = Number(n.id);
    let end = cur;
    for (let guard = 0; guard < 64; guard++) {
      const e = parent.get(cur);
      if (!e) break;
      via.push({ from: name.get(cur) ?? `#${cur}`, to: name.get(Number(e.to)) ?? `#${e.to}`, type: e.type, confidence: e.confidence });
      cur = Number(e.to);
      end = cur;
      if (depthOf.get(cur) === 0) break;
    }
    out.push({
      id: n.id,
      qualifiedName: n.qualifiedName,
      kind: n.kind,
      language: n.language,
      path: n.path,
      line: n.startLine,
      depth: n.depth,
      side,
      confidence: weakest(via.map((h) => h.confidence)),
      via,
      changed: name.get(end) ?? `#${end}`,
      crossesLanguage: language.get(end) !== undefined && !sameFamily(language.get(end)!, n.language),
      isTest: isTestPath(n.path),
    });
  }
  return out;
}

/** The weakest of some confidences (`exact` for none). */
function weakest(list: readonly Confidence[]): Confidence {
  return list.reduce<Confidence>((w, c) => (CONFIDENCES.indexOf(c) > CONFIDENCES.indexOf(w) ? c : w), 'exact');
}

/** One entry per symbol (file, kind, qualified name): HEAD's over BASE's, then the nearest. */
function mergeImpacted(list: readonly ImpactedSymbol[]): ImpactedSymbol[] {
  const best = new Map<string, ImpactedSymbol>();
  for (const s of list) {
    const k = identity(s);
    const old = best.get(k);
    if (!old || (old.side === 'base' && s.side === 'head') || (old.side === s.side && s.depth < old.depth)) best.set(k, s);
  }
  return [...best.values()].sort((a, b) => a.depth - b.depth || Number(a.isTest) - Number(b.isTest) || collator.compare(a.path, b.path) || a.line - b.line || collator.compare(a.qualifiedName, b.qualifiedName));
}

function dedupeGaps(gaps: readonly Gap[]): Gap[] {
  const seen = new Map<string, Gap>();
  for (const g of gaps) seen.set(`${g.scope}\0${g.reason}`, g);
  return [...seen.values()];
}

/**
 * The risk rule (decision 044): `high` when a removed symbol had users, when the impact crosses
 * the language boundary, or when a public symbol's signature changed or it was removed while
 * something depends on the change; `medium` when anything depends on the change or a public
 * symbol changed; `low` otherwise.
 */
function riskOf(changed: readonly ChangedSymbol[], impacted: readonly ImpactedSymbol[], endpoints: number, tests: number, removedWithDependents: number): AffectedRisk {
  const crossesLanguage = impacted.some((s) => s.crossesLanguage);
  const publicApi = [...new Set(changed.filter((c) => c.isPublicApi && c.change !== 'moved').map((c) => c.qualifiedName))];
  const breaking = changed.some((c) => c.isPublicApi && (c.change === 'signature' || c.change === 'removed'));
  const reasons: string[] = [];
  if (removedWithDependents > 0) reasons.push(`${removedWithDependents} removed symbol${removedWithDependents === 1 ? ' was' : 's were'} used`);
  if (crossesLanguage) reasons.push('the impact crosses the language boundary');
  if (breaking && impacted.length > 0) reasons.push('a public signature changed or was removed and has dependents');
  const high = reasons.length > 0;
  if (!high && impacted.length > 0) reasons.push(`${impacted.length} dependent${impacted.length === 1 ? '' : 's'}`);
  if (!high && publicApi.length > 0) reasons.push('public API changed');
  const level = high ? 'high' : reasons.length > 0 ? 'medium' : 'low';
  return {
    level,
    reasons,
    changedSymbols: changed.length,
    dependents: impacted.length,
    dependentFiles: new Set(impacted.map((s) => s.path)).size,
    publicApi,
    crossesLanguage,
    languages: [...new Set([...changed.map((c) => c.language), ...impacted.map((s) => s.language)])].sort(),
    endpoints,
    tests,
    removedWithDependents,
  };
}

/** What resolving BASE and HEAD reads: the index's labels, the working label, git when there is one. */
export interface SideResolver {
  readonly labels: readonly { readonly name: string; readonly kind: string; readonly commit: string | null; readonly dirty: boolean | null }[];
  readonly workingLabel: string;
  /** The full commit id a revision names (a `usage` error when it names none); null without git. */
  readonly resolveCommit: ((revision: string) => Promise<string>) | null;
}

/**
 * Splits `BASE..HEAD` (HEAD empty: the working tree). Three dots are refused rather than read as
 * git's merge-base form, which would need a merge base the index does not hold.
 */
export function parseRange(range: string): { base: string; head: string } {
  const text = range.trim();
  const at = text.indexOf('..');
  const base = at < 0 ? '' : text.slice(0, at).trim();
  const head = at < 0 ? '' : text.slice(at + 2).trim();
  if (at < 0 || base === '' || head.startsWith('.') || head.includes('..')) {
    throw new CaError('usage', `affected needs BASE..HEAD (labels or commits; HEAD empty for the working tree; not BASE...HEAD), got "${range}"`);
  }
  return { base, head };
}

/**
 * The label one side names (decision 044): the working tree for `working` (or nothing, for
 * HEAD); a label of that name; else a revision git resolves to the commit a commit label was
 * indexed at (or the working label's, when it was indexed clean at that commit). Never indexes:
 * a commit no label holds is an `unknown_label` error saying how to index it.
 */
export async function resolveSide(name: string, resolver: SideResolver): Promise<AffectedSide> {
  const working = resolver.labels.find((l) => l.name === resolver.workingLabel);
  if (name === '' || name === 'working' || name === resolver.workingLabel) {
    if (!working) throw new CaError('unknown_label', `the working tree is not indexed (run ca index) — ${name === '' ? 'an empty HEAD' : `"${name}"`} names it`, { context: { label: resolver.workingLabel } });
    return { label: working.name, commit: working.commit };
  }
  const byName = resolver.labels.find((l) => l.name === name && l.kind !== 'staging');
  if (byName) return { label: byName.name, commit: byName.commit };
  let commit: string | null = null;
  if (resolver.resolveCommit) {
    try {
      commit = await resolver.resolveCommit(name);
    } catch (e) {
      // Not a revision either: the error below names the labels, which says more than git's.
      if (!isCaError(e)) throw e;
    }
  }
  const atCommit = commit === null ? undefined : (resolver.labels.find((l) => l.kind === 'commit' && l.commit === commit) ?? resolver.labels.find((l) => l.kind === 'working' && l.commit === commit && l.dirty === false));
  if (atCommit) return { label: atCommit.name, commit };
  const names = resolver.labels.filter((l) => l.kind !== 'staging').map((l) => l.name);
  const how = commit === null ? '' : `; ${name} is commit ${commit.slice(0, 12)}, which no label holds: index it first with ca index --label NAME --commit ${name}`;
  throw new CaError('unknown_label', `"${name}" is not a label of this index${names.length > 0 ? ` (labels: ${names.join(', ')})` : ''}${how}`, { context: { label: name } });
}
