import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ca, caMeasured, dotnetMissing, mkfifo } from './helpers.js';

/**
 * Regressions of issue 22's hostile-repository findings, end to end through the built CLI. Each
 * `ca index` runs in a child process with a deadline: before the safe reader, a `.cs` link to
 * /dev/zero never finished, a FIFO named .gitignore, package.json, *.csproj or
 * .codeagent/config.json blocked forever, and a .gitignore, config.json or nested package.json
 * linked to /dev/zero or /dev/urandom grew memory past 3 GB.
 */
const DEADLINE_MS = 180_000;
/** Peak RSS a run over this tiny repository stays far below (the old reads of /dev/zero passed 3 GB). */
const RSS_CEILING_KB = 1_500_000;
const dotnetOff = dotnetMissing();

const CSPROJ = '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>';

describe('a hostile repository is indexed, never waited on', () => {
  let repo: string;
  let run: ReturnType<typeof caMeasured>;
  beforeAll(() => {
    repo = join(mkdtempSync(join(tmpdir(), 'ca-hostile-')), 'repo');
    for (const d of ['src', 'pkgs/fifo', 'pkgs/rand', 'sub', 'cs2']) mkdirSync(join(repo, d), { recursive: true });
    writeFileSync(join(repo, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(repo, 'src/b.cs'), 'namespace N { public class C { public void M() { N(); } public void N() { } } }\n');
    writeFileSync(join(repo, 'src/App.csproj'), CSPROJ);
    symlinkSync('/dev/zero', join(repo, 'src/zero.cs'));
    mkfifo(join(repo, 'src/fifo.ts'));
    mkfifo(join(repo, '.gitignore'));
    mkfifo(join(repo, 'pkgs/fifo/package.json'));
    writeFileSync(join(repo, 'pkgs/fifo/index.ts'), 'export const f = 1;\n');
    symlinkSync('/dev/urandom', join(repo, 'pkgs/rand/package.json'));
    writeFileSync(join(repo, 'pkgs/rand/index.ts'), 'export const r = 2;\n');
    symlinkSync('/dev/zero', join(repo, 'sub/.gitignore'));
    writeFileSync(join(repo, 'sub/s.ts'), 'export const s = 3;\n');
    mkfifo(join(repo, 'cs2/X.csproj'));
    writeFileSync(join(repo, 'cs2/d.cs'), 'namespace Y { class D { } }\n');
    run = caMeasured(['index', repo, '--json'], { timeoutMs: DEADLINE_MS });
  }, DEADLINE_MS + 30_000);

  it('finishes in time and within the memory ceiling', () => {
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(0);
    expect(run.maxRssKb).not.toBeNull();
    expect(run.maxRssKb!).toBeLessThan(RSS_CEILING_KB);
    // 6 regular sources (a.ts, b.cs, pkgs/fifo/index.ts, pkgs/rand/index.ts, sub/s.ts, cs2/d.cs) + the 7 refusals below.
    const report = JSON.parse(run.stdout) as { files: number; parseStatus: Record<string, number> };
    expect(report.files).toBe(13);
    expect(report.parseStatus.ok).toBe(6);
    expect(report.parseStatus.skipped).toBe(7);
  });

  it('records every refusal with its reason (ca status)', () => {
    const status = ca(['status', '--repo', repo, '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout) as { problems: { path: string; status: string; reason: string }[]; notLoaded: { kind: string; path: string; message: string }[]; semantic: string };
    expect(s.problems).toEqual([
      { path: '.gitignore', status: 'skipped', reason: 'not read: not a regular file (FIFO)' },
      { path: 'cs2/X.csproj', status: 'skipped', reason: 'not a regular file (FIFO)' },
      { path: 'pkgs/fifo/package.json', status: 'skipped', reason: 'not read: not a regular file (FIFO)' },
      { path: 'pkgs/rand/package.json', status: 'skipped', reason: 'symbolic link to a path outside the repository' },
      { path: 'src/fifo.ts', status: 'skipped', reason: 'not a regular file (FIFO)' },
      { path: 'src/zero.cs', status: 'skipped', reason: 'symbolic link to a path outside the repository' },
      { path: 'sub/.gitignore', status: 'skipped', reason: 'symbolic link to a path outside the repository' },
    ]);
    if (dotnetOff === null) {
      // roslyn-host globs src/*.cs itself: it met the link too and refused it on the handle.
      expect(s.notLoaded).toEqual([{ kind: 'file_refused', path: 'src/zero.cs', message: 'src/zero.cs not read: symbolic link (not followed)' }]);
      expect(s.semantic).toBe('cs: 1 file failed (project_load_failed: cs2/X.csproj: not a regular file (FIFO)); cs: 1 file with exact edges; ts: 4 files with exact edges');
    }
  });
});

describe('a hostile .codeagent/config.json is a clear error, never a hang', () => {
  const cases: [string, (p: string) => void, string][] = [
    ['a FIFO', mkfifo, 'not a regular file (FIFO)'],
    ['a link to /dev/zero', (p) => symlinkSync('/dev/zero', p), 'symbolic link (not followed)'],
    ['a link to /dev/urandom', (p) => symlinkSync('/dev/urandom', p), 'symbolic link (not followed)'],
  ];
  for (const [name, make, reason] of cases) {
    it(`config.json as ${name}: exit 2, config_invalid`, () => {
      const repo = join(mkdtempSync(join(tmpdir(), 'ca-hostile-')), 'repo');
      mkdirSync(join(repo, '.codeagent'), { recursive: true });
      writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
      const config = join(repo, '.codeagent', 'config.json');
      make(config);
      const r = ca(['index', repo, '--json'], { timeoutMs: 60_000 });
      expect(r.timedOut).toBe(false);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'config_invalid', message: `cannot read ${config}: ${reason}` } });
    });
  }
});

describe('a .codeagent directory that is a link', () => {
  it('is never written through: invalid_path (exit 2), the link target stays empty', () => {
    const base = mkdtempSync(join(tmpdir(), 'ca-hostile-'));
    const repo = join(base, 'repo');
    const target = join(base, 'elsewhere');
    mkdirSync(repo);
    mkdirSync(target);
    writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
    symlinkSync(target, join(repo, '.codeagent'));
    const r = ca(['index', repo, '--json'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      error: { code: 'invalid_path', message: `${join(repo, '.codeagent')} is a symbolic link: the index is never written through one (remove it, or pass --db FILE)` },
    });
    expect(readdirSync(target)).toEqual([]);
  });
});
