import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaError } from '@ca/schema';
import { isRoslynAvailable, RoslynHost } from '../src/roslyn/index.js';
import { doc, edgeLines, ensureHostBuilt, fixtureRoot, hasDotnet, testDir } from './roslynHelpers.js';

async function rejection(p: Promise<unknown>): Promise<CaError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CaError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

/** Copies a template tree, replacing MARKER_DIR in every file with an absolute directory. */
function instantiate(from: string, to: string, markerDir: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    const dst = join(to, name);
    if (statSync(src).isDirectory()) instantiate(src, dst, markerDir);
    else writeFileSync(dst, readFileSync(src, 'utf8').replaceAll('MARKER_DIR', markerDir));
  }
}

describe('isRoslynAvailable', () => {
  it('names the missing dotnet executable', () => {
    expect(isRoslynAvailable({ dotnetPath: '/nonexistent/dotnet' })).toEqual({
      ok: false,
      reason: 'dotnet not found at /nonexistent/dotnet: C# stays syntactic-only',
    });
  });

  it.skipIf(!hasDotnet)('names the missing host build', () => {
    expect(isRoslynAvailable({ hostDllPath: '/nonexistent/CodeAgent.RoslynHost.dll' })).toEqual({
      ok: false,
      reason: 'roslyn-host is not built: /nonexistent/CodeAgent.RoslynHost.dll is missing (run `dotnet build -c Release roslyn-host`)',
    });
  });
});

describe.skipIf(!hasDotnet)('roslyn-host safety and robustness', () => {
  let tmp: string;
  const hosts: RoslynHost[] = [];
  const newHost = (...args: ConstructorParameters<typeof RoslynHost>): RoslynHost => {
    const h = new RoslynHost(...args);
    hosts.push(h);
    return h;
  };

  beforeAll(() => {
    ensureHostBuilt();
    tmp = mkdtempSync(join(tmpdir(), 'ca-roslyn-'));
  }, 600_000);

  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.dispose()));
    rmSync(tmp, { recursive: true, force: true });
  });

  it('safe mode executes nothing from a hostile project and still produces exact edges', async () => {
    const root = join(tmp, 'unsafe');
    const markers = join(tmp, 'markers');
    mkdirSync(markers, { recursive: true });
    instantiate(join(testDir, 'fixtures-roslyn', 'unsafe-project'), root, markers);
    cpSync(join(testDir, 'fixtures-roslyn', 'local-feed'), join(markers, 'feed'), { recursive: true });
    const host = newHost();
    const load = await host.loadProject({ projectPath: 'app/Evil.csproj', repoRoot: root });
    const result = await host.analyze({ includeExternalTargets: false });
    expect(readdirSync(markers)).toEqual(['feed']);
    expect(existsSync(join(markers, 'exec-marker'))).toBe(false);
    expect(existsSync(join(markers, 'props-marker'))).toBe(false);
    const blocked = load.projects[0]!.warnings.filter((w) => w.code === 'plugin_blocked').map((w) => w.message);
    expect(blocked).toEqual([
      'property function in Pwned is not evaluated in safe mode',
      "analyzer '" + join(markers, 'evil-analyzer.dll') + "' is not run in safe mode",
      "task 'EvilTask' is not loaded in safe mode",
      "import '" + join(markers, 'evil.targets') + "' is not evaluated in safe mode",
      "target 'Evil' is not executed in safe mode (no MSBuild evaluation)",
    ]);
    const greeter = doc(result, 'app/Greeter.cs');
    expect(greeter.edges.map((e) => `${e.confidence} ${e.type} ${e.sourceKey} -> ${e.targetKey} @${e.line} ${e.access ?? ''}`)).toEqual([
      'exact references M:Evil.App.Greeter.Greet(System.String) -> F:Evil.App.Greeter._count @9 readwrite',
      'exact calls M:Evil.App.Greeter.Greet(System.String) -> M:Evil.App.Greeter.Format(System.String) @10 ',
    ]);
  });

  it('refuses unsafe mode with semantic_unavailable instead of faking it', async () => {
    const host = newHost();
    const err = await rejection(host.loadProject({ projectPath: 'src/Acme.Core/Acme.Core.csproj', repoRoot: fixtureRoot, safeMode: false }));
    expect(err.code).toBe('semantic_unavailable');
    expect(err.message).toContain('MSBuildWorkspace');
  });

  it('handles a missing project reference, malformed XML and 10,000 nested parentheses', async () => {
    const root = join(tmp, 'bad');
    mkdirSync(join(root, 'Refs'), { recursive: true });
    mkdirSync(join(root, 'Broken'), { recursive: true });
    mkdirSync(join(root, 'Deep'), { recursive: true });
    const csproj = (extra = ''): string =>
      `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>${extra}</Project>`;
    writeFileSync(join(root, 'Refs', 'Refs.csproj'), csproj('<ItemGroup><ProjectReference Include="../Gone/Gone.csproj" /></ItemGroup>'));
    writeFileSync(join(root, 'Refs', 'A.cs'), 'namespace R;\npublic class A\n{\n    public void M() => N();\n    public void N() { }\n}\n');
    writeFileSync(join(root, 'Broken', 'Broken.csproj'), '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup>');
    writeFileSync(join(root, 'Deep', 'Deep.csproj'), csproj());
    const depth = 10_000;
    writeFileSync(
      join(root, 'Deep', 'Deep.cs'),
      `namespace D;\npublic class Deep\n{\n    public int V() => ${'('.repeat(depth)}1${')'.repeat(depth)};\n    public int W() => V();\n}\n`,
    );
    const host = newHost();

    const refs = await host.loadProject({ projectPath: 'Refs/Refs.csproj', repoRoot: root });
    expect(refs.warnings).toEqual([
      { code: 'missing_reference', message: 'referenced project Gone/Gone.csproj does not exist; continuing without it', path: 'Refs/Refs.csproj' },
    ]);

    const broken = await rejection(host.loadProject({ projectPath: 'Broken/Broken.csproj', repoRoot: root }));
    expect(broken.code).toBe('project_load_failed');
    expect(broken.message).toMatch(/^Broken\/Broken\.csproj: malformed project XML: /);

    await host.loadProject({ projectPath: 'Deep/Deep.csproj', repoRoot: root });
    // The other projects are unaffected by the failed load.
    const result = await host.analyze({ includeExternalTargets: false });
    expect(result.documents.map((d) => d.path).sort()).toEqual(['Deep/Deep.cs', 'Refs/A.cs']);
    expect(edgeLines(doc(result, 'Refs/A.cs').edges)).toEqual(['calls 4 M:R.A.N']);
    expect(edgeLines(doc(result, 'Deep/Deep.cs').edges)).toEqual(['calls 5 M:D.Deep.V']);
    expect((await host.ping()).loadedProjects).toBe(2);
  }, 120_000);

  it('restarts a killed host and completes the request in flight (retried once, loads replayed)', async () => {
    const host = newHost();
    await host.loadProject({ projectPath: 'src/Acme.App/Acme.App.csproj', repoRoot: fixtureRoot });
    const firstPid = host.pid;
    const pending = host.analyze({ paths: ['src/Acme.App/Program.cs'], includeExternalTargets: false });
    host.killForTesting();
    const result = await pending;
    expect(host.pid).not.toBe(firstPid);
    expect(host.stats().restarts).toBe(1);
    expect(result.documents.map((d) => d.path)).toEqual(['src/Acme.App/Program.cs']);
    expect(edgeLines(result.documents[0]!.edges, (e) => e.line === 17)).toEqual(['calls 17 M:Acme.Core.Domain.Customer.#ctor(System.String,System.String)']);
  }, 120_000);

  it('answers backpressure when the bounded queue is full', async () => {
    const host = newHost({ hostArgs: ['--queue-size', '1', '--enable-test-methods'] });
    expect((await host.start()).capabilities.queueSize).toBe(1);
    const running = host.request('debug/sleep', { ms: 1500 });
    // Wait until the worker has taken the first request, so the queue is empty again.
    for (let i = 0; i < 100 && (await host.ping()).queued !== 0; i++) await new Promise((r) => setTimeout(r, 10));
    const queued = host.request('debug/sleep', { ms: 1 });
    const rejected = await rejection(host.request('debug/sleep', { ms: 1 }));
    expect(rejected.code).toBe('backpressure');
    expect(rejected.message).toBe('request queue full (1 waiting); retry later');
    expect(await running).toEqual({ ok: true });
    expect(await queued).toEqual({ ok: true });
  }, 60_000);

  it('turns a passed deadline into timeout and an abort into a cancelled request', async () => {
    const host = newHost({ hostArgs: ['--enable-test-methods'] });
    const late = await rejection(host.request('debug/sleep', { ms: 10_000 }, { deadlineMs: 200 }));
    expect(late.code).toBe('timeout');
    expect(late.message).toBe('debug/sleep exceeded its deadline of 200 ms');
    const controller = new AbortController();
    const aborted = host.request('debug/sleep', { ms: 10_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    await expect(aborted).rejects.toThrow('caller gave up');
    // The host cancelled the sleep and is free again.
    expect(await host.request('debug/sleep', { ms: 1 })).toEqual({ ok: true });
  }, 60_000);

  it('restarts the host over the memory ceiling and fails the affected request with oom_restart', async () => {
    const host = newHost({ hostArgs: ['--enable-test-methods'], memoryCeilingBytes: 1024 * 1024, memoryCheckIntervalMs: 50 });
    const err = await rejection(host.request('debug/sleep', { ms: 5000 }));
    expect(err.code).toBe('oom_restart');
    expect(host.stats().oomRestarts).toBe(1);
    expect(host.stats().peakRssBytes).toBeGreaterThan(1024 * 1024);
  }, 60_000);
});

if (!hasDotnet) {
  describe('roslyn-host safety and robustness', () => {
    it('is skipped because dotnet is not installed', () => {
      console.warn('[roslyn tests] SKIPPED: dotnet not installed');
      expect(hasDotnet).toBe(false);
    });
  });
}
