import { describe, expect, it } from 'vitest';
import type { ExtractedNode } from '@ca/schema';
import { extractedNode } from './helpers.js';
import { contextScopes, detectChanges, diffContext, exportSurfaceChanged, movedKey, movesInPlace, plan, planNodes, unrefinedKey, type ContextFacts, type ContextScan, type PreviousNode, type StoredFile, type StoredState } from '../src/index.js';

// ------------------------------------------------------------------ fixtures of the planner's inputs

/** A stored file of the label `working` (content hash `h:<path>:<n>`). */
function stored(path: string, fileId: number, version = 1, extra: Partial<StoredFile> = {}): StoredFile {
  return { path, fileId, contentHash: `h:${path}:${version}`, size: 100, mtimeMs: 1000, extractor: 'syntactic:ts@1', language: 'ts', parseStatus: 'ok', semanticState: 'ok', ...extra };
}

/** Planner state over a list of stored files; `versions` are other versions the index holds (other labels). */
function state(files: StoredFile[], options: { versions?: Record<string, number>; holders?: Record<number, number> } = {}): StoredState {
  const map = new Map(files.map((f) => [f.path, f]));
  return {
    label: 'working',
    files: () => map,
    version: (path, hash) => {
      const own = files.find((f) => f.path === path && f.contentHash === hash);
      if (own) return { fileId: own.fileId, extractor: own.extractor };
      const other = options.versions?.[`${path}\u0000${hash}`];
      return other === undefined ? null : { fileId: other, extractor: 'syntactic:ts@1' };
    },
    holders: (fileId) => options.holders?.[fileId] ?? 1,
  };
}

const extractor = () => 'syntactic:ts@1';
const src = (path: string, version: number, extra: { size?: number; mtimeMs?: number } = {}) => ({ path, size: extra.size ?? 100, mtimeMs: extra.mtimeMs ?? 2000, project: '', contentHash: `h:${path}:${version}` });
const listing = (files: { path: string; size: number; mtimeMs: number; project: string; contentHash?: string }[]) => ({ files, skipped: [], contextFiles: [] });

/**
 * Plans a full scan of the working tree `files` against `stored`, as the engine does: changes
 * are detected by size and mtime, then the changed files are read (their hashes filled in).
 */
function planScan(storedFiles: StoredFile[], files: ReturnType<typeof src>[], options: Parameters<typeof state>[1] = {}) {
  const s = state(storedFiles, options);
  const hashes = new Map(files.map((f) => [f.path, f.contentHash]));
  const stat = files.map(({ contentHash: _h, ...f }) => f);
  const detected = detectChanges(s.files(), listing(stat), { label: 'working', extractorOf: extractor, scope: 'full' });
  const read = (f: (typeof stat)[number]) => ({ ...f, contentHash: hashes.get(f.path)! });
  const changes = { ...detected, created: detected.created.map(read), modified: detected.modified.map(read) };
  return { changes, plan: plan(changes, s, extractor) };
}

/** The plan as path lists, the way the tests state expectations. */
function summary(p: ReturnType<typeof plan>) {
  return {
    parse: p.parse.map((x) => `${x.file.path} (${x.reason})`),
    reuse: p.reuse.map((x) => x.file.path),
    touch: p.touch.map((x) => x.path),
    moves: p.moves.map((m) => `${m.from} -> ${m.to.path} #${m.fileId}`),
    remove: p.remove.map((r) => r.path),
    semantic: p.semantic.map((s) => `${s.reason}: ${s.paths.join(', ')}`),
  };
}

const node = extractedNode;
const prev = (id: number, name: string, chunk = `function ${name}() {}`, extra: Partial<PreviousNode> = {}): PreviousNode => ({
  id,
  symbolKey: `ts:file:src/a.ts#${name}`,
  disambiguator: 0,
  kind: 'function',
  chunkHash: `c:${chunk}`,
  otherSpans: 0,
  ...extra,
});
const chunkHash = (text: string) => `c:${text}`;
const noPartial = () => null;

// ------------------------------------- the invalidation matrix (docs/architecture.md), row by row

describe('the invalidation matrix (docs/architecture.md): which files and nodes a change touches', () => {
  // src/caller.ts calls into src/a.ts (the target), both at version 1. Edges belong to their
  // source file: only a changed file's own edges are recomputed.
  it.each([
    // [row, stored, new listing, expected summary]
    [
      'calls/references — the source symbol changed: its file is re-parsed and its semantic pass runs again',
      [src('src/a.ts', 1), src('src/caller.ts', 2)],
      { parse: ['src/caller.ts (modified)'], semantic: ['file changed: src/caller.ts'] },
    ],
    [
      'calls/references — only the target body changed: the callers are not touched (no recompute storm)',
      [src('src/a.ts', 2), src('src/caller.ts', 1)],
      { parse: ['src/a.ts (modified)'], semantic: ['file changed: src/a.ts'] },
    ],
    [
      'inherits/implements/overrides/accepts/extends — the base changed: subtypes keep their edges',
      [src('src/a.ts', 3), src('src/caller.ts', 1)],
      { parse: ['src/a.ts (modified)'], semantic: ['file changed: src/a.ts'] },
    ],
    [
      'imports — the import statements changed: the importing file is recomputed, the imported one is not',
      [src('src/a.ts', 1), src('src/caller.ts', 4)],
      { parse: ['src/caller.ts (modified)'], semantic: ['file changed: src/caller.ts'] },
    ],
  ])('%s', (_row, listed, expected) => {
    const { plan: p } = planScan([stored('src/a.ts', 1, 1), stored('src/caller.ts', 2, 1)], listed);
    // The unchanged file's mtime moved (src() writes 2000): it is only touched.
    const unchanged = listed.filter((f) => f.contentHash.endsWith(':1')).map((f) => f.path);
    expect(summary(p)).toEqual({ parse: expected.parse, reuse: [], touch: unchanged, moves: [], remove: [], semantic: expected.semantic });
  });

  it('calls/references — the source chunk changed: the node keeps its id and needs a new vector; an unchanged one does not', () => {
    const plan2 = planNodes([prev(10, 'run', 'function run() { a(); }'), prev(11, 'idle')], [node('run', { chunkText: 'function run() { a(); b(); }' }), node('idle')], {
      path: 'src/a.ts',
      partialTarget: noPartial,
      chunkHash,
    });
    expect(plan2).toEqual({
      actions: [
        { kind: 'update', id: 10, reembed: true },
        { kind: 'update', id: 11, reembed: false },
      ],
      drop: [],
      reembed: 1,
    });
  });

  it('calls/references — the target deleted and re-created under a new name: the old node is journaled and dropped, the new one inserted (callers re-resolve on their own next pass)', () => {
    const plan2 = planNodes([prev(10, 'fetchUser')], [node('loadUser')], { path: 'src/a.ts', partialTarget: noPartial, chunkHash });
    expect(plan2).toEqual({ actions: [{ kind: 'insert' }], drop: [{ id: 10, survives: false }], reembed: 1 });
  });

  it('a symbol whose key the TS pass refined to its package keeps its id when its file is re-parsed (the syntactic key again)', () => {
    // Stored after a semantic pass: `Context` and `Context.json` exported by the package `hono`;
    // `helper` is not exported and kept its file key; `gone` was removed from the file.
    const previous = [
      prev(1, 'Context', 'class Context {}', { kind: 'class', symbolKey: 'ts:pkg:hono#Context' }),
      prev(2, 'json', 'json() {}', { kind: 'method', symbolKey: 'ts:pkg:hono#Context.json' }),
      prev(3, 'helper', 'function helper() {}', { symbolKey: 'ts:file:src/context.ts#helper' }),
      prev(4, 'gone', 'function gone() {}', { symbolKey: 'ts:pkg:hono#gone' }),
    ];
    const next = [
      node('Context', { kind: 'class', symbolKey: 'ts:file:src/context.ts#Context', chunkText: 'class Context {}' }),
      node('json', { kind: 'method', symbolKey: 'ts:file:src/context.ts#Context.json', parentLocalId: 'Context', chunkText: 'json() { return 1; }' }),
      node('helper', { symbolKey: 'ts:file:src/context.ts#helper', chunkText: 'function helper() {}' }),
      node('added', { symbolKey: 'ts:file:src/context.ts#added', chunkText: 'function added() {}' }),
    ];
    expect(planNodes(previous, next, { path: 'src/context.ts', partialTarget: noPartial, chunkHash })).toEqual({
      actions: [{ kind: 'update', id: 1, reembed: false }, { kind: 'update', id: 2, reembed: true }, { kind: 'update', id: 3, reembed: false }, { kind: 'insert' }],
      drop: [{ id: 4, survives: false }],
      reembed: 2,
    });
    expect(unrefinedKey('ts:pkg:hono#Context.json', 'src/context.ts')).toBe('ts:file:src/context.ts#Context.json');
    expect(unrefinedKey('ts:file:src/context.ts#helper', 'src/context.ts')).toBe(null);
  });

  it('contains — a child added, one removed, the parent kept: recomputed from the syntax tree; a body-only change keeps every id', () => {
    const cls = (chunk: string) => node('Cart', { kind: 'class', symbolKey: 'ts:file:src/a.ts#Cart', chunkText: chunk });
    const member = (name: string) => node(name, { kind: 'method', symbolKey: `ts:file:src/a.ts#Cart.${name}`, parentLocalId: 'Cart', chunkText: `${name}() {}` });
    const previous = [prev(1, 'Cart', 'class Cart { add; remove }', { kind: 'class', symbolKey: 'ts:file:src/a.ts#Cart' }), prev(2, 'add', 'add() {}', { kind: 'method', symbolKey: 'ts:file:src/a.ts#Cart.add' }), prev(3, 'remove', 'remove() {}', { kind: 'method', symbolKey: 'ts:file:src/a.ts#Cart.remove' })];
    // `remove` removed, `total` added: the class's collapsed chunk changes with its members.
    expect(planNodes(previous, [cls('class Cart { add; total }'), member('add'), member('total')], { path: 'src/a.ts', partialTarget: noPartial, chunkHash })).toEqual({
      actions: [{ kind: 'update', id: 1, reembed: true }, { kind: 'update', id: 2, reembed: false }, { kind: 'insert' }],
      drop: [{ id: 3, survives: false }],
      reembed: 2,
    });
    // A body-only change of `add`: every id kept, only `add` re-embedded.
    const body = planNodes(previous, [cls('class Cart { add; remove }'), { ...member('add'), chunkText: 'add() { return 1; }' }, member('remove')], { path: 'src/a.ts', partialTarget: noPartial, chunkHash });
    expect(body).toEqual({
      actions: [{ kind: 'update', id: 1, reembed: false }, { kind: 'update', id: 2, reembed: true }, { kind: 'update', id: 3, reembed: false }],
      drop: [],
      reembed: 1,
    });
  });

  it('parse-status degradation — a file that no longer parses drops its symbols (journaled), the file node records the failure', () => {
    expect(planNodes([prev(10, 'a'), prev(11, 'b')], [], { path: 'src/a.ts', partialTarget: noPartial, chunkHash })).toEqual({
      actions: [],
      drop: [
        { id: 10, survives: false },
        { id: 11, survives: false },
      ],
      reembed: 0,
    });
  });

  it('partial classes — a fragment joins the label’s node of its key; losing a fragment keeps the node (its primary span moves)', () => {
    const fragment = node('Customer', { kind: 'class', modifiers: ['partial'], symbolKey: 'cs:global#Acme.Customer' });
    // src/Customer.cs sorts after src/Customer.Billing.cs ('c' > 'B'): an extra span of the existing node.
    expect(planNodes([], [fragment], { path: 'src/Customer.cs', partialTarget: () => ({ id: 7, path: 'src/Customer.Billing.cs' }), chunkHash })).toEqual({
      actions: [{ kind: 'merge', id: 7, primary: false }],
      drop: [],
      reembed: 0,
    });
    // src/A.cs sorts first: it becomes the primary span.
    expect(planNodes([], [fragment], { path: 'src/A.cs', partialTarget: () => ({ id: 7, path: 'src/Customer.Billing.cs' }), chunkHash }).actions).toEqual([{ kind: 'merge', id: 7, primary: true }]);
    // The primary fragment's file loses the class: the node has a span elsewhere and survives.
    expect(planNodes([prev(7, 'Customer', 'partial class Customer', { kind: 'class', otherSpans: 1 })], [], { path: 'src/Customer.cs', partialTarget: noPartial, chunkHash }).drop).toEqual([
      { id: 7, survives: true },
    ]);
  });

  it('partial classes — a merged node whose file moved into another project stays with its project (decision 022, difference 16)', () => {
    // Program.Part1.cs held the primary fragment of Program (one more span in Program.cs, project
    // App.csproj) and now belongs to Tools.csproj: its fragment becomes a new node (insert), the
    // merged node is dropped but survives (its primary span moves to Program.cs). A method of the
    // file, not merged, follows the file (update).
    const previous = [
      prev(7, 'Program', 'partial class Program', { kind: 'class', otherSpans: 1, project: 'src/App/App.csproj', symbolKey: 'cs:global#App.Program' }),
      prev(8, 'Banner', 'string Banner() => "a";', { kind: 'method', project: 'src/App/App.csproj', symbolKey: 'cs:global#App.Program.Banner()' }),
    ];
    const next = [
      node('Program', { kind: 'class', modifiers: ['partial'], symbolKey: 'cs:global#App.Program', chunkText: 'partial class Program' }),
      node('Banner', { kind: 'method', symbolKey: 'cs:global#App.Program.Banner()', chunkText: 'string Banner() => "a";' }),
    ];
    const options = { path: 'src/Tools/Program.Part1.cs', partialTarget: noPartial, chunkHash, movedFrom: 'src/App/Program.Part1.cs' };
    expect(planNodes(previous, next, { ...options, project: 'src/Tools/Tools.csproj' })).toEqual({
      actions: [{ kind: 'insert' }, { kind: 'update', id: 8, reembed: false }],
      drop: [{ id: 7, survives: true }],
      reembed: 1,
    });
    // In the same project (or the project unknown) the merged node follows its file as before.
    for (const project of ['src/App/App.csproj', undefined]) {
      expect(planNodes(previous, next, { ...options, ...(project !== undefined ? { project } : {}) }).actions).toEqual([
        { kind: 'update', id: 7, reembed: false },
        { kind: 'update', id: 8, reembed: false },
      ]);
    }
    // A node without fragments elsewhere follows its file into the other project.
    expect(planNodes([{ ...previous[0]!, otherSpans: 0 }], [next[0]!], { ...options, project: 'src/Tools/Tools.csproj' }).actions).toEqual([{ kind: 'update', id: 7, reembed: false }]);
  });

  it('a same-content C# move into another project with the same extractor is parsed again as the continuation of the old version (decision 022, difference 16)', () => {
    const cs = () => 'cs@1#aaa';
    const s = state([stored('src/App/Program.Part1.cs', 5, 1, { extractor: 'cs@1#aaa', language: 'cs', project: 'src/App/App.csproj' })]);
    const moved = { path: 'src/Tools/Program.Part1.cs', size: 100, mtimeMs: 2000, project: 'src/Tools/Tools.csproj' };
    const changes = detectChanges(s.files(), listing([moved]), { label: 'working', extractorOf: cs, scope: 'full' });
    const p = plan({ ...changes, created: changes.created.map((f) => ({ ...f, contentHash: 'h:src/App/Program.Part1.cs:1' })) }, s, cs);
    // The continuation takes the old path's entry (nothing to remove).
    expect(summary(p)).toMatchObject({ parse: ['src/Tools/Program.Part1.cs (moved to another project)'], moves: [], remove: [] });
    expect(p.parse[0]).toMatchObject({ previousFileId: 5, movedFrom: 'src/App/Program.Part1.cs' });
    // Within its project the same move keeps the version (renamed in place).
    const within = plan({ ...changes, created: [{ ...moved, path: 'src/App/Sub/Program.Part1.cs', project: 'src/App/App.csproj', contentHash: 'h:src/App/Program.Part1.cs:1' }] }, s, cs);
    expect(summary(within).moves).toEqual(['src/App/Program.Part1.cs -> src/App/Sub/Program.Part1.cs #5']);
  });

  it('deleting a file: it leaves the label after the writes; nothing else is touched', () => {
    const { plan: p } = planScan([stored('src/a.ts', 1), stored('src/caller.ts', 2)], [{ ...src('src/a.ts', 1), mtimeMs: 1000 }]);
    expect(summary(p)).toEqual({ parse: [], reuse: [], touch: [], moves: [], remove: ['src/caller.ts'], semantic: [] });
  });
});

describe('moves, batches and versions', () => {
  it('a pure move (same content, new path) keeps the version and its node ids; its keys follow the path and its semantic pass runs again', () => {
    const { plan: p } = planScan([stored('src/http/retry.ts', 5), stored('src/app.ts', 6)], [src('src/http/retrying.ts', 1), src('src/app.ts', 1)].map((f) =>
      f.path === 'src/http/retrying.ts' ? { ...f, contentHash: 'h:src/http/retry.ts:1' } : f,
    ));
    expect(summary(p)).toEqual({
      parse: [],
      reuse: [],
      touch: ['src/app.ts'],
      moves: ['src/http/retry.ts -> src/http/retrying.ts #5'],
      remove: [],
      semantic: ['file moved: src/http/retrying.ts'],
    });
    expect(movedKey('ts:file:src/http/retry.ts#RetryPolicy.run(number)', 'src/http/retry.ts', 'src/http/retrying.ts')).toBe('ts:file:src/http/retrying.ts#RetryPolicy.run(number)');
    // Package- and namespace-scoped keys do not name the file.
    expect(movedKey('ts:pkg:@acme/http#RetryPolicy', 'src/http/retry.ts', 'src/http/retrying.ts')).toBe('ts:pkg:@acme/http#RetryPolicy');
    expect(movedKey('cs:global#Acme.Retry', 'src/Retry.cs', 'src/Retrying.cs')).toBe('cs:global#Acme.Retry');
  });

  it('a TS file moved to another folder is parsed again (its relative imports resolve from there) as the continuation of its version; a C# file keeps its version (decisions 022, 023)', () => {
    // src/http/retry.ts → src/net/retry.ts, same content: './x' now names src/net/x, so the
    // version cannot be renamed in place; it is parsed at the new path continuing version 5's
    // nodes (their ids stay), so the old path is not removed on its own.
    const { plan: p } = planScan([stored('src/http/retry.ts', 5)], [{ ...src('src/net/retry.ts', 1), contentHash: 'h:src/http/retry.ts:1' }]);
    expect(summary(p)).toEqual({
      parse: ['src/net/retry.ts (moved to another directory (relative imports resolve anew))'],
      reuse: [],
      touch: [],
      moves: [],
      remove: [],
      semantic: ['moved to another directory (relative imports resolve anew): src/net/retry.ts'],
    });
    expect(p.parse[0]).toMatchObject({ previousFileId: 5, movedFrom: 'src/http/retry.ts' });
    expect([movesInPlace('src/http/retry.ts', 'src/net/retry.ts'), movesInPlace('src/http/retry.ts', 'src/http/retrying.ts')]).toEqual([false, true]);
    // C# resolves by namespace, not by folder: the move keeps the version.
    expect([movesInPlace('src/A/Retry.cs', 'src/B/Retry.cs'), movesInPlace('lib/a.JS', 'b.js')]).toEqual([true, false]);
    // The name decides what is extracted: an `index` file that only re-exports is a module node
    // (zustand, seed 1, step 26: src/index.ts renamed src/index_r26.ts kept kind `module`), and the
    // extension picks the grammar and language.
    expect(
      [
        ['src/index.ts', 'src/index_r26.ts'],
        ['src/main.ts', 'src/index.ts'],
        ['src/index.ts', 'src/index.tsx'],
        ['src/a.ts', 'src/a.tsx'],
        ['src/a.js', 'src/a.ts'],
        ['src/a.ts', 'src/b.ts'],
        ['src/index.ts', 'lib/index.ts'],
      ].map(([from, to]) => movesInPlace(from!, to!)),
    ).toEqual([false, false, false, false, false, true, false]);
  });

  it('a move into a place that extracts otherwise (a C# file into another project: other defines) is parsed again (decision 022)', () => {
    const s = state([stored('src/A/Retry.cs', 5, 1, { extractor: 'cs@1#aaa' })]);
    const byProject = (path: string) => (path.startsWith('src/A/') ? 'cs@1#aaa' : 'cs@1#bbb');
    const changes = { ...detectChanges(s.files(), listing([{ path: 'src/B/Retry.cs', size: 100, mtimeMs: 2000, project: '' }]), { label: 'working', extractorOf: byProject, scope: 'full' }) };
    const p = plan({ ...changes, created: changes.created.map((f) => ({ ...f, contentHash: 'h:src/A/Retry.cs:1' })) }, s, byProject);
    expect(summary(p)).toMatchObject({ parse: ['src/B/Retry.cs (moved (extracted otherwise at the new path))'], moves: [], remove: ['src/A/Retry.cs'] });
  });

  it('a move whose old version another label still holds is parsed at its new path (the old version stays for that label)', () => {
    const { plan: p } = planScan([stored('src/retry.ts', 5)], [{ ...src('src/retrying.ts', 1), contentHash: 'h:src/retry.ts:1' }], { holders: { 5: 2 } });
    expect(summary(p)).toEqual({
      parse: ['src/retrying.ts (moved (another label holds the old version))'],
      reuse: [],
      touch: [],
      moves: [],
      remove: [],
      semantic: ['moved (another label holds the old version): src/retrying.ts'],
    });
  });

  it('content another label already indexed is reused, not parsed; the same content with a new mtime is only touched', () => {
    const { plan: p } = planScan([stored('src/a.ts', 1), stored('src/b.ts', 2)], [src('src/a.ts', 1), src('src/b.ts', 9), src('src/c.ts', 3)], {
      versions: { 'src/b.ts\u0000h:src/b.ts:9': 40, 'src/c.ts\u0000h:src/c.ts:3': 41 },
    });
    expect(summary(p)).toEqual({ parse: [], reuse: ['src/b.ts', 'src/c.ts'], touch: ['src/a.ts'], moves: [], remove: [], semantic: [] });
    expect(p.reuse.map((r) => r.fileId)).toEqual([40, 41]);
  });

  it('one batch that creates, modifies and deletes paths (a file replaced by a directory of the same stem): creates and changes land before deletes', () => {
    const { changes, plan: p } = planScan(
      [stored('src/util.ts', 1), stored('src/main.ts', 2), stored('src/old.ts', 3)],
      [src('src/util/index.ts', 1), src('src/main.ts', 2)].map((f) => (f.path === 'src/util/index.ts' ? { ...f, contentHash: 'h:new-util' } : f)),
    );
    expect([changes.created.map((f) => f.path), changes.modified.map((f) => f.path), changes.deleted]).toEqual([['src/util/index.ts'], ['src/main.ts'], ['src/old.ts', 'src/util.ts']]);
    expect(summary(p)).toEqual({
      parse: ['src/main.ts (modified)', 'src/util/index.ts (created)'],
      reuse: [],
      touch: [],
      moves: [],
      remove: ['src/old.ts', 'src/util.ts'],
      semantic: ['file changed: src/main.ts', 'new file: src/util/index.ts'],
    });
  });

  it('watcher paths: only what was looked at can be deleted; a path looked at and now ignored leaves the label', () => {
    const s = state([stored('src/a.ts', 1), stored('src/b.ts', 2), stored('gen/c.ts', 3)]);
    const changes = detectChanges(s.files(), listing([src('src/a.ts', 2)]), { label: 'working', extractorOf: extractor, scope: 'paths', looked: ['src/a.ts', 'gen'] });
    expect([changes.modified.map((f) => f.path), changes.deleted]).toEqual([['src/a.ts'], ['gen/c.ts']]);
  });

  it('an extractor upgrade re-parses unchanged content', () => {
    const s = state([stored('src/a.ts', 1, 1, { extractor: 'syntactic:ts@0' })]);
    const changes = detectChanges(s.files(), listing([{ ...src('src/a.ts', 1), mtimeMs: 1000 }]), { label: 'working', extractorOf: extractor, scope: 'full' });
    expect(summary(plan(changes, s, extractor)).parse).toEqual(['src/a.ts (extractor changed)']);
  });
});

describe('semantic-context changes (the second invalidation class)', () => {
  // packages/web/tsconfig.json extends config/base.json; web has two files, core one, plus a C# project.
  const files = [
    { id: 1, path: 'packages/web/src/App.tsx', language: 'ts', project: '@mono/web' },
    { id: 2, path: 'packages/web/src/util.ts', language: 'ts', project: '@mono/web' },
    { id: 3, path: 'packages/core/src/money.ts', language: 'ts', project: '@mono/core' },
    { id: 4, path: 'cs/App/Program.cs', language: 'cs', project: 'cs/App/App.csproj' },
  ];
  const facts = (base: string, web: string): ContextFacts => ({
    'config/base.json': { size: 1, mtimeMs: 1, hash: base, extends: [], reach: { dirs: [] } },
    'packages/web/tsconfig.json': { size: 1, mtimeMs: 1, hash: web, extends: ['../../config/base.json'], reach: { dirs: [] } },
    'packages/core/tsconfig.json': { size: 1, mtimeMs: 1, hash: 'c1', extends: [], reach: { dirs: [] } },
    'cs/App/App.csproj': { size: 1, mtimeMs: 1, hash: 'p1', imports: [], refs: [] },
  });
  const scan = (next: ContextFacts): ContextScan => ({ facts: next, packageDirs: new Map(), tracked: new Map() });
  const scopes = (previous: ContextFacts, next: ContextFacts) =>
    contextScopes(diffContext(previous, next), scan(next), previous, { files, importersOf: () => new Set() }).map((s) => [s.path, s.change, s.files.map((f) => f.id)]);

  it('a changed base config re-analyses the projects extending it (web: 1, 2), not core or C#', () => {
    expect(scopes(facts('b1', 'w1'), facts('b2', 'w1'))).toEqual([['config/base.json', 'changed', [1, 2]]]);
  });

  it('a config change and a file change in one batch: both scopes, each with its reason', () => {
    expect(scopes(facts('b1', 'w1'), facts('b1', 'w2'))).toEqual([['packages/web/tsconfig.json', 'changed', [1, 2]]]);
    // The file change is the plan's own scope (same batch).
    const { plan: p } = planScan([stored('packages/core/src/money.ts', 3)], [src('packages/core/src/money.ts', 2)]);
    expect(p.semantic).toEqual([{ reason: 'file changed', paths: ['packages/core/src/money.ts'] }]);
  });

  it('a .csproj edit re-analyses its project only', () => {
    const before = facts('b1', 'w1');
    const after = { ...before, 'cs/App/App.csproj': { ...before['cs/App/App.csproj']!, hash: 'p2' } };
    expect(scopes(before, after)).toEqual([['cs/App/App.csproj', 'changed', [4]]]);
  });
});

describe('export surface (decision 022): what importers of a module may resolve differently', () => {
  const barrel = "import { x } from './x';\nexport * from './UserCard';\nexport { Button } from './Button';\nexport function f() {\n  return 1;\n}\n";
  it('changes with a re-export, an export or a top-level declaration line, not with a body or an import', () => {
    expect(exportSurfaceChanged(barrel, barrel.replace("export * from './UserCard';\n", ''))).toBe(true);
    expect(exportSurfaceChanged(barrel, `${barrel}export * from './Other';\n`)).toBe(true);
    expect(exportSurfaceChanged(barrel, barrel.replace('function f()', 'function g()'))).toBe(true);
    expect(exportSurfaceChanged(barrel, barrel.replace('return 1;', 'return 2;'))).toBe(false);
    expect(exportSurfaceChanged(barrel, barrel.replace("import { x } from './x';", "import { x, y } from './x';"))).toBe(false);
  });
});
