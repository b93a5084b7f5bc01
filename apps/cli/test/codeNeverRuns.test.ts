import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ca, cleanEnv, dotnetMissing } from './helpers.js';

/**
 * Repository code never runs (issue 22), end to end through `ca index`: every way a repository
 * could get code executed writes a marker file into a directory outside it — a tsconfig plugin
 * (also through an `extends` outside the repository), the repository's own node_modules/typescript,
 * package.json lifecycle scripts, an MSBuild <Exec> target in the .csproj, Directory.Build.props
 * and Directory.Build.targets, an analyzer, a source generator referenced as an analyzer
 * (project and package), a UsingTask and an <Import>. After indexing the marker directory is
 * still empty, and `ca status` says what was not loaded or run. The parse-ts and parse-cs suites
 * test the same at their own level (semanticRobustness, roslynRobustness); this one checks the
 * whole product and the index's account of it.
 */
const dotnetOff = dotnetMissing();

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('a booby-trapped repository: indexing runs none of its code', () => {
  let repo: string;
  let outside: string;
  let markers: string;
  let index: ReturnType<typeof ca>;

  beforeAll(() => {
    const base = mkdtempSync(join(tmpdir(), 'ca-booby-'));
    repo = join(base, 'repo');
    outside = join(base, 'outside');
    markers = join(base, 'markers');
    mkdirSync(markers);
    const touch = (name: string) => `require('fs').writeFileSync(${JSON.stringify(join(markers, name))}, 'ran');`;
    const evilModule = (name: string) => `${touch(name)}\nmodule.exports = () => ({ create: (i) => i.languageService });\n`;
    const exec = (name: string) => `<Target Name="Evil${name}" BeforeTargets="Restore;Build;CollectPackageReferences"><Exec Command="touch ${join(markers, name)}" /></Target>`;
    write(outside, {
      // An extends target outside the repository, itself naming a plugin.
      'base.json': JSON.stringify({ compilerOptions: { strict: true, plugins: [{ name: 'evil-outside-plugin' }] } }),
      'node_modules/evil-outside-plugin/package.json': JSON.stringify({ name: 'evil-outside-plugin', main: 'index.js' }),
      'node_modules/evil-outside-plugin/index.js': evilModule('outside-plugin'),
    });
    write(repo, {
      'package.json': JSON.stringify({
        name: 'booby',
        scripts: Object.fromEntries(['preinstall', 'install', 'postinstall', 'prepare', 'prepack'].map((s) => [s, `node -e "${touch(s).replaceAll('"', '\\"')}"`])),
      }),
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, plugins: [{ name: 'evil-plugin' }] }, include: ['src'] }),
      'src/main.ts': "import { helper } from './lib';\nexport function main(): number {\n  return helper();\n}\n",
      'src/lib.ts': 'export function helper(): number {\n  return 1;\n}\n',
      'node_modules/evil-plugin/package.json': JSON.stringify({ name: 'evil-plugin', main: 'index.js' }),
      'node_modules/evil-plugin/index.js': evilModule('plugin'),
      'node_modules/typescript/package.json': JSON.stringify({ name: 'typescript', version: '9.9.9', main: 'index.js' }),
      'node_modules/typescript/index.js': evilModule('typescript'),
      'ext/tsconfig.json': JSON.stringify({ extends: join(outside, 'base.json'), include: ['.'] }),
      'ext/e.ts': 'export const e = 1;\n',
      'cs/Directory.Build.props': `<Project><PropertyGroup><Pwned>$([System.IO.File]::WriteAllText('${join(markers, 'props-function')}', 'ran'))</Pwned></PropertyGroup>${exec('props')}</Project>`,
      'cs/Directory.Build.targets': `<Project>${exec('targets')}</Project>`,
      'cs/App/App.csproj': `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>
  <ItemGroup>
    <Analyzer Include="${join(markers, 'evil-analyzer.dll')}" />
    <PackageReference Include="Evil.Generators" Version="1.0.0" OutputItemType="Analyzer" />
    <ProjectReference Include="../Gen/Gen.csproj" OutputItemType="Analyzer" ReferenceOutputAssembly="false" />
  </ItemGroup>
  <UsingTask TaskName="EvilTask" AssemblyFile="${join(markers, 'evil-task.dll')}" />
  <Import Project="${join(markers, 'evil.targets')}" />
  ${exec('csproj')}
</Project>`,
      'cs/App/Greeter.cs': 'namespace App;\npublic class Greeter\n{\n    public string Greet() => Name();\n    private string Name() => "x";\n}\n',
      // A source generator: running it (as an analyzer) would write the marker.
      'cs/Gen/Gen.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup></Project>',
      'cs/Gen/EvilGenerator.cs': `namespace Gen;\npublic class EvilGenerator\n{\n    public void Initialize() => System.IO.File.WriteAllText(@"${join(markers, 'generator')}", "ran");\n}\n`,
    });
    index = ca(['index', repo, '--json'], { env: cleanEnv({ CA_EMBEDDING_ENABLED: 'false' }), timeoutMs: 300_000 });
  }, 320_000);

  it('indexes, and no marker is written', () => {
    expect(index.timedOut).toBe(false);
    expect(index.code).toBe(0);
    expect(readdirSync(markers)).toEqual([]);
  });

  it('says what it did not load or run', () => {
    const r = ca(['status', '--repo', repo, '--json']);
    expect(r.code).toBe(0);
    const status = JSON.parse(r.stdout) as { notLoaded: { kind: string; path: string | null; message: string }[]; semantic: string };
    const notes = status.notLoaded.map((n) => `${n.kind} ${n.path ?? '-'}: ${n.message}`).sort();
    const ts = ["plugin_blocked tsconfig.json: compiler plugin 'evil-plugin' stripped (plugins never run)"];
    const cs =
      dotnetOff === null
        ? [
            'plugin_blocked cs/App/App.csproj: analyzer \'' + join(markers, 'evil-analyzer.dll') + "' is not run in safe mode",
            "plugin_blocked cs/App/App.csproj: analyzer or source generator '../Gen/Gen.csproj' (ProjectReference) is not run in safe mode",
            "plugin_blocked cs/App/App.csproj: analyzer or source generator 'Evil.Generators' (PackageReference) is not run in safe mode",
            'plugin_blocked cs/App/App.csproj: import \'' + join(markers, 'evil.targets') + "' is not evaluated in safe mode",
            "plugin_blocked cs/App/App.csproj: target 'Evilcsproj' is not executed in safe mode (no MSBuild evaluation)",
            "plugin_blocked cs/App/App.csproj: task 'EvilTask' is not loaded in safe mode",
            'plugin_blocked cs/Directory.Build.props: property function in Pwned is not evaluated in safe mode',
            "plugin_blocked cs/Directory.Build.props: target 'Evilprops' is not executed in safe mode (no MSBuild evaluation)",
            'plugin_blocked cs/Directory.Build.targets: Directory.Build.targets is not evaluated in safe mode',
          ]
        : [];
    expect(notes).toEqual([...cs, ...ts].sort());
    // The tsconfig extending a file outside the repository is not loaded (that file is never read).
    expect(status.semantic).toMatch(/ts: 1 file failed \(ext\/tsconfig\.json: project_load_failed: TS5083: Cannot read file '.*\/outside\/base\.json'\.\)/);
    expect(existsSync(join(markers, 'outside-plugin'))).toBe(false);
  });
});
