import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../src/index.js';
import { CLEAN_ENV, CLI_BIN, copyFixture, MCP_BIN } from './helpers.js';

/**
 * The stdio server's lifetime (docs/reliability.md, "A server never outlives its client"): it
 * ends when its client dies, its stdin closes or a SIGTERM arrives, and none of its children
 * outlives it. Process trees are read from /proc, so these run on Linux only.
 */
const CLIENT = join(__dirname, 'lifecycle/client.mjs');
const ENV = { ...CLEAN_ENV, CA_EMBEDDING_MODEL_DIR: '/nonexistent/models' };
/** Generous: the server stops within a second (parent poll) plus its close deadline; a loaded machine gets slack. */
const GONE_WITHIN_MS = 8000;
const linux = existsSync('/proc/self/stat');

/** One fixture copy for every test, indexed once up front so each server starts on a complete index. */
const repo = copyFixture('ts-app');
const indexed = spawnSync(process.execPath, [CLI_BIN, 'index', repo], { env: ENV, encoding: 'utf8' });
if (indexed.status !== 0) throw new Error(`ca index failed: ${indexed.stderr}`);

/** The tools the server lists (tools/list through a real client), with their input schemas. */
const listed = spawnSync(process.execPath, [CLIENT, MCP_BIN, repo, '--list'], { env: ENV, encoding: 'utf8', cwd: __dirname });
if (listed.status !== 0) throw new Error(`tools/list failed: ${listed.stderr}`);
const TOOLS = JSON.parse(listed.stdout) as { name: string; inputSchema: { properties?: Record<string, { type?: string }>; required?: string[] } }[];

/** Arguments for a tool, generated from its schema: every required property gets a value of its type that names something in ts-app. */
function argumentsFor(schema: (typeof TOOLS)[number]['inputSchema']): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    if (type === 'number' || type === 'integer') args[name] = 1;
    else if (type === 'boolean') args[name] = false;
    else if (type === 'array') args[name] = ['src/auth/authService.ts'];
    else args[name] = name === 'path' ? 'src/auth/authService.ts' : 'AuthService.login';
  }
  return args;
}

/** The parent pid and state of `pid` from /proc, or null once it is gone. */
function procStat(pid: number): { ppid: number; state: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, ppid: Number(rest[1]) };
  } catch {
    // No /proc entry: the process is gone (and reaped).
    return null;
  }
}

/** Every live descendant of `pid` (children, their children, …). */
function descendants(pid: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = procStat(Number(entry));
    if (s) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) for (const c of byParent.get(queue.shift()!) ?? []) (out.push(c), queue.push(c));
  return out;
}

/** A zombie has exited; only its parent's reaping is left, which is not the server's doing. */
const alive = (pid: number): boolean => {
  const s = procStat(pid);
  return s !== null && s.state !== 'Z';
};

/** Polls until none of `pids` is alive, or the bound passes; returns those still alive. */
async function survivors(pids: number[], withinMs = GONE_WITHIN_MS): Promise<number[]> {
  const start = Date.now();
  while (Date.now() - start < withinMs) {
    if (!pids.some(alive)) return [];
    await new Promise((r) => setTimeout(r, 100));
  }
  return pids.filter(alive);
}

/** The first stdout line of `child` parsed as JSON (the client prints one when its call returned). */
function firstLine(child: ChildProcess): Promise<any> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.once('exit', (code) => reject(new Error(`client exited (${code}) before answering: ${err}`)));
  });
}

/** Kills whatever a failed test left running, so a failure here never leaves a busy process behind. */
const started: number[] = [];
afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(join(repo, '..'), { recursive: true, force: true });
});

describe.runIf(linux)('a stdio server never outlives its client', () => {
  it('lists the tools it serves (the list the tests below iterate): every registered tool', () => {
    expect(TOOLS.map((t) => t.name)).toEqual([...TOOL_NAMES]);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s: after the call, SIGKILL of the client ends the server and its children', async (_name, tool) => {
    const client = spawn(process.execPath, [CLIENT, MCP_BIN, repo, tool.name, JSON.stringify(argumentsFor(tool.inputSchema))], { env: ENV, cwd: __dirname, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(client.pid!);
    const { pid, answered } = (await firstLine(client)) as { pid: number; answered: boolean };
    started.push(pid);
    expect(answered).toBe(true);
    const tree = [pid, ...descendants(pid)];
    started.push(...tree);
    client.kill('SIGKILL');
    expect(await survivors(tree)).toEqual([]);
  }, 60_000);
});

/** The server started directly by the test (the test is its parent and holds its pipes). */
function startServer(): { child: ChildProcess; exited: Promise<{ code: number | null; signal: string | null }>; stderr: () => string } {
  const child = spawn(process.execPath, [MCP_BIN, repo], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: string | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return { child, exited, stderr: () => stderr };
}

/** How the server exited, or 'still running' when it had not within the bound. */
function exitWithin(exited: Promise<{ code: number | null; signal: string | null }>): Promise<{ code: number | null; signal: string | null } | 'still running'> {
  return Promise.race([exited, new Promise<'still running'>((res) => setTimeout(() => res('still running'), GONE_WITHIN_MS).unref())]);
}

/** Initializes the server and reads a file through it; resolves once the answer arrived. */
async function readFileThrough(child: ChildProcess): Promise<void> {
  const send = (m: object) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  const answered = new Promise<void>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (out.split('\n').some((l) => l.includes('"id":2'))) resolve();
    });
  });
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'src/auth/authService.ts' } } });
  await answered;
}

describe.runIf(linux)('a stdio server stops when told', () => {
  it('the first SIGTERM ends it (exit 0), with its children', async () => {
    const server = startServer();
    await readFileThrough(server.child);
    const tree = [server.child.pid!, ...descendants(server.child.pid!)];
    server.child.kill('SIGTERM');
    expect(await exitWithin(server.exited)).toEqual({ code: 0, signal: null });
    expect(await survivors(tree)).toEqual([]);
    expect(server.stderr()).toContain('ca-mcp: stopping: SIGTERM\n');
  }, 60_000);

  it('stdin closing ends it (exit 0), with its children', async () => {
    const server = startServer();
    await readFileThrough(server.child);
    const tree = [server.child.pid!, ...descendants(server.child.pid!)];
    server.child.stdin!.end();
    expect(await exitWithin(server.exited)).toEqual({ code: 0, signal: null });
    expect(await survivors(tree)).toEqual([]);
    expect(server.stderr()).toContain('ca-mcp: stopping: stdin closed\n');
  }, 60_000);

  it('its stdout and stderr readers going away end it quietly (no loop of failed writes)', async () => {
    const server = startServer();
    await readFileThrough(server.child);
    const tree = [server.child.pid!, ...descendants(server.child.pid!)];
    // The client stops reading but keeps stdin open: only the dead pipes can tell the server.
    server.child.stdout!.destroy();
    server.child.stderr!.destroy();
    server.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`);
    expect(await exitWithin(server.exited)).toEqual({ code: 0, signal: null });
    expect(await survivors(tree)).toEqual([]);
  }, 60_000);
});
