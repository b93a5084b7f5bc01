import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LanguageAdapter } from '@ca/schema';
import ts from 'typescript';
import { createTsAdapter, createTsSemanticService, type SemanticServiceEvent } from '../src/index.js';
import { analyzeProject, buildProgram, type AnalyzeContext } from '../src/semantic/analyze.js';
import { mergeGroups } from '../src/semantic/merge.js';
import { discoverRepo, groupProjects, programKey, shardProjects, type LoadedProject } from '../src/semantic/projects.js';
import { edgeRows, ensureWorkerBuilt, MONOREPO, removeTempRepos, tempRepo } from './semanticHelpers.js';

const repo = (files: Record<string, string>): string => tempRepo(files, 'ca-sempar-');

/** Two packages whose configs differ only in emit options (outDir, declaration), `b` importing `a`. */
function twoPackages(): string {
  const base = { strict: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler' };
  return repo({
    'packages/a/package.json': JSON.stringify({ name: '@two/a', main: 'src/index.ts' }),
    'packages/a/tsconfig.json': JSON.stringify({ compilerOptions: { ...base, outDir: 'dist', declaration: true }, include: ['src'] }),
    'packages/a/src/index.ts': `export class Store {\n  get(key: string): number {\n    return key.length;\n  }\n}\nexport function makeStore(): Store {\n  return new Store();\n}\n`,
    'packages/b/package.json': JSON.stringify({ name: '@two/b', main: 'src/main.ts' }),
    'packages/b/tsconfig.json': JSON.stringify({ compilerOptions: { ...base, outDir: 'out', composite: true }, include: ['src'] }),
    'packages/b/src/main.ts': `import { makeStore } from '${'../../a/src/index'}';\nexport function run(): number {\n  const s = makeStore();\n  return s.get('x');\n}\n`,
  });
}

/**
 * The monorepo fixture with legacy decorators in web's config: core and web then cannot share
 * a program (mergeGroups keeps projects whose decorators bind differently apart), so there are
 * two program groups, one per worker. The flag changes nothing else in these files.
 */
function twoGroupMonorepo(): string {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(MONOREPO, dir), { withFileTypes: true })) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else files[rel] = readFileSync(join(MONOREPO, rel), 'utf8');
    }
  };
  walk('');
  const web = JSON.parse(files['packages/web/tsconfig.json']!) as { compilerOptions: Record<string, unknown> };
  web.compilerOptions.experimentalDecorators = true;
  files['packages/web/tsconfig.json'] = JSON.stringify(web);
  return repo(files);
}

let adapter: LanguageAdapter;
beforeAll(async () => {
  ensureWorkerBuilt();
  adapter = await createTsAdapter();
}, 180_000);
afterAll(() => {
  removeTempRepos();
});

function context(root: string): AnalyzeContext {
  return {
    layout: discoverRepo(root),
    adapter,
    requested: null,
    syntactic: new Map(),
    sourceFiles: new Map(),
    tooDeep: new Map(),
    checkSync: () => {},
    checkpoint: async () => {},
  };
}

describe('program groups', () => {
  it('programKey ignores emit/diagnostic-only options and checkJs:false, not resolution or checking options', () => {
    const base: ts.CompilerOptions = { strict: true, module: ts.ModuleKind.ESNext, paths: { '@x/*': ['./src/*'] }, pathsBasePath: '/r' };
    expect(programKey({ ...base, outDir: '/r/dist', declaration: true, composite: true, rootDir: '/r', checkJs: false, skipLibCheck: true })).toBe(
      programKey(base),
    );
    expect(programKey({ ...base, pathsBasePath: '/r/packages' })).not.toBe(programKey(base));
    expect(programKey({ ...base, jsx: ts.JsxEmit.ReactJSX })).not.toBe(programKey(base));
    expect(programKey({ ...base, lib: ['lib.dom.d.ts'] })).not.toBe(programKey(base));
    expect(programKey({ ...base, strictNullChecks: false })).not.toBe(programKey(base));
    expect(programKey({ ...base, checkJs: true })).not.toBe(programKey(base));
  });

  it('two projects with equal options form one group; analysed in one program they give the same results as separately', async () => {
    const root = twoPackages();
    const ctx = context(root);
    const projects = ctx.layout.projects;
    expect(projects.map((p) => p.id)).toEqual(['packages/a/tsconfig.json', 'packages/b/tsconfig.json']);
    const groups = groupProjects(projects);
    expect(groups.map((g) => g.projects.map((p) => p.id))).toEqual([['packages/a/tsconfig.json', 'packages/b/tsconfig.json']]);

    const separate = [];
    for (const p of projects) separate.push(await analyzeProject(context(root), p));
    const shared = buildProgram(ctx, projects[0]!.options, [...new Set(projects.flatMap((p) => p.rootNames))]);
    const together = [];
    for (const p of projects) together.push(await analyzeProject(ctx, p, shared));
    expect(together).toEqual(separate);

    expect(edgeRows(together[1]!.edges, true)).toEqual([
      'imports ts:file:packages/b/src/main.ts# -> ts:file:packages/a/src/index.ts#makeStore() exact L1',
      'calls ts:file:packages/b/src/main.ts#run() -> ts:file:packages/a/src/index.ts#makeStore() exact L3',
      'calls ts:file:packages/b/src/main.ts#run() -> ts:file:packages/a/src/index.ts#Store.get(string) exact L4',
    ]);
    expect(together[0]!.keyRefinements.map((k) => `${k.oldKey} => ${k.newKey}`)).toEqual([
      'ts:file:packages/a/src/index.ts#Store => ts:pkg:@two/a#Store',
      'ts:file:packages/a/src/index.ts#Store.get(string) => ts:pkg:@two/a#Store.get(string)',
      'ts:file:packages/a/src/index.ts#makeStore() => ts:pkg:@two/a#makeStore()',
    ]);
  }, 60_000);

  it('shardProjects: largest group first onto the least loaded worker, request order kept, failed projects on worker 0', () => {
    const p = (id: string): LoadedProject =>
      ({ id, tsconfig: id, packageName: null, dir: '/', status: 'ok', options: {}, rootNames: [], owned: [], strippedPlugins: [] }) as LoadedProject;
    const groups = [
      { key: 'k1', options: {}, projects: [p('a'), p('d')], cost: 10 },
      { key: 'k2', options: {}, projects: [p('b')], cost: 50 },
      { key: 'k3', options: {}, projects: [p('c')], cost: 30 },
      { key: 'k4', options: {}, projects: [p('e')], cost: 15 },
    ];
    expect(shardProjects(['x', 'a', 'b', 'c', 'd', 'e'], groups, 2, ['x'])).toEqual([
      ['x', 'b'],
      ['a', 'c', 'd', 'e'],
    ]);
    expect(shardProjects(['a', 'b', 'c', 'd', 'e'], groups, 1)).toEqual([['a', 'b', 'c', 'd', 'e']]);
    // More workers than groups: trailing empty shards are dropped.
    expect(shardProjects(['a', 'd'], groups.slice(0, 1), 3)).toEqual([['a', 'd']]);
  });
});

describe('parallel workers', () => {
  it('with 2 workers the monorepo result equals 1 worker’s, and both workers ran', async () => {
    const mono = twoGroupMonorepo();
    const one = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
    const expected = await one.analyzeRepository(mono, { deadlineMs: 120_000 });
    await one.dispose();
    const events: SemanticServiceEvent[] = [];
    const two = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 2, onEvent: (e) => events.push(e) });
    try {
      const r = await two.analyzeRepository(mono, { deadlineMs: 120_000 });
      expect(r).toEqual(expected);
      expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([
        ['packages/core/tsconfig.json', 'ok'],
        ['packages/web/tsconfig.json', 'ok'],
      ]);
      const spawned = events.filter((e) => e.type === 'spawned').map((e) => e.pid);
      expect(spawned).toHaveLength(2);
      // core and web differ in decorators: two groups, one per worker.
      const ranBy = new Map(events.filter((e) => e.type === 'project_start').map((e) => [e.project, e.pid]));
      expect(new Set(ranBy.values()).size).toBe(2);
      expect(two.pids).toHaveLength(2);
    } finally {
      await two.dispose();
    }
  }, 180_000);

  it('the monorepo analysed in one merged program gives the same result as with a program per package', async () => {
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
    try {
      // MONOREPO: core's imports resolve alike under web's options, so core joins web's program.
      const layout = discoverRepo(MONOREPO);
      expect(mergeGroups(groupProjects(layout.projects), layout.packages).map((g) => g.projects.map((p) => p.id))).toEqual([
        ['packages/core/tsconfig.json', 'packages/web/tsconfig.json'],
      ]);
      const merged = await svc.analyzeRepository(MONOREPO, { deadlineMs: 120_000 });
      const separate = await svc.analyzeRepository(twoGroupMonorepo(), { deadlineMs: 120_000 });
      // core 55 (parseMoney's returned literal writes Money.amount and .currency), web 52 (App.tsx and PriceTag.tsx: semantic.test.ts).
      expect(merged.projects.map((p) => p.edges.length)).toEqual([55, 52]);
      expect(merged).toEqual(separate);
    } finally {
      await svc.dispose();
    }
  }, 120_000);

  it('one program group: a second worker is never forked', async () => {
    const events: SemanticServiceEvent[] = [];
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 2, onEvent: (e) => events.push(e) });
    try {
      const r = await svc.analyzeRepository(twoPackages(), { deadlineMs: 60_000 });
      expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([
        ['packages/a/tsconfig.json', 'ok'],
        ['packages/b/tsconfig.json', 'ok'],
      ]);
      expect(events.filter((e) => e.type === 'spawned')).toHaveLength(1);
    } finally {
      await svc.dispose();
    }
  }, 60_000);

  it('killing the second worker mid-pass restarts it alone and the pass completes with the same result', async () => {
    const mono = twoGroupMonorepo();
    const baseline = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
    const expected = await baseline.analyzeRepository(mono, { deadlineMs: 120_000 });
    await baseline.dispose();

    const events: SemanticServiceEvent[] = [];
    let killed = 0;
    let firstPid = 0;
    const svc = createTsSemanticService({
      maxOldSpaceSizeMb: 512,
      workers: 2,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'spawned' && firstPid === 0) firstPid = e.pid ?? 0;
        // Kill whichever worker is not the planning one, when it starts its project.
        if (e.type === 'project_start' && killed === 0 && e.pid !== firstPid && e.pid !== undefined) {
          killed = e.pid;
          process.kill(e.pid, 'SIGKILL');
        }
      },
    });
    try {
      const r = await svc.analyzeRepository(mono, { deadlineMs: 120_000 });
      expect(killed).toBeGreaterThan(0);
      expect(events.filter((e) => e.type === 'restart').map((e) => [e.pid, e.code])).toEqual([[killed, 'crash']]);
      // first worker, second worker, the second's replacement
      expect(events.filter((e) => e.type === 'spawned')).toHaveLength(3);
      expect(r).toEqual(expected);
    } finally {
      await svc.dispose();
    }
  }, 180_000);
});
