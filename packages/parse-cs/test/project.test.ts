import { CaError } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { csTestProject, frameworkSymbols, preprocessorSymbolsFor, readCsproj, readSolution } from '../src/index.js';
import { fixtureText } from './helpers.js';

describe('readCsproj', () => {
  it('reads the fixture Core project', () => {
    const p = readCsproj(fixtureText('src/Acme.Core/Acme.Core.csproj'), 'src/Acme.Core/Acme.Core.csproj');
    expect(p).toEqual({
      path: 'src/Acme.Core/Acme.Core.csproj',
      name: 'Acme.Core',
      sdk: 'Microsoft.NET.Sdk',
      targetFrameworks: ['net8.0'],
      // The Debug-only group (ACME_VERBOSE) is skipped: a Release build is assumed.
      defineConstants: ['ACME_BILLING'],
      projectReferences: [],
      imports: [],
      packageReferences: [{ name: 'Microsoft.Extensions.Logging.Abstractions', version: '8.0.0' }],
      compileRemove: [],
      compileInclude: [],
      assemblyName: null,
      rootNamespace: 'Acme.Core',
      langVersion: '12.0',
      nullable: 'enable',
      isTestProject: null,
    });
    expect(preprocessorSymbolsFor(p)).toEqual(['ACME_BILLING', ...frameworkSymbols('net8.0'), 'RELEASE', 'TRACE']);
  });

  it('resolves project references relative to the project file', () => {
    const p = readCsproj(fixtureText('src/Acme.App/Acme.App.csproj'), 'src/Acme.App/Acme.App.csproj');
    expect(p.projectReferences).toEqual(['src/Acme.Core/Acme.Core.csproj']);
    expect(p.assemblyName).toBe('acme');
    expect(p.name).toBe('Acme.App');
  });

  it('reads multi-targeting, compile items, versions as child elements, Release conditions and legacy projects', () => {
    const text = `<?xml version="1.0" encoding="utf-8"?>
<!-- a comment with <tags> -->
<Project>
  <Sdk Name="Microsoft.NET.Sdk" />
  <PropertyGroup>
    <TargetFrameworks>netstandard2.0;net8.0</TargetFrameworks>
    <DefineConstants>$(DefineConstants);A;B</DefineConstants>
  </PropertyGroup>
  <PropertyGroup Condition=" '$(Configuration)|$(Platform)' == 'Release|AnyCPU' ">
    <DefineConstants>$(DefineConstants);C</DefineConstants>
  </PropertyGroup>
  <PropertyGroup Condition="'$(TargetFramework)' == 'net8.0'">
    <DefineConstants>UNKNOWABLE</DefineConstants>
  </PropertyGroup>
  <ItemGroup>
    <Compile Remove="Legacy\\**" />
    <Compile Include="..\\Shared\\Util.cs" />
    <PackageReference Include="Newtonsoft.Json"><Version>13.0.3</Version></PackageReference>
    <PackageReference Include="Central.Managed" />
    <ProjectReference Include="..\\..\\lib\\Lib.csproj" />
  </ItemGroup>
  <Import Project="..\\..\\build\\common.props" Condition="Exists('..\\..\\build\\common.props')" />
  <Import Project="$(MSBuildSDKsPath)\\Some.targets" />
  <Import Sdk="Microsoft.NET.Sdk" Project="Sdk.targets" />
</Project>`;
    const p = readCsproj(text, 'src/App/App.csproj');
    expect(p.sdk).toBe('Microsoft.NET.Sdk');
    expect(p.targetFrameworks).toEqual(['netstandard2.0', 'net8.0']);
    expect(p.defineConstants).toEqual(['A', 'B', 'C']);
    expect(p.compileRemove).toEqual(['Legacy/**']);
    expect(p.compileInclude).toEqual(['../Shared/Util.cs']);
    expect(p.packageReferences).toEqual([
      { name: 'Newtonsoft.Json', version: '13.0.3' },
      { name: 'Central.Managed', version: null },
    ]);
    expect(p.projectReferences).toEqual(['lib/Lib.csproj']);
    // Imports whatever their condition; an SDK's own files and paths through a property are not the repository's.
    expect(p.imports).toEqual(['build/common.props']);
    expect(preprocessorSymbolsFor(p)).toEqual(['A', 'B', 'C', ...frameworkSymbols('netstandard2.0'), 'RELEASE', 'TRACE']);

    const legacy = readCsproj(
      '<Project ToolsVersion="15.0" xmlns="http://schemas.microsoft.com/developer/msbuild/2003"><PropertyGroup><TargetFrameworkVersion>v4.7.2</TargetFrameworkVersion></PropertyGroup></Project>',
      'Old/Old.csproj',
    );
    expect(legacy.sdk).toBeNull();
    expect(legacy.targetFrameworks).toEqual(['net472']);
  });

  it('throws project_load_failed with the reason on malformed XML', () => {
    const cases: [string, RegExp][] = [
      ['<Project><PropertyGroup></Project>', /closing tag <\/Project> does not match <PropertyGroup>/],
      ['<Project><PropertyGroup>', /element <PropertyGroup> is not closed/],
      ['<Project', /malformed tag <Project/],
      ['', /no root element/],
      ['<Foo/>', /root element is <Foo>, expected <Project>/],
    ];
    for (const [text, reason] of cases) {
      let err: unknown;
      try {
        readCsproj(text, 'bad/Bad.csproj');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CaError);
      expect((err as CaError).code).toBe('project_load_failed');
      expect((err as CaError).message).toMatch(reason);
      expect((err as CaError).context.path).toBe('bad/Bad.csproj');
    }
  });
});

describe('readSolution', () => {
  it('lists the fixture projects, skipping solution folders', () => {
    expect(readSolution(fixtureText('CsFixture.sln'), 'CsFixture.sln')).toEqual([
      'src/Acme.Core/Acme.Core.csproj',
      'src/Acme.App/Acme.App.csproj',
    ]);
  });

  it('resolves paths relative to a nested solution', () => {
    const sln = 'Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "X", "..\\x\\X.csproj", "{1}"\nEndProject\n';
    expect(readSolution(sln, 'build/All.sln')).toEqual(['x/X.csproj']);
  });

  it('reads .slnx, including projects inside folders', () => {
    const slnx = `<Solution>
  <Folder Name="/src/">
    <Project Path="src/Acme.Core/Acme.Core.csproj" />
    <Project Path="src\\Acme.App\\Acme.App.csproj" />
  </Folder>
  <Project Path="tools/Build.fsproj" />
</Solution>`;
    expect(readSolution(slnx, 'CsFixture.slnx')).toEqual(['src/Acme.Core/Acme.Core.csproj', 'src/Acme.App/Acme.App.csproj']);
  });

  it('throws project_load_failed on a malformed .slnx', () => {
    expect(() => readSolution('<Solution><Folder></Solution>', 'x.slnx')).toThrowError(
      expect.objectContaining({ code: 'project_load_failed' }) as Error,
    );
  });
});

describe('csTestProject', () => {
  const project = (body: string) => `<Project Sdk="Microsoft.NET.Sdk">\n${body}\n</Project>\n`;
  const pkg = (name: string) => project(`  <ItemGroup>\n    <PackageReference Include="${name}" Version="1.0.0" />\n  </ItemGroup>`);
  const fact = (text: string) => csTestProject({ path: 'qa/P/P.csproj', text });

  it('is a test project by a test framework package, any case, the first one named', () => {
    for (const name of ['xunit', 'xunit.v3', 'xunit.v3.mtp-v2', 'NUnit', 'nunit', 'MSTest', 'MSTest.TestFramework', 'TUnit', 'Microsoft.NET.Test.Sdk']) {
      const canonical = name === 'nunit' ? 'NUnit' : name;
      expect([name, fact(pkg(name))]).toEqual([name, { test: true, reason: `PackageReference ${canonical}` }]);
    }
  });

  it('is not one by other packages, a ProjectReference to a test project, or test-like names', () => {
    // Packages named like test tools that are not frameworks: an assertion library, a mocking library, a runner.
    for (const name of ['FluentAssertions', 'Moq', 'xunit.runner.visualstudio', 'xunit.v3.assert', 'xunit.v3.extensibility.core', 'NUnit3TestAdapter', 'Shouldly']) {
      expect([name, fact(pkg(name))]).toEqual([name, { test: false, reason: 'no test framework reference' }]);
    }
    const referencing = project('  <ItemGroup>\n    <ProjectReference Include="..\\Shop.Tests\\Shop.Tests.csproj" />\n  </ItemGroup>');
    expect(fact(referencing)).toEqual({ test: false, reason: 'no test framework reference' });
  });

  it('a test framework referenced only under a target-framework condition still makes a test project (Newtonsoft.Json.Tests shape)', () => {
    // readCsproj skips `'$(TargetFramework)'=='net46'` groups (unknowable without evaluation);
    // a test package in any of them is a test project under every target.
    const perTarget = project(
      `  <PropertyGroup>\n    <TargetFrameworks>net6.0;net46</TargetFrameworks>\n  </PropertyGroup>\n  <ItemGroup Condition="'$(TargetFramework)'=='net46'">\n    <PackageReference Include="Moq" Version="$(MoqPackageVersion)" />\n    <PackageReference Include="NUnit" Version="$(NunitPackageVersion)" />\n  </ItemGroup>`,
    );
    expect(readCsproj(perTarget, 'qa/P/P.csproj').packageReferences).toEqual([]);
    expect(fact(perTarget)).toEqual({ test: true, reason: 'PackageReference NUnit' });
  });

  it('the MSTest project SDK makes a test project, with or without a version (eShop shape)', () => {
    expect(fact('<Project Sdk="MSTest.Sdk">\n  <ItemGroup>\n    <PackageReference Include="NSubstitute" />\n  </ItemGroup>\n</Project>\n')).toEqual({ test: true, reason: 'Sdk MSTest.Sdk' });
    expect(fact('<Project Sdk="MSTest.Sdk/3.6.1" />')).toEqual({ test: true, reason: 'Sdk MSTest.Sdk' });
    expect(fact('<Project Sdk="Microsoft.NET.Sdk.Web" />')).toEqual({ test: false, reason: 'no test framework reference' });
  });

  it('IsTestProject decides when set, false overriding a test package', () => {
    expect(fact(project('  <PropertyGroup>\n    <IsTestProject>true</IsTestProject>\n  </PropertyGroup>'))).toEqual({ test: true, reason: 'IsTestProject true' });
    expect(fact(project('  <PropertyGroup>\n    <IsTestProject> True </IsTestProject>\n  </PropertyGroup>'))).toEqual({ test: true, reason: 'IsTestProject true' });
    const off = project('  <PropertyGroup>\n    <IsTestProject>false</IsTestProject>\n  </PropertyGroup>\n  <ItemGroup>\n    <PackageReference Include="xunit" />\n  </ItemGroup>');
    expect(fact(off)).toEqual({ test: false, reason: 'IsTestProject false' });
    // A value read from a property is unknowable without evaluation: the packages decide.
    expect(fact(project('  <PropertyGroup>\n    <IsTestProject>$(IsTest)</IsTestProject>\n  </PropertyGroup>'))).toEqual({ test: false, reason: 'no test framework reference' });
  });

  it('a malformed project file is not a test project, with the reason it could not be read', () => {
    const r = fact('<Project>\n  <PropertyGroup>\n</Project>\n');
    expect(r.test).toBe(false);
    expect(r.unreadable).toBe(true);
    expect(r.reason).toMatch(/^qa\/P\/P\.csproj: malformed project file: /);
    expect(fact('<Solution />')).toEqual({ test: false, reason: 'qa/P/P.csproj: root element is <Solution>, expected <Project>', unreadable: true });
  });
});
