import { describe, expect, it } from 'vitest';
import { extractedNode as node } from './helpers.js';
import { detectChanges, plan, planNodes, renameCandidates, type PreviousNode, type StoredFile, type StoredState } from '../src/index.js';

// A move with an edit (decision 023): a created and a deleted path named as one file by
// `renames` (git's renames or similar contents) become one parse that continues the old nodes.

function stored(path: string, fileId: number, extra: Partial<StoredFile> = {}): StoredFile {
  return { path, fileId, contentHash: `h:${path}`, size: 100, mtimeMs: 1000, extractor: 'syntactic:ts@1', language: 'ts', parseStatus: 'ok', semanticState: 'ok', ...extra };
}

function state(files: StoredFile[], holders: Record<number, number> = {}): StoredState {
  const map = new Map(files.map((f) => [f.path, f]));
  return { label: 'working', files: () => map, version: () => null, holders: (id) => holders[id] ?? 1 };
}

const extractor = (path: string) => (path.endsWith('.cs') ? 'syntactic:cs@1' : 'syntactic:ts@1');

/** A full scan where `src/b.ts` (new content) replaced `src/a.ts`, and `src/keep.ts` is unchanged. */
function scan(files: StoredFile[], holders: Record<number, number> = {}, renames?: ReadonlyMap<string, string>, created = 'src/b.ts') {
  const s = state(files, holders);
  const listed = [
    { path: created, size: 90, mtimeMs: 2000, project: '', contentHash: 'h:new' },
    { path: 'src/keep.ts', size: 100, mtimeMs: 1000, project: '', contentHash: 'h:src/keep.ts' },
  ];
  const changes = detectChanges(s.files(), { files: listed, skipped: [], contextFiles: [] }, { label: 'working', extractorOf: extractor, scope: 'full' });
  return plan(changes, s, extractor, renames);
}

const summary = (p: ReturnType<typeof plan>) => ({
  parse: p.parse.map((x) => `${x.file.path} (${x.reason}) prev=${x.previousFileId} from=${x.movedFrom ?? '-'}`),
  remove: p.remove.map((r) => r.path),
  semantic: p.semantic.map((s) => `${s.reason}: ${s.paths.join(', ')}`),
});

describe('plan: a create and a delete named as one file moved and edited', () => {
  const files = [stored('src/a.ts', 7), stored('src/keep.ts', 8)];

  it('without renames: a plain create and delete, which renameCandidates offers for pairing', () => {
    const p = scan(files);
    expect(summary(p)).toEqual({ parse: ['src/b.ts (created) prev=null from=-'], remove: ['src/a.ts'], semantic: ['new file: src/b.ts'] });
    expect(renameCandidates(p)).toEqual({ created: [p.parse[0]!.file], deleted: ['src/a.ts'] });
  });

  it('paired: one parse continuing version 7 from src/a.ts, which no longer leaves the label on its own', () => {
    const p = scan(files, {}, new Map([['src/b.ts', 'src/a.ts']]));
    expect(summary(p)).toEqual({
      parse: ['src/b.ts (moved and edited) prev=7 from=src/a.ts'],
      remove: [],
      semantic: ['moved and edited: src/b.ts'],
    });
    expect(renameCandidates(p)).toEqual({ created: [], deleted: [] });
  });

  it('a pair is ignored when another label holds the old version, the extractors differ, the old file was skipped, or it was not deleted', () => {
    const plain = { parse: ['src/b.ts (created) prev=null from=-'], remove: ['src/a.ts'], semantic: ['new file: src/b.ts'] };
    expect(summary(scan(files, { 7: 2 }, new Map([['src/b.ts', 'src/a.ts']])))).toEqual(plain);
    expect(summary(scan([stored('src/a.ts', 7, { parseStatus: 'skipped' }), stored('src/keep.ts', 8)], {}, new Map([['src/b.ts', 'src/a.ts']])))).toEqual(plain);
    expect(summary(scan(files, {}, new Map([['src/B.cs', 'src/a.ts']]), 'src/B.cs'))).toEqual({
      parse: ['src/B.cs (created) prev=null from=-'],
      remove: ['src/a.ts'],
      semantic: ['new file: src/B.cs'],
    });
    // src/keep.ts is still in the source: not a deleted file, nothing to continue.
    expect(summary(scan(files, {}, new Map([['src/b.ts', 'src/keep.ts']])))).toEqual(plain);
  });
});

const prev = (id: number, name: string, chunk: string, extra: Partial<PreviousNode> = {}): PreviousNode => ({
  id,
  symbolKey: `ts:file:src/a.ts#${name}`,
  disambiguator: 0,
  kind: 'function',
  chunkHash: `c:${chunk}`,
  otherSpans: 0,
  chunkText: chunk,
  ...extra,
});
const at = (name: string, chunk: string, extra: Parameters<typeof node>[1] = {}) => node(name, { symbolKey: `ts:file:src/b.ts#${name}`, chunkText: chunk, ...extra });
const chunkHash = (text: string) => `c:${text}`;
const options = { path: 'src/b.ts', partialTarget: () => null, chunkHash, movedFrom: 'src/a.ts' };

describe('planNodes for a file moved and edited', () => {
  const total = 'function total(items) { let sum = 0; for (const item of items) sum += item.price * item.count; return sum; }';
  const render = 'function render(view) { const el = document.createElement("div"); el.textContent = view.title; return el; }';
  const file = prev(1, '', 'FILE v1', { kind: 'file', symbolKey: 'ts:file:src/a.ts#' });

  it('every node keeps its id under its moved key; only the edited chunk needs a vector; all are re-keyed', () => {
    const edited = render.replace('"div"', '"section"');
    const p = planNodes(
      [file, prev(2, 'total', total), prev(3, 'render', render)],
      [at('', 'FILE v2', { kind: 'file', symbolKey: 'ts:file:src/b.ts#' }), at('total', total), at('render', edited)],
      options,
    );
    // The file node's chunk (the whole file) changed too: 2 re-embedded.
    expect(p).toEqual({
      actions: [
        { kind: 'update', id: 1, reembed: true, rekey: true },
        { kind: 'update', id: 2, reembed: false, rekey: true },
        { kind: 'update', id: 3, reembed: true, rekey: true },
      ],
      drop: [],
      reembed: 2,
    });
  });

  it('a function renamed in the moved file keeps its id (same normalised tokens); an unrelated new one is inserted and the removed one dropped', () => {
    const renamed = total.replace('function total', 'function grandTotal');
    const p = planNodes([prev(2, 'total', total), prev(3, 'render', render)], [at('grandTotal', renamed), at('parse', 'function parse(s) { return JSON.parse(s); }')], options);
    expect(p).toEqual({
      actions: [{ kind: 'update', id: 2, reembed: true, rekey: true }, { kind: 'insert' }],
      drop: [{ id: 3, survives: false }],
      reembed: 2,
    });
  });

  it('two equally similar previous functions: the earlier one continues; a previous node of another kind never does', () => {
    const a = 'function a(x) { return x.map((y) => y * 2).filter((y) => y > 10); }';
    const p = planNodes(
      [prev(2, 'a', a), prev(3, 'b', a.replace('function a', 'function b')), prev(4, 'K', a, { kind: 'class' })],
      [at('c', a.replace('function a', 'function c'))],
      options,
    );
    expect(p.actions).toEqual([{ kind: 'update', id: 2, reembed: true, rekey: true }]);
    expect(p.drop).toEqual([
      { id: 3, survives: false },
      { id: 4, survives: false },
    ]);
  });

  it('without movedFrom (an edit in place): keys naming the old path match nothing, as before decision 023', () => {
    const { movedFrom: _m, ...inPlace } = options;
    const p = planNodes([prev(2, 'total', total)], [at('total', total)], inPlace);
    expect(p).toEqual({ actions: [{ kind: 'insert' }], drop: [{ id: 2, survives: false }], reembed: 1 });
  });
});
