import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { probeViewer, VIEWER_PROBE_PATH, viewerFilePath } from '@ca/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCopy, indexedEngine, ROOT } from './harness.js';

/** GET the probe path with a given Host header: [status, body]. */
function probeWithHost(port: number, host: string): Promise<[number, string]> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path: VIEWER_PROBE_PATH, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => done([res.statusCode ?? 0, body]));
    });
    req.on('error', fail);
    req.end();
  });
}

/**
 * `ca ui` (the built CLI, a real process) announces itself in `.codeagent/ui.json` for MCP
 * answers to link to it, answers the probe with the instance it wrote, and removes the file
 * when it stops.
 */
describe('ca ui announces itself to MCP servers (.codeagent/ui.json)', () => {
  let repo: string;

  beforeAll(async () => {
    repo = fixtureCopy('ts-app');
    const engine = await indexedEngine(repo);
    await engine.dispose();
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('writes port, pid, instance and repository (no token), answers the probe, removes the file on SIGTERM', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'ui', '--repo', repo, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CA_EMBEDDING_ENABLED: 'false' } });
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    await new Promise<void>((done, fail) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes('ca ui: open ')) done();
      });
      child.on('exit', () => fail(new Error(`ca ui exited early: ${stderr}`)));
    });
    const file = viewerFilePath(join(repo, '.codeagent', 'index.db'));
    const announced = JSON.parse(readFileSync(file, 'utf8'));
    const login = /open (http:\/\/127\.0\.0\.1:(\d+))\/login\?code=(\S+)/.exec(stderr)!;
    expect(Object.keys(announced).sort()).toEqual(['app', 'instance', 'pid', 'port', 'repoRoot']);
    expect(announced).toEqual({ app: 'ca-ui', port: Number(login[2]), pid: child.pid, instance: expect.stringMatching(/^[0-9a-f]{32}$/), repoRoot: repo });
    // The file names neither the login code nor anything else the viewer keeps secret.
    expect(readFileSync(file, 'utf8')).not.toContain(login[3]);
    expect(await probeViewer(announced.port, announced.instance)).toBe(true);
    expect(await probeViewer(announced.port, 'another-instance')).toBe(false);
    // The probe needs no cookie and says only who answers; a foreign Host (DNS rebinding) still gets 403.
    expect(await probeWithHost(announced.port, `127.0.0.1:${announced.port}`)).toEqual([200, JSON.stringify({ app: 'ca-ui', instance: announced.instance })]);
    expect((await probeWithHost(announced.port, 'evil.example'))[0]).toBe(403);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(file)).toBe(false);
    // Nothing answers on the port any more: a file left behind would be ignored.
    expect(await probeViewer(announced.port, announced.instance)).toBe(false);
  }, 120_000);
});
