import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { createTsSemanticService, type SemanticServiceEvent } from '../src/index.js';
import { edgeRows, ensureWorkerBuilt, MONOREPO, projectOf, removeTempRepos, tempRepo } from './semanticHelpers.js';

const repo = (files: Record<string, string>): string => tempRepo(files, 'ca-sem-');

const CALLER = `import { helper } from './lib';\nexport function main() {\n  return helper();\n}\n`;
const LIB = `export function helper() {\n  return 1;\n}\n`;

beforeAll(() => ensureWorkerBuilt(), 180_000);
afterAll(() => {
  removeTempRepos();
});

describe('safety: tsconfig plugins and the repository’s own typescript never load', () => {
  it('a malicious plugin (also via extends) and a fake node_modules/typescript write no marker', async () => {
    const marker = join(tmpdir(), `ca-sem-marker-${process.pid}-${Date.now()}`);
    const evil = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'loaded');\nmodule.exports = () => ({ create: (i) => i.languageService });\n`;
    const root = repo({
      'tsconfig.base.json': JSON.stringify({ compilerOptions: { plugins: [{ name: 'evil-base-plugin' }] } }),
      'tsconfig.json': JSON.stringify({
        extends: './tsconfig.base.json',
        compilerOptions: { strict: true, plugins: [{ name: 'evil-plugin' }] },
        include: ['src'],
      }),
      'node_modules/evil-plugin/package.json': JSON.stringify({ name: 'evil-plugin', main: 'index.js' }),
      'node_modules/evil-plugin/index.js': evil,
      'node_modules/evil-base-plugin/package.json': JSON.stringify({ name: 'evil-base-plugin', main: 'index.js' }),
      'node_modules/evil-base-plugin/index.js': evil,
      'node_modules/typescript/package.json': JSON.stringify({ name: 'typescript', version: '9.9.9', main: 'index.js' }),
      'node_modules/typescript/index.js': evil,
      'src/main.ts': CALLER,
      'src/lib.ts': LIB,
    });
    const events: SemanticServiceEvent[] = [];
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, onEvent: (e) => events.push(e) });
    try {
      const r = await svc.analyzeRepository(root, { deadlineMs: 60_000 });
      expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([['tsconfig.json', 'ok']]);
      expect(edgeRows(r.projects[0]!.edges.filter((e) => e.type === 'calls'))).toEqual([
        'calls ts:file:src/main.ts#main() -> ts:file:src/lib.ts#helper() exact',
      ]);
      expect(existsSync(marker)).toBe(false);
      expect(events.filter((e) => e.type === 'worker_event' && e.code === 'plugin_blocked').map((e) => e.message)).toEqual([
        "compiler plugin 'evil-plugin' stripped (plugins never run)",
        "compiler plugin 'evil-base-plugin' stripped (plugins never run)",
      ]);
    } finally {
      await svc.dispose();
      rmSync(marker, { force: true });
    }
  }, 60_000);
});

describe('bad projects and files', () => {
  it('missing extends, circular extends and invalid JSON fail alone; the good project is analysed', async () => {
    const root = repo({
      'packages/missing/tsconfig.json': JSON.stringify({ extends: './does-not-exist.json', include: ['src'] }),
      'packages/missing/src/a.ts': LIB,
      'packages/circular/tsconfig.json': JSON.stringify({ extends: './tsconfig.other.json', include: ['src'] }),
      'packages/circular/tsconfig.other.json': JSON.stringify({ extends: './tsconfig.json' }),
      'packages/circular/src/a.ts': LIB,
      'packages/broken/tsconfig.json': '{ "compilerOptions": { "strict": true, ',
      'packages/broken/src/a.ts': LIB,
      'packages/good/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'packages/good/src/main.ts': CALLER,
      'packages/good/src/lib.ts': LIB,
    });
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
    try {
      const r = await svc.analyzeRepository(root, { deadlineMs: 60_000 });
      expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([
        ['packages/broken/tsconfig.json', 'failed'],
        ['packages/circular/tsconfig.json', 'failed'],
        ['packages/good/tsconfig.json', 'ok'],
        ['packages/missing/tsconfig.json', 'failed'],
      ]);
      const reason = (t: string): string => projectOf(r.projects, t).reason ?? '';
      expect(reason('packages/missing/tsconfig.json')).toMatch(/^project_load_failed: TS\d+: .*does-not-exist\.json/);
      expect(reason('packages/circular/tsconfig.json')).toMatch(/^project_load_failed: TS18000: Circularity/);
      expect(reason('packages/broken/tsconfig.json')).toMatch(/^project_load_failed: TS1\d{3}: /);
      for (const t of ['packages/missing/tsconfig.json', 'packages/circular/tsconfig.json', 'packages/broken/tsconfig.json']) {
        expect(projectOf(r.projects, t).edges).toEqual([]);
      }
      expect(edgeRows(projectOf(r.projects, 'packages/good/tsconfig.json').edges)).toEqual([
        'imports ts:file:packages/good/src/main.ts# -> ts:file:packages/good/src/lib.ts#helper() exact',
        'calls ts:file:packages/good/src/main.ts#main() -> ts:file:packages/good/src/lib.ts#helper() exact',
      ]);
    } finally {
      await svc.dispose();
    }
  }, 60_000);

  it('a 5,000-term || chain: no crash, the other files keep their edges', async () => {
    const chain = `export function big(a: boolean): boolean {\n  return ${Array.from({ length: 5000 }, () => 'a').join(' || ')};\n}\n`;
    const root = repo({ 'src/chain.ts': chain, 'src/main.ts': CALLER, 'src/lib.ts': LIB });
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
    try {
      const r = await svc.analyzeRepository(root, { deadlineMs: 60_000 });
      // No tsconfig: one inferred project (allowJs, checkJs=false).
      expect(r.projects.map((p) => [p.tsconfig, p.status, p.files])).toEqual([
        [null, 'ok', ['src/chain.ts', 'src/lib.ts', 'src/main.ts']],
      ]);
      const p = r.projects[0]!;
      // TypeScript's binder overflows on this chain: the file is excluded and reported alone.
      expect(p.fileErrors).toEqual([{ path: 'src/chain.ts', reason: 'semantic_unavailable: stack overflow: syntax nested 5003 levels deep' }]);
      expect(edgeRows(p.edges.filter((e) => e.sourcePath === 'src/main.ts'))).toEqual([
        'imports ts:file:src/main.ts# -> ts:file:src/lib.ts#helper() exact',
        'calls ts:file:src/main.ts#main() -> ts:file:src/lib.ts#helper() exact',
      ]);
    } finally {
      await svc.dispose();
    }
  }, 60_000);
});

describe('supervision', () => {
  it('killing the worker mid-pass: it is restarted and the pass completes with the same result', async () => {
    const baseline = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
    const expected = await baseline.analyzeRepository(MONOREPO, { deadlineMs: 120_000 });
    await baseline.dispose();

    const events: SemanticServiceEvent[] = [];
    let killed = 0;
    const svc = createTsSemanticService({
      maxOldSpaceSizeMb: 512,
      onEvent: (e) => {
        events.push(e);
        // The worker running web (with 2 workers it may not be the first one).
        if (e.type === 'project_start' && e.project === 'packages/web/tsconfig.json' && killed === 0 && e.pid) {
          killed = e.pid;
          process.kill(e.pid, 'SIGKILL');
        }
      },
    });
    try {
      const r = await svc.analyzeRepository(MONOREPO, { deadlineMs: 120_000 });
      expect(killed).toBeGreaterThan(0);
      expect(events.filter((e) => e.type === 'restart').map((e) => [e.pid, e.code])).toEqual([[killed, 'crash']]);
      expect(svc.pids).not.toContain(killed);
      expect(r).toEqual(expected);
    } finally {
      await svc.dispose();
    }
  }, 120_000);

  it('an expired deadline reports the unfinished projects as failed with timeout', async () => {
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512 });
    try {
      const outcome = await svc.analyzeRepository(MONOREPO, { deadlineMs: 0 }).then(
        (r) => r,
        (e: unknown) => e,
      );
      if (outcome instanceof CaError) {
        // The supervisor's hard timer may win before the worker even planned the request.
        expect(outcome.code).toBe('timeout');
      } else {
        const r = outcome as Awaited<ReturnType<typeof svc.analyzeRepository>>;
        expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([
          ['packages/core/tsconfig.json', 'failed'],
          ['packages/web/tsconfig.json', 'failed'],
        ]);
        for (const p of r.projects) expect(p.reason).toMatch(/^timeout: /);
      }
    } finally {
      await svc.dispose();
    }
  }, 60_000);

  it('a newer request supersedes a running one; the worker shuts down when idle', async () => {
    const events: SemanticServiceEvent[] = [];
    const svc = createTsSemanticService({ maxOldSpaceSizeMb: 512, idleTimeoutMs: 100, onEvent: (e) => events.push(e) });
    try {
      const first = svc.analyzeRepository(MONOREPO, { deadlineMs: 120_000 });
      const second = svc.analyzeRepository(MONOREPO, { files: ['packages/core/src/money.ts'], deadlineMs: 120_000 });
      await expect(first).rejects.toMatchObject({ code: 'semantic_unavailable', message: 'superseded by a newer request' });
      const r = await second;
      expect(r.projects.map((p) => [p.tsconfig, p.status, p.files])).toEqual([
        ['packages/core/tsconfig.json', 'ok', ['packages/core/src/money.ts']],
      ]);
      for (let i = 0; i < 100 && svc.pid !== null; i++) await new Promise((res) => setTimeout(res, 50));
      expect(svc.pid).toBeNull();
      expect(events.filter((e) => e.type === 'spawned')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'idle_shutdown')).toHaveLength(1);
    } finally {
      await svc.dispose();
    }
  }, 120_000);
});
