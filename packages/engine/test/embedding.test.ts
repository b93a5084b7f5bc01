import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
      // fixtures/ts-app: 92 nodes to embed (13 files, 79 symbols; the 11 nodes of its documentation files get no vectors, decision 039).
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

describe.skipIf(MODEL_MISSING !== null)('file vectors follow what their imports resolve to', () => {
  it('an importer unchanged by a rename in the imported file is embedded again, as a clean index embeds it', async () => {
    const options = { env: {}, configOverrides: { embedding: { model_dir: MODELS, allow_download: false } } };
    const repo = copyFixture(TS_APP);
    const incremental = Engine.open(repo, options);
    let clean: Engine | undefined;
    const userCard = (e: Engine): string[] => assignments(e).filter((row) => row.startsWith('src/components/UserCard.tsx ') && row.includes(' file '));
    const importsOf = (e: Engine): string[] => {
      const reader = e.store.reader('working');
      const id = (dbOf(e).prepare(`SELECT n.id FROM nodes n JOIN label_files lf ON lf.file_id = n.file_id WHERE lf.path = ? AND n.kind = 'file'`).get('src/components/UserCard.tsx') as { id: number }).id;
      return reader.fileImports(id);
    };
    try {
      await incremental.index();
      // UserCard.tsx imports `Button` (signature `(ButtonProps)`) and `truncate(string, _)`: its file
      // text lists the names these imports resolve to (the semantic pass's edges).
      expect(importsOf(incremental)).toEqual(['react', 'Button(ButtonProps)', 'truncate(string,_)']);
      const before = userCard(incremental);
      expect(before).toHaveLength(1);
      // Rename ButtonProps where it is written (Button.tsx and the components index); UserCard.tsx
      // does not name it, so its own text (chunk) is unchanged, but Button's signature changes.
      for (const rel of ['src/components/Button.tsx', 'src/components/index.ts']) {
        const path = join(repo, rel);
        writeFileSync(path, readFileSync(path, 'utf8').replace(/\bButtonProps\b/g, 'ButtonPropsR3'));
      }
      await incremental.index();
      expect(importsOf(incremental)).toEqual(['react', 'Button(ButtonPropsR3)', 'truncate(string,_)']);
      const cleanRepo = copyFixture(repo);
      rmSync(join(cleanRepo, '.codeagent'), { recursive: true, force: true }); // a clean index, not a copy of this one
      clean = Engine.open(cleanRepo, options);
      await clean.index();
      // Before the fix the importer kept the vector of its old text (`Button(ButtonProps)`).
      expect(userCard(incremental)).toEqual(userCard(clean));
      expect(userCard(incremental)).not.toEqual(before);
    } finally {
      await Promise.all([incremental.dispose(), clean?.dispose()]);
    }
  }, 240_000);
});
