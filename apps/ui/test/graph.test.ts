import { readFileSync, rmSync } from 'node:fs';
import { Engine } from '@ca/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, fixtureCopy, indexedEngine, open, openViewer, ready, shot, type Viewer } from './harness.js';

const skip = chromiumMissing();

/** The id of a symbol, as the viewer's deep links name it. */
function idOf(engine: Engine, name: string): string {
  return String(engine.resolveSymbol(name).id);
}

/** The PNG signature: every PNG file starts with these 8 bytes. */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe.skipIf(skip !== null)('impact graph in headless Chromium (fixtures/ts-monorepo: two packages)', () => {
  let repo: string;
  let engine: Engine;
  let v: Viewer;

  beforeAll(async () => {
    repo = fixtureCopy('ts-monorepo');
    engine = await indexedEngine(repo);
    v = await openViewer(engine);
  });
  afterAll(async () => {
    await v?.close();
    await engine?.dispose();
    rmSync(repo, { recursive: true, force: true });
  });

  it('formatMoney: 8 nodes, 7 edges; 5 groups by file, 2 by package; find in graph focuses the node', async () => {
    await open(v, `/impact/${idOf(engine, 'formatMoney')}`);
    // formatMoney (packages/core/src/money.ts) and its 7 dependents at depth 1, each one edge to it:
    // core/src/checkout.ts (imports, line 2) and checkout (calls, line 8); core/src/index.ts
    // (re-exports it, line 1); core/src/payments/stripeGateway.ts (imports, line 2) and
    // StripeGateway.charge (calls, line 11); web/src/PriceTag.tsx (imports, line 2) and PriceTag
    // (calls, line 14). Every edge is exact (the semantic pass resolves them): nothing folded.
    expect(await v.page.locator('#graph-count').textContent()).toBe('8 nodes, 7 edges');
    expect(await v.page.locator('svg.graph g.node').count()).toBe(8);
    expect(await v.page.locator('svg.graph path.edge.conf-exact').count()).toBe(7);
    expect(await v.page.locator('#graph-folded').count()).toBe(0);
    // By file: money.ts in column 0; checkout.ts, index.ts, stripeGateway.ts, PriceTag.tsx in column 1.
    expect(await v.page.locator('#graph-groups').textContent()).toBe('5 groups by file');
    expect(await v.page.locator('svg.graph text.group-label').allTextContents()).toEqual([
      'packages/core/src/money.ts',
      'packages/core/src/checkout.ts',
      'packages/core/src/index.ts',
      'packages/core/src/payments/stripeGateway.ts',
      'packages/web/src/PriceTag.tsx',
    ]);
    // By package (each package.json's name): @mono/core holds all but PriceTag.tsx's two, which are @mono/web.
    await v.page.selectOption('#graph-group', 'package');
    await ready(v.page);
    expect(new URL(v.page.url()).searchParams.get('group')).toBe('package');
    expect(await v.page.locator('#graph-groups').textContent()).toBe('2 groups by package');
    // Column 0 holds @mono/core (formatMoney); column 1 holds @mono/core (5 nodes) and @mono/web (2).
    expect(await v.page.locator('svg.graph text.group-label').allTextContents()).toEqual(['@mono/core', '@mono/core', '@mono/web']);
    expect(await v.page.locator('#graph-count').textContent()).toBe('8 nodes, 7 edges');
    // Find in graph: "pricetag" matches PriceTag and the file PriceTag.tsx; the first in drawing
    // order (path, then line: the file node at line 1) is focused, with its one neighbour, formatMoney.
    await v.page.fill('#graph-search', 'pricetag');
    await v.page.press('#graph-search', 'Enter');
    expect(await v.page.locator('svg.graph g.node.match').count()).toBe(2);
    expect(await v.page.locator('#graph-focus').textContent()).toBe('packages/web/src/PriceTag.tsx: 1 neighbour');
    expect(await v.page.locator('svg.graph g.node.focus text').allTextContents()).toEqual(['packages/web/src/PriceTag.tsx']);
    expect(await v.page.locator('svg.graph g.node.near text').allTextContents()).toEqual(['formatMoney']);
    expect(await v.page.locator('svg.graph path.edge.near').count()).toBe(1);
    // The focused node is centred: its box's middle is the middle of the drawing area (±2 px: the border).
    const [box, area] = await Promise.all([v.page.locator('svg.graph g.node.focus rect').boundingBox(), v.page.locator('svg.graph').boundingBox()]);
    expect(Math.abs(box!.x + box!.width / 2 - (area!.x + area!.width / 2))).toBeLessThanOrEqual(2);
    expect(Math.abs(box!.y + box!.height / 2 - (area!.y + area!.height / 2))).toBeLessThanOrEqual(2);
    // A search matching nothing says so.
    await v.page.fill('#graph-search', 'nothing-is-called-this');
    await v.page.press('#graph-search', 'Enter');
    expect(await v.page.locator('#graph-focus').textContent()).toBe('no node matches "nothing-is-called-this"');
    expect(await v.page.locator('svg.graph.focusing').count()).toBe(0);
    // Pan: a drag of (+100, +50) px moves the viewport by exactly that, the scale unchanged.
    const transform = async () => (await v.page.locator('svg.graph g.viewport').getAttribute('transform'))!.match(/^translate\(([-\d.e]+),([-\d.e]+)\) scale\(([-\d.e]+)\)$/)!.slice(1).map(Number);
    const [x0, y0, k0] = await transform();
    await v.page.mouse.move(area!.x + 40, area!.y + 40);
    await v.page.mouse.down();
    await v.page.mouse.move(area!.x + 140, area!.y + 90);
    await v.page.mouse.up();
    const [x1, y1, k1] = await transform();
    expect([x1! - x0!, y1! - y0!, k1]).toEqual([100, 50, k0]);
    await shot(v.page, 'impact-by-package');
  });

  it('exports the view: the SVG parses as XML and holds the 8 nodes shown; the PNG is a PNG of the same size', async () => {
    await open(v, `/impact/${idOf(engine, 'formatMoney')}`);
    const [svgDownload] = await Promise.all([v.page.waitForEvent('download'), v.page.click('#export-svg')]);
    expect(svgDownload.suggestedFilename()).toBe(`impact-${idOf(engine, 'formatMoney')}.svg`);
    const svgText = readFileSync((await svgDownload.path())!, 'utf8');
    // Chromium's XML parser (strict: a parse error yields a <parsererror> document).
    const parsed = await v.page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const root = doc.documentElement;
      return {
        error: doc.getElementsByTagName('parsererror').length,
        root: `${root.namespaceURI} ${root.localName}`,
        nodes: doc.querySelectorAll('g.node').length,
        edges: doc.querySelectorAll('path.edge').length,
        names: [...doc.querySelectorAll('g.node > text')].map((t) => t.textContent),
        style: doc.querySelector('style')?.textContent?.includes('.graph .node rect') ?? false,
        width: Number(root.getAttribute('width')),
        height: Number(root.getAttribute('height')),
      };
    }, svgText);
    expect(parsed.error).toBe(0);
    expect(parsed.root).toBe('http://www.w3.org/2000/svg svg');
    expect([parsed.nodes, parsed.edges]).toEqual([8, 7]);
    expect(parsed.names).toContain('formatMoney');
    // Standalone: the page's graph style rules travel inside the file.
    expect(parsed.style).toBe(true);
    // The size of the drawing area (the viewport is 1400 px wide).
    const area = (await v.page.locator('svg.graph').boundingBox())!;
    expect([parsed.width, parsed.height]).toEqual([Math.round(area.width), Math.round(area.height)]);

    const [pngDownload] = await Promise.all([v.page.waitForEvent('download'), v.page.click('#export-png')]);
    expect(pngDownload.suggestedFilename()).toBe(`impact-${idOf(engine, 'formatMoney')}.png`);
    const png = readFileSync((await pngDownload.path())!);
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    // IHDR (the first chunk, from byte 8: length, "IHDR", width, height as big-endian 32-bit): the SVG's size.
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([parsed.width, parsed.height]);
    // More than a blank canvas: the signature, IHDR and IEND alone are 57 bytes.
    expect(png.length).toBeGreaterThan(1000);
  });
});

describe.skipIf(skip !== null)('impact graph folds approximate edges (fixtures/ts-app, syntactic edges only)', () => {
  let repo: string;
  let engine: Engine;
  let v: Viewer;

  beforeAll(async () => {
    repo = fixtureCopy('ts-app');
    // Without the semantic pass, calls are name-matched (approximate); imports stay exact.
    engine = Engine.open(repo, { configOverrides: { embedding: { enabled: false }, semantic: { enabled: false } } });
    await engine.index();
    v = await openViewer(engine);
  });
  afterAll(async () => {
    await v?.close();
    await engine?.dispose();
    rmSync(repo, { recursive: true, force: true });
  });

  it('formatDate: the 3 approximate calls and the 3 callers only they reach are folded until shown', async () => {
    await open(v, `/impact/${idOf(engine, 'formatDate')}`);
    // Dependents of formatDate (see viewer.test.ts): the files authService.ts and helpers.js
    // import it (exact); AuthService.describe, stamp and formatDateTime call it (approximate here).
    expect(await v.page.locator('#graph-count').textContent()).toBe('3 nodes, 2 edges');
    expect(await v.page.locator('#graph-folded').textContent()).toBe('3 approximate edges folded (hiding 3 nodes only they reach)');
    expect(await v.page.locator('svg.graph g.node text').allTextContents()).toEqual(['formatDate', 'src/auth/authService.ts', 'src/legacy/helpers.js']);
    await v.page.check('#graph-approximate');
    await ready(v.page);
    expect(new URL(v.page.url()).searchParams.get('approximate')).toBe('show');
    expect(await v.page.locator('#graph-count').textContent()).toBe('6 nodes, 5 edges');
    expect(await v.page.locator('#graph-folded').count()).toBe(0);
    expect(await v.page.locator('svg.graph path.edge.conf-approximate').count()).toBe(3);
    expect(await v.page.locator('svg.graph path.edge.conf-exact').count()).toBe(2);
    // Every edge says its confidence (its tooltip), e.g. stamp's call at helpers.js line 24.
    expect(await v.page.locator('svg.graph path.edge.conf-approximate title').allTextContents()).toContain('calls (approximate) src/legacy/helpers.js:24');
    await shot(v.page, 'impact-approximate');
  });
});
