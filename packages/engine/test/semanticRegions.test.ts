import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { dbOf, tempDir } from './helpers.js';

// Declaration-scoped invalidation (the invalidation matrix's first row, docs/architecture.md;
// decision 021): a re-parsed file keeps the exact edges of the symbols whose own text did not
// change; the TS pass resolves the rest.
const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler' }, include: ['src'] }),
  'src/base.ts': 'export class Base {\n  helper(): number {\n    return 1;\n  }\n}\n',
  'src/util.ts': 'export function one(): number {\n  return 1;\n}\n',
  'src/other.ts': 'export function one(): number {\n  return 11;\n}\n',
  // Lines: 1–2 imports; 4 class; 5–7 run; 9–11 stop; 13–15 idle.
  'src/app.ts': [
    "import { one } from './util';",
    "import { Base } from './base';",
    '',
    'export class App extends Base {',
    '  run(): number {',
    '    return one() + this.helper();',
    '  }',
    '',
    '  stop(): number {',
    '    return one();',
    '  }',
    '',
    '  idle(): number {',
    '    return 0;',
    '  }',
    '}',
    '',
  ].join('\n'),
};

let root: string;
let repo: string;
let engine: Engine;

function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** Every edge of the index as `path:line source -type/confidence-> target`, sorted. */
function edges(e: Engine): string[] {
  return (
    dbOf(e)
      .prepare(
        `SELECT f.path || ':' || e.line || ' ' || s.qualified_name || ' -' || e.type || '/' || e.confidence || '-> ' ||
                coalesce(tf.path || '#' || t.qualified_name, e.target_key) AS row
           FROM edges e JOIN nodes s ON s.id = e.source_id JOIN files f ON f.id = e.file_id
           LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id`,
      )
      .all() as { row: string }[]
  )
    .map((r) => r.row)
    .sort();
}

/** A clean index of the repository as it is now: what the incremental one must equal. */
async function cleanEdges(): Promise<string[]> {
  const copy = join(tempDir(), 'repo');
  cpSync(repo, copy, { recursive: true, filter: (p) => !p.includes('.codeagent') });
  const clean = Engine.open(copy, { env: {}, configOverrides: { embedding: { enabled: false } } });
  try {
    await clean.index();
    return edges(clean);
  } finally {
    clean.close();
  }
}

const app = () => readFileSync(join(repo, 'src/app.ts'), 'utf8');
const callees = (name: string) => engine.navigate('callees', name, { minConfidence: 'exact' }).edges.map((x) => `${engine.reader().nodeById(Number(x.to))!.qualifiedName}@${x.line}`);

beforeAll(async () => {
  root = tempDir();
  repo = join(root, 'repo');
  for (const [rel, text] of Object.entries(FILES)) write(repo, rel, text);
  engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false } } });
  await engine.index();
}, 120_000);
afterAll(() => engine.close());

describe('a re-parsed file keeps the exact edges of its unchanged symbols', () => {
  it('a body grown by two lines: only it is resolved again; the others’ edges move down two lines', async () => {
    expect(callees('App.stop')).toEqual(['one@10']);
    const stopEdge = dbOf(engine).prepare(`SELECT e.id FROM edges e JOIN nodes n ON n.id = e.source_id WHERE n.qualified_name = 'App.stop' AND e.extractor LIKE 'semantic:%'`).all();
    write(repo, 'src/app.ts', app().replace('    return one() + this.helper();', '    const a = one();\n    const b = this.helper();\n    return a + b;'));
    const r = await engine.index();
    // app.ts: file, App, run, stop, idle. `run`'s body changed (its header did not: nothing else
    // names a changed meaning); the class and the file carry with their lines remapped.
    expect(r.semantic?.ts?.regions).toEqual({ files: 1, symbolsAnalysed: 1, symbols: 5 });
    expect(callees('App.stop')).toEqual(['one@12']);
    expect(callees('App.run')).toEqual(['one@6', 'Base.helper@7']);
    // The carried edge is the same row, moved (not re-inserted).
    expect(dbOf(engine).prepare(`SELECT e.id FROM edges e JOIN nodes n ON n.id = e.source_id WHERE n.qualified_name = 'App.stop' AND e.extractor LIKE 'semantic:%'`).all()).toEqual(stopEdge);
    expect(edges(engine)).toEqual(await cleanEdges());
  }, 120_000);

  it('a method added under a name an unchanged method calls: that caller is resolved again (the call now reaches the override)', async () => {
    write(repo, 'src/app.ts', app().replace('  idle(): number {', '  helper(): number {\n    return 2;\n  }\n\n  idle(): number {'));
    const r = await engine.index();
    // `helper` is new: `run` (this.helper()) and `App` (its header list) name it.
    expect(r.semantic?.ts?.regions).toEqual({ files: 1, symbolsAnalysed: 3, symbols: 6 });
    expect(callees('App.run')).toEqual(['one@6', 'App.helper@7']);
    expect(edges(engine)).toEqual(await cleanEdges());
  }, 120_000);

  it('an import moved to another module: every symbol naming the imported binding is resolved again', async () => {
    write(repo, 'src/app.ts', app().replace("from './util'", "from './other'"));
    const r = await engine.index();
    // The file's own import line changed (`import`, `one`, `from`, `other`, `util`): the file,
    // `run` and `stop` name `one`; `App` and `idle` and `helper` keep their edges.
    expect(r.semantic?.ts?.regions).toEqual({ files: 1, symbolsAnalysed: 3, symbols: 6 });
    expect(engine.navigate('callees', 'App.stop', { minConfidence: 'exact' }).edges.map((x) => engine.reader().nodeById(Number(x.to))!.path)).toEqual(['src/other.ts']);
    expect(edges(engine)).toEqual(await cleanEdges());
  }, 120_000);

  it('a change of a symbol another changed file calls re-resolves the callers there; unchanged files keep theirs (source-driven)', async () => {
    // base.ts renames helper → assist; app.ts changes idle only. In app.ts (file, App, run, stop,
    // helper, idle): idle changed; run, App.helper and App name `helper`, which base.ts dropped;
    // stop and the file carry. In base.ts (file, Base, assist): Base's member list changed and
    // assist is new; the file carries.
    write(repo, 'src/base.ts', readFileSync(join(repo, 'src/base.ts'), 'utf8').replace('helper', 'assist'));
    write(repo, 'src/app.ts', app().replace('    return 0;', '    return 3;'));
    const r = await engine.index();
    expect(r.semantic?.ts?.regions).toEqual({ files: 2, symbolsAnalysed: 6, symbols: 9 });
    expect(callees('App.run')).toEqual(['one@6', 'App.helper@7']);
    expect(edges(engine)).toEqual(await cleanEdges());
  }, 120_000);

  it('a config change in the same run analyses every file it shapes whole: no region', async () => {
    write(repo, 'src/app.ts', app().replace('    return 3;', '    return 4;'));
    write(repo, 'tsconfig.json', JSON.stringify({ compilerOptions: { strict: false, target: 'es2022', module: 'esnext', moduleResolution: 'bundler' }, include: ['src'] }));
    const r = await engine.index();
    expect(r.contextChanges?.map((c) => c.path)).toEqual(['tsconfig.json']);
    expect(r.semantic?.ts?.regions).toBe(undefined);
    expect(r.semantic?.ts?.files).toBe(4);
    expect(edges(engine)).toEqual(await cleanEdges());
  }, 120_000);
});
