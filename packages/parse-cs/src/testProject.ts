import type { ProjectTestFact } from '@ca/schema';
import { CaError } from '@ca/schema';
import { readCsproj, type CsProject } from './project.js';

/**
 * Test frameworks a project references by package: each one is only ever referenced by a test
 * project. `Microsoft.NET.Test.Sdk` is what `dotnet test` needs to run any of them, so it counts
 * too (a product project has no reason to reference it).
 */
const TEST_PACKAGES: ReadonlyMap<string, string> = new Map(
  ['xunit', 'xunit.v3', 'xunit.core', 'NUnit', 'MSTest', 'MSTest.TestFramework', 'Microsoft.NET.Test.Sdk'].map((p) => [p.toLowerCase(), p]),
);

/**
 * Whether a read `.csproj` is a test project, and why. `<IsTestProject>` decides when it is set
 * (`false` wins over test packages: the SDK's own switch); otherwise a test framework package
 * does. A `<ProjectReference>` to another test project is not enough alone: shared test helpers
 * and benchmark projects reference those too.
 */
export function testProjectFact(project: CsProject): ProjectTestFact {
  const flag = project.isTestProject;
  if (flag !== null) return { test: flag, reason: `IsTestProject ${flag ? 'true' : 'false'}` };
  for (const ref of project.packageReferences) {
    const known = TEST_PACKAGES.get(ref.name.toLowerCase());
    if (known !== undefined) return { test: true, reason: `PackageReference ${known}` };
  }
  return { test: false, reason: 'no test framework reference' };
}

/**
 * `testProjectFact` of a `.csproj`'s text (read as XML, never evaluated). A malformed project
 * file is not a test project; its reason says why it could not be read.
 */
export function csTestProject(file: { readonly path: string; readonly text: string }): ProjectTestFact {
  try {
    return testProjectFact(readCsproj(file.text, file.path));
  } catch (e) {
    if (e instanceof CaError && e.code === 'project_load_failed') return { test: false, reason: e.message, unreadable: true };
    throw e;
  }
}
