import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitBlobId } from '@ca/schema';
import { createTsAdapter, createTsSemanticService, skeletonOf, type SemanticEdge, type SyntacticSkeleton, type TsSemanticService } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, removeTempRepos, tempRepo, TS_APP } from './semanticHelpers.js';

const FILE = 'src/auth/authService.ts';
const LOGIN = 'ts:file:src/auth/authService.ts#AuthService.login(string,string)';
const CLASS = 'ts:file:src/auth/authService.ts#AuthService';
const FILE_KEY = 'ts:file:src/auth/authService.ts#';

let svc: TsSemanticService;
let whole: SemanticEdge[];

const edgesOf = async (keys?: string[]) => {
  const r = await svc.analyzeRepository(TS_APP, { deadlineMs: 60_000, files: [FILE], ...(keys ? { regions: [{ path: FILE, keys }] } : {}) });
  return {
    edges: r.projects.flatMap((p) => p.edges),
    refinements: r.projects.flatMap((p) => p.keyRefinements).map((k) => `${k.oldKey} -> ${k.newKey}`).sort(),
  };
};

beforeAll(async () => {
  ensureWorkerBuilt();
  svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
  whole = (await edgesOf()).edges;
}, 180_000);
afterAll(async () => {
  await svc.dispose();
});

describe('regions: a file analysed for some of its declarations', () => {
  it('resolves exactly the uses inside the named declarations, as the whole-file pass does', async () => {
    const keys = [LOGIN, FILE_KEY];
    const region = await edgesOf(keys);
    const expected = whole.filter((e) => keys.includes(e.sourceKey));
    expect(edgeRows(region.edges, true).sort()).toEqual(edgeRows(expected, true).sort());
    // login's uses, by hand from the fixture (lines 22–35; `this.store` is a parameter property, no node), and the file's imports.
    expect(edgeRows(region.edges.filter((e) => e.sourceKey === LOGIN), true).sort()).toEqual([
      `calls ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.checkPassword(string,string) exact L27`,
      `calls ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.issueToken(string) exact L32`,
      `calls ${LOGIN} -> ts:file:src/auth/tokenStore.ts#TokenStore.save(string,StoredToken) exact L33`,
      // `this.activeUser = user`: the accessor pair.
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.activeUser@get() exact L34`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.activeUser@set(string|null) exact L34`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.failedAttempts exact L23`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.failedAttempts exact L28`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#AuthService.failedAttempts exact L31`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#Session exact L22`,
      // `return { userId: user, token }`: the members of the returned Session.
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#Session.token exact L35`,
      `references ${LOGIN} -> ts:file:src/auth/authService.ts#Session.userId exact L35`,
      `references ${LOGIN} -> ts:file:src/utils/format.ts#MAX_LOGIN_ATTEMPTS exact L24`,
    ]);
    expect(region.edges.filter((e) => e.sourceKey === FILE_KEY).map((e) => e.type)).toEqual(['imports', 'imports', 'imports', 'imports', 'imports']);
  }, 60_000);

  it('gives no edges for no keys, nor for a class whose members are not named; refinements stay whole', async () => {
    const all = await edgesOf();
    const none = await edgesOf([]);
    expect(none.edges).toEqual([]);
    expect(none.refinements).toEqual(all.refinements);
    // The class itself: only its own text (the constructor's parameter property default is the constructor's).
    const cls = await edgesOf([CLASS]);
    expect(edgeRows(cls.edges, true)).toEqual(edgeRows(whole.filter((e) => e.sourceKey === CLASS), true));
  }, 60_000);
});

describe('prepare: the programs built ahead of a partial request', () => {
  it('a prepared worker answers the partial request exactly as a cold one; an edit after prepare is still seen', async () => {
    const timingFile = join(mkdtempSync(join(tmpdir(), 'ca-prepare-')), 'timing.txt');
    const root = tempRepo({
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'src/lib.ts': 'export function foo(): number {\n  return 1;\n}\nexport function bar(): number {\n  return 2;\n}\n',
      'src/main.ts': "import { foo } from './lib';\nexport function run(): number {\n  return foo();\n}\n",
    });
    const before = process.env.CA_DEBUG_SEMANTIC_TIMING;
    process.env.CA_DEBUG_SEMANTIC_TIMING = timingFile;
    const prepared = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
    try {
      // The worker is forked here (with the environment above).
      prepared.prepare(root, ['src/main.ts']);
      await new Promise((r) => setTimeout(r, 50));
      if (before === undefined) delete process.env.CA_DEBUG_SEMANTIC_TIMING;
      else process.env.CA_DEBUG_SEMANTIC_TIMING = before;
      // The request that follows waits behind the preparation; the edit made in between is read.
      writeFileSync(join(root, 'src/main.ts'), "import { bar } from './lib';\nexport function run(): number {\n  return bar();\n}\n");
      const r = await prepared.analyzeRepository(root, { deadlineMs: 60_000, files: ['src/main.ts'] });
      expect(edgeRows(r.projects.flatMap((p) => p.edges).filter((e) => e.type === 'calls'), true)).toEqual([
        'calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#bar() exact L3',
      ]);
      const lines = readFileSync(timingFile, 'utf8').split('\n');
      expect(lines.filter((l) => l.startsWith('prepare ')).map((l) => l.replace(/\d+ ms/, 'N ms'))).toEqual(['prepare N ms (1 programs)']);
      // main.ts changed after the preparation (and no skeleton vouches for its new text): the
      // prepared program is not used, the request builds its own.
      expect(programLines(lines)).toEqual(['program tsconfig.json (built)']);
    } finally {
      await prepared.dispose();
      removeTempRepos();
    }
  }, 60_000);

  it('the first prepare starts with the worker, while the caller is still busy parsing', async () => {
    const { root, timingFile } = smallRepo();
    const svc2 = withTiming(timingFile, () => createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 }));
    try {
      withTiming(timingFile, () => svc2.prepare(root, ['src/main.ts']));
      // This thread never yields (as `ca index` parsing files synchronously): a prepare posted
      // after the worker's handshake would wait for it; one handed over with the fork does not.
      const pause = new Int32Array(new SharedArrayBuffer(4));
      const until = Date.now() + 50_000;
      let text = '';
      while (Date.now() < until && !text.includes('prepare ')) {
        Atomics.wait(pause, 0, 0, 25);
        text = existsSync(timingFile) ? readFileSync(timingFile, 'utf8') : '';
      }
      expect(text.split('\n').filter((l) => l.startsWith('prepare ')).map((l) => l.replace(/\d+ ms/, 'N ms'))).toEqual(['prepare N ms (1 programs)']);
    } finally {
      await svc2.dispose();
      removeTempRepos();
    }
  }, 60_000);

  it('the prepared program serves the request while its files are as prepared, with the edges a cold worker gives', async () => {
    const { root, timingFile } = smallRepo();
    const main = "import { foo } from './lib';\nexport function run(): number {\n  return foo();\n}\n";
    const adapter = await createTsAdapter();
    // The caller's skeleton of the changed file vouches for the text the worker prepared.
    const skeleton: SyntacticSkeleton = skeletonOf('src/main.ts', gitBlobId(Buffer.from(main)), await adapter.parse({ path: 'src/main.ts', text: main }));
    const request = { deadlineMs: 60_000, files: ['src/main.ts'], syntactic: [skeleton] };
    const cold = createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 });
    const warmSvc = withTiming(timingFile, () => createTsSemanticService({ maxOldSpaceSizeMb: 512, workers: 1 }));
    try {
      const expected = (await cold.analyzeRepository(root, request)).projects.flatMap((p) => p.edges);
      withTiming(timingFile, () => warmSvc.prepare(root, ['src/main.ts']));
      const r = await warmSvc.analyzeRepository(root, request);
      expect(edgeRows(r.projects.flatMap((p) => p.edges), true).sort()).toEqual(edgeRows(expected, true).sort());
      expect(edgeRows(expected.filter((e) => e.type === 'calls'), true)).toEqual(['calls ts:file:src/main.ts#run() -> ts:file:src/lib.ts#foo() exact L3']);
      expect(programLines(readFileSync(timingFile, 'utf8').split('\n'))).toEqual(['program tsconfig.json (prepared)']);
      // Used once: the next request builds (from the warm parsed files) again.
      await warmSvc.analyzeRepository(root, request);
      expect(programLines(readFileSync(timingFile, 'utf8').split('\n'))).toEqual(['program tsconfig.json (prepared)', 'program tsconfig.json (built)']);
    } finally {
      await cold.dispose();
      await warmSvc.dispose();
      removeTempRepos();
    }
  }, 60_000);
});

/** A two-file project and a timing file for its worker. */
function smallRepo(): { root: string; timingFile: string } {
  const timingFile = join(mkdtempSync(join(tmpdir(), 'ca-prepare-')), 'timing.txt');
  const root = tempRepo({
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
    'src/lib.ts': 'export function foo(): number {\n  return 1;\n}\nexport function bar(): number {\n  return 2;\n}\n',
    'src/main.ts': "import { foo } from './lib';\nexport function run(): number {\n  return foo();\n}\n",
  });
  return { root, timingFile };
}

/** Runs `f` with `CA_DEBUG_SEMANTIC_TIMING` set (a worker forked meanwhile inherits it). */
function withTiming<T>(file: string, f: () => T): T {
  const before = process.env.CA_DEBUG_SEMANTIC_TIMING;
  process.env.CA_DEBUG_SEMANTIC_TIMING = file;
  try {
    return f();
  } finally {
    if (before === undefined) delete process.env.CA_DEBUG_SEMANTIC_TIMING;
    else process.env.CA_DEBUG_SEMANTIC_TIMING = before;
  }
}

/** The worker's `program` timing lines: which project's program, prepared ahead or built by the request. */
function programLines(lines: readonly string[]): string[] {
  return lines.filter((l) => l.startsWith('program ')).map((l) => `program ${l.split(' ')[1]} (${l.endsWith('(prepared)') ? 'prepared' : 'built'})`);
}
