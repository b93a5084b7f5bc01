/**
 * The configuration linker (issue 31, decision 048): points each configuration read of a label (a
 * `reads_config` edge the C# extractor keyed by what it reads, `config:value:Features:Search:Enabled`)
 * at the `config` nodes of the label's `appsettings*.json` files, with a confidence:
 *
 * - `exact`: the key (or section) read is a node of an appsettings file of the reader's project
 *   (the nearest directory above the reading file holding one);
 * - `probable`: only a section above the key is there (the key may come from another provider:
 *   environment variables, user secrets), the reader has no appsettings file of its own (a shared
 *   library: every project's file with the key is linked), or
 *   `IOptions<T>` reaches a section `T` is bound to by type name (several sections: each probable);
 * - nothing: a computed key (`config:computed:…`) or a key no appsettings file has — both counted
 *   and listed as unresolved.
 *
 * Keys match case-insensitively (.NET configuration keys do). Like the HTTP linker it runs after
 * any change of the label and recomputes every link in one transaction.
 */
import { parseConfigReadKey, type Confidence, type ConfigRead } from '@ca/schema';
import { isAppSettings } from '@ca/parse-doc';
import type { ConfigKeyRow, ConfigLink, ConfigReadRow, Store } from '@ca/store';

/** What a linking pass did. */
export interface ConfigLinkReport {
  /** Configuration reads found in C# (computed ones included). */
  readonly reads: number;
  /** Reads linked to at least one key. */
  readonly linked: number;
  /** Reads whose key is not a constant. */
  readonly computed: number;
  /** Constant reads no appsettings key (nor section above it) matches. */
  readonly missing: number;
  /** `reads_config` edges written (one per read and key). */
  readonly links: number;
  readonly ms: number;
}

/** A read the linker could not point at a key, and why. */
export interface UnresolvedConfigRead {
  readonly path: string;
  readonly line: number;
  /** The reading symbol. */
  readonly source: string;
  /** The key (`Payments:Region`), the expression of a computed key, or `IOptions<T>`. */
  readonly read: string;
  readonly reason: 'computed' | 'missing';
}

const RANK: Readonly<Record<Confidence, number>> = { exact: 2, probable: 1, approximate: 0 };

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

/** The appsettings keys by lower-cased path. */
function keyIndex(keys: readonly ConfigKeyRow[]): Map<string, ConfigKeyRow[]> {
  const byName = new Map<string, ConfigKeyRow[]>();
  for (const k of keys) {
    if (!isAppSettings(k.path)) continue;
    const name = k.qualifiedName.toLowerCase();
    const list = byName.get(name);
    if (list) list.push(k);
    else byName.set(name, [k]);
  }
  return byName;
}

/**
 * The keys a read of `path` from `reader` reaches: the path itself (exact) or the deepest section
 * above it (probable), in the appsettings files of the reader's nearest directory holding the key;
 * a reader with no appsettings file above it (a shared library) reaches every project's (probable).
 * `settingsDirs`: the directories (with a trailing `/`, `''` for the root) holding appsettings files.
 */
export function resolveConfigPath(
  path: string,
  reader: string,
  byName: ReadonlyMap<string, readonly ConfigKeyRow[]>,
  settingsDirs: ReadonlySet<string>,
): { keys: ConfigKeyRow[]; confidence: Confidence } | null {
  // A reader with appsettings files of its own reads those (with its host's environment), never another project's.
  const ownSettings = [...settingsDirs].some((d) => reader.startsWith(d));
  const segments = path.split(':');
  for (let n = segments.length; n > 0; n--) {
    const found = byName.get(segments.slice(0, n).join(':').toLowerCase());
    if (!found) continue;
    let confidence: Confidence = n === segments.length ? 'exact' : 'probable';
    const above = found.filter((k) => reader.startsWith(dirOf(k.path)));
    let keys: ConfigKeyRow[];
    if (above.length > 0) {
      const nearest = Math.max(...above.map((k) => dirOf(k.path).length));
      keys = above.filter((k) => dirOf(k.path).length === nearest);
    } else if (!ownSettings) {
      keys = [...found];
      confidence = 'probable';
    } else continue;
    return { keys, confidence };
  }
  return null;
}

/** Every read's links against the label's keys, and what stayed unresolved (pure: what {@link linkConfigReads} writes). */
export function computeConfigLinks(reads: readonly ConfigReadRow[], keys: readonly ConfigKeyRow[]): { links: ConfigLink[]; unresolved: UnresolvedConfigRead[] } {
  const byName = keyIndex(keys);
  const settingsDirs = new Set(keys.filter((k) => isAppSettings(k.path)).map((k) => dirOf(k.path)));
  const parsed = reads.map((r) => ({ row: r, read: parseConfigReadKey(r.targetKey) })).filter((x): x is { row: ConfigReadRow; read: ConfigRead } => x.read !== null);
  // Sections each options type is bound to, anywhere in the label (by the type's simple name).
  const bound = new Map<string, Set<string>>();
  for (const { read } of parsed) {
    if (read.kind !== 'bind' || read.type === null) continue;
    const set = bound.get(read.type) ?? new Set<string>();
    set.add(read.path);
    bound.set(read.type, set);
  }
  const links: ConfigLink[] = [];
  const unresolved: UnresolvedConfigRead[] = [];
  for (const { row, read } of parsed) {
    const miss = (reason: UnresolvedConfigRead['reason'], what = read.path) => unresolved.push({ path: row.path, line: row.line, source: row.source, read: what, reason });
    if (read.kind === 'computed') {
      miss('computed');
      continue;
    }
    const paths = read.kind === 'options' ? [...(bound.get(read.type ?? '') ?? [])] : [read.path];
    const best = new Map<number, Confidence>();
    for (const p of paths) {
      const r = resolveConfigPath(p, row.path, byName, settingsDirs);
      if (r === null) continue;
      // IOptions<T> reaches its sections through a binding matched by type name: probable at best.
      const confidence: Confidence = read.kind === 'options' && r.confidence === 'exact' ? 'probable' : r.confidence;
      for (const k of r.keys) if (RANK[confidence] > RANK[best.get(k.id) ?? 'approximate'] || !best.has(k.id)) best.set(k.id, confidence);
    }
    if (best.size === 0) {
      miss('missing', read.kind === 'options' ? `IOptions<${read.type}>` : read.path);
      continue;
    }
    for (const [keyId, confidence] of best) links.push({ edgeId: row.edgeId, keyId, confidence });
  }
  return { links, unresolved };
}

/** Recomputes the label's `reads_config` links in one transaction; see the module comment. */
export function linkConfigReads(store: Store, label: string): ConfigLinkReport {
  const started = performance.now();
  const reads = store.configLinks.reads(label);
  const keys = reads.length > 0 ? store.configLinks.keys(label) : [];
  const { links, unresolved } = reads.length > 0 ? computeConfigLinks(reads, keys) : { links: [], unresolved: [] };
  const written = reads.length > 0 ? store.configLinks.replaceLinks(label, links) : 0;
  return {
    reads: reads.length,
    linked: new Set(links.map((l) => l.edgeId)).size,
    computed: unresolved.filter((u) => u.reason === 'computed').length,
    missing: unresolved.filter((u) => u.reason === 'missing').length,
    links: written,
    ms: performance.now() - started,
  };
}

/** The label's configuration reads that reach no key: computed keys and keys no appsettings file has. */
export function unresolvedConfigReads(store: Store, label: string): UnresolvedConfigRead[] {
  return computeConfigLinks(store.configLinks.reads(label), store.configLinks.keys(label)).unresolved;
}
