import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RoslynHost } from '@ca/parse-cs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceOf } from './differential/lib.mjs';
import { Engine } from '../src/index.js';
import { runCsSemanticPass } from '../src/languages/csSemantic.js';
import { dotnetMissing, REPO_ROOT } from './helpers.js';

// The C# pass gave each project a deadline from its size alone (at least 30 s to analyse, 120 s
// to load), whatever `semantic.request_timeout_ms` said: on a loaded machine a project's pass
// failed in one index and not in another of the same tree (the differential runs' MediatR.Tests
// `failed` on one side, decision 022). The configured timeout is now the least a request gets.
// A recording host stands in for roslyn-host: only the deadlines asked for are under test.

const hasDotnet = dotnetMissing() === null;

function recordingHost(deadlines: string[]): RoslynHost {
  const host = {
    start: async () => undefined,
    dispose: async () => undefined,
    loadProject: async (p: { projectPath: string }, o: { deadlineMs: number }) => {
      deadlines.push(`load ${p.projectPath} ${o.deadlineMs}`);
      // A result of the protocol's shape: no project facts are needed for the deadlines.
      return { projects: [], warnings: [] };
    },
    analyze: async (p: { projectId: string }, o: { deadlineMs: number }) => {
      deadlines.push(`analyze ${p.projectId} ${o.deadlineMs}`);
      return { documents: [], missing: [], stats: { documents: 0, lines: 0, ms: 0 } };
    },
  };
  return host as unknown as RoslynHost;
}

describe.skipIf(!hasDotnet)('C# pass deadlines', () => {
  let repo: string;
  let engine: Engine;
  beforeAll(async () => {
    repo = workspaceOf(join(REPO_ROOT, 'fixtures', 'cs-solution'));
    // Syntactic only: the files are indexed, the pass below is the one under test.
    engine = Engine.open(repo, { env: {}, configOverrides: { semantic: { enabled: false }, embedding: { enabled: false } } });
    await engine.index();
  }, 300_000);
  afterAll(() => {
    engine.close();
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('semantic.request_timeout_ms is the least a project load and analysis get', async () => {
    const deadlines: string[] = [];
    await runCsSemanticPass(engine.store, repo, 'working', { safeMode: true, host: recordingHost(deadlines), requestTimeoutMs: 900_000 });
    expect(deadlines).toEqual([
      'load src/Acme.App/Acme.App.csproj 900000',
      'analyze src/Acme.App/Acme.App.csproj 900000',
      'load src/Acme.Core/Acme.Core.csproj 900000',
      'analyze src/Acme.Core/Acme.Core.csproj 900000',
    ]);
  });

  it('without it, the size-based floors (120 s to load, 30 s to analyse a small solution)', async () => {
    const deadlines: string[] = [];
    await runCsSemanticPass(engine.store, repo, 'working', { safeMode: true, host: recordingHost(deadlines) });
    expect(deadlines).toEqual([
      'load src/Acme.App/Acme.App.csproj 120000',
      'analyze src/Acme.App/Acme.App.csproj 30000',
      'load src/Acme.Core/Acme.Core.csproj 120000',
      'analyze src/Acme.Core/Acme.Core.csproj 30000',
    ]);
  });
});
