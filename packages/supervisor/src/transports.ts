/**
 * The two ways a supervised process is reached: a worker thread (structured-clone messages) and a
 * child process speaking JSON lines on stdin/stdout (stderr kept, bounded, for error messages).
 * A transport only moves messages and reports the end of the process; ids, deadlines and
 * restarts belong to the supervisor.
 */
import { fork, spawn as spawnChild, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** How a process ended. `oom` when it died of its memory limit (resource limit, V8 heap). */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: string | null;
  readonly oom: boolean;
  readonly error?: Error;
}

/** What a transport tells its supervisor about one running process. */
export interface ChannelListener {
  message(message: unknown): void;
  /** The process broke the protocol (unreadable line, line over the size bound, uncloneable message). */
  protocolError(detail: string): void;
  /** A line of stderr (child processes only). */
  log?(line: string): void;
  /** Called once, after the last message. */
  exit(info: ExitInfo): void;
}

/** One running process, as the supervisor sees it. */
export interface Channel {
  /** Process id (child processes) or thread id (worker threads). */
  readonly pid: number;
  send(message: unknown): void;
  /** Ends the process at once (SIGKILL / terminate). */
  kill(): void;
  /** Whether the process keeps the parent's event loop alive (busy: yes; idle: no). */
  hold(held: boolean): void;
  /** The end of its stderr, bounded (empty for worker threads). */
  stderrTail(): string;
  /** Resident set size in bytes, or null when it cannot be measured per process (threads, no /proc). */
  rssBytes(): number | null;
}

/** Starts processes of one kind. */
export interface Transport {
  /** A short name for messages (`roslyn-host`, `parse worker`). */
  readonly name: string;
  start(listener: ChannelListener): Channel;
}

/** Options of `workerThreadTransport`. */
export interface WorkerThreadOptions {
  readonly name: string;
  readonly script: string | URL;
  readonly workerData?: unknown;
  /** V8 limits of the thread (the memory ceiling of a worker thread: it dies with `oom` past them). */
  readonly resourceLimits?: ResourceLimits;
  /** Forward the thread's stdout to the parent's stderr (the CLI's stdout carries JSON only). */
  readonly stdoutToStderr?: boolean;
}

/** A transport that runs `script` in a `worker_threads` Worker. */
export function workerThreadTransport(options: WorkerThreadOptions): Transport {
  return {
    name: options.name,
    start(listener) {
      const worker = new Worker(options.script, {
        workerData: options.workerData,
        ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
        ...(options.stdoutToStderr ? { stdout: true } : {}),
      });
      if (options.stdoutToStderr) worker.stdout.pipe(process.stderr, { end: false });
      let failure: Error | undefined;
      worker.on('message', (m: unknown) => listener.message(m));
      worker.on('messageerror', (e) => listener.protocolError(`unreadable message: ${e.message}`));
      worker.on('error', (e) => {
        failure ??= e;
      });
      worker.once('exit', (code) => {
        const oom = (failure as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        listener.exit({ code, signal: null, oom, ...(failure ? { error: failure } : {}) });
      });
      return {
        pid: worker.threadId,
        send: (m) => worker.postMessage(m),
        kill: () => void worker.terminate(),
        hold: (held) => (held ? worker.ref() : worker.unref()),
        stderrTail: () => '',
        rssBytes: () => null,
      };
    },
  };
}

/** Options of `childProcessTransport`. */
export interface ChildProcessOptions {
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** A stdout line longer than this is a protocol error (bounds the parent's memory). Default 256 MiB. */
  readonly maxLineBytes?: number;
  /** How much of stderr is kept for error messages. Default 8 KiB. */
  readonly stderrTailBytes?: number;
}

/** Reads VmRSS (bytes) from /proc/<pid>/status; null where /proc is unavailable. */
export function readRss(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    // The process is gone or there is no /proc: no measurement, not an error.
    return null;
  }
}

/**
 * Splits a byte stream into lines without holding more than `maxBytes` of one line: past the
 * bound `overflow` is called once and the rest of that line is dropped.
 */
export function lineSplitter(maxBytes: number, line: (text: string) => void, overflow: () => void): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let size = 0;
  let dropping = false;
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (!dropping && size + (nl - start) <= maxBytes) {
        parts.push(chunk.subarray(start, nl));
        line(Buffer.concat(parts).toString('utf8'));
      } else if (!dropping) overflow();
      parts = [];
      size = 0;
      dropping = false;
      start = nl + 1;
    }
    if (start >= chunk.length || dropping) return;
    size += chunk.length - start;
    if (size > maxBytes) {
      overflow();
      dropping = true;
      parts = [];
      return;
    }
    parts.push(chunk.subarray(start));
  };
}

/** A transport that spawns `command` and exchanges one JSON value per line over stdio. */
export function childProcessTransport(options: ChildProcessOptions): Transport {
  const maxLine = options.maxLineBytes ?? 256 * 1024 * 1024;
  const tailBytes = options.stderrTailBytes ?? 8 * 1024;
  return {
    name: options.name,
    start(listener) {
      const child: ChildProcessWithoutNullStreams = spawnChild(options.command, [...(options.args ?? [])], {
        stdio: ['pipe', 'pipe', 'pipe'],
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      let tail = '';
      let ended = false;
      let failure: Error | undefined;
      const finish = (code: number | null, signal: string | null): void => {
        if (ended) return;
        ended = true;
        const oom = /heap out of memory|OutOfMemory/i.test(tail);
        listener.exit({ code, signal, oom, ...(failure ? { error: failure } : {}) });
      };
      child.stdout.on(
        'data',
        lineSplitter(
          maxLine,
          (text) => {
            if (text.trim() === '') return;
            let value: unknown;
            try {
              value = JSON.parse(text);
            } catch {
              // The line is not JSON: reported as a protocol error (the child is misbehaving), not thrown here.
              listener.protocolError(`unreadable line on stdout: ${text.slice(0, 200)}`);
              return;
            }
            listener.message(value);
          },
          () => listener.protocolError(`a stdout line longer than ${maxLine} bytes`),
        ),
      );
      const logLine = lineSplitter(
        tailBytes,
        (text) => listener.log?.(text),
        () => undefined,
      );
      child.stderr.on('data', (d: Buffer) => {
        tail = (tail + d.toString('utf8')).slice(-tailBytes);
        logLine(d);
      });
      child.stdin.on('error', () => undefined); // a write to a dead child: its exit is reported by 'close'
      child.on('error', (e) => {
        failure ??= e;
        // A child that never started emits no 'close' when it has no pid.
        if (child.pid === undefined) finish(null, null);
      });
      child.on('close', (code, signal) => finish(code, signal));
      const streams = [child.stdout, child.stderr, child.stdin] as unknown as { ref?(): void; unref?(): void }[];
      return {
        pid: child.pid ?? -1,
        send(m) {
          if (ended || !child.stdin.writable) return;
          child.stdin.write(`${JSON.stringify(m)}\n`);
        },
        kill: () => void child.kill('SIGKILL'),
        hold(held) {
          if (held) child.ref();
          else child.unref();
          for (const s of streams) (held ? s.ref : s.unref)?.call(s);
        },
        stderrTail: () => tail,
        rssBytes: () => (child.pid === undefined ? null : readRss(child.pid)),
      };
    },
  };
}

/** Options of `nodeIpcTransport`. */
export interface NodeIpcOptions {
  readonly name: string;
  /** The Node script to fork. */
  readonly script: string;
  readonly args?: readonly string[];
  /** Node flags, e.g. `--max-old-space-size=2048` (a heap death is reported as `oom`). */
  readonly execArgv?: readonly string[];
  /** The environment; a function is called at each start (per-start values such as a first task). */
  readonly env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
  /** How much of stderr is kept for error messages. Default 8 KiB. */
  readonly stderrTailBytes?: number;
}

/**
 * A transport that forks a Node script and exchanges messages over Node's IPC channel (JSON
 * serialization); stdout is ignored, stderr kept (bounded) as for `childProcessTransport`.
 */
export function nodeIpcTransport(options: NodeIpcOptions): Transport {
  const tailBytes = options.stderrTailBytes ?? 8 * 1024;
  return {
    name: options.name,
    start(listener) {
      const env = typeof options.env === 'function' ? options.env() : options.env;
      const child = fork(options.script, [...(options.args ?? [])], {
        execArgv: [...(options.execArgv ?? [])],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
        ...(env ? { env } : {}),
      });
      let tail = '';
      let ended = false;
      let failure: Error | undefined;
      const finish = (code: number | null, signal: string | null): void => {
        if (ended) return;
        ended = true;
        listener.exit({ code, signal, oom: /heap out of memory/i.test(tail), ...(failure ? { error: failure } : {}) });
      };
      child.on('message', (m: unknown) => listener.message(m));
      const logLine = lineSplitter(
        tailBytes,
        (text) => listener.log?.(text),
        () => undefined,
      );
      child.stderr?.on('data', (d: Buffer) => {
        tail = (tail + d.toString('utf8')).slice(-tailBytes);
        logLine(d);
      });
      child.on('error', (e) => {
        failure ??= e;
        if (child.pid === undefined) finish(null, null);
      });
      child.on('close', (code, signal) => finish(code, signal));
      const handles = [child.channel, child.stderr] as unknown as ({ ref?(): void; unref?(): void } | null | undefined)[];
      return {
        pid: child.pid ?? -1,
        send(m) {
          // A message to a child that is going away is lost; its exit is reported by 'close'.
          if (!ended && child.connected) child.send(m as object, (e) => e && undefined);
        },
        kill: () => void child.kill('SIGKILL'),
        hold(held) {
          if (held) child.ref();
          else child.unref();
          for (const h of handles) (held ? h?.ref : h?.unref)?.call(h);
        },
        stderrTail: () => tail,
        rssBytes: () => (child.pid === undefined ? null : readRss(child.pid)),
      };
    },
  };
}
