import { existsSync, mkdirSync, mkdtempSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '@ca/engine';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startUi, type RunningUi } from '../src/index.js';

export const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
/** The front end as `pnpm build` bundles it (the tests run the server from source, the pages from the bundle). */
export const ASSETS = join(ROOT, 'apps', 'ui', 'dist', 'public');
/** Debian's chromium (installed by .ci/run); never downloaded by the test tool. */
export const CHROMIUM = process.env['CA_CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here (null: they can). Without Chromium they skip with the
 * reason printed — unless CA_REQUIRE_CHROMIUM=1 (CI), where a missing browser is a failure.
 */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  const reason = `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CA_CHROMIUM_PATH)`;
  if (process.env['CA_REQUIRE_CHROMIUM'] === '1') throw new Error(`${reason}; CA_REQUIRE_CHROMIUM=1 makes this a failure`);
  console.warn(`apps/ui browser tests skipped: ${reason}`);
  return reason;
}

/** Where the test run saves its screenshots (printed once). */
export const ARTIFACTS = process.env['CA_UI_ARTIFACTS'] ?? join(tmpdir(), 'ca-ui-artifacts');

/**
 * A copy of a fixture repository in a temp directory (tests edit and index it); under `parent`,
 * the copy is `parent/<name>` (so its name in the viewer's repository picker is the fixture's).
 */
export function fixtureCopy(name: string, parent?: string): string {
  const dir = parent ? join(parent, name) : mkdtempSync(join(tmpdir(), `ca-ui-${name}-`));
  cpSync(join(ROOT, 'fixtures', name), dir, { recursive: true, filter: (src) => !src.includes('.codeagent') && !src.includes('node_modules') });
  return dir;
}

/** An engine over `dir`, indexed, without the vector channel (so the channels a result shows do not depend on the model being present). */
export async function indexedEngine(dir: string): Promise<Engine> {
  const engine = Engine.open(dir, { configOverrides: { embedding: { enabled: false } } });
  await engine.index();
  return engine;
}

export interface Viewer {
  readonly ui: RunningUi;
  readonly context: BrowserContext;
  readonly page: Page;
  /** JavaScript dialogs the pages opened (an XSS payload that ran would add one). */
  readonly dialogs: string[];
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (never downloaded: Debian's, at CHROMIUM). */
export async function launchBrowser(): Promise<{ context: BrowserContext; page: Page; dialogs: string[]; profile: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'ca-ui-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { context, page, dialogs, profile };
}

/** The viewer over `engine` (or several), and a headless Chromium signed in through a one-time login URL. */
export async function openViewer(engine: Engine | readonly Engine[]): Promise<Viewer> {
  const ui = await startUi({ engines: Array.isArray(engine) ? engine : [engine as Engine], assetsDir: ASSETS });
  const { context, page, dialogs, profile } = await launchBrowser();
  return {
    ui,
    context,
    page,
    dialogs,
    async close() {
      await context.close();
      await ui.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens a viewer path (signing in through a fresh one-time code) and waits until the page has its data. */
export async function open(v: Viewer, path: string): Promise<void> {
  await v.page.goto(v.ui.loginUrl(path));
  await ready(v.page);
}

/** Waits until the page rendered its data (the app sets body[data-ready]). */
export async function ready(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
}

/** Saves a screenshot of the page under ARTIFACTS. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
