import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findDotnet, locateRoslynHost } from '../src/roslyn/index.js';
import type { AnalyzeResult, DocumentResult, EdgeRecord } from '../src/roslyn/index.js';

export const hasDotnet = findDotnet() !== null;
export const testDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(testDir, '../../..');
export const fixtureRoot = join(repoRoot, 'fixtures', 'cs-solution');

/** CA_REQUIRE_DOTNET=1 (set by .ci/run, where the SDK is installed): the roslyn-host tests must run, never skip. */
const requireDotnet = process.env['CA_REQUIRE_DOTNET'] === '1';
if (!hasDotnet) {
  if (requireDotnet) throw new Error('CA_REQUIRE_DOTNET=1 but dotnet (the .NET SDK) is not installed: the roslyn-host tests must not be skipped');
  console.warn('[roslyn tests] dotnet is not installed: roslyn-host tests are SKIPPED');
}

/** Builds roslyn-host once when the dll is missing (the install step normally does it). */
export function ensureHostBuilt(): void {
  if (!hasDotnet) return;
  const location = locateRoslynHost();
  if (location.dllPath) return;
  // CI builds the host in tools/install.sh: a missing build there is a broken install, not something to paper over.
  if (requireDotnet) throw new Error(`CA_REQUIRE_DOTNET=1 but roslyn-host is not built (${location.expectedDllPath ?? 'no roslyn-host/ directory'} is missing)`);
  if (!location.projectDir) throw new Error('roslyn-host/ not found above packages/parse-cs');
  const r = spawnSync('dotnet', ['build', '-c', 'Release', location.projectDir], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`dotnet build roslyn-host failed:\n${r.stdout}\n${r.stderr}`);
}

export function doc(result: AnalyzeResult, path: string): DocumentResult {
  const d = result.documents.find((x) => x.path === path);
  if (!d) throw new Error(`document ${path} not in result (${result.documents.map((x) => x.path).join(', ')})`);
  return d;
}

/** Compact `type line target` strings, sorted, for exact set comparisons. */
export function edgeLines(edges: readonly EdgeRecord[], filter: (e: EdgeRecord) => boolean = () => true): string[] {
  return edges
    .filter(filter)
    .map((e) => `${e.type} ${e.line} ${e.targetKey}${e.access ? ` ${e.access}` : ''}`)
    .sort();
}
