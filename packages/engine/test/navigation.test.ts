import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '@ca/schema';
import { Engine, renderNavigationGraph, WORKING_LABEL } from '../src/index.js';
import { gapFilesThatMatter, navigate } from '../src/navigation.js';
import { copyFixture, TS_APP, tempDir } from './helpers.js';

// Of the 10 syntactic-only files, only src/auth/authService.ts spells `issueToken`.
const GAP_TS = {
  scope: 'project ts-app-fixture (ts)',
  reason: 'syntactic only (1 file): no semantic pass has run; call/reference edges there are approximate (name-matched) and may be missing or wrong',
};

describe('navigation over the syntactic graph (fixtures/ts-app)', () => {
  let engine: Engine;
  beforeAll(async () => {
    // The semantic pass is off here: these tests pin the syntactic (approximate) graph.
    engine = Engine.open(copyFixture(TS_APP), { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  });
  afterAll(() => engine.close());

  const names = (ids: (string | null)[]) => ids.map((id) => (id === null ? null : engine.reader().nodeById(Number(id))!.qualifiedName));

  it('callers: exact set with confidence, and an honest completeness report', () => {
    const r = engine.navigate('callers', 'AuthService.issueToken');
    expect(r.edges.map((e) => [names([e.from])[0], e.type, e.confidence, e.line])).toEqual([
      ['AuthService.login', 'calls', 'approximate', 32],
      ['AuthService.refresh', 'calls', 'approximate', 46],
    ]);
    expect(r.complete).toBe(false);
    expect(r.gaps).toEqual([GAP_TS]);
    expect(r.symbol.qualifiedName).toBe('AuthService.issueToken');
  });

  it('callees include unresolved names, marked as such', () => {
    const r = engine.navigate('callees', 'AuthService.login');
    expect(r.edges.map((e) => [e.to === null ? null : names([e.to])[0], e.targetName, e.line])).toEqual([
      [null, 'this.failedAttempts.get', 23],
      [null, 'Error', 25],
      ['AuthService.checkPassword', 'checkPassword', 27],
      [null, 'this.failedAttempts.set', 28],
      [null, 'Error', 29],
      [null, 'this.failedAttempts.delete', 31],
      ['AuthService.issueToken', 'issueToken', 32],
      [null, 'this.store.save', 33],
    ]);
  });

  it('impls: implementing classes of an interface, and same-named members of implementations', () => {
    const types = engine.navigate('impls', 'TokenStore');
    expect(types.edges.map((e) => [names([e.from])[0], e.type, e.confidence])).toEqual([['MemoryTokenStore', 'implements', 'approximate']]);
    const members = engine.navigate('impls', 'TokenStore.save');
    expect(members.edges.map((e) => [names([e.from])[0], e.type, e.confidence])).toEqual([['MemoryTokenStore.save', 'implements', 'approximate']]);
  });

  it('impact groups transitive dependents by file with the connecting chain', () => {
    const r = engine.navigate('impact', 'MAX_LOGIN_ATTEMPTS', { depth: 3 });
    expect(r.byFile).toEqual([
      {
        path: 'src/auth/authService.ts',
        symbols: [
          { id: expect.any(String), qualifiedName: 'src/auth/authService.ts', kind: 'file', line: 1, depth: 1, via: ['MAX_LOGIN_ATTEMPTS'] },
          { id: expect.any(String), qualifiedName: 'AuthService.login', kind: 'method', line: 22, depth: 1, via: ['MAX_LOGIN_ATTEMPTS'] },
        ],
      },
    ]);
  });

  it('deps of a file, drawn as mermaid', () => {
    const r = engine.navigate('deps', 'src/components/UserCard.tsx');
    const text = renderNavigationGraph(r, 'mermaid');
    expect(text.split('\n')[0]).toBe('flowchart LR');
    expect(text).toContain('["Button"]');
    expect(text).toContain('-->|imports| n');
    expect(r.edges.filter((e) => e.type === 'imports').map((e) => e.targetName).sort()).toEqual(['Button', 'React', 'truncate']);
  });

  it('rejects a depth over the cap and a bad depth', () => {
    expect(() => engine.navigate('callers', 'AuthService.issueToken', { depth: 21 })).toThrowError(/over the configured cap graph.max_depth \(20\)/);
    expect(() => engine.navigate('callers', 'AuthService.issueToken', { depth: 0 })).toThrowError(expect.objectContaining({ code: 'usage' }));
    expect(() => engine.navigate('callers', 'AuthService.activeUser')).toThrowError(expect.objectContaining({ code: 'ambiguous_symbol' }));
    expect(engine.navigate('refs', 'AuthService.activeUser', { all: true }).symbol.qualifiedName).toBe('AuthService.activeUser');
  });
});

describe('cycle guard', () => {
  it('mutual recursion terminates at any depth and each node is listed once', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    writeFileSync(
      join(repo, 'src/ping.ts'),
      'export function ping(n: number): number {\n  return n <= 0 ? 0 : pong(n - 1);\n}\n\nexport function pong(n: number): number {\n  return n <= 0 ? 0 : ping(n - 1);\n}\n\nexport function start(): number {\n  return ping(10);\n}\n',
    );
    const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      await engine.index();
      const r = engine.navigate('callers', 'ping', { depth: 20 });
      expect(r.nodes.map((n) => [n.qualifiedName, n.depth])).toEqual([
        ['pong', 1],
        ['start', 1],
      ]);
      // pong→ping (6), start→ping (10), and the cycle edge ping→pong (2) that closes the loop at depth 2.
      expect(r.edges.map((e) => [e.line])).toEqual([[2], [6], [10]]);
    } finally {
      engine.close();
    }
  });
});

describe('product code before test code', () => {
  it('callers, nodes and impact files list non-test paths first at each depth', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    mkdirSync(join(repo, 'src/__tests__'));
    // Paths chosen so that alphabetical order would put the tests first ("src/__tests__" < "src/app.ts").
    writeFileSync(join(repo, 'src/math.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFileSync(join(repo, 'src/__tests__/math.test.ts'), "import { add } from '../math';\n\nexport function checkAdd(): boolean {\n  return add(1, 2) === 3;\n}\n");
    writeFileSync(join(repo, 'src/app.ts'), "import { add } from './math';\n\nexport function total(): number {\n  return add(2, 3);\n}\n");
    const engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    try {
      await engine.index();
      const r = engine.navigate('callers', 'add');
      expect(r.edges.map((e) => [e.path, e.line])).toEqual([
        ['src/app.ts', 4],
        ['src/__tests__/math.test.ts', 4],
      ]);
      expect(r.nodes.map((n) => n.qualifiedName)).toEqual(['total', 'checkAdd']);
      const impact = engine.navigate('impact', 'add');
      expect(impact.byFile!.map((f) => f.path)).toEqual(['src/app.ts', 'src/__tests__/math.test.ts']);
    } finally {
      engine.close();
    }
  });
});

describe('impact node cap', () => {
  // base ← one, two (core.ts:5, :8); one ← app.ts (import, app.ts:1), run (app.ts:4), three (core.ts:11); two ← three (core.ts:11).
  let engine: Engine;
  beforeAll(async () => {
    const repo = tempDir();
    mkdirSync(join(repo, 'src'));
    writeFileSync(
      join(repo, 'src/core.ts'),
      'export function base(): number {\n  return 1;\n}\nexport function one(): number {\n  return base() + 1;\n}\nexport function two(): number {\n  return base() + 2;\n}\nexport function three(): number {\n  return one() + two();\n}\n',
    );
    writeFileSync(join(repo, 'src/app.ts'), "import { one } from './core';\n\nexport function run(): number {\n  return one();\n}\n");
    engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  });
  afterAll(() => engine.close());

  const depths = (r: { nodes: readonly { qualifiedName: string; depth: number }[] }) => r.nodes.map((n) => [n.qualifiedName, n.depth]);

  it('under the cap the answer is whole, exactly counted, files ranked nearest first', () => {
    const r = engine.navigate('impact', 'base', { depth: 5 });
    expect(depths(r)).toEqual([
      ['one', 1],
      ['two', 1],
      ['src/app.ts', 2],
      ['run', 2],
      ['three', 2],
    ]);
    expect([r.truncated, r.totalReached, r.totalReachedExact, r.maxNodes]).toEqual([false, 5, true, 1000]);
    // core.ts (nearest depth 1) before app.ts (depth 2), although app.ts sorts first by name.
    expect(r.byFile!.map((f) => [f.path, f.symbols.map((s) => [s.qualifiedName, s.depth, s.via.join(' → ')])])).toEqual([
      [
        'src/core.ts',
        [
          ['one', 1, 'base'],
          ['two', 1, 'base'],
          ['three', 2, 'one → base'],
        ],
      ],
      [
        'src/app.ts',
        [
          ['src/app.ts', 2, 'one → base'],
          ['run', 2, 'one → base'],
        ],
      ],
    ]);
  });

  it('the cap keeps the nearest dependents in BFS order and says it cut', () => {
    const r = engine.navigate('impact', 'base', { depth: 5, maxNodes: 3 });
    // Level 1 (one, two) fits; level 2 is taken in use-site order: app.ts:1 (the import) is kept, run and three are dropped.
    expect(depths(r)).toEqual([
      ['one', 1],
      ['two', 1],
      ['src/app.ts', 2],
    ]);
    expect(r.edges.map((e) => [e.path, e.line, e.type])).toEqual([
      ['src/app.ts', 1, 'imports'],
      ['src/core.ts', 5, 'calls'],
      ['src/core.ts', 8, 'calls'],
    ]);
    expect([r.truncated, r.complete, r.totalReached, r.totalReachedExact, r.maxNodes]).toEqual([true, false, 5, false, 3]);
    expect(r.byFile!.map((f) => [f.path, f.symbols.map((s) => s.qualifiedName)])).toEqual([
      ['src/core.ts', ['one', 'two']],
      ['src/app.ts', ['src/app.ts']],
    ]);
  });

  it('the cap comes from graph.impact_max_nodes; other navigations keep the 50,000 guard unless asked', () => {
    const seed = engine.reader().bySuffix('base');
    const r = navigate(engine.store.graph, engine.reader(), WORKING_LABEL, 'impact', seed, { depth: 5 }, { max_depth: 20, impact_max_nodes: 2 });
    expect([depths(r), r.truncated, r.totalReached, r.maxNodes]).toEqual([
      [
        ['one', 1],
        ['two', 1],
      ],
      true,
      5,
      2,
    ]);
    expect(defaultConfig().graph.impact_max_nodes).toBe(1000);
    expect(engine.navigate('callers', 'base').maxNodes).toBe(50_000);
    const capped = engine.navigate('callers', 'base', { maxNodes: 1 });
    expect([depths(capped), capped.truncated, capped.totalReached]).toEqual([[['one', 1]], true, 2]);
    expect(() => engine.navigate('impact', 'base', { maxNodes: 0 })).toThrowError(expect.objectContaining({ code: 'usage', message: expect.stringMatching(/--max-nodes must be a positive integer/) }));
  });
});

describe('gapFilesThatMatter: which files without exact edges leave an answer incomplete', () => {
  const file = (path: string, language = 'ts') => ({ path, project: 'p', language, state: 'failed', reason: 'r' });
  const node = (name: string, path: string, kind = 'method', language = 'ts') => ({ name, kind, language, path });
  const texts: Record<string, string> = {
    'src/history.ts': 'export class History {\n  undo() {}\n}\n',
    'src/a.ts': 'import { History } from "./history";\nnew History().undo();\n',
    'src/b.ts': 'export const undone = 1; // undo_all is another word\n',
    'src/c.ts': 'const $undo = 2;\n',
    'src/button.tsx': 'export default function Button() { return null; }\n',
    'src/Obsolete.cs': 'class ObsoleteAttribute : System.Attribute {}\n',
    'src/Use.cs': '[Obsolete] class Old {}\n',
  };
  const indexedText = (path: string) => texts[path] ?? null;
  const gapPaths = (...args: Parameters<typeof gapFilesThatMatter>) => gapFilesThatMatter(...args).map((f) => f.path);
  const files = [file('src/a.ts'), file('src/b.ts'), file('src/c.ts'), file('src/gone.ts')];

  it('walking in, a file counts when it spells an expanded name as a whole word, or cannot be read as indexed', () => {
    // b.ts has `undone` and `undo_all`, c.ts `$undo`: other identifiers. gone.ts is unreadable: it stays.
    expect(gapPaths(files, 'in', [node('undo', 'src/history.ts')], indexedText)).toEqual(['src/a.ts', 'src/gone.ts']);
    expect(gapPaths(files, 'in', [node('undone', 'src/history.ts')], indexedText)).toEqual(['src/b.ts', 'src/gone.ts']);
    expect(gapPaths(files, 'in', [node('History', 'src/history.ts', 'class'), node('redo', 'src/history.ts')], indexedText)).toEqual(['src/a.ts', 'src/gone.ts']);
  });

  it('walking in, every file counts where a use need not spell the name', () => {
    const all = files.map((f) => f.path);
    expect(gapPaths(files, 'in', [node('Button', 'src/button.tsx', 'component')], indexedText)).toEqual(all); // default export: imported under any name
    expect(gapPaths(files, 'in', [node('constructor', 'src/history.ts', 'constructor')], indexedText)).toEqual(all);
    expect(gapPaths(files, 'in', [node('toString', 'src/history.ts')], indexedText)).toEqual(all);
    expect(gapPaths(files, 'in', [node('src/history.ts', 'src/history.ts', 'file')], indexedText)).toEqual(all);
    expect(gapPaths(files, 'in', [node('undo', 'src/missing.ts')], indexedText)).toEqual(all); // its own file unreadable
    expect(gapPaths(files, 'in', [node('undo', 'src/history.ts')], undefined)).toEqual(all); // no text to read
  });

  it('names given at an import or re-export count too, through renames of renames', () => {
    const more: Record<string, string> = {
      ...texts,
      'src/barrel.ts': 'export { History as Hist } from "./history";\n',
      'src/barrel2.ts': 'import { Hist } from "./barrel";\nexport { Hist as H2 };\n',
      'src/d.ts': 'import { H2 } from "./barrel2";\nnew H2();\n',
      'src/e.ts': 'export { History as default } from "./history";\n',
      'src/Aliases.cs': 'global using Hy = Acme.History;\n',
      'src/F.cs': 'class F { Hy h; }\n',
    };
    const read = (path: string) => more[path] ?? null;
    const gaps = [file('src/a.ts'), file('src/b.ts'), file('src/d.ts'), file('src/F.cs', 'cs')];
    const history = [node('History', 'src/history.ts', 'class')];
    expect(gapPaths(gaps, 'in', history, read, ['src/barrel.ts', 'src/barrel2.ts'])).toEqual(['src/a.ts', 'src/d.ts']);
    expect(gapPaths(gaps, 'in', history, read, ['src/barrel.ts', 'src/e.ts'])).toEqual(gaps.map((f) => f.path)); // re-exported as default
    expect(gapPaths(gaps, 'in', history, read, ['src/gone.ts'])).toEqual(gaps.map((f) => f.path)); // an importer unreadable
    expect(gapPaths(gaps, 'in', [node('History', 'src/History.cs', 'class', 'cs')], read, ['src/Aliases.cs'])).toEqual(['src/a.ts', 'src/F.cs']);
  });

  it('a C# attribute class is spelled without its suffix', () => {
    const cs = [file('src/Use.cs', 'cs'), file('src/Obsolete.cs', 'cs')];
    expect(gapPaths(cs, 'in', [node('ObsoleteAttribute', 'src/Obsolete.cs', 'class', 'cs')], indexedText)).toEqual(['src/Use.cs', 'src/Obsolete.cs']);
    expect(gapPaths(cs, 'in', [node('Old', 'src/Use.cs', 'class', 'cs')], indexedText)).toEqual(['src/Use.cs']);
  });

  it('walking out, only the expanded symbols own files count', () => {
    expect(gapPaths(files, 'out', [node('run', 'src/c.ts', 'function')], undefined)).toEqual(['src/c.ts']);
    expect(gapPaths(files, 'out', [node('run', 'src/ok.ts', 'function')], undefined)).toEqual([]);
  });
});

describe('gaps across TS and JS (semantic pass on)', () => {
  let engine: Engine;
  beforeAll(async () => {
    const repo = tempDir();
    const write = (path: string, text: string) => {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      writeFileSync(join(repo, path), text);
    };
    write('tsconfig.json', '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n');
    write('src/greeter.ts', 'export class Greeter {\n  greet(): string {\n    return "hi";\n  }\n}\nexport class Other {\n  greet(): string {\n    return "yo";\n  }\n}\n');
    write('src/use.ts', 'import { Greeter } from "./greeter";\nexport const said = new Greeter().greet();\n');
    // A JS project whose config cannot load: its files keep only syntactic edges.
    write('legacy/jsconfig.json', '{ "extends": "./missing.json" }\n');
    write('legacy/run.js', 'export function run(g) {\n  return g.greet();\n}\n');
    write('legacy/other.js', 'export const x = 1;\n');
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
    await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  it('a failed JS file that spells a TS member name leaves the answer about that member incomplete', () => {
    const r = engine.navigate('callers', 'Greeter.greet');
    // `g.greet()` in run.js names two members: no edge either way, so only the gap tells.
    expect(r.edges.map((e) => [e.path, e.line, e.confidence])).toEqual([['src/use.ts', 2, 'exact']]);
    expect([r.complete, r.gaps.length, r.gaps[0]!.reason.split(':')[0]]).toEqual([false, 1, 'semantic pass failed (1 file)']);
    // No legacy file spells `said`.
    expect([engine.navigate('refs', 'said').complete, engine.navigate('refs', 'said').gaps]).toEqual([true, []]);
  });
});
