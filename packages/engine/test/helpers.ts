import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isRoslynAvailable } from '@ca/parse-cs';

export const REPO_ROOT = resolve(__dirname, '../../..');
export const TS_APP = join(REPO_ROOT, 'fixtures', 'ts-app');

/** A private copy of a fixture, so tests may modify it and write `.codeagent/` into it. */
export function copyFixture(dir: string): string {
  const target = join(mkdtempSync(join(tmpdir(), 'ca-engine-')), 'repo');
  cpSync(dir, target, { recursive: true });
  return target;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ca-engine-'));
}

/**
 * The folder holding `all-MiniLM-L6-v2/` for tests that embed: CA_EMBEDDING_MODEL_DIR,
 * `../shared/models` beside the repository (CI layout) or the user cache `ca model import` fills;
 * `missing` says why none was found (the same lookup as packages/embed/test/helpers.ts, which
 * this package's tests cannot import). With CA_REQUIRE_MODEL=1 (set by .ci/run) a missing model is an error.
 */
export function testModels(): { dir: string; missing: string | null } {
  const candidates = [process.env.CA_EMBEDDING_MODEL_DIR, resolve(REPO_ROOT, '../shared/models'), join(homedir(), '.cache', 'codeagent', 'models')]
    .filter((d): d is string => typeof d === 'string' && d !== '')
    .map((d) => resolve(d));
  const found = candidates.find((d) => existsSync(join(d, 'all-MiniLM-L6-v2', 'onnx', 'model_quantized.onnx')));
  if (found) return { dir: found, missing: null };
  const missing = `embedding model all-MiniLM-L6-v2 not found in ${candidates.join(', ')} (set CA_EMBEDDING_MODEL_DIR or run \`pnpm ca model import DIR\`)`;
  if (process.env['CA_REQUIRE_MODEL'] === '1') throw new Error(missing);
  console.warn(`skipping the tests that embed: ${missing}`);
  return { dir: candidates[0]!, missing };
}

/**
 * Why the C# semantic tests cannot run here (no .NET SDK, or roslyn-host not built), or null
 * when they can. They are skipped with the reason printed; with CA_REQUIRE_DOTNET=1 (set by
 * .ci/run, where the SDK is installed) a missing SDK or host build is an error instead.
 */
export function dotnetMissing(): string | null {
  const availability = isRoslynAvailable();
  if (availability.ok) return null;
  if (process.env['CA_REQUIRE_DOTNET'] === '1') throw new Error(`CA_REQUIRE_DOTNET=1 but the C# semantic tests cannot run: ${availability.reason}`);
  console.warn(`SKIPPED: the C# semantic tests need the .NET SDK and a built roslyn-host: ${availability.reason}`);
  return availability.reason;
}

const connections = new Map<string, BetterSqlite3.Database>();

/**
 * A second connection to an engine's index file, for assertions on tables no API exposes (the
 * store does not hand out its own). Commits of either are visible to the other (WAL).
 */
export function dbOf(engine: { readonly dbPath: string }): BetterSqlite3.Database {
  let db = connections.get(engine.dbPath);
  if (!db || !db.open) {
    db = new BetterSqlite3(engine.dbPath);
    db.pragma('busy_timeout = 5000');
    connections.set(engine.dbPath, db);
  }
  return db;
}

/** The seeded generator of the generated cases (a failing case names the seed that replays it). */
export { seededRandom } from '@ca/schema';
