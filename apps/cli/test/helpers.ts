import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../../..');
export const BIN = join(ROOT, 'apps/cli/dist/main.js');

/** The environment without any CA_ variable (the machine's settings do not leak into answers), plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => !e[0].startsWith('CA_') && e[1] !== undefined));
  return { ...base, ...extra };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The run was killed at its deadline: a hang, reported as a failure rather than waited on. */
  readonly timedOut: boolean;
  /** Peak resident set of the run in KiB (`/usr/bin/time`), when measured. */
  readonly maxRssKb: number | null;
}

/**
 * Runs the built CLI in a child process killed after `timeoutMs`: a regression that blocks (a
 * FIFO) or reads forever (/dev/zero) fails the test instead of hanging the run.
 */
export function ca(args: string[], options: { cwd?: string; timeoutMs?: number; env?: Record<string, string>; input?: string } = {}): CliRun {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: options.env ?? cleanEnv(),
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut, maxRssKb: null };
}

/** `ca(args)` under `/usr/bin/time -f %M`: also reports the peak RSS (KiB) of the whole run. */
export function caMeasured(args: string[], options: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {}): CliRun {
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    encoding: 'utf8',
    env: options.env ?? cleanEnv(),
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  const m = /maxrss=(\d+)\s*$/.exec(r.stderr ?? '');
  return { code: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '').replace(/maxrss=\d+\s*$/, ''), timedOut, maxRssKb: m ? Number(m[1]) : null };
}

/**
 * Why the C# semantic parts of a test cannot run here (no .NET SDK, or roslyn-host not built),
 * or null. They are skipped with the reason printed; with CA_REQUIRE_DOTNET=1 (set by .ci/run)
 * that is an error instead.
 */
export function dotnetMissing(): string | null {
  const dotnet = spawnSync('dotnet', ['--version'], { encoding: 'utf8' }).status === 0;
  const release = join(ROOT, 'roslyn-host', 'bin', 'Release');
  const built = existsSync(release) && readdirSync(release).some((tfm) => existsSync(join(release, tfm, 'CodeAgent.RoslynHost.dll')));
  const reason = !dotnet ? 'dotnet (the .NET SDK) is not installed' : !built ? `roslyn-host is not built (no ${release}/<tfm>/CodeAgent.RoslynHost.dll)` : null;
  if (reason === null) return null;
  if (process.env['CA_REQUIRE_DOTNET'] === '1') throw new Error(`CA_REQUIRE_DOTNET=1 but the C# tests cannot run: ${reason}`);
  console.warn(`SKIPPED: the C# parts need the .NET SDK and a built roslyn-host: ${reason}`);
  return reason;
}

/** Makes a FIFO at test time (nothing in the repository holds one). */
export function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${r.stderr}`);
}

/** A line `ca watch --json` prints per run. */
export interface WatchLine {
  event: string;
  files: number;
  changed: number;
  removed: number;
}

/** `ca watch --json` on `repo` in a child process, its lines parsed as they come; `line(n)` waits for the n-th (1-based). */
export function watchChild(repo: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'watch', repo, '--json', '--debounce', '100'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: WatchLine[] = [];
  let stderr = '';
  const waiters: (() => void)[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    buffer += d;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)) as WatchLine);
      buffer = buffer.slice(nl + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => (stderr += d));
  const line = (n: number) =>
    new Promise<WatchLine>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`no line ${n} within ${timeoutMs} ms; got ${JSON.stringify(lines)}; stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        if (lines.length < n) return waiters.push(check);
        clearTimeout(timer);
        res(lines[n - 1]!);
      };
      check();
    });
  return { child, lines, line, stderr: () => stderr };
}
