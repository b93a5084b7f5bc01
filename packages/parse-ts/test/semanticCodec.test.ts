import { CaError } from '@ca/schema';
import { describe, expect, it } from 'vitest';
import { semanticCodec } from '../src/semantic/service.js';

// The wire of the TS semantic worker as the supervisor reads it (service.ts, `semanticCodec`).
describe('semanticCodec', () => {
  it('frames an analyze request with the supervisor id, and cancel / shutdown messages', () => {
    const payload = { repoRoot: '/r', files: null, only: null, deadlineAt: 5 };
    expect(semanticCodec.encode(7, payload)).toEqual({ type: 'analyze', id: 7, repoRoot: '/r', files: null, only: null, deadlineAt: 5 });
    expect(semanticCodec.cancel?.(7)).toEqual({ type: 'cancel', id: 7 });
    expect(semanticCodec.shutdown?.()).toEqual({ type: 'shutdown' });
  });

  it('done is the result; plan, project_start and project are progress of their request', () => {
    expect(semanticCodec.decode({ type: 'done', id: 3 })).toEqual({ kind: 'result', id: 3, value: undefined });
    const plan = { type: 'plan', id: 3, projects: ['a/tsconfig.json'] };
    expect(semanticCodec.decode(plan)).toEqual({ kind: 'progress', id: 3, value: plan });
    const start = { type: 'project_start', id: 3, project: 'a/tsconfig.json' };
    expect(semanticCodec.decode(start)).toEqual({ kind: 'progress', id: 3, value: start });
  });

  it("an error fails its request with the worker's code, except an oom_restart naming its project (progress: the worker exits next)", () => {
    const failed = semanticCodec.decode({ type: 'error', id: 4, code: 'semantic_unavailable', message: 'cannot read repository: x' });
    expect(failed.kind).toBe('error');
    const error = (failed as { error: Error }).error;
    expect(error).toBeInstanceOf(CaError);
    expect([(error as CaError).code, error.message]).toEqual(['semantic_unavailable', 'cannot read repository: x']);
    const oom = { type: 'error', id: 4, code: 'oom_restart', message: 'heap passed the 400 MB ceiling', project: 'a/tsconfig.json' };
    expect(semanticCodec.decode(oom)).toEqual({ kind: 'progress', id: 4, value: oom });
  });

  it('hello, events and id-less errors are unsolicited; anything else is invalid (a protocol error)', () => {
    const hello = { type: 'hello', protocolVersion: 4, capabilities: [], extractorVersion: 'x', pid: 1 };
    expect(semanticCodec.decode(hello)).toEqual({ kind: 'event', value: hello });
    const event = { type: 'event', code: 'plugin_blocked', message: 'm' };
    expect(semanticCodec.decode(event)).toEqual({ kind: 'event', value: event });
    const stray = { type: 'error', id: null, code: 'semantic_unavailable', message: 'm' };
    expect(semanticCodec.decode(stray)).toEqual({ kind: 'event', value: stray });
    expect(semanticCodec.decode('garbage').kind).toBe('invalid');
    expect(semanticCodec.decode(null).kind).toBe('invalid');
    expect(semanticCodec.decode({ id: 1 }).kind).toBe('invalid');
    expect(semanticCodec.decode({ type: 'project', project: 'a' }).kind).toBe('invalid');
  });
});
