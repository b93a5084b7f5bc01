import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTsSemanticService, type SemanticResult } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, removeTempRepos, tempRepo } from './semanticHelpers.js';

const repo = (files: Record<string, string>): string => tempRepo(files, 'ca-semcov-');

async function analyze(root: string): Promise<SemanticResult> {
  const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
  try {
    return await svc.analyzeRepository(root, { deadlineMs: 60_000 });
  } finally {
    await svc.dispose();
  }
}

beforeAll(() => ensureWorkerBuilt(), 180_000);
afterAll(() => {
  removeTempRepos();
});

describe('files a config excludes', () => {
  it('tests excluded by tsconfig are analysed with that config’s options (paths alias resolves)', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler', baseUrl: '.', paths: { '@lib/*': ['src/*'] } },
        include: ['src'],
        exclude: ['**/*.test.ts', 'tests'],
      }),
      'src/lib.ts': `export function helper(): number {\n  return 1;\n}\n`,
      'src/lib.test.ts': `import { helper } from './lib';\nhelper();\n`,
      'tests/main.test.ts': `import { helper } from '@lib/lib';\nexport function check() {\n  return helper();\n}\n`,
    });
    const r = await analyze(root);
    expect(r.projects.map((p) => [p.tsconfig, p.status, p.files])).toEqual([
      ['tsconfig.json', 'ok', ['src/lib.ts']],
      [null, 'ok', ['src/lib.test.ts', 'tests/main.test.ts']],
    ]);
    expect(edgeRows(r.projects[1]!.edges, true)).toEqual([
      'imports ts:file:src/lib.test.ts# -> ts:file:src/lib.ts#helper() exact L1',
      'calls ts:file:src/lib.test.ts# -> ts:file:src/lib.ts#helper() exact L2',
      'imports ts:file:tests/main.test.ts# -> ts:file:src/lib.ts#helper() exact L1',
      'calls ts:file:tests/main.test.ts#check() -> ts:file:src/lib.ts#helper() exact L3',
    ]);
  }, 60_000);
});

const SHAPES = `export interface Circle {
  kind: 'circle';
  area(): number;
}
export interface Square {
  kind: 'square';
  area(): number;
  side(): number;
}
export class Canvas {
  draw(x: number): void {}
  clear(): void {}
}
export function pick(a: string): string;
export function pick(a: number): number;
export function pick(a: string | number): string | number {
  return a;
}
export function run(): void {}
export { run as start };
`;

const USE = `import * as shapes from './shapes';
import { pick, type Circle, type Square, Canvas } from './shapes';
export function use(s: Circle | Square, c: Canvas | undefined, list: Square[]) {
  s.area();
  c?.draw(1);
  c?.clear?.();
  list.map((q) => q.side());
  pick(2);
  shapes.start();
  const onClick = () => c!.clear();
  const { pick: choose } = shapes;
  choose('x');
  return onClick;
}
`;

describe('call resolution', () => {
  it('union receivers, optional chaining, callbacks, overloads, export aliases through a namespace', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
      'src/shapes.ts': SHAPES,
      'src/use.ts': USE,
    });
    const r = await analyze(root);
    const calls = r.projects[0]!.edges.filter((e) => e.type === 'calls' && e.sourcePath === 'src/use.ts');
    // A union receiver calls both members; the overload is the one the arguments select; the
    // alias `start` is followed to `run`; calls inside callbacks belong to `use` (arrow
    // functions and locals have no syntactic node); `list.map` (lib) gives nothing; a destructured
    // local (`choose`) is followed through its signature to the overload it holds.
    expect(edgeRows(calls, true)).toEqual([
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Circle.area() exact L4',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Square.area() exact L4',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Canvas.draw(number) exact L5',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Canvas.clear() exact L6',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Square.side() exact L7',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#pick(number) exact L8',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#run() exact L9',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#Canvas.clear() exact L10',
      'calls ts:file:src/use.ts#use(Circle|Square,Canvas|undefined,Square[]) -> ts:file:src/shapes.ts#pick(string) exact L12',
    ]);
  }, 60_000);
});
