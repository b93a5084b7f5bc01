import { describe, expect, it } from 'vitest';
import type { ExtractedNode } from '@ca/schema';
import { carriedLines, changedFileNames, changedNames, chunkLines, identifiersOf, normalizedChunk, planNodes, semanticRegion, type PreviousNode } from '../src/index.js';
import { extractedNode } from './helpers.js';

// A class of 12 lines (1–12) whose method `a` has a 3-line body (lines 2–4) and `b` a 4-line one
// (lines 6–9); the class's own text is line 1, line 5 (`count = 0;`), lines 10–12.
const CLASS_V1 = ['class C extends Base {', '  a() { /* 3 lines collapsed */ }', '  count = 0;', '  b() { /* 4 lines collapsed */ }', '  static x = helper();', '}'].join('\n');
// The same own text after `a` grew by two lines: everything after `a`'s body moves down by 2.
const CLASS_V2 = CLASS_V1.replace('3 lines collapsed', '5 lines collapsed');

describe('chunk lines: where a symbol’s own text sits in its file', () => {
  it('maps each chunk line (and each segment after a collapse marker) to its source line', () => {
    expect(chunkLines(CLASS_V1, 1)).toEqual([[1], [2, 4], [5], [6, 9], [10], [11]]);
    expect(chunkLines(CLASS_V2, 1)).toEqual([[1], [2, 6], [7], [8, 11], [12], [13]]);
    expect(normalizedChunk(CLASS_V1)).toBe(normalizedChunk(CLASS_V2));
    expect(normalizedChunk('f() { /* 1 line collapsed */ }')).toBe('f() { /* collapsed */ }');
  });

  it('carries an unchanged text’s lines old → new; a changed own text carries nothing', () => {
    const lines = carriedLines({ chunkText: CLASS_V1, startLine: 1, endLine: 11 }, { chunkText: CLASS_V2, startLine: 1, endLine: 13 });
    expect(lines && [...lines]).toEqual([
      [1, 1],
      [2, 2],
      [4, 6],
      [5, 7],
      [6, 8],
      [9, 11],
      [10, 12],
      [11, 13],
    ]);
    // The whole class moved down 30 lines, nothing else changed: a plain shift.
    const moved = carriedLines({ chunkText: CLASS_V1, startLine: 1, endLine: 11 }, { chunkText: CLASS_V1, startLine: 31, endLine: 41 });
    expect(moved && [...moved].map(([a, b]) => b - a)).toEqual([30, 30, 30, 30, 30, 30, 30, 30]);
    // `count = 0` became `count = 1`: own text changed.
    expect(carriedLines({ chunkText: CLASS_V1, startLine: 1, endLine: 11 }, { chunkText: CLASS_V1.replace('count = 0', 'count = 1'), startLine: 1, endLine: 11 })).toBe(null);
    // Lines that do not add up to the span (a marker-like comment in the code): nothing carried.
    expect(carriedLines({ chunkText: CLASS_V1, startLine: 1, endLine: 8 }, { chunkText: CLASS_V1, startLine: 1, endLine: 11 })).toBe(null);
  });

  it('leaves out a line that could map to two (text before and after a one-line body on it)', () => {
    const v1 = 'const x = wrap(() => { /* 1 line collapsed */ }, deps);';
    const v2 = 'const x = wrap(() => { /* 3 lines collapsed */ }, deps);';
    // Line 7 held both `wrap` and `deps`; now `wrap` is on 7 and `deps` on 9.
    expect([...carriedLines({ chunkText: v1, startLine: 7, endLine: 7 }, { chunkText: v2, startLine: 7, endLine: 9 })!]).toEqual([]);
  });
});

describe('changed names: what a change may have changed for the uses around it', () => {
  const leaf = (chunkText: string, signature = 'f()') => ({ kind: 'function', name: 'f', chunkText, signature });
  it('a new or removed symbol names itself; a file never does', () => {
    expect(changedNames(null, leaf('function f() {}'))).toEqual(['f']);
    expect(changedNames(leaf('function f() {}'), null)).toEqual(['f']);
    expect(changedNames(null, { kind: 'file', name: 'a.ts', chunkText: '', signature: 'a.ts' })).toEqual([]);
  });

  it('a changed header names the symbol; a body-only change (the matrix: "target body changed — none"), no change, or children that only moved name nothing', () => {
    expect(changedNames(leaf('function f(a) { return 1; }', 'f(a)'), leaf('function f(a, b) { return 1; }', 'f(a, b)'))).toEqual(['f']);
    expect(changedNames(leaf('function f() { return 1; }'), leaf('function f() { return "1"; }'))).toEqual([]);
    expect(changedNames(leaf('function f() { return 1; }'), leaf('function f() { return 1; }'))).toEqual([]);
    const cls = { kind: 'class', name: 'C', signature: 'class C extends Base' };
    expect(changedNames({ ...cls, chunkText: CLASS_V1 }, { ...cls, chunkText: CLASS_V2 })).toEqual([]);
  });

  it('a container names itself only when its header changed (its members speak for themselves)', () => {
    const cls = { kind: 'class', name: 'C' };
    const added = CLASS_V1.replace('  count = 0;', '  count = 0;\n  size = 1;');
    expect(changedNames({ ...cls, chunkText: CLASS_V1, signature: 'class C extends Base' }, { ...cls, chunkText: added, signature: 'class C extends Base' })).toEqual([]);
    expect(changedNames({ ...cls, chunkText: CLASS_V1, signature: 'class C extends Base' }, { ...cls, chunkText: CLASS_V1.replace('Base', 'Other'), signature: 'class C extends Other' })).toEqual(['C']);
  });

  it('a file names the identifiers of its import/export statements and top-level declaration lines that differ', () => {
    const file = (chunkText: string) => ({ kind: 'file', name: 'a.ts', chunkText, signature: 'src/a.ts' });
    const v1 = "import { a, b } from './x';\nimport {\n  c,\n  d,\n} from './y';\nfunction f() { /* 2 lines collapsed */ }\nconst { g } = make();";
    const v2 = "import { a } from './x';\nimport {\n  b,\n  c,\n  d,\n} from './y';\nfunction f() { /* 9 lines collapsed */ }\nconst { h } = make();";
    // Module specifiers and initialisers (`make()`) name nothing.
    expect(changedNames(file(v1), file(v2)).sort()).toEqual(['a', 'b', 'c', 'd', 'g', 'h']);
    // Imports matter to this file only; exports and declarations to every file.
    expect(changedFileNames(v1, v2)).toEqual({ imported: ['a', 'b', 'c', 'd'], exported: ['g', 'h'] });
    expect(changedFileNames("export const x = 1;\nexport { y } from './y';", "export const z = 1;\nexport { y, w } from './y';")).toEqual({ imported: [], exported: ['w', 'x', 'y', 'z'] });
    // Top-level code that binds nothing (a test file's calls) names nothing.
    const t1 = "import { it } from 'vitest';\ndescribe('x', () => {\n  it('y', () => expect(state.scene).toBe(1));\n});";
    expect(changedNames(file(t1), file(t1.replace('state.scene', 'other.value')))).toEqual([]);
    expect(identifiersOf('this.state["zoom"].value$ + 2')).toEqual(new Set(['this', 'state', 'zoom', 'value$']));
  });
});

describe('semantic region: which symbols of a re-parsed file the pass resolves again', () => {
  const n = (symbolKey: string, chunkText: string) => ({ symbolKey, chunkText });
  const nodes = [n('k#', 'import { f } from "./f";'), n('k#A', 'class A { /* … */ }'), n('k#A.run', 'run() { return f(1); }'), n('k#A.stop', 'stop() { return 0; }')];
  it('the symbols that did not carry, plus carried ones naming a dirty name; null when that is all of them', () => {
    expect(semanticRegion(nodes, new Set(['k#', 'k#A', 'k#A.run', 'k#A.stop']), new Set())).toEqual([]);
    expect(semanticRegion(nodes, new Set(['k#', 'k#A', 'k#A.run']), new Set())).toEqual(['k#A.stop']);
    // `f` changed elsewhere in the batch: `run` and the import line name it.
    expect(semanticRegion(nodes, new Set(['k#', 'k#A', 'k#A.run']), new Set(['f']))).toEqual(['k#', 'k#A.run', 'k#A.stop']);
    expect(semanticRegion(nodes, new Set(['k#A']), new Set(['f']))).toEqual(['k#', 'k#A.run', 'k#A.stop']);
    expect(semanticRegion(nodes, new Set(), new Set(['f']))).toEqual(null);
  });
});

describe('planNodes with carrying: which continued nodes keep their exact edges', () => {
  const node = (name: string, extra: Partial<ExtractedNode> = {}): ExtractedNode =>
    extractedNode(name, { kind: 'method', qualifiedName: `C.${name}`, symbolKey: `ts:file:src/c.ts#C.${name}`, parentLocalId: 'C', span: { startLine: 2, endLine: 4, startByte: 0, endByte: 10 }, chunkText: `${name}() {}`, ...extra });
  const prev = (id: number, name: string, extra: Partial<PreviousNode> = {}): PreviousNode => ({
    id,
    symbolKey: `ts:file:src/c.ts#C.${name}`,
    disambiguator: 0,
    kind: 'method',
    chunkHash: `c:${name}() {}`,
    otherSpans: 0,
    name,
    signature: `${name}()`,
    startLine: 2,
    endLine: 4,
    chunkText: `${name}() {}`,
    ...extra,
  });
  it('carries the class (children moved) and unchanged members with their lines; names the added and removed members', () => {
    const previous = [
      prev(1, 'C', { symbolKey: 'ts:file:src/c.ts#C', kind: 'class', chunkText: CLASS_V1, chunkHash: `c:${CLASS_V1}`, startLine: 1, endLine: 11, signature: 'class C extends Base' }),
      prev(2, 'a', { startLine: 2, endLine: 4, chunkText: 'a() {\n  one();\n}', chunkHash: 'c:a() {\n  one();\n}' }),
      prev(3, 'b', { startLine: 6, endLine: 9, chunkText: 'b() {\n\n\n}', chunkHash: 'c:b() {\n\n\n}' }),
      prev(4, 'gone', { startLine: 12, endLine: 12 }),
    ];
    const next = [
      node('C', { kind: 'class', symbolKey: 'ts:file:src/c.ts#C', parentLocalId: null, chunkText: CLASS_V2, span: { startLine: 1, endLine: 13, startByte: 0, endByte: 99 }, signature: 'class C extends Base' }),
      node('a', { chunkText: 'a() {\n  one();\n  two();\n\n}', span: { startLine: 2, endLine: 6, startByte: 0, endByte: 9 } }),
      node('b', { chunkText: 'b() {\n\n\n}', span: { startLine: 8, endLine: 11, startByte: 0, endByte: 9 } }),
      node('added'),
    ];
    const p = planNodes(previous, next, { path: 'src/c.ts', partialTarget: () => null, chunkHash: (t) => `c:${t}`, carry: true });
    expect(p.actions).toEqual([{ kind: 'update', id: 1, reembed: true }, { kind: 'update', id: 2, reembed: true }, { kind: 'update', id: 3, reembed: false }, { kind: 'insert' }]);
    expect(p.carry?.map((c) => [c.id, [...c.lines]])).toEqual([
      [1, [[1, 1], [2, 2], [4, 6], [5, 7], [6, 8], [9, 11], [10, 12], [11, 13]]],
      [3, [[6, 8], [7, 9], [8, 10], [9, 11]]],
    ]);
    // `a` changed its body only: not named.
    expect(p.dirtyNames).toEqual(['added', 'gone']);
    // Without `carry` the plan is what it was.
    expect(planNodes(previous, next, { path: 'src/c.ts', partialTarget: () => null, chunkHash: (t) => `c:${t}` }).carry).toBe(undefined);
  });
});
