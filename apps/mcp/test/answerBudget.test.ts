import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTokens } from '@ca/engine';
import { connect, copyFixture, type Connected } from './helpers.js';

/**
 * The answer budget on fixtures/ts-app, exact values. impact_analysis of TokenStore.save at depth
 * 5 reaches four nodes, each with one edge: AuthService.login (its call at authService.ts:33),
 * AuthService.refresh (call at authService.ts:47), MemoryTokenStore.save (implements it,
 * tokenStore.ts:21) and App (calls login at App.jsx:13). The units are node, edge, node, edge, … (each
 * edge follows the node at its walking end). The head every page repeats (symbol, gaps,
 * freshness, paging fields) takes about 300 tokens, one node with its edge about 90.
 */
describe('answer budget: notice and paging, exact (fixtures/ts-app)', () => {
  let repo: string;
  const servers = new Map<number, Connected>();
  beforeAll(async () => {
    repo = copyFixture('ts-app');
    for (const cap of [500, 700, 10_000]) servers.set(cap, await connect({ repo, answerTokens: cap }));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
    rmSync(join(repo, '..'), { recursive: true, force: true });
  });

  const pagesOf = async (cap: number) => {
    const pages: { offset: number; nodes: string[]; edges: string[]; byFile: string[]; nextOffset: number | null; notices: string[]; tokens: number }[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const r = await servers.get(cap)!.call('impact_analysis', { symbol: 'TokenStore.save', depth: 5, offset });
      const j = r.json;
      pages.push({
        offset,
        nodes: j.nodes.map((n: any) => n.qualifiedName),
        edges: j.edges.map((e: any) => `${e.type} ${e.path}:${e.line}`),
        byFile: j.byFile.flatMap((f: any) => f.symbols.map((s: any) => s.qualifiedName)),
        nextOffset: j.nextOffset,
        notices: j.notices,
        tokens: answerTokens(r.texts),
      });
      offset = j.nextOffset;
    }
    return pages;
  };

  it('at 500 tokens a page holds one node and its edge, and says what it kept of the whole', async () => {
    const pages = await pagesOf(500);
    // Head (~300) + one node and its edge (~90) fit 500; a second pair does not.
    expect(pages.map((p) => [p.offset, p.nodes, p.edges, p.byFile, p.nextOffset])).toEqual([
      [0, ['AuthService.login'], ['calls src/auth/authService.ts:33'], ['AuthService.login'], 2],
      [2, ['AuthService.refresh'], ['calls src/auth/authService.ts:47'], ['AuthService.refresh'], 4],
      [4, ['MemoryTokenStore.save'], ['implements src/auth/tokenStore.ts:21'], ['MemoryTokenStore.save'], 6],
      [6, ['App'], ['calls src/App.jsx:13'], ['App'], null],
    ]);
    expect(pages.map((p) => p.notices)).toEqual([
      ['answer cut at 500 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 0); call again with offset 2 for the next page'],
      ['answer cut at 500 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 2); call again with offset 4 for the next page'],
      ['answer cut at 500 tokens: kept 1 of 4 nodes and 1 of 4 edges (from offset 4); call again with offset 6 for the next page'],
      [],
    ]);
    for (const p of pages) expect(p.tokens).toBeLessThanOrEqual(500);
  }, 60_000);

  it('at 700 tokens a page may end between a node and its edge; the next page starts with that edge', async () => {
    const pages = await pagesOf(700);
    // Three pairs would be ~570 tokens of units over a ~300-token head: three nodes and two edges fit.
    expect(pages.map((p) => [p.offset, p.nodes, p.edges, p.nextOffset])).toEqual([
      [0, ['AuthService.login', 'AuthService.refresh', 'MemoryTokenStore.save'], ['calls src/auth/authService.ts:33', 'calls src/auth/authService.ts:47'], 5],
      [5, ['App'], ['implements src/auth/tokenStore.ts:21', 'calls src/App.jsx:13'], null],
    ]);
    expect(pages[0]!.notices).toEqual(['answer cut at 700 tokens: kept 3 of 4 nodes and 2 of 4 edges (from offset 0); call again with offset 5 for the next page']);
    for (const p of pages) expect(p.tokens).toBeLessThanOrEqual(700);
  }, 60_000);

  it('under a cap that holds it, the answer is whole: no notice, nextOffset null', async () => {
    const [whole] = await pagesOf(10_000);
    expect([whole!.nodes.length, whole!.edges.length, whole!.nextOffset, whole!.notices]).toEqual([4, 4, null, []]);
  }, 60_000);

  it('read_file pages at a line and names the start_line of the next page', async () => {
    const file = readFileSync(join(repo, 'src/auth/tokenStore.ts'), 'utf8');
    const r = await servers.get(500)!.call('read_file', { path: 'src/auth/tokenStore.ts' });
    // The whole file (1,025 bytes, 37 lines) is about 340 tokens with its JSON: it fits 500.
    expect([r.json.startLine, r.json.endLine, r.json.notices, r.json.content]).toEqual([1, 37, [], file.replace(/\n$/, '')]);
    const lookup = await servers.get(500)!.call('lookup_symbol', { symbol: 'AuthService.refresh' });
    // The three overloads of refresh (lines 39-41) fit 500 tokens together (~270).
    expect([lookup.json.matches.length, lookup.json.total, lookup.json.notices]).toEqual([3, 3, undefined]);
  }, 60_000);
});
