import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CaError } from '@ca/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { createTsSemanticService, type SemanticServiceEvent } from '../src/index.js';
import { SEMANTIC_PROTOCOL_VERSION } from '../src/semantic/types.js';

// The service's supervision against a fake worker (test/fixtures/fakeSemanticWorker.mjs): no
// compiler runs, so these check only what @ca/supervisor and the service do with the worker.
const FAKE = fileURLToPath(new URL('./fixtures/fakeSemanticWorker.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  delete process.env.FAKE_SEMANTIC_MARK;
  delete process.env.FAKE_SEMANTIC_PROTOCOL;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Points the fake at a fresh mark file (the worker's environment is this process's). */
function fakeEnv(protocol: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'ca-fake-semantic-'));
  dirs.push(dir);
  process.env.FAKE_SEMANTIC_MARK = join(dir, 'mark');
  process.env.FAKE_SEMANTIC_PROTOCOL = String(protocol);
}

describe('semantic service supervision (fake worker)', () => {
  it('a worker that writes a non-protocol message is replaced and the request resumes on the new one', async () => {
    fakeEnv(SEMANTIC_PROTOCOL_VERSION);
    const events: SemanticServiceEvent[] = [];
    const svc = createTsSemanticService({ workerPath: FAKE, workers: 1, onEvent: (e) => events.push(e) });
    try {
      // 3 s: the fake answers at once; a worker whose garbage were ignored would end in `timeout` here.
      const r = await svc.analyzeRepository('/nowhere', { deadlineMs: 3_000 });
      expect(r.projects.map((p) => [p.tsconfig, p.status])).toEqual([['tsconfig.json', 'ok']]);
      // The first worker broke the protocol (killed: a crash of the request), the second answered.
      expect(events.filter((e) => e.type === 'spawned')).toHaveLength(2);
      expect(events.filter((e) => e.type === 'restart').map((e) => e.code)).toEqual(['crash']);
    } finally {
      await svc.dispose();
    }
  }, 60_000);

  it('a worker speaking another protocol version fails the request with semantic_unavailable', async () => {
    fakeEnv(SEMANTIC_PROTOCOL_VERSION + 1);
    const svc = createTsSemanticService({ workerPath: FAKE, workers: 1 });
    try {
      const error = await svc.analyzeRepository('/nowhere', { deadlineMs: 30_000 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CaError);
      expect([(error as CaError).code, (error as CaError).message]).toEqual([
        'semantic_unavailable',
        `semantic worker speaks protocol ${SEMANTIC_PROTOCOL_VERSION + 1}, expected ${SEMANTIC_PROTOCOL_VERSION}`,
      ]);
      expect(svc.pid).toBeNull();
    } finally {
      await svc.dispose();
    }
  }, 60_000);
});
