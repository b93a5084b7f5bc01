import { describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { answerTokens, budgetAnswer, cutLongestString } from '../src/budget.js';
import { seededRandom } from './helpers.js';

/** Every page of `units` under `cap`, following nextOffset from 0. */
function allPages(units: readonly string[], cap: number, head: string) {
  const pages: { items: string[]; text: string; notice: string | null }[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const r: { rendered: string; notice: string | null; page: { nextOffset: number | null } } = budgetAnswer({
      units,
      offset,
      cap,
      kinds: () => ['items'],
      render: (items, page, notice) => JSON.stringify({ head, items, offset: page.offset, nextOffset: page.nextOffset, notice }),
      texts: (text) => [text],
    });
    pages.push({ items: JSON.parse(r.rendered).items, text: r.rendered, notice: r.notice });
    offset = r.page.nextOffset;
  }
  return pages;
}

describe('budgetAnswer', () => {
  it('generated lists: every page is within the cap and the pages concatenated are the list, each item once', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = seededRandom(seed);
      const units = Array.from({ length: Math.floor(rnd() * 200) }, (_, i) => `${i}:${'x'.repeat(Math.floor(rnd() * 300))}`);
      const head = 'h'.repeat(Math.floor(rnd() * 200));
      // Caps from just above the head with the longest notice to a cap that holds everything.
      const cap = 200 + Math.floor(rnd() * 3000);
      const pages = allPages(units, cap, head);
      for (const p of pages) expect(answerTokens([p.text]), `seed ${seed}`).toBeLessThanOrEqual(cap);
      expect(pages.flatMap((p) => p.items), `seed ${seed}`).toEqual(units);
      // Only the last page is whole; the others say what they kept.
      expect(pages.slice(0, -1).every((p) => p.notice !== null) && pages[pages.length - 1]!.notice === null, `seed ${seed}`).toBe(true);
    }
  });

  it('the notice counts what the page kept of each kind against the whole answer', () => {
    // Units of 70 characters (20 tokens each) under a 100-token cap, the notice beside them.
    const units = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? `n${i}` : `e${i}`).padEnd(70, '.'));
    const r = budgetAnswer({
      units,
      offset: 0,
      cap: 100,
      kinds: (u) => [u.startsWith('n') ? 'nodes' : 'edges'],
      render: (items, _page, notice) => `${items.join('')}${notice ?? ''}`,
      texts: (t) => [t],
    });
    // The notice is 120 characters: three units and the notice are 330 characters, ceil(330 / 3.5) = 95
    // tokens; four are 400, 115 tokens, over 100. Units 0 and 2 are nodes, unit 1 an edge.
    expect([r.page.returned, r.page.nextOffset, r.notice]).toEqual([3, 3, 'answer cut at 100 tokens: kept 2 of 3 nodes and 1 of 3 edges (from offset 0); call again with offset 3 for the next page']);
  });

  it('a first unit alone over the cap has its longest string cut (marked), so paging moves on', () => {
    const units = [{ code: 'y'.repeat(5000) }, { code: 'z' }];
    const r = budgetAnswer({ units, offset: 0, cap: 300, render: (items, _p, notice) => JSON.stringify({ items, notice }), texts: (t) => [t] });
    const kept = JSON.parse(r.rendered).items as { code: string }[];
    expect([r.page.returned, r.page.nextOffset, answerTokens([r.rendered]) <= 300]).toEqual([1, 1, true]);
    expect(kept[0]!.code).toMatch(/^y+… \[cut \d+ chars\]$/);
  });

  it('a head alone over the cap is a usage error naming the cap', () => {
    const run = () => budgetAnswer({ units: [], offset: 0, cap: 10, render: () => 'h'.repeat(1000), texts: (t) => [t] });
    expect(run).toThrow(CaError);
    expect(run).toThrow('over the answer cap of 10 tokens');
  });

  it('cutLongestString cuts the longest string only, and leaves short ones', () => {
    expect(cutLongestString({ a: 'q'.repeat(100), b: ['r'.repeat(200)] }, 50)).toEqual({ a: 'q'.repeat(100), b: [`${'r'.repeat(100)}… [cut 100 chars]`] });
    expect(cutLongestString({ a: 'short' }, 10)).toBeNull();
  });
});
