import type { Readable } from 'node:stream';

/** How often the stdio server checks that the process that started it is still alive. */
export const PARENT_POLL_MS = 1000;

/** How long a stopping server waits for the engine, watchers and workers to close before it exits anyway. */
export const CLOSE_DEADLINE_MS = 800;

/** Why a stdio server stops. */
export type StopReason = 'stdin closed' | 'stdout closed' | 'parent exited' | 'SIGTERM' | 'SIGINT' | 'SIGHUP';

const brokenStreams = new WeakSet<NodeJS.WritableStream>();
const stdoutClosedListeners = new Set<() => void>();
let pipesGuarded = false;

/**
 * Handles a failed write to stdout or stderr once, quietly. A reader that went away (EPIPE,
 * ECONNRESET) or any other write error marks the stream broken: nothing is written to it again,
 * so an error path can never turn into a loop of failed writes (each failure raising an
 * uncaught exception that is logged to the same dead pipe). Idempotent.
 */
export function guardPipes(): void {
  if (pipesGuarded) return;
  pipesGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => {
      brokenStreams.add(stream);
      if (stream === process.stdout) for (const l of stdoutClosedListeners) l();
    });
  }
}

/** False once a write to `stream` failed (its reader is gone): callers then stay silent. */
export function writable(stream: NodeJS.WritableStream): boolean {
  return !brokenStreams.has(stream);
}

/** Marks `stream` broken (an error that says its reader is gone arrived another way). */
export function markBroken(stream: NodeJS.WritableStream): void {
  brokenStreams.add(stream);
}

/** True for the errors a write to a pipe or socket whose reader went away raises. */
export function isPipeGone(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/** True while the process `pid` exists (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * Resolves with the first reason a stdio server has to stop: its stdin ends or closes, its stdout
 * reader is gone, the process that started it exits (polled too: the pipes outlive a killed
 * client when another process, e.g. one that inherited them, still holds their other end), or
 * SIGTERM, SIGINT or SIGHUP arrives. A second signal while stopping exits at once (code 1).
 * The poll timer is unref'd: it never keeps the process alive, and costs one syscall a second.
 */
export function whenToStop(input: Readable = process.stdin, parentPid: number = process.ppid): Promise<StopReason> {
  return new Promise<StopReason>((resolve) => {
    let stopping = false;
    const stop = (reason: StopReason): void => {
      if (stopping) return;
      stopping = true;
      clearInterval(poll);
      stdoutClosedListeners.delete(onStdoutClosed);
      resolve(reason);
    };
    const onStdoutClosed = (): void => stop('stdout closed');
    stdoutClosedListeners.add(onStdoutClosed);
    input.once('end', () => stop('stdin closed'));
    input.once('close', () => stop('stdin closed'));
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      process.on(signal, () => {
        if (stopping) process.exit(1);
        stop(signal);
      });
    }
    // A parent pid of 1 (or 0 on Windows) means the server was started detached: nothing to watch.
    const poll = setInterval(() => {
      if (parentPid > 1 && !processAlive(parentPid)) stop('parent exited');
    }, PARENT_POLL_MS);
    poll.unref();
  });
}

/** Waits for `work`, at most `ms`: true when it finished (or failed) in time. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((res) => {
    timer = setTimeout(() => res(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
