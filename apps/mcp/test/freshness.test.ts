import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, copyFixture, type Connected } from './helpers.js';

/**
 * Answers' freshness (docs/decisions/026): the files an answer comes from are compared with the
 * tree when it is given. With refresh on, the refresh before the answer indexed the edit, so the
 * answer is fresh and says so; with --no-refresh it answers from the index and says it is stale.
 */
const FORMAT = 'src/utils/format.ts';
const opened: { mcp: Connected; repo: string }[] = [];
afterEach(async () => {
  for (const { mcp, repo } of opened.splice(0)) {
    await mcp.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  }
});

async function serve(refresh: boolean) {
  const repo = copyFixture('ts-app');
  const mcp = await connect({ repo, refresh });
  opened.push({ mcp, repo });
  // ts-app: 13 code files and README.md, package.json, tsconfig.json (documentation and configuration).
  if (!refresh) expect((await mcp.call('index_files')).json).toMatchObject({ changed: 16 });
  const file = join(repo, FORMAT);
  // The edit renames the currency default: the indexed formatCurrency said 'USD'.
  writeFileSync(file, readFileSync(file, 'utf8').replace("currency = 'USD'", "currency = 'EUR'"));
  return mcp;
}

describe('MCP answers after an edit', () => {
  it('refresh on: the answer is the edited code and its freshness says fresh', async () => {
    const mcp = await serve(true);
    const search = (await mcp.call('search_code', { query: 'formatCurrency' })).json;
    expect(search.results[0].path).toBe(FORMAT);
    expect(search.results[0].code).toContain("currency = 'EUR'");
    expect(search.freshness).toMatchObject({ stale: false, staleFiles: [], staleCount: 0 });
    expect(search.freshness.checkedFiles).toBeGreaterThanOrEqual(1);
    // callers of formatCurrency: its own file and billingAccount.ts (the call site), both compared.
    expect((await mcp.call('get_callers', { symbol: 'formatCurrency' })).json.freshness).toMatchObject({ stale: false, staleCount: 0, checkedFiles: 2 });
    const status = (await mcp.call('get_status')).json.freshness;
    expect(status).toMatchObject({ stale: false, staleCount: 0, mode: 'before-each-answer' });
  }, 120_000);

  it('--no-refresh: the answer comes from the index and says stale, with the path', async () => {
    const mcp = await serve(false);
    const search = (await mcp.call('search_code', { query: 'formatCurrency' })).json;
    expect(search.results[0].path).toBe(FORMAT);
    expect(search.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1 });
    expect((await mcp.call('get_callers', { symbol: 'formatCurrency' })).json.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1, checkedFiles: 2 });
    expect((await mcp.call('get_status')).json.freshness).toMatchObject({ stale: true, staleFiles: [FORMAT], staleCount: 1, mode: 'on-request' });
  }, 120_000);
});
