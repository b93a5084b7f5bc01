import type { ExtractedNode, Language, ParseStatus } from '@ca/schema';
import { isMergeableFragment, MERGEABLE_KINDS, type NodeAction, type NodePlan, type PartialTarget, type PreviousNode, type StoredFileRecord } from '@ca/store';
import type { DiscoveredFile, SkippedFile } from './discovery.js';
import { carriedLines, changedFileNames, changedNames, exportSurfaceChanged } from './regions.js';
import { fingerprint, pairBySimilarity } from './similarity.js';

// ---------------------------------------------------------------- what the index holds

/** One path of a label as the index holds it (the store's record). */
export type StoredFile = StoredFileRecord;

/**
 * What planning reads of the index: narrow, read-only, implemented by @ca/store (and by plain
 * maps in the tests). No SQL here.
 */
export interface StoredState {
  readonly label: string;
  /** The label's paths. */
  files(): ReadonlyMap<string, StoredFile>;
  /**
   * A shareable version of `path` with this content already in the index (held by any label), the
   * one made by `extractor` when given and there is one, or null.
   */
  version(path: string, contentHash: string, extractor?: string): { readonly fileId: number; readonly extractor: string } | null;
  /** How many labels hold the file version (0 once the last one let go). */
  holders(fileId: number): number;
}

// ---------------------------------------------------------------- what changed

/** A file as the source has it now; `contentHash` once read (or known: git blob ids). */
export interface SourceVersion extends DiscoveredFile {
  readonly contentHash?: string;
}

/**
 * What changed between a source (the working tree, a commit) and a label, by path. Built by
 * `detectChanges` from a listing (a full scan, or the paths a watcher reported) and completed
 * with content hashes by whoever reads the files.
 */
export interface ChangeSet {
  readonly label: string;
  /** New paths. */
  readonly created: readonly SourceVersion[];
  /** Paths the label holds whose size, mtime, content or extractor differs. */
  readonly modified: readonly SourceVersion[];
  /** Paths the label holds that the source no longer has. */
  readonly deleted: readonly string[];
  /** Files recorded as skipped whose record changed (new, or another size/reason). */
  readonly skipped: readonly SkippedFile[];
  /** Semantic-context files added, changed or removed (their scopes come with `context`). */
  readonly contextTouched: readonly string[];
  /** HEAD moved since the label was indexed (the working tree's label only). */
  readonly headMoved: { readonly from: string | null; readonly to: string | null } | null;
}

/** The extractor a path would be parsed with now (`syntactic:ts@7`), or `none`. */
export type ExtractorOf = (path: string) => string;

/** The record a skipped file leaves in the index; changes when its size, mtime or reason does. */
export function skippedHash(s: SkippedFile): string {
  return `skipped:${s.size}:${Math.floor(s.mtimeMs)}:${s.reason}`;
}

/**
 * Compares a listing with the label. `scope: 'full'` means the listing is the whole source (a
 * stored path missing from it was deleted); `'paths'` means only the paths in `looked` were
 * looked at (a watcher's events): a stored path is deleted only when it is (under) one of them.
 */
export function detectChanges(
  stored: ReadonlyMap<string, StoredFile>,
  listing: { readonly files: readonly SourceVersion[]; readonly skipped: readonly SkippedFile[]; readonly contextFiles: readonly DiscoveredFile[] },
  options: { readonly label: string; readonly extractorOf: ExtractorOf; readonly scope: 'full' | 'paths'; readonly looked?: readonly string[]; readonly headMoved?: ChangeSet['headMoved'] },
): ChangeSet {
  const created: SourceVersion[] = [];
  const modified: SourceVersion[] = [];
  for (const f of listing.files) {
    const s = stored.get(f.path);
    if (!s) {
      created.push(f);
      continue;
    }
    // Stat only (the working tree): size and mtime decide, the content hash settles it later.
    const mayDiffer = f.contentHash !== undefined ? f.contentHash !== s.contentHash : f.size !== s.size || f.mtimeMs !== s.mtimeMs;
    if (mayDiffer || s.extractor !== options.extractorOf(f.path)) modified.push(f);
  }
  const skipped = listing.skipped.filter((s) => stored.get(s.path)?.contentHash !== skippedHash(s));
  let deleted: string[];
  const present = new Set([...listing.files.map((f) => f.path), ...listing.skipped.map((s) => s.path)]);
  if (options.scope === 'full') {
    deleted = [...stored.keys()].filter((p) => !present.has(p));
  } else {
    // A path looked at (or under a directory looked at) that the listing no longer has: gone,
    // ignored now, or no longer a regular file.
    const looked = options.looked ?? [];
    deleted = [...stored.keys()].filter((p) => !present.has(p) && looked.some((g) => g === '' || p === g || p.startsWith(`${g}/`)));
  }
  deleted.sort();
  return {
    label: options.label,
    created,
    modified,
    deleted,
    skipped,
    contextTouched: listing.contextFiles.map((f) => f.path),
    headMoved: options.headMoved ?? null,
  };
}

// ---------------------------------------------------------------- the plan

export type ParseReason =
  | 'created'
  | 'modified'
  | 'extractor changed'
  | 'moved (another label holds the old version)'
  | 'moved to another directory (relative imports resolve anew)'
  | 'moved (extracted otherwise at the new path)'
  | 'moved to another project'
  | 'moved and edited';

/** Files whose extraction resolves relative module specifiers against their own directory (TS/JS). */
const DIRECTORY_SHAPED = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/** A TS/JS file named `index.*`: extracted as a module (barrel) node when it only re-exports. */
const INDEX_FILE = /(^|\/)index\.(ts|tsx|js|jsx|mts|cts|mjs|cjs)$/;

/**
 * Whether a same-content move can keep the version (renamed in place): not when the file's
 * relative imports resolve against another directory now (its edges' module paths change), nor,
 * for TS/JS, when its name changes what is extracted — another extension (another grammar or
 * language: `.ts` → `.tsx`, `.js` → `.ts`) or becoming or ceasing to be an `index` file (a
 * barrel's file node is a module).
 */
export function movesInPlace(from: string, to: string): boolean {
  if (!DIRECTORY_SHAPED.test(to)) return true;
  const dir = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf('/')));
  const ext = (p: string) => p.slice(p.lastIndexOf('.'));
  return dir(from) === dir(to) && ext(from) === ext(to) && INDEX_FILE.test(from) === INDEX_FILE.test(to);
}

export interface PlannedParse {
  readonly file: SourceVersion;
  readonly reason: ParseReason;
  /** The label's previous version of the path, whose nodes keep their ids when their keys survive. */
  readonly previousFileId: number | null;
  /** A move with an edit (`moved and edited`): the path the previous version leaves, whose nodes the new one continues. */
  readonly movedFrom?: string;
}

export interface PlannedMove {
  readonly from: string;
  readonly to: SourceVersion;
  /** The version that moves: renamed in place, so its nodes, edges and vectors keep their ids. */
  readonly fileId: number;
}

/** One semantic scope to run again, and why. */
export interface SemanticScope {
  readonly reason: string;
  /** Paths whose semantic pass must run again (pending). */
  readonly paths: readonly string[];
}

/** What to do for one change set (no I/O: the engine executes it through the store). */
export interface Plan {
  readonly label: string;
  /** Versions to read and parse (in path order). */
  readonly parse: readonly PlannedParse[];
  /** Paths whose new content is a version the index already holds (another label, a worktree): membership only, nothing parsed. */
  readonly reuse: readonly { readonly file: SourceVersion; readonly fileId: number }[];
  /** Paths whose content did not change (only their mtime): the new mtime is recorded. */
  readonly touch: readonly { readonly path: string; readonly mtimeMs: number }[];
  /** Moves that keep node identity. */
  readonly moves: readonly PlannedMove[];
  /** Paths leaving the label after the writes (creates before deletes), with why; versions no label holds are journaled and deleted. */
  readonly remove: readonly { readonly path: string; readonly reason: string }[];
  /** Skip records to write. */
  readonly skipped: readonly SkippedFile[];
  /** Semantic scopes that must run again, each with its reason (files parsed or moved; context changes come from `contextScopes`). */
  readonly semantic: readonly SemanticScope[];
}

/**
 * Plans a change set (a pure function of its inputs): which versions to parse, which paths only
 * change membership (the content is indexed already, e.g. for another label), which deletes and
 * creates are moves of one version (same content: node identity kept), what leaves the label,
 * and which files need their semantic pass again. Every created or modified path must carry its
 * `contentHash` (read by the caller); without one it is parsed. `renames` (created path →
 * deleted path: git's renames, similar contents; see `renameCandidates`) turns a create and a
 * delete into one parse that continues the deleted version's nodes, when that version can be
 * continued (same extractor, parsed, no other label holds it).
 */
export function plan(changes: ChangeSet, state: StoredState, extractorOf: ExtractorOf, renames?: ReadonlyMap<string, string>): Plan {
  const stored = state.files();
  const parse: PlannedParse[] = [];
  const reuse: { file: SourceVersion; fileId: number }[] = [];
  const touch: { path: string; mtimeMs: number }[] = [];
  const moves: PlannedMove[] = [];
  const deleted = new Set(changes.deleted);
  // Deleted paths by their content: a created file with the same content is their move.
  const deletedByHash = new Map<string, string[]>();
  for (const path of changes.deleted) {
    const s = stored.get(path);
    if (!s || s.extractor !== extractorOf(path) || s.parseStatus === 'skipped' || s.parseStatus === 'no_grammar') continue;
    const list = deletedByHash.get(s.contentHash) ?? [];
    list.push(path);
    deletedByHash.set(s.contentHash, list);
  }
  const movedFrom = new Set<string>();
  // A rename pair continues the deleted version only when nothing else took it and its nodes can move.
  const renamedFrom = (to: string, from: string | undefined): { path: string; fileId: number } | null => {
    const old = from === undefined || !deleted.has(from) || movedFrom.has(from) ? undefined : stored.get(from);
    if (!old || old.extractor !== extractorOf(to) || old.parseStatus === 'skipped' || old.parseStatus === 'no_grammar') return null;
    return state.holders(old.fileId) <= 1 ? { path: from!, fileId: old.fileId } : null;
  };
  for (const f of changes.created) {
    const existing = f.contentHash !== undefined ? state.version(f.path, f.contentHash, extractorOf(f.path)) : null;
    if (existing && existing.extractor === extractorOf(f.path)) {
      reuse.push({ file: f, fileId: existing.fileId });
      continue;
    }
    const candidates = f.contentHash !== undefined ? deletedByHash.get(f.contentHash) : undefined;
    // The version is renamed in place only when the new path would extract it alike: the same
    // extractor (a C# file moved into another project has its defines) and, for TS/JS, the same folder.
    const open = candidates?.filter((p) => !movedFrom.has(p)) ?? [];
    const alike = open.filter((p) => stored.get(p)!.extractor === extractorOf(f.path));
    // A version moving into another project cannot keep its nodes as they are: a C# partial
    // fragment merges with the fragments of its own project only (decision 022, difference 16).
    const sameProject = (p: string) => stored.get(p)!.project === undefined || stored.get(p)!.project === f.project;
    const from = alike.find((p) => movesInPlace(p, f.path) && sameProject(p));
    if (from === undefined && open.length > 0) {
      const otherDirectory = alike.length > 0 && alike[0]!.slice(0, Math.max(0, alike[0]!.lastIndexOf('/'))) !== f.path.slice(0, Math.max(0, f.path.lastIndexOf('/')));
      const reason: ParseReason =
        alike.length > 0 && !sameProject(alike[0]!)
          ? 'moved to another project'
          : otherDirectory
            ? 'moved to another directory (relative imports resolve anew)'
            : 'moved (extracted otherwise at the new path)';
      // Parsed again at its new path, as the continuation of the old version when it can be one:
      // its symbols keep their ids (decision 023) while its edges are extracted anew (decision 022).
      const continued = alike.length > 0 ? renamedFrom(f.path, alike[0]) : null;
      if (continued !== null) movedFrom.add(continued.path);
      parse.push({ file: f, reason, previousFileId: continued?.fileId ?? null, ...(continued ? { movedFrom: continued.path } : {}) });
      continue;
    }
    if (from !== undefined) {
      movedFrom.add(from);
      const old = stored.get(from)!;
      // Another label still holds the old version: it cannot be renamed in place.
      if (state.holders(old.fileId) <= 1) {
        moves.push({ from, to: f, fileId: old.fileId });
        continue;
      }
      parse.push({ file: f, reason: 'moved (another label holds the old version)', previousFileId: null });
      continue;
    }
    const renamed = renamedFrom(f.path, renames?.get(f.path));
    if (renamed !== null) {
      movedFrom.add(renamed.path);
      parse.push({ file: f, reason: 'moved and edited', previousFileId: renamed.fileId, movedFrom: renamed.path });
      continue;
    }
    parse.push({ file: f, reason: 'created', previousFileId: null });
  }
  for (const f of changes.modified) {
    const old = stored.get(f.path)!;
    const extractor = extractorOf(f.path);
    if (f.contentHash !== undefined && f.contentHash === old.contentHash && old.extractor === extractor) {
      touch.push({ path: f.path, mtimeMs: f.mtimeMs });
      continue;
    }
    const existing = f.contentHash !== undefined ? state.version(f.path, f.contentHash, extractor) : null;
    if (existing && existing.extractor === extractor && existing.fileId !== old.fileId) {
      reuse.push({ file: f, fileId: existing.fileId });
      continue;
    }
    const reason: ParseReason = f.contentHash !== undefined && f.contentHash === old.contentHash ? 'extractor changed' : 'modified';
    parse.push({ file: f, reason, previousFileId: old.fileId });
  }
  const remove = [...deleted].filter((p) => !movedFrom.has(p)).map((path) => ({ path, reason: 'file deleted' }));
  const byPath = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  parse.sort(byPath((p) => p.file.path));
  reuse.sort(byPath((r) => r.file.path));
  moves.sort(byPath((m) => m.to.path));

  // Source-driven edges: a parsed or moved file's own edges are recomputed, and its semantic pass
  // runs again; files that merely use it keep theirs (the invalidation matrix,
  // docs/architecture.md).
  const semantic: SemanticScope[] = [];
  const reasons = new Map<string, string[]>();
  const add = (reason: string, path: string) => {
    const list = reasons.get(reason) ?? [];
    list.push(path);
    reasons.set(reason, list);
  };
  for (const p of parse) add(p.reason === 'created' ? 'new file' : p.reason === 'modified' ? 'file changed' : p.reason, p.file.path);
  // A moved file's keys (file-scoped: its path) change; its exact edges are recomputed.
  for (const m of moves) add('file moved', m.to.path);
  for (const [reason, paths] of reasons) semantic.push({ reason, paths });

  return { label: changes.label, parse, reuse, touch, moves, remove, skipped: changes.skipped, semantic };
}

/**
 * What a plan leaves as a plain create and a plain delete: the candidates of `plan`'s `renames`
 * (a create may be a deleted file moved and edited). Created files in path order, deleted paths
 * sorted.
 */
export function renameCandidates(p: Plan): { readonly created: readonly SourceVersion[]; readonly deleted: readonly string[] } {
  return {
    created: p.parse.filter((x) => x.reason === 'created').map((x) => x.file),
    deleted: p.remove.filter((r) => r.reason === 'file deleted').map((r) => r.path),
  };
}

// ---------------------------------------------------------------- nodes of one re-parsed file

/** Kinds whose `partial` fragments in several files are merged into one node (C#; the store's, which scopes their versions). */
export { MERGEABLE_KINDS };

/**
 * Matches a re-parsed file's nodes with the previous version's (a pure function): a node keeps
 * its id when its (symbol key, disambiguator) survives, and needs a new vector only when its
 * chunk changed; a `partial` fragment joins the label's node of the same key in another file;
 * the rest of the previous nodes go (journaled), except a merged node with spans elsewhere.
 * `chunkHash` is the digest the store keeps of a chunk text. For a file moved and edited
 * (`movedFrom`: the previous version's path), file-scoped keys are compared after the move, and
 * a node no key matches continues the unclaimed previous node of its kind whose chunk is most
 * similar (fingerprint Jaccard ≥ `SIMILARITY_THRESHOLD`: a renamed or edited symbol); both are
 * re-keyed (`rekey`). Nothing is carried for a moved file: its whole semantic pass runs again.
 */
export function planNodes(
  previous: readonly PreviousNode[],
  next: readonly ExtractedNode[],
  options: {
    readonly path: string;
    readonly partialTarget: (node: ExtractedNode) => PartialTarget | null;
    readonly chunkHash: (text: string) => string;
    /** Plan which continued nodes carry their exact edges, and the names the change touched (the previous nodes carry their texts). */
    readonly carry?: boolean;
    /** The path the previous version had: a move with an edit (the previous nodes carry their texts). */
    readonly movedFrom?: string;
    /** The project of the version being written (absent: unknown, every node may follow it). */
    readonly project?: string;
  },
): NodePlan {
  const movedFrom = options.movedFrom;
  // A merged node (fragments in other files) whose file now belongs to another project stays
  // with those fragments, in its project: this file's fragment becomes a node of its own, as a
  // clean index has it (decision 022, difference 16).
  const staysBehind = (n: PreviousNode) => n.otherSpans > 0 && n.project !== undefined && options.project !== undefined && n.project !== options.project;
  const byKey = new Map<string, PreviousNode>();
  // Keys the TS pass refined to their package (`ts:pkg:NAME#local`), by the syntactic key the
  // re-parsed file gives the same symbol (`ts:file:PATH#local`).
  const byRefined = new Map<string, PreviousNode>();
  // Previous nodes under the key they have at the new path (file-scoped keys follow a move).
  const keyOf = (n: PreviousNode) => `${movedFrom === undefined ? n.symbolKey : movedKey(n.symbolKey, movedFrom, options.path)}\u0000${n.disambiguator}`;
  const staying: PreviousNode[] = [];
  for (const n of previous) {
    if (staysBehind(n)) {
      staying.push(n);
      continue;
    }
    byKey.set(keyOf(n), n);
    const syntactic = unrefinedKey(n.symbolKey, options.path);
    if (syntactic !== null) byRefined.set(`${syntactic}\u0000${n.disambiguator}`, n);
  }
  const similar = movedFrom === undefined ? new Map<number, PreviousNode>() : similarNodes(previous.filter((n) => !staysBehind(n)), next, byKey, byRefined);
  const actions: NodeAction[] = [];
  let reembed = 0;
  const carrying = options.carry === true && movedFrom === undefined;
  const carry: { id: number; lines: ReadonlyMap<number, number> }[] = [];
  const dirty = new Set<string>();
  const localDirty = new Set<string>();
  const insertedParents = new Set<string>();
  // Unknown (true) until the previous file node's text is compared.
  let exportsChanged = true;
  const facts = (n: ExtractedNode) => ({ kind: n.kind, name: n.name, chunkText: n.chunkText, signature: n.signature });
  for (const [i, n] of next.entries()) {
    if (isMergeableFragment(n)) {
      const target = options.partialTarget(n);
      if (target !== null) {
        actions.push({ kind: 'merge', id: target.id, primary: options.path < target.path });
        continue;
      }
    }
    const key = `${n.symbolKey}\u0000${n.disambiguator}`;
    let old = byKey.get(key);
    if (!old) {
      // Not under its own key: the refined key of the same symbol, when that node is still unclaimed.
      const refined = byRefined.get(key);
      if (refined && byKey.get(keyOf(refined)) === refined) old = refined;
    }
    old ??= similar.get(i);
    if (old) {
      byKey.delete(keyOf(old));
      const changed = old.chunkHash !== options.chunkHash(n.chunkText);
      if (changed) reembed++;
      // A moved file's nodes take their new keys (the path in file-scoped ones, a renamed symbol's name).
      const rekey = movedFrom !== undefined && (old.symbolKey !== n.symbolKey || old.disambiguator !== n.disambiguator);
      actions.push({ kind: 'update', id: old.id, reembed: changed, ...(rekey ? { rekey: true } : {}) });
      if (carrying && old.chunkText !== undefined && old.startLine !== undefined && old.endLine !== undefined) {
        const lines = carriedLines({ chunkText: old.chunkText, startLine: old.startLine, endLine: old.endLine }, { chunkText: n.chunkText, ...n.span });
        if (lines !== null) carry.push({ id: old.id, lines });
        if (n.kind === 'file') {
          // Imports change what names mean in this file only; exports and declarations anywhere.
          const f = changedFileNames(old.chunkText, n.chunkText);
          for (const name of f.imported) localDirty.add(name);
          for (const name of f.exported) dirty.add(name);
          exportsChanged = exportSurfaceChanged(old.chunkText, n.chunkText);
        } else {
          for (const name of changedNames({ kind: old.kind, name: old.name ?? n.name, chunkText: old.chunkText, signature: old.signature ?? '' }, facts(n))) dirty.add(name);
        }
      } else if (carrying) {
        dirty.add(n.name);
      }
    } else {
      reembed++;
      actions.push({ kind: 'insert' });
      // A member of a new declaration is reached through that declaration's name (dirty itself).
      if (carrying && !insertedParents.has(n.parentLocalId ?? '')) for (const name of changedNames(null, facts(n))) dirty.add(name);
      if (n.kind !== 'file') insertedParents.add(n.localId);
    }
  }
  const drop = [...byKey.values(), ...staying].map((n) => ({ id: n.id, survives: n.otherSpans > 0 }));
  if (!carrying) return { actions, drop, reembed };
  for (const n of byKey.values()) if (n.name !== undefined && n.kind !== 'file') dirty.add(n.name);
  return { actions, drop, reembed, carry, dirtyNames: [...dirty].sort(), localDirtyNames: [...localDirty].sort(), exportsChanged };
}

/**
 * For a file moved and edited: new nodes (by index) no key matches, each paired with the
 * previous node of the same kind that no key claims and whose chunk is the most similar
 * (`pairBySimilarity`: best pair first, ties to the earlier nodes). File nodes pair by key.
 */
function similarNodes(
  previous: readonly PreviousNode[],
  next: readonly ExtractedNode[],
  byKey: ReadonlyMap<string, PreviousNode>,
  byRefined: ReadonlyMap<string, PreviousNode>,
): Map<number, PreviousNode> {
  const claimed = new Set<PreviousNode>();
  const unmatched: number[] = [];
  next.forEach((n, i) => {
    const key = `${n.symbolKey}\u0000${n.disambiguator}`;
    const hit = byKey.get(key) ?? byRefined.get(key);
    if (hit) claimed.add(hit);
    else if (!n.modifiers.includes('partial')) unmatched.push(i);
  });
  const free = previous.filter((p) => !claimed.has(p) && p.chunkText !== undefined && p.kind !== 'file');
  const pairs = pairBySimilarity(
    free.map((p) => fingerprint(p.chunkText!)),
    unmatched.map((i) => fingerprint(next[i]!.chunkText)),
    { compatible: (l, r) => free[l]!.kind === next[unmatched[r]!]!.kind },
  );
  return new Map(pairs.map((p) => [unmatched[p.right]!, free[p.left]!]));
}

/**
 * The syntactic key of a key the TS pass refined to its package: `ts:pkg:NAME#local` of a node
 * in `path` was `ts:file:PATH#local` before the pass (and is again when the file is re-parsed),
 * or null for any other key. Matching by it keeps a re-parsed exported symbol's id, so the exact
 * edges other files hold to it stay resolved.
 */
export function unrefinedKey(key: string, path: string): string | null {
  const m = /^([a-z]+):pkg:[^#]*#/.exec(key);
  return m ? `${m[1]}:file:${path}#${key.slice(m[0].length)}` : null;
}

/**
 * A file-scoped symbol key moved with its file (`ts:file:src/a.ts#X` → `ts:file:src/b.ts#X`);
 * package- and namespace-scoped keys do not name the file and stay.
 */
export function movedKey(key: string, from: string, to: string): string {
  const m = /^([a-z]+):file:/.exec(key);
  if (!m) return key;
  const prefix = `${m[1]}:file:${from}#`;
  return key.startsWith(prefix) ? `${m[1]}:file:${to}#${key.slice(prefix.length)}` : key;
}
