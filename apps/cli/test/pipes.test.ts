import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, type Command } from '../src/usage.js';
import { BIN, cleanEnv, ROOT } from './helpers.js';

/**
 * `ca CMD | head -1`: a reader that goes away ends the command quietly with exit 0, for every
 * command of the CLI's table (usage.ts). The stdout pipe's read end is closed before the command
 * starts, so its first write fails with EPIPE every time (a `head -1` would race the writer).
 */
const dir = mkdtempSync(join(tmpdir(), 'ca-pipes-'));
const repo = join(dir, 'repo');
cpSync(join(ROOT, 'fixtures/ts-app'), repo, { recursive: true });
const env = cleanEnv({ CA_EMBEDDING_MODEL_DIR: '/nonexistent/models', CA_CONTEXT_FILE: join(dir, 'context.json') });
// A git repository with one commit, indexed twice: the working tree and the label `base` (for label rm and gc).
const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
git('init', '-q');
git('add', '.');
git('commit', '-qm', 'fixture');
for (const args of [['index', repo], ['index', repo, '--label', 'base', '--commit', 'HEAD']]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ca ${args.join(' ')} failed: ${r.stderr}`);
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run of each command that writes to stdout on this fixture. */
const EXAMPLES: Partial<Record<Command, string[]>> = {
  index: ['index', repo],
  watch: ['watch', repo],
  search: ['search', 'login', '--repo', repo],
  find: ['find', 'kind:method', '--repo', repo],
  view: ['view', 'src/auth/authService.ts', '--repo', repo],
  symbol: ['symbol', 'AuthService.login', '--repo', repo],
  outline: ['outline', 'src/auth/authService.ts', '--repo', repo],
  source: ['source', 'AuthService.login', '--repo', repo],
  callers: ['callers', 'AuthService.issueToken', '--repo', repo],
  callees: ['callees', 'AuthService.login', '--repo', repo],
  refs: ['refs', 'AuthService', '--repo', repo],
  impls: ['impls', 'TokenStore', '--repo', repo],
  deps: ['deps', 'src/auth/authService.ts', '--repo', repo],
  dependents: ['dependents', 'src/auth/tokenStore.ts', '--repo', repo],
  impact: ['impact', 'AuthService.issueToken', '--repo', repo],
  graph: ['graph', '--repo', repo],
  routes: ['routes', '--repo', repo],
  affected: ['affected', 'base..', '--repo', repo],
  status: ['status', '--repo', repo],
  health: ['health', '--repo', repo],
  labels: ['labels', '--repo', repo],
  label: ['label', 'rm', 'base', '--repo', repo],
  gc: ['gc', '--repo', repo],
  export: ['export', '--repo', repo, '--out', join(dir, 'repo.caindex')],
  import: ['import', join(dir, 'repo.caindex'), '--repo', repo, '--no-index'],
  use: ['use', '--repo', repo],
  similar: ['similar', 'AuthService.login', '--repo', repo],
  mcp: ['mcp', 'instructions'],
  eval: ['eval', '--help'],
  ui: ['ui', '--help'],
};

/** Left out, with the reason: what they print goes through the same handler, but running them here would not say more. */
const NOT_RUN: Partial<Record<Command, string>> = {
  serve: 'a long-running HTTP server that logs to stderr only (apps/mcp/test covers its lifetime)',
  model: 'model import copies a whole embedding model folder into the user cache',
  repos: 'needs a PostgreSQL team store (apps/cli/test/teamStore.test.ts runs it against the test server)',
};

interface Run {
  code: number | null;
  signal: string | null;
  stderr: string;
}

/** Runs `ca args` with stdout a pipe whose reader is already gone (`closed`), or one that is read to the end. */
function run(args: string[], closed: boolean): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (closed) child.stdout.destroy();
    else child.stdout.resume();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    // A command that ignored the dead pipe would run on (watch: forever); killed, it fails the test.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

describe('a closed stdout ends every command quietly (exit 0)', () => {
  it('every command of the table has an example or a stated reason', () => {
    expect(COMMANDS.filter((c) => EXAMPLES[c] === undefined && NOT_RUN[c] === undefined)).toEqual([]);
  });

  // The order matters only for `label rm base` before `gc` (the table's order) and `watch` last-but-one among writers.
  it.each(COMMANDS.filter((c) => EXAMPLES[c] !== undefined).map((c) => [c, EXAMPLES[c]!] as const))(
    'ca %s with its reader gone: exit 0, nothing more on stderr',
    async (_command, args) => {
      const broken = await run(args, true);
      // What a command writes to stderr anyway (search's "note: vector channel off: …", written
      // before the results) is not the pipe's doing: the dead pipe must add nothing to it. Runs
      // that print no note compare with ''.
      const expectedStderr = broken.stderr === '' ? '' : (await run(args, false)).stderr;
      expect(broken).toEqual({ code: 0, signal: null, stderr: expectedStderr });
    },
    90_000,
  );
});
