import { spawnSync } from 'node:child_process';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTsSemanticService, type SemanticServiceEvent, type TsSemanticService } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, PKG_ROOT, removeTempRepos, tempRepo } from './semanticHelpers.js';

const LIB = `export function foo(): number {\n  return 1;\n}\nexport function bar(): number {\n  return 2;\n}\n`;
const caller = (callee: string) => `import { ${callee} } from './lib';\nexport function run(): number {\n  return ${callee}();\n}\n`;

const STAMP = 1_700_000_000;

beforeAll(() => ensureWorkerBuilt(), 180_000);
afterAll(() => removeTempRepos());

/**
 * A warm worker keeps parsed files between requests: every edit below must still be seen, whether
 * the edited file is named in the request or only reached as a dependency.
 */
describe('a warm semantic worker sees every edit', () => {
  let root: string;
  let svc: TsSemanticService;
  const events: SemanticServiceEvent[] = [];
  const calls = async (files?: string[]) => {
    const r = await svc.analyzeRepository(root, { deadlineMs: 60_000, ...(files ? { files } : {}) });
    return edgeRows(r.projects.flatMap((p) => p.edges).filter((e) => e.type === 'calls'));
  };
  const write = (rel: string, text: string) => writeFileSync(join(root, rel), text);

  beforeAll(() => {
    root = tempRepo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'src/lib.ts': LIB,
      'src/main.ts': caller('foo'),
    });
    // Whole seconds: a timestamp that can be set again exactly after an edit.
    utimesSync(join(root, 'src/main.ts'), STAMP, STAMP);
    svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1, onEvent: (e) => events.push(e) });
  });
  afterAll(() => svc.dispose());

  it('full pass, then a partial pass of the same file on the warm worker: same edges', async () => {
    expect(await calls()).toEqual(['calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#foo() exact']);
    expect(await calls(['src/main.ts'])).toEqual(['calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#foo() exact']);
  }, 60_000);

  it('an edit that keeps size and mtime is still seen when the file is requested', async () => {
    const path = join(root, 'src/main.ts');
    const before = statSync(path);
    write('src/main.ts', caller('bar'));
    utimesSync(path, STAMP, STAMP);
    expect([statSync(path).size, statSync(path).mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(await calls(['src/main.ts'])).toEqual(['calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#bar() exact']);
  }, 60_000);

  it('an edited dependency that is not requested is re-read (its size changed)', async () => {
    write('src/lib.ts', `${LIB}export function qux(): number {\n  return 3;\n}\n`);
    write('src/main.ts', caller('qux'));
    expect(await calls(['src/main.ts'])).toEqual(['calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#qux() exact']);
  }, 60_000);

  it('every request above was served by one worker process', () => {
    expect(events.filter((e) => e.type === 'spawned').length).toBe(1);
  });
});

/**
 * An idle warm worker is unref'ed so that it never keeps a finished process alive; dispose()
 * must hold it again until it exits, or a script awaiting dispose() at top level ends with
 * "unsettled top-level await" (exit code 13) before its last line.
 */
describe('dispose() of a service with an idle worker', () => {
  it('a script that awaits dispose() at top level runs to its last line', () => {
    const root = tempRepo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'src/lib.ts': LIB,
      'src/main.ts': caller('foo'),
    });
    const entry = pathToFileURL(join(PKG_ROOT, 'dist', 'index.js')).href;
    const script = [
      `import { createTsSemanticService } from ${JSON.stringify(entry)};`,
      `const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });`,
      `const r = await svc.analyzeRepository(${JSON.stringify(root)}, { deadlineMs: 60000 });`,
      `await svc.dispose();`,
      `console.log('edges ' + r.projects.flatMap((p) => p.edges).filter((e) => e.type === 'calls').length);`,
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout.trim() }).toEqual({ status: 0, stdout: 'edges 1' });
  }, 60_000);
});
