import { mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, workspaceOf, type DifferentialEngine } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { againstClean as cleanDiff } from './cleanIndex.js';
import { dotnetMissing, REPO_ROOT } from './helpers.js';

// The fragments of a C# `partial` class in several files of one project are one node, whose
// facts (span, signature, chunk, full-text row) are those of the fragment whose path sorts first
// — what a clean index, inserting the fragments in path order, builds. A fragment that leaves
// (deleted, moved into another project) must leave the index as a clean index of the new tree
// has it (decision 022, difference 16: MediatR seed 1 step 70 moved `Program.Part56.cs`, the
// class's first fragment, from a sample project into the test project).

const CS = join(REPO_ROOT, 'fixtures', 'cs-solution');
const hasDotnet = dotnetMissing() === null;
const options = {
  env: {},
  configOverrides: { indexing: { parse_timeout_ms: 120_000 }, semantic: { request_timeout_ms: 1_800_000 }, embedding: { enabled: false } },
};

const PROGRAM = 'src/Acme.App/Program.cs';
// `Program.Part1.cs` sorts before `Program.cs` ('P' < 'c'): it is the merged class's first fragment.
const PART = 'src/Acme.App/Program.Part1.cs';
const PART_TEXT = 'namespace Acme.App;\n\npublic static partial class Program\n{\n    public static string Banner() => "acme";\n}\n';
// A third project with the same preprocessor symbols as Acme.App (net8.0, no DefineConstants):
// files moving between the two keep their extractor (Acme.Core defines ACME_BILLING: another one).
const TOOLS_PROJECT = 'src/Acme.Tools/Acme.Tools.csproj';
const TOOLS_PROJECT_TEXT = '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n    <TargetFramework>net8.0</TargetFramework>\n    <Nullable>enable</Nullable>\n  </PropertyGroup>\n</Project>\n';
const TOOL = 'src/Acme.Tools/Tool.cs';
const TOOL_TEXT = 'namespace Acme.Tools;\n\npublic static class Tool\n{\n    public static int Run() => 1;\n}\n';

const againstClean = (engine: Engine, repo: string) => cleanDiff(engine, repo, options);

/** The fixture with `Program` split in two fragments and a third project, indexed; `change` is applied, indexed again, and the engine handed to `check`. */
async function afterChange(change: (repo: string) => void, check: (engine: Engine, repo: string) => Promise<void>): Promise<void> {
  const repo = workspaceOf(CS);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(repo, rel)), { recursive: true });
    writeFileSync(join(repo, rel), text);
  };
  write(PROGRAM, readFileSync(join(repo, PROGRAM), 'utf8').replace('public static class Program', 'public static partial class Program'));
  write(PART, PART_TEXT);
  write(TOOLS_PROJECT, TOOLS_PROJECT_TEXT);
  write(TOOL, TOOL_TEXT);
  const engine = Engine.open(repo, options);
  try {
    await engine.index();
    change(repo);
    await engine.index();
    await check(engine, repo);
  } finally {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  }
}

/** `path:line signature (project)` of every node named `qualifiedName`, sorted. */
function declarations(engine: Engine, qualifiedName: string): string[] {
  return engine
    .findSymbols(qualifiedName)
    .filter((s) => s.qualifiedName === qualifiedName)
    .map((s) => `${s.path}:${s.startLine} ${s.signature}`)
    .sort();
}

function move(repo: string, from: string, to: string): void {
  mkdirSync(dirname(join(repo, to)), { recursive: true });
  renameSync(join(repo, from), join(repo, to));
}

describe.skipIf(!hasDotnet)('a fragment of a C# partial class leaves', () => {
  it('the first fragment moved into another project (other defines): each project has its own class', async () => {
    await afterChange(
      (repo) => move(repo, PART, 'src/Acme.Core/Program.Part1.cs'),
      async (engine, repo) => {
        // Acme.Core's fragment is a class of its own (line 3 of PART_TEXT); Acme.App's is Program.cs's
        // declaration, line 13 of the fixture's Program.cs, with its own signature.
        expect(declarations(engine, 'Acme.App.Program')).toEqual([
          'src/Acme.App/Program.cs:13 public static partial class Program',
          'src/Acme.Core/Program.Part1.cs:3 public static partial class Program',
        ]);
        expect(await againstClean(engine, repo)).toEqual([]);
      },
    );
  }, 600_000);

  it('the first fragment moved into another project with the same defines (a same-content move): each project has its own class', async () => {
    await afterChange(
      (repo) => move(repo, PART, 'src/Acme.Tools/Program.Part1.cs'),
      async (engine, repo) => {
        // The premise: the move keeps the extractor (a rename in place before the fix).
        const files = snapshot(engine as unknown as DifferentialEngine, [], { fts: false }).dump.files;
        expect(files.get('src/Acme.Tools/Program.Part1.cs')!.split(' ')[5]).toBe(files.get(PROGRAM)!.split(' ')[5]);
        expect(declarations(engine, 'Acme.App.Program')).toEqual([
          'src/Acme.App/Program.cs:13 public static partial class Program',
          'src/Acme.Tools/Program.Part1.cs:3 public static partial class Program',
        ]);
        expect(await againstClean(engine, repo)).toEqual([]);
      },
    );
  }, 600_000);

  it('the other fragment moved into another project with the same defines: it leaves the merged class', async () => {
    await afterChange(
      (repo) => move(repo, PROGRAM, 'src/Acme.Tools/Program.cs'),
      async (engine, repo) => {
        expect(declarations(engine, 'Acme.App.Program')).toEqual([
          'src/Acme.App/Program.Part1.cs:3 public static partial class Program',
          'src/Acme.Tools/Program.cs:13 public static partial class Program',
        ]);
        expect(await againstClean(engine, repo)).toEqual([]);
      },
    );
  }, 600_000);

  it('the first fragment deleted: the class speaks with the remaining fragment', async () => {
    await afterChange(
      (repo) => unlinkSync(join(repo, PART)),
      async (engine, repo) => {
        const [program] = engine.findSymbols('Acme.App.Program').filter((s) => s.qualifiedName === 'Acme.App.Program');
        // Program.cs' declaration: lines 13–32 of the fixture's file (the signatures of the two
        // fragments are equal: the span and the chunk tell them apart).
        expect([program!.path, program!.startLine, program!.endLine]).toEqual([PROGRAM, 13, 32]);
        expect(await againstClean(engine, repo)).toEqual([]);
      },
    );
  }, 600_000);

  it('the first fragment edited so that it declares another class: the class speaks with the remaining fragment', async () => {
    await afterChange(
      (repo) => writeFileSync(join(repo, PART), 'namespace Acme.App;\n\npublic static class Banner\n{\n    public static string Text() => "acme";\n}\n'),
      async (engine, repo) => {
        const [program] = engine.findSymbols('Acme.App.Program').filter((s) => s.qualifiedName === 'Acme.App.Program');
        expect([program!.path, program!.startLine, program!.endLine]).toEqual([PROGRAM, 13, 32]);
        expect(await againstClean(engine, repo)).toEqual([]);
      },
    );
  }, 600_000);
});
