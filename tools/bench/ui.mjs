#!/usr/bin/env node
// Viewer benchmark (issue 32; docs/benchmarks.md, "ca ui"):
//
//   node tools/bench/ui.mjs [--runs 5] [--nodes 1000]          (pnpm bench:ui; needs pnpm build and /usr/bin/chromium)
//
// 1. Bundle size of the front end (apps/ui/dist/public), raw and gzipped.
// 2. First page ready on fixtures/ts-app: from navigating to /search?q=formatDate (through a
//    one-time login URL) until the page has rendered its results (body[data-ready=true]).
// 3. Impact graph of a generated repository: one function with --nodes dependents (callers
//    spread over files of 19 functions each, plus those files' imports); time from navigating
//    to /impact/ID until the graph is drawn, then until a wheel zoom has been applied and a frame
//    painted (interactive); apiMs is the impact answer's request within it (server side), zoomMs
//    the zoom alone (wheel to painted frame, once drawn).
// Chromium's launch is not timed. Medians (and min/max) of --runs; the 1-minute load average. Prints JSON.
import { mkdtempSync, mkdirSync, cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '../..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, nodes: { type: 'string', default: '1000' }, chromium: { type: 'string', default: '/usr/bin/chromium' } } });
const RUNS = Number(values.runs);
const require = createRequire(join(ROOT, 'apps/ui/package.json'));
const { chromium } = require('playwright-core');
const { Engine } = await import(pathToFileURL(join(ROOT, 'packages/engine/dist/index.js')).href);
const { startUi } = await import(pathToFileURL(join(ROOT, 'apps/ui/dist/index.js')).href);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: Math.round(s[Math.floor(s.length / 2)]), min: Math.round(s[0]), max: Math.round(s.at(-1)), runs: s.length };
};

function bundle() {
  const dir = join(ROOT, 'apps/ui/dist/public');
  const files = {};
  let raw = 0;
  let gz = 0;
  for (const f of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, f));
    files[f] = { bytes: statSync(join(dir, f)).size, gzip: gzipSync(bytes).length };
    raw += files[f].bytes;
    gz += files[f].gzip;
  }
  return { files, totalBytes: raw, totalGzip: gz };
}

/** A repository where `target` in src/core.ts has `n` dependents at depth 1: callers in files of 19 functions, and those files' imports. */
function graphRepo(n) {
  const dir = mkdtempSync(join(tmpdir(), 'ca-ui-bench-graph-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "graph-bench" }\n');
  writeFileSync(join(dir, 'src/core.ts'), 'export function target(x: number): number {\n  return x + 1;\n}\n');
  // Each caller file adds 20 dependents (19 callers + its import of target).
  const files = Math.ceil(n / 20);
  for (let f = 0; f < files; f++) {
    const lines = ["import { target } from './core';"];
    for (let i = 0; i < 19; i++) lines.push(`export function caller${f}_${i}(v: number): number {\n  return target(v) * ${i + 1};\n}`);
    writeFileSync(join(dir, `src/callers${f}.ts`), `${lines.join('\n')}\n`);
  }
  return dir;
}

async function timed(page, ui, path, after = async () => {}) {
  const url = ui.loginUrl(path);
  const t0 = performance.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
  const ready = performance.now() - t0;
  const extra = await after();
  return { ready, ...extra };
}

const loadBefore = loadavg()[0];
const profile = mkdtempSync(join(tmpdir(), 'ca-ui-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, { executablePath: values.chromium, headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'], viewport: { width: 1400, height: 900 } });
const page = context.pages()[0] ?? (await context.newPage());
const out = { bundle: bundle() };
const engineOptions = { configOverrides: { embedding: { enabled: false } } };

// First page on the fixture.
const fixture = mkdtempSync(join(tmpdir(), 'ca-ui-bench-fixture-'));
cpSync(join(ROOT, 'fixtures/ts-app'), fixture, { recursive: true, filter: (p) => !p.includes('.codeagent') });
let engine = Engine.open(fixture, engineOptions);
await engine.index();
let ui = await startUi({ engine });
const first = [];
for (let i = 0; i < RUNS; i++) first.push((await timed(page, ui, '/search?q=formatDate')).ready);
out.firstPageReadyMs = stats(first);
await ui.close();
await engine.dispose();
rmSync(fixture, { recursive: true, force: true });

// The impact graph.
const repo = graphRepo(Number(values.nodes));
engine = Engine.open(repo, engineOptions);
await engine.index();
const id = engine.resolveSymbol('target').id;
ui = await startUi({ engine });
const drawn = [];
const interactive = [];
const zooms = [];
const apis = [];
let count = '';
for (let i = 0; i < RUNS; i++) {
  const r = await timed(page, ui, `/impact/${id}?maxNodes=${values.nodes}`, async () => {
    const t0 = performance.now();
    await page.mouse.move(700, 500);
    await page.mouse.wheel(0, -200);
    // The zoom applied and the next frame painted.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const zoom = performance.now() - t0;
    // The server's share of "drawn": the impact answer's request as the page timed it.
    const api = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/nav/impact/')).at(-1)?.duration ?? NaN);
    return { zoom, api };
  });
  drawn.push(r.ready);
  interactive.push(r.ready + r.zoom);
  zooms.push(r.zoom);
  apis.push(r.api);
  count = await page.locator('#graph-count').textContent();
}
out.impactGraph = { shown: count, readyMs: stats(drawn), interactiveMs: stats(interactive), apiMs: stats(apis), zoomMs: stats(zooms) };
await ui.close();
await engine.dispose();
rmSync(repo, { recursive: true, force: true });
await context.close();
rmSync(profile, { recursive: true, force: true });
out.load = { before: loadBefore, after: loadavg()[0] };
console.log(JSON.stringify(out, null, 2));
