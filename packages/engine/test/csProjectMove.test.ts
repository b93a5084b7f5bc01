import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceOf } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { againstClean as cleanDiff } from './cleanIndex.js';
import { dotnetMissing, REPO_ROOT } from './helpers.js';

// A C# file moved unchanged into another project with the same defines continues its version
// (its nodes keep their ids and keys: a C# key does not name its project), yet what its types are
// visible to changes: uses in the new project (and its dependents) that the compiler could not
// bind before now bind, uses in the old project's dependents no longer do (decision 022,
// difference 20: dotnet MediatR, seed 2, step 3 — `MediatrServiceConfiguration.cs` moved back
// from MediatR.Contracts into MediatR left `ServiceCollectionExtensions.cs` with syntactic guesses
// where a clean index binds its calls exactly). Each step is compared with a clean index of the
// same tree: no difference at all is expected.

const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = dotnetMissing() === null;
const options = {
  env: {},
  configOverrides: { indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 }, embedding: { enabled: false } },
};

// A third project with Acme.App's defines (net8.0, no DefineConstants), referenced by nobody and
// referencing nothing: Acme.App cannot see its types.
const TOOLS_PROJECT = 'src/Acme.Tools/Acme.Tools.csproj';
const TOOLS_PROJECT_TEXT = '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n    <Nullable>enable</Nullable>\n  </PropertyGroup>\n</Project>\n';
const STAMP_IN_TOOLS = 'src/Acme.Tools/Stamp.cs';
const STAMP_IN_APP = 'src/Acme.App/Stamp.cs';
const STAMP_TEXT = 'namespace Acme.Tools;\n\npublic static class Stamp\n{\n    public static string Mark(string text) => "[" + text + "]";\n}\n\npublic class Sealer\n{\n    public string Seal(string text) => text;\n}\n';
// An Acme.App file that names the type and calls its member: unresolved while Stamp lives in
// Acme.Tools, bound exactly once it lives in Acme.App.
const USER = 'src/Acme.App/Stamping.cs';
const USER_TEXT = 'namespace Acme.App;\n\npublic static class Stamping\n{\n    public static string Run() => Acme.Tools.Stamp.Mark("order");\n}\n';
// An unchanged Acme.App file naming the moved file's `Sealer`, and one that uses it through a
// lambda parameter and names no type of the moved file: its unresolved use is named `s.Seal`
// (the MediatR shape, `services.AddMediatR(cfg => cfg.AddOpenBehavior(…))`).
const HOOKS = 'src/Acme.App/Hooks.cs';
const HOOKS_TEXT = 'namespace Acme.App;\n\npublic static class Hooks\n{\n    public static string With(System.Func<Acme.Tools.Sealer, string> f) => f(new Acme.Tools.Sealer());\n}\n';
// The same use in an expression-bodied member: the pass that cannot bind it keeps no edge at all
// (its syntactic guess is set aside in \`superseded_edges\`).
const QUICK = 'src/Acme.App/Quick.cs';
const QUICK_TEXT = 'namespace Acme.App;\n\npublic static class Quick\n{\n    public static string Run() => Hooks.With(s => s.Seal("fast"));\n}\n';
const SEALING = 'src/Acme.App/Sealing.cs';
const SEALING_TEXT = 'namespace Acme.App;\n\npublic static class Sealing\n{\n    public static string Sealed()\n    {\n        return Hooks.With(s =>\n        {\n            return s.Seal("order");\n        });\n    }\n}\n';

const againstClean = (engine: Engine, repo: string) => cleanDiff(engine, repo, options);

/** The `calls` edges of `Stamping.Run` to `Mark`, of `Sealing.Sealed` and `Quick.Run` to `Seal`: confidence and target file. */
function markCall(engine: Engine): string[] {
  return [['Acme.App.Stamping.Run', 'Mark'], ['Acme.App.Sealing.Sealed', 'Seal'], ['Acme.App.Quick.Run', 'Seal']].flatMap(([symbol, member]) => {
    const page = engine.navigate('callees', symbol!);
    const pathOf = (id: string | null) => (id === null ? 'unresolved' : (page.nodes.find((n) => n.id === id)?.path ?? `missing node ${id}`));
    return page.edges.filter((e) => e.type === 'calls' && e.targetName.endsWith(member!)).map((e) => `${member} ${e.confidence} ${pathOf(e.to)}`);
  });
}

describe.skipIf(!hasDotnet)('a C# file moved unchanged into another project', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(CS);
    mkdirSync(join(repo, dirname(TOOLS_PROJECT)), { recursive: true });
    writeFileSync(join(repo, TOOLS_PROJECT), TOOLS_PROJECT_TEXT);
    writeFileSync(join(repo, STAMP_IN_TOOLS), STAMP_TEXT);
    writeFileSync(join(repo, USER), USER_TEXT);
    writeFileSync(join(repo, HOOKS), HOOKS_TEXT);
    writeFileSync(join(repo, SEALING), SEALING_TEXT);
    writeFileSync(join(repo, QUICK), QUICK_TEXT);
    engine = Engine.open(repo, options);
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('before the move the use in Acme.App is unresolved (Acme.App does not reference Acme.Tools)', async () => {
    expect(markCall(engine)).toEqual(['Mark approximate unresolved', 'Seal approximate unresolved']);
  });

  it('moved into the project of its user: the unchanged user binds to it, as in a clean index', async () => {
    renameSync(join(repo, STAMP_IN_TOOLS), join(repo, STAMP_IN_APP));
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
    expect(markCall(engine)).toEqual([`Mark exact ${STAMP_IN_APP}`, `Seal exact ${STAMP_IN_APP}`, `Seal exact ${STAMP_IN_APP}`]);
  }, 300_000);

  it('moved back out: the unchanged user loses the binding, as in a clean index', async () => {
    renameSync(join(repo, STAMP_IN_APP), join(repo, STAMP_IN_TOOLS));
    await engine.index();
    expect(await againstClean(engine, repo)).toEqual([]);
    expect(markCall(engine)).toEqual(['Mark approximate unresolved', 'Seal approximate unresolved']);
  }, 300_000);
});
