import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMergeCache, importSpecifiers, loadMergeCache, mergeGroups, saveMergeCache, type MergeCache } from '../src/semantic/merge.js';
import { discoverRepo, groupProjects, type ProgramGroup } from '../src/semantic/projects.js';
import { removeTempRepos, tempRepo } from './semanticHelpers.js';

afterAll(() => {
  removeTempRepos();
});

const repo = (files: Record<string, string>): string => tempRepo(files, 'ca-semmerge-');

/** Project ids per merged group, sorted, groups in their order. */
const shape = (groups: readonly ProgramGroup[]): string[][] => groups.map((g) => g.projects.map((p) => p.id).sort());

/**
 * A workspace: `lib` (ES2022, paths alias `@ws/lib`, the largest), `app` (ES5, other `lib`
 * and `strict`, importing `@ws/lib` through its own alias spelling), `tool` (JavaScript,
 * `allowJs`), `site` (an `@/*` alias of its own), `node` (nodenext).
 */
function workspace(extra: Record<string, string> = {}): string {
  const bundler = { module: 'ESNext', moduleResolution: 'Bundler' };
  const big = Array.from({ length: 40 }, (_, i) => `export const v${i} = ${i};`).join('\n');
  return repo({
    'packages/lib/package.json': JSON.stringify({ name: '@ws/lib', main: 'src/index.ts' }),
    'packages/lib/tsconfig.json': JSON.stringify({
      compilerOptions: { ...bundler, target: 'ES2022', strict: true, paths: { '@ws/lib': ['./src/index.ts'] } },
      include: ['src'],
    }),
    'packages/lib/src/index.ts': `export { Store } from './store';\n${big}\n`,
    'packages/lib/src/store.ts': `export class Store {\n  get(k: string): number {\n    return k.length;\n  }\n}\n`,
    'packages/app/tsconfig.json': JSON.stringify({
      compilerOptions: { ...bundler, target: 'ES5', lib: ['dom', 'es2015'], strict: false, baseUrl: '.', paths: { '@ws/lib': ['../lib/src/index.ts'] } },
      include: ['src'],
    }),
    'packages/app/src/main.ts': `import { Store } from '@ws/lib';\nimport { helper } from './helper';\nexport const n = new Store().get(helper());\n`,
    'packages/app/src/helper.ts': `export function helper(): string {\n  return 'x';\n}\n`,
    'packages/tool/tsconfig.json': JSON.stringify({ compilerOptions: { ...bundler, allowJs: true, checkJs: false }, include: ['src'] }),
    'packages/tool/src/run.js': `import { Store } from '@ws/lib';\nexport function run() {\n  return new Store();\n}\n`,
    'packages/site/tsconfig.json': JSON.stringify({ compilerOptions: { ...bundler, paths: { '@/*': ['./src/*'] } }, include: ['src'] }),
    'packages/site/src/page.ts': `import { part } from '@/part';\nexport const page = part;\n`,
    'packages/site/src/part.ts': `export const part = 1;\n`,
    'packages/node/tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['src'] }),
    'packages/node/src/cli.ts': `export const cli = 1;\n`,
    ...extra,
  });
}

describe('importSpecifiers', () => {
  it('finds static, type-only, side-effect, re-export, dynamic (with comments) and require specifiers', () => {
    const text = [
      `import a from './a';`,
      `import type { B } from "b-pkg";`,
      `import './side.css';`,
      `export * from '../re';`,
      `export { c } from '@scope/c';`,
      `const d = await import(\n  /* webpackChunkName: "d" */ "./d"\n);`,
      `const e = require('e');`,
      `import f = require("./f");`,
      `type G = typeof import('./g');`,
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['./a', 'b-pkg', './side.css', '../re', '@scope/c', './d', 'e', './f', './g']);
  });
});

describe('mergeGroups', () => {
  it('merges projects whose imports resolve alike, widens allowJs for a JavaScript project, keeps conflicting aliases and nodenext apart', () => {
    const root = workspace();
    const layout = discoverRepo(root);
    const groups = groupProjects(layout.projects);
    expect(groups).toHaveLength(5);
    const merged = mergeGroups(groups, layout.packages);
    // lib is the largest group: app (same resolution of '@ws/lib' and './helper') and tool
    // (JavaScript: allowJs added, lib's own imports unchanged by it) join it; site's '@/part'
    // does not resolve under lib's options; nodenext is never merged.
    expect(shape(merged)).toEqual([
      ['packages/app/tsconfig.json', 'packages/lib/tsconfig.json', 'packages/tool/tsconfig.json'],
      ['packages/node/tsconfig.json'],
      ['packages/site/tsconfig.json'],
    ]);
    const host = merged[0]!;
    expect(host.options.allowJs).toBe(true);
    // The program is built with the host's options (lib's target), not app's.
    expect(host.options.target).toBe(groups.find((g) => g.projects[0]!.id === 'packages/lib/tsconfig.json')!.options.target);
    expect(host.cost).toBe(groups.filter((g) => ['packages/lib/tsconfig.json', 'packages/app/tsconfig.json', 'packages/tool/tsconfig.json'].includes(g.projects[0]!.id)).reduce((n, g) => n + g.cost, 0));
  });

  it('does not widen allowJs when it would change what the larger group imports', () => {
    // lib imports './legacy', which is only a .js file: with allowJs it would resolve.
    const root = workspace({
      'packages/lib/src/uses.ts': `import { old } from './legacy';\nexport const u = old;\n`,
      'packages/lib/src/legacy.js': `export const old = 1;\n`,
    });
    const layout = discoverRepo(root);
    const merged = mergeGroups(groupProjects(layout.projects), layout.packages);
    expect(shape(merged)).toEqual([
      ['packages/app/tsconfig.json', 'packages/lib/tsconfig.json'],
      ['packages/node/tsconfig.json'],
      ['packages/site/tsconfig.json'],
      // legacy.js, outside lib's include, is an inferred project with lib's options plus
      // allowJs: it has no imports, so it joins tool's program (which allows JavaScript).
      ['<inferred>:packages/lib', 'packages/tool/tsconfig.json'],
    ]);
    expect(merged[0]!.options.allowJs).toBeUndefined();
  });

  it('keeps a project apart when one of its bare imports resolves elsewhere under the larger options', () => {
    // app maps '@ws/lib' to its own copy: resolution differs, so app keeps its program.
    const root = workspace({
      'packages/app/tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', baseUrl: '.', paths: { '@ws/lib': ['./vendor/lib.ts'] } },
        include: ['src'],
      }),
      'packages/app/vendor/lib.ts': `export class Store {\n  get(k: string): number {\n    return 0;\n  }\n}\n`,
    });
    const layout = discoverRepo(root);
    const merged = mergeGroups(groupProjects(layout.projects), layout.packages);
    expect(shape(merged).find((ids) => ids.includes('packages/app/tsconfig.json'))).toEqual(['packages/app/tsconfig.json']);
  });

  it('a partial request replays the last decision until an import list changes', () => {
    const root = workspace();
    const cache = createMergeCache();
    const layout = discoverRepo(root);
    const first = mergeGroups(groupProjects(layout.projects), layout.packages, cache, null);
    const main = join(root, 'packages/app/src/main.ts');
    // Same imports, new text: the decision is replayed for the fresh project objects.
    writeFileSync(main, `import { Store } from '@ws/lib';\nimport { helper } from './helper';\nexport const m = new Store().get(helper() + '!');\n`);
    const layout2 = discoverRepo(root);
    const replayed = mergeGroups(groupProjects(layout2.projects), layout2.packages, cache, new Set([main]));
    expect(shape(replayed)).toEqual(shape(first));
    expect(replayed[0]!.projects[0]).toBe(layout2.projects.find((p) => p.id === replayed[0]!.projects[0]!.id));
    expect(cache.importsChanged).toBe(false);
    // app now imports through its baseUrl ('src/helper'), which lib's options cannot resolve:
    // only an import list changed, and the decision is taken again.
    writeFileSync(main, `import { Store } from '@ws/lib';\nimport { helper } from 'src/helper';\nexport const n = new Store().get(helper());\n`);
    const layout3 = discoverRepo(root);
    const again = mergeGroups(groupProjects(layout3.projects), layout3.packages, cache, new Set([main]));
    expect(cache.importsChanged).toBe(true);
    expect(shape(again).find((ids) => ids.includes('packages/app/tsconfig.json'))).toEqual(['packages/app/tsconfig.json']);
  });
});

describe('the merge cache between processes', () => {
  /** Per file (repo-relative), what resolved alike under each pair of option sets compared. */
  const alikeOf = (root: string, cache: MergeCache): [string, boolean[]][] =>
    [...cache.alike].map(([f, pairs]): [string, boolean[]] => [relative(root, f), [...pairs.values()]]).sort((a, b) => a[0].localeCompare(b[0]));
  const cacheFile = (): string => join(mkdtempSync(join(tmpdir(), 'ca-semmerge-cache-')), 'index.db-tsprograms.json');

  it('a saved decision is replayed by a new process: same groups, same widened options', () => {
    const root = workspace();
    const file = cacheFile();
    const layout = discoverRepo(root);
    const cache = createMergeCache();
    const first = mergeGroups(groupProjects(layout.projects), layout.packages, cache, null, root);
    // By hand from the workspace: app's two files against lib's options; tool's run.js against
    // lib's with allowJs; then lib's and app's files again for the widening (TypeScript targets
    // stay); site fails at page.ts ('@/part'), so part.ts is never compared; node is never compared.
    expect(alikeOf(root, cache)).toEqual([
      ['packages/app/src/helper.ts', [true, true]],
      ['packages/app/src/main.ts', [true, true]],
      ['packages/lib/src/index.ts', [true]],
      ['packages/lib/src/store.ts', [true]],
      ['packages/site/src/page.ts', [false]],
      ['packages/tool/src/run.js', [true]],
    ]);
    saveMergeCache(cache, file);
    expect(cache.dirty).toBe(false);

    const loaded = loadMergeCache(file);
    expect(loaded.last).toEqual(cache.last);
    expect(alikeOf(root, loaded)).toEqual(alikeOf(root, cache));
    const main = join(root, 'packages/app/src/main.ts');
    const layout2 = discoverRepo(root);
    const replayed = mergeGroups(groupProjects(layout2.projects), layout2.packages, loaded, new Set([main]), root);
    expect(shape(replayed)).toEqual(shape(first));
    expect(replayed.map((g) => g.options)).toEqual(first.map((g) => g.options));
    expect(replayed[0]!.options.allowJs).toBe(true);
    expect(loaded.importsChanged).toBe(false);
  });

  it('deciding again re-resolves only the files whose imports changed; an install or a new set of files forgets the rest', () => {
    const root = workspace({ 'node_modules/.keep': '' });
    const layout = () => discoverRepo(root);
    const cache = createMergeCache();
    const decide = () => shape(mergeGroups(groupProjects(layout().projects), layout().packages, cache, null, root));
    const together = decide();
    expect(together[0]).toEqual(['packages/app/tsconfig.json', 'packages/lib/tsconfig.json', 'packages/tool/tsconfig.json']);
    // What the cache says is what a decision uses: told that app's main.ts does not resolve
    // alike, app stays apart (nothing is resolved again for it).
    const main = join(root, 'packages/app/src/main.ts');
    const planted = cache.alike.get(main)!;
    for (const k of planted.keys()) planted.set(k, false);
    const apart = decide();
    expect(apart).toEqual([
      ['packages/app/tsconfig.json'],
      ['packages/lib/tsconfig.json', 'packages/tool/tsconfig.json'],
      ['packages/node/tsconfig.json'],
      ['packages/site/tsconfig.json'],
    ]);
    // A new import list of main.ts drops its entries: resolved again, app joins again.
    writeFileSync(main, `import { Store } from '@ws/lib';\nimport { helper } from './helper';\nimport { v1 } from '../../lib/src/index';\nexport const n = new Store().get(helper() + v1);\n`);
    expect(decide()).toEqual(together);
    // An install (node_modules rewritten) may move any bare import: everything is resolved again.
    for (const k of cache.alike.get(main)!.keys()) cache.alike.get(main)!.set(k, false);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'node_modules'), later, later);
    expect(decide()).toEqual(together);
    // So does a new file of a project (its imports may resolve to it).
    for (const k of cache.alike.get(main)!.keys()) cache.alike.get(main)!.set(k, false);
    writeFileSync(join(root, 'packages/app/src/extra.ts'), 'export const extra = 1;\n');
    expect(decide()).toEqual(together);
  });

  it('a damaged, foreign or unreadable cache file reads as empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ca-semmerge-bad-'));
    const empty = { last: null, alike: 0, imports: 0, fingerprint: null };
    const summary = (c: MergeCache) => ({ last: c.last, alike: c.alike.size, imports: c.imports.size, fingerprint: c.fingerprint });
    const cases: Record<string, () => void> = {
      garbage: () => writeFileSync(join(dir, 'garbage'), 'not json {'),
      otherFormat: () => writeFileSync(join(dir, 'otherFormat'), JSON.stringify({ format: 1, last: null, imports: [] })),
      wrongTypes: () => writeFileSync(join(dir, 'wrongTypes'), JSON.stringify({ format: 3, last: 'x', imports: [[1, 'a', null, 4]], alike: 'no', fingerprint: 3 })),
      directory: () => mkdirSync(join(dir, 'directory')),
      fifo: () => execFileSync('mkfifo', [join(dir, 'fifo')]),
      missing: () => {},
    };
    for (const [name, make] of Object.entries(cases)) {
      make();
      expect([name, summary(loadMergeCache(join(dir, name)))]).toEqual([name, empty]);
    }
  });
});
