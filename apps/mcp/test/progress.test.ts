import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeProgress, progressNotifier } from '../src/progress.js';
import { connect, copyFixture } from './helpers.js';

describe('progress notifications while an answer waits for the index', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('describes each phase, with counts when there are any', () => {
    expect(describeProgress({ phase: 'discover', done: 0, total: 0 })).toBe('indexing: listing files');
    expect(describeProgress({ phase: 'parse', done: 120, total: 665 })).toBe('indexing: parsing files 120/665');
    expect(describeProgress({ phase: 'write', done: 64, total: 665 })).toBe('indexing: writing files 64/665');
    expect(describeProgress({ phase: 'resolve', done: 0, total: 1 })).toBe('indexing: resolving imports');
    expect(describeProgress({ phase: 'semantic', done: 0, total: 1 })).toBe('indexing: semantic pass (exact edges)');
    expect(describeProgress({ phase: 'semantic', done: 2, total: 4 })).toBe('indexing: semantic pass, projects 2/4');
    expect(describeProgress({ phase: 'embed', done: 300, total: 5000 })).toBe('indexing: embedding symbols 300/5000');
  });

  it('silent during the delay; then on phase changes, throttled within a phase, with a heartbeat', () => {
    vi.useFakeTimers({ now: 0 });
    const sent: [number, string][] = [];
    const n = progressNotifier((progress, message) => sent.push([progress, message]), { delayMs: 500, intervalMs: 5000 });
    n.listener({ phase: 'discover', done: 0, total: 0 });
    vi.advanceTimersByTime(100);
    n.listener({ phase: 'parse', done: 1, total: 100 }); // t=100: still in the delay
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(500);
    // t=600: the heartbeat reports the phase the run is in (checked each second here: at t=1000).
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(400);
    expect(sent).toEqual([[1, 'indexing: parsing files 1/100']]);
    n.listener({ phase: 'parse', done: 50, total: 100 }); // t=1000: same phase within 500 ms: dropped
    vi.advanceTimersByTime(600);
    n.listener({ phase: 'parse', done: 90, total: 100 }); // t=1600: 600 ms later: sent
    n.listener({ phase: 'semantic', done: 0, total: 1 }); // a new phase: sent at once
    expect(sent.slice(1)).toEqual([
      [2, 'indexing: parsing files 90/100'],
      [3, 'indexing: semantic pass (exact edges)'],
    ]);
    // A long phase that reports nothing: a heartbeat every 5 s.
    vi.advanceTimersByTime(4999);
    expect(sent.length).toBe(3);
    vi.advanceTimersByTime(1001);
    expect(sent.slice(3)).toEqual([[4, 'indexing: semantic pass (exact edges)']]);
    n.stop();
    vi.advanceTimersByTime(60_000);
    expect(sent.length).toBe(4);
  });

  it('a search waiting for the first index receives one notification per phase when it asked for progress', async () => {
    const repo = copyFixture('ts-app');
    const mcp = await connect({ repo, progress: { delayMs: 0, intervalMs: 3_600_000 } });
    try {
      const got: { progress: number; total?: number; message?: string }[] = [];
      const r = await mcp.client.callTool({ name: 'search_code', arguments: { query: 'AuthService.authenticate' } }, undefined, { onprogress: (p) => got.push(p) });
      expect(r.isError).not.toBe(true);
      expect(got).toEqual([
        { progress: 1, message: 'indexing: listing files' },
        { progress: 2, message: 'indexing: parsing files 1/16' },
        { progress: 3, message: 'indexing: writing files 16/16' },
        { progress: 4, message: 'indexing: resolving imports' },
        { progress: 5, message: 'indexing: semantic pass (exact edges)' },
      ]);
      // Without a progress token nothing is sent (and a no-change refresh has nothing to report anyway).
      const quiet: unknown[] = [];
      mcp.client.fallbackNotificationHandler = async (n) => void quiet.push(n);
      await mcp.client.callTool({ name: 'search_code', arguments: { query: 'AuthService.authenticate' } });
      expect(quiet).toEqual([]);
    } finally {
      await mcp.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);

  it('index_files sends one notification per phase while it indexes, when asked for progress', async () => {
    const repo = copyFixture('ts-app');
    // No refresh before answers: index_files runs the first index itself.
    const mcp = await connect({ repo, refresh: false, progress: { delayMs: 0, intervalMs: 3_600_000 } });
    try {
      const got: { progress: number; message?: string }[] = [];
      const r = await mcp.client.callTool({ name: 'index_files', arguments: {} }, undefined, { onprogress: (p) => got.push(p) });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as any).changed).toBe(16);
      // fixtures/ts-app: 13 code files + README.md, package.json, tsconfig.json (decision 039) = 16
      // files, one TS program (the semantic pass reports its start only).
      expect(got).toEqual([
        { progress: 1, message: 'indexing: listing files' },
        { progress: 2, message: 'indexing: parsing files 1/16' },
        { progress: 3, message: 'indexing: writing files 16/16' },
        { progress: 4, message: 'indexing: resolving imports' },
        { progress: 5, message: 'indexing: semantic pass (exact edges)' },
      ]);
    } finally {
      await mcp.close();
      rmSync(join(repo, '..'), { recursive: true, force: true });
    }
  }, 120_000);
});
