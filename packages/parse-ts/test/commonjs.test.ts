/**
 * CommonJS exports that define functions and classes in place become symbols (commonjs.ts): one
 * hand-written module per form, the exact node list of each (kind, qualified name, lines,
 * modifiers, public flag) and the call edges of a module that requires them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { edgeRows, parseText } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/commonjs/', import.meta.url));
const COMMONJS_FILES: Record<string, string> = Object.fromEntries(
  ['lib/props.js', 'lib/obj.js', 'lib/Fn.js', 'lib/Cls.js', 'lib/use.js'].map((p) => [p, readFileSync(FIXTURE + p, 'utf8')]),
);

/** `kind qualifiedName start-end [modifiers] public?` rows. */
async function rows(path: string): Promise<string[]> {
  const index = await parseText(path, COMMONJS_FILES[path]!);
  return index.nodes.map((n) => `${n.kind} ${n.qualifiedName} ${n.span.startLine}-${n.span.endLine} [${n.modifiers.join(',')}]${n.isPublicApi ? ' public' : ''}`);
}

describe('CommonJS exports as symbols', () => {
  it('module.exports.x = function and exports.y = arrow: a function per export, spanning its statement', async () => {
    // props.js: helper is lines 3-5 (not exported); the JSDoc is line 7, `module.exports.inc = function`
    // lines 8-10; `exports.twice = (n) => …` is line 12.
    expect(await rows('lib/props.js')).toEqual([
      'file lib/props.js 1-12 []',
      'function helper 3-5 []',
      'function inc 8-10 [export] public',
      'function twice 12-12 [export] public',
    ]);
    const index = await parseText('lib/props.js', COMMONJS_FILES['lib/props.js']!);
    const inc = index.nodes.find((n) => n.name === 'inc')!;
    expect([inc.doc, inc.signature, inc.parameterCount]).toEqual(['Adds one.', 'module.exports.inc = function (n)', 1]);
    expect(index.exports).toEqual(['inc', 'twice']);
    // The bodies' calls belong to the new symbols.
    expect(edgeRows(index)).toEqual(['calls inc -> helper local:helper approximate L9', 'calls twice -> helper local:helper approximate L12']);
  });

  it('module.exports = { … }: a function per member whose value is a function; shorthand and renamed locals stay one symbol each', async () => {
    // obj.js: helper 1-3 and local 5-7 are exported through `helper,` and `renamed: local` (no
    // second symbol); area 10-12 (`area: function`), perimeter 13-15 (method), square 16 (arrow).
    expect(await rows('lib/obj.js')).toEqual([
      'file lib/obj.js 1-19 []',
      'function helper 1-3 [export] public',
      'function local 5-7 [export] public',
      'function area 10-12 [export] public',
      'function perimeter 13-15 [export] public',
      'function square 16-16 [export] public',
    ]);
    const index = await parseText('lib/obj.js', COMMONJS_FILES['lib/obj.js']!);
    expect([...index.exports].sort()).toEqual(['area', 'default', 'helper', 'perimeter', 'renamed', 'square']);
  });

  it('module.exports = function name() / = class X: the default export, named by the value', async () => {
    expect(await rows('lib/Fn.js')).toEqual(['file lib/Fn.js 1-3 []', 'function makeThing 1-3 [export,default] public']);
    expect(await rows('lib/Cls.js')).toEqual(['file lib/Cls.js 1-5 []', 'class Shape 1-5 [export,default] public', 'method Shape.area 2-4 [] public']);
  });

  it('a module that requires them: destructured names, a namespace member, a called module (its default export)', async () => {
    const index = await parseText('lib/use.js', COMMONJS_FILES['lib/use.js']!);
    // use.js lines 7-14 inside main: area(1) … new Shape(). `require('./props').inc(4)` has no
    // binding to follow syntactically (the name only; the TypeScript pass resolves it).
    expect(edgeRows(index).filter((r) => r.startsWith('calls'))).toEqual([
      'calls main -> area mod:lib/obj#area approximate L7',
      'calls main -> square mod:lib/obj#square approximate L8',
      'calls main -> obj.perimeter mod:lib/obj#perimeter approximate L9',
      'calls main -> inc approximate L10',
      'calls main -> twice approximate L11',
      'calls main -> makeThing mod:lib/Fn#default approximate L12',
      'calls main -> renamed mod:lib/obj#renamed approximate L13',
      'calls main -> Shape mod:lib/Cls#default approximate L14',
    ]);
  });
});
