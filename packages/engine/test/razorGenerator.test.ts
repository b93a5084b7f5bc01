/**
 * The SDK's Razor generator on bad and large input (decision 052), through `Engine.index()` on a
 * project written here: a `.cshtml` the generator cannot parse fails on its own (state `failed`,
 * its error and line) while the rest is analysed, and a 10,000-line `.razor` component is
 * analysed whole with exact edges at its own lines. CA_REQUIRE_DOTNET=1 makes a missing SDK or
 * host build fail instead of skipping.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/index.js';
import { dbOf, dotnetMissing } from './helpers.js';

const OPTIONS = { env: {}, configOverrides: { embedding: { enabled: false } } };

/** Lines 1–9,995 `<p>@Count</p>`, 9,996 a handler, 9,997–10,000 the `@code` block. */
const MARKUP_LINES = 9_995;
function bigComponent(): string {
  const lines = Array.from({ length: MARKUP_LINES }, () => '<p>@Count</p>');
  lines.push('<button @onclick="Tick">+</button>', '@code {', '    public int Count { get; set; }', '    private void Tick() { Count++; }', '}');
  return lines.join('\n') + '\n';
}

function writeProject(repo: string): void {
  mkdirSync(join(repo, 'Components'), { recursive: true });
  mkdirSync(join(repo, 'Pages'), { recursive: true });
  writeFileSync(
    join(repo, 'Web.csproj'),
    '<Project Sdk="Microsoft.NET.Sdk.Web">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <RootNamespace>Big.Web</RootNamespace>\n    <ImplicitUsings>enable</ImplicitUsings>\n  </PropertyGroup>\n</Project>\n',
  );
  writeFileSync(join(repo, 'Components', '_Imports.razor'), '@using Microsoft.AspNetCore.Components.Web\n');
  writeFileSync(join(repo, 'Components', 'Big.razor'), bigComponent());
  // Line 3 opens a block that never closes: the generator's RZ1006 on line 3.
  writeFileSync(join(repo, 'Pages', 'Broken.cshtml'), '@page\n@model Missing.PageModel\n@{\n    var x = 1;\n<h1>@x</h1>\n');
  writeFileSync(join(repo, 'Program.cs'), 'namespace Big.Web;\n\npublic static class Start\n{\n    public static int Twice(int x) => x * 2;\n}\n');
}

describe.skipIf(dotnetMissing() !== null)('the Razor generator on a broken .cshtml and a 10,000-line .razor', () => {
  let engine: Engine;
  beforeAll(async () => {
    const repo = join(mkdtempSync(join(tmpdir(), 'ca-razor-gen-')), 'repo');
    writeProject(repo);
    engine = Engine.open(repo, OPTIONS);
    await engine.index();
  }, 600_000);
  afterAll(() => engine.close());

  it('per-file states: the broken page failed with its error and line, everything else ok (the .csproj is no indexed file)', () => {
    const rows = dbOf(engine).prepare(`SELECT path, semantic_state AS state, semantic_reason AS reason FROM files ORDER BY path`).all();
    expect(rows).toEqual([
      { path: 'Components/Big.razor', state: 'ok', reason: null },
      { path: 'Components/_Imports.razor', state: 'ok', reason: null },
      {
        path: 'Pages/Broken.cshtml',
        state: 'failed',
        reason:
          'Razor generator error RZ1006 at line 3: The code block is missing a closing "}" character.  Make sure you have a matching "}" character for all the "{" characters within this block, and that none of the "}" characters are being interpreted as markup.',
      },
      { path: 'Program.cs', state: 'ok', reason: null },
    ]);
  });

  it('the 10,000-line component: one exact reference to Count per markup line, the handler and Tick\'s Count++', () => {
    const rows = dbOf(engine)
      .prepare(
        `SELECT e.type, e.line, s.name AS source FROM edges e JOIN nodes s ON s.id = e.source_id JOIN nodes t ON t.id = e.target_id
         WHERE t.qualified_name = ? AND e.confidence = 'exact' ORDER BY e.line`,
      )
      .all('Big.Web.Components.Big.Count') as { type: string; line: number; source: string }[];
    // Lines 1..9,995 reference Count from the component's markup; line 9,999 is `Count++` in Tick.
    expect(rows).toHaveLength(MARKUP_LINES + 1);
    expect(rows.slice(0, MARKUP_LINES).every((r, i) => r.type === 'references' && r.line === i + 1 && r.source === 'Big')).toBe(true);
    expect(rows[MARKUP_LINES]).toEqual({ type: 'references', line: 9_999, source: 'Tick' });
    const callers = engine.navigate('callers', 'Big.Web.Components.Big.Tick');
    expect(callers.edges.map((e) => [e.type, e.confidence, e.line])).toEqual([['calls', 'exact', 9_996]]);
  });
});
