import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMANTIC_ONLY_NOTICE, underFloorNotice } from '@ca/retrieve';
import { Engine } from '../src/index.js';
import { copyFixture, tempDir, testModels, TS_APP } from './helpers.js';

const { dir: MODELS, missing: MODEL_MISSING } = testModels();

/** Generated functions in the big file. */
const GENERATED = 2000;
/** Other files that call the real definition. */
const USERS = 8;
const BIG = 'src/generated/handlers.ts';

/**
 * A repository where one generated file of 2,000 functions, each calling `loadUserRecord`,
 * competes with the real definition (src/users/load.ts) and 8 other callers, one per file.
 */
function generatedRepo(): string {
  const repo = join(tempDir(), 'repo');
  mkdirSync(join(repo, 'src/generated'), { recursive: true });
  mkdirSync(join(repo, 'src/users'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{ "name": "gen" }\n');
  writeFileSync(join(repo, 'src/users/load.ts'), "/** Reads one user's record. */\nexport function loadUserRecord(id: string): string {\n  return `user:${id}`;\n}\n");
  const handlers = Array.from({ length: GENERATED }, (_, i) => `export function handler${i}(id: string): string {\n  return loadUserRecord(id);\n}\n`);
  writeFileSync(join(repo, BIG), `import { loadUserRecord } from '../users/load';\n\n${handlers.join('\n')}`);
  for (let j = 0; j < USERS; j++) {
    mkdirSync(join(repo, `src/feature${j}`));
    writeFileSync(join(repo, `src/feature${j}/use.ts`), `import { loadUserRecord } from '../users/load';\n\nexport function useCase${j}(id: string): string {\n  return loadUserRecord(id);\n}\n`);
  }
  return repo;
}

describe('per-file diversity: a 2,000-function generated file', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = generatedRepo();
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    await engine.index();
  }, 120_000);
  afterAll(async () => {
    await engine.dispose();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  const fromBig = (r: { results: readonly { path: string }[] }) => r.results.filter((x) => x.path === BIG).length;

  it('the real definition is first and the big file holds 5 of the 10 results (max(3, 10/2))', async () => {
    const r = await engine.search('loadUserRecord', { limit: 10 });
    // Unchecked, the definition and then 9 handlers (their bodies name loadUserRecord, and the
    // file's 2,000 chunks outrank the callers' file chunks). The big file holds more than its
    // share, so its candidates past the 5th wait behind every other file's: the definition, its
    // 5 best handlers, load.ts's file chunk and the first callers' file chunks.
    // (The 8 callers' file chunks score the same: which 3 of them come is a tie.)
    expect(r.results.slice(0, 7).map((x) => `${x.qualifiedName} ${x.path}`)).toEqual([
      'loadUserRecord src/users/load.ts',
      ...[0, 1, 2, 3, 4].map((i) => `handler${i} ${BIG}`),
      'src/users/load.ts src/users/load.ts',
    ]);
    const callers = r.results.slice(7).map((x) => x.path);
    expect([callers.length, new Set(callers).size, callers.every((p) => /^src\/feature[0-7]\/use\.ts$/.test(p))]).toEqual([3, 3, true]);
    expect(fromBig(r)).toBe(5);
  });

  it('with more slots than other files have candidates, the big file fills the rest (fewer files exist)', async () => {
    const r = await engine.search('loadUserRecord', { limit: 20 });
    // Cap 10: the definition, 10 handlers, then other files' 9 candidates (load.ts's file chunk,
    // 8 callers' file chunks) = 20; the big file holds exactly its cap.
    expect(r.results.map((x) => x.qualifiedName).slice(1, 11)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `handler${i}`));
    expect([r.results.length, fromBig(r), r.results.filter((x) => x.path !== BIG).length]).toEqual([20, 10, 10]);
    // 40 slots: other files have only 10 candidates, so the big file takes the other 30.
    const wide = await engine.search('loadUserRecord', { limit: 40 });
    expect([wide.results.length, fromBig(wide)]).toEqual([40, 30]);
  });

  it('a search narrowed to the file (--path) is not capped', async () => {
    const r = await engine.search('loadUserRecord', { limit: 10, pathGlob: 'src/generated/**' });
    expect([r.results.length, fromBig(r)]).toEqual([10, 10]);
  });
});

describe.skipIf(MODEL_MISSING !== null)('relevance floor: words no indexed file holds (with vectors)', () => {
  let engine: Engine;
  let repo: string;
  beforeAll(async () => {
    repo = copyFixture(TS_APP);
    // Words only a YAML file holds: YAML is not indexed, so no lexical channel can match them.
    mkdirSync(join(repo, 'deploy'));
    writeFileSync(join(repo, 'deploy/pipeline.yaml'), 'kubernetes:\n  helm_chart: ingress\n  replicas: 3\n');
    engine = Engine.open(repo, { env: {}, configOverrides: { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } } });
    const report = await engine.index();
    expect(report.embeddings?.off).toBeNull();
  }, 180_000);
  afterAll(async () => {
    await engine.dispose();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('YAML-only words and a nonsense query: no results, and the notice says why', async () => {
    for (const q of ['kubernetes helm chart ingress replicas', 'zxqv blorf quux']) {
      const r = await engine.search(q);
      expect([q, r.results.length, r.notices]).toEqual([q, 0, [underFloorNotice(0.2)]]);
    }
  });

  it('--min-similarity -1 keeps the nearest symbols, flagged as only semantically similar', async () => {
    const r = await engine.search('kubernetes helm chart ingress replicas', { minSimilarity: -1, limit: 5 });
    expect([r.results.length, r.notices]).toEqual([5, [SEMANTIC_ONLY_NOTICE]]);
    expect(r.results.every((x) => x.matchedBy.join() === 'vector')).toBe(true);
  });

  it('a query that matches words is not gated, and has no notice', async () => {
    const r = await engine.search('cancel the subscription', { limit: 5 });
    expect(r.notices).toEqual([]);
    expect([r.results[0]!.qualifiedName, r.results[0]!.matchedBy]).toEqual(['PaymentProvider', ['bm25', 'vector']]);
  });
});
