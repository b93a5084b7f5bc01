import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

describe('the HTTP server under a small concurrent load (tools/bench-mcp-load.mjs, CI-sized)', () => {
  it('4 sessions calling search and navigation tools for 5 s while index_files re-indexes: no call fails', () => {
    // Timing is not asserted here (docs/benchmarks.md has the 20-client, 60-second figures): only that every call answers.
    const r = spawnSync(process.execPath, [join(ROOT, 'tools/bench-mcp-load.mjs'), '--clients', '4', '--seconds', '5', '--edit-every-ms', '1000', '--json'], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.errors).toBe(0);
    expect(summary.clients).toBe(4);
    const tools = summary.rows.map((row: { tool: string }) => row.tool);
    // The mix: search and navigation calls from every session, and the re-index between them.
    for (const t of ['search_code', 'get_callers', 'index_files']) expect(tools).toContain(t);
  }, 300_000);
});
