import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverFiles, Engine } from '../src/index.js';
import { parseJsonc } from '../src/semanticContext.js';
import { defaultConfig } from '@ca/schema';
import { copyFixture, REPO_ROOT } from './helpers.js';

const MONO = join(REPO_ROOT, 'fixtures', 'ts-monorepo');
const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = spawnSync('dotnet', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasDotnet) console.warn('SKIPPED: C# semantic-context tests need the .NET SDK (dotnet not found)');

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
    expect(labelCalls(engine).filter((c) => c[2] === 'exact')).toEqual([]);
  });

  it('mapping the alias in tsconfig.json re-analyses the 7 files of packages/web, not core', async () => {
    editJson(webConfig(), (j) => (j.compilerOptions.paths['@alias/*'] = ['../core/src/*.ts']));
    const r = await engine.index();
    expect(r.changed).toBe(0);
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'changed', files: 7 }]);
    expect(r.semantic?.ts?.files).toBe(7);
    expect(labelCalls(engine)).toEqual([['parseMoney', 'calls', 'exact', 3]]);
    const events = engine.store.db.prepare(`SELECT path, message FROM events WHERE kind = 'semantic_context_changed'`).all();
    expect(events).toEqual([
      { path: 'packages/web/tsconfig.json', message: 'semantic context changed: packages/web/tsconfig.json; 7 files to re-analyse' },
    ]);
  }, 120_000);

  it('nothing changed: nothing re-analysed', async () => {
    const r = await engine.index();
    expect([r.contextChanges, r.semantic?.ts]).toEqual([undefined, undefined]);
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
    const callers = engine.navigate('callers', 'formatMoney').edges.map((e) => [e.path, e.confidence]);
    expect(callers.filter((c) => c[0].startsWith('packages/core/'))).toEqual([
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
    expect(labelCalls(engine).filter((c) => c[2] === 'exact')).toEqual([]);
  }, 120_000);

  it('a removed config re-analyses the files it covered', async () => {
    rmSync(webConfig());
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'packages/web/tsconfig.json', change: 'removed', files: 7 }]);
    expect(r.semantic?.ts?.files).toBe(7);
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

  it('a new Directory.Build.props at the root re-analyses every C# file (13) of both projects', async () => {
    writeFileSync(join(repo, 'Directory.Build.props'), '<Project>\n  <PropertyGroup>\n    <LangVersion>latest</LangVersion>\n  </PropertyGroup>\n</Project>\n');
    const r = await engine.index();
    expect(r.contextChanges).toEqual([{ path: 'Directory.Build.props', change: 'added', files: 13 }]);
    expect([r.semantic?.cs?.projects, r.semantic?.cs?.documents]).toEqual([2, 13]);
  }, 180_000);
});
