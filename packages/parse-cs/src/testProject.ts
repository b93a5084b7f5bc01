import type { ProjectTestFact } from '@ca/schema';
import { CaError } from '@ca/schema';
import { readCsproj, type CsProject } from './project.js';
import { attr, descendants, parseXml } from './xml.js';

/**
 * Test frameworks a project references by package: each one is only ever referenced by a test
 * project. `Microsoft.NET.Test.Sdk` is what `dotnet test` needs to run any of them, so it counts
 * too (a product project has no reason to reference it).
 */
const TEST_PACKAGES: ReadonlyMap<string, string> = new Map(
  [
    'xunit',
    'xunit.core',
    'xunit.v3',
    // xunit v3's meta-packages per Microsoft Testing Platform version (eShop's functional tests).
    'xunit.v3.mtp-v1',
    'xunit.v3.mtp-v2',
    'xunit.v3.mtp-off',
    'NUnit',
    'MSTest',
    'MSTest.TestFramework',
    'TUnit',
    'Microsoft.NET.Test.Sdk',
  ].map((p) => [p.toLowerCase(), p]),
);

/** Project SDKs that make a test project by themselves (`<Project Sdk="MSTest.Sdk/3.6.1">`). */
const TEST_SDKS: ReadonlySet<string> = new Set(['mstest.sdk']);

/**
 * Whether a read `.csproj` is a test project, and why. `<IsTestProject>` decides when it is set
 * (`false` wins: the SDK's own switch); otherwise a test SDK (`MSTest.Sdk`) or a test framework
 * package does. `packages` are the names of every `<PackageReference>` whatever its condition
 * (default: the project's unconditional ones): a test project that references its framework per
 * target framework is one under every one of them. A `<ProjectReference>` to another test
 * project is not enough alone: shared test helpers and benchmark projects reference those too.
 */
export function testProjectFact(project: CsProject, packages: readonly string[] = project.packageReferences.map((p) => p.name)): ProjectTestFact {
  const flag = project.isTestProject;
  if (flag !== null) return { test: flag, reason: `IsTestProject ${flag ? 'true' : 'false'}` };
  for (const sdk of (project.sdk ?? '').split(';')) {
    const name = sdk.trim().split('/')[0]!;
    if (TEST_SDKS.has(name.toLowerCase())) return { test: true, reason: `Sdk ${name}` };
  }
  for (const name of packages) {
    const known = TEST_PACKAGES.get(name.toLowerCase());
    if (known !== undefined) return { test: true, reason: `PackageReference ${known}` };
  }
  return { test: false, reason: 'no test framework reference' };
}

/**
 * `testProjectFact` of a `.csproj`'s text (read as XML, never evaluated), over its package
 * references under any condition. A malformed project file is not a test project; its reason
 * says why it could not be read.
 */
export function csTestProject(file: { readonly path: string; readonly text: string }): ProjectTestFact {
  let project: CsProject;
  try {
    project = readCsproj(file.text, file.path);
  } catch (e) {
    if (e instanceof CaError && e.code === 'project_load_failed') return { test: false, reason: e.message, unreadable: true };
    throw e;
  }
  const packages = descendants(parseXml(file.text), 'PackageReference')
    .map((el) => attr(el, 'Include') ?? attr(el, 'Update'))
    .filter((name): name is string => name !== undefined && name !== '');
  return testProjectFact(project, packages);
}
