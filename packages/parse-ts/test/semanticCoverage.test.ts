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

describe('a default export that wraps a component', () => {
  it('memo(Panel), connect(…)(Toolbar): uses of the default export go to the wrapped declaration, probable', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, jsx: 'preserve', module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
      'src/hoc.ts': [
        'export function memo<T>(component: T, areEqual?: (a: unknown, b: unknown) => boolean): T {',
        '  return component;',
        '}',
        'export function connect(state: string) {',
        '  return <T,>(component: T): T => component;',
        '}',
        '',
      ].join('\n'),
      'src/Panel.tsx': [
        "import { memo } from './hoc';",
        'function Panel(props: { title: string }) {',
        '  return props.title;',
        '}',
        'const areEqual = () => true;',
        'export default memo(Panel, areEqual);',
        '',
      ].join('\n'),
      'src/Toolbar.tsx': ["import { connect } from './hoc';", 'function Toolbar() {', "  return 'tools';", '}', "export default connect('tools')(Toolbar);", ''].join('\n'),
      'src/Plain.tsx': ["export default () => 'plain';", ''].join('\n'),
      'src/App.tsx': [
        "import Panel from './Panel';",
        "import Toolbar from './Toolbar';",
        "import Plain from './Plain';",
        'export function App() {',
        '  return [<Panel title="x" />, <Toolbar />, <Plain />, Panel];',
        '}',
        '',
      ].join('\n'),
    });
    const r = await analyze(root);
    const fromApp = r.projects[0]!.edges.filter((e) => e.sourcePath === 'src/App.tsx');
    // The JSX uses and the read of `Panel` reach the wrapped functions, and so do the import
    // edges. A default-exported arrow function is a declaration of its own (`default()`): exact.
    expect(edgeRows(fromApp, true).sort()).toEqual([
      'calls ts:file:src/App.tsx#App() -> ts:file:src/Panel.tsx#Panel({title:string}) probable L5',
      'calls ts:file:src/App.tsx#App() -> ts:file:src/Plain.tsx#default() exact L5',
      'calls ts:file:src/App.tsx#App() -> ts:file:src/Toolbar.tsx#Toolbar() probable L5',
      'imports ts:file:src/App.tsx# -> ts:file:src/Panel.tsx#Panel({title:string}) probable L1',
      'imports ts:file:src/App.tsx# -> ts:file:src/Plain.tsx#default() exact L3',
      'imports ts:file:src/App.tsx# -> ts:file:src/Toolbar.tsx#Toolbar() probable L2',
      'references ts:file:src/App.tsx#App() -> ts:file:src/Panel.tsx#Panel({title:string}) probable L5',
    ]);
  }, 60_000);
});

describe('object literals implementing a type', () => {
  it('links a declaration to the interface, type alias or class its object literal is held to', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
      'src/types.ts': [
        'export interface Action {',
        '  name: string;',
        '  perform(): void;',
        '}',
        'export type Handler = { on(): void };',
        'export class Point {',
        '  x = 0;',
        '}',
        'export type Either = Action | Handler;',
      ].join('\n'),
      'src/actions.ts': [
        "import type { Action, Either, Handler } from './types';",
        "import { Point } from './types';",
        'export const register = <T extends Action>(action: T): T => action;',
        'export const listen = (h: Handler): void => {};',
        'export const keep = (o: Partial<Action>): void => {};',
        "export const annotated: Action = { name: 'a', perform() {} };",
        "export const checked = { name: 'b', perform() {} } satisfies Action;",
        "export const registered = register({ name: 'c', perform() {} });",
        'export const handler: Handler = { on() {} };',
        'export const origin: Point = { x: 1 };',
        'export const listened = listen({ on() {} });',
        "export const cast = { name: 'd' } as Action;",
        'export const partial = keep({});',
        "export const either: Either = { name: 'e', perform() {} };",
        "export const plain = { name: 'f' };",
        'export const made = new Point();',
      ].join('\n'),
    });
    const r = await analyze(root);
    expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([['tsconfig.json', 'ok']]);
    const impl = edgeRows(r.projects[0]!.edges, true).filter((e) => e.startsWith('implements '));
    expect(impl).toEqual([
      'implements ts:file:src/actions.ts#annotated -> ts:file:src/types.ts#Action exact L6',
      'implements ts:file:src/actions.ts#checked -> ts:file:src/types.ts#Action exact L7',
      'implements ts:file:src/actions.ts#registered -> ts:file:src/types.ts#Action probable L8',
      'implements ts:file:src/actions.ts#handler -> ts:file:src/types.ts#Handler exact L9',
      'implements ts:file:src/actions.ts#origin -> ts:file:src/types.ts#Point exact L10',
      'implements ts:file:src/actions.ts#listened -> ts:file:src/types.ts#Handler probable L11',
    ]);
  }, 60_000);
});

describe('properties named without a member access', () => {
  it('object literal members and shorthand destructuring reference the property of the type they are held to', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
      'src/shapes.ts': [
        'export interface Box {',
        '  width: number;',
        '  height: number;',
        '  area(): number;',
        '}',
        'export interface Ring {',
        '  radius: number;',
        '}',
        'export function makeBox(width: number): Box {',
        '  return { width, height: 2, area() { return 0; } };',
        '}',
        'export function size({ width }: Box): number {',
        '  const { height: h } = makeBox(1);',
        '  return width + h;',
        '}',
        'export const both: Box | Ring = { radius: 1 };',
        'export const loose = { width: 3, depth: 4 };',
      ].join('\n'),
    });
    const r = await analyze(root);
    expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([['tsconfig.json', 'ok']]);
    const toBox = edgeRows(r.projects[0]!.edges, true).filter(
      (e) => e.startsWith('references ') && /#(Box|Ring)\.\w+(\(\))? /.test(e.replace(/ (exact|probable|approximate) L\d+$/, ' ')),
    );
    expect(toBox).toEqual([
      // L10: the returned literal is held to the return type Box: width (shorthand), height, area().
      'references ts:file:src/shapes.ts#makeBox(number) -> ts:file:src/shapes.ts#Box.width exact L10',
      'references ts:file:src/shapes.ts#makeBox(number) -> ts:file:src/shapes.ts#Box.height exact L10',
      'references ts:file:src/shapes.ts#makeBox(number) -> ts:file:src/shapes.ts#Box.area() exact L10',
      // L12: `{ width }: Box` destructures Box.width; L13: `height: h` names it through propertyName.
      'references ts:file:src/shapes.ts#size(Box) -> ts:file:src/shapes.ts#Box.width exact L12',
      'references ts:file:src/shapes.ts#size(Box) -> ts:file:src/shapes.ts#Box.height exact L13',
      // L16: held to a union: only Ring has radius. L17: a literal held to nothing names no property.
      'references ts:file:src/shapes.ts#both -> ts:file:src/shapes.ts#Ring.radius exact L16',
    ]);
  }, 60_000);
});

describe('properties named by a string in a type', () => {
  it('an indexed access type references the property it names', async () => {
    const root = repo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, module: 'ESNext', moduleResolution: 'Bundler' }, include: ['src'] }),
      'src/state.ts': [
        'export interface AppState {',
        '  zoom: number;',
        '  theme: string;',
        '}',
        'export class Editor {',
        '  files: string[] = [];',
        '}',
        'export type Zoom = AppState["zoom"];',
        'export function files(e: InstanceType<typeof Editor>["files"], t: AppState["nothing" & keyof AppState]): number {',
        '  return e.length;',
        '}',
      ].join('\n'),
    });
    const r = await analyze(root);
    const props = edgeRows(r.projects[0]!.edges, true).filter((e) => / -> \S+#(AppState|Editor)\.\w+ /.test(e));
    expect(props).toEqual([
      'references ts:file:src/state.ts#Zoom -> ts:file:src/state.ts#AppState.zoom exact L8',
      'references ts:file:src/state.ts#files(InstanceType<typeofEditor>["files"],AppState["nothing"&keyofAppState]) -> ts:file:src/state.ts#Editor.files exact L9',
    ]);
  }, 60_000);
});
