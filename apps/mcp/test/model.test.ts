import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, copyFixture, type Connected } from './helpers.js';

/** The embedding model folder: CA_EMBEDDING_MODEL_DIR (set by .ci/run), else these tests are skipped with the reason. */
const MODELS = process.env['CA_EMBEDDING_MODEL_DIR'] ?? '';
const MISSING = existsSync(join(MODELS, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx'))
  ? null
  : `embedding model all-MiniLM-L6-v2 not found in CA_EMBEDDING_MODEL_DIR="${MODELS}"`;
if (MISSING && process.env['CA_REQUIRE_MODEL'] === '1') throw new Error(MISSING);
if (MISSING) console.warn(`SKIPPED: the MCP tests that embed: ${MISSING}`);
/** The model, no semantic pass (these tests are about vectors). */
const WITH_MODEL = { embedding: { model_dir: MODELS, allow_download: false }, semantic: { enabled: false } };

describe.skipIf(MISSING !== null)('MCP server with the embedding model (fixtures/ts-app)', () => {
  let repo: string;
  let mcp: Connected;
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    mcp = await connect({ repo, configOverrides: WITH_MODEL });
  }, 180_000);
  afterAll(async () => {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  it('status says the vector channel is on; a question in words finds its symbol through it', async () => {
    const status = await mcp.call('get_status');
    expect(status.json.vectorChannel).toMatch(/^on: all-MiniLM-L6-v2 \(384 dims\), \d+ vectors$/);
    const r = await mcp.call('search_code', { query: 'stop charging this customer every month', limit: 3 });
    expect(r.json.notices).toEqual([]);
    expect(r.json.results.some((x: any) => x.code.includes('terminatePlan()') && x.matchedBy.some((c: string) => c.startsWith('vector#')))).toBe(true);
    // find_similar answers from the vectors: no fallback notice, every result a vector neighbour, not the symbol's own class.
    const similar = await mcp.call('find_similar', { symbol: 'MemoryTokenStore.load', limit: 3 });
    expect(similar.json.notices).toEqual([]);
    expect(similar.json.results.map((x: any) => x.matchedBy)).toEqual([['vector'], ['vector'], ['vector']]);
    expect(similar.json.results.map((x: any) => x.qualifiedName)).not.toContain('MemoryTokenStore');
  }, 120_000);
});

describe.skipIf(MISSING !== null)('MCP server: vectors filled in behind the answers', () => {
  /** The server on a fresh copy of fixtures/ts-app (92 nodes: 13 files, 79 symbols), `slice` symbols per slice. */
  const fresh = async (slice: number) => {
    const repo = copyFixture('ts-app');
    const mcp = await connect({ repo, embedSlice: slice, configOverrides: WITH_MODEL });
    return { mcp, remove: () => rmSync(join(repo, '..'), { recursive: true, force: true }) };
  };

  it('the first answer waits for a slice of the vectors only; the rest fill in between calls', async () => {
    const { mcp, remove } = await fresh(40);
    try {
      // The first refresh embeds 40 of the 92 nodes.
      const first = await mcp.call('search_code', { query: 'AuthService.login' });
      expect(first.json.results[0].qualifiedName).toBe('AuthService.login');
      expect(first.json.notices).toEqual([
        'vector channel partial: 52 symbols not embedded yet; matches found only by meaning may be missing',
      ]);
      // Slices of 40 (and the refresh of each call) embed the rest.
      let pending = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 100 && pending > 0; i++) {
        await new Promise((r) => setTimeout(r, 200));
        pending = (await mcp.call('get_status')).json.freshness.embeddingsPending;
      }
      expect(pending).toBe(0);
      const r = await mcp.call('search_code', { query: 'stop charging this customer every month', limit: 3 });
      expect(r.json.notices).toEqual([]);
      expect(r.json.results.some((x: any) => x.code.includes('terminatePlan()') && x.matchedBy.some((c: string) => c.startsWith('vector#')))).toBe(true);
    } finally {
      await mcp.close();
      remove();
    }
  }, 180_000);

  it('closing waits for the slice under way and stops; a slice below 1 embeds one symbol at a time', async () => {
    const { mcp, remove } = await fresh(0);
    try {
      const first = await mcp.call('get_status');
      expect(first.json.freshness.embeddingsPending).toBe(91);
      // Closing now (slices still to come) waits for the one under way and schedules no more:
      // a hang here would fail the test by its timeout; after it nothing moves.
      await mcp.close();
      const after = mcp.app.session.state().embeddingsPending;
      expect(after).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 500));
      expect(mcp.app.session.state().embeddingsPending).toBe(after);
    } finally {
      remove();
    }
  }, 180_000);
});
