import { describe, expect, it } from 'vitest';
import { embedPending } from '../src/embedding.js';
import { Engine } from '../src/index.js';
import { copyFixture, testModels, TS_APP, dbOf } from './helpers.js';

const { dir: MODELS, missing: MODEL_MISSING } = testModels();

/** `path qualifiedName kind window contentHash` of every stored vector assignment, sorted. */
function assignments(engine: Engine): string[] {
  const rows = dbOf(engine)
    .prepare(
      `SELECT lf.path || ' ' || n.qualified_name || ' ' || n.kind || ' ' || ne.window || ' ' || e.content_hash AS row
       FROM node_embeddings ne JOIN nodes n ON n.id = ne.node_id JOIN label_files lf ON lf.file_id = n.file_id
       JOIN embeddings e ON e.id = ne.embedding_id`,
    )
    .all() as { row: string }[];
  return rows.map((r) => r.row).sort();
}

describe.skipIf(MODEL_MISSING !== null)('embedPending rounds', () => {
  it('overlapping rounds (the next built while one embeds) give every node the texts one round gives it', async () => {
    const open = (): Engine =>
      Engine.open(copyFixture(TS_APP), {
        env: {},
        configOverrides: { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } },
      });
    const [a, b] = [open(), open()];
    try {
      // fixtures/ts-app: 92 nodes to embed (13 files, 79 symbols).
      await a.index({ embedLimit: 0 });
      await b.index({ embedLimit: 0 });
      const progress: number[] = [];
      const rounds = await embedPending(a.store, a.config.embedding, 'working', (done) => progress.push(done), undefined, undefined, 20);
      expect(progress).toEqual([0, 20, 40, 60, 80, 92]);
      expect([rounds.nodes, rounds.pending]).toEqual([92, 0]);
      const once = await embedPending(b.store, b.config.embedding, 'working', undefined, undefined, undefined, 512);
      expect([once.nodes, once.pending]).toEqual([92, 0]);
      const stored = assignments(a);
      expect(stored).toEqual(assignments(b));
      expect(stored.length).toBe(once.texts);
      expect(rounds.texts).toBe(once.texts);
      // Nothing is left for another pass.
      expect((await embedPending(a.store, a.config.embedding, 'working')).nodes).toBe(0);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  }, 120_000);
});

describe.skipIf(MODEL_MISSING !== null)('embedding text budgets', () => {
  it('text_tokens and max_windows set what each symbol embeds', async () => {
    const engine = Engine.open(copyFixture(TS_APP), {
      env: {},
      configOverrides: {
        embedding: { model_dir: MODELS, allow_download: false, text_tokens: 32, max_windows: 0 },
        semantic: { enabled: false },
      },
    });
    try {
      await engine.index({ embedLimit: 0 });
      const r = await embedPending(engine.store, engine.config.embedding, 'working');
      // fixtures/ts-app: 92 nodes, one text each, none over 32 tokens (special tokens included).
      expect([r.nodes, r.texts]).toEqual([92, 92]);
      expect(r.tokens).toBeLessThanOrEqual(92 * 32);
      expect(assignments(engine).filter((row) => !row.includes(' 0 '))).toEqual([]);
    } finally {
      await engine.dispose();
    }
  }, 120_000);
});
