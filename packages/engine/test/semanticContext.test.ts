import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverFiles, Engine } from '../src/index.js';
import { CONTEXT_READ_MAX_BYTES, parseJsonc, WorktreeSource } from '@ca/invalidation';
import { applyContextChanges } from '../src/indexer.js';
import { defaultConfig } from '@ca/schema';
import { copyFixture, dbOf, dotnetMissing, REPO_ROOT, tempDir } from './helpers.js';

const MONO = join(REPO_ROOT, 'fixtures', 'ts-monorepo');
const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = dotnetMissing() === null;

/**
 * label.ts line 3, `return String(parseMoney('1 EUR'));`, without a semantic resolution: two
 * approximate calls the syntactic pass cannot resolve (a global, an unmapped alias).
 */
const LINE_3_SYNTACTIC = [
  [null, 'calls', 'approximate', 3],
  [null, 'calls', 'approximate', 3],
];
const OFF = { embedding: { enabled: false } };

/**
 * fixtures/ts-monorepo plus packages/web/src/label.ts, which imports through an alias that
 * packages/web/tsconfig.json does not map yet, and a base config that packages/core extends
 * from outside its directory. TS/JS files by hand: core 8 (src/*.ts, src/payments/*.ts), web 7
 * (App, Button, PriceTag, components/index, index, react.d.ts, label).
 */
describe('a changed TS semantic context re-runs the semantic pass of the files it shapes', () => {
  let repo: string;
  let engine: Engine;
  const webConfig = () => join(repo, 'packages/web/tsconfig.json');
  const editJson = (path: string, edit: (json: Record<string, any>) => void) => {
    const json = parseJsonc(readFileSync(path, 'utf8')) as Record<string, any>;
    edit(json);
    writeFileSync(path, JSON.stringify(json, null, 2));
  };
  const labelCalls = (e: Engine) =>
    e
      .navigate('callees', 'label')
      .edges.map((x) => [e.reader().nodeById(Number(x.to))?.qualifiedName ?? null, x.type, x.confidence, x.line]);

  beforeAll(async () => {
    repo = copyFixture(MONO);
    writeFileSync(
      join(repo, 'packages/web/src/label.ts'),
      `import { parseMoney } from '@alias/money';\nexport function label(): string {\n  return String(parseMoney('1 EUR'));\n}\n`,
    );
    mkdirSync(join(repo, 'config'));
    writeFileSync(join(repo, 'config/tsconfig.base.json'), `{\n  // shared options\n  "compilerOptions": { "strict": true, },\n}\n`);
    editJson(join(repo, 'packages/core/tsconfig.json'), (j) => (j.extends = '../../config/tsconfig.base.json'));
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    const first = await engine.index();
    expect(first.contextChanges).toBeUndefined();
  }, 120_000);
  afterAll(() => engine.close());

  it('an unresolved alias leaves the call without an exact edge', () => {
    expect(labelCalls(engine)).toEqual(LINE_3_SYNTACTIC);
  });

  it('mapping the alias in tsconfig.json re-analyses the 7 files of packages/web, not core', async () => {
    editJson(webConfig(), (j) => (j.compilerOptions.paths['@alias/*'] = ['../core/src/*.ts']));
    const r = await engine.index();
    // The one file changed is the tsconfig.json itself, indexed as a configuration file (its keys,
    // decision 039); no source file changed.
    expect(r.changed).toBe(1);
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'changed', files: 7 }]);
    expect(r.semantic?.ts?.files).toBe(7);
    expect(labelCalls(engine)).toEqual([['parseMoney', 'calls', 'exact', 3]]);
    const events = dbOf(engine).prepare(`SELECT path, message FROM events WHERE kind = 'semantic_context_changed'`).all();
    expect(events).toEqual([
      { path: 'packages/web/tsconfig.json', message: 'semantic context changed: packages/web/tsconfig.json; 7 files to re-analyse' },
    ]);
  }, 120_000);

  it('nothing changed: nothing re-analysed, and nothing written', async () => {
    // A config written less than 2 s before a run is recorded as racy (its mtime cannot be
    // trusted yet) and settles in the first run after that: let the earlier tests' edits settle.
    await new Promise((r) => setTimeout(r, 2_100));
    await engine.index();
    const before = engine.store.changeStamp();
    const lastIndexedAt = engine.reader().metadata('last_indexed_at');
    const r = await engine.index();
    expect([r.contextChanges, r.semantic?.ts]).toEqual([undefined, undefined]);
    // Caches keyed by the change stamp (search answers, BM25 term statistics) survive a no-change refresh.
    expect([engine.store.changeStamp(), engine.reader().metadata('last_indexed_at')]).toEqual([before, lastIndexedAt]);
  }, 120_000);

  it('a base config changed: the projects extending it (core, 8 files) are re-analysed', async () => {
    writeFileSync(join(repo, 'config/tsconfig.base.json'), `{ "compilerOptions": { "strict": true, "noImplicitAny": true } }\n`);
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'config/tsconfig.base.json', change: 'changed', files: 8 }]);
    expect(r.semantic?.ts?.files).toBe(8);
  }, 120_000);

  it('a config broken into invalid JSON fails its project with the reason; the other keeps its exact edges', async () => {
    const good = readFileSync(webConfig(), 'utf8');
    writeFileSync(webConfig(), good.replace('{', '{ oops'));
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'changed', files: 7 }]);
    expect(r.semantic?.ts?.failedProjects.map((p) => [p.project, p.reason.split(':')[0]])).toEqual([['packages/web/tsconfig.json', 'project_load_failed']]);
    // Degraded in the same transaction: the exact edge from the mapped alias is gone, the
    // syntactic edge the pass had set aside is back.
    expect(labelCalls(engine)).toEqual(LINE_3_SYNTACTIC);
    // The failed project is not re-run by every later index (a refresh of ca watch or the MCP
    // server) while neither its files nor its config change; the failure stays reported.
    const again = await engine.index();
    expect([again.contextChanges, again.semantic?.ts]).toEqual([undefined, undefined]);
    // Unless asked to (the MCP `index` tool): then it runs again, and fails again.
    const retried = await engine.index({ retryFailedSemantic: true });
    expect(retried.semantic?.ts?.failedProjects.map((p) => [p.project, p.reason.split(':')[0]])).toEqual([['packages/web/tsconfig.json', 'project_load_failed']]);
    expect(engine.navigate('callers', 'formatMoney').gaps.map((g) => [g.scope, g.reason])).toEqual([
      // Of the failed project's 7 files only PriceTag.tsx spells `formatMoney`: the others cannot hold a missed caller.
      ['project @mono/web (ts)', "semantic pass failed (1 file): packages/web/tsconfig.json: project_load_failed: TS1005: ',' expected.; edges there are approximate"],
    ]);
    // No file of the failed project spells `PaypalGateway` or `Shape`: those answers stay complete.
    expect(['PaypalGateway', 'Shape'].map((name) => [engine.navigate('refs', name).complete, engine.navigate('impls', name).gaps])).toEqual([
      [true, []],
      [true, []],
    ]);
    const callers = engine.navigate('callers', 'formatMoney').edges.map((e) => [e.path, e.confidence]);
    expect(callers.filter((c) => String(c[0]).startsWith('packages/core/'))).toEqual([
      ['packages/core/src/checkout.ts', 'exact'],
      ['packages/core/src/payments/stripeGateway.ts', 'exact'],
    ]);
    // Repaired: analysed again, the alias resolves again.
    writeFileSync(webConfig(), good);
    const fixed = await engine.index();
    expect([fixed.contextChanges, fixed.semantic?.ts?.failedProjects]).toEqual([[{ path: 'packages/web/tsconfig.json', change: 'changed', files: 7 }], []]);
    expect(labelCalls(engine)).toEqual([['parseMoney', 'calls', 'exact', 3]]);
  }, 120_000);

  it('a new engine on the same index sees a change made while none was running', async () => {
    engine.close();
    editJson(webConfig(), (j) => delete j.compilerOptions.paths['@alias/*']);
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'changed', files: 7 }]);
    expect(labelCalls(engine)).toEqual(LINE_3_SYNTACTIC);
  }, 120_000);

  it('a removed config re-analyses the files it covered', async () => {
    rmSync(webConfig());
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'removed', files: 7 }]);
    expect(r.semantic?.ts?.files).toBe(7);
  }, 120_000);
});

/**
 * Scopes beyond a config's own folder, on fixtures/ts-monorepo plus packages/config (package
 * `@mono/config`, no sources) holding `base.json`, which packages/web/tsconfig.json extends by
 * package name. TS/JS files by hand: core 8, web 6 (App, Button, PriceTag, components/index,
 * index, react.d.ts); importers of `@mono/core` among them: App.tsx and PriceTag.tsx.
 */
describe('a changed TS semantic context: extended configs, package manifests, bad files', () => {
  let repo: string;
  let engine: Engine;
  const write = (rel: string, text: string) => writeFileSync(join(repo, rel), text);
  beforeAll(async () => {
    repo = copyFixture(MONO);
    mkdirSync(join(repo, 'packages/config'));
    write('packages/config/package.json', `{ "name": "@mono/config", "version": "1.0.0" }\n`);
    write('packages/config/base.json', `{ "compilerOptions": { "strict": true } }\n`);
    // As pnpm installs a workspace dependency: a link in the dependent's node_modules.
    mkdirSync(join(repo, 'packages/web/node_modules/@mono'), { recursive: true });
    symlinkSync(join(repo, 'packages/config'), join(repo, 'packages/web/node_modules/@mono/config'));
    const web = parseJsonc(readFileSync(join(repo, 'packages/web/tsconfig.json'), 'utf8')) as Record<string, unknown>;
    write('packages/web/tsconfig.json', JSON.stringify({ ...web, extends: '@mono/config/base.json' }, null, 2));
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  it('a base config extended by package name re-analyses the extending project (web, 6), not core', async () => {
    write('packages/config/base.json', `{ "compilerOptions": { "strict": true, "noImplicitAny": true } }\n`);
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/config/base.json', change: 'changed', files: 6 }]);
    expect([r.semantic?.ts?.files, r.semantic?.ts?.failedProjects]).toEqual([6, []]);
  }, 120_000);

  it("a workspace package's package.json re-analyses its files and their importers (core 8 + App, PriceTag)", async () => {
    const manifest = join(repo, 'packages/core/package.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"types": "dist/index.d.ts"', '"types": "src/index.ts"'));
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/core/package.json', change: 'changed', files: 10 }]);
    const reasons = dbOf(engine)
      .prepare(`SELECT path FROM events WHERE kind = 'semantic_context_changed' ORDER BY id`)
      .all()
      .map((e) => (e as { path: string }).path);
    expect(reasons).toEqual(['packages/config/base.json', 'packages/core/package.json']);
  }, 120_000);

  it('a package.json too large to read as JSON (name unknown) re-analyses every TS/JS file (14)', async () => {
    const big = { name: '@mono/web', version: '1.0.0', description: 'x'.repeat(CONTEXT_READ_MAX_BYTES) };
    write('packages/web/package.json', JSON.stringify(big));
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/web/package.json', change: 'changed', files: 14 }]);
    expect(r.semantic?.ts?.files).toBe(14);
  }, 120_000);

  // Also the unreadable-file path (a mode-000 file cannot be tested here: the tests run as root, which reads any file).
  it('a context file that vanishes between discovery and hashing counts as changed; its base, no longer known, as removed', async () => {
    const ghost = { path: 'packages/web/tsconfig.json', size: 1, mtimeMs: 1, project: '@mono/web' };
    const listing = discoverFiles(repo, defaultConfig().indexing, new Set(['.ts', '.tsx']));
    // The tree as a run sees it when the file vanishes after discovery listed it.
    const source = new WorktreeSource(repo);
    const disk = source.tree;
    const tree = Object.assign(Object.create(Object.getPrototypeOf(disk) as object) as typeof disk, disk, {
      hash: (p: string) => (p === ghost.path ? 'unreadable: ENOENT' : disk.hash(p)),
      readSmall: (p: string, max: number) => (p === ghost.path ? null : disk.readSmall(p, max)),
    });
    const changes = applyContextChanges(engine.store, 'working', 'semantic_context', { ...source, tree, read: source.read.bind(source), close: () => {} }, { ...listing, contextFiles: [...listing.contextFiles.filter((f) => f.path !== ghost.path), ghost] }, null, ['ts', 'js', 'cs']);
    // Both shape web's 6 files: the base through the previous run's `extends`.
    expect(changes).toEqual([
      { path: 'packages/config/base.json', change: 'removed', files: 6 },
      { path: 'packages/web/tsconfig.json', change: 'changed', files: 6 },
    ]);
    const state = dbOf(engine).prepare(`SELECT semantic_state, semantic_reason FROM files WHERE path = 'packages/web/src/App.tsx'`).get();
    expect(state).toEqual({ semantic_state: 'pending', semantic_reason: 'semantic context changed: packages/web/tsconfig.json' });
    // The next real run reads the file again: changed back, base tracked again, web analysed.
    const r = await engine.index();
    expect([r.contextChanges, r.semantic?.ts?.files]).toEqual([
      [
        { path: 'packages/config/base.json', change: 'added', files: 6 },
        { path: 'packages/web/tsconfig.json', change: 'changed', files: 6 },
      ],
      6,
    ]);
  }, 120_000);

  it('a symbolic link replacing a config is not followed: the config counts as removed', async () => {
    const config = join(repo, 'packages/core/tsconfig.json');
    const text = readFileSync(config, 'utf8');
    write('packages/core/tsconfig.real.json', text);
    rmSync(config);
    symlinkSync(join(repo, 'packages/core/tsconfig.real.json'), config);
    const r = await engine.index();
    // core's 8 files sit under both the removed config and the new tsconfig.real.json.
    expect(r.contextChanges).toEqual([
      { path: 'packages/core/tsconfig.json', change: 'removed', files: 8 },
      { path: 'packages/core/tsconfig.real.json', change: 'added', files: 8 },
    ]);
  }, 120_000);
});

describe('semantic-context discovery', () => {
  it('finds configs, lockfiles and C# project files by name; never through a symbolic link; honours ignores', () => {
    const repo = copyFixture(MONO);
    writeFileSync(join(repo, 'pnpm-lock.yaml'), 'lockfileVersion: 9\n');
    writeFileSync(join(repo, 'tsconfig.build.json'), '{}');
    writeFileSync(join(repo, 'Directory.Build.props'), '<Project />');
    writeFileSync(join(repo, 'packages/web/NuGet.Config'), '<configuration />');
    symlinkSync(join(repo, 'packages/core/tsconfig.json'), join(repo, 'packages/web/tsconfig.link.json'));
    mkdirSync(join(repo, 'ignored'));
    writeFileSync(join(repo, 'ignored/tsconfig.json'), '{}');
    writeFileSync(join(repo, '.gitignore'), 'ignored/\n');
    const found = discoverFiles(repo, defaultConfig().indexing, new Set(['.ts', '.tsx']));
    expect(found.contextFiles.map((f) => f.path)).toEqual([
      'Directory.Build.props',
      'package.json',
      'packages/core/package.json',
      'packages/core/tsconfig.json',
      'packages/web/NuGet.Config',
      'packages/web/package.json',
      'packages/web/tsconfig.json',
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
  });

  it('reads tsconfig JSON with comments and trailing commas, strings untouched', () => {
    expect(parseJsonc(`{\n  // a comment\n  "a": "x // not a comment, }", /* block */ "b": [1, 2,],\n}`)).toEqual({ a: 'x // not a comment, }', b: [1, 2] });
  });
});

describe.skipIf(!hasDotnet)('a changed C# semantic context re-runs the semantic pass of the files it shapes', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = copyFixture(CS);
    engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    await engine.index();
  }, 180_000);
  afterAll(() => engine.close());

  it('a .csproj edit re-analyses its project only (Acme.App: Program.cs)', async () => {
    const csproj = join(repo, 'src/Acme.App/Acme.App.csproj');
    writeFileSync(csproj, readFileSync(csproj, 'utf8').replace('</Project>', '  <!-- edited -->\n</Project>'));
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'src/Acme.App/Acme.App.csproj', change: 'changed', files: 1 }]);
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents, r.semantic?.cs?.failedProjects]).toEqual([1, 1, []]);
  }, 180_000);

  it('a referenced project edited (Acme.Core): it and the project referencing it (Acme.App) are re-analysed, 13 files', async () => {
    const csproj = join(repo, 'src/Acme.Core/Acme.Core.csproj');
    writeFileSync(csproj, readFileSync(csproj, 'utf8').replace('</Project>', '  <!-- edited -->\n</Project>'));
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'src/Acme.Core/Acme.Core.csproj', change: 'changed', files: 13 }]);
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents, r.semantic?.cs?.failedProjects]).toEqual([2, 13, []]);
  }, 180_000);

  it('a new Directory.Build.props at the root re-analyses every C# file (13) of both projects', async () => {
    writeFileSync(join(repo, 'Directory.Build.props'), '<Project>\n  <PropertyGroup>\n    <LangVersion>latest</LangVersion>\n  </PropertyGroup>\n</Project>\n');
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'Directory.Build.props', change: 'added', files: 13 }]);
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents]).toEqual([2, 13]);
  }, 180_000);

  it('an MSBuild file a project <Import>s is tracked: its edit re-analyses the importing project (Acme.App: 1)', async () => {
    mkdirSync(join(repo, 'build'));
    writeFileSync(join(repo, 'build/app.props'), '<Project>\n  <PropertyGroup>\n    <DefineConstants>$(DefineConstants);APP</DefineConstants>\n  </PropertyGroup>\n</Project>\n');
    const csproj = join(repo, 'src/Acme.App/Acme.App.csproj');
    writeFileSync(csproj, readFileSync(csproj, 'utf8').replace('</Project>', '  <Import Project="..\\..\\build\\app.props" />\n</Project>'));
    const first = await engine.index();
    expect(first.contextChanges).toEqual([
      { path: 'build/app.props', change: 'added', files: 1 },
      { path: 'src/Acme.App/Acme.App.csproj', change: 'changed', files: 1 },
    ]);
    // Before, a .props not named Directory.* was not tracked at all: this edit went unnoticed.
    writeFileSync(join(repo, 'build/app.props'), '<Project>\n  <PropertyGroup>\n    <DefineConstants>$(DefineConstants);APP2</DefineConstants>\n  </PropertyGroup>\n</Project>\n');
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'build/app.props', change: 'changed', files: 1 }]);
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents, r.semantic?.cs?.failedProjects]).toEqual([1, 1, []]);
  }, 180_000);
});

describe('a config whose include reaches outside its own folder', () => {
  it('re-analyses the files it includes there (src: 2), not the others (lib)', async () => {
    const repo = tempDir();
    const write = (rel: string, text: string) => {
      mkdirSync(join(repo, rel, '..'), { recursive: true });
      writeFileSync(join(repo, rel), text);
    };
    write('config/tsconfig.json', JSON.stringify({ compilerOptions: { strict: true }, include: ['../src/**/*'] }));
    write('src/a.ts', `import { b } from './b';\nexport function a(): number {\n  return b();\n}\n`);
    write('src/b.ts', 'export function b(): number {\n  return 1;\n}\n');
    write('lib/c.ts', 'export const c = 1;\n');
    const engine = Engine.open(repo, { env: {}, configOverrides: OFF });
    try {
      await engine.index();
      write('config/tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noImplicitAny: true }, include: ['../src/**/*'] }));
      const r = await engine.index();
      // Before, a config shaped only the files below its own folder: 0 here.
      expect(r.contextChanges).toEqual([{ path: 'config/tsconfig.json', change: 'changed', files: 2 }]);
      expect(r.semantic?.ts?.files).toBe(2);
      expect(engine.navigate('callers', 'b').edges.map((e) => [e.path, e.confidence])).toEqual([['src/a.ts', 'exact']]);
    } finally {
      engine.close();
      rmSync(repo, { recursive: true, force: true });
    }
  }, 120_000);
});
