import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

// Runs the built tool (`pnpm build` first, as for every script in tools/). Each run starts the
// engine's parse worker and loads both grammars: seconds, more on a busy machine.
const SLOW = 180_000;
const ROOT = resolve(__dirname, '../..');
const dump = (...args: string[]) => spawnSync(process.execPath, ['tools/dump-extraction.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });

/** Independent of the tool's own serializer: keys sorted at every level, arrays as they are. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

// The 13 `.cs` files of fixtures/cs-solution (`find fixtures/cs-solution -name '*.cs' | sort`),
// none of them ignored: `src/Acme.App` sorts before `src/Acme.Core` ('A' < 'C').
const CS_FILES = [
  'src/Acme.App/Program.cs',
  'src/Acme.Core/Billing/RateLimiter.cs',
  'src/Acme.Core/Billing/SubscriptionService.cs',
  'src/Acme.Core/Data/Repository.cs',
  'src/Acme.Core/Domain/Customer.Billing.cs',
  'src/Acme.Core/Domain/Customer.cs',
  'src/Acme.Core/Domain/CustomerDto.cs',
  'src/Acme.Core/Domain/Money.cs',
  'src/Acme.Core/Generated/CustomerDto.g.cs',
  'src/Acme.Core/Notifications/Notifier.cs',
  'src/Acme.Core/Payments/IPaymentGateway.cs',
  'src/Acme.Core/Payments/PaymentGateways.cs',
  'src/Acme.Core/Text/StringExtensions.cs',
];

describe('tools/dump-extraction.mjs', { timeout: SLOW }, () => {
  let first: ReturnType<typeof dump>;
  let second: ReturnType<typeof dump>;
  beforeAll(() => {
    first = dump('--lang', 'cs', 'fixtures/cs-solution');
    second = dump('--lang', 'cs', 'fixtures/cs-solution');
  }, SLOW);

  it('prints one canonical line per C# file in path order, the same bytes on a second run', () => {
    expect(first.status).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const lines = first.stdout.trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { path: string; dir: string; generated: boolean });
    expect(records.map((r) => r.path)).toEqual(CS_FILES);
    for (const [i, line] of lines.entries()) expect(line).toBe(sortedJson(records[i]));
    // `*.g.cs` is generated code by its name (isGeneratedCs); the others are not.
    expect(records.filter((r) => r.generated).map((r) => r.path)).toEqual(['src/Acme.Core/Generated/CustomerDto.g.cs']);
    expect(first.stderr).toMatch(/^dumped 13 files; parse time cs \d+ ms\n$/);
  });

  it("holds a file's whole extraction: status, nodes with spans, edges", () => {
    const program = JSON.parse(first.stdout.split('\n')[0]!);
    // Program.cs: 32 lines, 1,024 bytes, ASCII, no syntax error.
    expect(program).toMatchObject({ dir: 'fixtures/cs-solution', language: 'cs', lineCount: 32, size: 1024, parseStatus: 'ok', statusReason: null });
    expect(program.index.diagnostics).toEqual([]);
    // The nine `using` lines take 219 bytes (14+24+30+25+22+24+31+26+22) plus the empty line 10:
    // `namespace Acme.App;` (file-scoped, so to the end of the file) starts at byte 219, line 11;
    // `public static class Program` 21 bytes later (the line and an empty one), line 13; `Main`
    // after `public static class Program\n{\n` (30 bytes) and four spaces, line 15, ending with
    // the `}` of line 31 (the file ends `    }\n}\n`: 1,024 - 3 = 1,021).
    const nodes = program.index.nodes.map((n: { localId: string; kind: string; name: string; span: unknown }) => [n.localId, n.kind, n.name, n.span]);
    expect(nodes).toEqual([
      ['n0', 'file', 'Program.cs', { startLine: 1, endLine: 32, startByte: 0, endByte: 1024 }],
      ['n1', 'namespace', 'Acme.App', { startLine: 11, endLine: 32, startByte: 219, endByte: 1024 }],
      ['n2', 'class', 'Program', { startLine: 13, endLine: 32, startByte: 240, endByte: 1023 }],
      ['n3', 'method', 'Main', { startLine: 15, endLine: 31, startByte: 274, endByte: 1021 }],
    ]);
    // Edges come contains first, then the file's imports in source order (lines 1–9).
    const edges = program.index.edges as { type: string; sourceLocalId: string; line: number; target: { name: string } }[];
    expect(edges.slice(0, 3).map((e) => [e.type, e.sourceLocalId, e.target.name, e.line])).toEqual([
      ['contains', 'n0', 'Acme.App', 11],
      ['contains', 'n1', 'Program', 13],
      ['contains', 'n2', 'Main', 15],
    ]);
    expect(edges.filter((e) => e.type === 'imports').map((e) => [e.target.name, e.line])).toEqual([
      ['System', 1],
      ['System.Threading', 2],
      ['System.Threading.Tasks', 3],
      ['Acme.Core.Billing', 4],
      ['Acme.Core.Data', 5],
      ['Acme.Core.Domain', 6],
      ['Acme.Core.Notifications', 7],
      ['Acme.Core.Payments', 8],
      ['Acme.Core.Text', 9],
    ]);
  });

  it('selects files by language and refuses an unknown one', () => {
    const ts = dump('--lang', 'ts', 'fixtures/cs-solution');
    expect(ts.status).toBe(0);
    expect(ts.stdout).toBe('');
    expect(ts.stderr).toBe('dumped 0 files; parse time none\n');
    const bad = dump('--lang', 'java', 'fixtures/cs-solution');
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('unknown --lang java');
  });
});
