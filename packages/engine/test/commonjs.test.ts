/**
 * Callers of CommonJS exports (fixtures/commonjs): every export form that defines a function or
 * class in place is a symbol, and `lib/use.js`'s calls reach it — exactly through the TypeScript
 * pass (JavaScript files are analysed), approximately through the syntactic pass where a binding
 * names the module. Lines are lib/use.js's: area(1) is line 7 … new Shape() line 14.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { copyFixture, REPO_ROOT } from './helpers.js';

const EXPORTS = ['inc', 'twice', 'area', 'perimeter', 'square', 'local', 'makeThing', 'Shape'] as const;

async function callersOf(semantic: boolean): Promise<Record<string, string[]>> {
  const repo = copyFixture(join(REPO_ROOT, 'fixtures', 'commonjs'));
  const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: semantic }, embedding: { enabled: false } } });
  try {
    await engine.index();
    const out: Record<string, string[]> = {};
    for (const name of EXPORTS) {
      const r = engine.navigate('callers', name);
      out[`${r.symbol.path} ${name}`] = r.edges.map((e) => `${e.path}:${e.line} ${e.confidence}`);
    }
    return out;
  } finally {
    engine.close();
  }
}

describe('callers of CommonJS exports', () => {
  it('the TypeScript pass resolves every call exactly, including require(…).f() and renamed exports', async () => {
    expect(await callersOf(true)).toEqual({
      'lib/props.js inc': ['lib/use.js:10 exact'],
      'lib/props.js twice': ['lib/use.js:11 exact'],
      'lib/obj.js area': ['lib/use.js:7 exact'],
      'lib/obj.js perimeter': ['lib/use.js:9 exact'],
      'lib/obj.js square': ['lib/use.js:8 exact'],
      // `perimeter` calls local (obj.js:14); use.js calls it as `renamed` (line 13).
      'lib/obj.js local': ['lib/obj.js:14 exact', 'lib/use.js:13 exact'],
      'lib/Fn.js makeThing': ['lib/use.js:12 exact'],
      'lib/Cls.js Shape': ['lib/use.js:14 exact'],
    });
  });

  it('syntactically: destructured names, namespace members and a called module reach the export approximately', async () => {
    expect(await callersOf(false)).toEqual({
      // `require('./props').inc(4)` binds no name: not reached without the TypeScript pass.
      'lib/props.js inc': [],
      'lib/props.js twice': [],
      'lib/obj.js area': ['lib/use.js:7 approximate'],
      'lib/obj.js perimeter': ['lib/use.js:9 approximate'],
      'lib/obj.js square': ['lib/use.js:8 approximate'],
      // The export name `renamed` is not a symbol (the local is): use.js:13 is not reached.
      'lib/obj.js local': ['lib/obj.js:14 approximate'],
      'lib/Fn.js makeThing': ['lib/use.js:12 approximate'],
      'lib/Cls.js Shape': ['lib/use.js:14 approximate'],
    });
  });
});
