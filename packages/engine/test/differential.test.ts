import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeGenerator, compare, runDifferential, snapshot, workspaceOf, type EngineClass, type StepResult } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { dotnetMissing, REPO_ROOT, testModels } from './helpers.js';

// Differential testing (decision 022): seeded change sequences generated from a fixture's own
// content; after every step the incremental index must equal a clean index of the same tree
// (files, nodes, spans, edges, re-exports, FTS terms, vectors, navigation answers). The long run
// is tools/bench/differential.mjs; this is the bounded one. CA_DIFFERENTIAL_STEPS raises it.
const STEPS = Number(process.env['CA_DIFFERENTIAL_STEPS'] ?? '8');
const TS_APP = join(REPO_ROOT, 'fixtures', 'ts-app');
const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = dotnetMissing() === null;
const models = testModels();
// Deadlines far above the runs' needs (as tools/bench/differential.mjs): a parse or pass cut short by a loaded machine is not what is compared.
const PATIENT = { indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 } };
const noEmbeddings = { env: {}, configOverrides: { ...PATIENT, embedding: { enabled: false } } };

/** Each differing step, with its diff and the seed/step that replay it (empty when all are equal). */
const differing = (results: readonly StepResult[]) => results.filter((r) => r.differences.length > 0).map((r) => `${r.replay} (${r.op}: ${r.detail})\n${r.differences.join('\n')}`);

describe('the comparator', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(TS_APP);
    engine = Engine.open(repo, noEmbeddings);
    await engine.index();
  }, 120_000);
  afterAll(() => engine.close());

  it('reports the file, nodes, edges and FTS rows that one index has and the other lacks or holds otherwise', async () => {
    const before = snapshot(engine, []);
    const path = join(repo, 'src/utils/format.ts');
    writeFileSync(path, `${readFileSync(path, 'utf8')}\nexport function caProbe(): number {\n  return formatPercent(1);\n}\n`);
    await engine.index();
    const after = snapshot(engine, []);
    const diff = compare(before, after);
    // format.ts: a new content hash; a new node (caProbe, lines 37–39 after the 35-line file and
    // a blank line) and the file node's span/chunk (~); its `contains` edge and its call, which
    // stays a syntactic guess (format.ts declares no formatPercent); caProbe's FTS row and the
    // file node's (its body words changed).
    expect(diff.filter((l) => /^\S/.test(l))).toEqual(['files: 1 differ', 'nodes: 2 differ', 'edges: 2 differ', 'fts: 2 differ']);
    expect(diff.some((l) => l.startsWith('  ~ src/utils/format.ts|ts:file:src/utils/format.ts#|0\n'))).toBe(true);
    expect(diff.some((l) => l.startsWith('  + src/utils/format.ts|ts:file:src/utils/format.ts#caProbe()|0: function ¦ caProbe ¦ caProbe ¦ ts-app-fixture ¦ 37-39/'))).toBe(true);
    expect(diff.filter((l) => l.includes(' -contains/') || l.includes(' -calls/'))).toEqual([
      '  + src/utils/format.ts|ts:file:src/utils/format.ts#caProbe()|0 -calls/approximate/syntactic-> unresolved ?formatPercent formatPercent @38 module=- imported=- specifier=- (clean 0, incremental 1)',
      '  + src/utils/format.ts|ts:file:src/utils/format.ts#|0 -contains/exact/syntactic-> node src/utils/format.ts|ts:file:src/utils/format.ts#caProbe()|0 @37 module=- imported=- specifier=- (clean 0, incremental 1)',
    ]);
    expect(compare(after, after)).toEqual([]);
  }, 120_000);

  it('does not tell two copies of a skipped file apart by their modification times', async () => {
    // `.npmrc` is named like a credentials file: skipped, stamped `skipped:size:mtime:reason`. A
    // clean copy of the tree gets new modification times; the difference found on vercel/swr
    // (seed 1, step 1) was only that time.
    const copies = [workspaceOf(TS_APP), workspaceOf(TS_APP)];
    const engines = copies.map((dir, n) => {
      writeFileSync(join(dir, '.npmrc'), 'registry=https://registry.example/\n');
      utimesSync(join(dir, '.npmrc'), new Date(Date.UTC(2026, n, 1)), new Date(Date.UTC(2026, n, 1)));
      return Engine.open(dir, noEmbeddings);
    });
    try {
      for (const e of engines) await e.index();
      const [a, b] = engines.map((e) => snapshot(e, []));
      // 35 bytes: "registry=https://registry.example/" and its newline.
      expect(a!.dump.files.get('.npmrc')).toMatch(/^skipped:35:secret file/);
      expect(compare(a!, b!)).toEqual([]);
    } finally {
      for (const e of engines) e.close();
    }
  }, 120_000);
});

describe('the generator', () => {
  it('draws the same changes from the same seed', async () => {
    const run = async () => {
      const repo = workspaceOf(TS_APP);
      const engine = Engine.open(repo, { ...noEmbeddings, configOverrides: { ...noEmbeddings.configOverrides, semantic: { enabled: false } } });
      try {
        await engine.index();
        const g = new ChangeGenerator(repo, 7);
        const out: string[] = [];
        for (let n = 1; n <= 4; n++) {
          out.push(JSON.stringify(g.step(engine, n)));
          await engine.index();
        }
        return out;
      } finally {
        engine.close();
      }
    };
    const a = await run();
    expect(a).toHaveLength(4);
    expect(await run()).toEqual(a);
  }, 120_000);
});

describe('incremental == clean over generated changes', () => {
  it.each([1, 2])(`TS fixture (ts-app), seed %i, ${STEPS} steps`, async (seed) => {
    const results = await runDifferential({ Engine: Engine as unknown as EngineClass, source: TS_APP, seed, steps: STEPS, engineOptions: noEmbeddings });
    expect(results).toHaveLength(STEPS);
    expect(differing(results)).toEqual([]);
  }, 900_000);

  it.skipIf(!hasDotnet)(`C# fixture (cs-solution) with the .NET pass, seed 1, ${STEPS} steps`, async () => {
    const results = await runDifferential({ Engine: Engine as unknown as EngineClass, source: CS, seed: 1, steps: STEPS, engineOptions: noEmbeddings });
    expect(results).toHaveLength(STEPS);
    expect(differing(results)).toEqual([]);
  }, 900_000);

  it.skipIf(models.missing !== null)('TS fixture with embeddings: vectors too, seed 3, 3 steps', async () => {
    const withModel = { env: {}, configOverrides: { ...PATIENT, embedding: { model_dir: models.dir, allow_download: false } } };
    const results = await runDifferential({ Engine: Engine as unknown as EngineClass, source: TS_APP, seed: 3, steps: 3, engineOptions: withModel, queries: 2 });
    expect(results).toHaveLength(3);
    expect(differing(results)).toEqual([]);
  }, 900_000);
});
